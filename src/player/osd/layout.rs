//! Where the OSD's boxes go: one layout that knows all of them (the compare line, messages, the
//! adjustments and marks notes, the stats overlay and the pixel readout), so none is drawn over
//! another or over the bottom panel. Pure: sizes in, rectangles out.

use egui::{pos2, vec2, Pos2, Rect, Vec2};

/// Space kept free at the window's edges, and between boxes.
pub const MARGIN: f32 = 8.0;
pub const GAP: f32 = 4.0;
/// The least of the stats overlay worth showing where it must be cut short.
const MIN_STATS_HEIGHT: f32 = 48.0;
/// The narrowest the stats overlay is laid out beside other boxes (else it goes below them).
const MIN_STATS_WIDTH: f32 = 320.0;
/// Where the pixel readout goes by default: below and right of the pointer.
pub const PROBE_OFFSET: f32 = 16.0;

/// The OSD's boxes, in the order they are placed (the first placed keeps its place).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoxKind {
    Compare,
    Toasts,
    Adjustments,
    Marks,
    Stats,
    Probe,
    /// The bottom panel: placed by itself, named in what was drawn.
    Panel,
    /// "no signal" over a live input's last frame, in the middle of the window.
    NoSignal,
    /// The histogram timeline, in the bottom panel: named in what was drawn.
    Timeline,
    /// The timeline's VMAF row, comparing: named in what was drawn.
    Vmaf,
    /// The timeline's PSE row, with the photosensitivity view on: named in what was drawn.
    Pse,
    /// The audio meters, at the right edge: the other boxes are placed beside them.
    Meters,
    /// The help list, over everything in the middle: named in what was drawn.
    Help,
}

impl BoxKind {
    /// Its name in the frame log.
    pub fn name(self) -> &'static str {
        match self {
            BoxKind::Compare => "compare",
            BoxKind::Toasts => "toasts",
            BoxKind::Adjustments => "adjustments",
            BoxKind::Marks => "marks",
            BoxKind::Stats => "stats",
            BoxKind::Probe => "probe",
            BoxKind::Panel => "panel",
            BoxKind::NoSignal => "no_signal",
            BoxKind::Timeline => "timeline",
            BoxKind::Vmaf => "vmaf",
            BoxKind::Pse => "pse",
            BoxKind::Meters => "meters",
            BoxKind::Help => "help",
        }
    }
}

/// A box to place and its size (for the stats overlay, the widest it may be laid out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wanted {
    pub kind: BoxKind,
    pub size: Vec2,
}

/// The window, the bottom panel where it shows, and the pointer where the probe shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Screen {
    pub rect: Rect,
    pub panel: Option<Rect>,
    pub pointer: Option<Pos2>,
}

/// Places `wanted`: the compare line centred at the top; the adjustments and marks notes at
/// the right, each as high as it goes clear of the rest; the messages at the top left (below
/// the compare line where they would meet); the stats overlay in the column (right or left)
/// where most of it shows above the panel, cut short there; the pixel readout beside the
/// pointer, on whichever side is clear, else at the free place nearest to it. Where the notes
/// and the compare line don't fit above the panel so, the notes go first and the compare line
/// moves left of them (or the marks go before the adjustments). Boxes of kinds not wanted get
/// no place; a box gets its wanted size except the stats overlay (narrowed and cut to its room).
pub fn place(screen: &Screen, wanted: &[Wanted]) -> Vec<(BoxKind, Rect)> {
    let mut area = screen.rect;
    let floor = screen.panel.map_or(area.max.y, |p| p.min.y) - MARGIN;
    // The meters take the right edge, from the top to the panel (or as tall as they want);
    // the rest is laid out beside them.
    let meters = wanted.iter().find(|w| w.kind == BoxKind::Meters).map(|w| {
        let top = area.min.y + MARGIN;
        let height = w.size.y.min(floor - top).max(0.0);
        let width = w.size.x.min(area.width() - 2.0 * MARGIN).max(0.0);
        let rect = Rect::from_min_size(pos2(area.max.x - MARGIN - width, top), vec2(width, height));
        area.max.x = rect.min.x - GAP + MARGIN;
        (BoxKind::Meters, rect)
    });
    let fits = |placed: &[(BoxKind, Rect)]| {
        placed
            .iter()
            .enumerate()
            .all(|(i, (_, rect))| rect.max.y <= floor && area.contains_rect(*rect) && is_free(&placed[i + 1..], *rect))
    };
    // The usual order first: the others only where it leaves boxes meeting.
    let (c, a, m) = (BoxKind::Compare, BoxKind::Adjustments, BoxKind::Marks);
    let orders = [[c, a, m], [a, m, c], [m, a, c], [m, c, a], [a, c, m], [c, m, a]];
    let tops: Vec<_> = orders
        .iter()
        .map(|order| top_boxes(area, floor, wanted, order))
        .collect();
    let mut placed = tops.iter().find(|top| fits(top)).unwrap_or(&tops[0]).clone();
    let size_of = |kind| wanted.iter().find(|w| w.kind == kind).map(|w| w.size);
    if let Some(size) = size_of(BoxKind::Stats) {
        placed.extend(stats_rect(area, floor, &placed, size).map(|rect| (BoxKind::Stats, rect)));
    }
    if let (Some(size), Some(pointer)) = (size_of(BoxKind::Probe), screen.pointer) {
        let mut taken = placed.clone();
        taken.extend(screen.panel.map(|p| (BoxKind::Panel, p)));
        placed.push((BoxKind::Probe, probe_rect(area, &taken, size, pointer)));
    }
    placed.extend(meters);
    placed
}

