//! Screen geometry: where the picture and the histogram quads go, in clip space.
//! Pure functions, so they are tested without a GPU.

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

/// How the picture fills the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fit {
    /// Fill the whole window, cropping the picture's overflow (the articles' choice).
    #[default]
    Cover,
    /// Show the whole picture, with bars where the aspects differ.
    Contain,
}

impl Fit {
    pub fn toggled(self) -> Self {
        match self {
            Fit::Cover => Fit::Contain,
            Fit::Contain => Fit::Cover,
        }
    }
}

/// The picture's rectangle for a picture of `aspect` (display width / height) in a viewport.
pub fn fit_picture(aspect: f32, viewport: (u32, u32), fit: Fit) -> Rect {
    let (w, h) = (viewport.0.max(1) as f32, viewport.1.max(1) as f32);
    let viewport_aspect = w / h;
    let wider = aspect > viewport_aspect;
    // Half-extents of the picture in clip space: the fitted side spans -1..1 exactly.
    let (sx, sy) = match (fit, wider) {
        (Fit::Cover, true) | (Fit::Contain, false) => (aspect / viewport_aspect, 1.0),
        (Fit::Cover, false) | (Fit::Contain, true) => (1.0, viewport_aspect / aspect),
    };
    Rect {
        left: -sx,
        bottom: -sy,
        right: sx,
        top: sy,
    }
}

/// The two histogram quads along the bottom, as in the articles: RGB on the left half, L on the
/// right, each 90% of its half's width, centred in it, a quarter of the height tall.
pub fn histogram_quads() -> [Rect; 2] {
    [0.0f32, 1.0].map(|i| Rect {
        left: -0.95 + i,
        bottom: -1.0,
        right: -0.05 + i,
        top: -0.5,
    })
}

/// Where the bottom band's quads go: the two histograms and, if one is shown, a scope.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Band {
    pub histograms: [Rect; 2],
    pub scope: Option<Rect>,
}

/// The bottom band for a viewport. Without a scope, the articles' two histogram quads. With
/// one, the band is shared in thirds: RGB, luminance, then the waveform or parade; the
/// vectorscope is round, so it takes a square at the right, as tall as the third allows (up
/// to 45% of the height).
pub fn band_layout(scope: Option<crate::scope::ScopeKind>, viewport: (u32, u32)) -> Band {
    let Some(kind) = scope else {
        return Band {
            histograms: histogram_quads(),
            scope: None,
        };
    };
    let third = |i: f32| Rect {
        left: -0.95 + 0.65 * i,
        bottom: -1.0,
        right: -0.35 + 0.65 * i,
        top: -0.5,
    };
    let scope = if kind == crate::scope::ScopeKind::Vectorscope {
        let (w, h) = (viewport.0.max(1) as f32, viewport.1.max(1) as f32);
        // The third is 0.6 of clip width, 0.3·w pixels.
        let side = (0.3 * w).min(0.45 * h);
        Rect {
            left: 0.95 - 2.0 * side / w,
            bottom: -1.0,
            right: 0.95,
            top: -1.0 + 2.0 * side / h,
        }
    } else {
        third(2.0)
    };
    Band {
        histograms: [third(0.0), third(1.0)],
        scope: Some(scope),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cover_fills_and_crops() {
        // 2:1 picture in a 1:1 viewport: full height, twice the width
        assert_eq!(
            fit_picture(2.0, (100, 100), Fit::Cover),
            Rect {
                left: -2.0,
                bottom: -1.0,
                right: 2.0,
                top: 1.0
            }
        );
        // 1:2 picture in a 1:1 viewport: full width, twice the height
        assert_eq!(
            fit_picture(0.5, (100, 100), Fit::Cover),
            Rect {
                left: -1.0,
                bottom: -2.0,
                right: 1.0,
                top: 2.0
            }
        );
    }

    #[test]
    fn contain_letterboxes() {
        assert_eq!(
            fit_picture(2.0, (100, 100), Fit::Contain),
            Rect {
                left: -1.0,
                bottom: -0.5,
                right: 1.0,
                top: 0.5
            }
        );
        assert_eq!(
            fit_picture(0.5, (100, 100), Fit::Contain),
            Rect {
                left: -0.5,
                bottom: -1.0,
                right: 0.5,
                top: 1.0
            }
        );
        // 16:9 in 16:9 is exact either way
        assert_eq!(fit_picture(16.0 / 9.0, (1920, 1080), Fit::Contain), Rect::FULL);
        assert_eq!(fit_picture(16.0 / 9.0, (1920, 1080), Fit::Cover), Rect::FULL);
    }

    #[test]
    fn quads_sit_along_the_bottom() {
        let [rgb, l] = histogram_quads();
        assert_eq!(rgb.to_pixels(200, 100), (5, 75, 95, 100));
        assert_eq!(l.to_pixels(200, 100), (105, 75, 195, 100));
        assert!((rgb.right - rgb.left - 0.9).abs() < 1e-6);
        assert!((l.top - l.bottom - 0.5).abs() < 1e-6);
    }

    #[test]
    fn scopes_share_the_band_in_thirds() {
        use crate::scope::ScopeKind;
        assert_eq!(band_layout(None, (200, 100)).histograms, histogram_quads());
        let band = band_layout(Some(ScopeKind::Waveform), (1000, 500));
        let [rgb, l] = band.histograms;
        let scope = band.scope.unwrap();
        assert_eq!(rgb.to_pixels(1000, 500), (25, 375, 325, 500));
        assert_eq!(l.to_pixels(1000, 500), (350, 375, 650, 500));
        assert_eq!(scope.to_pixels(1000, 500), (675, 375, 975, 500));
        // The vectorscope is square on screen, bottom right.
        let v = band_layout(Some(ScopeKind::Vectorscope), (1000, 500)).scope.unwrap();
        let (x0, y0, x1, y1) = v.to_pixels(1000, 500);
        assert_eq!((x1, y1), (975, 500));
        assert_eq!(x1 - x0, y1 - y0);
        assert_eq!(y1 - y0, 225);
    }

    #[test]
    fn zero_sized_viewports_do_not_divide_by_zero() {
        let r = fit_picture(1.5, (0, 0), Fit::Cover);
        assert!(r.left.is_finite() && r.top.is_finite());
    }
}
