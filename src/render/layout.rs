//! Screen layout: where the picture and the histogram quads go, in clip space.
//! Pure functions, so they are tested without a GPU.

use crate::geometry::Rect;

/// How the picture fills the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fit {
    /// Fill the whole window, cropping the picture's overflow (the articles' choice).
    #[default]
    Cover,
    /// Show the whole picture, with bars where the aspects differ.
    Contain,
}

impl Fit {
    pub fn toggled(self) -> Self {
        match self {
            Fit::Cover => Fit::Contain,
            Fit::Contain => Fit::Cover,
        }
    }
}

/// The picture's rectangle for a picture of `aspect` (display width / height) in a viewport.
pub fn fit_picture(aspect: f32, viewport: (u32, u32), fit: Fit) -> Rect {
    let (w, h) = (viewport.0.max(1) as f32, viewport.1.max(1) as f32);
    let viewport_aspect = w / h;
    let wider = aspect > viewport_aspect;
    // Half-extents of the picture in clip space: the fitted side spans -1..1 exactly.
    let (sx, sy) = match (fit, wider) {
        (Fit::Cover, true) | (Fit::Contain, false) => (aspect / viewport_aspect, 1.0),
        (Fit::Cover, false) | (Fit::Contain, true) => (1.0, viewport_aspect / aspect),
    };
    Rect {
        left: -sx,
        bottom: -sy,
        right: sx,
        top: sy,
    }
}

/// The two histogram quads along the bottom, as in the articles: RGB on the left half, L on the
/// right, each 90% of its half's width, centred in it, a quarter of the height tall.
pub fn histogram_quads() -> [Rect; 2] {
    [0.0f32, 1.0].map(|i| Rect {
        left: -0.95 + i,
        bottom: -1.0,
        right: -0.05 + i,
        top: -0.5,
    })
}

/// Where a window point (physical pixels, y down) falls on a `frame`-sized picture drawn in
/// `picture` (clip space) turned by `orientation`: in frame pixels, unclamped (outside the
/// picture the coordinates run past 0 or the frame's size).
pub fn frame_point(
    point: (f64, f64),
    viewport: (u32, u32),
    picture: Rect,
    orientation: crate::geometry::Orientation,
    frame: (u32, u32),
) -> (f64, f64) {
    let (w, h) = (f64::from(viewport.0.max(1)), f64::from(viewport.1.max(1)));
    let clip = (point.0 / w * 2.0 - 1.0, 1.0 - point.1 / h * 2.0);
    // The picture quad's texcoord, (0, 0) at its top left; then the texture's, as the picture
    // shader maps it.
    let t = (
        (clip.0 - f64::from(picture.left)) / f64::from(picture.right - picture.left),
        (f64::from(picture.top) - clip.1) / f64::from(picture.top - picture.bottom),
    );
    let (uv_x, uv_y) = orientation.uv_rows();
    let map = |row: [f32; 4]| f64::from(row[0]) * t.0 + f64::from(row[1]) * t.1 + f64::from(row[2]);
    (map(uv_x) * f64::from(frame.0), map(uv_y) * f64::from(frame.1))
}

/// The frame pixel at a point from `frame_point`, if it lies on the frame.
pub fn pixel_at(point: (f64, f64), frame: (u32, u32)) -> Option<(u32, u32)> {
    let inside = |v: f64, size: u32| v >= 0.0 && v < f64::from(size);
    (inside(point.0, frame.0) && inside(point.1, frame.1)).then_some((point.0 as u32, point.1 as u32))
}

/// The region between two points from `frame_point` (a drag's start and end), clamped to the
/// frame and covering every pixel either point touches; at least one pixel.
pub fn region_between(a: (f64, f64), b: (f64, f64), frame: (u32, u32)) -> crate::scope::Region {
    let span = |p: f64, q: f64, size: u32| {
        let size = f64::from(size.max(1));
        let lo = p.min(q).clamp(0.0, size - 1.0).floor();
        let hi = p.max(q).clamp(0.0, size).ceil().max(lo + 1.0);
        (lo as u32, (hi - lo) as u32)
    };
    let (x, width) = span(a.0, b.0, frame.0);
    let (y, height) = span(a.1, b.1, frame.1);
    crate::scope::Region { x, y, width, height }
}

/// Where the bottom band's quads go: the two histograms and, if one is shown, a scope.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub histograms: [Rect; 2],
    pub scope: Option<Rect>,
}

impl Band {
    /// The share of the viewport's height the band takes, up to its tallest quad.
    pub fn height(&self) -> f32 {
        let top = self
            .histograms
            .iter()
            .chain(&self.scope)
            .map(|r| r.top)
            .fold(-1.0, f32::max);
        (top + 1.0) / 2.0
    }
}

