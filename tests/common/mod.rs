//! Test pictures and helpers shared by the integration tests.
#![allow(dead_code)]

use histoplay::gpu::GpuContext;
use histoplay::still::{self, RgbaImage};
use std::path::PathBuf;

pub fn repo_path(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative)
}

pub fn gpu() -> GpuContext {
    GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)")
}

pub fn kitten() -> RgbaImage {
    still::load(&repo_path("media/kitten.jpg")).expect("media/kitten.jpg loads")
}

pub fn solid(width: u32, height: u32, rgba: [u8; 4]) -> RgbaImage {
    RgbaImage {
        width,
        height,
        pixels: rgba.repeat((width * height) as usize),
    }
}

/// Uniform noise from a fixed xorshift seed: every bin gets hit.
pub fn noise(width: u32, height: u32, seed: u32) -> RgbaImage {
    let mut state = seed.max(1);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for _ in 0..width * height {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let [r, g, b, _] = state.to_le_bytes();
        pixels.extend_from_slice(&[r, g, b, 255]);
    }
    RgbaImage { width, height, pixels }
}

/// Every test picture the GPU paths are checked on, by name.
pub fn test_pictures() -> Vec<(&'static str, RgbaImage)> {
    vec![
        ("kitten", kitten()),
        ("all-black", solid(640, 480, [0, 0, 0, 255])),
        ("all-white", solid(640, 480, [255, 255, 255, 255])),
        ("1x1", solid(1, 1, [12, 200, 99, 255])),
        ("4097x3", noise(4097, 3, 7)),
        ("3x4097", noise(3, 4097, 11)),
        ("noise", noise(512, 512, 12345)),
    ]
}
