//! Where chapter steps go, and the A-B loop's points: small pure rules playback applies.

/// Where mpv's `add chapter N` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChapterTarget {
    /// The start of this chapter.
    Chapter(usize),
    /// Back before the first chapter: the start of the file.
    Start,
    /// Past the last chapter: nowhere.
    None,
}

/// The chapter `step` chapters from the one playing at `position` (chapter starts in seconds
/// from the start, in order). The chapter playing is the last one started, with a little
/// slack for a seek that landed just short of its start.
pub fn chapter_target(starts: &[f64], position: f64, step: i32) -> ChapterTarget {
    let current = starts
        .iter()
        .rposition(|&s| s <= position + 0.05)
        .map_or(-1, |i| i as i64);
    let target = current + i64::from(step);
    match usize::try_from(target) {
        Ok(i) if i < starts.len() => ChapterTarget::Chapter(i),
        Ok(_) => ChapterTarget::None,
        Err(_) => ChapterTarget::Start,
    }
}

/// A-B loop points (`l`): set A, then B, then clear. Playback that passes B goes back to A;
/// seeking past B does not loop, as in mpv.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AbLoop {
    pub a: Option<f64>,
    pub b: Option<f64>,
}

impl AbLoop {
    /// The next state of `l` pressed at `position`.
    pub fn next(self, position: f64) -> Self {
        match (self.a, self.b) {
            (None, _) => Self {
                a: Some(position),
                b: None,
            },
            (Some(a), None) => Self {
                a: Some(a.min(position)),
                b: Some(a.max(position)),
            },
            (Some(_), Some(_)) => Self::default(),
        }
    }

    /// The loop's span once both points are set and apart.
    pub fn span(self) -> Option<(f64, f64)> {
        self.a.zip(self.b).filter(|(a, b)| b > a)
    }
}
