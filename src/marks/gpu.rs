//! The marks pass on the GPU: one dispatch over the converted frame's packed pixels (and, for
//! the range test, the ring slot's planes) writes each pixel's marks into `words` (a byte a
//! pixel: `pack_words`), which the picture pass reads with `style`. Made once per stream, the first time a mark is shown;
//! changing the marks or their levels is a queue write.

use super::{gamut_applies, linear_table, Mark, MarkParams, MarkSet, MarkSettings, MarkStyle};
use crate::colour::ColorVolume;
use crate::gpu::shaders::{self, layout};
use crate::gpu::GpuContext;
use crate::video::convert::PlaneTextures;
use crate::video::format::FrameFormat;
use wgpu::util::DeviceExt;

/// Where the second copy of the parameters starts (the first as given, the second with
/// `keep_range`): the parameters rounded up to the 256 bytes uniform offsets are multiples of.
const PARAMS_STRIDE: u64 = (std::mem::size_of::<MarkParams>() as u64).div_ceil(256) * 256;

/// What the picture pass binds to draw the marks.
#[derive(Clone, Copy)]
pub struct MarksView<'a> {
    pub words: &'a wgpu::Buffer,
    pub style: &'a wgpu::Buffer,
}

pub struct MarksStage {
    /// Without peaking: 256x4 pixels a workgroup.
    pipeline: wgpu::ComputePipeline,
    /// With peaking: tiles of 64x16 pixels.
    peaking_pipeline: wgpu::ComputePipeline,
    /// The same for peaking with nothing but the range beside it.
    peaking_alone_pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    words: wgpu::Buffer,
    /// Each luma code's class (`MarkParams::luma_classes`).
    luma_classes: wgpu::Buffer,
    style: wgpu::Buffer,
    /// One per ring slot (its planes bound for the range test); a still has one, with a texel
    /// standing in for planes.
    bindings: Vec<wgpu::BindGroup>,
    format: FrameFormat,
    volume: ColorVolume,
    bits: u32,
    settings: MarkSettings,
    /// The marks computed: those shown, and any more the words should hold.
    compute: MarkSet,
    /// Whether the words hold the range marks of the frame last converted (read from its
    /// planes), which a frame counted again keeps.
    range_marked: std::cell::Cell<bool>,
}

