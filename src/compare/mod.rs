//! Comparing a picture with its reference (`histoplay compare`, `--compare`): the metrics stage
//! (PSNR, MSE and SSIM as FFmpeg's filters compute them) and what drives it.

pub mod composite;
pub mod gpu;
pub mod metrics;
