//! libvmaf 3.2.0 `integer_motion` (feature extractor "motion"), C reference path.
//!
//! Source: `libvmaf/src/feature/integer_motion.c` (+ `integer_motion.h`,
//! `motion_blend_tools.h`).
//!
//! 3.2.0 no longer blurs each frame and subtracts the blurred frames: its "pipelined v2"
//! motion blurs the *difference* `prev - cur` of the raw luma planes (separable 5-tap
//! filter, vertical pass first, mirrored borders, integer rounding after each pass) and sums
//! the absolute values.  So the state carried from frame to frame is the previous raw
//! reference luma, not a blurred plane.
//!
//! Per frame `i` libvmaf writes `VMAF_integer_feature_motion_sad_score` (what this module calls
//! `sad`): 0 for `i < min_idx`, else `min(sad_int / 256 / (w*h) * fps_weight, max_val)`.
//! At flush it derives `motion2` and `motion3` from the whole run of SAD scores; see
//! [`Motion`] for the rules.

use super::luma::Luma;

/// The 5 taps of the motion blur (`integer_motion.h`); they sum to 65536.
pub const FILTER: [i64; 5] = [3571, 16004, 26386, 16004, 3571];

/// Options of the motion extractor (`integer_motion.c` `options[]`), with libvmaf's defaults.
/// None of the three built-in models sets any of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionOptions {
    /// `motion_force_zero`: every SAD score is 0 (so motion2 and motion3 are 0 too).
    pub force_zero: bool,
    /// `motion_blend_factor` (0..=1, default 1): motion3 only.
    pub blend_factor: f64,
    /// `motion_blend_offset` (0..=1000, default 40): motion3 only.
    pub blend_offset: f64,
    /// `motion_fps_weight` (0..=5, default 1): multiplies each SAD score, hence motion2 too.
    pub fps_weight: f64,
    /// `motion_max_val` (0..=10000, default 10000): clips each SAD score (and motion3).
    pub max_val: f64,
    /// `motion_five_frame_window`: SAD against frame n-2, motion2 from frames n-1 and n+1.
    pub five_frame_window: bool,
    /// `motion_moving_average`: motion3 only.
    pub moving_average: bool,
}

impl Default for MotionOptions {
    fn default() -> Self {
        MotionOptions {
            force_zero: false,
            blend_factor: 1.0,
            blend_offset: 40.0,
            fps_weight: 1.0,
            max_val: 10000.0,
            five_frame_window: false,
            moving_average: false,
        }
    }
}

#[inline]
fn mirror(idx: i64, size: i64) -> usize {
    // integer_motion.c mirror(): reflect without repeating the edge sample.
    let r = if idx < 0 {
        -idx
    } else if idx >= size {
        2 * size - idx - 2
    } else {
        idx
    };
    r as usize
}

fn check_pair(prev: &Luma, cur: &Luma) {
    assert!(
        prev.width == cur.width && prev.height == cur.height && prev.bits == cur.bits,
        "motion: frames differ in size or bit depth"
    );
    assert!((8..=16).contains(&cur.bits), "motion: bits must be 8..=16");
    // mirror() only stays inside the plane for sizes >= 3 (libvmaf reads out of bounds below).
    assert!(cur.width >= 3 && cur.height >= 3, "motion: plane must be at least 3x3");
    let n = cur.width * cur.height;
    assert!(
        prev.data.len() >= n && cur.data.len() >= n,
        "motion: luma data too short"
    );
}

