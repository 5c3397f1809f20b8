//! The window's swapchain: its format (non-sRGB, so video values reach the screen unchanged),
//! (re)configuration on resize, and what to do when acquiring a frame fails; the GPU a window
//! is opened on, and what the window does when that GPU fails.

use super::media::default_window_size;
use super::{PlayerError, UserEvent};
use crate::gpu::{best_adapter, GpuContext};
use crate::video::source::VideoInfo;
use std::sync::Arc;
use winit::event_loop::{ActiveEventLoop, EventLoopProxy};
use winit::window::Window;

/// Consecutive `Lost` surfaces after which the window is given up on.
const MAX_LOST: u32 = 3;

/// Tries at configuring the surface before leaving it to the next frame.
const CONFIGURE_ATTEMPTS: u32 = 4;

pub struct WindowSurface {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// Whether `config` is applied (never for a zero-sized window).
    configured: bool,
    /// Reconfigure before the next frame (the last one was suboptimal).
    stale: bool,
    lost: u32,
    /// Format the passes draw in: the surface's own, or its non-sRGB view.
    pub format: wgpu::TextureFormat,
}

/// A swapchain image to draw the frame into.
pub struct SurfaceFrame {
    pub texture: wgpu::SurfaceTexture,
    pub view: wgpu::TextureView,
}

/// The surface format to use from those offered, and the format to render in. Unorm formats
/// pass the picture's 8-bit values through untouched; an sRGB-only surface gets a Unorm view.
pub fn pick_format(offered: &[wgpu::TextureFormat]) -> Option<(wgpu::TextureFormat, wgpu::TextureFormat)> {
    use wgpu::TextureFormat::{Bgra8Unorm, Rgba8Unorm};
    let format = [Bgra8Unorm, Rgba8Unorm]
        .into_iter()
        .find(|f| offered.contains(f))
        .or_else(|| offered.first().copied())?;
    Some((format, format.remove_srgb_suffix()))
}

impl WindowSurface {
    pub fn new(gpu: &GpuContext, surface: wgpu::Surface<'static>, size: (u32, u32)) -> Result<Self, PlayerError> {
        let caps = surface.get_capabilities(&gpu.adapter);
        let (format, view_format) = pick_format(&caps.formats).ok_or(PlayerError::NoSurfaceFormat)?;
        let alpha_mode = if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
            wgpu::CompositeAlphaMode::Opaque
        } else {
            caps.alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto)
        };
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: Default::default(),
            width: size.0,
            height: size.1,
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode,
            view_formats: if view_format == format {
                vec![]
            } else {
                vec![view_format]
            },
        };
        log::info!("surface: {format:?} (drawn as {view_format:?}), {alpha_mode:?}");
        let mut surface = Self {
            surface,
            config,
            configured: false,
            stale: false,
            lost: 0,
            format: view_format,
        };
        surface.resize(gpu, size);
        Ok(surface)
    }

    /// Follows the window's size; a zero-sized (minimized) window is left unconfigured.
    pub fn resize(&mut self, gpu: &GpuContext, (width, height): (u32, u32)) {
        self.config.width = width;
        self.config.height = height;
        self.configured = width > 0 && height > 0;
        if self.configured {
            self.stale = !self.configure(gpu);
        }
    }

    /// Applies `config`; false if wgpu refused it. Configuring waits for the GPU to go idle,
    /// and wgpu refuses when another thread submits work meanwhile (the upload thread does,
    /// for every frame), so a refusal is tried again (and, failing that, at the next frame)
    /// rather than reported as the GPU's failure.
    fn configure(&self, gpu: &GpuContext) -> bool {
        for _ in 0..CONFIGURE_ATTEMPTS {
            let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
            self.surface.configure(&gpu.device, &self.config);
            match pollster::block_on(scope.pop()) {
                None => return true,
                Some(error) => log::debug!(
                    "configuring the window surface: {}",
                    crate::gpu::one_line(&error.to_string())
                ),
            }
        }
        false
    }

    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Whether frames can be drawn (not minimized to nothing).
    pub fn is_renderable(&self) -> bool {
        self.configured
    }

    /// The next swapchain image; None when this frame should be skipped (timeout, occluded,
    /// zero-sized). Outdated and lost surfaces are rebuilt on the way.
    pub fn acquire(&mut self, gpu: &GpuContext, window: &Arc<Window>) -> Result<Option<SurfaceFrame>, PlayerError> {
        if !self.configured {
            return Ok(None);
        }
        if self.stale {
            if !self.configure(gpu) {
                return Ok(None);
            }
            self.stale = false;
        }
        // One retry after rebuilding: a resize races the acquire now and then.
        for _ in 0..2 {
            let texture = match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(texture) => texture,
                wgpu::CurrentSurfaceTexture::Suboptimal(texture) => {
                    self.stale = true;
                    texture
                }
                wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(None),
                wgpu::CurrentSurfaceTexture::Outdated => {
                    if !self.configure(gpu) {
                        self.stale = true;
                        return Ok(None);
                    }
                    continue;
                }
                wgpu::CurrentSurfaceTexture::Lost => {
                    self.lost += 1;
                    if self.lost > MAX_LOST {
                        return Err(PlayerError::SurfaceLost);
                    }
                    log::warn!("the window surface was lost; making a new one");
                    self.surface = gpu
                        .instance
                        .create_surface(window.clone())
                        .map_err(|e| PlayerError::Surface(e.to_string()))?;
                    if !self.configure(gpu) {
                        self.stale = true;
                        return Ok(None);
                    }
                    continue;
                }
                wgpu::CurrentSurfaceTexture::Validation => return Err(PlayerError::SurfaceRejected),
            };
            self.lost = 0;
            let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some("window frame"),
                format: Some(self.format),
                ..Default::default()
            });
            return Ok(Some(SurfaceFrame { texture, view }));
        }
        Ok(None)
    }
}

