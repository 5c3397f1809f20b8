//! Comparing a picture with its reference (`histoplay compare`, `render --compare`): the
//! metrics stage (PSNR, MSE and SSIM as FFmpeg's filters compute them: `metrics` on the CPU,
//! `gpu` on the GPU) and the composite stage that shows the two together (`composite`).

pub mod align;
pub mod composite;
pub mod gpu;
pub mod metrics;
pub mod stage;
