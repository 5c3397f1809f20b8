//! A video looped by stream copy: its packets read once, written again and again with their
//! timestamps moved on by the length of one pass.

use super::{create_output, open_input, read_error, write_error, ClipMakeError, Unfinished};
use crate::video::record::add_copied_stream;
use ffmpeg::packet::{Mut as _, Ref as _};
use ffmpeg::{Rational, Rescale, Rounding};
use ffmpeg_next as ffmpeg;
use std::path::Path;

/// One input stream a looped copy carries, and the times its packets cover.
struct CopiedStream {
    index: usize,
    time_base: Rational,
    /// Ticks a packet lasts when it doesn't say (from the stream's average rate; 0 if unknown).
    nominal_duration: i64,
    start: Option<i64>,
    end: Option<i64>,
}

impl CopiedStream {
    fn cover(&mut self, packet: &ffmpeg::Packet) {
        let Some(ts) = packet.pts().or(packet.dts()) else {
            return;
        };
        let duration = if packet.duration() > 0 {
            packet.duration()
        } else {
            self.nominal_duration
        };
        self.start = Some(self.start.map_or(ts, |s| s.min(ts)));
        self.end = Some(self.end.map_or(ts + duration, |e| e.max(ts + duration)));
    }

    fn seconds(&self, ticks: i64) -> f64 {
        ticks as f64 * f64::from(self.time_base.numerator()) / f64::from(self.time_base.denominator())
    }
}

/// How long one pass of the input lasts, from its earliest timestamp to the latest end of a
/// packet over all copied streams, in ticks of the time base of the stream that ends last. Every
/// stream is shifted by this same time, so that they stay in sync however their ends differ.
fn loop_period(path: &Path, streams: &[CopiedStream]) -> Result<(i64, Rational), ClipMakeError> {
    let last = streams
        .iter()
        .filter_map(|s| Some((s, s.end?)))
        .max_by(|(a, a_end), (b, b_end)| a.seconds(*a_end).total_cmp(&b.seconds(*b_end)))
        .ok_or_else(|| ClipMakeError::NoFrames(path.to_owned()))?;
    let (reference, end) = last;
    let start = streams
        .iter()
        .filter_map(|s| Some(s.start?.rescale_with(s.time_base, reference.time_base, Rounding::Down)))
        .min()
        .unwrap_or(0);
    Ok(((end - start).max(1), reference.time_base))
}

/// Gives packets without a dts one from their neighbours, as ffmpeg's stream copy does: Matroska
/// stores none, and its demuxer derives them only once the reorder delay has passed, but MP4's
/// muxer refuses packets without one (and in a loop they would come mid-stream).
fn fill_missing_dts(packets: &mut [ffmpeg::Packet], streams: &[CopiedStream]) {
    for (out_index, stream) in streams.iter().enumerate() {
        let duration = |p: &ffmpeg::Packet| match p.duration() {
            d if d > 0 => d,
            _ => stream.nominal_duration.max(1),
        };
        let mine: Vec<usize> = (0..packets.len())
            .filter(|&i| packets[i].stream() == out_index)
            .collect();
        // Mid-stream: the one before plus its duration.
        let mut previous: Option<i64> = None;
        for &i in &mine {
            let packet = &mut packets[i];
            if packet.dts().is_none() {
                packet.set_dts(previous);
            }
            previous = packet.dts().map(|dts| dts + duration(packet));
        }
        // Before the first that has one: the one after minus their own duration.
        let mut next: Option<i64> = None;
        for &i in mine.iter().rev() {
            let packet = &mut packets[i];
            if let (None, Some(next)) = (packet.dts(), next) {
                let dts = next - duration(packet);
                packet.set_dts(Some(packet.pts().map_or(dts, |pts| dts.min(pts))));
            }
            next = packet.dts();
        }
    }
}

/// A second reference to a packet's (reference-counted) data, for writing it once more.
fn share(packet: &ffmpeg::Packet) -> Result<ffmpeg::Packet, ffmpeg::Error> {
    let mut copy = ffmpeg::Packet::empty();
    // SAFETY: two valid packets; the new one is empty, so nothing of it leaks.
    let result = unsafe { ffmpeg::ffi::av_packet_ref(copy.as_mut_ptr(), packet.as_ptr()) };
    if result < 0 {
        return Err(ffmpeg::Error::from(result));
    }
    Ok(copy)
}

/// Copies `input`'s video stream and its best audio stream, without re-encoding, `loops` times
/// back to back into `output` (like `ffmpeg -stream_loop N-1 -i IN -c copy OUT`), each repetition
/// shifted by the length of the ones before. The input is read once, into memory. Returns the
/// packets written.
pub fn loop_copy(input: &Path, output: &Path, loops: u32) -> Result<u64, ClipMakeError> {
    if loops == 0 {
        return Err(ClipMakeError::BadRequest(
            "a looped copy needs at least one loop".into(),
        ));
    }
    let mut ictx = open_input(input)?;
    let video = ictx
        .streams()
        .best(ffmpeg::media::Type::Video)
        .ok_or_else(|| ClipMakeError::NoVideo(input.to_owned()))?
        .index();
    let audio = ictx.streams().best(ffmpeg::media::Type::Audio).map(|s| s.index());
    let mut octx = create_output(input, output)?;
    let unfinished = Unfinished(Some(output));
    let mut streams = Vec::new();
    for index in std::iter::once(video).chain(audio) {
        let Some(ist) = ictx.stream(index) else {
            continue;
        };
        add_copied_stream(&mut octx, &ist).map_err(|e| write_error(output, e))?;
        let rate = ist.avg_frame_rate();
        let nominal_duration = if rate.numerator() > 0 && rate.denominator() > 0 {
            1.rescale(rate.invert(), ist.time_base())
        } else {
            0
        };
        streams.push(CopiedStream {
            index,
            time_base: ist.time_base(),
            nominal_duration,
            start: None,
            end: None,
        });
    }

    let mut packets = Vec::new();
    loop {
        let mut packet = ffmpeg::Packet::empty();
        match packet.read(&mut ictx) {
            Ok(()) => {}
            Err(ffmpeg::Error::Eof) => break,
            Err(e) => return Err(read_error(input, e)),
        }
        if let Some(out_index) = streams.iter().position(|s| s.index == packet.stream()) {
            streams[out_index].cover(&packet);
            packet.set_stream(out_index);
            packet.set_position(-1);
            packets.push(packet);
        }
    }
    if streams.first().is_none_or(|video| video.end.is_none()) {
        return Err(ClipMakeError::NoFrames(input.to_owned()));
    }
    fill_missing_dts(&mut packets, &streams);
    let (period, period_base) = loop_period(input, &streams)?;

    octx.write_header().map_err(|e| write_error(output, e))?;
    let out_bases: Vec<Rational> = octx.streams().map(|s| s.time_base()).collect();
    let mut written = 0;
    for repetition in 0..i64::from(loops) {
        let offsets: Vec<i64> = streams
            .iter()
            .map(|s| (repetition * period).rescale(period_base, s.time_base))
            .collect();
        for packet in &packets {
            let mut copy = share(packet).map_err(|e| write_error(output, e))?;
            let stream = copy.stream();
            copy.set_pts(copy.pts().map(|t| t + offsets[stream]));
            copy.set_dts(copy.dts().map(|t| t + offsets[stream]));
            copy.rescale_ts(streams[stream].time_base, out_bases[stream]);
            copy.write_interleaved(&mut octx).map_err(|e| write_error(output, e))?;
            written += 1;
        }
    }
    octx.write_trailer().map_err(|e| write_error(output, e))?;
    unfinished.done();
    Ok(written)
}
