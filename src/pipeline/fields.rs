//! The stages that read a frame's planes as decoded, kept with its neighbours' (the last three
//! frames'): deinterlacing (which makes each picture into a ring slot before anything reads
//! it), interlace detection, and the split into fields (each field a picture of its own, half
//! the frame's height, that every pass counts alone). The front end keeps each frame's planes
//! (`kept`) as it comes and runs these stages a frame late, once the frame after it is in.

use super::FramePipeline;
use crate::gpu::GpuContext;
use crate::idet::gpu::IdetPass;
use crate::video::deinterlace::gpu::DeinterlacePass;
use crate::video::deinterlace::kept::{KeptFrames, KEPT};
use crate::video::deinterlace::{Deinterlacer, Field};
use crate::video::format::FrameFormat;
use crate::video::planes::{plane_rows, PlaneRows};
use crate::video::ring::{FrameRing, RingError};

/// The frames' own ring where their fields are counted apart, and where each field's rows are
/// in the frames kept: `rows[section][field]`, every other row of each plane.
pub struct SplitFields {
    ring: FrameRing,
    rows: Vec<[Vec<PlaneRows>; 2]>,
}

/// The window's fields-apart view: a frame's planes copied out, then back into `slot` with its
/// top field's lines above its bottom field's (FFmpeg's `il=l=d:c=d`).
pub struct FieldsApart {
    slot: usize,
    staging: wgpu::Buffer,
    planes: Vec<PlaneRows>,
}

impl FramePipeline {
    fn keep_frames(&mut self, ctx: &GpuContext) -> &KeptFrames {
        let format = self.decoded_format();
        self.kept.get_or_insert_with(|| KeptFrames::new(&ctx.device, &format))
    }

    /// The frames' format as decoded (where fields are split, not the pipeline's own).
    pub fn decoded_format(&self) -> FrameFormat {
        self.decoded_ring().format
    }

    /// The ring the decoder fills: the pipeline's, or where fields are split the frames' own.
    pub fn decoded_ring(&self) -> &FrameRing {
        self.split.as_ref().map_or(&self.ring, |split| &split.ring)
    }

    /// Counts each field of the frames on its own, as FFmpeg's `field` filter makes it: the
    /// pipeline is made again for pictures of half the frames' height (in two ring slots, the
    /// top field's and the bottom's), and the frames are decoded into a ring of their own. Made
    /// before any other stage. Fails where a field has no whole lines to take: a height the
    /// fields can't share evenly (an odd one, or 4:2:0 chroma of an odd number of lines).
    pub fn split_fields(&mut self, ctx: &GpuContext) -> Result<(), String> {
        let decoded = self.ring.format;
        let field = field_format(&decoded)?;
        let pipeline =
            FramePipeline::new(ctx, self.engine.bins, field, self.volume, 2).map_err(|e: RingError| e.to_string())?;
        let frames = std::mem::replace(self, pipeline);
        let kept = KeptFrames::new(&ctx.device, &decoded);
        let (field_planes, _) = plane_rows(&field);
        let rows = (0..KEPT as u64)
            .map(|section| {
                Field::BOTH.map(|f| {
                    kept.planes()
                        .iter()
                        .zip(&field_planes)
                        .map(|(frame_rows, field_rows)| PlaneRows {
                            offset: kept.at(section) + frame_rows.offset + u64::from(frame_rows.pitch) * f as u64,
                            pitch: 2 * frame_rows.pitch,
                            ..*field_rows
                        })
                        .collect()
                })
            })
            .collect();
        self.kept = Some(kept);
        self.split = Some(SplitFields {
            ring: frames.ring,
            rows,
        });
        Ok(())
    }

    /// Whether fields are split.
    pub fn splits_fields(&self) -> bool {
        self.split.is_some()
    }

    /// Records taking field `field` of frame `frame` (kept) into the ring slot counted next:
    /// every other line of each plane. Returns that slot.
    pub fn encode_field(&self, encoder: &mut wgpu::CommandEncoder, frame: u64, field: Field) -> usize {
        let (Some(kept), Some(split)) = (&self.kept, &self.split) else {
            panic!("fields are split from the frames kept");
        };
        let slot = field as usize;
        let rows = &split.rows[KeptFrames::section(frame)][slot];
        self.ring.slots[slot].encode_copy_in(encoder, kept.buffer(), rows);
        slot
    }

