//! `report --format qctools`: the statistics as a QCTools report, the gzipped XML `ffprobe
//! -show_frames -of xml` writes (QCTools' docs/data_format.md): `<ffprobe:ffprobe>` holding
//! `<frames>` of `<frame media_type="video" …>` with the attributes QCTools reads and a
//! `<tag key="lavfi.signalstats.NAME" value="…"/>` per statistic, printed as ffprobe prints it.

use crate::signalstats::SignalStats;
use ffmpeg_next as ffmpeg;
use flate2::write::GzEncoder;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What a frame's packet says (by its pts): where it sits in the file and how long it lasts.
#[derive(Clone, Copy, Debug, Default)]
struct Packet {
    pos: i64,
    size: usize,
    duration: i64,
    key: bool,
}

/// The report's default name beside the file: `FILE.qctools.xml.gz`, as QCTools names it.
pub fn default_path(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".qctools.xml.gz");
    PathBuf::from(name)
}

/// A QCTools report being written.
pub struct QctoolsReport<W: Write> {
    out: GzEncoder<W>,
    stream_index: usize,
    time_base: f64,
    packets: HashMap<i64, Packet>,
    width: u32,
    height: u32,
    pix_fmt: String,
}

impl<W: Write> QctoolsReport<W> {
    /// Starts the report of `input` (whose video packets are read here, demuxed only, for
    /// their positions, sizes, durations and key flags) into `out`.
    pub fn start(input: &Path, out: W, (width, height): (u32, u32), pix_fmt: &str) -> io::Result<Self> {
        let (stream_index, time_base, packets) = read_packets(input).map_err(io::Error::other)?;
        let mut out = GzEncoder::new(out, flate2::Compression::default());
        out.write_all(
            b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
              <ffprobe:ffprobe xmlns:ffprobe=\"http://www.ffmpeg.org/schema/ffprobe\" \
              xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
              xsi:schemaLocation=\"http://www.ffmpeg.org/schema/ffprobe ffprobe.xsd\">\n    <frames>\n",
        )?;
        Ok(Self {
            out,
            stream_index,
            time_base,
            packets,
            width,
            height,
            pix_fmt: pix_fmt.to_string(),
        })
    }

    /// One frame: its pts (in the stream's time base, if known) and statistics.
    pub fn frame(&mut self, pts: Option<i64>, seconds: f64, pict_type: char, stats: &SignalStats) -> io::Result<()> {
        let packet = pts.and_then(|p| self.packets.get(&p)).copied().unwrap_or_default();
        let pts_text = pts.map_or("N/A".to_string(), |p| p.to_string());
        writeln!(
            self.out,
            "        <frame media_type=\"video\" stream_index=\"{}\" key_frame=\"{}\" pkt_pts=\"{pts_text}\" \
             pkt_pts_time=\"{seconds:.7}\" pkt_duration_time=\"{:.7}\" pkt_pos=\"{}\" pkt_size=\"{}\" \
             width=\"{}\" height=\"{}\" pix_fmt=\"{}\" pict_type=\"{pict_type}\">",
            self.stream_index,
            u8::from(packet.key),
            packet.duration as f64 * self.time_base,
            packet.pos,
            packet.size,
            self.width,
            self.height,
            self.pix_fmt,
        )?;
        for (name, value) in stats.printed() {
            writeln!(
                self.out,
                "            <tag key=\"lavfi.signalstats.{name}\" value=\"{value}\"/>"
            )?;
        }
        self.out.write_all(b"        </frame>\n")
    }

    /// Closes the document and the gzip stream.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(b"    </frames>\n</ffprobe:ffprobe>\n")?;
        self.out.finish()
    }
}

/// The best video stream's index, time base (seconds a tick) and packets by pts.
fn read_packets(input: &Path) -> Result<(usize, f64, HashMap<i64, Packet>), ffmpeg::Error> {
    let mut context = ffmpeg::format::input(input)?;
    let stream = context
        .streams()
        .best(ffmpeg::media::Type::Video)
        .ok_or(ffmpeg::Error::StreamNotFound)?;
    let index = stream.index();
    let time_base = f64::from(stream.time_base());
    let mut packets = HashMap::new();
    for (stream, packet) in context.packets() {
        if stream.index() != index {
            continue;
        }
        if let Some(pts) = packet.pts() {
            packets.insert(
                pts,
                Packet {
                    pos: packet.position() as i64,
                    size: packet.size(),
                    duration: packet.duration(),
                    key: packet.is_key(),
                },
            );
        }
    }
    Ok((index, time_base, packets))
}