/// The bottom band for a viewport. Without a scope, the articles' two histogram quads. With
/// one, the band is shared in thirds: RGB, luminance, then the waveform or parade; the
/// vectorscope and the CIE diagram take a square at the right, as tall as the third allows
/// (up to 45% of the height).
pub fn band_layout(scope: Option<crate::scope::ScopeKind>, viewport: (u32, u32)) -> Band {
    let Some(kind) = scope else {
        return Band {
            histograms: histogram_quads(),
            scope: None,
        };
    };
    let third = |i: f32| Rect {
        left: -0.95 + 0.65 * i,
        bottom: -1.0,
        right: -0.35 + 0.65 * i,
        top: -0.5,
    };
    let scope = if kind.is_square() {
        let (w, h) = (viewport.0.max(1) as f32, viewport.1.max(1) as f32);
        // The third is 0.6 of clip width, 0.3·w pixels.
        let side = (0.3 * w).min(0.45 * h);
        Rect {
            left: 0.95 - 2.0 * side / w,
            bottom: -1.0,
            right: 0.95,
            top: -1.0 + 2.0 * side / h,
        }
    } else {
        third(2.0)
    };
    Band {
        histograms: [third(0.0), third(1.0)],
        scope: Some(scope),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_fills_and_crops() {
        // 2:1 picture in a 1:1 viewport: full height, twice the width
        assert_eq!(
            fit_picture(2.0, (100, 100), Fit::Cover),
            Rect {
                left: -2.0,
                bottom: -1.0,
                right: 2.0,
                top: 1.0
            }
        );
        // 1:2 picture in a 1:1 viewport: full width, twice the height
        assert_eq!(
            fit_picture(0.5, (100, 100), Fit::Cover),
            Rect {
                left: -1.0,
                bottom: -2.0,
                right: 1.0,
                top: 2.0
            }
        );
    }

    #[test]
    fn contain_letterboxes() {
        assert_eq!(
            fit_picture(2.0, (100, 100), Fit::Contain),
            Rect {
                left: -1.0,
                bottom: -0.5,
                right: 1.0,
                top: 0.5
            }
        );
        assert_eq!(
            fit_picture(0.5, (100, 100), Fit::Contain),
            Rect {
                left: -0.5,
                bottom: -1.0,
                right: 0.5,
                top: 1.0
            }
        );
        // 16:9 in 16:9 is exact either way
        assert_eq!(fit_picture(16.0 / 9.0, (1920, 1080), Fit::Contain), Rect::FULL);
        assert_eq!(fit_picture(16.0 / 9.0, (1920, 1080), Fit::Cover), Rect::FULL);
    }

    #[test]
    fn quads_sit_along_the_bottom() {
        let [rgb, l] = histogram_quads();
        assert_eq!(rgb.to_pixels(200, 100), (5, 75, 95, 100));
        assert_eq!(l.to_pixels(200, 100), (105, 75, 195, 100));
        assert!((rgb.right - rgb.left - 0.9).abs() < 1e-6);
        assert!((l.top - l.bottom - 0.5).abs() < 1e-6);
    }

    #[test]
    fn scopes_share_the_band_in_thirds() {
        use crate::scope::ScopeKind;
        assert_eq!(band_layout(None, (200, 100)).histograms, histogram_quads());
        let band = band_layout(Some(ScopeKind::Waveform), (1000, 500));
        let [rgb, l] = band.histograms;
        let scope = band.scope.unwrap();
        assert_eq!(rgb.to_pixels(1000, 500), (25, 375, 325, 500));
        assert_eq!(l.to_pixels(1000, 500), (350, 375, 650, 500));
        assert_eq!(scope.to_pixels(1000, 500), (675, 375, 975, 500));
        // The vectorscope is square on screen, bottom right.
        let v = band_layout(Some(ScopeKind::Vectorscope), (1000, 500)).scope.unwrap();
        let (x0, y0, x1, y1) = v.to_pixels(1000, 500);
        assert_eq!((x1, y1), (975, 500));
        assert_eq!(x1 - x0, y1 - y0);
        assert_eq!(y1 - y0, 225);
        assert_eq!(band_layout(None, (1000, 500)).height(), 0.25);
        assert!((band_layout(Some(ScopeKind::Vectorscope), (1000, 500)).height() - 0.45).abs() < 1e-6);
    }

    #[test]
    fn window_points_map_to_frame_pixels_through_fit_and_rotation() {
        use crate::geometry::Orientation;
        let close = |a: (f64, f64), b: (f64, f64)| {
            assert!((a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9, "{a:?} vs {b:?}")
        };
        let upright = Orientation::default();
        // A 200x100 frame filling a 200x100 window: pixels map one to one.
        let full = fit_picture(2.0, (200, 100), Fit::Cover);
        close(
            frame_point((10.5, 20.5), (200, 100), full, upright, (200, 100)),
            (10.5, 20.5),
        );
        assert_eq!(pixel_at((10.5, 20.5), (200, 100)), Some((10, 20)));
        // Contained in a 200x200 window: bars above and below map off the frame.
        let contain = fit_picture(2.0, (200, 200), Fit::Contain);
        let top = frame_point((100.0, 10.0), (200, 200), contain, upright, (200, 100));
        assert!(top.1 < 0.0);
        assert_eq!(pixel_at(top, (200, 100)), None);
        close(
            frame_point((100.0, 100.0), (200, 200), contain, upright, (200, 100)),
            (100.0, 50.0),
        );
        // Turned a quarter clockwise: the window's top left shows the frame's bottom left.
        let turned = Orientation {
            quarter_turns: 1,
            half: None,
        };
        let rect = fit_picture(0.5, (100, 200), Fit::Cover);
        let p = frame_point((0.0, 0.0), (100, 200), rect, turned, (200, 100));
        close(p, (0.0, 100.0));
    }

    #[test]
    fn drags_make_regions_inside_the_frame() {
        let r = region_between((10.2, 5.7), (3.9, 20.0), (100, 50));
        assert_eq!((r.x, r.y, r.width, r.height), (3, 5, 8, 15));
        let r = region_between((-20.0, -5.0), (500.0, 80.0), (100, 50));
        assert_eq!((r.x, r.y, r.width, r.height), (0, 0, 100, 50));
        let r = region_between((7.5, 7.5), (7.5, 7.5), (100, 50));
        assert_eq!((r.width, r.height), (1, 1));
        let r = region_between((120.0, 60.0), (130.0, 70.0), (100, 50));
        assert_eq!((r.x, r.y, r.width, r.height), (99, 49, 1, 1));
    }

    #[test]
    fn zero_sized_viewports_do_not_divide_by_zero() {
        let r = fit_picture(1.5, (0, 0), Fit::Cover);
        assert!(r.left.is_finite() && r.top.is_finite());
    }
}
