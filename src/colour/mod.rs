//! Colour science every layer shares, with nothing of histoplay's beneath it: transfer functions
//! (PQ, HLG, BT.1886), primaries and their RGB → XYZ and gamut-conversion matrices, Y'CbCr
//! matrices and code ranges, the depth of packed pixels, camera log encodings and their display
//! rendering, and look-up tables (`.cube`). Pure functions of std types; the
//! WGSL twins of the transfer functions are in `shaders/colour/`.
//!
//! The types are re-exported here; the functions are reached through their module
//! (`colour::transfer::pq_eotf`, `colour::primaries::rgb_to_xyz`).

pub mod depth;
pub mod log;
pub mod lut;
pub mod primaries;
pub mod transfer;
pub mod ycbcr;

pub use depth::Depth;
pub use log::LogEncoding;
pub use primaries::{ColorVolume, Primaries};
pub use transfer::Transfer;
pub use ycbcr::{ColorSpec, Matrix, Range};
