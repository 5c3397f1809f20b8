//! The headless commands' own parts: histograms and scopes of video frames streamed out (`hist`,
//! `scope`), the report formats, still images in and out, and a progress line.

pub mod compare;
pub mod hist;
pub mod progress;
pub mod qc;
pub mod qc_batch;
pub mod qc_limits;
pub mod qc_xml;
pub mod report;
pub mod scope;
pub mod still;
