//! `report --html`: the QC page a person reads, opened in a real browser (Chromium, headless):
//! what it shows (the verdict, the events, each event's picture decoded), that it is valid HTML
//! (tidy), asks for nothing over the network, and runs without a script error.

mod common;

use std::path::Path;
use std::process::Command;

/// The page as Chromium has it once loaded (its scripts run), and what it logged.
fn browse(page: &Path) -> (String, String) {
    // A profile of its own for each page (the tests browse at once; Chromium locks its profile).
    static BROWSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BROWSED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let profile = std::env::temp_dir().join(format!("histoplay-chromium-{}-{n}", std::process::id()));
    // (Debian's chromium; Ubuntu names it chromium-browser.)
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("chromium runs (scripts/setup installs it)");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs (scripts/setup installs it)");
    let _ = std::fs::remove_dir_all(&profile);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The data URLs of the events' pictures, in order.
fn pictures(html: &str) -> Vec<image::RgbImage> {
    html.split("class=\"thumb\" src=\"data:image/jpeg;base64,")
        .skip(1)
        .map(|rest| {
            let text = rest.split('"').next().unwrap();
            let bytes = decode_base64(text);
            image::load_from_memory(&bytes).unwrap().to_rgb8()
        })
        .collect()
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=').collect();
    let mut out = Vec::new();
    for chunk in clean.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | u32::from(value(c)) << (18 - 6 * i));
        out.extend(n.to_be_bytes()[1..chunk.len()].iter());
    }
    out
}

fn mean(picture: &image::RgbImage) -> f64 {
    picture
        .pixels()
        .map(|p| f64::from(p[0]) + f64::from(p[1]) + f64::from(p[2]))
        .sum::<f64>()
        / (3.0 * f64::from(picture.width() * picture.height()))
}