    /// Deinterlaces each frame's planes with `filter` before anything reads them: the front
    /// end makes each picture into a ring slot (`deinterlacer`) before encoding that slot.
    pub fn deinterlace(&mut self, ctx: &GpuContext, filter: Deinterlacer) {
        let pass = DeinterlacePass::new(&ctx.device, self.keep_frames(ctx), filter);
        self.deinterlace = Some(pass);
    }

    /// The deinterlacing pass, once asked for.
    pub fn deinterlacer(&self) -> Option<&DeinterlacePass> {
        self.deinterlace.as_ref()
    }

    /// Sums each frame's idet statistics (`idet`); false where the stream's frames are not
    /// ones idet reads (RGB).
    pub fn detect_interlace(&mut self, ctx: &GpuContext) -> bool {
        if self.idet.is_none() && IdetPass::supports(&self.ring.format) {
            let pass = IdetPass::new(&ctx.device, self.keep_frames(ctx));
            self.idet = Some(pass);
        }
        self.idet.is_some()
    }

    /// The interlace detection pass, once asked for.
    pub fn idet(&self) -> Option<&IdetPass> {
        self.idet.as_ref()
    }

    /// Shows each frame with its fields apart, made into ring slot `slot` (None: as it is).
    /// Fails where the fields are not of one height.
    pub fn show_fields_apart(&mut self, ctx: &GpuContext, slot: Option<usize>) -> Result<(), String> {
        let Some(slot) = slot else {
            self.fields_apart = None;
            return Ok(());
        };
        field_format(&self.ring.format)?;
        let (planes, bytes) = plane_rows(&self.ring.format);
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("fields apart"),
            size: bytes,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.fields_apart = Some(FieldsApart { slot, staging, planes });
        Ok(())
    }

    /// Records making ring slot `slot`'s frame, fields apart, into the view's slot where the
    /// fields are shown apart; returns the slot to count and show.
    pub fn encode_fields_apart(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) -> usize {
        let Some(apart) = &self.fields_apart else {
            return slot;
        };
        let (from, to) = (&self.ring.slots[slot], &self.ring.slots[apart.slot]);
        from.encode_copy_out(encoder, &apart.staging, &apart.planes);
        for (i, rows) in apart.planes.iter().enumerate() {
            let Some(texture) = to.plane_texture(i) else { continue };
            let half = (rows.rows / 2) as u32;
            for field in Field::BOTH {
                let at = field as u32;
                encoder.copy_buffer_to_texture(
                    wgpu::TexelCopyBufferInfo {
                        buffer: &apart.staging,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: rows.offset + u64::from(rows.pitch * at),
                            bytes_per_row: Some(2 * rows.pitch),
                            rows_per_image: None,
                        },
                    },
                    wgpu::TexelCopyTextureInfo {
                        texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d {
                            x: 0,
                            y: half * at,
                            z: 0,
                        },
                        aspect: wgpu::TextureAspect::All,
                    },
                    wgpu::Extent3d {
                        height: half,
                        ..rows.extent
                    },
                );
            }
        }
        apart.slot
    }

    /// The frames kept, where a stage reads them.
    pub fn kept(&self) -> Option<&KeptFrames> {
        self.kept.as_ref()
    }
}

/// The format of a field of frames of `format`: half the height. Every plane's field must be
/// whole lines of the frame's (both fields the same height).
pub fn field_format(format: &FrameFormat) -> Result<FrameFormat, String> {
    let field = FrameFormat {
        height: format.height / 2,
        ..*format
    };
    let (frame_planes, _) = plane_rows(format);
    let (field_planes, _) = plane_rows(&field);
    let whole = format.height % 2 == 0
        && frame_planes
            .iter()
            .zip(&field_planes)
            .all(|(frame, field)| 2 * field.rows == frame.rows);
    match whole {
        true => Ok(field),
        false => Err(format!(
            "the fields of {}x{} {} frames are not of one height (each would need half the frame's lines, its chroma's too)",
            format.width, format.height, format.layout
        )),
    }
}
