//! The scopes on the GPU (shaders/scope/scope.wgsl): one dispatch per frame counts the frame
//! (or region) into one half of a scope's counts and zeroes the other half for the next frame,
//! so no clearing dispatch runs before it. Pipelines are made once per kind, bin count and
//! depth; a `ScopeTarget` binds one pixel buffer and is resized in place when the region
//! changes, so nothing is made per frame.

use super::cie::{self, Chromaticity};
use super::{ColumnCounts, ScopeKind, VECTORSCOPE_SIDE};
use crate::colour::{ColorVolume, Depth};
use crate::engine::reduce::spill;
use crate::gpu::shaders::{self, layout, Header};
use crate::gpu::{readback, GpuContext, GpuError};
use wgpu::util::DeviceExt;

const WG_SIZE: u32 = 256;
/// Pixels a columns-scope workgroup aims to count: enough to pay for clearing and adding its
/// tile, few enough that a 1080p frame still spreads over every SM.
const TILE_PIXELS: u32 = 16384;
/// Workgroup memory of a columns-scope tile. Small tiles keep many workgroups on each SM,
/// which pays more than the extra flushes cost (measured on an H100: 8 KiB tiles count a 4K
/// waveform in 19 µs, 48 KiB tiles in 74 µs).
const TILE_BYTES: u32 = 8192;
/// The density scopes' workgroups (vectorscope, CIE diagram): 1024 invocations share one
/// window of 16-bit counts, over chunks of 32768 pixels (a count never reaches 65536). Its
/// window is 128×128 cells, 32 KiB, where the adapter has that much workgroup memory (fewer
/// rows where not).
const VS_WG_SIZE: u32 = 1024;
const VS_CHUNK: u32 = 32768;
const VS_WINDOW_BYTES: u32 = 32768;
/// The most words of the spare half of the counts one invocation zeroes (see `encode_into`).
const ZEROED_EACH: u32 = 64;

/// Words before the two halves of a counts buffer (scope.wgsl's HEADER): the epoch, which says
/// the half the next pass counts into (epoch % 2; the other holds the counts last made), and
/// the pass's finished workgroups.
pub const HEADER_WORDS: usize = 4;

/// The counts last made, from a whole counts buffer's words (header and both halves).
pub fn shown(words: &[u32]) -> &[u32] {
    let half = (words.len() - HEADER_WORDS) / 2;
    let first = HEADER_WORDS + (words[0] as usize + 1) % 2 * half;
    &words[first..first + half]
}

/// Twin of `ScopeParams` in scope.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScopeParams {
    pub width: u32,
    pub height: u32,
    pub columns: u32,
    pub band_rows: u32,
    /// Words in each half of the counts.
    pub half_words: u32,
    /// The density window's first cell (the CIE diagram's; the vectorscope's is fixed).
    pub origin: [u32; 2],
    pub _pad: u32,
}

/// What a scope counts pixels of: bins and depth of the histograms beside it, and the source's
/// light (for the CIE diagram).
#[derive(Clone, Copy, Debug)]
pub struct ScopeShape {
    pub bins: u32,
    pub depth: Depth,
    pub volume: ColorVolume,
}

/// A scope's pipelines, for one kind, bin count and sample depth.
pub struct ScopePass {
    pub kind: ScopeKind,
    pub bins: u32,
    pub depth: Depth,
    /// Output columns per workgroup tile (columns scopes).
    pub columns_per_tile: u32,
    wg_size: u32,
    vs_loads: u32,
    vs_rows: u32,
    count: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// The scope a stage counts each frame, if any, and the passes it has made so far, one per
/// kind: switching back to a kind makes only its counts buffer.
#[derive(Default)]
pub struct ScopeCounting {
    current: Option<(ScopeKind, ScopeTarget)>,
    passes: Vec<ScopePass>,
}

impl ScopeCounting {
    /// Counts `kind` of `pixels` (`size` to start) in `columns` columns from now on; the first
    /// use of a kind builds its pipelines, for the shape's bins and depth.
    pub fn set(
        &mut self,
        ctx: &GpuContext,
        kind: ScopeKind,
        shape: ScopeShape,
        pixels: &wgpu::Buffer,
        columns: u32,
        size: (u32, u32),
    ) -> Result<(), GpuError> {
        if !self.passes.iter().any(|p| p.kind == kind) {
            self.passes.push(ScopePass::new(ctx, kind, shape.bins, shape.depth));
        }
        let pass = self.passes.iter().find(|p| p.kind == kind).expect("just made");
        self.current = Some((kind, pass.target(ctx, pixels, columns, size, &shape.volume)?));
        Ok(())
    }

    /// No scope from now on (the passes are kept).
    pub fn clear(&mut self) {
        self.current = None;
    }

    /// The scope counted: its kind and columns.
    pub fn counted(&self) -> Option<(ScopeKind, u32)> {
        self.current.as_ref().map(|(kind, target)| (*kind, target.columns))
    }

