//! Drawing: the picture fitted to the window with the histogram quads over it (the scene and
//! its layout, the picture and overlay passes), on screen or offscreen (`headless::offscreen`).

pub mod adjust;
pub mod layout;
pub mod lut;
pub mod notes;
pub mod overlay;
pub mod peak;
pub mod picture;
pub mod scene;
pub mod tonemap;
