//! Measurements: the articles' kernels against histoplay's engine (`bench`), the whole frame
//! pipeline and navigation (`bench-pipeline`), sound against picture (`bench-av`), and the clips
//! they run on (`make-clip`).

pub mod adjust;
pub mod av;
pub mod clips;
pub mod compare;
pub mod kernels;
pub mod marks;
pub mod pipeline;
pub mod scopes;
pub mod variants;
