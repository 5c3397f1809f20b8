//! `compare --vmaf`: every frame's VMAF and its features equal libvmaf's own (the oracle: a
//! static FFmpeg built with libvmaf, which `scripts/setup` installs), on real footage at 8 and
//! 10 bits, under each built-in model, for offsets, ranges, files of different lengths and a
//! judged file of another size; and libvmaf's log formats written as libvmaf writes them.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// libvmaf's tolerances the issue holds VMAF to: a frame's score, and each feature.
const VMAF_WITHIN: f64 = 1e-4;
const FEATURE_WITHIN: f64 = 2e-6;

fn oracle() -> PathBuf {
    let path = std::env::var_os("HISTOPLAY_VMAF_FFMPEG")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
            cache.join("histoplay/ffmpeg-libvmaf")
        });
    assert!(
        path.exists(),
        "{}: the VMAF oracle (scripts/setup installs it)",
        path.display()
    );
    path
}

/// Ten frames of the bundled footage at 320x180 (8-bit, or 10-bit), losslessly.
fn reference(bits: u32) -> PathBuf {
    let pix = if bits > 8 { "yuv420p10le" } else { "yuv420p" };
    let sample = common::repo_path("media/sample-540p.mp4");
    common::fixture(
        &format!("vmaf-reference-{bits}.mkv"),
        &[
            "-ss",
            "2",
            "-i",
            sample.to_str().unwrap(),
            "-frames:v",
            "10",
            "-an",
            "-vf",
            &format!("scale=320:180,format={pix}"),
            "-c:v",
            "ffv1",
        ],
    )
}

/// The reference through `chain` (an encode's options, or a filter), as a judged file.
fn judged(name: &str, bits: u32, args: &[&str]) -> PathBuf {
    let reference = reference(bits);
    let mut all = vec!["-i", reference.to_str().unwrap()];
    all.extend_from_slice(args);
    common::fixture(name, &all)
}

fn encode8() -> PathBuf {
    judged(
        "vmaf-encode-8.mkv",
        8,
        &["-c:v", "libx264", "-crf", "36", "-preset", "fast"],
    )
}

fn encode10() -> PathBuf {
    judged(
        "vmaf-encode-10.mkv",
        10,
        &[
            "-c:v",
            "libx265",
            "-crf",
            "34",
            "-pix_fmt",
            "yuv420p10le",
            "-x265-params",
            "log-level=error",
        ],
    )
}

/// Sharpened and grainy: where the NEG model's limits on enhancement change the score.
fn sharpened() -> PathBuf {
    judged(
        "vmaf-sharpened-8.mkv",
        8,
        &["-vf", "unsharp=5:5:1.5,noise=alls=6:allf=t", "-c:v", "ffv1"],
    )
}

