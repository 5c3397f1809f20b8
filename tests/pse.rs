//! `histoplay pse`: synthetic clips made from the rules' definitions, each at the edge of one:
//! full-screen flashes at 3 and 4 a second at 25, 30, 50 and 60 fps; 24% and 26% of the screen
//! (edges on the cells' and across them, by a large and a small swing);
//! a 18.7 and a 21.1 cd/m² swing; a darker image at 154.5 and 166.1 cd/m²; two halves flashing
//! in opposite phase (the frame's mean still); a red flash at equal luminance (and WCAG 2.2's
//! measure of it, in u′v′); a PQ clip with a 25 and a 15 cd/m² flash near black; WCAG's 10°
//! field; Ofcom's extended flashing; fields flashing in turn (25 a second in 50i), seen
//! analysed field by field. Each verdict as the rule says, on the GPU and by the CPU twin alike.

mod common;

use common::pse;
use common::JsonExt;
use std::path::PathBuf;
use std::process::Command;

/// A 480x270 FFV1 clip (4:4:4, so that colour edges stay sharp) of `seconds` from the lavfi
/// graph `graph`, at `fps`.
fn clip(name: &str, graph: &str, extra: &[&str]) -> PathBuf {
    let mut args = vec!["-f", "lavfi", "-i", graph, "-c:v", "ffv1"];
    args.extend_from_slice(extra);
    common::fixture(name, &args)
}

/// Full screen between two greys (R'G'B' codes) at `hz` flashes a second.
fn greys(name: &str, dark: u8, bright: u8, hz: f64, fps: u32, seconds: f64) -> PathBuf {
    let graph = format!(
        "color=c=0x{dark:02x}{dark:02x}{dark:02x}:s=480x270:r={fps}:d={seconds},\
         drawbox=x=0:y=0:w=iw:h=ih:color=0x{bright:02x}{bright:02x}{bright:02x}:t=fill:enable='lt(mod(t*{},2),1)',format=yuv444p",
        2.0 * hz
    );
    clip(name, &graph, &[])
}