    /// The scope counted: its pass and counts.
    pub fn get(&self) -> Option<(&ScopePass, &ScopeTarget)> {
        let (kind, target) = self.current.as_ref()?;
        let pass = self.passes.iter().find(|p| p.kind == *kind)?;
        Some((pass, target))
    }

    /// The counts count `width`×`height` pixels of the same buffer from now on.
    pub fn resize(&mut self, queue: &wgpu::Queue, width: u32, height: u32) {
        if let Some((kind, target)) = &mut self.current {
            let pass = self
                .passes
                .iter()
                .find(|p| p.kind == *kind)
                .expect("a scope's pass is kept");
            target.resize(pass, queue, width, height);
        }
    }
}

/// One scope's counts for frames of one pixel buffer, with the size it counts.
pub struct ScopeTarget {
    /// The header and two halves of counts (see `shown`), zeroed when made.
    pub counts: wgpu::Buffer,
    pub columns: u32,
    params: ScopeParams,
    params_buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

impl ScopePass {
    pub fn new(ctx: &GpuContext, kind: ScopeKind, bins: u32, depth: Depth) -> Self {
        let device = &ctx.device;
        let limits = device.limits();
        let limit = limits.max_compute_workgroup_storage_size;
        let (wg_size, words) = match kind {
            ScopeKind::Vectorscope | ScopeKind::Cie => {
                let most = limits
                    .max_compute_invocations_per_workgroup
                    .min(limits.max_compute_workgroup_size_x);
                (VS_WG_SIZE.min(most), limit.min(VS_WINDOW_BYTES) / 4)
            }
            _ => (WG_SIZE, limit.min(TILE_BYTES) / 4),
        };
        // The CIE diagram keeps its linear-light table in workgroup memory beside its window.
        let linear_words = if kind == ScopeKind::Cie { 1 << depth.bits() } else { 1 };
        let words = words.min(limit / 4 - linear_words);
        // Loads go four at a time.
        let vs_loads = (VS_CHUNK / wg_size / 4).max(1) * 4;
        // The density scopes: 128 cells by as many rows as fit (16-bit counts, two a word), up
        // to 128. The columns scopes: as many output columns per tile as fit, up to 64.
        let (entry, header_bins, columns_per_tile, vs_rows) = match kind {
            ScopeKind::Vectorscope | ScopeKind::Cie => {
                // An even number of rows, half each side of the window's middle.
                let rows = (words * 2 / 128).clamp(2, 128) & !1;
                ("density", 16, 1, rows)
            }
            _ => ("columns_scope", bins, (words / (bins * kind.planes())).clamp(1, 64), 2),
        };
        let header = Header::new(header_bins)
            .depth(depth)
            .with("WG_X", wg_size)
            .with("PLANES", kind.planes())
            .with("COLUMNS_PER_TILE", columns_per_tile)
            .with("VS_ROWS", vs_rows)
            .with("VS_LOADS", vs_loads)
            .with("CIE", u32::from(kind == ScopeKind::Cie))
            .with("LINEAR_WORDS", linear_words);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scope"),
            entries: &[
                layout::storage(0, wgpu::ShaderStages::COMPUTE, true),
                layout::uniform(1, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(2, wgpu::ShaderStages::COMPUTE, false),
                layout::storage(3, wgpu::ShaderStages::COMPUTE, true),
            ][..if kind.is_square() { 4 } else { 3 }],
        });
        let source = shaders::compute_source(&header, shaders::SCOPE);
        let module = shaders::trusted_module(device, kind.name(), source);
        Self {
            kind,
            bins,
            depth,
            columns_per_tile,
            wg_size,
            vs_loads,
            vs_rows,
            count: shaders::compute_pipeline(device, kind.name(), &module, entry, &layout),
            layout,
        }
    }

