//! GPU passes. Each owns its pipeline and layouts, built once, and records into the frame's
//! command encoder with `encode`.

pub mod chunk;
pub mod histogram;
pub mod overlay;
pub mod picture;
pub mod reduce;
pub mod scale;
