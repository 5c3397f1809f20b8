//! `report --html PAGE` (or `-o PAGE.html`): a QC report a person reads, one self-contained page
//! (no network when opened; printable): the file's facts, the verdicts (the limits, the events,
//! the loudness), the event list with a picture of each event's first frame drawn with its
//! histograms, graphs over time of luminance, saturation, the broadcast-range share and
//! loudness, and the luma timeline strip. Gathered as the report runs, in bounded memory
//! (`series`), and written when it ends.

pub mod graphs;
mod page;
pub mod series;
mod thumbnails;

use crate::audio::qc::AudioFrame;
use crate::events::Event;
use crate::signalstats::{SignalStats, NAMES};
use crate::video::source::VideoSource;
use graphs::{Loudness, Pictures, STRIP_ROWS};
use series::Series;
use std::path::PathBuf;

/// What the page says of the file, taken when it opens.
#[derive(Clone, Debug)]
pub struct Facts {
    pub path: PathBuf,
    pub codec: String,
    pub size: (u32, u32),
    pub pixel_format: String,
    pub frame_rate: f64,
    pub duration: f64,
    pub colour: String,
    /// The colour the stream is tagged with, as ffprobe names it.
    pub colour_tags: crate::video::source::ColourTags,
    pub hdr: Option<Hdr>,
    /// The peak the frames' own side data gives, once the decoder has seen it (the page says
    /// it where the stream's header had none).
    pub frame_light: crate::video::format::FrameLight,
    pub bits: u32,
    pub live: bool,
    pub log: Option<crate::colour::log::LogEncoding>,
    /// The stream's field order (ffprobe's word for it).
    pub field_order: &'static str,
    /// The file has pictures (a file of sound alone has none: the page is of its sound).
    pub video: bool,
    /// The container and every stream it holds.
    pub container: Option<crate::video::source::streams::ContainerFacts>,
    /// The container's timecode of the first frame, where it has one.
    pub timecode_tag: Option<String>,
}

/// An HDR stream's transfer, and the peak light its metadata gives (MaxCLL, or the mastering
/// display's) and where the metadata was found.
#[derive(Clone, Debug)]
pub struct Hdr {
    pub transfer: String,
    pub peak: Option<(f32, &'static str)>,
}

impl std::fmt::Display for Hdr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.peak {
            Some((nits, place)) => write!(
                f,
                "{}, peak {nits:.0} cd/m² (MaxCLL or the mastering display's, {place})",
                self.transfer
            ),
            None => write!(f, "{}, no light level metadata", self.transfer),
        }
    }
}

/// The sound's facts, once its pass has opened it.
#[derive(Clone, Debug)]
pub struct SoundFacts {
    pub rate: u32,
    pub channels: u16,
    /// The file's stream it is (FFmpeg's best, or the one `--aid` named).
    pub index: usize,
}

/// The page being gathered.
pub struct HtmlReport {
    pub(crate) facts: Facts,
    pub(crate) sound: Option<SoundFacts>,
    pub(crate) pictures: Series<Pictures>,
    pub(crate) loudness: Series<Loudness>,
    /// The last integrated loudness and range (LUFS, LU), as ebur128 stands at the end.
    pub(crate) integrated: Option<(f64, f64)>,
    pub(crate) events: Vec<Event>,
    /// The last frame's time.
    pub(crate) end: f64,
    /// A live input's first frame's time.
    first: Option<f64>,
    /// The luma histogram of the frame whose values come next, and its flashes a second.
    strip: [f32; STRIP_ROWS],
    flashes: f32,
    /// The photosensitivity analysis's standard and failures, where it ran.
    pub(crate) pse: Option<(crate::pse::Standard, Vec<crate::pse::PseFailure>)>,
    /// The frames the decoder flagged each way, by `Fields::kind`.
    pub(crate) fields: [u64; 3],
    /// The first and the last timecode of the frames measured.
    pub(crate) timecodes: (
        Option<crate::video::timecode::Timecode>,
        Option<crate::video::timecode::Timecode>,
    ),
    /// What idet found the content to be, where it ran.
    pub(crate) idet: Option<crate::cli::report::idet::IdetSummary>,
    /// A signal stopped the report short of a file's end (a live input's end is its signal).
    pub(crate) stopped: bool,
    /// The warnings said of the file as it was read (damage, frames lost, a file cut short),
    /// and whether more were said than kept.
    pub(crate) warnings: (Vec<String>, bool),
}

