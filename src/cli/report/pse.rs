//! `report --pse`: the photosensitivity analysis (`crate::pse`) over the report's frames: each
//! frame's line gains its flash figures, and each failing run is a run beyond the limits
//! (listed, told to `--alert-log`, exit status 1), named `pse:KIND`.

use super::limits::Run;
use crate::headless::FrameMeta;
use crate::pse::light::{Grid, LightModel};
use crate::pse::{Analysis, FrameLight, FrameVerdict, LightTwin, PseFailure, Standard};
use crate::video::deinterlace::{Deinterlacer, Rate};
use crate::video::source::VideoSource;

/// A frame's figures in its JSON line.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PseLine {
    pub pse_flashes: f64,
    pub pse_red_flashes: f64,
    pub pse_area: f64,
    pub pse_red_area: f64,
    pub pse_pattern: f64,
    pub pse_pattern_pairs: f64,
    pub pse_state: &'static str,
}

impl PseLine {
    pub fn of(v: &FrameVerdict) -> Self {
        let round = |x: f64| (x * 1e6).round() / 1e6;
        Self {
            pse_flashes: v.flashes,
            pse_red_flashes: v.red_flashes,
            pse_area: round(v.area),
            pse_red_area: round(v.red_area),
            pse_pattern: round(v.pattern.share),
            pse_pattern_pairs: (v.pattern.pairs * 10.0).round() / 10.0,
            pse_state: v.state.name(),
        }
    }
}

/// The analysis of one report's frames.
pub struct ReportPse {
    pub standard: Standard,
    pub model: LightModel,
    pub grid: Grid,
    /// The CPU twin, for `--cpu` (made at its first frame).
    twin: Option<LightTwin>,
    analysis: Option<Analysis>,
    ended: Vec<PseFailure>,
    /// Where frames are analysed as decoded: the file, for the note said at its first frame
    /// flagged interlaced.
    interlaced_note: Option<std::path::PathBuf>,
}

impl ReportPse {
    /// The analysis of `source`'s pictures: its frames, or those `deinterlace` makes (at field
    /// rate from every frame, twice as many, each half a frame long; where only the frames
    /// flagged interlaced are, those passed whole last a frame, and every picture is taken so).
    pub fn new(standard: Standard, source: &VideoSource, deinterlace: Option<Deinterlacer>) -> Self {
        let info = &source.info;
        let field_rate = deinterlace.is_some_and(|f| f.rate == Rate::Field && !f.only_interlaced);
        let picture = info.frame_duration / if field_rate { 2.0 } else { 1.0 };
        let format = info.format;
        let grid = Grid::new(format.width, format.height);
        Self {
            standard,
            model: LightModel::new(
                standard,
                info.volume.transfer,
                info.volume.primaries,
                format.layout.output_bits(),
            ),
            grid,
            twin: None,
            analysis: Some(Analysis::new(
                standard,
                info.volume.is_hdr(),
                info.volume.primaries,
                grid,
                picture,
            )),
            ended: Vec::new(),
            interlaced_note: deinterlace.is_none().then(|| info.path.clone()),
        }
    }

    /// A frame's light (as the GPU pass or `light_cpu` gives it); its findings, and the runs
    /// that ended with it.
    pub fn frame(&mut self, frame: &FrameMeta, light: &FrameLight) -> (FrameVerdict, Vec<Run>) {
        if frame.packet.fields.interlaced {
            if let Some(path) = self.interlaced_note.take() {
                let how = "--pse analyses each frame as one picture";
                crate::cli::pse::note_interlaced(&path, frame.index, how, "histoplay pse --fields");
            }
        }
        let analysis = self.analysis.as_mut().expect("analysing");
        let verdict = analysis.frame(frame.index, frame.seconds, light);
        let ended = analysis.take_ended();
        let runs = ended.iter().map(|f| self.run(f)).collect();
        self.ended.extend(ended);
        (verdict, runs)
    }

    /// The CPU twin's light of a converted frame.
    pub fn light_cpu(&mut self, words: &[u32]) -> FrameLight {
        let (grid, model) = (self.grid, &self.model);
        self.twin
            .get_or_insert_with(|| LightTwin::new(grid, model.clone()))
            .frame(words)
    }

    /// The frames ended: every failure, and the runs of those that end with them.
    pub fn finish(&mut self) -> (Vec<PseFailure>, Vec<Run>) {
        let Some(analysis) = self.analysis.take() else {
            return (Vec::new(), Vec::new());
        };
        let told = std::mem::take(&mut self.ended);
        let summary = analysis.finish(told.clone());
        let runs = summary
            .failures
            .iter()
            .filter(|f| !told.contains(f))
            .map(|f| self.run(f))
            .collect();
        (summary.failures, runs)
    }

    fn run(&self, failure: &PseFailure) -> Run {
        let now = std::time::SystemTime::now();
        Run {
            limit: format!("pse:{} ({})", failure.kind, self.standard.name()),
            first: failure.frames.0,
            last: failure.frames.1,
            first_pts: failure.start,
            last_pts: failure.end,
            worst: failure.worst,
            started: now,
            ended: now,
            audio: false,
        }
    }
}
