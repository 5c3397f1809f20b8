//! What each present put on screen, for the `--frame-log` file (tests and benchmarks watch the
//! player through it) and for `bench-play`'s numbers.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// One present to the window.
#[derive(Clone, Debug, PartialEq)]
pub struct Present {
    /// Right after the present call returned.
    pub at: Instant,
    /// The frame in the picture; None before the first one arrives.
    pub frame: Option<u64>,
    /// Its decoder generation (bumped by every seek).
    pub generation: u64,
    /// Whether this present brought a new frame (not a redraw of the OSD over the same one).
    pub new_frame: bool,
    /// When the new frame was due; None for frames shown at once (seeks, steps, the first).
    pub due: Option<Instant>,
    /// Frames dropped so far in this file.
    pub dropped: u64,
    pub paused: bool,
    pub size: (u32, u32),
    /// The picture's size as decoded (a live input's can change mid-stream).
    pub picture: (u32, u32),
    /// Whether the frame number is exact (the index had read that far) or estimated.
    pub exact: bool,
    /// The frame is a seek's keyframe preview, not yet the frame it lands on.
    pub preview: bool,
    /// The pixel probe's reading, if shown: x, y, then R, G, B.
    pub probe: Option<[u32; 5]>,
    /// The region counted, if not the whole frame: x, y, width, height.
    pub region: Option<[u32; 4]>,
    /// Which file of the window's this is (0 for the first, counting up as files are opened).
    pub file: u64,
    /// The A-B loop's points set, in seconds from the start.
    pub ab: crate::player::playback::AbLoop,
    /// Comparing: the compared file's picture paired with this one (None: it has none), and
    /// the mode shown.
    pub compare: Option<(
        Option<crate::player::comparison::PictureNumber>,
        crate::compare::composite::CompareMode,
    )>,
    /// Comparing: the latest pair measured, its picture (A's) and its MSE and SSIM (all
    /// components).
    pub pair: Option<(u64, f64, f64)>,
    /// The marks drawn on the picture.
    pub marks: crate::marks::MarkSet,
    /// While the stats overlay shows them: the signal statistics, as `SignalReadout::log_field`
    /// writes them (only made when a frame log is kept).
    pub signal: Option<String>,
    /// Where the OSD's boxes were drawn: name, then x, y, width and height in pixels.
    pub osd: Vec<(&'static str, [i32; 4])>,
    /// A live input's new frame: from its packet's arrival to this present.
    pub latency: Option<std::time::Duration>,
    /// A timeshifted live input: seconds behind its newest frame.
    pub behind: Option<f64>,
    /// The frame's SMPTE timecode, where the stream carries one.
    pub timecode: Option<crate::video::timecode::Timecode>,
    /// The frame's fields as the decoder flags them.
    pub fields: Option<crate::video::source::Fields>,
    /// The deinterlacer in force, and at field rate which field of the frame the picture is
    /// (1 or 2).
    pub deinterlace: Option<(crate::video::deinterlace::Deinterlacer, Option<u8>)>,
    /// How the fields are shown (`apart`, `top`, `bottom`), where not as the frame.
    pub field_view: Option<&'static str>,
    /// The limits the QC report's last frame counted is beyond (`--fail-on`), `,`-separated.
    pub qc: String,
    /// The audio meters' readings, while shown (`MeterPanel::log_field`).
    pub meters: Option<String>,
    /// The scope shown, if one is.
    pub scope: Option<crate::scope::ScopeKind>,
    /// Comparing with VMAF measured: the frame's VMAF, once measured.
    pub vmaf: Option<f64>,
    /// The photosensitivity analysis's state of the frame, and its flashes a second, once
    /// analysed.
    pub pse: Option<(crate::pse::analysis::State, f32)>,
}

/// `--frame-log PATH`: one line per present, flushed as written so a watcher sees it live:
/// `t_ms=1234.567 frame=37 gen=0 new=1 due_ms=1234.000 dropped=3 paused=0 size=640x480
/// picture=1920x1080 exact=1 preview=0 probe=10,20,255,128,0 region=0,0,320,240 file=0 ab=1.500,-`, and comparing two
/// files ` compare=37,wipe` (the compared file's frame, the mode; at field rate
/// ` compare=37,wipe,2`, which field of it) and the latest pair measured ` pair=37:12.345678,0.987654`
/// (A's picture, the MSE and SSIM of all components), with the photosensitivity
/// analysis run ` pse=fail:4` (the frame's state and flashes a second), and with marks on the picture
/// ` marks=zebra,peaking`, with a scope shown ` scope=vectorscope`, and while the stats overlay shows them, the signal statistics
/// ` signal=37:16,20,...` (the frame they are of, then `report --csv`'s values in its order),
/// and where the OSD's boxes were drawn, ` osd=compare:112,8,416,22;panel:8,180,624,70` (x, y,
/// width and height in pixels), and a live input's new frames ` latency_ms=41.250` (from its
/// packet's arrival to the present), or timeshifted, how far behind its newest frame it is
/// ` behind_s=12.400`, and where the stream carries one the frame's timecode
/// ` tc=10:00:01:05`, the frame's fields as the decoder flags them ` fields=tff` (`bff`,
/// `progressive`), the deinterlacer in force ` deint=bwdif,send_field,auto,all` (FFmpeg's
/// method, mode, parity and deint) and at field rate which field of the frame is shown
/// ` field=2`, the fields shown apart ` view=apart` (`top`, `bottom`: counted alone), and while the QC report's frames are beyond `--fail-on`'s limits, those
/// limits ` qc=YMAX>235`, and while the audio meters show, their readings
/// ` meters=t:4.000;FL:-20.0,-23.0,-20.0,-19.9,0;...` (see `MeterPanel::log_field`) (times in milliseconds since the player started; `-` where
/// there is no value).
pub struct FrameLog {
    out: std::io::BufWriter<std::fs::File>,
    start: Instant,
    failed: bool,
}

impl FrameLog {
    /// The first line says where `t_ms=0` is on the system's monotonic clock (`# monotonic_ns=N`,
    /// Linux), so other programs can line their own timestamps up with the presents.
    /// The log at `path`, as the player's error where it can't be written.
    pub fn open(path: &Path, start: Instant) -> Result<Self, crate::player::PlayerError> {
        Self::create(path, start).map_err(|source| crate::player::PlayerError::FrameLog {
            path: path.to_path_buf(),
            source,
        })
    }

