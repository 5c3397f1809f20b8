//! How long each GPU pass of a frame took, for the stats overlay: every timed pass writes a
//! timestamp as it begins and ends, and a frame's are read back without ever being waited for.

use std::cell::Cell;
use std::ops::Range;

use super::mapping::LatestReadback;

/// The most passes one timer holds: which passes a frame ran is kept as one bit each.
pub const MAX_PASSES: usize = 64;

/// Frames whose timestamps may be on their way back at once; with all of them in flight, a
/// frame's timings are skipped.
const BUFFERS: usize = 3;

/// A pass's two timestamps, begin then end, in the readback buffer.
const PASS_BYTES: u64 = 2 * wgpu::QUERY_SIZE as u64;

/// Timestamps are resolved one pass at a time, each to an offset wgpu accepts for a resolve.
const RESOLVE_STRIDE: u64 = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;

/// One frame's GPU time per pass, in the order the timer's passes were named.
#[derive(Clone, Debug, PartialEq)]
pub struct Timings {
    /// Each pass's name and its milliseconds on the GPU; None for a pass that frame did not run.
    pub passes: Vec<(&'static str, Option<f64>)>,
}

/// Begin and end timestamps for a fixed list of named passes, made once with the device. A pass
/// is timed by handing `compute_writes` or `render_writes` to its descriptor; `finish` copies
/// the frame's timestamps out and `latest` reads the newest frame that has landed.
pub struct PassTimer {
    names: Vec<&'static str>,
    /// Query 2i is pass i's begin, 2i + 1 its end.
    queries: wgpu::QuerySet,
    /// Pass i's timestamps resolve to `i * RESOLVE_STRIDE`.
    resolve: wgpu::Buffer,
    /// Each frame's timestamps packed pass after pass, tagged with the bits of the passes it ran.
    readback: LatestReadback<u64>,
    /// Bit i: pass i was handed its timestamp writes since the last `finish`. Passes not run
    /// keep an older frame's timestamps (or none at all), which are never read.
    written: Cell<u64>,
    /// Nanoseconds per timestamp tick.
    tick_ns: f64,
}

impl PassTimer {
    /// A timer for the passes `names`, or None when the device has no timestamp queries (the
    /// overlay then shows no GPU times).
    ///
    /// # Panics
    /// On an empty list, or one of more than `MAX_PASSES` names.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, names: &[&'static str]) -> Option<Self> {
        assert!(
            !names.is_empty() && names.len() <= MAX_PASSES,
            "a pass timer holds 1 to {MAX_PASSES} passes, not {}",
            names.len()
        );
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let passes = names.len() as u64;
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * names.len() as u32,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pass timestamps resolve"),
            size: passes * RESOLVE_STRIDE,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Some(Self {
            names: names.to_vec(),
            queries,
            resolve,
            readback: LatestReadback::new(device, "pass timestamps", passes * PASS_BYTES, BUFFERS),
            written: Cell::new(0),
            tick_ns: f64::from(queue.get_timestamp_period()),
        })
    }

    /// The names the timer was made with; a pass's index is its place here.
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }

    /// The `timestamp_writes` of compute pass `pass`, which counts as run this frame.
    pub fn compute_writes(&self, pass: usize) -> wgpu::ComputePassTimestampWrites<'_> {
        let queries = self.queries_of(pass);
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(queries.start),
            end_of_pass_write_index: Some(queries.end - 1),
        }
    }

    /// The `timestamp_writes` of render pass `pass`, which counts as run this frame.
    pub fn render_writes(&self, pass: usize) -> wgpu::RenderPassTimestampWrites<'_> {
        let queries = self.queries_of(pass);
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(queries.start),
            end_of_pass_write_index: Some(queries.end - 1),
        }
    }

    /// Marks `pass` as run this frame; its two queries. Panics on a pass the timer was not made
    /// with.
    fn queries_of(&self, pass: usize) -> Range<u32> {
        assert!(
            pass < self.names.len(),
            "pass {pass} of a timer with {} passes",
            self.names.len()
        );
        self.written.set(self.written.get() | (1 << pass));
        let begin = 2 * pass as u32;
        begin..begin + 2
    }

    /// After the frame's timed passes, in the same encoder: copies their timestamps into a free
    /// readback buffer. With every buffer in flight this frame's timings are skipped.
    pub fn finish(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let ran = self.written.take();
        if ran == 0 {
            return;
        }
        let (queries, resolve) = (&self.queries, &self.resolve);
        // Only the passes that ran are resolved: the others' queries may never have been written.
        self.readback.record(ran, |buffer| {
            for pass in (0..MAX_PASSES).filter(|p| ran & (1 << p) != 0) {
                let first = 2 * pass as u32;
                let at = pass as u64 * RESOLVE_STRIDE;
                encoder.resolve_query_set(queries, first..first + 2, resolve, at);
                encoder.copy_buffer_to_buffer(resolve, at, buffer, pass as u64 * PASS_BYTES, PASS_BYTES);
            }
        });
    }

    /// After the encoder `finish` recorded into is submitted: starts reading the timestamps back.
    pub fn submitted(&mut self) {
        self.readback.submitted();
    }

    /// Whether a frame's timestamps are on their way (the caller keeps polling the device, or
    /// has the GPU wait thread wait, until they land).
    pub fn pending(&self) -> bool {
        self.readback.pending()
    }

    /// The newest frame whose timestamps have landed, freeing the buffers of every finished
    /// frame. Mappings land only in a device poll (`PollType::Poll` here, or a waiting poll on
    /// another thread); this never polls and never waits.
    pub fn latest(&mut self) -> Option<Timings> {
        let (names, tick_ns) = (&self.names, self.tick_ns);
        let (_, timings) = self.readback.take_latest(|ran, bytes| {
            let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(bytes);
            let passes = names
                .iter()
                .enumerate()
                .map(|(pass, &name)| {
                    let ms = (ran & (1 << pass) != 0).then(|| {
                        // Some GPUs' clocks step back a little across passes; that is no time.
                        let elapsed = ticks[2 * pass + 1].saturating_sub(ticks[2 * pass]);
                        elapsed as f64 * tick_ns / 1e6
                    });
                    (name, ms)
                })
                .collect();
            Timings { passes }
        })?;
        Some(timings)
    }
}