/// `report FILE ARGS -o PAGE` where the run fails the file (exit status 1) and writes the page
/// alone (nothing on stdout); the page, checked valid HTML in tidy's judgement (no error, no
/// warning), asking nothing of the network, and run in Chromium without a script error: its
/// text and its DOM once loaded.
fn failing_page(name: &str, file: &Path, args: &[&str]) -> (String, String) {
    let page = std::env::temp_dir().join(format!("histoplay-{name}-{}.html", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .args(args)
        .arg("-o")
        .arg(&page)
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let html = std::fs::read_to_string(&page).unwrap();
    let tidy = Command::new("tidy")
        .args(["-q", "-e"])
        .arg(&page)
        .output()
        .expect("tidy (scripts/setup)");
    assert!(tidy.status.success(), "{}", String::from_utf8_lossy(&tidy.stderr));
    for attribute in ["src=\"http", "href=\"http", "url(http", "src=\"//", "href=\"//"] {
        assert!(!html.contains(attribute), "{attribute}");
    }
    let (dom, log) = browse(&page);
    let _ = std::fs::remove_file(&page);
    assert!(!log.contains("Uncaught"), "{log}");
    (html, dom)
}

#[test]
fn the_page_shows_the_verdict_the_events_and_their_pictures_in_a_browser() {
    // The black stretch breaks the limit.
    let (html, dom) = failing_page(
        "report",
        &common::events_programme(),
        &["--pse", "--fail-on", "black>2s"],
    );
    assert!(dom.contains("id=\"verdict\">fail</span>"), "{dom}");
    assert!(dom.contains("black&gt;2s: frames 25-87 (1.000-3.520 s), worst 2.52"));
    assert!(dom.contains("id=\"event-count\" data-count=\"4\""));
    assert!(dom.contains("1 black, 2 frozen, 1 silent"));
    assert!(
        dom.contains("id=\"warnings\" data-count=\"0\">no damage, loss or other warning"),
        "{dom}"
    );
    // No flashing in it: the photosensitivity verdict passes, its graph drawn.
    assert!(
        dom.contains("id=\"pse\">pass</span> flashes and patterns by bt1702 (0 failing runs"),
        "{dom}"
    );
    assert!(html.contains("<figcaption>Flashes a second"));
    assert_eq!(dom.matches("<tr class=\"event\">").count(), 4);
    // Each event's first frame, decoded by the browser at its size.
    assert_eq!(dom.matches("data-decoded=\"320x240\"").count(), 4, "{dom}");
    // In start order: black, freeze (both at 1 s: the black first picture), silence (1.2 s, in
    // the black), then the held test picture at 4.52 s.
    let drawn = pictures(&html);
    assert_eq!(drawn.len(), 4);
    for (i, expected_dark) in [true, true, true, false].into_iter().enumerate() {
        assert_eq!(
            mean(&drawn[i]) < 30.0,
            expected_dark,
            "picture {i}: mean {}",
            mean(&drawn[i])
        );
    }
    // The facts, the loudness, the graphs and the strip.
    assert!(dom.contains("h264 320x240, yuv420p (8 bits)"));
    // Its colour as read (untagged SD: BT.601, as mpv takes it), and as tagged, marked where
    // the stream leaves a tag untold.
    assert!(
        dom.contains("<td>BT.709 primaries, SDR transfer, BT.601 matrix, limited range</td>"),
        "{dom}"
    );
    let tags = common::colour_tags(&common::events_programme());
    assert!(tags.contains("unknown"), "{tags}");
    assert!(
        dom.contains(&format!(
            "id=\"colour-tags\"><span class=\"verdict note\">not all tagged</span> {tags}</td>"
        )),
        "{dom}"
    );
    assert!(dom.contains("48000 Hz, 2 channels"));
    assert!(dom.contains("integrated "));
    for title in [
        "Luminance (Y')",
        "Saturation",
        "Outside broadcast range (BRNG)",
        "Loudness (LUFS)",
        "Luma timeline",
    ] {
        assert!(html.contains(&format!("<figcaption>{title}")), "{title}");
    }
    assert!(html.contains("<image href=\"data:image/png;base64,"));
}

#[test]
fn the_page_goes_beside_json_lines_when_asked_and_a_bad_path_is_an_error() {
    let file = common::events_programme();
    let page = std::env::temp_dir().join(format!("histoplay-report-json-{}.html", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--events", "--html"])
        .arg(&page)
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout).unwrap();
    assert_eq!(lines.lines().filter(|l| l.starts_with("{\"event\"")).count(), 4);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<tr class=\"event\">"));
    // (Run to its end: not stopped short.)
    assert!(!html.contains("id=\"stopped\""));
    let _ = std::fs::remove_file(&page);
    // A folder that isn't there, or one where the page can't be written until whole (beside
    // its name): refused before the run, in one line, with nothing on stdout.
    for (page, why) in [
        (
            "/nonexistent/folder/page.html",
            "there is no folder '/nonexistent/folder'",
        ),
        ("/proc/version", "no file can be made in '/proc'"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["report", "--html", page])
            .arg(&file)
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("error: '{page}' can't be written: {why}")),
            "{stderr}"
        );
    }
}

#[test]
fn a_file_of_sound_alone_has_a_page_of_its_sound() {
    // A mono mix silent from 1 s to 3.5 s.
    let (html, dom) = failing_page(
        "report-sound",
        &common::silent_stretch_mix(),
        &["--fail-on", "silence>2s"],
    );
    assert!(dom.contains("id=\"verdict\">fail</span>"), "{dom}");
    assert!(
        dom.contains("silence&gt;2s: audio frames 10-35 (1.000-3.500 s), worst 2.5"),
        "{dom}"
    );
    assert!(
        dom.contains("id=\"event-count\" data-count=\"1\">1 silent</td>"),
        "{dom}"
    );
    assert_eq!(dom.matches("<tr class=\"event\">").count(), 1);
    assert!(
        dom.contains("<td>silence</td><td class=\"number\">00:01.000</td><td class=\"number\">00:03.500</td>"),
        "{dom}"
    );
    // Its facts are its sound's; no pictures, no picture's verdict or graph; its loudness.
    assert!(dom.contains("<th>Duration</th><td>0:04 (4.000 s)</td>"), "{dom}");
    assert!(dom.contains("48000 Hz, 1 channel"));
    assert!(dom.contains("none: a file of sound alone"));
    // Its one stream, measured.
    assert!(dom.contains("<h2>Streams (1)</h2>"), "{dom}");
    assert!(
        dom.contains(
            "<td>audio</td><td>pcm_s16le</td><td>48000 Hz, 1 channel, s16</td><td></td><td></td><td>measured</td>"
        ),
        "{dom}"
    );
    assert!(!dom.contains("Photosensitivity"));
    assert!(pictures(&html).is_empty());
    assert!(dom.contains("integrated "));
    assert!(html.contains("<figcaption>Loudness (LUFS)"));
    assert!(!html.contains("<figcaption>Luminance"));
}

