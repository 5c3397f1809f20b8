use super::*;

fn interlaced(top_first: bool) -> Fields {
    Fields {
        interlaced: true,
        top_first,
        repeated: false,
    }
}

#[test]
fn filters_parse_as_ffmpeg_writes_them() {
    let filter: Deinterlacer = "yadif=mode=send_field:parity=bff:deint=interlaced".parse().unwrap();
    assert_eq!(
        filter,
        Deinterlacer {
            method: Method::Yadif,
            rate: Rate::Field,
            parity: Parity::Bff,
            only_interlaced: true,
            no_spatial_check: false,
        }
    );
    // Options by position: mode, parity, deint.
    assert_eq!("yadif=1:1:1".parse::<Deinterlacer>().unwrap(), filter);
    // Each filter's own default mode, as FFmpeg's: bwdif a picture for each field, yadif for
    // each frame.
    assert_eq!(
        "bwdif".parse::<Deinterlacer>().unwrap(),
        Deinterlacer {
            rate: Rate::Field,
            ..Deinterlacer::default()
        }
    );
    assert_eq!("yadif".parse::<Deinterlacer>().unwrap().rate, Rate::Frame);
    assert_eq!(
        "yadif=send_frame_nospatial"
            .parse::<Deinterlacer>()
            .unwrap()
            .ffmpeg_filter(),
        "yadif=mode=send_frame_nospatial:parity=auto:deint=all"
    );
    // Numbers as FFmpeg reads them: hexadecimal, with an exponent, rounded to the nearest.
    assert_eq!(
        "yadif=mode=0x1:parity=1e0:deint=0.6".parse::<Deinterlacer>().unwrap(),
        filter
    );
    assert_eq!(
        "yadif=+1:-0:interlaced".parse::<Deinterlacer>().unwrap().parity,
        Parity::Tff
    );
    assert_eq!("yadif=0.5".parse::<Deinterlacer>().unwrap().rate, Rate::Frame);
    assert_eq!("yadif=1.5".parse::<Deinterlacer>().unwrap(), "yadif=2".parse().unwrap());
    for bad in [
        "nnedi",
        "bwdif=mode=twice",
        "bwdif=send_frame_nospatial",
        "bwdif=2",
        "bwdif=mode=1.4",
        "yadif=mode=4",
        "yadif=parity=-1.5",
        "yadif=mode=nan",
        "yadif=mode=inf",
        "yadif=mode=0x",
        "yadif=mode=0x+1",
        "yadif=mode=e1",
        "yadif=0:0:0:0",
        "yadif=speed=1",
    ] {
        assert!(bad.parse::<Deinterlacer>().is_err(), "{bad}");
    }
}

#[test]
fn a_frame_comes_out_once_the_next_is_in() {
    let mut sequence = Sequence::new(Deinterlacer::default());
    assert!(sequence.push(0, Some(0), interlaced(true)).is_empty());
    let first = sequence.push(1, Some(40), interlaced(true));
    // The first frame, between itself and the next, its bottom field made from it alone.
    assert_eq!(
        first,
        vec![Output {
            prev: 0,
            cur: 0,
            next: 1,
            field: Some(FieldJob {
                parity: 0,
                tff: true,
                edge: true,
            }),
            second: false,
            pts: Some(0),
        }]
    );
    let second = sequence.push(2, Some(80), interlaced(true));
    assert_eq!((second[0].prev, second[0].cur, second[0].next), (0, 1, 2));
    assert!(!second[0].field.unwrap().edge);
    let last = sequence.finish();
    assert_eq!((last[0].prev, last[0].cur, last[0].next), (1, 2, 2));
    // Times in half the stream's time base, as FFmpeg's output.
    assert_eq!(last[0].pts, Some(160));
    assert!(sequence.finish().is_empty());
}

#[test]
fn field_rate_gives_each_field_its_time_and_the_last_field_from_its_frame() {
    let filter = Deinterlacer {
        rate: Rate::Field,
        ..Deinterlacer::default()
    };
    let mut sequence = Sequence::new(filter);
    sequence.push(0, Some(0), interlaced(false));
    let out = sequence.push(1, Some(40), interlaced(false));
    // Bottom field first: the bottom field (odd lines) is kept first, the top second.
    let fields: Vec<_> = out.iter().map(|o| (o.field.unwrap().parity, o.second, o.pts)).collect();
    assert_eq!(fields, vec![(1, false, Some(0)), (0, true, Some(40))]);
    let last = sequence.finish();
    let edges: Vec<_> = last.iter().map(|o| (o.field.unwrap().edge, o.pts)).collect();
    // The frame after the last is taken a frame later: its second field half way there.
    assert_eq!(edges, vec![(false, Some(80)), (true, Some(120))]);
}

#[test]
fn auto_passes_progressive_frames_as_they_are() {
    let filter = Deinterlacer {
        rate: Rate::Field,
        only_interlaced: true,
        ..Deinterlacer::default()
    };
    let mut sequence = Sequence::new(filter);
    let progressive = Fields::default();
    sequence.push(0, Some(0), progressive);
    let out = sequence.push(1, Some(1), interlaced(true));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].field, None);
    // The run's first field made is still from its frame alone.
    let out = sequence.push(2, Some(2), interlaced(true));
    assert_eq!(out.len(), 2);
    assert!(out[0].field.unwrap().edge);
    assert!(!out[1].field.unwrap().edge);
    // A frame beside a repeated progressive field passes too (soft telecine).
    let repeated = Fields {
        repeated: true,
        ..progressive
    };
    let out = sequence.push(3, Some(3), repeated);
    assert_eq!(out[0].field, None);
}

#[test]
fn a_single_frame_is_made_from_itself() {
    let filter = Deinterlacer {
        rate: Rate::Field,
        ..Deinterlacer::default()
    };
    let mut sequence = Sequence::new(filter);
    assert!(sequence.push(7, None, interlaced(true)).is_empty());
    let out = sequence.finish();
    assert_eq!(out.len(), 2);
    assert!(out
        .iter()
        .all(|o| (o.prev, o.cur, o.next) == (7, 7, 7) && o.pts.is_none()));
    // FFmpeg's last frame: its first field made as any other, its second from it alone.
    assert_eq!(
        out.iter().map(|o| o.field.unwrap().edge).collect::<Vec<_>>(),
        [false, true]
    );
}

#[test]
fn a_second_fields_time_is_half_way_to_the_next_frame_to_the_nanosecond() {
    let second = |pts: i64, next: i64| Output {
        prev: 0,
        cur: 1,
        next: 2,
        field: None,
        second: true,
        pts: Some(pts + next),
    };
    // Frames at 0.12 s and 0.16 s (a time base of 1/1000): the field between at 0.14 s, as it
    // prints, not 0.13999999999999999.
    let at = second(120, 160).seconds(0.12, 120, (1, 1000));
    assert_eq!(at, 0.14);
    assert_eq!(format!("{at}"), "0.14");
    // A first field is the frame's own time.
    let first = Output {
        second: false,
        ..second(120, 160)
    };
    assert_eq!(first.seconds(0.12, 120, (1, 1000)), 0.12);
}
