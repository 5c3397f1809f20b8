//! The headless commands' own parts: histograms of video frames streamed out (`hist`), the
//! report formats, still images in and out, and a progress line.

pub mod hist;
pub mod progress;
pub mod report;
pub mod still;