#[test]
fn the_page_lists_the_damage_and_loss_found_as_the_file_was_read() {
    let (_, damaged) = common::matroska_missing_a_cluster();
    // The page of a run (`quiet`: RUST_LOG=error, stderr showing no warning), valid HTML, and
    // stderr.
    let page_of = |quiet: bool| {
        let page = std::env::temp_dir().join(format!("histoplay-report-damaged-{quiet}-{}.html", std::process::id()));
        let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
        command.args(["report", "-o"]).arg(&page).arg(&damaged);
        if quiet {
            command.env("RUST_LOG", "error");
        }
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let html = std::fs::read_to_string(&page).unwrap();
        let tidy = Command::new("tidy").args(["-q", "-e"]).arg(&page).output().unwrap();
        assert!(tidy.status.success(), "{}", String::from_utf8_lossy(&tidy.stderr));
        let _ = std::fs::remove_file(&page);
        (html, String::from_utf8(out.stderr).unwrap())
    };
    let (html, stderr) = page_of(false);
    // Every warning stderr had of the file, once each, on the page as it was said.
    let of_file = format!("warning: {}: ", damaged.display());
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with(&of_file))
        .map(|l| &l["warning: ".len()..])
        .collect();
    assert!(
        warned
            .iter()
            .any(|w| w.contains("frames lost from the stream where its decode times skip")),
        "{warned:?}"
    );
    let once: std::collections::BTreeSet<&str> = warned.iter().copied().collect();
    assert_eq!(once.len(), warned.len(), "{warned:?}");
    let listed: Vec<&str> = html
        .split("<td class=\"warning\">")
        .skip(1)
        .map(|rest| rest.split("</td>").next().unwrap())
        .collect();
    let escaped: Vec<String> = warned
        .iter()
        .map(|w| {
            w.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        })
        .collect();
    // (A warning said after the page was written, were there one, would be on stderr alone.)
    assert_eq!(listed[..], escaped[..listed.len()]);
    assert!(
        html.contains(&format!("id=\"warnings\" data-count=\"{}\"", listed.len())),
        "{html}"
    );
    // With stderr quiet, the page says the same of the frames lost (the index's finding; which
    // frames H.264's frame threads conceal may change from run to run).
    let (quiet_html, quiet_stderr) = page_of(true);
    assert!(!quiet_stderr.contains("warning: "), "{quiet_stderr}");
    let lost = |html: &str| -> Vec<String> {
        html.split("<td class=\"warning\">")
            .skip(1)
            .map(|rest| rest.split("</td>").next().unwrap().to_string())
            .filter(|w| w.contains("lost from the stream"))
            .collect()
    };
    assert!(!lost(&html).is_empty());
    assert_eq!(lost(&quiet_html), lost(&html));
}

/// `report ARGS -o PAGE FILE`, which succeeds.
fn write_page(file: &Path, args: &[&str], page: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .args(args)
        .arg("-o")
        .arg(page)
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A stream's row as ffprobe describes it: index, kind, codec (and profile), size or rate and
/// layout, language, title.
fn ffprobe_rows(file: &Path) -> Vec<[String; 6]> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-show_streams", "-of", "json"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = |s: &serde_json::Value, key: &str| s[key].as_str().unwrap_or("").to_string();
    json["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let kind = text(s, "codec_type");
            let codec = match text(s, "profile") {
                p if p.is_empty() || p == "unknown" => text(s, "codec_name"),
                p => format!("{} ({p})", text(s, "codec_name")),
            };
            let details = match kind.as_str() {
                "video" => {
                    let (n, d) = text(s, "avg_frame_rate")
                        .split_once('/')
                        .map(|(n, d)| (n.parse::<f64>().unwrap(), d.parse::<f64>().unwrap()))
                        .unwrap();
                    // (Pixels not square: ffprobe's ratios.)
                    let aspect = match text(s, "sample_aspect_ratio") {
                        sar if sar.is_empty() || sar == "1:1" || sar.starts_with("0:") => String::new(),
                        sar => format!(", SAR {sar} DAR {}", text(s, "display_aspect_ratio")),
                    };
                    format!(
                        "{}x{}{aspect}, {}, {} fps",
                        s["width"],
                        s["height"],
                        text(s, "pix_fmt"),
                        n / d
                    )
                }
                "audio" => format!(
                    "{} Hz, {}, {}",
                    text(s, "sample_rate"),
                    text(s, "channel_layout"),
                    text(s, "sample_fmt")
                ),
                _ => String::new(),
            };
            let tag = |key: &str| s["tags"][key].as_str().unwrap_or("").to_string();
            [
                s["index"].to_string(),
                kind,
                codec,
                details,
                tag("language"),
                tag("title"),
            ]
        })
        .collect()
}

