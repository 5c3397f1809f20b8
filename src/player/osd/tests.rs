use super::*;

/// A paused OSD at full opacity with `messages`, nothing else shown.
fn paused_view(messages: &[Message]) -> OsdView<'_> {
    OsdView {
        title: "",
        position: 0.0,
        duration: 10.0,
        frame: None,
        timecode: None,
        frame_count: None,
        estimated_count: None,
        preview: false,
        paused: true,
        at_end: false,
        speed: 1.0,
        clipping: None,
        hdr: None,
        view: ViewOptions::default(),
        region: None,
        probe: None,
        timeline: None,
        vmaf: None,
        pse: None,
        opacity: 1.0,
        messages,
        stats: None,
        adjustments: None,
        compare: None,
        marks: None,
        graticule: &[],
        live: None,
        meters: None,
        ab_loop: Default::default(),
        loop_file: false,
    }
}

#[test]
fn the_osd_draws_only_glyphs_its_fonts_have() {
    let ctx = egui::Context::default();
    // The fonts load on the first pass; its texture update is not needed here.
    ctx.run_pass(egui::RawInput::default(), |_| {}).textures_delta.clear();
    let font = egui::FontId::proportional(14.0);
    for (paused, at_end) in [(true, true), (true, false), (false, false)] {
        let text = state_text(paused, at_end);
        assert!(ctx.fonts_mut(|f| f.has_glyphs(&font, text)), "{text}");
        for (no_signal, behind) in [(false, false), (true, false), (false, true)] {
            let (text, _) = live_state_text(paused, at_end, no_signal, behind);
            assert!(ctx.fonts_mut(|f| f.has_glyphs(&font, text)), "{text}");
        }
    }
    let hdr = HdrView {
        transfer: Transfer::Pq,
        peak_nits: Some(1000.0),
    };
    let text = hdr_text(&hdr);
    assert_eq!(text, "HDR PQ, 1000 nits ➡ SDR");
    assert!(ctx.fonts_mut(|f| f.has_glyphs(&font, &text)), "{text}");
    assert!(
        !ctx.fonts_mut(|f| f.has_glyph(&font, '‖')),
        "the glyph that rendered as a box"
    );
}

#[test]
fn estimated_frame_numbers_are_marked() {
    let messages = [];
    let view = |frame, frame_count, estimated_count| OsdView {
        frame,
        frame_count,
        estimated_count,
        ..paused_view(&messages)
    };
    let exact = Some(FrameNumber { n: 12, exact: true });
    let estimate = Some(FrameNumber { n: 12345, exact: false });
    assert_eq!(frame_text(&view(exact, Some(300), Some(299))), "frame 12 / 300");
    assert_eq!(
        frame_text(&view(estimate, None, Some(216000))),
        "frame ~12345 / ~216000"
    );
    assert_eq!(frame_text(&view(exact, None, None)), "frame 12");
    assert_eq!(frame_text(&view(None, None, None)), "frame -");
    // A timecode counted by an estimated number is as estimated.
    let tc = crate::video::timecode::Timecode::parse("10:00:01:00").unwrap();
    assert_eq!(panel::timecode_text(tc), "TC 10:00:01:00");
    let estimated = crate::video::timecode::Timecode { estimated: true, ..tc };
    assert_eq!(panel::timecode_text(estimated), "TC ~10:00:01:00");
}

#[test]
fn the_stats_never_cover_the_messages_or_the_bottom_panel() {
    let ctx = egui::Context::default();
    let messages = [Message {
        text: "an-evening-on-the-river-recorded-on-a-phone.mp4: playing from frame 1234".into(),
        error: false,
        until: Instant::now() + Duration::from_secs(60),
    }];
    let stats: Vec<(&'static str, String)> = (0..14)
        .map(|_| {
            (
                "decoder",
                "software, 1920x1080 yuv420p BT.709 limited, h264 at 59.94 fps".to_string(),
            )
        })
        .collect();
    let mut osd = Osd::default();
    let area = |name: &str| ctx.memory(|m| m.area_rect(Id::unique(name)));
    for (width, height) in [
        (1920.0, 1080.0),
        (1280.0, 720.0),
        (960.0, 540.0),
        (640.0, 360.0),
        (420.0, 300.0),
    ] {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(width, height))),
            ..Default::default()
        };
        let view = OsdView {
            stats: Some(stats.clone()),
            ..paused_view(&messages)
        };
        // Areas learn their sizes in the first pass and are placed by them in the next.
        for _ in 0..3 {
            ctx.run_pass(input.clone(), |ctx| {
                osd.show(ctx, &view);
            })
            .textures_delta
            .clear();
        }
        let text = area("osd messages").expect("messages drawn");
        let overlay = area("stats").expect("stats drawn");
        let panel = area("osd").expect("the bottom panel drawn");
        assert!(!text.intersects(overlay), "{width}x{height}: {text:?} and {overlay:?}");
        assert!(
            !panel.intersects(overlay),
            "{width}x{height}: {panel:?} and {overlay:?}"
        );
        for rect in [text, overlay] {
            assert!(
                rect.min.x >= 0.0 && rect.max.x <= width,
                "{width}x{height}: {rect:?} leaves the window"
            );
        }
    }
}

#[test]
fn the_osd_fades_only_when_playing_untouched() {
    let s = Duration::from_secs_f32;
    assert_eq!(opacity(s(0.5), false, false), 1.0);
    assert_eq!(opacity(s(2.0), false, false), 1.0);
    assert!((opacity(s(2.15), false, false) - 0.5).abs() < 0.01);
    assert_eq!(opacity(s(3.0), false, false), 0.0);
    assert_eq!(opacity(s(30.0), true, false), 1.0, "paused it stays");
    assert_eq!(opacity(s(30.0), false, true), 1.0, "dragging it stays");
}
