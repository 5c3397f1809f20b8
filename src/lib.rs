//! histoplay: a video player that draws live R, G, B and luminance histograms over the picture,
//! computed on the GPU every frame.

pub mod audio;
pub mod cli;
pub mod clock;
pub mod colour;
pub mod compare;
pub mod engine;
pub mod events;
pub mod geometry;
pub mod gpu;
pub mod headless;
pub mod idet;
pub mod marks;
pub mod option_number;
pub mod output_file;
pub mod pipeline;
pub mod player;
pub mod process;
pub mod pse;
pub mod quit_signals;
pub mod render;
pub mod scope;
pub mod settings;
pub mod signalstats;
pub mod terminal;
pub mod threads;
pub mod timeline;
pub mod version;
pub mod video;

/// The articles' kitten photo, built in so `bench --size` has a natural picture at any size.
pub const KITTEN_JPEG: &[u8] = include_bytes!("../media/kitten.jpg");

/// The kitten, resized to `width` x `height` (a natural picture for benchmarks).
pub fn kitten(width: u32, height: u32) -> video::still::RgbaImage {
    let decoded = image::load_from_memory(KITTEN_JPEG).expect("the built-in kitten decodes");
    let resized = decoded
        .resize_exact(width, height, image::imageops::FilterType::Triangle)
        .to_rgba8();
    video::still::RgbaImage {
        width,
        height,
        pixels: resized.into_raw(),
    }
}
