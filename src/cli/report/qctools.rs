//! `report --format qctools`: the statistics as a QCTools report, the gzipped XML `ffprobe
//! -show_frames -of xml` writes (QCTools' docs/data_format.md): `<ffprobe:ffprobe>` holding
//! `<frames>` of `<frame media_type="video" …>` with the attributes QCTools reads and a
//! `<tag key="lavfi.signalstats.NAME" value="…"/>` per statistic, printed as ffprobe prints it,
//! then the events' tags where FFmpeg's blackdetect, freezedetect and silencedetect set them.

//!
//! The packets' positions, sizes, durations and key flags are those the decoder handed on with
//! each picture, from the one demux that fed it (as ffprobe takes them from its frames).

use crate::headless::FrameMeta;
use crate::signalstats::SignalStats;
use crate::video::source::VideoSource;
use flate2::write::GzEncoder;
use std::io::{self, Write};

/// A QCTools report being written.
pub struct QctoolsReport<W: Write> {
    out: GzEncoder<W>,
    stream_index: usize,
    time_base: f64,
    width: u32,
    height: u32,
    pix_fmt: String,
    /// A live input: frames carry their own pts (no index numbers them).
    live: bool,
}

impl<W: Write> QctoolsReport<W> {
    /// Starts the report of `source`'s video stream into `out`.
    pub fn start(source: &VideoSource, out: W) -> io::Result<Self> {
        let info = &source.info;
        let (num, den) = info.time_base;
        Ok(Self {
            out: Self::begin(out)?,
            stream_index: source.stream_index(),
            time_base: f64::from(num) / f64::from(den),
            width: info.format.width,
            height: info.format.height,
            pix_fmt: info.pixel_format.clone(),
            live: info.live,
        })
    }

    /// Starts the report of a file of sound alone (`audio_frame`s only) into `out`.
    pub fn start_sound(out: W) -> io::Result<Self> {
        Ok(Self {
            out: Self::begin(out)?,
            stream_index: 0,
            time_base: 1.0,
            width: 0,
            height: 0,
            pix_fmt: String::new(),
            live: false,
        })
    }

    /// The document's start, into a gzip stream on `out`.
    fn begin(out: W) -> io::Result<GzEncoder<W>> {
        let mut out = GzEncoder::new(out, flate2::Compression::default());
        out.write_all(
            b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
              <ffprobe:ffprobe xmlns:ffprobe=\"http://www.ffmpeg.org/schema/ffprobe\" \
              xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
              xsi:schemaLocation=\"http://www.ffmpeg.org/schema/ffprobe ffprobe.xsd\">\n    <frames>\n",
        )?;
        Ok(out)
    }

    /// One frame: its pts (in the stream's time base, if known), what came with it, its
    /// statistics (of a picture of `size`, where it is not the stream's), and the other filters' tags on it (idet's, blackdetect's, freezedetect's).
    pub fn frame<'t>(
        &mut self,
        pts: Option<i64>,
        frame: &FrameMeta,
        stats: &SignalStats,
        size: Option<(u32, u32)>,
        tags: impl IntoIterator<Item = &'t (String, String)>,
    ) -> io::Result<()> {
        let (width, height) = size.unwrap_or((self.width, self.height));
        let FrameMeta {
            seconds,
            pict_type,
            packet,
            ..
        } = *frame;
        // As ffprobe prints what the frame doesn't know.
        let known = |value: Option<String>| value.unwrap_or_else(|| "N/A".to_string());
        let pts = pts.or_else(|| self.live.then(|| (seconds / self.time_base).round() as i64));
        let pts_text = known(pts.map(|p| p.to_string()));
        let pos_text = known(packet.pos.map(|p| p.to_string()));
        let size_text = known(packet.size.map(|s| s.to_string()));
        writeln!(
            self.out,
            "        <frame media_type=\"video\" stream_index=\"{}\" key_frame=\"{}\" pkt_pts=\"{pts_text}\" \
             pkt_pts_time=\"{seconds:.7}\" pkt_duration_time=\"{:.7}\" pkt_pos=\"{pos_text}\" pkt_size=\"{size_text}\" \
             width=\"{}\" height=\"{}\" pix_fmt=\"{}\" pict_type=\"{pict_type}\" interlaced_frame=\"{}\" \
             top_field_first=\"{}\">",
            self.stream_index,
            u8::from(packet.key),
            packet.duration as f64 * self.time_base,
            width,
            height,
            self.pix_fmt,
            u8::from(packet.fields.interlaced),
            u8::from(packet.fields.top_first),
        )?;
        for (name, value) in stats.printed() {
            writeln!(
                self.out,
                "            <tag key=\"lavfi.signalstats.{name}\" value=\"{value}\"/>"
            )?;
        }
        self.tags(tags)?;
        self.out.write_all(b"        </frame>\n")
    }

    fn tags<'t>(&mut self, tags: impl IntoIterator<Item = &'t (String, String)>) -> io::Result<()> {
        for (key, value) in tags {
            writeln!(self.out, "            <tag key=\"{key}\" value=\"{value}\"/>")?;
        }
        Ok(())
    }

    /// One of the sound's 100 ms frames (`audio::qc`) of stream `stream_index`, as ffprobe
    /// writes it with astats' and ebur128's tags (QCTools' audio graphs), and silencedetect's
    /// set in it.
    pub fn audio_frame(
        &mut self,
        stream_index: usize,
        rate: u32,
        frame: &crate::audio::qc::AudioFrame,
        tags: &[(String, String)],
    ) -> io::Result<()> {
        writeln!(
            self.out,
            "        <frame media_type=\"audio\" stream_index=\"{stream_index}\" key_frame=\"1\" pkt_pts=\"{}\" \
             pkt_pts_time=\"{:.7}\" pkt_duration_time=\"{:.7}\" pkt_pos=\"N/A\" pkt_size=\"N/A\" nb_samples=\"{}\">",
            (frame.time * f64::from(rate)).round() as i64,
            frame.time,
            frame.duration,
            frame.samples,
        )?;
        for (key, value) in &frame.astats {
            writeln!(self.out, "            <tag key=\"{key}\" value=\"{value}\"/>")?;
        }
        for (name, value) in crate::audio::qc::R128_KEYS.iter().zip(frame.r128.into_iter().flatten()) {
            // (As FFmpeg prints what isn't a number: the loudness of digital silence is nan.)
            let value = match value {
                v if v.is_nan() => "nan".to_string(),
                v if v.is_infinite() => if v > 0.0 { "inf" } else { "-inf" }.to_string(),
                v => format!("{v:.3}"),
            };
            writeln!(
                self.out,
                "            <tag key=\"lavfi.r128.{name}\" value=\"{value}\"/>"
            )?;
        }
        self.tags(tags)?;
        self.out.write_all(b"        </frame>\n")
    }

    /// Compresses what was written so far to a point a reader can decompress up to (a sync
    /// flush), and hands it on: the report of a live input, readable as it grows.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Closes the document and the gzip stream.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"    </frames>\n</ffprobe:ffprobe>\n")?;
        self.out.finish()
    }
}
