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
    /// The strip's size, WxH.
    #[arg(long, value_parser = parse_size, default_value = "1024x128")]
    size: (u32, u32),
}

pub fn run(args: Args) -> Result<()> {
    crate::cli::output::check_picture(&args.output, &[&args.input])?;
    let width = args.size.0;
    let (rgba, height) = crate::timeline::render_file(&args.input, args.size)?;
    still::save_image(&args.output, width, height, &rgba)
        .with_context(|| format!("cannot write '{}'", args.output.display()))?;
    Ok(())
}