/// The compare line and the notes at the right placed in `order`, then the messages: the
/// compare line centred, or left of what is in its way; a note at the right, as high as it goes,
/// or where it would reach the panel so, at the free place nearest the top right corner.
fn top_boxes(area: Rect, floor: f32, wanted: &[Wanted], order: &[BoxKind; 3]) -> Vec<(BoxKind, Rect)> {
    let size_of = |kind| wanted.iter().find(|w| w.kind == kind).map(|w| w.size);
    let top = area.min.y + MARGIN;
    let room = Rect::from_min_max(area.min, pos2(area.max.x, floor + MARGIN));
    let mut placed: Vec<(BoxKind, Rect)> = Vec::new();
    for &kind in order {
        let Some(size) = size_of(kind) else { continue };
        let rect = if kind == BoxKind::Compare {
            let centred = Rect::from_min_size(pos2(area.center().x - size.x / 2.0, top), size);
            let right = placed
                .iter()
                .filter(|(_, r)| r.intersects(centred))
                .map(|(_, r)| r.min.x - GAP)
                .fold(centred.max.x, f32::min);
            let left = Rect::from_min_size(pos2((right - size.x).max(area.min.x + MARGIN), top), size);
            match is_free(&placed, left) {
                true => left,
                false => {
                    nearest_free(room, &placed, size, centred.center()).map_or(left, |at| Rect::from_min_size(at, size))
                }
            }
        } else {
            let x = area.max.x - MARGIN - size.x;
            let below = Rect::from_min_size(pos2(x, free_y(&placed, x, size, top)), size);
            match below.max.y > floor {
                true => nearest_free(room, &placed, size, pos2(area.max.x, top))
                    .map_or(below, |at| Rect::from_min_size(at, size)),
                false => below,
            }
        };
        placed.push((kind, rect));
    }
    if let Some(size) = size_of(BoxKind::Toasts) {
        let x = area.min.x + MARGIN;
        let y = free_y(&placed, x, size, top);
        placed.push((BoxKind::Toasts, Rect::from_min_size(pos2(x, y), size)));
    }
    placed
}

/// The highest top, from `top` down, at which a box of `size` at `x` meets none of `placed`.
fn free_y(placed: &[(BoxKind, Rect)], x: f32, size: Vec2, top: f32) -> f32 {
    let mut tops: Vec<f32> = std::iter::once(top)
        .chain(placed.iter().map(|(_, r)| r.max.y + GAP))
        .filter(|&y| y >= top)
        .collect();
    tops.sort_by(f32::total_cmp);
    tops.into_iter()
        .find(|&y| is_free(placed, Rect::from_min_size(pos2(x, y), size)))
        .unwrap_or(top)
}

fn is_free(placed: &[(BoxKind, Rect)], rect: Rect) -> bool {
    placed.iter().all(|(_, r)| !r.intersects(rect))
}

/// The stats overlay: in the first place, top to bottom, right before left, where it shows at
/// least `MIN_STATS_WIDTH` (or its width) across and `MIN_STATS_HEIGHT` down beside what is
/// placed; else where most of it shows; None where nothing of it would. As wide as that room
/// (up to its width) and cut at `floor`.
fn stats_rect(area: Rect, floor: f32, placed: &[(BoxKind, Rect)], size: Vec2) -> Option<Rect> {
    let top = area.min.y + MARGIN;
    let (low, high) = (area.min.x + MARGIN, area.max.x - MARGIN);
    let narrowest = MIN_STATS_WIDTH.min(size.x);
    let mut ys: Vec<f32> = std::iter::once(top)
        .chain(placed.iter().map(|(_, r)| r.max.y + GAP))
        .filter(|&y| y >= top && y < floor)
        .collect();
    ys.sort_by(f32::total_cmp);
    let mut best: Option<Rect> = None;
    for y in ys {
        let beside: Vec<Rect> = placed
            .iter()
            .map(|(_, r)| *r)
            .filter(|r| r.max.y >= y && r.min.y <= floor)
            .collect();
        for from_right in [true, false] {
            let (mut left, mut right) = (low.max(high - size.x), high);
            if !from_right {
                (left, right) = (low, high.min(low + size.x));
            }
            let mut blocked = false;
            for r in &beside {
                if from_right {
                    blocked |= r.max.x >= high - narrowest;
                    left = left.max(r.max.x + GAP);
                } else {
                    blocked |= r.min.x <= low + narrowest;
                    right = right.min(r.min.x - GAP);
                }
            }
            if blocked || right <= left {
                continue;
            }
            let rect = Rect::from_min_max(pos2(left, y), pos2(right, floor.min(y + size.y)));
            if rect.width() >= narrowest && rect.height() >= MIN_STATS_HEIGHT.min(size.y) {
                return Some(rect);
            }
            if best.is_none_or(|b| b.area() < rect.area()) {
                best = Some(rect);
            }
        }
    }
    best
}