    pub fn create(path: &Path, start: Instant) -> std::io::Result<Self> {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        if let Some(now) = monotonic_ns() {
            let start_ns = now.saturating_sub(start.elapsed().as_nanos() as u64);
            writeln!(out, "# monotonic_ns={start_ns}")?;
        }
        Ok(Self {
            out,
            start,
            failed: false,
        })
    }

    /// The event loop woke (a `t_ms=T wake` line): a window that has nothing to do writes none.
    pub fn wake(&mut self, at: Instant) {
        let ms = at.saturating_duration_since(self.start).as_secs_f64() * 1000.0;
        self.write(format_args!("t_ms={ms:.3} wake"));
    }

    pub fn record(&mut self, present: &Present) {
        let ms = |t: Instant| t.saturating_duration_since(self.start).as_secs_f64() * 1000.0;
        let frame = present.frame.map_or("-".to_string(), |f| f.to_string());
        let due = present.due.map_or("-".to_string(), |d| format!("{:.3}", ms(d)));
        let list = |values: Option<&[u32]>| {
            values.map_or("-".to_string(), |v| {
                v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
            })
        };
        let probe = list(present.probe.as_ref().map(|p| &p[..]));
        let point = |p: Option<f64>| p.map_or("-".to_string(), |s| format!("{s:.3}"));
        let ab = match present.ab.a {
            Some(_) => format!("{},{}", point(present.ab.a), point(present.ab.b)),
            None => "-".to_string(),
        };
        let region = list(present.region.as_ref().map(|r| &r[..]));
        let compare = match present.compare {
            Some((b, mode)) => {
                let frame_b = b.map_or("-".to_string(), |b| b.frame.to_string());
                let mode =
                    clap::ValueEnum::to_possible_value(&mode).map_or(String::new(), |v| v.get_name().to_string());
                let field = b.and_then(|b| b.field).map_or(String::new(), |f| format!(",{f}"));
                format!(" compare={frame_b},{mode}{field}")
            }
            None => String::new(),
        };
        let pair = present
            .pair
            .map_or(String::new(), |(k, mse, ssim)| format!(" pair={k}:{mse:.6},{ssim:.6}"));
        let vmaf = present.vmaf.map_or(String::new(), |v| format!(" vmaf={v:.6}"));
        let pse = present.pse.map_or(String::new(), |(state, flashes)| {
            format!(" pse={}:{flashes}", state.name())
        });
        let scope = present
            .scope
            .and_then(|s| clap::ValueEnum::to_possible_value(&s))
            .map_or(String::new(), |s| format!(" scope={}", s.get_name()));
        let marks = match present.marks.names() {
            names if names.is_empty() => String::new(),
            names => format!(" marks={}", names.join(",")),
        };
        let signal = match &present.signal {
            Some(field) => format!(" signal={field}"),
            None => String::new(),
        };
        let latency = match present.latency {
            Some(latency) => format!(" latency_ms={:.3}", latency.as_secs_f64() * 1000.0),
            None => String::new(),
        };
        let behind = match present.behind {
            Some(seconds) => format!(" behind_s={seconds:.3}"),
            None => String::new(),
        };
        let timecode = match present.timecode {
            Some(tc) => format!(" tc={tc}"),
            None => String::new(),
        };
        let fields = present
            .fields
            .map_or(String::new(), |f| format!(" fields={}", f.name()));
        let view = present.field_view.map_or(String::new(), |v| format!(" view={v}"));
        let deinterlace = match present.deinterlace {
            Some((filter, field)) => {
                let field = field.map_or(String::new(), |f| format!(" field={f}"));
                format!(" deint={}{field}", filter.log_name())
            }
            None => String::new(),
        };
        let qc = match present.qc.as_str() {
            "" => String::new(),
            limits => format!(" qc={limits}"),
        };
        let meters = match &present.meters {
            Some(field) => format!(" meters={field}"),
            None => String::new(),
        };
        let osd = match present.osd.as_slice() {
            [] => String::new(),
            boxes => {
                let boxes: Vec<String> = boxes
                    .iter()
                    .map(|(name, [x, y, w, h])| format!("{name}:{x},{y},{w},{h}"))
                    .collect();
                format!(" osd={}", boxes.join(";"))
            }
        };
        self.write(format_args!(
            "t_ms={:.3} frame={frame} gen={} new={} due_ms={due} dropped={} paused={} size={}x{} picture={}x{} exact={} preview={} probe={probe} region={region} file={} ab={ab}{compare}{pair}{vmaf}{pse}{scope}{marks}{signal}{latency}{behind}{timecode}{fields}{deinterlace}{view}{qc}{meters}{osd}",
            ms(present.at),
            present.generation,
            u8::from(present.new_frame),
            present.dropped,
            u8::from(present.paused),
            present.size.0,
            present.size.1,
            present.picture.0,
            present.picture.1,
            u8::from(present.exact),
            u8::from(present.preview),
            present.file,
        ));
    }

