//! The region of interest: a rectangle of the frame that every histogram and scope counts
//! instead of the whole frame. On the GPU a gather pass copies the region's pixels, row after
//! row, into a buffer of their own (shaders/scope/region.wgsl); the histogram engine and the
//! scopes then count that buffer exactly as they count a frame of the region's size.

use crate::gpu::shaders::{self, layout};
use crate::gpu::GpuContext;
use std::borrow::Cow;
use thiserror::Error;

/// A rectangle in frame pixels: columns x..x+width, rows y..y+height (y down).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum RegionError {
    #[error("'{0}' is not a region like X,Y,W,H (e.g. 100,50,640,360)")]
    Syntax(String),
    #[error("the region {0} is empty")]
    Empty(String),
    #[error("the region {region} is not inside the {width}x{height} frame")]
    Outside { region: String, width: u32, height: u32 },
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{},{}", self.x, self.y, self.width, self.height)
    }
}

impl Region {
    /// The whole of a `width`×`height` frame.
    pub fn full(width: u32, height: u32) -> Self {
        Self {
            x: 0,
            y: 0,
            width,
            height,
        }
    }

    /// Parses `X,Y,W,H`.
    pub fn parse(s: &str) -> Result<Self, RegionError> {
        let numbers: Vec<Option<u32>> = s.split(',').map(|v| v.trim().parse().ok()).collect();
        match numbers[..] {
            [Some(x), Some(y), Some(width), Some(height)] => Ok(Self { x, y, width, height }),
            _ => Err(RegionError::Syntax(s.to_string())),
        }
    }

    /// Checks that the region is not empty and lies inside a `width`×`height` frame.
    pub fn check(self, width: u32, height: u32) -> Result<Self, RegionError> {
        if self.width == 0 || self.height == 0 {
            return Err(RegionError::Empty(self.to_string()));
        }
        let fits = |start: u32, len: u32, size: u32| u64::from(start) + u64::from(len) <= u64::from(size);
        if !fits(self.x, self.width, width) || !fits(self.y, self.height, height) {
            return Err(RegionError::Outside {
                region: self.to_string(),
                width,
                height,
            });
        }
        Ok(self)
    }

    pub fn pixel_count(&self) -> u32 {
        self.width * self.height
    }

    /// Whether this region is the whole of a `width`×`height` frame.
    pub fn is_full(&self, width: u32, height: u32) -> bool {
        *self == Self::full(width, height)
    }

    /// CPU twin of the gather pass: the region's pixels of a frame `frame_width` wide, row by row
    /// (borrowed where the region spans whole rows, the whole frame included).
    pub fn crop<'a>(&self, words: &'a [u32], frame_width: u32) -> Cow<'a, [u32]> {
        if self.x == 0 && self.width == frame_width {
            let start = (self.y * frame_width) as usize;
            return Cow::Borrowed(&words[start..start + self.pixel_count() as usize]);
        }
        let mut out = Vec::with_capacity(self.pixel_count() as usize);
        for row in self.y..self.y + self.height {
            let start = (row * frame_width + self.x) as usize;
            out.extend_from_slice(&words[start..start + self.width as usize]);
        }
        Cow::Owned(out)
    }
}

/// Twin of `RegionParams` in region.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RegionParams {
    pub frame_width: u32,
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    pub _pad: [u32; 3],
}

impl RegionParams {
    pub fn new(region: Region, frame_width: u32) -> Self {
        Self {
            frame_width,
            x: region.x,
            y: region.y,
            width: region.width,
            height: region.height,
            _pad: [0; 3],
        }
    }
}

/// Workgroup size of the gather pass.
const GATHER_WG: u32 = 256;

/// The gather pass's pipeline.
pub struct GatherPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// One gather: a frame's pixels to a region buffer, with its parameters (updated in place).
pub struct GatherBinding {
    bind_group: wgpu::BindGroup,
    params: wgpu::Buffer,
    region: Region,
}

