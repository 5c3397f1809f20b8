//! Video in: FFmpeg demuxing and decoding on its own thread, frames uploaded into a ring of GPU
//! plane textures, converted to RGB on the GPU. Knows nothing of windows.

pub mod anchors;
pub mod cache;
pub mod cadence;
pub mod continuity;
pub mod convert;
pub mod decoder;
pub mod deinterlace;
pub mod demux;
pub mod ffmpeg_log;
pub mod format;
pub mod index;
pub mod input;
pub mod interop;
pub mod memory;
pub mod missing;
pub mod planes;
pub mod record;
pub mod ring;
pub mod source;
pub mod stages;
pub mod still;
pub mod timecode;