/// The size to open the window at, where one is asked for: `--geometry`'s, else the size kept
/// from the last run, made to fit the monitor (a hand-edited one may not).
pub fn window_size(event_loop: &ActiveEventLoop, options: &super::PlayerOptions) -> Option<(u32, u32)> {
    let monitor = (event_loop.primary_monitor())
        .or_else(|| event_loop.available_monitors().next())
        .map(|m| m.size())
        .filter(|m| m.width > 0 && m.height > 0);
    let kept = options.kept_size.map(|(w, h)| match monitor {
        Some(m) => (w.min(m.width), h.min(m.height)),
        None => (w, h),
    });
    options.window_size.or(kept)
}

/// The window for a video of `info`, at `size` if one is given, else at the size it opens at
/// for the video (`default_window_size`).
pub fn open_window(
    event_loop: &ActiveEventLoop,
    info: &VideoInfo,
    size: Option<(u32, u32)>,
) -> Result<Arc<Window>, PlayerError> {
    let (width, height) = size.unwrap_or_else(|| default_window_size(info.format.height, info.display_aspect));
    let attributes = Window::default_attributes()
        .with_title(title(&info.path))
        .with_inner_size(winit::dpi::PhysicalSize::new(width, height));
    let window = event_loop
        .create_window(attributes)
        .map_err(|e| PlayerError::Window(e.to_string()))?;
    Ok(Arc::new(window))
}

/// Opens the GPU for a window: Vulkan (or Metal, DX12) first, GL only when none of them works.
pub fn open_gpu(
    event_loop: &ActiveEventLoop,
    window: &Arc<Window>,
) -> Result<(GpuContext, wgpu::Surface<'static>), PlayerError> {
    for backends in [wgpu::Backends::PRIMARY, wgpu::Backends::GL] {
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(event_loop.owned_display_handle()));
        desc.backends = backends;
        crate::gpu::without_debug_labels(&mut desc);
        let instance = wgpu::Instance::new(desc.with_env());
        let surface = match instance.create_surface(window.clone()) {
            Ok(surface) => surface,
            Err(e) => {
                log::info!("no {backends:?} surface for the window: {e}");
                continue;
            }
        };
        if let Some(adapter) = pollster::block_on(best_adapter(&instance, Some(&surface))) {
            return Ok((GpuContext::with_adapter(instance, adapter)?, surface));
        }
    }
    Err(crate::gpu::GpuError::NoAdapter.into())
}

/// `histoplay — <file name>`: tests find the window by it.
pub fn title(path: &std::path::Path) -> String {
    let name = path
        .file_name()
        .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    format!("histoplay — {name}")
}

/// A lost device or an error the GPU reports by itself ends the player with a message, instead
/// of wgpu's default (a panic) or a window that silently stops.
pub fn watch_device(device: &wgpu::Device, proxy: &EventLoopProxy<UserEvent>) {
    let lost = proxy.clone();
    device.set_device_lost_callback(move |reason, message| {
        if reason != wgpu::DeviceLostReason::Destroyed {
            let _ = lost.send_event(UserEvent::Fatal(PlayerError::DeviceLost(crate::gpu::one_line(
                &message,
            ))));
        }
    });
    let errors = proxy.clone();
    device.on_uncaptured_error(Arc::new(move |error| {
        log::error!("{error}");
        let _ = errors.send_event(UserEvent::Fatal(PlayerError::GpuFailure(crate::gpu::one_line(
            &error.to_string(),
        ))));
    }));
}

#[cfg(test)]
mod tests {
    use super::pick_format;
    use wgpu::TextureFormat::*;

    #[test]
    fn unorm_formats_are_preferred_and_srgb_ones_get_a_unorm_view() {
        assert_eq!(
            pick_format(&[Bgra8UnormSrgb, Bgra8Unorm]),
            Some((Bgra8Unorm, Bgra8Unorm))
        );
        assert_eq!(
            pick_format(&[Rgba8UnormSrgb, Rgba8Unorm]),
            Some((Rgba8Unorm, Rgba8Unorm))
        );
        assert_eq!(pick_format(&[Bgra8UnormSrgb]), Some((Bgra8UnormSrgb, Bgra8Unorm)));
        assert_eq!(pick_format(&[Rgb10a2Unorm]), Some((Rgb10a2Unorm, Rgb10a2Unorm)));
        assert_eq!(pick_format(&[]), None);
    }
}