fn verdict(file: &std::path::Path, args: &[&str]) -> (String, Vec<String>) {
    let (summary, _, code) = pse(file, args);
    let verdict = summary["verdict"].as_str().unwrap().to_string();
    assert_eq!(code, Some(if verdict == "pass" { 0 } else { 1 }), "{summary}");
    let kinds = summary["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect();
    (verdict, kinds)
}

#[test]
fn more_than_three_flashes_a_second_fail_at_every_frame_rate() {
    for fps in [25, 30, 50, 60] {
        let three = greys(&format!("pse-3hz-{fps}.mkv"), 0, 255, 3.0, fps, 2.0);
        assert_eq!(verdict(&three, &[]).0, "pass", "3 Hz at {fps} fps");
        let four = greys(&format!("pse-4hz-{fps}.mkv"), 0, 255, 4.0, fps, 2.0);
        let (v, kinds) = verdict(&four, &[]);
        assert_eq!(
            (v.as_str(), kinds),
            ("fail", vec!["general-flash".to_string()]),
            "4 Hz at {fps} fps"
        );
    }
    let two = greys("pse-2hz-25.mkv", 0, 255, 2.0, 25, 2.0);
    assert_eq!(verdict(&two, &[]).0, "pass");
    // The failure's frames and worst: from the frame the seventh transition of a second came in
    // (3.5 flashes), 4 flashes a second at worst, to the end.
    let four = greys("pse-4hz-25.mkv", 0, 255, 4.0, 25, 2.0);
    let (summary, frames, _) = pse(&four, &["--frames-out"]);
    assert_eq!(frames.len(), 50);
    let failure = &summary["failures"][0];
    assert_eq!(failure["worst"], 4.0);
    let first = failure["frames"][0].as_u64().unwrap();
    assert_eq!(frames[first as usize]["state"], "fail");
    assert_eq!(frames[first as usize - 1]["state"], "warn");
    assert_eq!(frames[first as usize]["flashes"], 3.5);
    assert_eq!(failure["frames"][1], 49);
}

#[test]
fn the_step_is_20_cd_m2_where_the_darker_image_is_under_160() {
    // 200 * (95/255)^2.4 = 18.7 cd/m²; 200 * (100/255)^2.4 = 21.1.
    let small = greys("pse-swing-19.mkv", 0, 95, 5.0, 25, 2.0);
    assert_eq!(verdict(&small, &[]).0, "pass");
    let large = greys("pse-swing-21.mkv", 0, 100, 5.0, 25, 2.0);
    assert_eq!(verdict(&large, &[]).0, "fail");
    // A darker image at 154.5 cd/m² (code 229) against white flashes; at 166.1 (236) it doesn't.
    let under = greys("pse-dark-155.mkv", 229, 255, 5.0, 25, 2.0);
    assert_eq!(verdict(&under, &[]).0, "fail");
    let over = greys("pse-dark-165.mkv", 236, 255, 5.0, 25, 2.0);
    assert_eq!(verdict(&over, &[]).0, "pass");
}

#[test]
fn the_area_is_a_quarter_of_the_screen_and_opposite_phases_add_up() {
    // A band of 115 of 480 columns (23.96%) flashing at 5 Hz, then one of 125 (26.04%).
    let band = |name: &str, width: u32| {
        let graph = format!(
            "color=c=black:s=480x270:r=25:d=2,drawbox=x=0:y=0:w={width}:h=ih:color=white:t=fill:enable='lt(mod(t*10,2),1)',format=yuv444p"
        );
        clip(name, &graph, &[])
    };
    assert_eq!(verdict(&band("pse-band-24.mkv", 115), &[]).0, "pass");
    assert_eq!(verdict(&band("pse-band-26.mkv", 125), &[]).0, "fail");
    // Boxes whose edges cut across cells (of 5 pixels here): 243x128 (24.00%) and 234x144
    // (26.00%), flashing at 5 Hz by 200 cd/m² (where a cell a tenth covered moves by the step)
    // and by 25.6 (where a cell three quarters covered moves by less): the area is measured
    // to the share of each edge cell the flash covers.
    let boxed = |name: &str, [x, y, w, h]: [u32; 4], bright: u32| {
        let graph = format!(
            "color=c=black:s=480x270:r=25:d=2,format=yuv444p,\
             geq=lum='if(lt(mod(N\\,5)\\,3)*between(X\\,{x}\\,{})*between(Y\\,{y}\\,{})\\,{bright}\\,16)':cb=128:cr=128",
            x + w - 1,
            y + h - 1
        );
        clip(name, &graph, &[])
    };
    for bright in [235, 109] {
        let small = boxed(&format!("pse-box-24-{bright}.mkv"), [37, 61, 243, 128], bright);
        let large = boxed(&format!("pse-box-26-{bright}.mkv"), [43, 67, 234, 144], bright);
        for args in [&[][..], &["--cpu"]] {
            assert_eq!(verdict(&small, args).0, "pass", "24% by {bright} {args:?}");
            assert_eq!(verdict(&large, args).0, "fail", "26% by {bright} {args:?}");
        }
        let (_, frames, _) = pse(&small, &["--frames-out"]);
        let flash = frames[5]["flash"].as_f64().unwrap();
        assert!((flash - 0.24).abs() < 0.002, "{}", frames[5]);
    }
    // The same boxes black and white on a white screen (6.25 Hz): an edge cell's light moves
    // between the white and a little under it, its darker state over 160 cd/m², yet a share of
    // it flashes.
    for (name, [x, y, w, h], expected) in [
        ("pse-box-24-on-white.mkv", [37, 61, 243, 128], "pass"),
        ("pse-box-26-on-white.mkv", [43, 67, 234, 144], "fail"),
    ] {
        let graph = format!(
            "color=c=black:s=480x270:r=25:d=2,format=yuv444p,\
             geq=lum='if(between(X\\,{x}\\,{})*between(Y\\,{y}\\,{})\\,if(lt(mod(N\\,4)\\,2)\\,16\\,235)\\,235)':cb=128:cr=128",
            x + w - 1,
            y + h - 1
        );
        assert_eq!(verdict(&clip(name, &graph, &[]), &["--cpu"]).0, expected, "{name}");
    }
    // A box of 40% of the screen in a checkerboard of one cell's squares, all flashing at 5 Hz:
    // the dark squares between 140 and 165 cd/m² (luma 205 and 218: transitions), the light
    // ones between 165 and 189 (218 and 230: the darker over 160, no transition). The light
    // squares, beside the dark ones and moving with them, are not their edges: 20% flashes.
    let graph = "color=c=black:s=480x270:r=25:d=2,format=yuv444p,\
                 geq=lum='if(between(X\\,120\\,359)*between(Y\\,28\\,242)\\,\
                 if(eq(mod(floor(X/5)+floor(Y/5)\\,2)\\,0)\\,if(lt(mod(N\\,5)\\,3)\\,205\\,218)\\,\
                 if(lt(mod(N\\,5)\\,3)\\,218\\,230))\\,16)':cb=128:cr=128";
    let checks = clip("pse-checks-half-exempt.mkv", graph, &[]);
    for args in [&[][..], &["--cpu"]] {
        assert_eq!(verdict(&checks, args).0, "pass", "{args:?}");
    }
    // Two halves in opposite phase: the frame's mean never moves; each half flashes.
    let graph = "color=c=black:s=480x270:r=25:d=2,\
                 drawbox=x=0:y=0:w=240:h=ih:color=white:t=fill:enable='lt(mod(t*10,2),1)',\
                 drawbox=x=240:y=0:w=240:h=ih:color=white:t=fill:enable='gte(mod(t*10,2),1)',format=yuv444p";
    let halves = clip("pse-halves.mkv", graph, &[]);
    let (v, kinds) = verdict(&halves, &[]);
    assert_eq!((v.as_str(), kinds), ("fail", vec!["general-flash".to_string()]));
}

#[test]
fn a_red_flash_at_equal_luminance_fails_as_red_by_either_measure() {
    // Saturated red (42.5 cd/m²) against the grey of the same luminance (code 134: 42.7).
    let graph = "color=c=0x868686:s=480x270:r=25:d=2,\
                 drawbox=x=0:y=0:w=iw:h=ih:color=0xff0000:t=fill:enable='lt(mod(t*10,2),1)',format=yuv444p";
    let red = clip("pse-red.mkv", graph, &[]);
    let (v, kinds) = verdict(&red, &[]);
    assert_eq!((v.as_str(), kinds), ("fail", vec!["red-flash".to_string()]));
    // WCAG 2.2's measure: from saturated red to grey is more than 0.2 in u′v′ (0.451, 0.523
    // against D65's 0.198, 0.468), so it fails as red too.
    let (v, kinds) = verdict(&red, &["--standard", "wcag"]);
    assert_eq!((v.as_str(), kinds), ("fail", vec!["red-flash".to_string()]));
    // Orange (0xff8000: R/(R+G+B) 0.82 in linear light, but at u′v′ (0.320, 0.539), 0.14
    // from the grey) against the grey: no red flash under WCAG 2.2.
    let graph = "color=c=0x868686:s=480x270:r=25:d=2,\
                 drawbox=x=0:y=0:w=iw:h=ih:color=0xff8000:t=fill:enable='lt(mod(t*10,2),1)',format=yuv444p";
    let orange = clip("pse-orange.mkv", graph, &[]);
    let (_, kinds) = verdict(&orange, &["--standard", "wcag"]);
    assert!(!kinds.contains(&"red-flash".to_string()), "{kinds:?}");
    // R'G'B' 255, 104, 104 (red 81.1% of the light) and 255, 110, 110 (79.0%) at 6.25 Hz: the
    // saturated red comes and goes, but (R - G - B) x 320 moves by 10.7 and the light by 2.6
    // cd/m²: no flash of either kind.
    let graph = "color=c=black:s=480x270:r=25:d=2,format=gbrp,\
                 geq=r=255:g='if(lt(mod(N\\,4)\\,2)\\,104\\,110)':b='if(lt(mod(N\\,4)\\,2)\\,104\\,110)'";
    let edge = clip("pse-red-at-80.mkv", graph, &[]);
    assert_eq!(verdict(&edge, &[]), ("pass".to_string(), vec![]));
    assert_eq!(verdict(&edge, &["--cpu"]), ("pass".to_string(), vec![]));
    // The same red at 81%, then 79%, then the grey of equal luminance for three frames: the
    // excursion from saturated red goes on through the frame under 80% and ends at the grey,
    // R - G - B moving by over 300: a red flash every 5 frames.
    let graph = "color=c=black:s=480x270:r=25:d=2,format=gbrp,\
                 geq=r='if(lt(mod(N\\,5)\\,2)\\,255\\,155)':\
                 g='if(eq(mod(N\\,5)\\,0)\\,104\\,if(eq(mod(N\\,5)\\,1)\\,110\\,155))':\
                 b='if(eq(mod(N\\,5)\\,0)\\,104\\,if(eq(mod(N\\,5)\\,1)\\,110\\,155))'";
    let through = clip("pse-red-through-79.mkv", graph, &[]);
    for args in [&[][..], &["--cpu"]] {
        assert_eq!(
            verdict(&through, args),
            ("fail".to_string(), vec!["red-flash".to_string()])
        );
    }
}

#[test]
fn a_pq_flash_near_black_is_measured_in_its_own_light() {
    // PQ codes (10-bit, limited): 394 is 25 cd/m², 355 is 15 cd/m², 64 black.
    let pq = |name: &str, bright: u32| {
        let graph = format!(
            "color=c=black:s=480x270:r=25:d=2,format=yuv444p10le,geq=lum='if(lt(mod(T*10,2),1),{bright},64)':cb=512:cr=512"
        );
        clip(
            name,
            &graph,
            &[
                "-color_trc",
                "smpte2084",
                "-color_primaries",
                "bt2020",
                "-colorspace",
                "bt2020nc",
            ],
        )
    };
    assert_eq!(verdict(&pq("pse-pq-25.mkv", 394), &[]).0, "fail");
    assert_eq!(verdict(&pq("pse-pq-15.mkv", 355), &[]).0, "pass");
}

#[test]
fn an_hlg_flash_is_measured_through_the_ootf_of_each_pixels_own_luminance() {
    // BT.2020 blue alone, HLG, flashing with black (10-bit limited Y'CbCr codes). BT.2100's
    // OOTF takes the gain from the pixel's scene luminance: Y'CbCr 110/908/480 is B' 0.884,
    // scene light 0.533, 1000·(0.0593·0.533)^1.2 = 15.9 cd/m², under the 20 cd/m² step (the
    // OOTF on each channel alone would make it 0.0593·1000·0.533^1.2 = 27.9, a flash);
    // 115/947/477 is B' 0.972, 28 cd/m²: a flash.
    let hlg = |name: &str, [y, cb, cr]: [u32; 3]| {
        let graph = format!(
            "color=c=black:s=480x270:r=25:d=2,format=yuv444p10le,\
             geq=lum='if(lt(mod(T*10,2),1),{y},64)':cb='if(lt(mod(T*10,2),1),{cb},512)':cr='if(lt(mod(T*10,2),1),{cr},512)'"
        );
        clip(
            name,
            &graph,
            &[
                "-color_trc",
                "arib-std-b67",
                "-color_primaries",
                "bt2020",
                "-colorspace",
                "bt2020nc",
            ],
        )
    };
    assert_eq!(verdict(&hlg("pse-hlg-blue-16.mkv", [110, 908, 480]), &[]).0, "pass");
    assert_eq!(verdict(&hlg("pse-hlg-blue-28.mkv", [115, 947, 477]), &[]).0, "fail");
    // And the GPU's light is the CPU twin's, frame for frame.
    let file = hlg("pse-hlg-blue-28.mkv", [115, 947, 477]);
    let (gpu_summary, gpu, _) = pse(&file, &["--frames-out"]);
    let (cpu_summary, cpu, _) = pse(&file, &["--frames-out", "--cpu"]);
    assert_eq!((gpu, gpu_summary), (cpu, cpu_summary));
}

#[test]
fn wcag_judges_any_ten_degree_field_and_ofcom_extended_flashing() {
    // A box of 84x48 flashing: 3.1% of the screen, under BT.1702's quarter, but 28% of a 10°
    // field (a third by a third of the screen: 160x90) for WCAG.
    let graph = "color=c=black:s=480x270:r=25:d=2,\
                 drawbox=x=200:y=90:w=84:h=48:color=white:t=fill:enable='lt(mod(t*10,2),1)',format=yuv444p";
    let small = clip("pse-field.mkv", graph, &[]);
    assert_eq!(verdict(&small, &[]).0, "pass");
    assert_eq!(verdict(&small, &["--standard", "wcag"]).0, "fail");
    // 2.5 flashes a second for 6 s: near the limit throughout, which only Ofcom fails.
    let steady = greys("pse-extended.mkv", 0, 255, 2.5, 25, 6.0);
    assert_eq!(verdict(&steady, &[]).0, "pass");
    let (v, kinds) = verdict(&steady, &["--standard", "ofcom"]);
    assert_eq!((v.as_str(), kinds), ("fail", vec!["extended".to_string()]));
}

/// An interlaced clip (MPEG-2, fields flagged `scan` first) whose fields alternate between
/// black and white: each frame the same combed picture, 25 flashes a second field to field.
fn field_flashes(scan: &str, top: &str) -> PathBuf {
    let graph = "color=c=black:s=320x240:r=50:d=2,\
                 drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='eq(mod(n,2),0)',format=yuv420p";
    let name = format!("pse-field-flashes-{scan}.mkv");
    let filter = format!("interlace=scan={scan}:lowpass=0");
    let args = [
        "-f",
        "lavfi",
        "-i",
        graph,
        "-vf",
        &filter,
        "-c:v",
        "mpeg2video",
        "-q:v",
        "2",
        "-flags",
        "+ilme+ildct",
        "-top",
        top,
    ];
    common::fixture(&name, &args)
}

#[test]
fn fields_are_analysed_in_turn_as_an_interlaced_display_shows_them() {
    for (scan, top, first) in [("tff", "1", "top"), ("bff", "0", "bottom")] {
        let file = field_flashes(scan, top);
        // As frames: one combed picture throughout, no flash (its lines are stripes), and a
        // note says how to analyse its fields.
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .arg("pse")
            .arg(&file)
            .output()
            .unwrap();
        let summary = common::json(String::from_utf8_lossy(&out.stdout).trim());
        assert_eq!(summary["frames"], 50);
        let kinds: Vec<&str> = summary["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert!(!kinds.contains(&"general-flash"), "{summary}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("is interlaced (from frame 0): each frame is analysed as one picture (--fields"),
            "{err}"
        );
        // Field by field: 25 flashes a second over the whole screen, and no stripes.
        let (summary, pictures, code) = pse(&file, &["--fields", "--frames-out"]);
        assert_eq!(code, Some(1));
        assert_eq!(summary["frames"], 100);
        let failures = summary["failures"].as_array().unwrap();
        assert_eq!(failures.len(), 1, "{summary}");
        assert_eq!(failures[0]["kind"], "general-flash");
        assert_eq!(failures[0]["worst"], 25.0);
        assert_eq!(failures[0]["frames"][1], 99);
        // Each frame's fields the earlier first, half a frame apart, numbered 2K and 2K + 1.
        let start = pictures[0]["pts"].as_f64().unwrap();
        let order: Vec<(u64, String, f64)> = pictures[..4]
            .iter()
            .map(|p| {
                let at = p["pts"].as_f64().unwrap() - start;
                (
                    p["frame"].u64(),
                    p["field"].as_str().unwrap().to_string(),
                    (at * 1e6).round() / 1e6,
                )
            })
            .collect();
        let second = if first == "top" { "bottom" } else { "top" };
        assert_eq!(
            order,
            [
                (0, first.to_string(), 0.0),
                (1, second.to_string(), 0.02),
                (2, first.to_string(), 0.04),
                (3, second.to_string(), 0.06)
            ],
            "{scan}"
        );
        assert!(pictures.iter().all(|p| p["pattern"] == 0.0), "{scan}");
        // The CPU twin's fields alike.
        let (cpu_summary, cpu, _) = pse(&file, &["--fields", "--frames-out", "--cpu"]);
        assert_eq!((cpu_summary, cpu), (summary, pictures), "{scan}");
    }
    // The order is each frame's own, whatever the container says (here progressive).
    let relabelled = common::fixture(
        "pse-field-flashes-bff-as-progressive.mkv",
        &[
            "-i",
            field_flashes("bff", "0").to_str().unwrap(),
            "-c",
            "copy",
            "-field_order",
            "progressive",
        ],
    );
    let (_, pictures, _) = pse(&relabelled, &["--fields", "--frames-out", "--frames", "0..1"]);
    let fields: Vec<&str> = pictures.iter().map(|p| p["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["bottom", "top"]);
    // `report --pse` says so too; deinterlaced a picture a field, a run ends a field's time
    // after its last picture.
    let file = field_flashes("tff", "1");
    let report = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["report", "--pse"])
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(common::json).collect();
        (lines, String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (_, err) = report(&[]);
    assert!(
        err.contains("is interlaced (from frame 0): --pse analyses each frame as one picture"),
        "{err}"
    );
    let (lines, err) = report(&["--deinterlace", "yes", "--deinterlacer", "bwdif=mode=send_field"]);
    assert_eq!(lines.len(), 100);
    assert!(!err.contains("is interlaced"), "{err}");
    let last = lines.iter().rev().find(|l| l["pse_state"] == "fail").unwrap();
    let end = last["pts"].as_f64().unwrap() + 0.02;
    assert!(err.contains(&format!("-{end:.3} s)")), "{end}: {err}");
    // Deinterlacing only the frames flagged interlaced, progressive frames pass whole, each a
    // frame long: stripes for just half a second fail as they do undeinterlaced.
    let stripes = common::fixture(
        "pse-stripes-half-second-30.mkv",
        &[
            "-f",
            "lavfi",
            "-i",
            "nullsrc=s=160x120:r=30:d=1.5,geq=lum='if(lt(N,15),if(lt(mod(X,16),8),235,16),16)':cb=128:cr=128,format=yuv420p",
            "-c:v",
            "ffv1",
        ],
    );
    let runs = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["report", "--pse", "--cpu"])
            .arg(&stripes)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        err.lines()
            .filter(|l| l.starts_with("pse:"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let whole = runs(&[]);
    assert_eq!(whole.len(), 1, "{whole:?}");
    assert!(whole[0].starts_with("pse:pattern (bt1702): frames 0-"), "{whole:?}");
    assert!(whole[0].contains("(0.000-0.500 s)"), "{whole:?}");
    // (At field rate a frame passed whole is picture 2K: the run's times are the same.)
    let auto = runs(&["--deinterlace", "auto"]);
    assert_eq!(auto.len(), 1, "{auto:?}");
    assert!(
        auto[0].starts_with("pse:pattern (bt1702): frames 0-28 (0.000-0.500 s)"),
        "{auto:?}"
    );
}

#[test]
fn the_cpu_twin_gives_every_frame_the_gpus_findings() {
    let halves = clip(
        "pse-halves.mkv",
        "color=c=black:s=480x270:r=25:d=2,\
         drawbox=x=0:y=0:w=240:h=ih:color=white:t=fill:enable='lt(mod(t*10,2),1)',\
         drawbox=x=240:y=0:w=240:h=ih:color=white:t=fill:enable='gte(mod(t*10,2),1)',format=yuv444p",
        &[],
    );
    let red = clip(
        "pse-red.mkv",
        "color=c=0x868686:s=480x270:r=25:d=2,\
         drawbox=x=0:y=0:w=iw:h=ih:color=0xff0000:t=fill:enable='lt(mod(t*10,2),1)',format=yuv444p",
        &[],
    );
    for file in [halves, red] {
        let (gpu_summary, gpu, _) = pse(&file, &["--frames-out"]);
        let (cpu_summary, cpu, _) = pse(&file, &["--frames-out", "--cpu"]);
        assert_eq!(gpu, cpu);
        assert_eq!(gpu_summary, cpu_summary);
    }
}

/// The pass's cells and stripes equal its CPU twin's, word for word (`bench` checks them before
/// it times the pass, and fails on a difference), where it reads four pixels a load (a width
/// and cells of multiples of four) and where it reads one (the rest), at 8 and 10 bits, PQ and
/// HLG: on bench's picture at three sizes, and on pictures of busy stripes (periods of 2 to 9
/// pixels over grain and a step in brightness: lines of two words of the masks and more,
/// crossed within words and across their ends, with pixels on neither side of the mean
/// between); and where a block has more words of lines than the pass has invocations, the
/// words past the last whole round cut into pieces of 16, 8 and 4 pixels (3000x1700,
/// 2560x1440, 3840x2160), and at 7680x4320 lines longer than a chunk of the masks (crossings
/// followed from one chunk to the next), two whole rounds, and pieces in the blocks of the
/// last row.
#[test]
fn the_pass_reads_pixels_four_at_a_time_or_one_at_a_time_as_the_twin_counts_them() {
    let busy = |size: &str| {
        common::fixture(
            &format!("pse-busy-{size}.png"),
            &[
                "-f",
                "lavfi",
                "-i",
                &format!(
                    "nullsrc=s={size},format=gray,geq=lum='clip(40+150*gt(sin(X*6.283/(2+mod(floor(Y/23),8))),0.2)\
                     +90*gt(sin(Y*6.283/(3+mod(floor(X/37),7))),0.5)*lt(X,W/2)+30*gt(Y,H/2)+random(1)*25,0,255)',\
                     format=rgb24"
                ),
                "-frames:v",
                "1",
            ],
        )
    };
    let runs = ["384x216", "768x431", "400x226", "3000x1700", "7680x4320"]
        .map(|size| (size.to_string(), vec!["--size".to_string(), size.to_string()]))
        .into_iter()
        .chain(
            ["1536x864", "1000x563", "2560x1440", "3840x2160"]
                .map(|size| (format!("busy {size}"), vec![busy(size).display().to_string()])),
        );
    for (what, args) in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
            .args(["bench", "--only", "qc", "--iters", "1"])
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{what}: {}{text}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rows = text
            .lines()
            .filter(|l| l.starts_with("pse: cell light and stripes"))
            .count();
        assert_eq!(rows, 3, "{what}: {text}");
    }
}

#[test]
fn bad_input_is_a_one_line_error() {
    let sound = common::fixture(
        "pse-sound-only.wav",
        &["-f", "lavfi", "-i", "sine=d=1", "-c:a", "pcm_s16le"],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("pse")
        .arg(&sound)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains("video"), "{stderr}");
    // A song's cover (an attached picture) is no programme.
    let song = common::song_with_cover();
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .arg("pse")
        .arg(&song)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: '{}' has no video stream: its one picture is its cover (an attached picture)\n",
            song.display()
        )
    );
    let any = greys("pse-2hz-25.mkv", 0, 255, 2.0, 25, 2.0);
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["pse", "--standard", "itu"])
        .arg(&any)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'itu'"));
}

