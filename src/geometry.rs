//! Geometry every drawing pass shares: rectangles in clip space, and a picture's orientation.
//! Pure, with no GPU and nothing of histoplay's beneath it.

/// A rectangle in clip space (x and y in -1..1, y up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub left: f32,
    pub bottom: f32,
    pub right: f32,
    pub top: f32,
}

impl Rect {
    pub const FULL: Rect = Rect {
        left: -1.0,
        bottom: -1.0,
        right: 1.0,
        top: 1.0,
    };

    pub fn to_array(self) -> [f32; 4] {
        [self.left, self.bottom, self.right, self.top]
    }

    /// The pixel box this rectangle covers in a viewport, rounded outwards: (x0, y0, x1, y1),
    /// y down, clamped to the viewport.
    pub fn to_pixels(self, width: u32, height: u32) -> (u32, u32, u32, u32) {
        let px = |x: f32| ((x + 1.0) * 0.5 * width as f32).clamp(0.0, width as f32);
        let py = |y: f32| ((1.0 - y) * 0.5 * height as f32).clamp(0.0, height as f32);
        (
            px(self.left).round() as u32,
            py(self.top).round() as u32,
            px(self.right).round() as u32,
            py(self.bottom).round() as u32,
        )
    }
}

/// How the quad's texcoords map to the texture's: rotation in quarter turns, clockwise, as a
/// display matrix asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Orientation {
    pub quarter_turns: u32,
    /// Only the top (0) or bottom (1) half of the texture's rows, over the whole picture, each
    /// row twice as tall (one field of a picture whose fields are apart, line-doubled); and the
    /// texture's rows, so that each screen row shows one of them, not a blend of two.
    pub half: Option<(u32, u32)>,
}

impl Orientation {
    /// (uv_x, uv_y) rows of the affine map from screen texcoord to texture texcoord.
    /// With `half`, v is halved onto its half, and uv_y's fourth number is the texture's rows
    /// (to snap to: 0 otherwise).
    pub fn uv_rows(self) -> ([f32; 4], [f32; 4]) {
        let (uv_x, uv_y) = match self.quarter_turns % 4 {
            0 => ([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]),
            // turned 90° clockwise: screen (x, y) shows texture (y, 1 - x)
            1 => ([0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 1.0, 0.0]),
            2 => ([-1.0, 0.0, 1.0, 0.0], [0.0, -1.0, 1.0, 0.0]),
            _ => ([0.0, -1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
        };
        match self.half {
            Some((half, rows)) => (
                uv_x,
                [
                    0.5 * uv_y[0],
                    0.5 * uv_y[1],
                    0.5 * uv_y[2] + 0.5 * half as f32,
                    rows as f32,
                ],
            ),
            None => (uv_x, uv_y),
        }
    }

    /// Whether width and height swap on screen.
    pub fn swaps_axes(self) -> bool {
        self.quarter_turns % 2 == 1
    }
}
