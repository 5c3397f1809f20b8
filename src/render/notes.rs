//! Notes drawn with egui over the picture that the window and `render` both show: the marks on
//! the picture and the false-colour scale's legend. The window draws them in its OSD pass;
//! `render` in a pass of its own over the picture it read back (`draw_over`).

use crate::colour::ColorVolume;
use crate::gpu::texture::GpuFrame;
use crate::gpu::GpuContext;
use crate::marks::MarkSettings;
use crate::video::format::FrameFormat;
use egui::{Align2, Color32, Id, RichText, Sense};

const TEXT: Color32 = Color32::from_rgb(235, 235, 235);
/// Where a note sits from the top-right corner of a picture `render` draws.
const RENDER_MARGIN: f32 = 8.0;

/// The marks on the picture, noted at the top while any is on: which, at what levels, and the
/// false-colour scale's bands.
#[derive(Clone, Debug, PartialEq)]
pub struct MarksNote {
    pub line: String,
    /// Each band's colour and range, while false colour is on.
    pub legend: Vec<([u8; 3], String)>,
}

impl MarksNote {
    /// The note for `settings` on a source of `volume` and `format`.
    pub fn new(settings: &MarkSettings, volume: &ColorVolume, format: &FrameFormat) -> Option<Self> {
        Self::noted(settings, volume, format, false)
    }

    /// The note for `settings` on a comparison of `volume` and `format` (A's), which has no
    /// range marks: the composite has no planes of its own.
    pub fn comparing(settings: &MarkSettings, volume: &ColorVolume, format: &FrameFormat) -> Option<Self> {
        Self::noted(settings, volume, format, true)
    }

    fn noted(settings: &MarkSettings, volume: &ColorVolume, format: &FrameFormat, comparing: bool) -> Option<Self> {
        use crate::colour::{Primaries, Range};
        use crate::marks::scale::Unit;
        use crate::marks::Mark;
        let shown = settings.shown;
        if shown.is_empty() {
            return None;
        }
        let scale = settings.scale_for(volume);
        let parts: Vec<String> = shown
            .iter()
            .map(|mark| match mark {
                Mark::FalseColour => "false colour".to_string(),
                Mark::Zebra => match settings.zebra_low {
                    Some(low) => format!("zebra {}% and {low}%", settings.zebra),
                    None => format!("zebra {}%", settings.zebra),
                },
                Mark::Peaking => format!("peaking {}%", settings.peaking),
                Mark::Gamut if volume.primaries == Primaries::Bt709 => "gamut (a BT.709 source: none)".into(),
                Mark::Gamut => "gamut: outside BT.709".into(),
                Mark::Range if comparing => "range (not while comparing: none)".into(),
                Mark::Range if !format.layout.is_yuv() || format.color.range == Range::Full => {
                    "range (not limited-range Y'CbCr: none)".into()
                }
                Mark::Range => "range: outside 16-235 / 16-240".into(),
            })
            .collect();
        let unit = match scale.unit {
            Unit::Percent => "%",
            Unit::Nits => " nits",
            Unit::Stops => " stops",
        };
        let legend = if shown.has(Mark::FalseColour) {
            scale
                .bands
                .iter()
                .map(|b| {
                    let range = format!("{}–{}{unit}", b.from, b.to);
                    let text = if b.label.is_empty() {
                        range
                    } else if scale.unit == Unit::Stops {
                        // Its stop says it: the band is the half stop either side.
                        b.label.clone()
                    } else if b.label.is_empty() {
                        range
                    } else {
                        format!("{range} {}", b.label)
                    };
                    (b.colour, text)
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(Self {
            line: parts.join(" · "),
            legend,
        })
    }
}

/// The dark backing of a note that stays on screen over the picture (the marks', the
/// adjustments').
pub fn note_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(Color32::from_black_alpha(150))
        .corner_radius(4.0)
        .inner_margin(egui::Margin::symmetric(NOTE_MARGIN.0, NOTE_MARGIN.1))
}

/// A note's inner margin, across and down.
const NOTE_MARGIN: (i8, i8) = (8, 3);

/// The marks' note in the top-right corner, `margin` from the right and `top` down (in the
/// window, under the adjustments' note), with the false-colour legend under it, its bands in
/// `columns` columns (read down each).
pub fn show_marks(ctx: &egui::Context, note: &MarksNote, (margin, top): (f32, f32), columns: usize) {
    egui::Area::new(Id::unique("marks"))
        .anchor(Align2::RIGHT_TOP, egui::vec2(-margin, top))
        .fade_in(false)
        .interactable(false)
        .show(ctx, |ui| {
            note_frame().show(ui, |ui| {
                ui.add(egui::Label::new(RichText::new(&note.line).color(TEXT)).wrap_mode(egui::TextWrapMode::Extend));
                if columns <= 1 {
                    for (colour, text) in &note.legend {
                        legend_band(ui, *colour, text);
                    }
                    return;
                }
                let rows = note.legend.len().div_ceil(columns).max(1);
                ui.horizontal_top(|ui| {
                    for column in note.legend.chunks(rows) {
                        ui.vertical(|ui| {
                            for (colour, text) in column {
                                legend_band(ui, *colour, text);
                            }
                        });
                    }
                });
            });
        });
}

/// One band of the false-colour legend: its colour, then its range and name.
fn legend_band(ui: &mut egui::Ui, [r, g, b]: [u8; 3], text: &str) {
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(14.0, 12.0), Sense::hover());
        ui.painter().rect_filled(rect, 2.0, Color32::from_rgb(r, g, b));
        ui.add(egui::Label::new(RichText::new(text).small().color(TEXT)).wrap_mode(egui::TextWrapMode::Extend));
    });
}

