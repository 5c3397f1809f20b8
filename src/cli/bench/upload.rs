//! The upload's rows of `histoplay bench`: what writing a decoded 4:2:0 frame's rows into
//! staging memory and queueing their copy into a ring slot costs the upload thread, through
//! wgpu's own mapped buffers (`UploadStaging::new`, the ring's: on a discrete GPU its memory,
//! across the bus) and through the machine's memory mapped for good (`in_host_memory`, Vulkan),
//! each checked first by reading the planes back from the textures. Wall clock of the call on the CPU, a frame
//! at a time, into a ring's worth of slots in turn, as the upload thread writes them.

use super::compare::{planes, view, yuv420};
use super::timing::{BenchError, Row, Timing, VARIANT_BUDGET};
use crate::gpu::readback::read_buffer;
use crate::gpu::GpuContext;
use crate::video::convert::{PlaneTextures, UploadStaging};
use crate::video::format::PlaneData;
use crate::video::planes::plane_rows;
use crate::video::ring::RING_SLOTS;
use crate::video::still::RgbaImage;
use std::time::Instant;

const VARIANT: &str = "upload";

fn failed(detail: impl ToString) -> BenchError {
    BenchError::Mismatch {
        variant: VARIANT,
        detail: detail.to_string(),
    }
}

pub fn rows(ctx: &GpuContext, image: &RgbaImage, iters: usize) -> Result<Vec<Row>, BenchError> {
    let format = yuv420(image, 8);
    let data = planes(image, 8, 0);
    let frame = view(&data);
    let mut rows = Vec::new();
    for host in [false, true] {
        let staging = match host {
            false => UploadStaging::new(&ctx.device, "bench upload", &format, RING_SLOTS),
            true => UploadStaging::in_host_memory(&ctx.device, "bench upload", &format, RING_SLOTS),
        }
        .map_err(failed)?;
        let name = match (host, staging.is_host_memory()) {
            (false, _) => "upload: a 4:2:0 frame's rows into wgpu's mapped memory, the copy queued",
            (true, true) => "  the same into the machine's memory, mapped for good",
            // (Not Vulkan: wgpu's buffers again.)
            (true, false) => "  the same into wgpu's mapped memory again (no Vulkan)",
        };
        let slots = (0..RING_SLOTS)
            .map(|i| PlaneTextures::sharing(&ctx.device, &format!("bench upload {i}"), format, staging.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed)?;
        rows.push(Row {
            name: name.into(),
            outcome: Ok(time_uploads(ctx, &slots, &frame, iters)?),
        });
    }
    Ok(rows)
}

/// Uploads `frame` into the slots in turn, each checked once, then timed: a sample a frame.
fn time_uploads(
    ctx: &GpuContext,
    slots: &[PlaneTextures],
    frame: &[PlaneData],
    iters: usize,
) -> Result<Timing, BenchError> {
    for slot in slots {
        slot.upload(&ctx.queue, frame).map_err(failed)?;
    }
    for slot in slots {
        check(ctx, slot, frame)?;
    }
    let runs = iters.max(3 * slots.len());
    let started = Instant::now();
    let mut samples = Vec::with_capacity(runs);
    for n in 0..runs {
        let at = Instant::now();
        slots[n % slots.len()].upload(&ctx.queue, frame).map_err(failed)?;
        samples.push(at.elapsed().as_secs_f64() * 1e3);
        // What the thread recording the GPU work does meanwhile: callbacks fired.
        let _ = ctx.device.poll(wgpu::PollType::Poll);
        if started.elapsed() > VARIANT_BUDGET && samples.len() >= 3 {
            break;
        }
    }
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    Ok(Timing::from_samples(samples))
}

/// The slot's planes, read back, equal `frame`'s rows.
fn check(ctx: &GpuContext, slot: &PlaneTextures, frame: &[PlaneData]) -> Result<(), BenchError> {
    let (rows, size) = plane_rows(&slot.format);
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench upload check"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    slot.encode_copy_out(&mut encoder, &buffer, &rows);
    ctx.queue.submit([encoder.finish()]);
    let back = read_buffer(ctx, &buffer, 0, size)?;
    for (index, (plane, rows)) in frame.iter().zip(&rows).enumerate() {
        for row in 0..rows.rows {
            let at = rows.offset as usize + row * rows.pitch as usize;
            let expected = &plane.data[row * plane.stride..row * plane.stride + rows.row_bytes];
            if &back[at..at + rows.row_bytes] != expected {
                return Err(failed(format!("plane {index} row {row} differs from the frame's")));
            }
        }
    }
    Ok(())
}
