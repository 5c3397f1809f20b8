//! The page itself: HTML with its style inline, the pictures as data URLs, no request made
//! when it is opened, and a print layout.

use super::graphs::{clock, escape, graph, strip, strip_png, Line};
use super::HtmlReport;
use crate::cli::report::limits::Runs;
use crate::events::EventKind;
use crate::terminal::counted;

/// EBU R128's target and tolerance (LUFS, LU): the recommendation's ±0.5 LU, as `loudness
/// --fail-on r128` takes it (±1 LU is for live programmes only).
const TARGET: f64 = -23.0;
const TOLERANCE: f64 = 0.5;

const STYLE: &str = "
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.6em; margin-bottom: 0; word-break: break-all; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #e4e4e4; vertical-align: top; }
th { background: #f4f4f6; }
td.number { font-variant-numeric: tabular-nums; }
.verdict { display: inline-block; padding: .2em .8em; border-radius: .3em; font-weight: 600; color: #fff; }
.pass { background: #2e7d32; } .fail { background: #c62828; } .note { background: #6d6d72; }
.thumb { width: 320px; max-width: 100%; display: block; }
figure { margin: 1em 0; } figcaption { font-weight: 600; margin-bottom: .2em; }
figcaption small { font-weight: 400; margin-left: 1em; }
svg.graph { width: 100%; height: auto; display: block; }
svg .plot { fill: #fafafa; stroke: #bbb; } svg .guide { stroke: #999; stroke-dasharray: 4 3; }
svg .axis { font-size: 10px; fill: #555; }
.muted { color: #6d6d72; }
.warning { color: #8a4b00; }
@media print { body { margin: 0; max-width: none; font-size: 11px; } section { break-inside: avoid; } tr { break-inside: avoid; } }
";

/// Marks each picture with the size it decoded to (a reader can check them; nothing else runs).
const SCRIPT: &str = "addEventListener('load', () => { for (const i of document.images) i.dataset.decoded = i.naturalWidth + 'x' + i.naturalHeight; });";

/// The page of `report`, with each event's picture (`pictures`, in order) and the runs beyond
/// the limits (`limited`: whether any were set).
pub fn page(report: &HtmlReport, pictures: &[Result<String, String>], runs: &Runs, limited: bool) -> String {
    let facts = &report.facts;
    let name = facts.path.file_name().map_or_else(
        || facts.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>QC report: {title}</title>\n<style>{STYLE}</style>\n<script>{SCRIPT}</script>\n</head>\n<body>\n\
         <header><h1>{title}</h1><p class=\"muted\">QC report by histoplay {version}</p></header>\n",
        title = escape(&name),
        version = crate::version::VERSION,
    );
    if report.stopped {
        html += &format!(
            "<p class=\"verdict note\" id=\"stopped\">Stopped before the end, at {:.3} s of {:.3} s: \
             the page is of what was measured up to there.</p>\n",
            report.end, report.facts.duration
        );
    }
    html += &verdicts(report, runs, limited);
    html += &facts_table(report);
    html += &streams_table(report);
    html += &events_table(report, pictures);
    html += &over_time(report);
    html += "</body>\n</html>\n";
    html
}

fn verdicts(report: &HtmlReport, runs: &Runs, limited: bool) -> String {
    let (class, word) = match (limited, runs.is_empty()) {
        (false, _) => ("note", "no limits set"),
        (true, true) => ("pass", "pass"),
        (true, false) => ("fail", "fail"),
    };
    let mut rows = String::new();
    let count = |kind: EventKind| report.events.iter().filter(|e| e.kind == kind).count();
    rows += &format!(
        "<tr><th>Limits</th><td><span class=\"verdict {class}\" id=\"verdict\">{word}</span> {}</td></tr>\n",
        match (limited, runs.len()) {
            (false, _) => "(give --fail-on to judge the file)".to_string(),
            (true, 0) => "every frame within the limits".to_string(),
            (true, n) => format!("{} beyond the limits", counted(n, "run")),
        }
    );
    for run in runs {
        rows += &format!(
            "<tr><td></td><td class=\"number\">{}</td></tr>\n",
            escape(&run.to_string())
        );
    }
    let tally = match (report.facts.video, report.sound.is_some()) {
        (true, true) => format!(
            "{} black, {} frozen, {} silent",
            count(EventKind::Black),
            count(EventKind::Freeze),
            count(EventKind::Silence)
        ),
        // (No sound read: no silence found is no pass of silence.)
        (true, false) => format!(
            "{} black, {} frozen; no sound to find silence in",
            count(EventKind::Black),
            count(EventKind::Freeze)
        ),
        (false, _) => format!("{} silent", count(EventKind::Silence)),
    };
    rows += &format!(
        "<tr><th>Events</th><td id=\"event-count\" data-count=\"{}\">{tally}</td></tr>\n",
        report.events.len(),
    );
    rows += &reading(report);
    rows += &match report.integrated {
        Some((integrated, range)) => {
            let within = (integrated - TARGET).abs() <= TOLERANCE;
            format!(
                "<tr><th>Loudness</th><td><span class=\"verdict {}\">{}</span> integrated {integrated:.1} LUFS, \
                 range {range:.1} LU (EBU R128: {TARGET} ± {TOLERANCE} LU)</td></tr>\n",
                if within { "pass" } else { "fail" },
                if within { "on target" } else { "off target" }
            )
        }
        None => "<tr><th>Loudness</th><td class=\"muted\">no sound measured</td></tr>\n".to_string(),
    };
    rows += &match &report.pse {
        None if !report.facts.video => String::new(),
        None => "<tr><th>Photosensitivity</th><td class=\"muted\">not analysed (give --pse)</td></tr>\n".to_string(),
        Some((standard, failures)) => {
            let (class, word) = if failures.is_empty() {
                ("pass", "pass")
            } else {
                ("fail", "fail")
            };
            let patterns = match standard {
                crate::pse::Standard::Wcag => "",
                _ => " and patterns",
            };
            let mut row = format!(
                "<tr><th>Photosensitivity</th><td><span class=\"verdict {class}\" id=\"pse\">{word}</span> \
                 flashes{patterns} by {} ({})</td></tr>\n",
                standard.name(),
                counted(failures.len(), "failing run")
            );
            for f in failures {
                let worst = match f.kind {
                    "pattern" => format!("{} light-dark pairs", f.worst),
                    _ => format!("{} flashes a second", f.worst),
                };
                row += &format!(
                    "<tr><td></td><td class=\"number\">{}: {} to {} (frames {}–{}), {worst}</td></tr>\n",
                    f.kind,
                    clock(f.start),
                    clock(f.end),
                    f.frames.0,
                    f.frames.1,
                );
            }
            row
        }
    };
    format!("<section id=\"verdicts\"><h2>Verdicts</h2>\n<table>\n{rows}</table></section>\n")
}

/// The warnings said of the file as it was read (damage decoded past, frames lost, a file cut
/// short), each as stderr had it.
fn reading(report: &HtmlReport) -> String {
    let (said, more) = &report.warnings;
    if said.is_empty() {
        return "<tr><th>Reading</th><td id=\"warnings\" data-count=\"0\">no damage, loss or other warning</td></tr>\n"
            .to_string();
    }
    let count = said.len();
    let mut rows = format!(
        "<tr><th>Reading</th><td id=\"warnings\" data-count=\"{count}\"><span class=\"verdict note\">{}</span> \
         as the file was read</td></tr>\n",
        counted(count, "warning")
    );
    for line in said {
        rows += &format!("<tr><td></td><td class=\"warning\">{}</td></tr>\n", escape(line));
    }
    if *more {
        rows += "<tr><td></td><td class=\"muted\">(more warnings were said than are kept here)</td></tr>\n";
    }
    rows
}

/// The stream's field order, and how the decoder flagged the frames: `progressive (the stream
/// says progressive)`, `250 frames interlaced, top field first (the stream says tt)`, or the
/// count of each where they differ.
fn fields(order: &str, counts: [u64; 3]) -> String {
    let kinds: Vec<String> = counts
        .iter()
        .zip(crate::video::source::Fields::DESCRIPTIONS)
        .filter(|(n, _)| **n > 0)
        .map(|(n, kind)| format!("{} {kind}", counted(*n as usize, "frame")))
        .collect();
    match kinds.is_empty() {
        true => format!("the stream says {order}"),
        false => format!("{} (the stream says {order})", kinds.join(", ")),
    }
}

fn facts_table(report: &HtmlReport) -> String {
    let f = &report.facts;
    let sound = report.sound.as_ref().map_or("none reported".to_string(), |s| {
        format!("{} Hz, {}", s.rate, counted(usize::from(s.channels), "channel"))
    });
    if !f.video {
        let rows = [
            ("File", f.path.display().to_string()),
            ("Container", container(f.container.as_ref())),
            ("Duration", format!("{} ({:.3} s)", clock(f.duration), f.duration)),
            ("Sound", sound),
            ("Video", "none: a file of sound alone".to_string()),
        ];
        let rows: String = rows
            .iter()
            .map(|(k, v)| format!("<tr><th>{k}</th><td>{}</td></tr>\n", escape(v)))
            .collect();
        return format!("<section id=\"facts\"><h2>The file</h2>\n<table>\n{rows}</table></section>\n");
    }
    let mut rows = vec![
        ("File", f.path.display().to_string()),
        ("Container", container(f.container.as_ref())),
        (
            "Video",
            format!(
                "{} {}x{}, {} ({} bits)",
                f.codec, f.size.0, f.size.1, f.pixel_format, f.bits
            ),
        ),
        ("Frame rate", format!("{:.3} fps", f.frame_rate)),
        ("Duration", format!("{} ({:.3} s)", clock(f.duration), f.duration)),
        ("Timecode", timecodes(report.timecodes, f.timecode_tag.as_deref())),
        ("Colour", f.colour.clone()),
        ("Fields", fields(f.field_order, report.fields)),
        (
            "Content",
            report.idet.map_or("not analysed (RGB)".to_string(), |s| s.describe()),
        ),
    ];
    if let Some(hdr) = &f.hdr {
        rows.push(("HDR", hdr.to_string()));
    }
    if let Some(log) = f.log {
        rows.push(("Camera log", log.label().to_string()));
    }
    rows.push(("Sound", sound));
    let rows: String = rows
        .iter()
        .map(|(k, v)| {
            let row = format!("<tr><th>{k}</th><td>{}</td></tr>\n", escape(v));
            match *k {
                "Colour" => row + &colour_tags(&f.colour_tags),
                _ => row,
            }
        })
        .collect();
    format!("<section id=\"facts\"><h2>The file</h2>\n<table>\n{rows}</table></section>\n")
}

/// The timecodes of the first and the last frame measured, and the container's for the first
/// frame where it has one (a delivery's programme starts at 10:00:00:00).
fn timecodes(
    (first, last): (
        Option<crate::video::timecode::Timecode>,
        Option<crate::video::timecode::Timecode>,
    ),
    tag: Option<&str>,
) -> String {
    let frames = match (first, last) {
        (Some(first), Some(last)) => format!("{first} to {last}"),
        _ => "none in the frames measured".to_string(),
    };
    match tag {
        Some(tag) => format!("{frames} (the container's for its first frame: {tag})"),
        None => frames,
    }
}

/// The container's format, size and bit rate, as ffprobe gives them.
fn container(facts: Option<&crate::video::source::streams::ContainerFacts>) -> String {
    let Some(facts) = facts else {
        return "not read".to_string();
    };
    let mut said = vec![facts.format.clone()];
    if let Some(bytes) = facts.size {
        said.push(match bytes {
            b if b >= 1 << 30 => format!("{:.2} GiB", b as f64 / f64::from(1u32 << 30)),
            b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20)),
            b => format!("{:.1} KiB", b as f64 / 1024.0),
        });
    }
    if let Some(rate) = facts.bit_rate {
        said.push(format!("{} kb/s", rate / 1000));
    }
    said.join(", ")
}

/// Every stream the container holds, in ffprobe's words (codec and profile, size or rate and
/// layout, language, title), the ones measured marked so: a second sound track, its language,
/// the subtitles and the timecode track are what a delivery's checker looks for first.
fn streams_table(report: &HtmlReport) -> String {
    let Some(facts) = &report.facts.container else {
        return String::new();
    };
    let rows: String = facts
        .streams
        .iter()
        .map(|s| {
            let mut notes: Vec<&str> = s.marks.clone();
            // (A sound stream is measured where the report read its sound.)
            if facts.measured.contains(&s.index) && (s.kind != "audio" || report.sound.is_some()) {
                notes.insert(0, "measured");
            }
            let cell = |text: &str| format!("<td>{}</td>", escape(text));
            format!(
                "<tr><td class=\"number\">{}</td>{}{}{}{}{}{}</tr>\n",
                s.index,
                cell(s.kind),
                cell(&s.codec),
                cell(&s.details),
                cell(s.language.as_deref().unwrap_or("")),
                cell(s.title.as_deref().unwrap_or("")),
                cell(&notes.join(", ")),
            )
        })
        .collect();
    format!(
        "<section id=\"streams\"><h2>Streams ({})</h2>\n<table>\n<tr><th>#</th><th>Kind</th><th>Codec</th>\
         <th>Details</th><th>Language</th><th>Title</th><th>Notes</th></tr>\n{rows}</table></section>\n",
        facts.streams.len()
    )
}

/// The colour the stream is tagged with, in ffprobe's words; marked where it leaves some
/// untold (the player and the measures then go by the picture's size: a delivery should say).
fn colour_tags(tags: &crate::video::source::ColourTags) -> String {
    let said: Vec<String> = tags.named().iter().map(|(name, tag)| format!("{name} {tag}")).collect();
    let mark = match tags.any_unknown() {
        true => "<span class=\"verdict note\">not all tagged</span> ",
        false => "",
    };
    format!(
        "<tr><th>Colour tags</th><td id=\"colour-tags\">{mark}{}</td></tr>\n",
        escape(&said.join(", "))
    )
}

fn events_table(report: &HtmlReport, pictures: &[Result<String, String>]) -> String {
    if report.events.is_empty() {
        let none = match report.facts.video {
            true => "No black stretch, frozen picture or silence.",
            false => "No silence.",
        };
        return format!("<section id=\"events\"><h2>Events</h2><p>{none}</p></section>\n");
    }
    let mut rows = String::new();
    for (i, event) in report.events.iter().enumerate() {
        let time = |t: Option<f64>| t.map_or("the end".to_string(), crate::clock::format_time);
        let frames = event.frames.map_or(String::new(), |(a, b)| format!("{a}–{b}"));
        let kind = match (event.kind, event.channel) {
            (EventKind::Silence, Some(c)) => format!("silence (channel {c})"),
            (kind, _) => kind.name().to_string(),
        };
        let picture = match pictures.get(i) {
            Some(Ok(url)) => format!("<img class=\"thumb\" src=\"{url}\" alt=\"the first frame of {kind}\">"),
            Some(Err(why)) => format!("<span class=\"muted\">{}</span>", escape(why)),
            None => String::new(),
        };
        rows += &format!(
            "<tr class=\"event\"><td>{kind}</td><td class=\"number\">{}</td><td class=\"number\">{}</td>\
             <td class=\"number\">{}</td><td class=\"number\">{frames}</td><td>{picture}</td></tr>\n",
            time(Some(event.start)),
            time(event.end),
            event.duration.map_or("—".to_string(), |d| format!("{d:.3} s")),
        );
    }
    let last = if report.facts.video { "First frame" } else { "" };
    format!(
        "<section id=\"events\"><h2>Events ({})</h2>\n<table>\n<tr><th>Event</th><th>Start</th><th>End</th>\
         <th>Length</th><th>Frames</th><th>{last}</th></tr>\n{rows}</table></section>\n",
        report.events.len()
    )
}

fn over_time(report: &HtmlReport) -> String {
    if report.pictures.is_empty() && report.loudness.is_empty() {
        return String::new();
    }
    // From the first time measured (a file's times may start anywhere: a broadcast stream's
    // clock at 25 hours) to the end.
    let firsts = [&report.pictures.times, &report.loudness.times];
    let start = firsts
        .iter()
        .filter_map(|t| t.first())
        .copied()
        .fold(f64::INFINITY, f64::min);
    let start = if start.is_finite() { start } else { 0.0 };
    let span = (start, report.end.max(start + report.facts.duration));
    let mut html = String::from("<section id=\"over-time\"><h2>Over time</h2>\n");
    if !report.pictures.is_empty() {
        html += &pictures_over_time(report, span);
    }
    if !report.loudness.is_empty() {
        let l = &report.loudness.buckets;
        html += &graph(
            "Loudness (LUFS)",
            &report.loudness.times,
            span,
            &[
                Line {
                    name: "momentary",
                    colour: "#90a4ae",
                    values: l.iter().map(|x| f64::from(x.momentary)).collect(),
                },
                Line {
                    name: "short-term",
                    colour: "#1565c0",
                    values: l.iter().map(|x| f64::from(x.short_term)).collect(),
                },
            ],
            (-60.0, 0.0),
            &[(TARGET, format!("{TARGET}"))],
        );
    }
    html + "</section>\n"
}

/// The pictures' graphs over `span` (s): the strip, luminance, saturation, the broadcast range,
/// and the flashes where they were analysed.
fn pictures_over_time(report: &HtmlReport, span: (f64, f64)) -> String {
    let pictures = &report.pictures;
    let max = f64::from((1u32 << report.facts.bits) - 1);
    let scale = f64::from(1u32 << report.facts.bits.saturating_sub(8));
    let mean = |sum: f64, n: u32| sum / f64::from(n.max(1));
    let b = &pictures.buckets;
    let mut html = String::new();
    if let Some(png) = strip_png(pictures) {
        html += &strip(&format!("data:image/png;base64,{}", base64(&png)), span);
    }
    html += &graph(
        "Luminance (Y')",
        &pictures.times,
        span,
        &[
            Line {
                name: "YMAX",
                colour: "#c62828",
                values: b.iter().map(|p| f64::from(p.ymax)).collect(),
            },
            Line {
                name: "YAVG",
                colour: "#1d1d1f",
                values: b.iter().map(|p| mean(p.yavg, p.count)).collect(),
            },
            Line {
                name: "YMIN",
                colour: "#1565c0",
                values: b.iter().map(|p| f64::from(p.ymin)).collect(),
            },
        ],
        (0.0, max),
        &[
            (16.0 * scale, format!("{}", 16.0 * scale)),
            (235.0 * scale, format!("{}", 235.0 * scale)),
        ],
    );
    html += &graph(
        "Saturation",
        &pictures.times,
        span,
        &[
            Line {
                name: "SATMAX",
                colour: "#6a1b9a",
                values: b.iter().map(|p| f64::from(p.satmax)).collect(),
            },
            Line {
                name: "SATAVG",
                colour: "#ef6c00",
                values: b.iter().map(|p| mean(p.satavg, p.count)).collect(),
            },
        ],
        (0.0, 181.02 * scale),
        &[(118.2 * scale, format!("{:.0}", 118.2 * scale))],
    );
    html += &graph(
        "Outside broadcast range (BRNG)",
        &pictures.times,
        span,
        &[Line {
            name: "BRNG",
            colour: "#c62828",
            values: b.iter().map(|p| mean(p.brng, p.count)).collect(),
        }],
        (0.0, 0.1),
        &[(0.01, "1%".to_string())],
    );
    if report.pse.is_some() {
        html += &graph(
            "Flashes a second",
            &pictures.times,
            span,
            &[Line {
                name: "flashes (general or red)",
                colour: "#c62828",
                values: b.iter().map(|p| f64::from(p.flashes)).collect(),
            }],
            (0.0, 8.0),
            &[(3.0, "3".to_string())],
        );
    }
    html
}

/// Standard base64 (RFC 4648), padded.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648s() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn the_fields_row_counts_each_flagging() {
        assert_eq!(
            fields("progressive", [250, 0, 0]),
            "250 frames progressive (the stream says progressive)"
        );
        assert_eq!(
            fields("tt", [1, 24, 0]),
            "1 frame progressive, 24 frames interlaced, top field first (the stream says tt)"
        );
        assert_eq!(fields("unknown", [0, 0, 0]), "the stream says unknown");
    }
}