/// Where each value the graphs take sits in `SignalStats::values`.
fn at(name: &str) -> usize {
    NAMES.iter().position(|n| *n == name).expect("a signalstats name")
}

/// Where the stream is tagged with primaries histoplay takes as a close set (`read`: BT.601's
/// as BT.709's), the words that say so after the set's name.
fn taken_as(tag: &str, read: crate::colour::Primaries) -> String {
    match tag {
        "unknown" => String::new(),
        tag if tag == read.tag() => String::new(),
        tag => format!(" (the stream's {tag} taken as them)"),
    }
}

impl HtmlReport {
    pub fn new(source: &VideoSource, bits: u32) -> Self {
        let info = &source.info;
        let volume = &info.volume;
        let color = &info.format.color;
        Self::new_of(Facts {
            path: info.path.clone(),
            codec: info.codec.clone(),
            size: (info.format.width, info.format.height),
            pixel_format: info.pixel_format.clone(),
            frame_rate: if info.frame_duration > 0.0 {
                1.0 / info.frame_duration
            } else {
                0.0
            },
            duration: info.duration,
            colour: format!(
                "{} primaries{}, {} transfer, {} matrix, {} range",
                volume.primaries.label(),
                taken_as(info.colour_tags.primaries, volume.primaries),
                volume.transfer.label(),
                color.matrix.label(),
                color.range.label()
            ),
            colour_tags: info.colour_tags,
            hdr: volume.is_hdr().then(|| Hdr {
                transfer: volume.transfer.label().to_string(),
                peak: volume.peak_nits.map(|nits| (nits, "in the stream's header")),
            }),
            frame_light: info.frame_light.clone(),
            bits,
            live: info.live,
            log: info.log,
            field_order: info.field_order,
            video: true,
            container: Some(source.container()),
            timecode_tag: info.timecode_tag.clone(),
        })
    }

    fn new_of(facts: Facts) -> Self {
        Self {
            facts,
            sound: None,
            pictures: Series::default(),
            loudness: Series::default(),
            integrated: None,
            events: Vec::new(),
            end: 0.0,
            first: None,
            strip: [0.0; STRIP_ROWS],
            flashes: 0.0,
            pse: None,
            fields: [0; 3],
            timecodes: (None, None),
            idet: None,
            stopped: false,
            warnings: (Vec::new(), false),
        }
    }

    /// The page of `path`, a file of sound alone: its facts are its sound's.
    pub fn sound_only(path: &std::path::Path) -> Self {
        Self::new_of(Facts {
            path: path.to_owned(),
            codec: String::new(),
            size: (0, 0),
            pixel_format: String::new(),
            frame_rate: 0.0,
            duration: 0.0,
            colour: String::new(),
            colour_tags: Default::default(),
            hdr: None,
            frame_light: Default::default(),
            bits: 8,
            live: false,
            log: None,
            field_order: "",
            video: false,
            container: crate::video::source::streams::container_facts_of(path),
            timecode_tag: None,
        })
    }

    /// A frame's luma histogram (one bin a code), for the strip: taken with its values next.
    pub fn luma(&mut self, luma: &[u32]) {
        let total: u64 = luma.iter().map(|&n| u64::from(n)).sum::<u64>().max(1);
        self.strip = [0.0; STRIP_ROWS];
        let per_row = luma.len().div_ceil(STRIP_ROWS).max(1);
        for (code, &n) in luma.iter().enumerate() {
            self.strip[(code / per_row).min(STRIP_ROWS - 1)] += n as f32 / total as f32;
        }
    }

    /// A frame's timecode, where the stream carries one (before its `frame`): the page gives
    /// the first and the last measured.
    pub fn timecode(&mut self, timecode: Option<crate::video::timecode::Timecode>) {
        if let Some(timecode) = timecode {
            self.timecodes.0.get_or_insert(timecode);
            self.timecodes.1 = Some(timecode);
        }
    }

    /// A frame's fields as the decoder flags them (before its `frame`).
    pub fn fields(&mut self, fields: crate::video::source::Fields) {
        self.fields[fields.kind()] += 1;
    }

    /// What idet found over the frames.
    pub fn idet(&mut self, summary: crate::cli::report::idet::IdetSummary) {
        self.idet = Some(summary);
    }

