//! Drawing one frame of the window, all in one command encoder: when a new video frame is due,
//! convert it and run the histogram's chunk, reduce and scale passes on it (and copy the two
//! bins the clipping readout needs); then one render pass for the picture and the histogram
//! quads, and one for the OSD over it (LoadOp::Load). Nothing here makes GPU buffers, textures,
//! bind groups or pipelines (a screenshot makes its own target, on request), and nothing waits
//! on the GPU. The window's `redraw` runs these steps in order.

use super::clipping::{Clipping, ClippingReadback, ReadoutTag};
use super::comparison::PictureNumber;
use super::egui_layer::Painted;
use super::media::Media;
use super::osd::{BoxKind, HdrView, OsdView};
use super::playback::NextFrame;
use super::screenshot::{file_name, ScreenshotTarget, Screenshots};
use super::stats::Present;
use super::stats_overlay::StatsOverlay;
use super::surface::WindowSurface;
use crate::gpu::timing::PassTimer;
use crate::gpu::GpuContext;
use std::time::Instant;

/// The counting a frame needs: a `next` frame is converted and its histograms counted (timed,
/// and its signal statistics counted, while the stats overlay is up: `timed`), the clipping
/// readout's bins copied, and it is paired with the compared file's frame. Without one, a paused
/// frame whose scope or region changed is counted again.
pub fn encode_counts(
    encoder: &mut wgpu::CommandEncoder,
    gpu: &GpuContext,
    media: &mut Media,
    (stats, clipping): (&mut StatsOverlay, &mut ClippingReadback),
    next: Option<&NextFrame>,
    timed: bool,
) {
    if let Some(next) = next {
        encoder.push_debug_group("new video frame");
        if let Some(nits) = media.info.frame_light.get() {
            media.pipeline.bound_peak(&gpu.queue, nits);
        }
        let (slot, index) = (next.frame.slot, next.frame.index);
        // (Fields apart, the frame is made into a slot of its own, counted and shown.)
        let shown = media.pipeline.encode_fields_apart(encoder, slot);
        stats.encode_frame(encoder, media, shown, index, timed);
        record_clipping(encoder, media, clipping, index);
        let partner = media.playback.source.paired().and_then(|pair| pair.partner(slot));
        if let Some(comparison) = &mut media.compare {
            let tag = |b: crate::video::decoder::ReadyFrame| crate::pipeline::comparison::PairTag {
                media: media.serial,
                frame: index,
                frame_b: b.index,
            };
            comparison
                .stage
                .encode_pair(encoder, &media.pipeline, slot, partner.map(|b| (b.slot, tag(b))));
            comparison.shown_b = partner;
        }
        encoder.pop_debug_group();
        media.has_picture = true;
    } else if media.recount && media.has_picture {
        // Paused, and the scope or region changed: count the shown frame again.
        media.pipeline.encode_recount(encoder, stats.timer(timed));
        if let Some(comparison) = &media.compare {
            comparison.stage.encode_recount(encoder, &media.pipeline);
        }
        if let Some(shown) = media.playback.shown() {
            record_clipping(encoder, media, clipping, shown.index);
        }
    }
    media.recount = false;
}

/// Copies the bins the clipping readout needs of frame `index`'s histograms.
fn record_clipping(encoder: &mut wgpu::CommandEncoder, media: &Media, clipping: &mut ClippingReadback, index: u64) {
    let pipeline = &media.pipeline;
    let peak = pipeline.peak_state();
    let tag = ReadoutTag {
        media: media.serial,
        frame: index,
        pixel_count: pipeline.pixel_count(),
        peak: peak.is_some(),
    };
    clipping.record(encoder, &pipeline.target.histogram, pipeline.engine.bins, peak, tag);
}

/// What the OSD shows of the open file (`title` its name, `clipping` its readout): position,
/// frame, state, HDR, region, loops, graticule, adjustments and the comparison's line. What is
/// not the file's is left empty, for the window to fill.
pub fn osd_view<'a>(media: &'a Media, title: &'a str, clipping: Option<Clipping>) -> OsdView<'a> {
    let playback = &media.playback;
    let timeline = playback.timeline();
    let volume = &media.pipeline.volume;
    OsdView {
        title,
        position: playback.position(),
        // (Past the last picture, the sound's time is the file's.)
        duration: timeline.duration.max(playback.position()),
        frame: playback.shown_number(&media.index),
        timecode: playback.shown().and_then(|s| s.packet.timecode),
        frame_count: timeline.frame_count,
        estimated_count: media.index.estimated_count,
        preview: playback.shown().is_some_and(|s| s.preview),
        paused: playback.paused(),
        at_end: playback.at_end(),
        speed: playback.speed(),
        clipping,
        hdr: volume.is_hdr().then(|| HdrView {
            transfer: volume.transfer,
            peak_nits: clipping.and_then(|r| r.peak_nits),
        }),
        view: Default::default(),
        region: media.pipeline.region(),
        probe: None,
        timeline: None,
        vmaf: None,
        pse: None,
        opacity: 1.0,
        messages: &[],
        stats: None,
        adjustments: media.pipeline.adjustments().label(),
        ab_loop: playback.ab_loop(),
        loop_file: playback.loop_file,
        graticule: media.graticule(),
        marks: None,
        live: media.live_view(Instant::now()),
        meters: None,
        compare: media.compare.as_ref().map(|c| {
            let align = playback.source.paired().map(|p| p.alignment());
            let field_rate = playback.source.field_rate();
            let shown = playback
                .shown()
                .map(|s| PictureNumber::of(media.index.number_at(s.pts).n, s.index, field_rate));
            c.osd_line(
                shown,
                align.map_or(0, |a| a.offset),
                align.map_or(Default::default(), |a| a.by),
            )
        }),
    }
}

