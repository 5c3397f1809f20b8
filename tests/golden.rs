//! The stable output formats, pinned byte for byte: `hist` (JSON Lines and CSV, whole frames and
//! regions, stills and video), `scope` (waveform, parade, vectorscope) and `compare` on the bundled
//! kitten and sample clip, against files in tests/golden made by the release that fixed them.
//! `HISTOPLAY_GOLDEN_UPDATE=1` writes them anew, for a change of format meant to be made.

mod common;

use std::process::Command;

/// `histoplay args...`'s standard output, which must succeed.
fn output(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(args)
        .current_dir(common::repo_path(""))
        .output()
        .expect("histoplay runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The output of `args` is the golden file `name`, byte for byte.
fn assert_golden(name: &str, args: &[&str]) {
    let got = output(args);
    let path = common::repo_path(&format!("tests/golden/{name}"));
    if std::env::var_os("HISTOPLAY_GOLDEN_UPDATE").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if got != want {
        let diff = path.with_extension("got");
        std::fs::write(&diff, &got).unwrap();
        let first = got
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "{args:?} differs from {} at byte {first} (of {} and {}); the output is in {}",
            path.display(),
            got.len(),
            want.len(),
            diff.display()
        );
    }
}

const KITTEN: &str = "media/kitten.jpg";
const SAMPLE: &str = "media/sample-540p.mp4";

#[test]
fn hist_json_lines_and_csv_are_unchanged() {
    assert_golden("hist-kitten.jsonl", &["hist", KITTEN]);
    assert_golden("hist-kitten.csv", &["hist", KITTEN, "--csv"]);
    assert_golden(
        "hist-kitten-region.jsonl",
        &["hist", KITTEN, "--region", "10,20,100,50", "--bins", "16"],
    );
    let frames = ["hist", SAMPLE, "--frames", "0..3", "--bins", "64"];
    assert_golden("hist-sample-frames.jsonl", &frames);
    assert_golden("hist-sample-frames.csv", &[&frames[..], &["--csv"]].concat());
}

#[test]
fn scope_json_lines_are_unchanged() {
    assert_golden(
        "scope-kitten-waveform.jsonl",
        &["scope", KITTEN, "--kind", "waveform", "--columns", "32", "--bins", "16"],
    );
    assert_golden(
        "scope-kitten-parade-region.jsonl",
        &[
            "scope",
            KITTEN,
            "--kind",
            "parade",
            "--columns",
            "16",
            "--bins",
            "16",
            "--region",
            "0,0,200,100",
        ],
    );
    assert_golden(
        "scope-sample-waveform.jsonl",
        &[
            "scope",
            SAMPLE,
            "--frames",
            "1..3",
            "--kind",
            "waveform",
            "--columns",
            "16",
            "--bins",
            "16",
        ],
    );
    // The vectorscope's 65536 counts (134 KB) are pinned by their digest.
    let vectorscope = output(&["scope", KITTEN, "--kind", "vectorscope"]);
    assert_eq!(vectorscope.len(), 134_488);
    assert_eq!(fnv1a(&vectorscope), FNV_VECTORSCOPE, "the vectorscope's JSON changed");
}

/// The FNV-1a hash of the vectorscope's JSON line as the fixing release wrote it.
const FNV_VECTORSCOPE: u64 = 0x19c0_8bb9_45a8_f04e;

/// 64-bit FNV-1a: a digest with no dependency.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn compare_json_lines_and_csv_are_unchanged() {
    // The sample clip against itself a frame later: every field a real number.
    let pairs = ["compare", SAMPLE, SAMPLE, "--offset", "1", "--frames", "0..3"];
    assert_golden("compare-sample-next-frame.jsonl", &pairs);
    assert_golden("compare-sample-next-frame.csv", &[&pairs[..], &["--csv"]].concat());
}