    /// A frame's statistics, at `seconds`.
    pub fn frame(&mut self, seconds: f64, stats: &SignalStats) {
        let v = stats.values();
        let value = Pictures {
            ymin: v[at("YMIN")] as f32,
            ymax: v[at("YMAX")] as f32,
            satmax: v[at("SATMAX")] as f32,
            yavg: v[at("YAVG")],
            satavg: v[at("SATAVG")],
            brng: v[at("BRNG")],
            count: 1,
            strip: self.strip,
            flashes: self.flashes,
        };
        self.pictures.push(seconds, value);
        self.end = self.end.max(seconds);
        // A live input's duration is what was measured of it: from its first frame to the end
        // of its last.
        if self.facts.live {
            let first = *self.first.get_or_insert(seconds);
            let frame = match self.facts.frame_rate > 0.0 {
                true => 1.0 / self.facts.frame_rate,
                false => 0.0,
            };
            self.facts.duration = self.facts.duration.max(seconds - first + frame);
        }
    }

    /// One of the sound's 100 ms frames.
    pub fn audio_frame(&mut self, sound: SoundFacts, frame: &AudioFrame) {
        if self.sound.is_none() {
            // The streams' list marks the sound measured.
            if let Some(container) = &mut self.facts.container {
                let streams = &container.streams;
                (container.measured).retain(|&i| streams.get(i).is_none_or(|s| s.kind != "audio"));
                container.measured.push(sound.index);
            }
        }
        self.sound.get_or_insert(sound);
        if !self.facts.video {
            self.facts.duration = self.facts.duration.max(frame.time + frame.duration);
        }
        if let Some(r) = frame.r128 {
            self.loudness.push(
                frame.time,
                Loudness {
                    momentary: r[0] as f32,
                    short_term: r[1] as f32,
                },
            );
            self.integrated = Some((r[2], r[3]));
        }
    }

    /// The flashes a second (the general or red, whichever more) of the frame whose values
    /// come next.
    pub fn flashes(&mut self, flashes: f64) {
        self.flashes = flashes as f32;
    }

    /// The photosensitivity analysis's end.
    pub fn pse(&mut self, standard: crate::pse::Standard, failures: Vec<crate::pse::PseFailure>) {
        self.pse = Some((standard, failures));
    }

    pub fn event(&mut self, event: &Event) {
        self.events.push(event.clone());
    }

    /// Writes the page to `path`: the runs beyond the limits (`runs`; `limited` whether any
    /// limit was set), the events' pictures drawn on `gpu` (or opened here; without a GPU the
    /// page says so).
    pub fn write(
        mut self,
        path: &std::path::Path,
        runs: &super::limits::Runs,
        limited: bool,
        gpu: Option<&crate::gpu::GpuContext>,
    ) -> std::io::Result<()> {
        self.events.sort_by(|a, b| a.start.total_cmp(&b.start));
        // (The stream's header without the light levels its frames carry: theirs.)
        if let (Some(hdr), Some(nits)) = (&mut self.facts.hdr, self.facts.frame_light.get()) {
            if hdr.peak.is_none() {
                hdr.peak = Some((nits, "in its frames"));
            }
        }
        self.stopped = !self.facts.live && crate::video::input::quitting();
        // (Those of the file: said of it by its path, as stderr has them.)
        let (said, more) = crate::cli::logging::said();
        let of_file = format!("{}: ", self.facts.path.display());
        self.warnings = (said.into_iter().filter(|w| w.starts_with(&of_file)).collect(), more);
        let pictures = thumbnails::draw(&self.facts, &self.events, gpu);
        let html = page::page(&self, &pictures, runs, limited);
        crate::output_file::OutputFile::write(path, html.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::taken_as;
    use crate::colour::Primaries;

    #[test]
    fn primaries_read_as_a_close_set_say_so() {
        assert_eq!(
            taken_as("smpte170m", Primaries::Bt709),
            " (the stream's smpte170m taken as them)"
        );
        assert_eq!(
            taken_as("bt470bg", Primaries::Bt709),
            " (the stream's bt470bg taken as them)"
        );
        for read in [
            Primaries::Bt709,
            Primaries::Bt2020,
            Primaries::P3,
            Primaries::DciP3,
            Primaries::Film,
            Primaries::Bt470m,
            Primaries::Ebu3213,
        ] {
            assert_eq!(taken_as(read.tag(), read), "", "{read:?}");
            assert_eq!(taken_as("unknown", read), "", "{read:?}");
        }
    }
}