impl MarksStage {
    /// The stage for frames of `format` and `volume` converted to `bits` into `pixels`, read
    /// from ring `slots` (none for a still).
    pub fn new(
        ctx: &GpuContext,
        slots: &[&PlaneTextures],
        pixels: &wgpu::Buffer,
        format: FrameFormat,
        volume: ColorVolume,
        bits: u32,
    ) -> Self {
        // What the pass, built without bounds checks, rests on (marks.wgsl's header).
        assert!(matches!(bits, 8 | 10), "frames are converted to 8 or 10 bits");
        assert!(
            slots.iter().all(|s| s.format == format),
            "the slots hold frames of the format"
        );
        assert!(
            pixels.size() >= crate::gpu::texture::pixel_buffer_size(format.width, format.height),
            "the pixels are the frame's"
        );
        let device = &ctx.device;
        let compute = wgpu::ShaderStages::COMPUTE;
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("marks"),
            entries: &[
                layout::uniform(0, compute, true),
                layout::storage(1, compute, true),
                layout::storage(2, compute, false),
                layout::storage(3, compute, true),
                layout::uint_texture(4, compute),
                layout::uint_texture(5, compute),
                layout::uint_texture(6, compute),
                layout::storage(7, compute, true),
            ],
        });
        // Every index is in bounds by construction (marks.wgsl's header says how).
        let module = shaders::trusted_module(device, "marks", shaders::marks_source(false, bits));
        let alone = shaders::trusted_module(device, "peaking alone", shaders::marks_source(true, bits));
        // The tile is written whole before it is read.
        let pipeline = shaders::compute_pipeline_with(device, "marks", &module, "marks", &bind_layout, false);
        let peaking_pipeline = shaders::compute_pipeline_with(
            device,
            "marks with peaking",
            &module,
            "marks_peaking",
            &bind_layout,
            false,
        );
        let peaking_alone_pipeline =
            shaders::compute_pipeline_with(device, "peaking alone", &alone, "marks_peaking", &bind_layout, false);
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("marks params"),
            size: 2 * PARAMS_STRIDE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let words = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("marks words"),
            size: 4 * u64::from(super::row_words(format.width)) * u64::from(format.height),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let luma_classes = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("marks: each luma's class"),
            size: 4 << bits,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let linear = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("marks linear light"),
            contents: bytemuck::cast_slice(&linear_table(volume.transfer, bits)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let style = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("marks style"),
            contents: bytemuck::bytes_of(&MarkStyle::none()),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        // A still has no planes: a texel stands in for them (the range test does not apply).
        let stand_in = slots.is_empty().then(|| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some("marks: no planes"),
                    size: wgpu::Extent3d {
                        width: 1,
                        height: 1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: wgpu::TextureFormat::R8Uint,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        });
        let bind = |views: [&wgpu::TextureView; 3]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("marks"),
                layout: &bind_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &params,
                            offset: 0,
                            size: wgpu::BufferSize::new(std::mem::size_of::<MarkParams>() as u64),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: pixels.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: words.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: linear.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 4,
                        resource: wgpu::BindingResource::TextureView(views[0]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 5,
                        resource: wgpu::BindingResource::TextureView(views[1]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 6,
                        resource: wgpu::BindingResource::TextureView(views[2]),
                    },
                    wgpu::BindGroupEntry {
                        binding: 7,
                        resource: luma_classes.as_entire_binding(),
                    },
                ],
            })
        };
        let bindings = match &stand_in {
            Some(view) => vec![bind([view, view, view])],
            None => slots
                .iter()
                .map(|slot| bind([slot.bound_view(0), slot.bound_view(1), slot.bound_view(2)]))
                .collect(),
        };
        let stage = Self {
            pipeline,
            peaking_pipeline,
            peaking_alone_pipeline,
            params,
            words,
            luma_classes,
            style,
            bindings,
            format,
            volume,
            bits,
            settings: MarkSettings::default(),
            compute: MarkSet::default(),
            range_marked: std::cell::Cell::new(false),
        };
        stage.write(&ctx.queue);
        stage
    }

    /// Shows (and computes) `settings`' marks from the next `encode` on.
    pub fn set(&mut self, queue: &wgpu::Queue, settings: &MarkSettings) {
        self.set_computing(queue, settings, settings.shown);
    }

    /// Shows `settings`' marks, computing `compute` (those shown and more).
    pub fn set_computing(&mut self, queue: &wgpu::Queue, settings: &MarkSettings, compute: MarkSet) {
        self.settings = settings.clone();
        self.compute = MarkSet(compute.0 | settings.shown.0);
        self.write(queue);
    }

    pub fn settings(&self) -> &MarkSettings {
        &self.settings
    }

    pub fn shown(&self) -> MarkSet {
        self.settings.shown
    }

    fn write(&self, queue: &wgpu::Queue) {
        let fresh = self.params();
        let kept = MarkParams { keep_range: 1, ..fresh };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&fresh));
        queue.write_buffer(&self.params, PARAMS_STRIDE, bytemuck::bytes_of(&kept));
        let classes = fresh.luma_classes();
        queue.write_buffer(&self.luma_classes, 0, bytemuck::cast_slice(&classes.of_luma));
        let scale = self.settings.scale_for(&self.volume);
        let style = MarkStyle::new(
            self.settings.shown,
            &scale,
            &classes,
            self.format.width,
            self.format.height,
        );
        queue.write_buffer(&self.style, 0, bytemuck::bytes_of(&style));
    }

    /// The parameters the pass runs with (the CPU twin takes the same).
    pub fn params(&self) -> MarkParams {
        MarkParams::new(&self.settings, self.compute, &self.format, &self.volume, self.bits)
    }

    /// The linear-light table the pass's gamut test reads.
    pub fn linear_table(&self) -> Vec<f32> {
        linear_table(self.volume.transfer, self.bits)
    }

    /// Records classifying the converted frame: read from ring slot `slot`'s planes for the
    /// range test, or with none (the frame counted again after its slot went back) keeping the
    /// range marks the words hold.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: Option<usize>,
        writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        if slot.is_some() {
            self.range_marked.set(self.compute.has(Mark::Range));
        }
        let (binding, offset) = match slot {
            Some(slot) => (&self.bindings[slot], 0),
            None => (&self.bindings[0], PARAMS_STRIDE as u32),
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("marks"),
            timestamp_writes: writes,
        });
        let (width, height) = (self.format.width, self.format.height);
        if self.compute.has(Mark::Peaking) {
            // Peaking with no other mark that applies but the range: the pipeline without the
            // others' tests.
            let others = self.compute.with(Mark::Peaking, false).with(Mark::Range, false);
            let others = others.with(Mark::Gamut, others.has(Mark::Gamut) && gamut_applies(&self.volume));
            if others.is_empty() {
                pass.set_pipeline(&self.peaking_alone_pipeline);
            } else {
                pass.set_pipeline(&self.peaking_pipeline);
            }
            pass.set_bind_group(0, binding, &[offset]);
            pass.dispatch_workgroups(width.div_ceil(64), height.div_ceil(16), 1);
        } else {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, binding, &[offset]);
            pass.dispatch_workgroups(super::row_words(width).div_ceil(64), height.div_ceil(4), 1);
        }
    }

    /// Whether the range marks of the frame last converted are there to show (the stage was
    /// made, or every mark was off, only after it was converted: it must be converted again).
    pub fn range_marked(&self) -> bool {
        self.range_marked.get()
    }

    /// Each pixel's marks as read back from `words` (`words_size` bytes).
    pub fn unpack_words(&self, bytes: &[u8]) -> Vec<u32> {
        let (w, h) = (self.format.width as usize, self.format.height as usize);
        super::unpack_words(bytemuck::cast_slice(bytes), &self.params().luma_classes(), w, h)
    }

    /// The words, for reading back (`words_size` bytes; `unpack_words` gives each pixel's).
    pub fn words(&self) -> &wgpu::Buffer {
        &self.words
    }

    pub fn words_size(&self) -> u64 {
        self.words.size()
    }

    pub fn view(&self) -> MarksView<'_> {
        MarksView {
            words: &self.words,
            style: &self.style,
        }
    }
}
