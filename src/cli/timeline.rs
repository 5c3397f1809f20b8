//! `histoplay timeline`: the histogram timeline of a whole video, drawn to a PNG.

use super::args::parse_size;
use crate::video::still;
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Render the histogram timeline of a video to a PNG.
///
/// The luminance histogram of every frame: x = time (column x holds the frames n with
/// n·W/frames = x), y = luminance (0 at the bottom), brightness = share of the column's
/// pixels; red and blue marks where highlights and shadows clip. With sound, 16 rows more
/// under it: each column's short-term loudness (EBU R128) from -60 LUFS to 0, a line at -23,
/// blue where the sound is silent and red where it clips.
#[derive(clap::Args)]
pub struct Args {
    input: PathBuf,
    /// The picture written, in the format its name ends with: .png, .jpg (quality 90), .webp
    /// (lossless), .tiff, .bmp or .gif.
    #[arg(short, long)]
    output: PathBuf,
    /// The strip's size, WxH (at most 2^28 pixels, 16384x16384).
    #[arg(long, value_parser = strip_size, default_value = "1024x128")]
    size: (u32, u32),
    /// Which audio stream's loudness goes under it: its number from 1 (as mpv's --aid), or
    /// `auto` (FFmpeg's pick).
    #[arg(long, value_name = "N|auto", default_value = "auto", value_parser = crate::audio::source::AudioTrack::parse)]
    aid: crate::audio::source::AudioTrack,
}

/// The most pixels a strip has: its picture is drawn in memory, 1 GiB of RGBA at most.
const MOST_PIXELS: u64 = 1 << 28;

/// A strip's size: `parse_size`'s, of no more than `MOST_PIXELS`.
fn strip_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = parse_size(s)?;
    match u64::from(w) * u64::from(h) {
        pixels if pixels > MOST_PIXELS => Err(format!(
            "'{s}' is {pixels} pixels: a timeline has at most {MOST_PIXELS} (16384x16384)"
        )),
        _ => Ok((w, h)),
    }
}

pub fn run(args: Args) -> Result<()> {
    crate::cli::output::check_picture(&args.output, &[&args.input])?;
    still::check_image_size(&args.output, args.size).map_err(anyhow::Error::msg)?;
    let width = args.size.0;
    let (rgba, height) = crate::timeline::render_file(&args.input, args.aid, args.size)?;
    still::save_image(&args.output, width, height, &rgba)
        .with_context(|| format!("cannot write '{}'", args.output.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strip_is_at_most_two_to_the_28_pixels() {
        assert_eq!(strip_size("16384x16384"), Ok((16384, 16384)));
        assert_eq!(strip_size("65536x4096"), Ok((65536, 4096)));
        assert_eq!(
            strip_size("32768x32768"),
            Err("'32768x32768' is 1073741824 pixels: a timeline has at most 268435456 (16384x16384)".into())
        );
        assert!(strip_size("0x10").is_err());
    }
}
