//! The sound's part of a report: which file's sound, whether JSON Lines get its 100 ms frames,
//! and each frame's line.

use crate::quit_signals::QuitSignals;

/// The sound's part of a report: its 100 ms frames after the video's, with astats' and
/// ebur128's tags (a QCTools report always; JSON Lines with `--audio`), and its runs beyond the
/// limits on sound (`silence>2s`, `clip>0`).
#[derive(Clone, Copy, Default)]
pub struct AudioReport<'a> {
    /// The file whose sound is reported; None: no sound in the report.
    pub path: Option<&'a std::path::Path>,
    /// JSON Lines get a line per audio frame (`--audio`).
    pub lines: bool,
    /// Ends the sound's pass where it is, the report whole, once a signal has asked to quit.
    pub signals: Option<&'a QuitSignals>,
    /// Which of the file's audio streams is reported (`--aid`).
    pub track: crate::audio::source::AudioTrack,
}

/// `{"audio_frame":K,"pts":s,"duration":d,"astats.1.DC_offset":..,…,"r128.M":..,…}` in
/// ffprobe's order: the values as numbers (null where FFmpeg prints inf or nan).
pub fn audio_line(frame: &crate::audio::qc::AudioFrame) -> String {
    let number = |v: f64| match v.is_finite() {
        true => serde_json::Value::from(v),
        false => serde_json::Value::Null,
    };
    let mut fields = vec![
        ("audio_frame".to_string(), serde_json::Value::from(frame.index)),
        ("pts".to_string(), number(frame.time)),
        ("duration".to_string(), number(frame.duration)),
    ];
    for (key, value) in &frame.astats {
        let v = value.parse::<f64>().map_or(serde_json::Value::Null, number);
        fields.push((key.trim_start_matches("lavfi.").to_string(), v));
    }
    for (name, value) in crate::audio::qc::R128_KEYS.iter().zip(frame.r128.into_iter().flatten()) {
        fields.push((format!("r128.{name}"), number((value * 1000.0).round() / 1000.0)));
    }
    let fields: Vec<String> = fields
        .into_iter()
        .map(|(key, value)| format!("{}:{value}", serde_json::Value::from(key)))
        .collect();
    format!("{{{}}}", fields.join(","))
}

/// Says so where silence is asked for (`--silence`, a silence limit) of a file without sound:
/// no silence found there is no pass.
pub fn note_no_sound(source: &crate::video::source::VideoSource, silence: bool, limits: Option<&super::Limits>) {
    let limited = limits.is_some_and(|l| l.events().iter().any(|e| e.kind == crate::events::EventKind::Silence));
    if (silence || limited) && !source.container().streams.iter().any(|s| s.kind == "audio") {
        eprintln!(
            "note: '{}' has no sound: its silences are not looked for",
            source.info.path.display()
        );
    }
}

/// A live input's sound for its report, where the report has a part of it (`wanted`: its frames
/// in JSON Lines, a QCTools report or a page, its silences, limits on it): its packets tapped as
/// the pictures are read (a live input is read once). An input without sound is said where its
/// sound was asked for; an `--aid` it doesn't have is an error.
pub fn tap_live(
    source: &mut crate::video::source::VideoSource,
    args: &super::Args,
    wanted: bool,
) -> anyhow::Result<Option<crate::video::source::Tapped>> {
    use crate::audio::source::AudioError;
    use crate::video::input::{AudioTrack, NoTrack};
    // (A track asked for by number must be there, as a file's must.)
    if let (AudioTrack::Nth(_), Err(missing)) = (args.aid, source.audio_stream(args.aid)) {
        return Err(AudioError::missing(&source.info.path, missing).into());
    }
    if !wanted {
        return Ok(None);
    }
    match source.tap_audio(args.aid) {
        Ok(tapped) => Ok(Some(tapped)),
        Err(NoTrack::NoAudio) => {
            let limits = args.fail_on.as_ref();
            if args.audio || limits.is_some_and(|l| !l.audio().is_empty()) {
                let e = AudioError::NoAudio(source.info.path.clone());
                eprintln!("note: {e}: the report has no sound");
            }
            note_no_sound(source, args.silence.is_some(), limits);
            Ok(None)
        }
        Err(missing) => Err(AudioError::missing(&source.info.path, missing).into()),
    }
}
