//! The stages that read a frame with its neighbours, from the last three frames' planes kept
//! as decoded: deinterlacing (which makes each picture into a ring slot before anything reads
//! it) and interlace detection. The front end keeps each frame's planes (`kept`) as it comes
//! and runs these stages a frame late, once the frame after it is in.

use super::FramePipeline;
use crate::gpu::GpuContext;
use crate::idet::gpu::IdetPass;
use crate::video::deinterlace::gpu::DeinterlacePass;
use crate::video::deinterlace::kept::KeptFrames;
use crate::video::deinterlace::Deinterlacer;

impl FramePipeline {
    fn keep_frames(&mut self, ctx: &GpuContext) -> &KeptFrames {
        let format = self.ring.format;
        self.kept.get_or_insert_with(|| KeptFrames::new(&ctx.device, &format))
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

    /// The frames kept, where a stage reads them.
    pub fn kept(&self) -> Option<&KeptFrames> {
        self.kept.as_ref()
    }
}