/// The pixel readout: below and right of the pointer as it has always been (kept from the
/// window's right and bottom edges), else on another side of it, else at the free place nearest
/// to it; only where nothing is free, at the first of those.
fn probe_rect(area: Rect, taken: &[(BoxKind, Rect)], size: Vec2, pointer: Pos2) -> Rect {
    let d = PROBE_OFFSET;
    // (Kept from the edges by the widest and tallest readout, so it doesn't jitter.)
    let usual = pos2(
        (pointer.x + d).min(area.max.x - size.x.max(300.0)).max(area.min.x),
        (pointer.y + d).min(area.max.y - size.y.max(30.0)),
    );
    let sides = [
        usual,
        pos2(pointer.x - d - size.x, pointer.y + d),
        pos2(pointer.x + d, pointer.y - d - size.y),
        pos2(pointer.x - d - size.x, pointer.y - d - size.y),
    ];
    let fits = |at: Pos2| {
        let rect = Rect::from_min_size(at, size);
        area.contains_rect(rect) && is_free(taken, rect)
    };
    if let Some(at) = sides.into_iter().find(|&at| fits(at)) {
        return Rect::from_min_size(at, size);
    }
    let at = nearest_free(area, taken, size, pointer).unwrap_or(usual);
    Rect::from_min_size(at, size)
}