/// Runs `f(row, blurred difference of that row)` for every row of the blurred difference
/// `blur(prev - cur)`, exactly as `motion_score_pipeline_8/16` compute it.  Rows whose vertical
/// pass is all zero are skipped (as in libvmaf; their horizontal pass would be all zero).
fn blurred_diff_rows(prev: &Luma, cur: &Luma, mut f: impl FnMut(usize, &[i32])) {
    check_pair(prev, cur);
    let (w, h, bpc) = (cur.width, cur.height, cur.bits);
    // bpc == 8 (pipeline_8: int32 accum, +1<<7, >>8) is the same arithmetic as the 16-bit
    // pipeline with bpc = 8, so one path serves both.
    let y_round: i64 = 1 << (bpc - 1);
    let x_round: i64 = 1 << 15;
    let mut y_row = vec![0i32; w];
    let mut out = vec![0i32; w];
    // Column taps, mirrored: cols[j*5 + k].
    let cols: Vec<usize> = (0..w as i64)
        .flat_map(|j| (0..5).map(move |k| mirror(j - 2 + k, w as i64)))
        .collect();
    for i in 0..h {
        let rows: [usize; 5] = core::array::from_fn(|k| mirror(i as i64 - 2 + k as i64, h as i64));
        let mut any_nonzero = 0i32;
        for (j, out) in y_row.iter_mut().enumerate().take(w) {
            let mut accum: i64 = 0;
            for (k, row) in rows.iter().enumerate() {
                let r = row * w + j;
                let diff = prev.data[r] as i32 - cur.data[r] as i32;
                accum += FILTER[k] * diff as i64;
            }
            let v = ((accum + y_round) >> bpc) as i32; // arithmetic shift: floor
            *out = v;
            any_nonzero |= v;
        }
        if any_nonzero == 0 {
            continue;
        }
        for j in 0..w {
            let mut accum: i64 = 0;
            for k in 0..5 {
                accum += FILTER[k] * y_row[cols[j * 5 + k]] as i64;
            }
            out[j] = ((accum + x_round) >> 16) as i32;
        }
        f(i, &out);
    }
}

/// The blurred difference plane `blur(prev - cur)` (signed, `width*height`, row after row):
/// the values whose absolute sum is [`sad_int`].  For checking a GPU port stage by stage.
pub fn blurred_diff(prev: &Luma, cur: &Luma) -> Vec<i32> {
    let mut plane = vec![0i32; cur.width * cur.height];
    let w = cur.width;
    blurred_diff_rows(prev, cur, |i, row| plane[i * w..(i + 1) * w].copy_from_slice(row));
    plane
}

/// The integer SAD libvmaf's pipeline returns: sum over rows of (sum of |blurred diff| in a
/// `u32`, wrapping as C's `uint32_t row_sad` does), added into a `u64`.
pub fn sad_int(prev: &Luma, cur: &Luma) -> u64 {
    let mut sad: u64 = 0;
    blurred_diff_rows(prev, cur, |_, row| {
        let mut row_sad: u32 = 0;
        for &v in row {
            row_sad = row_sad.wrapping_add(v.unsigned_abs());
        }
        sad += row_sad as u64;
    });
    sad
}

/// `VMAF_integer_feature_motion_sad_score` from the integer SAD:
/// `MIN((double)sad / 256. / (w * h) * fps_weight, max_val)` (w*h an unsigned product).
pub fn sad_score(sad: u64, width: usize, height: usize, opts: &MotionOptions) -> f64 {
    let wh = (width as u32).wrapping_mul(height as u32) as f64;
    let s = sad as f64 / 256.0 / wh * opts.fps_weight;
    if s < opts.max_val {
        s
    } else {
        opts.max_val
    }
}

/// `motion_blend()` of `motion_blend_tools.h`.
pub fn motion_blend(score: f64, blend_factor: f64, blend_offset: f64) -> f64 {
    let m = if blend_offset < score { blend_offset } else { score };
    score * blend_factor + (1.0 - blend_factor) * m
}

/// All motion outputs of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionScores {
    pub index: u64,
    /// `VMAF_integer_feature_motion_sad_score` (logged under that name).
    pub sad: f64,
    /// `VMAF_integer_feature_motion2_score` (logged as `integer_motion2`): what the models use.
    pub motion2: f64,
    /// `VMAF_integer_feature_motion3_score` (logged as `integer_motion3`).
    pub motion3: f64,
}