    fn write(&mut self, line: std::fmt::Arguments) {
        if self.failed {
            return;
        }
        let result = writeln!(self.out, "{line}").and_then(|()| self.out.flush());
        if let Err(e) = result {
            // Logging must never stop playback: say so once and go on without it.
            log::error!("writing the frame log failed, no more lines: {e}");
            self.failed = true;
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds (what `Instant` reads on Linux).
pub fn monotonic_ns() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes one timespec.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) } == 0;
        ok.then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The `p`-quantile (0..=1) of `values` by nearest rank; None when empty.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.0));
        assert_eq!(percentile(&v, 0.99), Some(99.0));
        assert_eq!(percentile(&v, 1.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 0.5), Some(2.0));
        assert_eq!(percentile(&[], 0.5), None);
    }

    #[test]
    fn log_lines_are_one_per_present() {
        let dir = std::env::temp_dir().join(format!("histoplay-framelog-{}", std::process::id()));
        let start = Instant::now();
        let mut log = FrameLog::create(&dir, start).unwrap();
        let present = Present {
            at: start + Duration::from_millis(1500),
            frame: Some(37),
            generation: 2,
            new_frame: true,
            due: Some(start + Duration::from_millis(1490)),
            dropped: 3,
            paused: false,
            size: (640, 480),
            picture: (320, 240),
            exact: true,
            preview: false,
            probe: None,
            region: None,
            file: 0,
            ab: Default::default(),
            compare: None,
            pair: None,
            vmaf: None,
            pse: None,
            marks: Default::default(),
            signal: None,
            osd: Vec::new(),
            latency: None,
            behind: None,
            timecode: None,
            fields: None,
            deinterlace: None,
            field_view: None,
            qc: String::new(),
            meters: None,
            scope: None,
        };
        log.record(&present);
        log.record(&Present {
            frame: None,
            due: None,
            new_frame: false,
            probe: Some([10, 20, 255, 128, 0]),
            region: Some([0, 0, 320, 240]),
            file: 1,
            ab: crate::player::playback::AbLoop { a: Some(1.5), b: None },
            compare: Some((None, crate::compare::composite::CompareMode::SideBySide)),
            pair: Some((36, 12.5, 0.9875)),
            marks: crate::marks::MarkSet(0)
                .with(crate::marks::Mark::Zebra, true)
                .with(crate::marks::Mark::Range, true),
            signal: Some("37:16,20".into()),
            osd: vec![("compare", [112, 8, 416, 22]), ("panel", [8, 180, 624, 70])],
            latency: Some(Duration::from_micros(41_250)),
            behind: Some(12.4),
            timecode: crate::video::timecode::Timecode::parse("10:00:59;28"),
            fields: Some(crate::video::source::Fields {
                interlaced: true,
                top_first: true,
                repeated: false,
            }),
            deinterlace: Some(("yadif=send_field:bff".parse().unwrap(), Some(2))),
            field_view: Some("top"),
            scope: Some(crate::scope::ScopeKind::Vectorscope),
            ..present.clone()
        });
        let text = std::fs::read_to_string(&dir).unwrap();
        std::fs::remove_file(&dir).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        let header = lines.remove(0);
        let ns: u64 = header.strip_prefix("# monotonic_ns=").unwrap().parse().unwrap();
        assert!(ns.abs_diff(monotonic_ns().unwrap()) < 60_000_000_000, "{header}");
        assert_eq!(
            lines,
            [
                "t_ms=1500.000 frame=37 gen=2 new=1 due_ms=1490.000 dropped=3 paused=0 size=640x480 picture=320x240 exact=1 preview=0 probe=- region=- file=0 ab=-",
                "t_ms=1500.000 frame=- gen=2 new=0 due_ms=- dropped=3 paused=0 size=640x480 picture=320x240 exact=1 preview=0 probe=10,20,255,128,0 region=0,0,320,240 file=1 ab=1.500,- compare=-,side-by-side pair=36:12.500000,0.987500 scope=vectorscope marks=zebra,range signal=37:16,20 latency_ms=41.250 behind_s=12.400 tc=10:00:59;28 fields=tff deint=yadif,send_field,bff,all field=2 view=top osd=compare:112,8,416,22;panel:8,180,624,70",
            ]
        );
    }
}