impl GatherPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("region gather"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, true),
                layout::storage(1, wgpu::ShaderStages::COMPUTE, false),
                layout::uniform(2, wgpu::ShaderStages::COMPUTE, false),
            ],
        });
        let module = shaders::module(device, "region gather", shaders::REGION.to_string());
        let pipeline = shaders::compute_pipeline(device, "region gather", &module, "gather", &layout);
        Self { pipeline, layout }
    }

    /// Binds a frame's pixels to `region_pixels`, which holds at least the frame's pixels.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        frame_pixels: &wgpu::Buffer,
        region_pixels: &wgpu::Buffer,
        region: Region,
        frame_width: u32,
    ) -> GatherBinding {
        use wgpu::util::DeviceExt;
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("region params"),
            contents: bytemuck::bytes_of(&RegionParams::new(region, frame_width)),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("region gather"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame_pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: region_pixels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        GatherBinding {
            bind_group,
            params,
            region,
        }
    }

    pub fn encode(&self, pass: &mut wgpu::ComputePass, binding: &GatherBinding) {
        let groups = binding.region.pixel_count().div_ceil(GATHER_WG);
        let (x, y) = crate::engine::reduce::spill(groups);
        pass.push_debug_group("region gather");
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &binding.bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
        pass.pop_debug_group();
    }
}

impl GatherBinding {
    /// Moves the region (a small queue write; the frame's width stays).
    pub fn set_region(&mut self, queue: &wgpu::Queue, region: Region, frame_width: u32) {
        self.region = region;
        queue.write_buffer(
            &self.params,
            0,
            bytemuck::bytes_of(&RegionParams::new(region, frame_width)),
        );
    }

    pub fn region(&self) -> Region {
        self.region
    }
}

/// The pixels a picture's histograms and scopes count: its own, or its region's gathered on the
/// GPU into a buffer of their own (run at once).
pub fn counted_pixels(ctx: &GpuContext, frame: &crate::gpu::texture::GpuFrame, region: Option<Region>) -> wgpu::Buffer {
    let Some(region) = region else {
        return frame.pixels.clone();
    };
    let pixels = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("region pixels"),
        size: frame.pixels.size(),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let gather = GatherPass::new(&ctx.device);
    let binding = gather.bind(&ctx.device, &frame.pixels, &pixels, region, frame.width);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        gather.encode(&mut pass, &binding);
    }
    ctx.queue.submit([encoder.finish()]);
    pixels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_parse_and_must_lie_inside_the_frame() {
        let r = Region::parse("10, 20,30,40").unwrap();
        assert_eq!((r.x, r.y, r.width, r.height), (10, 20, 30, 40));
        assert!(Region::parse("1,2,3").is_err());
        assert!(Region::parse("1,2,3,x").is_err());
        assert!(Region::parse("-1,2,3,4").is_err());
        assert_eq!(r.check(40, 60), Ok(r));
        assert!(matches!(r.check(39, 60), Err(RegionError::Outside { .. })));
        assert!(matches!(r.check(40, 59), Err(RegionError::Outside { .. })));
        assert!(matches!(
            Region::parse("0,0,0,5").unwrap().check(9, 9),
            Err(RegionError::Empty(_))
        ));
        let huge = Region::parse("4294967295,0,1,1").unwrap();
        assert!(huge.check(100, 100).is_err());
        assert_eq!(
            RegionError::Outside {
                region: "1,2,3,4".into(),
                width: 2,
                height: 2
            }
            .to_string(),
            "the region 1,2,3,4 is not inside the 2x2 frame"
        );
    }

    #[test]
    fn crop_keeps_the_rows_of_the_rectangle() {
        let words: Vec<u32> = (0..20).collect(); // 5 wide, 4 tall
        let r = Region::parse("1,2,3,2").unwrap();
        assert_eq!(*r.crop(&words, 5), [11, 12, 13, 16, 17, 18]);
        assert_eq!(*Region::full(5, 4).crop(&words, 5), words);
        assert!(matches!(Region::full(5, 4).crop(&words, 5), Cow::Borrowed(_)));
        assert_eq!(*Region::parse("0,1,5,2").unwrap().crop(&words, 5), words[5..15]);
    }
}
