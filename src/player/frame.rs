//! Drawing one frame of the window, all in one command encoder: when a new video frame is due,
//! convert it and run the histogram's chunk, reduce and scale passes on it (and copy the two
//! bins the clipping readout needs); then one render pass for the picture and the histogram
//! quads, and one for the OSD over it (LoadOp::Load). Nothing here makes GPU buffers, textures,
//! bind groups or pipelines (a screenshot makes its own target, on request), and nothing waits
//! on the GPU.

use super::clipping::ReadoutTag;
use super::egui_layer::Painted;
use super::osd::{HdrView, OsdView};
use super::playback::FrameSource;
use super::screenshot::{file_name, ScreenshotTarget};
use super::stats::Present;
use super::window::PlayerWindow;
use super::PlayerError;
use std::time::{Duration, Instant};

/// How long to wait after the surface gave no image before asking again.
const BLOCKED_RETRY: Duration = Duration::from_millis(50);

impl PlayerWindow {
    pub fn redraw(&mut self) -> Result<(), PlayerError> {
        let started = Instant::now();
        self.needs_redraw = false;
        let Some(target) = self.surface.acquire(&self.gpu, &self.window)? else {
            // Try again a little later rather than at once: a hidden window can keep refusing.
            self.blocked_until = Some(started + BLOCKED_RETRY);
            self.needs_redraw = true;
            return Ok(());
        };
        let now = Instant::now();
        let timed = self.stats.visible(now);
        self.stats.prepare_signal(timed, &self.gpu, &mut self.media);
        let next = self.media.playback.next_frame(now, self.render_lead());
        let mut encoder = self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("player frame"),
        });
        if let Some(next) = next {
            encoder.push_debug_group("new video frame");
            if let Some(nits) = self.media.info.frame_light.get() {
                self.media.pipeline.bound_peak(&self.gpu.queue, nits);
            }
            self.stats
                .encode_frame(&mut encoder, &self.media, next.frame.slot, next.frame.index, timed);
            let pipeline = &self.media.pipeline;
            let peak = pipeline.peak_state();
            let tag = ReadoutTag {
                media: self.media.serial,
                frame: next.frame.index,
                pixel_count: pipeline.pixel_count(),
                peak: peak.is_some(),
            };
            self.clipping.record(
                &mut encoder,
                &pipeline.target.histogram,
                pipeline.engine.bins,
                peak,
                tag,
            );
            if let Some(comparison) = &mut self.media.compare {
                let partner = self
                    .media
                    .playback
                    .source
                    .paired()
                    .and_then(|pair| pair.partner(next.frame.slot));
                let tag = |b: crate::video::decoder::ReadyFrame| crate::compare::stage::PairTag {
                    media: self.media.serial,
                    frame: next.frame.index,
                    frame_b: b.index,
                };
                comparison.stage.encode_pair(
                    &mut encoder,
                    &self.media.pipeline,
                    next.frame.slot,
                    partner.map(|b| (b.slot, tag(b))),
                );
                comparison.shown_b = partner;
            }
            encoder.pop_debug_group();
            self.media.has_picture = true;
        } else if self.media.recount && self.media.has_picture {
            // Paused, and the scope or region changed: count the shown frame again.
            let pipeline = &self.media.pipeline;
            pipeline.encode_recount(&mut encoder, self.stats.timer(timed));
            if let Some(comparison) = &self.media.compare {
                comparison.stage.encode_recount(&mut encoder, pipeline);
            }
            if let Some(shown) = self.media.playback.shown() {
                let tag = ReadoutTag {
                    media: self.media.serial,
                    frame: shown.index,
                    pixel_count: pipeline.pixel_count(),
                    peak: pipeline.peak_state().is_some(),
                };
                let peak = pipeline.peak_state();
                self.clipping.record(
                    &mut encoder,
                    &pipeline.target.histogram,
                    pipeline.engine.bins,
                    peak,
                    tag,
                );
            }
        }
        self.media.recount = false;
        self.pointer.encode(&mut encoder, &self.media, next.is_some());

        let painted = self.run_osd(now, &mut encoder);
        self.encode_view(&mut encoder, &target.view, &painted, timed);
        if std::mem::take(&mut self.screenshot_wanted) {
            self.capture(&mut encoder, &painted);
        }
        self.stats.finish(&mut encoder, timed);
        self.gpu.queue.submit([encoder.finish()]);
        self.egui.submitted();
        // The slot's planes are converted by the work just submitted; the decoder may refill
        // it now (its uploads queue behind that work).
        if let Some(next) = next {
            self.media.playback.source.release(next.frame.slot);
        }
        self.clipping.submitted();
        self.pointer.submitted();
        self.stats.submitted(timed);
        let metrics = match &mut self.media.compare {
            Some(comparison) => {
                comparison.stage.submitted();
                comparison.stage.pending()
            }
            None => false,
        };
        self.screenshots.submitted();
        if self.clipping.pending()
            || self.screenshots.pending()
            || self.pointer.pending()
            || self.stats.pending()
            || metrics
        {
            self.gpu_waiter.submitted();
        }
        self.window.pre_present_notify();
        self.gpu.queue.present(target.texture);

        let at = Instant::now();
        if next.is_some() {
            self.lead.record(at - started);
        }
        self.record_present(at, next.and_then(|n| n.due), next.is_some());
        Ok(())
    }

    /// Runs the OSD's egui pass: input in, shapes out, textures and buffers updated.
    fn run_osd(&mut self, now: Instant, encoder: &mut wgpu::CommandEncoder) -> Painted {
        let playback = &self.media.playback;
        let timeline = playback.timeline();
        let opacity = self.osd.drawn(now, self.media.playback.paused());
        let title = self.media.file_name();
        let strip = match (&self.media.timeline, self.view.timeline) {
            (Some(fill), true) => self.timeline_strip.texture(&self.egui.ctx, fill, now),
            _ => None,
        };
        let playback = &self.media.playback;
        let view = OsdView {
            title: &title,
            position: playback.position(),
            duration: timeline.duration,
            frame: playback.shown().map(|s| self.media.index.number_at(s.pts)),
            frame_count: timeline.frame_count,
            estimated_count: self.media.index.estimated_count,
            preview: playback.shown().is_some_and(|s| s.preview),
            paused: playback.paused(),
            at_end: playback.at_end(),
            speed: playback.speed(),
            clipping: self.readout,
            hdr: self.media.pipeline.volume.is_hdr().then(|| HdrView {
                transfer: self.media.pipeline.volume.transfer,
                peak_nits: self.readout.and_then(|r| r.peak_nits),
            }),
            view: self.view,
            region: self.media.pipeline.region(),
            probe: self.pointer.probe().zip(self.pointer.at()),
            timeline: strip,
            opacity,
            messages: self.toasts.list(),
            stats: self.stats_lines(now),
            adjustments: self.media.pipeline.adjustments().label(),
            ab_loop: playback.ab_loop(),
            loop_file: playback.loop_file,
            graticule: self.media.graticule(),
            marks: self.marks.note(&self.media),
            compare: self.media.compare.as_ref().map(|c| {
                let align = playback.source.paired().map(|p| p.alignment());
                let frame = playback.shown().map(|s| self.media.index.number_at(s.pts).n);
                c.osd_line(
                    frame,
                    align.map_or(0, |a| a.offset),
                    align.map_or(Default::default(), |a| a.by),
                )
            }),
        };
        let osd = &mut self.osd;
        let size = self.surface.size();
        let (painted, (commands, drawn)) = self.egui.run(&self.window, &self.gpu, encoder, (now, size), |ctx| {
            osd.show(ctx, &view)
        });
        // The boxes in physical pixels, for the frame log.
        let scale = painted.screen.pixels_per_point;
        self.osd_drawn = drawn
            .into_iter()
            .map(|(kind, rect)| {
                let (min, max) = ((rect.min * scale).floor(), (rect.max * scale).ceil());
                let size = max - min;
                (kind.name(), [min.x as i32, min.y as i32, size.x as i32, size.y as i32])
            })
            .collect();
        for command in commands {
            self.apply(command);
        }
        painted
    }

    /// The picture with its quads, then the OSD over it, into `view`.
    fn encode_view(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        painted: &Painted,
        timed: bool,
    ) {
        if self.media.has_picture {
            let writes = self
                .stats
                .timer(timed)
                .map(|t| t.render_writes(crate::pipeline::TIMED_DRAW));
            self.scene
                .encode_timed(encoder, view, &self.media.scene, self.view.quads, writes);
        } else {
            // Nothing decoded yet: black under the OSD.
            begin_pass(encoder, view, "no picture yet", wgpu::LoadOp::Clear(wgpu::Color::BLACK));
        }
        if !painted.jobs.is_empty() {
            let mut pass = begin_pass(encoder, view, "osd", wgpu::LoadOp::Load).forget_lifetime();
            self.egui.render(&mut pass, painted);
        }
    }

    /// `s`: the same frame again into a texture of its own, copied out for the PNG writer.
    fn capture(&mut self, encoder: &mut wgpu::CommandEncoder, painted: &Painted) {
        let playback = &self.media.playback;
        let frame = playback.shown().map_or(0, |s| s.index);
        let name = file_name(&self.media.info.path, playback.position(), frame);
        let target = ScreenshotTarget::new(&self.gpu.device, self.surface.format, self.surface.size());
        self.encode_view(encoder, &target.view, painted, false);
        let path = std::env::current_dir().unwrap_or_default().join(name);
        if let Err(e) = self.screenshots.record(&self.gpu.device, encoder, &target, path) {
            self.message(e, true);
        }
    }

    fn record_present(&mut self, at: Instant, due: Option<Instant>, new_frame: bool) {
        let playback = &self.media.playback;
        let shown = playback.shown();
        let number = shown.map(|s| self.media.index.number_at(s.pts));
        let present = Present {
            at,
            frame: number.map(|n| n.n),
            exact: number.is_none_or(|n| n.exact),
            preview: shown.is_some_and(|s| s.preview),
            generation: shown.map_or(0, |s| s.generation),
            new_frame,
            due,
            dropped: playback.dropped(),
            paused: playback.paused(),
            size: self.surface.size(),
            probe: self.pointer.probe().map(|p| [p.x, p.y, p.rgb[0], p.rgb[1], p.rgb[2]]),
            region: self.media.pipeline.region().map(|r| [r.x, r.y, r.width, r.height]),
            file: self.media.serial,
            ab: playback.ab_loop(),
            compare: self.media.compare.as_ref().map(|c| {
                let frame_b = c.shown_b.map(|b| c.index.number_at(b.pts).n);
                (frame_b, c.stage.composite().mode)
            }),
            marks: self.marks.shown(),
            osd: self.osd_drawn.clone(),
            signal: match &self.frame_log {
                Some(_) => self.stats.log_field(at, self.media.serial),
                None => None,
            },
        };
        self.stats.presented(new_frame);
        if let Some(log) = &mut self.frame_log {
            log.record(&present);
        }
        if let Some(bench) = &mut self.bench {
            bench.on_present(&present);
        }
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
