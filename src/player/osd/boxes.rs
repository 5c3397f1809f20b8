//! The OSD's boxes over the picture: messages, the stats overlay, the adjustments and
//! comparison notes, and the pixel readout beside the pointer.

use super::layout::MARGIN;
use super::{Message, DIM, TEXT};
use crate::player::probe::Probe;
use egui::{Align2, Color32, Id, Pos2, Rect, RichText};

/// The stats overlay in `room` (at its right edge when `right`), cut short at its bottom.
pub(super) fn show_stats(ctx: &egui::Context, lines: &[(&'static str, String)], room: Rect, right: bool) -> Rect {
    let (pivot, at) = if right {
        (Align2::RIGHT_TOP, room.right_top())
    } else {
        (Align2::LEFT_TOP, room.left_top())
    };
    egui::Area::new(Id::unique("stats"))
        .pivot(pivot)
        .fixed_pos(at)
        .constrain(false)
        .fade_in(false)
        .interactable(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(190))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::symmetric(10, 6))
                .show(ui, |ui| {
                    // Long lines wrap (the frame's margins are outside this width); lines that
                    // don't fit above the bottom panel are cut off, not drawn over it.
                    ui.set_max_width((room.width() - 20.0).max(100.0));
                    egui::ScrollArea::vertical()
                        .max_height((room.height() - 12.0).max(0.0))
                        .min_scrolled_height(0.0)
                        .show(ui, |ui| {
                            egui::Grid::new("stats grid")
                                .num_columns(2)
                                .spacing([12.0, 2.0])
                                .show(ui, |ui| {
                                    for (label, text) in lines {
                                        ui.label(RichText::new(*label).color(DIM));
                                        ui.add(
                                            egui::Label::new(RichText::new(text).monospace().color(TEXT))
                                                .wrap_mode(egui::TextWrapMode::Wrap),
                                        );
                                        ui.end_row();
                                    }
                                });
                        });
                });
        })
        .response
        .rect
}

/// The picture adjustments in force, noted in the top-right corner for as long as they are: a
/// picture that is not the file's must never pass for it.
pub(super) fn show_adjustments(ctx: &egui::Context, note: &str, at: Rect) -> Rect {
    let text = RichText::new(format!("adjusted: {note}")).color(Color32::from_rgb(255, 217, 51));
    show_note(ctx, "adjustments", (Align2::RIGHT_TOP, at.right_top()), text)
}

/// A comparison's line, at the top in the middle for as long as two files are compared (it
/// doesn't fade: the numbers are what is being watched).
pub(super) fn show_compare(ctx: &egui::Context, line: &str, at: Rect) -> Rect {
    show_note(
        ctx,
        "compare",
        (Align2::LEFT_TOP, at.left_top()),
        RichText::new(line).color(TEXT),
    )
}

/// A note that stays on screen (not fading with the OSD), on a dark backing, its `pivot` at
/// `at`; where it was drawn.
pub(super) fn show_note(ctx: &egui::Context, id: &str, (pivot, at): (Align2, Pos2), text: RichText) -> Rect {
    egui::Area::new(Id::unique(id))
        .pivot(pivot)
        .fixed_pos(at)
        .fade_in(false)
        .interactable(false)
        .show(ctx, |ui| {
            crate::render::notes::note_frame().show(ui, |ui| {
                ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
            });
        })
        .response
        .rect
}

/// The probed pixel's position and values at `at` (beside the pointer); where it was drawn.
pub(super) fn probe_label(ctx: &egui::Context, probe: &Probe, at: Rect, opacity: f32) -> Rect {
    egui::Area::new(Id::unique("probe"))
        .fixed_pos(at.min)
        .fade_in(false)
        .interactable(false)
        .order(egui::Order::Tooltip)
        .show(ctx, |ui| {
            ui.multiply_opacity(opacity);
            egui::Frame::new()
                .fill(Color32::from_black_alpha(190))
                .corner_radius(4.0)
                .inner_margin(egui::Margin::symmetric(6, 3))
                .show(ui, |ui| {
                    let text = RichText::new(probe.text()).monospace().color(TEXT);
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                });
        })
        .response
        .rect
}

/// The messages at `at` (the top-left corner); where they were drawn.
pub(super) fn show_messages(ctx: &egui::Context, messages: &[Message], at: Rect) -> Rect {
    let response = egui::Area::new(Id::unique("osd messages"))
        .fixed_pos(at.min)
        .fade_in(false)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(170))
                .corner_radius(6.0)
                .inner_margin(egui::Margin::symmetric(10, 6))
                .show(ui, |ui| {
                    // Long messages wrap at the window's edge.
                    ui.set_max_width((ctx.content_rect().width() - 2.0 * MARGIN - 20.0).max(100.0));
                    for message in messages {
                        let color = if message.error {
                            Color32::from_rgb(255, 120, 100)
                        } else {
                            TEXT
                        };
                        let text = RichText::new(&message.text).color(color);
                        ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Wrap));
                    }
                });
        });
    response.response.rect
}