/// The most columns the false-colour legend is laid out in.
pub const MAX_LEGEND_COLUMNS: usize = 4;

/// The fewest columns the false-colour legend of `bands` bands takes for the marks' note to be
/// at most `room` high, judged by the note as last drawn: `drawn` high with its legend in
/// `columns` columns under `header` (the note's line and the frame's margins).
pub fn legend_columns(bands: usize, columns: usize, drawn: f32, header: f32, room: f32) -> usize {
    if bands == 0 {
        return 1;
    }
    let rows = |c: usize| bands.div_ceil(c.max(1)) as f32;
    let band = ((drawn - header) / rows(columns)).max(0.0);
    (1..=MAX_LEGEND_COLUMNS)
        .find(|&c| header + rows(c) * band <= room)
        .unwrap_or(MAX_LEGEND_COLUMNS)
}

/// The marks' note's height above its legend: the frame's margins and the note's line.
pub fn note_header(ctx: &egui::Context) -> f32 {
    let style = ctx.global_style();
    let line = ctx.fonts_mut(|fonts| fonts.row_height(&egui::TextStyle::Body.resolve(&style)));
    2.0 * f32::from(NOTE_MARGIN.1) + line + style.spacing.item_spacing.y
}

/// Draws `note` in the top-right corner of `view` (a `GpuFrame` target of `size`) over what is
/// there, as the window draws it, recording into `encoder`.
pub fn draw_over(
    ctx: &GpuContext,
    encoder: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    size: (u32, u32),
    note: &MarksNote,
) {
    let egui_ctx = egui::Context::default();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(size.0 as f32, size.1 as f32),
        )),
        ..Default::default()
    };
    // An area learns its size in the first pass and is placed by it in the next; the fonts'
    // texture comes with the first.
    let mut textures = egui::TexturesDelta::default();
    let mut output = None;
    for _ in 0..2 {
        let mut pass = egui_ctx.run_pass(input.clone(), |ctx| {
            show_marks(ctx, note, (RENDER_MARGIN, RENDER_MARGIN), 1)
        });
        textures.append(std::mem::take(&mut pass.textures_delta));
        output = Some(pass);
    }
    let output = output.expect("two passes ran");
    let jobs = egui_ctx.tessellate(output.shapes, output.pixels_per_point);
    let mut renderer = egui_wgpu::Renderer::new(&ctx.device, GpuFrame::FORMAT, egui_wgpu::RendererOptions::default());
    for (id, deltas) in &textures.set {
        for delta in deltas {
            renderer.update_texture(&ctx.device, &ctx.queue, *id, delta);
        }
    }
    textures.clear();
    let screen = egui_wgpu::ScreenDescriptor {
        size_in_pixels: [size.0, size.1],
        pixels_per_point: output.pixels_per_point,
    };
    renderer.update_buffers(&ctx.device, &ctx.queue, encoder, &jobs, &screen);
    let mut pass = encoder
        .begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("notes"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        })
        .forget_lifetime();
    renderer.render(&mut pass, &jobs, &screen);
}

#[cfg(test)]
mod tests {
    use super::legend_columns;

    #[test]
    fn the_legend_takes_the_fewest_columns_that_fit_by_the_height_its_bands_were_drawn_at() {
        // 7 bands of 19 under a 28 header: 161 high in one column.
        assert_eq!(legend_columns(7, 1, 161.0, 28.0, 200.0), 1);
        assert_eq!(legend_columns(7, 1, 161.0, 28.0, 144.0), 2);
        // Drawn in two columns (4 rows, 104 high): back to one once there is room again.
        assert_eq!(legend_columns(7, 2, 104.0, 28.0, 161.0), 1);
        assert_eq!(legend_columns(7, 2, 104.0, 28.0, 160.0), 2);
        assert_eq!(legend_columns(7, 2, 104.0, 28.0, 30.0), 4);
        // Not drawn yet, or no legend: one column.
        assert_eq!(legend_columns(7, 1, 0.0, 28.0, 100.0), 1);
        assert_eq!(legend_columns(0, 3, 50.0, 28.0, 10.0), 1);
    }
}