#[test]
fn a_signal_stops_the_analysis_with_the_verdict_of_the_frames_read_and_says_so() {
    use std::io::BufRead;
    let long = common::long_clip();
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["pse", "--cpu", "--frames-out"])
        .arg(&long)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    // Ten frames analysed (of 6000), then SIGINT.
    for _ in 0..10 {
        lines.next().unwrap().unwrap();
    }
    assert!(Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let out = common::output_of(&mut child);
    assert_eq!(out.status.code(), Some(130));
    let summary = common::json(rest.last().unwrap());
    assert_eq!(summary["verdict"], "pass");
    let frames = summary["frames"].u64();
    assert!((10..6000).contains(&frames), "{frames}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let (last, seconds) = (frames - 1, (frames - 1) as f64 / 25.0);
    assert_eq!(
        stderr,
        format!("warning: stopped by a signal after frame {last} ({seconds:.3} s): the verdict is of the {frames} frames analysed\n")
    );
}

/// `command` (a `report --pse`) fails, each frame's line carrying `pse --frames-out`'s
/// figures (`frames`) and stderr listing the failure `summary` gives first.
fn assert_report_is_pses(mut command: Command, summary: &serde_json::Value, frames: &[serde_json::Value]) {
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .collect();
    assert_eq!(lines.len(), frames.len());
    for (line, frame) in lines.iter().zip(frames) {
        assert_eq!(line["pse_flashes"], frame["flashes"]);
        assert_eq!(line["pse_area"], frame["area"]);
        assert_eq!(line["pse_state"], frame["state"]);
    }
    let failure = &summary["failures"][0];
    let stderr = String::from_utf8_lossy(&out.stderr);
    let listed = format!(
        "pse:general-flash (bt1702): frames {}-{}",
        failure["frames"][0], failure["frames"][1]
    );
    assert!(stderr.contains(&listed), "{stderr}");
}

#[test]
fn report_pse_adds_each_frames_figures_and_fails_on_its_runs() {
    let four = greys("pse-4hz-25.mkv", 0, 255, 4.0, 25, 2.0);
    let (summary, frames, _) = pse(&four, &["--frames-out"]);
    let alerts = std::env::temp_dir().join(format!("histoplay-pse-alerts-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&alerts);
    for cpu in [false, true] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
        command.args(["report", "--pse"]).arg(&four);
        if cpu {
            command.arg("--cpu");
        } else {
            command.arg("--fail-on").arg("YMAX>255").arg("--alert-log").arg(&alerts);
        }
        assert_report_is_pses(command, &summary, &frames);
    }
    let logged = std::fs::read_to_string(&alerts).unwrap();
    let _ = std::fs::remove_file(&alerts);
    assert!(logged.contains("\"limit\":\"pse:general-flash (bt1702)\""), "{logged}");
}

#[test]
fn report_pse_of_rgb_video_reads_its_picture_as_pse_does() {
    // R'G'B' is measured as FFmpeg converts it into Y'CbCr; the analysis reads the picture.
    let graph = "color=c=0x101010:s=320x180:r=25:d=2,\
                 drawbox=x=0:y=0:w=iw:h=ih/2:color=0xf0f0f0:t=fill:enable='lt(mod(t*8,2),1)',format=rgb24";
    let rgb = clip("pse-4hz-rgb.mkv", graph, &[]);
    let (summary, frames, code) = pse(&rgb, &["--frames-out"]);
    assert_eq!(code, Some(1), "{summary}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
    command.args(["report", "--pse"]).arg(&rgb);
    assert_report_is_pses(command, &summary, &frames);
    assert!(frames.iter().any(|f| f["state"] == "fail"));
    // With idet (as a page and a QCTools report have it), which holds each frame back for the
    // one after it, the picture read is still each frame's own.
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--pse", "--idet"])
        .arg(&rgb)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(common::json)
        .filter(|l| l.get("pse_state").is_some())
        .collect();
    assert_eq!(lines.len(), frames.len());
    for (line, frame) in lines.iter().zip(&frames) {
        assert_eq!(
            (&line["pse_flashes"], &line["pse_area"], &line["pse_state"]),
            (&frame["flashes"], &frame["area"], &frame["state"])
        );
    }
    // Y'CbCr 4:1:1 (DV's) is measured as decoded; the analysis reads the picture the upload
    // makes of it, as `pse` does.
    let dv = clip("pse-4hz-411.mkv", &graph.replace("format=rgb24", "format=yuv411p"), &[]);
    let (summary, frames, code) = pse(&dv, &["--frames-out"]);
    assert_eq!(code, Some(1), "{summary}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_histoplay"));
    command.args(["report", "--pse"]).arg(&dv);
    assert_report_is_pses(command, &summary, &frames);
    // Deinterlaced or split, the picture as decoded is not what is measured.
    let out = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["report", "--pse", "--deinterlace", "yes"])
        .arg(&rgb)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.starts_with("error: --pse of"),
        "{stderr}"
    );
}

#[test]
fn a_piped_stream_is_warned_of_as_a_failure_starts_and_judged_as_the_file_is() {
    let four = greys("pse-4hz-25.mkv", 0, 255, 4.0, 25, 2.0);
    let (file_summary, _, _) = pse(&four, &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_histoplay"))
        .args(["pse", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(&four).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
    let out = common::output_of(&mut child);
    writer.join().unwrap().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let summary = common::json(String::from_utf8(out.stdout).unwrap().lines().last().unwrap());
    assert_eq!(summary, file_summary);
    // Told as it starts (frame 22, the seventh transition in a second); it runs on to the
    // stream's end, where the verdict lists it.
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("warning: general-flash fails from 0.880 s (frame 22)"),
        "{stderr}"
    );
}