/// The top left of the place for a box of `size` inside `room`, clear of `taken` (at `MARGIN`
/// from the edges), whose centre is nearest `target`; the places tried are those beside the
/// edges of what is taken and against the room's own edges.
fn nearest_free(room: Rect, taken: &[(BoxKind, Rect)], size: Vec2, target: Pos2) -> Option<Pos2> {
    let (low, high) = (room.min + vec2(MARGIN, MARGIN), room.max - vec2(MARGIN, MARGIN) - size);
    let xs: Vec<f32> = [target.x - size.x / 2.0, low.x, high.x]
        .into_iter()
        .chain(taken.iter().flat_map(|(_, r)| [r.max.x + GAP, r.min.x - GAP - size.x]))
        .filter(|x| (low.x..=high.x).contains(x))
        .collect();
    let ys: Vec<f32> = [target.y - size.y / 2.0, low.y, high.y]
        .into_iter()
        .chain(taken.iter().flat_map(|(_, r)| [r.max.y + GAP, r.min.y - GAP - size.y]))
        .filter(|y| (low.y..=high.y).contains(y))
        .collect();
    let distance = |at: &Pos2| (Rect::from_min_size(*at, size).center() - target).length_sq();
    xs.iter()
        .flat_map(|&x| ys.iter().map(move |&y| pos2(x, y)))
        .filter(|&at| is_free(taken, Rect::from_min_size(at, size)))
        .min_by(|a, b| distance(a).total_cmp(&distance(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boxes of the sizes they take in the window, the stats at their widest.
    fn sizes(width: f32) -> [Wanted; 6] {
        let wanted = |kind, x, y| Wanted { kind, size: vec2(x, y) };
        [
            wanted(BoxKind::Compare, 338.0, 21.0),
            wanted(BoxKind::Toasts, 260.0, 44.0),
            wanted(BoxKind::Adjustments, 190.0, 21.0),
            wanted(BoxKind::Marks, 171.0, 159.0),
            wanted(BoxKind::Stats, (width - 2.0 * MARGIN).min(720.0), 300.0),
            wanted(BoxKind::Probe, 247.0, 21.0),
        ]
    }

    /// The bottom panel as the window draws it: 89 points tall, above the quads' band.
    fn panel(w: f32, h: f32) -> Rect {
        let bottom = h * 0.75 - 6.0;
        Rect::from_min_max(pos2(MARGIN, bottom - 89.0), pos2(w - MARGIN, bottom))
    }

    #[test]
    fn no_box_meets_another_or_the_panel_or_leaves_the_window() {
        for (w, h) in [(640.0, 360.0), (800.0, 450.0), (1280.0, 720.0), (1920.0, 1080.0)] {
            let area = Rect::from_min_size(Pos2::ZERO, vec2(w, h));
            let panel = panel(w, h);
            let all = sizes(w);
            for subset in 0..(1u32 << all.len()) {
                let wanted: Vec<Wanted> = (0..all.len())
                    .filter(|i| subset & (1 << i) != 0)
                    .map(|i| all[i])
                    .collect();
                for px in 0..16 {
                    for py in 0..9 {
                        let pointer = pos2((px as f32 + 0.5) * w / 16.0, (py as f32 + 0.5) * h / 9.0);
                        // Over the panel the probe gives way to the panel's widgets.
                        let pointer = (!panel.contains(pointer)).then_some(pointer);
                        let screen = Screen {
                            rect: area,
                            panel: Some(panel),
                            pointer,
                        };
                        let placed = place(&screen, &wanted);
                        let what = format!("{w}x{h}, pointer {pointer:?}: {placed:?}");
                        for (i, (kind, rect)) in placed.iter().enumerate() {
                            assert!(area.contains_rect(*rect), "{kind:?} leaves the window; {what}");
                            assert!(!rect.intersects(panel), "{kind:?} is on the panel; {what}");
                            assert!(rect.height() > 0.0, "{kind:?} has no room; {what}");
                            for (other, next) in &placed[i + 1..] {
                                assert!(!rect.intersects(*next), "{kind:?} meets {other:?}; {what}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn boxes_that_dont_meet_keep_their_usual_places() {
        let (w, h) = (1920.0, 1080.0);
        let screen = Screen {
            rect: Rect::from_min_size(Pos2::ZERO, vec2(w, h)),
            panel: Some(panel(w, h)),
            pointer: Some(pos2(300.0, 400.0)),
        };
        let wanted = |kind, x, y| Wanted { kind, size: vec2(x, y) };
        let placed = place(
            &screen,
            &[
                wanted(BoxKind::Compare, 400.0, 22.0),
                wanted(BoxKind::Toasts, 260.0, 44.0),
                wanted(BoxKind::Marks, 215.0, 130.0),
                wanted(BoxKind::Probe, 285.0, 22.0),
            ],
        );
        let at = |kind| placed.iter().find(|(k, _)| *k == kind).unwrap().1;
        assert_eq!(
            at(BoxKind::Compare),
            Rect::from_min_size(pos2(760.0, 8.0), vec2(400.0, 22.0))
        );
        assert_eq!(
            at(BoxKind::Toasts),
            Rect::from_min_size(pos2(8.0, 8.0), vec2(260.0, 44.0))
        );
        assert_eq!(
            at(BoxKind::Marks),
            Rect::from_min_size(pos2(1697.0, 8.0), vec2(215.0, 130.0))
        );
        assert_eq!(
            at(BoxKind::Probe),
            Rect::from_min_size(pos2(316.0, 416.0), vec2(285.0, 22.0))
        );
    }

    #[test]
    fn at_640x360_the_compare_line_moves_left_of_the_legend_and_the_stats_show_beside_it() {
        let (w, h) = (640.0, 360.0);
        let screen = Screen {
            rect: Rect::from_min_size(Pos2::ZERO, vec2(w, h)),
            panel: Some(panel(w, h)),
            pointer: Some(pos2(560.0, 60.0)),
        };
        let shown = [BoxKind::Compare, BoxKind::Marks, BoxKind::Stats, BoxKind::Probe];
        let wanted: Vec<Wanted> = sizes(w).into_iter().filter(|w| shown.contains(&w.kind)).collect();
        let placed = place(&screen, &wanted);
        let at = |kind| placed.iter().find(|(k, _)| *k == kind).unwrap().1;
        let (compare, marks, stats, probe) = (
            at(BoxKind::Compare),
            at(BoxKind::Marks),
            at(BoxKind::Stats),
            at(BoxKind::Probe),
        );
        assert_eq!(
            marks.min,
            pos2(w - MARGIN - 171.0, MARGIN),
            "the legend keeps its corner"
        );
        assert_eq!(
            compare,
            Rect::from_min_size(pos2(marks.min.x - GAP - 338.0, MARGIN), vec2(338.0, 21.0))
        );
        assert_eq!(stats.min, pos2(MARGIN, compare.max.y + GAP), "{stats:?}");
        assert_eq!(stats.max.x, marks.min.x - GAP, "{stats:?}");
        assert_eq!(stats.max.y, panel(w, h).min.y - MARGIN, "cut short above the panel");
        for (kind, rect) in [
            (BoxKind::Compare, compare),
            (BoxKind::Marks, marks),
            (BoxKind::Stats, stats),
        ] {
            assert!(!probe.intersects(rect), "{probe:?} on {kind:?} {rect:?}");
        }
    }
}