    /// Counts of this scope with `columns` columns (the CIE diagram: cells a side, at most
    /// `cie::MAX_SIZE`; ignored by the vectorscope), for frames or regions held in `pixels`,
    /// sized `width`×`height` to start, of a source of `volume` (for the CIE diagram).
    pub fn target(
        &self,
        ctx: &GpuContext,
        pixels: &wgpu::Buffer,
        columns: u32,
        (width, height): (u32, u32),
        volume: &ColorVolume,
    ) -> Result<ScopeTarget, GpuError> {
        let device = &ctx.device;
        let columns = match self.kind {
            ScopeKind::Vectorscope => 0,
            ScopeKind::Cie => columns.clamp(1, cie::MAX_SIZE),
            _ => columns,
        };
        let words = HEADER_WORDS as u64 + 2 * u64::from(self.count_words(columns));
        let bytes = words * 4;
        if bytes > device.limits().max_storage_buffer_binding_size {
            return Err(GpuError::TooManyColumns {
                columns,
                bins: self.bins,
            });
        }
        let counts = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scope counts"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let params = self.params(columns, width, height);
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("scope params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        // The density scopes share one entry point, which reads the CIE table (the vectorscope
        // binds an empty one).
        let table = match self.kind {
            ScopeKind::Cie => Chromaticity::new(volume, self.depth.bits()).words(),
            _ => vec![0; cie::TABLE_OFFSET],
        };
        let chromaticity = self.kind.is_square().then(|| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("cie table"),
                contents: bytemuck::cast_slice(&table),
                usage: wgpu::BufferUsages::STORAGE,
            })
        });
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: pixels.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: params_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: counts.as_entire_binding(),
            },
        ];
        if let Some(table) = &chromaticity {
            entries.push(wgpu::BindGroupEntry {
                binding: 3,
                resource: table.as_entire_binding(),
            });
        }
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scope"),
            layout: &self.layout,
            entries: &entries,
        });
        Ok(ScopeTarget {
            counts,
            columns,
            params,
            params_buffer,
            bind_group,
        })
    }

    fn count_words(&self, columns: u32) -> u32 {
        match self.kind {
            ScopeKind::Vectorscope => VECTORSCOPE_SIDE * VECTORSCOPE_SIDE,
            ScopeKind::Cie => columns * columns,
            kind => kind.planes() * columns * self.bins,
        }
    }

    fn params(&self, columns: u32, width: u32, height: u32) -> ScopeParams {
        // A tile is columns_per_tile output columns wide: about that many C-ths of the width.
        let tile_width = (u64::from(self.columns_per_tile) * u64::from(width) / u64::from(columns.max(1))).max(1);
        let band_rows = (u64::from(TILE_PIXELS) / tile_width).clamp(1, u64::from(height.max(1))) as u32;
        // The CIE diagram's window: 128 cells across, centred on the white point, and as many
        // rows as the window has, half of them below it.
        let (white_x, white_y) = cie::white_cell(columns);
        let rows = self.vs_rows;
        ScopeParams {
            width,
            height,
            columns,
            band_rows,
            half_words: self.count_words(columns),
            origin: [white_x.saturating_sub(64), white_y.saturating_sub(rows / 2)],
            _pad: 0,
        }
    }

    /// Counts the target's pixels into its counts: one compute pass.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &ScopeTarget,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(self.kind.name()),
            timestamp_writes,
        });
        self.encode_into(&mut pass, target);
    }

    /// Records the count into an open compute pass: one dispatch, of one workgroup at least
    /// (an empty region still moves the epoch on, to counts of nothing) and of enough that the
    /// zeroing of the spare half is spread out.
    pub fn encode_into(&self, pass: &mut wgpu::ComputePass, target: &ScopeTarget) {
        let p = target.params;
        pass.push_debug_group(self.kind.name());
        pass.set_bind_group(0, &target.bind_group, &[]);
        pass.set_pipeline(&self.count);
        // Workgroups enough that each invocation zeroes at most ZEROED_EACH words of the other
        // half, however small the region (those past the pixels only zero).
        let least = p.half_words.div_ceil(self.wg_size * ZEROED_EACH).max(1);
        let (x, y) = match self.kind {
            ScopeKind::Vectorscope | ScopeKind::Cie => {
                spill((p.width * p.height).div_ceil(self.wg_size * self.vs_loads).max(least))
            }
            _ => {
                let tiles = p.columns.div_ceil(self.columns_per_tile).max(1);
                (tiles, p.height.div_ceil(p.band_rows).max(least.div_ceil(tiles)))
            }
        };
        pass.dispatch_workgroups(x, y, 1);
        pass.pop_debug_group();
    }

    /// Reads a columns scope's counts back (headless commands and tests).
    pub fn read_columns(&self, ctx: &GpuContext, target: &ScopeTarget) -> Result<ColumnCounts, GpuError> {
        Ok(ColumnCounts {
            columns: target.columns,
            bins: self.bins,
            planes: self.kind.planes(),
            counts: self.read(ctx, target)?,
        })
    }

    /// Reads the counts last made back as words.
    pub fn read(&self, ctx: &GpuContext, target: &ScopeTarget) -> Result<Vec<u32>, GpuError> {
        let bytes = readback::read_buffer(ctx, &target.counts, 0, target.counts.size())?;
        Ok(shown(&readback::words(&bytes)).to_vec())
    }
}

impl ScopeTarget {
    /// Counts `width`×`height` pixels from now on (a region moved): a small queue write.
    pub fn resize(&mut self, pass: &ScopePass, queue: &wgpu::Queue, width: u32, height: u32) {
        self.params = pass.params(self.columns, width, height);
        queue.write_buffer(&self.params_buffer, 0, bytemuck::bytes_of(&self.params));
    }

    /// The size counted: (width, height).
    pub fn size(&self) -> (u32, u32) {
        (self.params.width, self.params.height)
    }
}
