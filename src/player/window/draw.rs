//! Drawing a frame in the window: the frame's counts and passes, the OSD's egui over the
//! picture (and the help list over that), the submit and present, and the frame log's line.

use super::*;

impl PlayerWindow {
    /// Draws a frame: the new one when it is due (else the one shown, counted again where
    /// needed), the OSD over it; submits and presents it.
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
        let mut encoder = (self.gpu.device).create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("player frame"),
        });
        let counting = (&mut self.stats, &mut self.readbacks.clipping);
        frame::encode_counts(&mut encoder, &self.gpu, &mut self.media, counting, next.as_ref(), timed);
        self.pointer.encode(&mut encoder, &self.media, next.is_some());
        let painted = self.run_osd(now, &mut encoder);
        let drawing = Drawing {
            scene: &self.scene,
            media: &self.media,
            quads: self.view.quads,
            egui: &self.egui,
            painted: &painted,
        };
        drawing.encode(&mut encoder, &target.view, self.stats.timer(timed));
        let shots = &mut self.readbacks;
        let shot = std::mem::take(&mut shots.screenshot_wanted)
            .then(|| drawing.capture(&mut encoder, (&self.gpu, &self.surface), &mut shots.screenshots));
        if let Some(Err(e)) = shot {
            self.message(e, true);
        }
        self.stats.finish(&mut encoder, timed);
        self.gpu.queue.submit([encoder.finish()]);
        self.submitted(next.map(|n| n.frame.slot), timed);
        self.window.pre_present_notify();
        self.gpu.queue.present(target.texture);
        let at = Instant::now();
        if next.is_some() {
            self.lead.record(at - started);
        }
        self.record_present(at, next.and_then(|n| n.due), next.is_some());
        Ok(())
    }

    /// Runs the OSD's egui pass over what the window shows; applies what its seek bar asks.
    fn run_osd(&mut self, now: Instant, encoder: &mut wgpu::CommandEncoder) -> Painted {
        let title = self.media.file_name();
        let strip = match (&self.media.timeline, self.view.timeline) {
            (Some(fill), true) => self.timeline_strip.texture(&self.egui.ctx, fill, now),
            _ => None,
        };
        let opacity = self.osd.drawn(now, self.media.playback.paused());
        let stats_notes = StatsNotes {
            playlist: self.files.position_label(),
            adjustments: self.picture.label(),
            marks: self.marks.note(&self.media).map(|note| note.line),
        };
        // Comparing, the timeline's VMAF row under it.
        let vmaf = self
            .media
            .compare
            .as_ref()
            .and_then(|c| c.vmaf.as_ref())
            .filter(|_| strip.is_some());
        let frame_count = self.media.frame_count_or_estimate();
        let (pse, warning) = crate::player::pse_view::view(&self.media, self.view, self.surface.size())
            .map_or((None, None), |(pse, warning)| (Some(pse), warning));
        if let Some(warning) = warning {
            log::warn!("{warning}");
            self.toasts.message(warning, true);
        }
        let view = OsdView {
            view: self.view,
            probe: self.pointer.probe().zip(self.pointer.at()),
            timeline: strip,
            vmaf: vmaf.map(|fill| fill.strip(crate::timeline::PLAYER_COLUMNS as usize, frame_count)),
            pse,
            opacity,
            messages: self.toasts.list(),
            stats: self.stats.lines(now, &self.media, stats_notes),
            marks: self.marks.note(&self.media),
            meters: self.meters.view(&self.media),
            ..frame::osd_view(&self.media, &title, self.readbacks.readout)
        };
        let (osd, help, size) = (&mut self.osd, &self.help, self.surface.size());
        let (painted, (commands, drawn, clicked)) =
            (self.egui).run(&self.window, &self.gpu, encoder, (now, size), |ctx| {
                let (commands, mut drawn) = osd.show(ctx, &view);
                let clicked = help.is_open().then(|| {
                    let (clicked, rect) = crate::player::osd::help::show_help(ctx, help);
                    drawn.push((BoxKind::Help, rect));
                    clicked
                });
                (commands, drawn, clicked.flatten())
            });
        self.osd_drawn = frame::in_pixels(drawn, painted.screen.pixels_per_point);
        for command in commands {
            self.apply(command);
        }
        if let Some(row) = clicked {
            let reply = self.help.run(row);
            self.help_reply(reply);
        }
        painted
    }

    /// The frame's work was submitted: the new frame's slot goes back to the decoder, and the
    /// readbacks it recorded wait on the GPU.
    fn submitted(&mut self, slot: Option<usize>, timed: bool) {
        self.egui.submitted();
        // The slot's planes are converted by the work just submitted; the decoder may refill
        // it now (its uploads queue behind that work).
        if let Some(slot) = slot {
            self.media.playback.source.release(slot);
            // A picture made in it at once (a field rate's second field, deinterlacing) is
            // taken in now: its wake is its own due time, not the poll's.
            self.media.playback.pump(Instant::now());
        }
        self.pointer.submitted();
        self.stats.submitted(timed);
        let metrics = CompareControl::submitted(&mut self.media);
        (self.readbacks).submitted(self.pointer.pending() || self.stats.pending() || metrics);
    }

    fn record_present(&mut self, at: Instant, due: Option<Instant>, new_frame: bool) {
        let present = Present {
            size: self.surface.size(),
            probe: self.pointer.probe().map(|p| [p.x, p.y, p.rgb[0], p.rgb[1], p.rgb[2]]),
            marks: self.marks.shown(),
            osd: self.osd_drawn.clone(),
            signal: (self.frame_log.as_ref()).and_then(|_| self.stats.log_field(at, self.media.serial)),
            latency: self.media.live_latency(at, new_frame),
            qc: self.qc_warned.join(","),
            meters: self.meters.log_field(),
            scope: self.view.scope,
            ..frame::present(&self.media, at, due, new_frame)
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

impl PlayerWindow {
    /// Warns of each limit the QC report's frames go beyond (`--fail-on`) as the run starts.
    pub(super) fn warn_of_qc(&mut self) {
        let Some(beyond) = &self.qc_beyond else { return };
        let beyond = beyond.lock().unwrap_or_else(|e| e.into_inner());
        // Looked at every frame; copied only when it changes.
        if *beyond == self.qc_warned {
            return;
        }
        let new: Vec<&str> = beyond
            .iter()
            .filter(|l| !self.qc_warned.contains(l))
            .map(String::as_str)
            .collect();
        let text = (!new.is_empty()).then(|| format!("QC: frames beyond {}", new.join(", ")));
        self.qc_warned = beyond.clone();
        drop(beyond);
        if let Some(text) = text {
            self.message(text, true);
        }
    }
}