#[test]
fn the_page_lists_every_stream_as_ffprobe_describes_it() {
    // A delivery's Matroska file: the picture, an English stereo mix (default), a French 5.1
    // AC-3 track, and English subtitles for the hard of hearing, each tagged.
    let subtitles = common::repo_path("target/fixtures/streams-subtitles.srt");
    std::fs::create_dir_all(subtitles.parent().unwrap()).unwrap();
    std::fs::write(&subtitles, "1\n00:00:00,000 --> 00:00:01,000\nHello.\n").unwrap();
    #[rustfmt::skip]
    let file = common::fixture("streams-delivery.mkv", &[
        "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1",
        "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1",
        "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=1",
        "-i", subtitles.to_str().unwrap(),
        "-map", "0", "-map", "1", "-map", "2", "-map", "3",
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-vf", "setsar=64/45",
        "-c:a:0", "aac", "-ac:a:0", "2", "-c:a:1", "ac3", "-ac:a:1", "6", "-c:s", "srt",
        "-metadata:s:a:0", "language=eng", "-metadata:s:a:0", "title=Stereo mix",
        "-metadata:s:a:1", "language=fra",
        "-metadata:s:s:0", "language=eng", "-metadata:s:s:0", "title=English SDH",
        "-disposition:a:0", "default", "-disposition:a:1", "0", "-disposition:s:0", "hearing_impaired",
    ]);
    let page = std::env::temp_dir().join(format!("histoplay-streams-{}.html", std::process::id()));
    write_page(&file, &["--frames", "0..5"], &page);
    let tidy = Command::new("tidy")
        .args(["-q", "-e"])
        .arg(&page)
        .output()
        .expect("tidy (scripts/setup)");
    assert!(tidy.status.success(), "{}", String::from_utf8_lossy(&tidy.stderr));
    let (dom, log) = browse(&page);
    let _ = std::fs::remove_file(&page);
    assert!(!log.contains("Uncaught"), "{log}");
    assert!(dom.contains("<h2>Streams (4)</h2>"), "{dom}");
    let expected = ffprobe_rows(&file);
    assert_eq!(expected.len(), 4);
    let notes = ["measured", "measured, default", "", "hearing impaired"];
    for (row, note) in expected.iter().zip(notes) {
        let [index, kind, codec, details, language, title] = row;
        let cells = format!(
            "<tr><td class=\"number\">{index}</td><td>{kind}</td><td>{codec}</td><td>{details}</td>\
             <td>{language}</td><td>{title}</td><td>{note}</td></tr>"
        );
        assert!(dom.contains(&cells), "{cells}\n{dom}");
    }
    // `--aid 2`: the French track is the sound measured.
    write_page(&file, &["--frames", "0..5", "--aid", "2"], &page);
    let (dom, _) = browse(&page);
    let _ = std::fs::remove_file(&page);
    let notes = ["measured", "default", "measured", "hearing impaired"];
    for (row, note) in expected.iter().zip(notes) {
        let [index, kind, codec, details, language, title] = row;
        let cells = format!(
            "<tr><td class=\"number\">{index}</td><td>{kind}</td><td>{codec}</td><td>{details}</td>\
             <td>{language}</td><td>{title}</td><td>{note}</td></tr>"
        );
        assert!(dom.contains(&cells), "--aid 2: {cells}\n{dom}");
    }
    // What ffprobe says, for the record: the anamorphic picture's ratios, FFmpeg's AC-3 5.1
    // layout.
    assert_eq!(expected[0][3], "320x240, SAR 64:45 DAR 256:135, yuv420p, 25 fps");
    assert_eq!(expected[2][3], "48000 Hz, 5.1(side), fltp");
    assert!(
        dom.contains("<th>Container</th><td>matroska,webm (Matroska / WebM), "),
        "{dom}"
    );
}