/// libvmaf's log of `judged` against `reference` (the filter takes the judged input first),
/// each side through its filter chain first; both given frame-number timestamps so that the
/// filter pairs frame for frame.
fn libvmaf(reference: &Path, judged: &Path, model: &str, judged_chain: &str, reference_chain: &str) -> Value {
    // (A log of its own for each call: tests running at once may judge files of one name.)
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let log = std::env::temp_dir().join(format!(
        "histoplay-libvmaf-{}-{call}-{}.json",
        std::process::id(),
        judged.file_stem().unwrap().to_string_lossy()
    ));
    let stamp = "settb=1/1000,setpts=N*40";
    let graph = format!(
        "[0:v]{judged_chain}{stamp}[d];[1:v]{reference_chain}{stamp}[r];\
         [d][r]libvmaf=model=version={model}:log_fmt=json:log_path={}:n_threads=2:shortest=1",
        log.display()
    );
    let out = Command::new(oracle())
        .args(["-v", "error", "-i"])
        .arg(judged)
        .arg("-i")
        .arg(reference)
        .args(["-lavfi", &graph, "-f", "null", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_file(&log).ok();
    serde_json::from_str(&text).unwrap()
}

/// Runs `histoplay compare` with `args`, writing its VMAF log to a file named `log`; gives the
/// JSON lines and the log.
fn ours(args: &[&str], log: &str) -> (Vec<Value>, Value) {
    // (A file of its own for each call: tests running at once name logs alike.)
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("histoplay-vmaf-{}-{call}-{log}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("compare")
        .args(args)
        .arg("--vmaf-log")
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    (lines, serde_json::from_str(&text).unwrap())
}

/// Our log's frames against libvmaf's, in order, every metric libvmaf logs that we do; and our
/// JSON lines carry the same scores.
fn agree(lines: &[Value], ours: &Value, theirs: &Value) {
    let (mine, libvmaf) = (ours["frames"].as_array().unwrap(), theirs["frames"].as_array().unwrap());
    assert_eq!(mine.len(), libvmaf.len(), "frames");
    assert_eq!(lines.len(), mine.len(), "lines");
    for ((m, l), line) in mine.iter().zip(libvmaf).zip(lines) {
        let metrics = m["metrics"].as_object().unwrap();
        assert_eq!(metrics.len(), 11);
        for (name, value) in metrics {
            let theirs = l["metrics"][name].as_f64();
            let (a, b) = (
                value.as_f64().unwrap(),
                theirs.unwrap_or_else(|| panic!("{name} in {l}")),
            );
            let within = if name == "vmaf" { VMAF_WITHIN } else { FEATURE_WITHIN };
            assert!(
                (a - b).abs() <= within,
                "frame {}: {name} {a} against libvmaf's {b}",
                m["frameNum"]
            );
            // The lines name the features without libvmaf's option suffixes (`_egl_1`).
            let plain = name.strip_suffix("_egl_1").unwrap_or(name);
            assert!((line[plain].as_f64().unwrap() - a).abs() <= 5e-7, "{line}");
        }
        assert_eq!(line["frame"], m["frameNum"]);
    }
    let pooled = |log: &Value, method: &str| log["pooled_metrics"]["vmaf"][method].as_f64().unwrap();
    for method in ["min", "max", "mean", "harmonic_mean"] {
        assert!(
            (pooled(ours, method) - pooled(theirs, method)).abs() <= VMAF_WITHIN,
            "{method}"
        );
    }
}

fn check(reference: &Path, judged: &Path, model: &str) {
    let (r, j) = (reference.to_str().unwrap(), judged.to_str().unwrap());
    let (lines, log) = ours(&[r, j, "--vmaf-model", model], &format!("{model}.json"));
    agree(&lines, &log, &libvmaf(reference, judged, model, "", ""));
    // The GPU pass (above) and the CPU twin (`--cpu`) give the same numbers, to the bit.
    let (cpu, cpu_log) = ours(&[r, j, "--vmaf-model", model, "--cpu"], &format!("{model}-cpu.json"));
    assert_eq!(cpu.len(), lines.len());
    for (c, g) in cpu.iter().zip(&lines) {
        for name in [
            "vmaf",
            "integer_adm2",
            "integer_motion2",
            "integer_vif_scale0",
            "integer_vif_scale3",
        ] {
            assert_eq!(c[name], g[name], "{name}: CPU {c}, GPU {g}");
        }
    }
    assert_eq!(cpu_log["frames"], log["frames"]);
    assert_eq!(cpu_log["pooled_metrics"], log["pooled_metrics"]);
}

#[test]
fn vmaf_of_an_8_bit_encode_is_libvmafs_on_every_frame_under_each_model() {
    let (reference, encode) = (reference(8), encode8());
    for model in ["vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1"] {
        check(&reference, &encode, model);
    }
}

#[test]
fn vmaf_of_a_10_bit_encode_is_libvmafs_on_every_frame() {
    let (reference, encode) = (reference(10), encode10());
    for model in ["vmaf_v0.6.1", "vmaf_v0.6.1neg"] {
        check(&reference, &encode, model);
    }
}

#[test]
fn the_neg_model_gives_sharpening_no_credit_as_libvmaf_does() {
    let (reference, sharp) = (reference(8), sharpened());
    let (r, j) = (reference.to_str().unwrap(), sharp.to_str().unwrap());
    let (plain, plain_log) = ours(&[r, j, "--vmaf"], "plain.json");
    let (neg, neg_log) = ours(&[r, j, "--vmaf-model", "vmaf_v0.6.1neg"], "neg.json");
    agree(&plain, &plain_log, &libvmaf(&reference, &sharp, "vmaf_v0.6.1", "", ""));
    agree(&neg, &neg_log, &libvmaf(&reference, &sharp, "vmaf_v0.6.1neg", "", ""));
    // Enhancement earns VIF and ADM above what NEG allows: the plain model scores higher.
    let mean = |log: &Value| log["pooled_metrics"]["vmaf"]["mean"].as_f64().unwrap();
    assert!(
        mean(&plain_log) > mean(&neg_log) + 1.0,
        "{} {}",
        mean(&plain_log),
        mean(&neg_log)
    );
}

#[test]
fn an_offset_a_range_a_shorter_judged_file_and_another_size_pair_as_libvmaf_pairs_them() {
    let (reference, encode) = (reference(8), encode8());
    let (r, e) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    // Judged two frames later: its first two frames have no partner.
    let (lines, log) = ours(&[r, e, "--vmaf", "--offset", "2"], "offset.json");
    agree(
        &lines,
        &log,
        &libvmaf(&reference, &encode, "vmaf_v0.6.1", "trim=start_frame=2,", ""),
    );
    // A range: motion starts at 0 on the range's first frame, as libvmaf's first frame.
    let (lines, log) = ours(&[r, e, "--vmaf", "--frames", "3..8"], "range.json");
    let trim = "trim=start_frame=3:end_frame=8,";
    let theirs = libvmaf(&reference, &encode, "vmaf_v0.6.1", trim, trim);
    let numbers: Vec<u64> = lines.iter().map(|l| l["frame"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [3, 4, 5, 6, 7]);
    assert_eq!(lines[0]["integer_motion2"].as_f64(), Some(0.0));
    let said = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["compare", r, e, "--vmaf", "--frames", "3..5"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(said.stderr).unwrap();
    assert!(stderr.contains("VMAF: motion starts at 0 on frame 3"), "{stderr}");
    let renumbered = renumber(&log);
    agree(&renumber_lines(&lines), &renumbered, &theirs);
    // A judged file shorter than the reference: the shorter ends the run.
    let short = judged(
        "vmaf-short-8.mkv",
        8,
        &["-frames:v", "6", "-c:v", "libx264", "-crf", "36"],
    );
    let s = short.to_str().unwrap();
    let (lines, log) = ours(&[r, s, "--vmaf"], "short.json");
    assert_eq!(lines.len(), 6);
    agree(&lines, &log, &libvmaf(&reference, &short, "vmaf_v0.6.1", "", ""));
    // A judged file of another size: scaled to the reference's with FFmpeg's bicubic scaler.
    // (libvmaf is given the judged file scaled by the FFmpeg here, with the flags compare's
    // conversion uses, as tests/compare.rs holds it to: the oracle's newer FFmpeg scales a
    // little differently.)
    let small = judged(
        "vmaf-small-8.mkv",
        8,
        &["-vf", "scale=256:144", "-c:v", "libx264", "-crf", "30"],
    );
    let (lines, log) = ours(&[r, small.to_str().unwrap(), "--vmaf"], "small.json");
    let scaled = common::fixture(
        "vmaf-small-scaled-8.mkv",
        &[
            "-i",
            small.to_str().unwrap(),
            "-vf",
            "scale=320:180:flags=bicubic+accurate_rnd+full_chroma_int,format=yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    agree(&lines, &log, &libvmaf(&reference, &scaled, "vmaf_v0.6.1", "", ""));
}

/// A log's frames numbered from 0, as libvmaf numbers a run's.
fn renumber(log: &Value) -> Value {
    let mut log = log.clone();
    for (i, frame) in log["frames"].as_array_mut().unwrap().iter_mut().enumerate() {
        frame["frameNum"] = i.into();
    }
    log
}

fn renumber_lines(lines: &[Value]) -> Vec<Value> {
    let mut lines = lines.to_vec();
    for (i, line) in lines.iter_mut().enumerate() {
        line["frame"] = i.into();
    }
    lines
}

#[test]
fn the_vmaf_log_is_written_in_libvmafs_xml_and_csv_too() {
    let (reference, encode) = (reference(8), encode8());
    let (r, e) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let (_, json) = ours(&[r, e, "--vmaf"], "log.json");
    let run = |name: &str| {
        let path = std::env::temp_dir().join(format!("histoplay-vmaf-{}-{name}", std::process::id()));
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["compare", r, e, "--vmaf-log"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).ok();
        text
    };
    let vmaf = |i: usize| format!("{:.6}", json["frames"][i]["metrics"]["vmaf"].as_f64().unwrap());
    let csv = run("log.csv");
    let mut rows = csv.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    assert_eq!(header[0], "Frame");
    let column = header.iter().position(|h| *h == "vmaf").unwrap();
    let rows: Vec<Vec<&str>> = rows.map(|row| row.split(',').collect()).collect();
    assert_eq!(rows.len(), 10);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row[0], i.to_string());
        assert_eq!(row[column], vmaf(i));
    }
    let xml = run("log.xml");
    assert!(xml.starts_with("<VMAF version=\"histoplay "), "{xml}");
    assert!(
        xml.contains("<params qualityWidth=\"320\" qualityHeight=\"180\" />"),
        "{xml}"
    );
    let frames: Vec<&str> = xml.lines().filter(|l| l.trim_start().starts_with("<frame ")).collect();
    assert_eq!(frames.len(), 10);
    assert!(frames[3].contains("frameNum=\"3\" ") && frames[3].contains(&format!(" vmaf=\"{}\"", vmaf(3))));
    let mean = json["pooled_metrics"]["vmaf"]["mean"].as_f64().unwrap();
    assert!(xml.contains("<metric name=\"vmaf\" min=") && xml.contains(&format!("mean=\"{mean:.6}\"")));
}

#[test]
fn bad_vmaf_models_and_pictures_too_small_are_one_line_errors() {
    let (reference, encode) = (reference(8), encode8());
    let (r, e) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(args.iter().all(|a| *a != "--compare").then_some("compare"))
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: "), "{stderr}");
        stderr
    };
    assert!(run(&[r, e, "--vmaf-model", "vmaf_v9"]).contains("no VMAF model 'vmaf_v9'"));
    let not_a_model = std::env::temp_dir().join(format!("histoplay-not-a-model-{}.json", std::process::id()));
    std::fs::write(&not_a_model, "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\"}}").unwrap();
    let path = format!("path={}", not_a_model.display());
    assert!(run(&[r, e, "--vmaf-model", &path]).contains("is not a VMAF model"));
    // The window's model too, before any window opens.
    assert!(run(&[r, "--compare", e, "--vmaf-model", &path]).contains("is not a VMAF model"));
    std::fs::remove_file(&not_a_model).ok();
    let tiny = common::fixture(
        "vmaf-tiny.mkv",
        &["-f", "lavfi", "-i", "testsrc2=s=32x32:r=25:d=0.2", "-c:v", "ffv1"],
    );
    let t = tiny.to_str().unwrap();
    assert!(run(&[t, t, "--vmaf"]).contains("at least 33x33"));
    // No frame in common: the judged file's ten frames all before the reference's first.
    let none = run(&[r, e, "--vmaf", "--offset", "20"]);
    assert!(none.contains("has a partner"), "{none}");
}

/// `histoplay compare` with `args`: its status, stdout and stderr.
fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("compare")
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

#[test]
fn vmaf_size_measures_both_files_scaled_to_it_as_libvmaf_after_ffmpegs_scaler() {
    let reference = reference(8);
    let small = judged(
        "vmaf-small-8.mkv",
        8,
        &["-vf", "scale=256:144", "-c:v", "libx264", "-crf", "30"],
    );
    // Both scaled by the FFmpeg here with the flags compare's conversion uses (see above).
    let at = |source: &Path, name: &str| {
        common::fixture(
            name,
            &[
                "-i",
                source.to_str().unwrap(),
                "-vf",
                "scale=192:108:flags=bicubic+accurate_rnd+full_chroma_int,format=yuv420p",
                "-c:v",
                "ffv1",
            ],
        )
    };
    let (reference_at, small_at) = (
        at(&reference, "vmaf-reference-192.mkv"),
        at(&small, "vmaf-small-192.mkv"),
    );
    let args = [
        reference.to_str().unwrap(),
        small.to_str().unwrap(),
        "--vmaf-size",
        "192x108",
    ];
    let (lines, log) = ours(&args, "size.json");
    assert_eq!(log["frames"].as_array().unwrap().len(), 10);
    agree(&lines, &log, &libvmaf(&reference_at, &small_at, "vmaf_v0.6.1", "", ""));
    // Without --vmaf-size the same pair is measured at the reference's size: another score.
    let (full, _) = ours(&args[..2], "unsized.json");
    assert!((full[0]["vmaf"].as_f64().unwrap() - lines[0]["vmaf"].as_f64().unwrap()).abs() > 0.01);
    // Both scaled to the size asked: the judged file's other size is no conversion to warn of.
    let (ok, _, stderr) = run(&args);
    assert!(ok && !stderr.contains("converted to"), "{stderr}");
    let (ok, _, stderr) = run(&[args[0], args[1], "--vmaf-size", "192"]);
    assert!(
        !ok && stderr.starts_with("error: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn a_folder_of_encodes_gives_a_line_each_with_libvmafs_pooled_figures_and_a_verdict() {
    let reference = reference(8);
    let folder = std::env::temp_dir().join(format!("histoplay-ladder-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let encodes = [encode8(), sharpened()];
    let names = ["a-crf36.mkv", "b-sharpened.mkv"];
    for (encode, name) in encodes.iter().zip(names) {
        std::fs::copy(encode, folder.join(name)).unwrap();
    }
    std::fs::write(folder.join("c-broken.mp4"), b"not a video").unwrap();
    std::fs::write(folder.join("notes.txt"), b"not judged").unwrap();
    let theirs: Vec<Value> = encodes
        .iter()
        .map(|e| libvmaf(&reference, e, "vmaf_v0.6.1", "", ""))
        .collect();
    let pooled = |log: &Value, method: &str| log["pooled_metrics"]["vmaf"][method].as_f64().unwrap();
    // A limit between the two encodes' means: the first fails it, the second passes.
    let (low, high) = (pooled(&theirs[0], "mean"), pooled(&theirs[1], "mean"));
    assert!(low + 1.0 < high, "{low} {high}");
    let limit = format!("vmaf<{:.3}", (low + high) / 2.0);
    let logs = folder.join("logs");
    let (r, f) = (reference.to_str().unwrap(), folder.to_str().unwrap());
    let (ok, stdout, stderr) = run(&[r, f, "--fail-on", &limit, "--vmaf-log", logs.to_str().unwrap()]);
    assert!(!ok, "a failed limit and a broken file fail the batch: {stderr}");
    let lines: Vec<Value> = stdout.lines().map(common::json).collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    for ((line, log), name) in lines.iter().zip(&theirs).zip(names) {
        assert!(line["judged"].as_str().unwrap().ends_with(name), "{line}");
        assert_eq!(line["frames"], 10);
        assert_eq!(
            (line["width"].as_u64(), line["height"].as_u64()),
            (Some(320), Some(180))
        );
        let bytes = std::fs::metadata(folder.join(name)).unwrap().len();
        assert_eq!(line["bytes"].as_u64(), Some(bytes));
        for (field, method) in [
            ("vmaf_mean", "mean"),
            ("vmaf_harmonic_mean", "harmonic_mean"),
            ("vmaf_min", "min"),
        ] {
            let (a, b) = (line[field].as_f64().unwrap(), pooled(log, method));
            assert!(
                (a - b).abs() <= VMAF_WITHIN,
                "{name}: {field} {a} against libvmaf's {b}"
            );
        }
        // Each encode's log, as a single run writes it.
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(logs.join(format!("{name}.json"))).unwrap()).unwrap();
        assert_eq!(written["frames"].as_array().unwrap().len(), 10);
    }
    assert_eq!(lines[0]["verdict"], "fail");
    assert!(
        lines[0]["failed"][0].as_str().unwrap().starts_with("vmaf "),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1]["verdict"], "pass");
    assert!(lines[2]["judged"].as_str().unwrap().ends_with("c-broken.mp4"));
    assert!(
        lines[2]["error"].as_str().unwrap().contains("c-broken.mp4"),
        "{}",
        lines[2]
    );
    // The batch's PSNR and SSIM are the single run's summary, as FFmpeg prints it.
    let (ok, _, single) = run(&[r, encodes[0].to_str().unwrap()]);
    assert!(ok);
    let average: f64 = single
        .split("average:")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert!((lines[0]["psnr_avg"].as_f64().unwrap() - average).abs() < 1e-6);
    // As CSV, without limits: a header and a row per encode, the broken one with its error.
    let (ok, stdout, _) = run(&[r, f, "--csv", "--vmaf"]);
    assert!(!ok);
    let rows: Vec<Vec<&str>> = stdout.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    let column = |name: &str| rows[0].iter().position(|h| *h == name).unwrap();
    let mean: f64 = rows[2][column("vmaf_mean")].parse().unwrap();
    assert!((mean - high).abs() <= VMAF_WITHIN);
    assert_eq!(rows[1][column("verdict")], "");
    assert!(!rows[3][column("error")].is_empty());
    std::fs::remove_dir_all(&folder).ok();
}

#[test]
fn fail_on_judges_a_single_run_by_its_pooled_figures() {
    let (reference, encode) = (reference(8), encode8());
    let (r, e) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let (ok, _, stderr) = run(&[r, e, "--fail-on", "vmaf<100,psnr<10"]);
    assert!(!ok);
    let fails = stderr.lines().last().unwrap();
    assert!(
        fails.starts_with("fails vmaf ") && fails.ends_with(" < 100"),
        "{stderr}"
    );
    let (ok, _, stderr) = run(&[r, e, "--fail-on", "vmaf-min<1,ssim<0.1"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("VMAF mean:"), "the limit on VMAF measures it: {stderr}");
    let (ok, _, stderr) = run(&[r, e, "--fail-on", "bitrate<3000"]);
    assert!(
        !ok && stderr.starts_with("error: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn vmaf_of_a_4k_pair_is_libvmafs_under_the_4k_model() {
    // Three frames of the footage made 3840x2160, and an encode of them.
    let sample = common::repo_path("media/sample-540p.mp4");
    let reference = common::fixture(
        "vmaf-reference-4k.mkv",
        &[
            "-ss",
            "3",
            "-i",
            sample.to_str().unwrap(),
            "-frames:v",
            "3",
            "-an",
            "-vf",
            "scale=3840:2160:flags=lanczos,format=yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    let encode = common::fixture(
        "vmaf-encode-4k.mkv",
        &[
            "-i",
            reference.to_str().unwrap(),
            "-c:v",
            "libx264",
            "-crf",
            "38",
            "-preset",
            "ultrafast",
        ],
    );
    let (r, e) = (reference.to_str().unwrap(), encode.to_str().unwrap());
    let (lines, log) = ours(&[r, e, "--vmaf-model", "vmaf_4k_v0.6.1"], "4k.json");
    assert_eq!(lines.len(), 3);
    agree(&lines, &log, &libvmaf(&reference, &encode, "vmaf_4k_v0.6.1", "", ""));
}
