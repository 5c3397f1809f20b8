//! The events' part of a report's frames: each picture fed to the detectors, and the events
//! that end written (JSON Lines, the page) or kept as runs beyond their limits.

use super::super::events::Ended;
use super::super::limits::Run;
use super::super::pse::PseLine;
use super::super::ReportFormat;
use super::{Out, Sink};
use crate::events::decoded::DecodedDetectors;
use crate::headless::FrameMeta;
use crate::idet::Sums;
use crate::pse::FrameLight;
use std::io::Write;

/// Where the detectors read the stream's frames apart from the statistics (R'G'B', grey,
/// alpha: `events::decoded`), has the source take their sums of each frame it gives out. Not
/// for pictures made of the frames (deinterlaced, or fields), which the statistics' planes are,
/// nor for a QCTools report, whose tags are the detectors' after signalstats (which reads
/// frames as the statistics do).
pub(super) fn detect_decoded(
    source: &mut crate::video::source::VideoSource,
    options: &super::ReportOptions,
    format: ReportFormat,
    from: u64,
) {
    let settings = &options.events;
    let made = options.deinterlace.is_some() || options.fields;
    if !settings.watches_pictures() || made || format == ReportFormat::Qctools {
        return;
    }
    let format = source.decoded_format();
    if let Some(detectors) = DecodedDetectors::for_format(format, settings.black, settings.freeze.noise) {
        source.read_decoded(Box::new(detectors.comparing_from(from)));
    }
}

/// Pictures whose counting times are kept (at 25 frames a second, 43 minutes).
const COUNTED_KEPT: usize = 1 << 16;

impl<W: Write> Sink<'_, W> {
    /// The picture at `seconds` was counted now (kept where runs are told as they end).
    pub(super) fn counted(&mut self, seconds: f64) {
        if self.event_teller.is_none() {
            return;
        }
        if self.counted_at.len() == COUNTED_KEPT {
            self.counted_at.pop_front();
        }
        self.counted_at.push_back((seconds, std::time::SystemTime::now()));
    }

    /// When the first picture at or after `seconds` was counted (the oldest kept, for a time
    /// before them; None before any): a run's start, told as it ends.
    pub(super) fn counted_when(&self, seconds: f64) -> Option<std::time::SystemTime> {
        let at = self.counted_at.partition_point(|(t, _)| *t < seconds);
        let at = at.min(self.counted_at.len().checked_sub(1)?);
        Some(self.counted_at[at].1)
    }

    /// The events' part of a picture: `luma` its Y histogram of `samples` samples, `frozen`
    /// its freeze verdict (or what the detectors took of the frame as decoded, where they read
    /// it apart: `PacketProps::taken`); `in_range` false for the frame before the range
    /// (only compared).
    pub(super) fn picture_events(
        &mut self,
        frame: &FrameMeta,
        luma: &[u32],
        samples: u64,
        frozen: bool,
        in_range: bool,
    ) -> std::io::Result<()> {
        if let (Some(html), true) = (&mut self.html, in_range) {
            html.luma(luma);
        }
        let Some(watch) = &mut self.events else { return Ok(()) };
        let at = (frame.index, frame.pts, frame.seconds);
        let mut ended = match (frame.packet.restarts, in_range) {
            (true, true) => watch.pictures_start_again(frame.frame),
            _ => Vec::new(),
        };
        ended.extend(match frame.packet.taken {
            Some(taken) => {
                let d = crate::events::decoded::Detected::from(taken);
                watch.picture(at, &|_| u64::from(d.black), samples, d.frozen, in_range)
            }
            None => watch.picture(at, &|black| black.black_samples(luma), samples, frozen, in_range),
        });
        self.frame_tags = watch.picture_tags();
        self.tell_events(ended)
    }

    /// Events that ended: the listed ones written (JSON Lines), the limits' ones that last
    /// beyond them kept as runs and told.
    pub(super) fn tell_events(&mut self, ended: Vec<Ended>) -> std::io::Result<()> {
        for Ended { event, limit } in ended {
            match limit {
                None => {
                    if let Some(html) = &mut self.html {
                        html.event(&event);
                    }
                    if let Out::Json(out) = &mut self.out {
                        writeln!(out, "{}", event.json())?;
                    }
                }
                Some(i) => {
                    if let Some(mut run) = self.events.as_ref().and_then(|w| w.run(&event, i)) {
                        run.started = self.counted_when(run.first_pts).unwrap_or(run.started);
                        if let Some(tell) = &mut self.event_teller {
                            tell(&run);
                        }
                        self.event_runs.push(run);
                    }
                }
            }
        }
        Ok(())
    }

    /// The photosensitivity analysis's part of a picture: its light; its figures go in its
    /// line and the page, the failing runs that end with it to the runs beyond the limits.
    pub(super) fn picture_pse(&mut self, frame: &FrameMeta, light: &FrameLight, in_range: bool) -> std::io::Result<()> {
        let Some(pse) = &mut self.pse else { return Ok(()) };
        if !in_range {
            return Ok(());
        }
        let (verdict, runs) = pse.frame(frame, light);
        if let Some(html) = &mut self.html {
            html.flashes(verdict.flashes.max(verdict.red_flashes));
        }
        self.pse_line = Some(PseLine::of(&verdict));
        self.keep_runs(runs);
        Ok(())
    }

    /// The frames ended: the analysis's failures still going on end with them.
    pub(super) fn pse_ended(&mut self) -> std::io::Result<()> {
        let Some(pse) = &mut self.pse else { return Ok(()) };
        let (failures, runs) = pse.finish();
        if let Some(html) = &mut self.html {
            html.pse(pse.standard, failures);
        }
        self.keep_runs(runs);
        Ok(())
    }

    /// The interlace detection's part of a picture: its frame's sums (None: the frame's second
    /// picture, decided with its first); the decision goes in its line or QCTools tags, a run of
    /// frames contradicting their flags that ends to the runs beyond the limits.
    pub(super) fn picture_idet(&mut self, frame: &FrameMeta, sums: Option<&Sums>, in_range: bool) {
        let Some(idet) = &mut self.idet else { return };
        if !in_range {
            return;
        }
        let (decision, ended) = idet.picture(frame, sums);
        self.idet_decision = decision;
        self.keep_runs(ended.into_iter().collect());
    }

    /// The frames ended: the detection's summary (JSON Lines' last line, the page's verdict),
    /// and the run that ends with them.
    pub(super) fn idet_ended(&mut self) -> std::io::Result<()> {
        let Some(idet) = &mut self.idet else { return Ok(()) };
        let (summary, ended) = idet.finish();
        if let (Out::Json(out), true) = (&mut self.out, self.idet_lines) {
            writeln!(out, "{}", summary.json())?;
        }
        if let Some(html) = &mut self.html {
            html.idet(summary);
        }
        self.keep_runs(ended.into_iter().collect());
        Ok(())
    }

    /// Runs beyond the limits kept, and told as they end.
    fn keep_runs(&mut self, runs: Vec<Run>) {
        for mut run in runs {
            run.started = self.counted_when(run.first_pts).unwrap_or(run.started);
            if let Some(tell) = &mut self.event_teller {
                tell(&run);
            }
            self.event_runs.push(run);
        }
    }
}
