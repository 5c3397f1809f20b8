//! The ways the window shows a frame's fields (QCTools' field split), which `Alt+d` cycles
//! (`field_view_control`): the frame as it is; its fields apart, the top field's lines above
//! the bottom field's (FFmpeg's `il=l=d:c=d`); the same with the histograms and scopes counting
//! the top field alone; then the bottom field alone; then the top field alone at the picture's
//! full height, line-doubled (each of its lines twice as tall), and the bottom field so.

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
    /// The top field alone, line-doubled, counted alone.
    TopDoubled,
    /// The bottom field alone, line-doubled, counted alone.
    BottomDoubled,
}

impl FieldView {
    pub fn next(self) -> Self {
        match self {
            Self::Frame => Self::Apart,
            Self::Apart => Self::Top,
            Self::Top => Self::Bottom,
            Self::Bottom => Self::TopDoubled,
            Self::TopDoubled => Self::BottomDoubled,
            Self::BottomDoubled => Self::Frame,
        }
    }

    /// The half of the picture (fields apart) shown line-doubled over the whole picture: 0 the
    /// top field's, 1 the bottom's.
    pub fn doubled(self) -> Option<u32> {
        match self {
            Self::TopDoubled => Some(0),
            Self::BottomDoubled => Some(1),
            _ => None,
        }
    }

    /// The frame log's name (`view=apart`), None for the frame as it is.
    pub fn log_name(self) -> Option<&'static str> {
        match self {
            Self::Frame => None,
            Self::Apart => Some("apart"),
            Self::Top => Some("top"),
            Self::Bottom => Some("bottom"),
            Self::TopDoubled => Some("top-doubled"),
            Self::BottomDoubled => Some("bottom-doubled"),
        }
    }

    /// The rectangle of the picture (fields apart) counted, for a field counted alone.
    pub fn counted(self, (width, height): (u32, u32)) -> Option<Region> {
        let half = height / 2;
        let at = match self {
            Self::Top | Self::TopDoubled => 0,
            Self::Bottom | Self::BottomDoubled => half,
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
            Self::TopDoubled => "Fields: the top field alone, line-doubled",
            Self::BottomDoubled => "Fields: the bottom field alone, line-doubled",
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
        for _ in 0..6 {
            view = view.next();
            names.push(view.log_name());
        }
        assert_eq!(
            names,
            [
                Some("apart"),
                Some("top"),
                Some("bottom"),
                Some("top-doubled"),
                Some("bottom-doubled"),
                None
            ]
        );
        assert_eq!(
            FieldView::BottomDoubled.counted((720, 576)),
            FieldView::Bottom.counted((720, 576))
        );
        assert_eq!(
            (FieldView::TopDoubled.doubled(), FieldView::Top.doubled()),
            (Some(0), None)
        );
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