#[test]
fn the_page_gives_the_first_and_last_timecode_as_the_container_counts_them() {
    // ProRes in QuickTime, its timecode track starting at 10:00:00:00 (as a delivery's
    // programme does), 25 frames at 25 fps: its frames carry none of their own.
    #[rustfmt::skip]
    let file = common::fixture("timecode-track.mov", &[
        "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1",
        "-c:v", "prores_ks", "-timecode", "10:00:00:00",
    ]);
    // ffprobe's word for the first frame's, on the video stream.
    let tags = common::ffprobe_entries(&file, "stream_tags=timecode");
    assert_eq!(tags, ["10:00:00:00"]);
    let page = std::env::temp_dir().join(format!("histoplay-timecode-{}.html", std::process::id()));
    write_page(&file, &[], &page);
    let (dom, _) = browse(&page);
    assert!(
        dom.contains(
            "<th>Timecode</th><td>10:00:00:00 to 10:00:00:24 (the container's for its first frame: 10:00:00:00)</td>"
        ),
        "{dom}"
    );
    // The timecode track among the streams, by its fourcc (ffprobe's codec_tag_string).
    assert!(
        dom.contains("<td>data</td><td>tmcd</td><td>timecode 10:00:00:00</td>"),
        "{dom}"
    );
    // From frame 10 on, the first measured is 10:00:00:10.
    write_page(&file, &["--frames", "10.."], &page);
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(html.contains("<td>10:00:00:10 to 10:00:00:24 "), "{html}");
}

#[test]
fn each_events_picture_is_its_own_frame_on_a_timeline_that_does_not_start_at_zero() {
    // MPEG-TS (its timeline starts at 1.4 s and more): 2 s of black, 1 s of green, 3 s of
    // blue; the sound silent from 2 s to 4.5 s into the programme.
    let file = common::fixture(
        "html-colours.ts",
        &[
            "-f",
            "lavfi",
            "-i",
            "color=black:s=320x240:r=25:d=2[a];color=green:s=320x240:r=25:d=1[b];\
             color=blue:s=320x240:r=25:d=3[c];[a][b][c]concat=n=3",
            "-f",
            "lavfi",
            "-i",
            "aevalsrc='if(between(t,2,4.5),0,0.5*sin(2*PI*440*t))':s=48000:d=6",
            "-c:v",
            "libx264",
            "-c:a",
            "mp2",
        ],
    );
    let page = std::env::temp_dir().join(format!("histoplay-colours-{}.html", std::process::id()));
    write_page(&file, &[], &page);
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    // Black and frozen from frame 0 (two events at the same first frame, each pictured), the
    // silence from the first green frame (frame 50, 2 s in), the blue frozen from frame 75.
    let drawn = pictures(&html);
    assert_eq!(drawn.len(), 4, "{html}");
    let dominant = |picture: &image::RgbImage| {
        let sums = picture
            .pixels()
            .fold([0u64; 3], |s, p| [0, 1, 2].map(|c| s[c] + u64::from(p[c])));
        let most = (0..3).max_by_key(|&c| sums[c]).unwrap();
        (mean(picture) < 30.0, most)
    };
    assert!(dominant(&drawn[0]).0, "black");
    assert!(dominant(&drawn[1]).0, "frozen black");
    assert_eq!(dominant(&drawn[2]), (false, 1), "the silence's: green");
    assert_eq!(dominant(&drawn[3]), (false, 2), "frozen blue");
}

#[test]
fn a_file_without_sound_says_so_where_silence_is_asked_for_and_detector_options_keep_stdout_quiet() {
    let file = common::grey_ramp();
    let page = std::env::temp_dir().join(format!("histoplay-silent-{}.html", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("report")
        .arg(&file)
        .args(["--black", "d=1", "--fail-on", "silence>2s", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_file(&page);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The page alone: --black sets what it lists, --events would ask for the lines too.
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "note: '{}' has no sound: its silences are not looked for\n",
            file.display()
        )
    );
    assert!(
        html.contains("data-count=\"0\">0 black, 0 frozen; no sound to find silence in</td>"),
        "{html}"
    );
}
