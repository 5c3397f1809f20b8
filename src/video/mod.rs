//! Video in: FFmpeg demuxing and decoding on its own thread, frames uploaded into a ring of GPU
//! plane textures, converted to RGB on the GPU. Knows nothing of windows.

pub mod convert;
pub mod decoder;
pub mod format;
pub mod ring;
pub mod source;
