//! The OSD's egui: its context, window input and renderer; one pass a frame, its shapes
//! tessellated and its textures and buffers uploaded into the frame's encoder.

use crate::gpu::GpuContext;
use std::time::{Duration, Instant};
use winit::window::Window;

/// Egui's own repaint requests are honoured at most this often.
const MIN_EGUI_REPAINT: Duration = Duration::from_millis(16);

pub struct EguiLayer {
    pub ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    /// Textures to free once the frame that last drew them is submitted.
    free: Vec<egui::TextureId>,
    /// When egui asked to be run again (to settle its layout after input).
    repaint: Option<Instant>,
}

/// One egui pass's output, ready to draw: its triangles and the screen they are for.
pub struct Painted {
    pub jobs: Vec<egui::ClippedPrimitive>,
    pub screen: egui_wgpu::ScreenDescriptor,
}

impl EguiLayer {
    pub fn new(window: &Window, gpu: &GpuContext, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        ctx.set_visuals(egui::Visuals::dark());
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(gpu.max_texture_side() as usize),
        );
        let renderer = egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        Self {
            ctx,
            state,
            renderer,
            free: Vec::new(),
            repaint: None,
        }
    }

    /// A window event for egui; true when it wants to be drawn again.
    pub fn on_window_event(&mut self, window: &Window, event: &winit::event::WindowEvent) -> bool {
        self.state.on_window_event(window, event).repaint
    }

    /// Whether one of the OSD's widgets has the pointer (a drag on the seek bar).
    pub fn using_pointer(&self) -> bool {
        self.ctx.egui_is_using_pointer()
    }

    /// Whether `point` (physical pixels) is over the OSD's widgets. (Where the OSD was last
    /// drawn: egui's own pointer state lags one event behind.)
    pub fn over_widget(&self, point: Option<(f64, f64)>) -> bool {
        let scale = f64::from(self.ctx.pixels_per_point());
        point.is_some_and(|(x, y)| {
            let at = egui::pos2((x / scale) as f32, (y / scale) as f32);
            // (The whole screen is egui's background layer.)
            let layer = self.ctx.layer_id_at(at);
            layer.is_some_and(|l| l.order != egui::Order::Background)
        })
    }

    /// When egui asked to be run again, if it did.
    pub fn repaint(&self) -> Option<Instant> {
        self.repaint
    }

    /// Runs `ui` as one egui pass over a window of `size` pixels: input in, shapes out,
    /// textures and buffers updated in `encoder`.
    pub fn run<R>(
        &mut self,
        window: &Window,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        (now, size): (Instant, (u32, u32)),
        mut ui: impl FnMut(&egui::Context) -> R,
    ) -> (Painted, R) {
        self.repaint = None;
        let input = self.state.take_egui_input(window);
        let mut result = None;
        let output = self.ctx.run_pass(input, |ctx| result = Some(ui(ctx)));
        self.state.handle_platform_output(window, output.platform_output);
        let repaint = output
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay);
        if let Some(delay) = repaint.filter(|d| *d < Duration::from_secs(1)) {
            self.repaint = Some(now + delay.max(MIN_EGUI_REPAINT));
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: output.pixels_per_point,
        };
        let mut textures = output.textures_delta;
        let jobs = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        let (device, queue) = (&gpu.device, &gpu.queue);
        for (id, deltas) in &textures.set {
            for delta in deltas {
                self.renderer.update_texture(device, queue, *id, delta);
            }
        }
        // Freed textures may still be drawn by this frame's shapes: after the submit.
        self.free.extend(textures.free.drain());
        textures.clear();
        let callbacks = self.renderer.update_buffers(device, queue, encoder, &jobs, &screen);
        debug_assert!(callbacks.is_empty(), "the OSD has no paint callbacks");
        (Painted { jobs, screen }, result.expect("the pass ran"))
    }

    /// Draws `painted` into `pass`.
    pub fn render(&self, pass: &mut wgpu::RenderPass<'static>, painted: &Painted) {
        self.renderer.render(pass, &painted.jobs, &painted.screen);
    }

    /// The frame was submitted: the textures it no longer needs go.
    pub fn submitted(&mut self) {
        for id in self.free.drain(..) {
            self.renderer.free_texture(&id);
        }
    }
}