/// Motion over a run of reference frames. Frames go in order; each frame's motion2 is known
/// one frame later (it needs the next frame), and the last one at `finish`.
///
/// libvmaf 3.2.0 computes motion2/motion3 only in the extractor's flush, over the SAD scores of
/// the whole run (`stride`/`min_idx` are 1/1, or 2/2 with the five-frame window):
/// - frame `i < min_idx`: motion2 = 0;
/// - a frame with no next frame (the last): motion2 = its own SAD score;
/// - else with `lo = i - (stride-1)`: motion2 = `min(sad[lo], sad[i+1])` if `lo >= min_idx`,
///   else `sad[i+1]`.  (Default: `min(sad[i], sad[i+1])`, frame 0 → 0, last → `sad[last]`.)
/// - motion3: frames `< min_idx` get the "stamp" `min(blend(sad[min_idx]), max_val)` (0 if the
///   run has no frame `min_idx`); later frames `min(blend(motion2), max_val)`, averaged with the
///   previous frame's value (the stamp before the first) under `moving_average`.
///
/// Streaming gives the same values: frame `i`'s motion2 only needs `sad[i+1]`.
pub struct Motion {
    opts: MotionOptions,
    prev: Vec<u16>,
    prev_prev: Vec<u16>,
    dims: Option<(usize, usize, u32)>,
    /// SAD scores of the last few frames: `sads[k]` is frame `sad_base + k`.
    sads: std::collections::VecDeque<f64>,
    sad_base: u64,
    /// Frames pushed.
    n: u64,
    /// Next frame whose motion2 is not yet emitted.
    next_m2: u64,
    /// motion2 values computed but whose motion3 is not yet computed.
    pending_m3: Vec<(u64, f64)>,
    /// motion3 state.
    stamp: Option<f64>,
    prev_processed: f64,
    /// (index, sad, motion2, motion3) ready for `take_scores`.
    ready: Vec<MotionScores>,
    finished: bool,
}

impl Default for Motion {
    fn default() -> Self {
        Self::new()
    }
}

impl Motion {
    pub fn new() -> Self {
        Self::with_options(MotionOptions::default())
    }

    pub fn with_options(opts: MotionOptions) -> Self {
        Motion {
            opts,
            prev: Vec::new(),
            prev_prev: Vec::new(),
            dims: None,
            sads: std::collections::VecDeque::new(),
            sad_base: 0,
            n: 0,
            next_m2: 0,
            pending_m3: Vec::new(),
            stamp: None,
            prev_processed: 0.0,
            ready: Vec::new(),
            finished: false,
        }
    }

    pub fn options(&self) -> &MotionOptions {
        &self.opts
    }

    fn min_idx(&self) -> u64 {
        if self.opts.five_frame_window {
            2
        } else {
            1
        }
    }

    /// SAD score (`VMAF_integer_feature_motion_sad_score`) of the last frame pushed.
    pub fn last_sad(&self) -> Option<f64> {
        self.sads.back().copied()
    }

    /// SAD score of frame `i`, if still kept (the last four frames) and pushed.
    fn sad(&self, i: u64) -> Option<f64> {
        i.checked_sub(self.sad_base)
            .and_then(|k| self.sads.get(k as usize))
            .copied()
    }

    /// Takes reference frame `n` (counted from 0 since `new`); returns (frame index, motion2) of
    /// the frame whose value is now known, if any.
    ///
    /// Panics if the frame's size or bit depth differs from the first frame's, if the plane is
    /// smaller than 3x3, or after `finish`.
    pub fn push(&mut self, reference: &Luma) -> Option<(u64, f64)> {
        assert!(!self.finished, "motion: push after finish");
        let dims = (reference.width, reference.height, reference.bits);
        match self.dims {
            None => self.dims = Some(dims),
            Some(d) => assert!(d == dims, "motion: frame size or bit depth changed"),
        }
        check_pair(reference, reference);
        let len = reference.width * reference.height;
        let cur = &reference.data[..len];

        let sad = self.wants_sad().then(|| {
            let prev_data = if self.opts.five_frame_window {
                &self.prev_prev
            } else {
                &self.prev
            };
            let prev = Luma {
                data: prev_data,
                ..*reference
            };
            sad_int(&prev, reference)
        });
        // Keep the previous raw frames (libvmaf's prev_ref / prev_prev_ref).
        if self.opts.five_frame_window {
            std::mem::swap(&mut self.prev_prev, &mut self.prev);
        }
        self.prev.clear();
        self.prev.extend_from_slice(cur);
        self.push_sad(sad, reference.width, reference.height)
    }

