//! The ways the window shows a frame's fields (QCTools' field split), which `Alt+d` cycles
//! (`field_view_control`): the frame as it is; its fields apart, the top field's lines above
//! the bottom field's (FFmpeg's `il=l=d:c=d`); the same with the histograms and scopes counting
//! the top field alone; then the bottom field alone.

use crate::scope::Region;

/// How the window shows a frame's fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldView {
    /// The frame as it is.
    #[default]
    Frame,
    /// The top field above the bottom field.
    Apart,
    /// Apart, the top field counted alone.
    Top,
    /// Apart, the bottom field counted alone.
    Bottom,
}

impl FieldView {
    pub fn next(self) -> Self {
        match self {
            Self::Frame => Self::Apart,
            Self::Apart => Self::Top,
            Self::Top => Self::Bottom,
            Self::Bottom => Self::Frame,
        }
    }

    /// The frame log's name (`view=apart`), None for the frame as it is.
    pub fn log_name(self) -> Option<&'static str> {
        match self {
            Self::Frame => None,
            Self::Apart => Some("apart"),
            Self::Top => Some("top"),
            Self::Bottom => Some("bottom"),
        }
    }

    /// The rectangle of the picture (fields apart) counted, for a field counted alone.
    pub fn counted(self, (width, height): (u32, u32)) -> Option<Region> {
        let half = height / 2;
        let at = match self {
            Self::Top => 0,
            Self::Bottom => half,
            Self::Frame | Self::Apart => return None,
        };
        Some(Region {
            x: 0,
            y: at,
            width,
            height: half,
        })
    }

    /// `Fields: apart, the top field counted alone`, as the OSD says it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Frame => "Fields: the frame as it is",
            Self::Apart => "Fields: apart, top above bottom",
            Self::Top => "Fields: apart, the top field counted alone",
            Self::Bottom => "Fields: apart, the bottom field counted alone",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_views_cycle_and_count_their_field() {
        let mut view = FieldView::Frame;
        let mut names = Vec::new();
        for _ in 0..4 {
            view = view.next();
            names.push(view.log_name());
        }
        assert_eq!(names, [Some("apart"), Some("top"), Some("bottom"), None]);
        assert_eq!(
            FieldView::Bottom.counted((720, 576)),
            Some(Region {
                x: 0,
                y: 288,
                width: 720,
                height: 288
            })
        );
        assert_eq!(
            FieldView::Top.counted((720, 576)).map(|r| (r.y, r.height)),
            Some((0, 288))
        );
        assert_eq!(FieldView::Apart.counted((720, 576)), None);
    }
}
