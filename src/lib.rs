//! histoplay: a video player that draws live R, G, B and luminance histograms over the picture,
//! computed on the GPU every frame.

pub mod audio;
pub mod bench;
pub mod bench_av;
pub mod bench_clips;
pub mod bench_pipeline;
pub mod clip;
pub mod clock;
pub mod gpu;
pub mod histogram;
pub mod layout;
pub mod offscreen;
pub mod passes;
pub mod pipeline;
pub mod player;
pub mod progress;
pub mod report;
pub mod scene;
pub mod still;
pub mod variants;
pub mod video;

/// The articles' kitten photo, built in so `bench --size` has a natural picture at any size.
pub const KITTEN_JPEG: &[u8] = include_bytes!("../media/kitten.jpg");

/// The kitten, resized to `width` x `height` (a natural picture for benchmarks).
pub fn kitten(width: u32, height: u32) -> still::RgbaImage {
    let decoded = image::load_from_memory(KITTEN_JPEG).expect("the built-in kitten decodes");
    let resized = decoded
        .resize_exact(width, height, image::imageops::FilterType::Triangle)
        .to_rgba8();
    still::RgbaImage {
        width,
        height,
        pixels: resized.into_raw(),
    }
}