    /// Whether the next frame's SAD counts: not for the first frame (the first two with the
    /// five-frame window) nor under `force_zero`.
    pub fn wants_sad(&self) -> bool {
        !self.opts.force_zero && self.n >= self.min_idx()
    }

    /// `push` for a frame whose integer SAD (`sad_int` against frame n − 1, or n − 2 with the
    /// five-frame window) was measured elsewhere: `Some` exactly when `wants_sad`.
    ///
    /// # Panics
    /// After `finish`.
    pub fn push_sad(&mut self, sad: Option<u64>, width: usize, height: usize) -> Option<(u64, f64)> {
        assert!(!self.finished, "motion: push after finish");
        let n = self.n;
        let score = match sad {
            Some(sad) if self.wants_sad() => sad_score(sad, width, height, &self.opts),
            _ => 0.0,
        };
        self.sads.push_back(score);
        self.n += 1;

        if n == self.min_idx() {
            let s = motion_blend(score, self.opts.blend_factor, self.opts.blend_offset);
            self.stamp = Some(if s < self.opts.max_val { s } else { self.opts.max_val });
        }

        let out = if n >= 1 { Some(self.emit_motion2(n - 1)) } else { None };
        self.advance_motion3();
        // Frames before n-3 are needed no more (motion2 looks one back and one ahead; motion3
        // of frames 0 and 1 may wait for frame 2).
        while self.sads.len() > 4 {
            self.sads.pop_front();
            self.sad_base += 1;
        }
        out
    }

    /// The run ended: the last frame's (frame index, motion2), if one is pending.
    pub fn finish(&mut self) -> Option<(u64, f64)> {
        if self.finished {
            return None;
        }
        self.finished = true;
        let n = self.n;
        if self.stamp.is_none() {
            // flush: stamp_value = 0 unless n > min_idx
            self.stamp = Some(0.0);
        }
        let out = if n >= 1 && self.next_m2 == n - 1 {
            Some(self.emit_motion2(n - 1))
        } else {
            None
        };
        self.advance_motion3();
        out
    }

    /// All scores (SAD, motion2, motion3) of the frames whose values are final, in order,
    /// drained.  Without the five-frame window each frame comes out with its motion2; with it,
    /// frames 0 and 1 wait for frame 2 (their motion3 is `blend(sad[2])`).
    pub fn take_scores(&mut self) -> Vec<MotionScores> {
        std::mem::take(&mut self.ready)
    }

    /// motion2 of frame `i`, knowing every SAD up to the latest frame (`has_hi` = frame i+1
    /// exists).  Port of the loop body in `flush()`.
    fn emit_motion2(&mut self, i: u64) -> (u64, f64) {
        debug_assert_eq!(i, self.next_m2);
        let min_idx = self.min_idx();
        let stride: i64 = if self.opts.five_frame_window { 2 } else { 1 };
        let motion2 = if i < min_idx {
            0.0
        } else {
            let lo_idx = i as i64 - (stride - 1);
            let hi_idx = i + 1;
            match self.sad(hi_idx) {
                None => self.sad(i).unwrap(),
                Some(hi) => {
                    if lo_idx >= min_idx as i64 {
                        let lo = self.sad(lo_idx as u64).unwrap();
                        if lo < hi {
                            lo
                        } else {
                            hi
                        }
                    } else {
                        hi
                    }
                }
            }
        };
        self.next_m2 = i + 1;
        self.pending_m3.push((i, motion2));
        (i, motion2)
    }

    fn advance_motion3(&mut self) {
        let Some(stamp) = self.stamp else { return };
        let min_idx = self.min_idx();
        let o = self.opts;
        for (i, motion2) in std::mem::take(&mut self.pending_m3) {
            let motion3 = if i < min_idx {
                self.prev_processed = stamp;
                stamp
            } else {
                let b = motion_blend(motion2, o.blend_factor, o.blend_offset);
                let processed = if b < o.max_val { b } else { o.max_val };
                let m3 = if o.moving_average {
                    (processed + self.prev_processed) / 2.0
                } else {
                    processed
                };
                self.prev_processed = processed;
                m3
            };
            let sad = self.sad(i).unwrap();
            self.ready.push(MotionScores {
                index: i,
                sad,
                motion2,
                motion3,
            });
        }
    }
}
