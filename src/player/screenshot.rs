//! `s`: what is on screen (picture, histograms and OSD) as a PNG named after the file and the
//! position. The frame is drawn a second time into a texture of the window's size, copied to a
//! buffer, picked up once the GPU is done (never waited on) and encoded on a thread of its own.

use crate::gpu::mapping::{MapState, Mapping};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Called from the writer thread with the saved path or what went wrong.
pub type Notify = Arc<dyn Fn(Result<PathBuf, String>) + Send + Sync>;

/// `<file stem>-<MM>m<SS.mmm>s-f<frame>.png`, e.g. `sample-540p-00m12.345s-f370.png`.
pub fn file_name(video: &Path, position: f64, frame: u64) -> String {
    let stem = video.file_stem().map_or("histoplay".into(), |s| s.to_string_lossy());
    let millis = (position.max(0.0) * 1000.0).round() as u64;
    let (m, s, ms) = (millis / 60_000, millis / 1000 % 60, millis % 1000);
    format!("{stem}-{m:02}m{s:02}.{ms:03}s-f{frame}.png")
}

/// `path`, or where a file has that name already (a second shot of one frame), the first of
/// `NAME-2.png`, `NAME-3.png`, ... that is free: a shot never replaces another.
pub fn unused(path: PathBuf) -> PathBuf {
    if !path.exists() {
        return path;
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (2u32..)
        .map(|n| path.with_file_name(format!("{stem}-{n}.png")))
        .find(|p| !p.exists())
        .unwrap_or(path)
}

/// A texture to draw one screenshot frame into (made per screenshot, not per frame).
pub struct ScreenshotTarget {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
}

impl ScreenshotTarget {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, (width, height): (u32, u32)) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("screenshot"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("screenshot"),
            ..Default::default()
        });
        Self { texture, view }
    }
}

struct Capture {
    buffer: wgpu::Buffer,
    width: u32,
    height: u32,
    padded_row: u32,
    bgra: bool,
    path: PathBuf,
    state: Option<Mapping>,
}

#[derive(Default)]
pub struct Screenshots {
    captures: Vec<Capture>,
}

impl Screenshots {
    /// Records the copy of a drawn `target` into a readback buffer, to be saved as `path`.
    /// Only 8-bit RGBA and BGRA surfaces can be saved; others give an error message.
    pub fn record(
        &mut self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &ScreenshotTarget,
        path: PathBuf,
    ) -> Result<(), String> {
        let bgra = match target.texture.format() {
            wgpu::TextureFormat::Bgra8Unorm => true,
            wgpu::TextureFormat::Rgba8Unorm => false,
            other => return Err(format!("screenshots of a {other:?} window are not supported")),
        };
        let (width, height) = (target.texture.width(), target.texture.height());
        let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let padded_row = (4 * width).div_ceil(align) * align;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("screenshot readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            target.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(height),
                },
            },
            target.texture.size(),
        );
        self.captures.push(Capture {
            buffer,
            width,
            height,
            padded_row,
            bgra,
            path,
            state: None,
        });
        Ok(())
    }

    /// After the copy is submitted: starts mapping.
    pub fn submitted(&mut self) {
        for capture in self.captures.iter_mut().filter(|c| c.state.is_none()) {
            capture.state = Some(Mapping::read(&capture.buffer));
        }
    }

    pub fn pending(&self) -> bool {
        !self.captures.is_empty()
    }

    /// Hands every mapped capture to a writer thread. Call after `device.poll(Poll)`.
    pub fn finish(&mut self, notify: &Notify) {
        let (done, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.captures)
            .into_iter()
            .partition(|c| c.state.as_ref().is_some_and(|s| s.state() != MapState::Mapping));
        self.captures = waiting;
        for capture in done {
            let mapped = capture.state.as_ref().is_some_and(|s| s.state() == MapState::Mapped);
            let padded = match capture.buffer.get_mapped_range(..) {
                Ok(view) if mapped => view.to_vec(),
                _ => {
                    notify(Err("reading the screenshot back from the GPU failed".into()));
                    continue;
                }
            };
            capture.buffer.unmap();
            let notify = notify.clone();
            let (width, height, padded_row, bgra) = (capture.width, capture.height, capture.padded_row, capture.bgra);
            let path = capture.path;
            let spawned = std::thread::Builder::new()
                .name("histoplay screenshot".into())
                .spawn(move || {
                    let rgba = unpad(&padded, width, height, padded_row, bgra);
                    let result = crate::video::still::save_image(&path, width, height, &rgba)
                        .map(|()| path.clone())
                        .map_err(|e| format!("cannot write '{}': {e}", path.display()));
                    notify(result);
                });
            if let Err(e) = spawned {
                log::error!("cannot start the screenshot writer: {e}");
            }
        }
    }
}

/// Tightly packed, opaque RGBA rows from a padded RGBA or BGRA copy.
fn unpad(padded: &[u8], width: u32, height: u32, padded_row: u32, bgra: bool) -> Vec<u8> {
    let mut rgba = Vec::with_capacity((4 * width * height) as usize);
    for row in padded.chunks_exact(padded_row as usize).take(height as usize) {
        for px in row[..(4 * width) as usize].chunks_exact(4) {
            let (r, b) = if bgra { (px[2], px[0]) } else { (px[0], px[2]) };
            // The window is composited opaque, whatever alpha the blending left.
            rgba.extend_from_slice(&[r, px[1], b, 255]);
        }
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_file_position_and_frame() {
        let video = Path::new("/videos/sample-540p.mp4");
        assert_eq!(file_name(video, 12.345, 370), "sample-540p-00m12.345s-f370.png");
        assert_eq!(file_name(video, 0.0, 0), "sample-540p-00m00.000s-f0.png");
        assert_eq!(file_name(video, 3725.5, 9), "sample-540p-62m05.500s-f9.png");
        assert_eq!(file_name(Path::new("clip"), 1.0, 1), "clip-00m01.000s-f1.png");
    }

    #[test]
    fn a_second_shot_of_one_frame_takes_the_next_free_name() {
        let dir = std::env::temp_dir().join(format!("histoplay-shots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = dir.join("clip-00m01.000s-f25.png");
        assert_eq!(unused(first.clone()), first);
        std::fs::write(&first, b"").unwrap();
        assert_eq!(unused(first.clone()), dir.join("clip-00m01.000s-f25-2.png"));
        std::fs::write(dir.join("clip-00m01.000s-f25-2.png"), b"").unwrap();
        assert_eq!(unused(first), dir.join("clip-00m01.000s-f25-3.png"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rows_are_unpadded_and_bgra_swapped() {
        // 2x2 pixels in rows padded to 12 bytes.
        let padded = [
            1, 2, 3, 0, 4, 5, 6, 0, 99, 99, 99, 99, //
            7, 8, 9, 0, 10, 11, 12, 0, 99, 99, 99, 99,
        ];
        assert_eq!(
            unpad(&padded, 2, 2, 12, true),
            vec![3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255, 12, 11, 10, 255]
        );
        assert_eq!(unpad(&padded, 2, 2, 12, false)[..4], [1, 2, 3, 255]);
    }
}