/// Where the OSD's boxes were drawn (in points), in physical pixels (`scale` to a point), as
/// the frame log names them.
pub fn in_pixels(drawn: Vec<(BoxKind, egui::Rect)>, scale: f32) -> Vec<(&'static str, [i32; 4])> {
    drawn
        .into_iter()
        .map(|(kind, rect)| {
            let (min, max) = ((rect.min * scale).floor(), (rect.max * scale).ceil());
            let size = max - min;
            (kind.name(), [min.x as i32, min.y as i32, size.x as i32, size.y as i32])
        })
        .collect()
}

/// How a frame is drawn into a view: the scene renderer and the open file's scene, the quads
/// shown, the GPU timer, and the OSD's egui with what it painted.
pub struct Drawing<'a> {
    pub scene: &'a crate::render::scene::SceneRenderer,
    pub media: &'a Media,
    pub quads: crate::render::scene::Quads,
    pub egui: &'a super::egui_layer::EguiLayer,
    pub painted: &'a Painted,
}

impl Drawing<'_> {
    /// The picture with its quads (timed by `timer`), then the OSD over it, into `view`.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView, timer: Option<&PassTimer>) {
        if self.media.has_picture {
            let writes = timer.map(|t| t.render_writes(crate::pipeline::TIMED_DRAW));
            self.scene
                .encode_timed(encoder, view, &self.media.scene, self.quads, writes);
        } else {
            // Nothing decoded yet: black under the OSD.
            begin_pass(encoder, view, "no picture yet", wgpu::LoadOp::Clear(wgpu::Color::BLACK));
        }
        if !self.painted.jobs.is_empty() {
            let mut pass = begin_pass(encoder, view, "osd", wgpu::LoadOp::Load).forget_lifetime();
            self.egui.render(&mut pass, self.painted);
        }
    }

    /// `s`: the same frame again into a texture of its own, copied out for the PNG writer.
    pub fn capture(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (gpu, surface): (&GpuContext, &WindowSurface),
        screenshots: &mut Screenshots,
    ) -> Result<(), String> {
        let playback = &self.media.playback;
        // (The time and number of the picture on screen: a seek's keyframe preview is not the
        // frame it is on its way to.)
        let (frame, at) = playback.shown_at().unwrap_or((0, 0.0));
        let name = file_name(&self.media.info.path, at, frame);
        let target = ScreenshotTarget::new(&gpu.device, surface.format, surface.size());
        self.encode(encoder, &target.view, None);
        let path = super::screenshot::unused(std::env::current_dir().unwrap_or_default().join(name));
        screenshots.record(&gpu.device, encoder, &target, path)
    }
}

/// The frame log's line for a present at `at` of the open file (`due`: when its new frame was
/// due; `new_frame`: whether it brought one). What is not the file's is left empty, for the
/// window to fill.
pub fn present(media: &Media, at: Instant, due: Option<Instant>, new_frame: bool) -> Present {
    let playback = &media.playback;
    let shown = playback.shown();
    let number = playback.shown_number(&media.index);
    let field_rate = playback.source.field_rate();
    let picture = shown
        .zip(number)
        .map(|(s, n)| PictureNumber::of(n.n, s.index, field_rate));
    Present {
        at,
        frame: number.map(|n| n.n),
        exact: number.is_none_or(|n| n.exact),
        preview: shown.is_some_and(|s| s.preview),
        generation: shown.map_or(0, |s| s.generation),
        new_frame,
        due,
        dropped: playback.dropped(),
        paused: playback.paused(),
        size: (0, 0),
        picture: media.pipeline.frame_size(),
        probe: None,
        region: media.pipeline.region().map(|r| [r.x, r.y, r.width, r.height]),
        file: media.file,
        ab: playback.ab_loop(),
        compare: media
            .compare
            .as_ref()
            .map(|c| (c.shown_b(field_rate), c.stage.composite().mode)),
        pair: (media.compare.as_ref())
            .and_then(|c| c.metrics.as_ref())
            .map(|(tag, m)| (tag.frame, m.mse_avg, m.ssim_all)),
        vmaf: media
            .compare
            .as_ref()
            .and_then(|c| c.vmaf.as_ref().zip(c.shown_b))
            .zip(picture)
            .and_then(|((fill, _), n)| fill.score(n.picture())),
        pse: media
            .pse
            .as_ref()
            .zip(number)
            .and_then(|(fill, n)| fill.finding(n.n))
            .and_then(|f| Some((f.state?, f.flashes))),
        marks: Default::default(),
        signal: None,
        osd: Vec::new(),
        latency: None,
        behind: playback.behind_live().map(|(behind, _)| behind),
        timecode: playback.shown().and_then(|s| s.packet.timecode),
        fields: playback.shown().map(|s| s.packet.fields),
        field_view: media.field_view.log_name(),
        // At field rate, which field of its frame the picture is.
        deinterlace: media
            .deinterlace()
            .map(|filter| (filter, picture.and_then(|p| p.field))),
        qc: String::new(),
        meters: None,
        scope: None,
    }
}

fn begin_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
    load: wgpu::LoadOp<wgpu::Color>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}