#[cfg(test)]
mod tests {
    use super::PassTimer;
    use crate::gpu::GpuContext;

    /// Something for a timed pass to do.
    const FILL: &str = "
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(64)
        fn main(@builtin(global_invocation_id) id: vec3<u32>) {
            out[id.x] = id.x * 3u;
        }
    ";

    struct Fill {
        pipeline: wgpu::ComputePipeline,
        bind_group: wgpu::BindGroup,
    }

    impl Fill {
        fn new(device: &wgpu::Device) -> Self {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("timing test fill"),
                source: wgpu::ShaderSource::Wgsl(FILL.into()),
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("timing test fill"),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
            let out = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timing test out"),
                size: 64 * 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("timing test fill"),
                layout: &pipeline.get_bind_group_layout(0),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: out.as_entire_binding(),
                }],
            });
            Self { pipeline, bind_group }
        }

        fn encode(&self, encoder: &mut wgpu::CommandEncoder, timer: &PassTimer, pass: usize) {
            let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(timer.names()[pass]),
                timestamp_writes: Some(timer.compute_writes(pass)),
            });
            compute.set_pipeline(&self.pipeline);
            compute.set_bind_group(0, &self.bind_group, &[]);
            compute.dispatch_workgroups(1, 1, 1);
        }
    }

    /// Runs `passes` as one frame and waits for the GPU; the timings that landed.
    fn frame(ctx: &GpuContext, timer: &mut PassTimer, fill: &Fill, passes: &[usize]) -> Option<super::Timings> {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for &pass in passes {
            fill.encode(&mut encoder, timer, pass);
        }
        timer.finish(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        timer.submitted();
        ctx.wait_idle().expect("the GPU ran the timed passes");
        timer.latest()
    }

    #[test]
    fn passes_run_get_times_and_the_rest_none() {
        let ctx = GpuContext::new().expect("tests need a GPU adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
        let names = ["first", "second"];
        let Some(mut timer) = PassTimer::new(&ctx.device, &ctx.queue, &names) else {
            assert!(
                !ctx.has_timestamps(),
                "the device has timestamp queries but no timer was made"
            );
            return;
        };
        let fill = Fill::new(&ctx.device);

        let only_first = frame(&ctx, &mut timer, &fill, &[0]).expect("the first frame's timings landed");
        assert_eq!(only_first.passes.len(), 2);
        let (name, first) = only_first.passes[0];
        assert_eq!(name, "first");
        assert!(first.is_some_and(|ms| ms.is_finite() && ms >= 0.0), "{first:?}");
        assert_eq!(only_first.passes[1], ("second", None));
        assert!(!timer.pending());
        assert_eq!(timer.latest(), None, "a frame's timings are taken once");

        let both = frame(&ctx, &mut timer, &fill, &[0, 1]).expect("the second frame's timings landed");
        let names_got: Vec<_> = both.passes.iter().map(|(name, _)| *name).collect();
        assert_eq!(names_got, names);
        for (name, ms) in both.passes {
            assert!(ms.is_some_and(|ms| ms.is_finite() && ms >= 0.0), "{name}: {ms:?}");
        }

        // A frame that timed nothing reads nothing back.
        assert_eq!(frame(&ctx, &mut timer, &fill, &[]), None);
        assert!(!timer.pending());
    }
}
