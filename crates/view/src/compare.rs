//! Two files on one camera: which of the compared scenes a frame draws, how, and where
//! (A alone, B alone, B ghosted over A, A and B either side of a split, or the difference
//! view), and which of them a click at a pixel can hit.

use serde::{Deserialize, Serialize};

/// The scenes of a comparison: the two files, and the difference view built from both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    A,
    B,
    Difference,
}

impl Side {
    /// Where the renderer keeps the side's scene.
    pub fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
            Side::Difference => 2,
        }
    }
}

/// How a comparison is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum CompareMode {
    A,
    B,
    /// A as it is, B ghosted over it.
    #[default]
    Overlay,
    /// A left of the split, B right of it.
    Split,
    /// The difference view: vertices coloured by how far they moved.
    Difference,
}

impl CompareMode {
    pub const ALL: [CompareMode; 5] = [
        CompareMode::A,
        CompareMode::B,
        CompareMode::Overlay,
        CompareMode::Split,
        CompareMode::Difference,
    ];
}

/// The comparison's switches: the mode, and where the split is (a share of the width).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct CompareView {
    pub mode: CompareMode,
    pub split: f32,
}

impl Default for CompareView {
    fn default() -> Self {
        CompareView {
            mode: CompareMode::Overlay,
            split: 0.5,
        }
    }
}

/// One scene drawn in a frame: in full or ghosted, over the columns `x0..x1` of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub side: Side,
    pub ghost: bool,
    pub columns: (u32, u32),
}

impl CompareView {
    /// The column the split falls on in a view `width` pixels wide.
    pub fn split_column(&self, width: u32) -> u32 {
        let s = if self.split.is_finite() {
            self.split.clamp(0.0, 1.0)
        } else {
            0.5
        };
        (s * width as f32).round() as u32
    }

    /// What a frame draws, in order, for a view `width` pixels wide. Without a difference
    /// view (text, or a side with no scene) that mode draws A.
    pub fn passes(&self, width: u32, has_difference: bool) -> Vec<Pass> {
        let whole = (0, width);
        let pass = |side, ghost, columns| Pass {
            side,
            ghost,
            columns,
        };
        match self.mode {
            CompareMode::A => vec![pass(Side::A, false, whole)],
            CompareMode::B => vec![pass(Side::B, false, whole)],
            CompareMode::Overlay => vec![pass(Side::A, false, whole), pass(Side::B, true, whole)],
            CompareMode::Split => {
                let at = self.split_column(width);
                vec![
                    pass(Side::A, false, (0, at)),
                    pass(Side::B, false, (at, width)),
                ]
            }
            CompareMode::Difference if has_difference => vec![pass(Side::Difference, false, whole)],
            CompareMode::Difference => vec![pass(Side::A, false, whole)],
        }
    }

    /// The scenes a click at column `x` can hit; the nearest hit among them wins.
    pub fn pickable(&self, x: f32, width: u32, has_difference: bool) -> Vec<Side> {
        self.passes(width, has_difference)
            .into_iter()
            .filter(|p| x >= p.columns.0 as f32 && x < p.columns.1 as f32)
            .map(|p| p.side)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_draws_its_scenes_where_it_says() {
        let v = |mode| CompareView { mode, split: 0.25 };
        assert_eq!(
            v(CompareMode::Overlay).passes(400, true),
            vec![
                Pass {
                    side: Side::A,
                    ghost: false,
                    columns: (0, 400)
                },
                Pass {
                    side: Side::B,
                    ghost: true,
                    columns: (0, 400)
                }
            ]
        );
        assert_eq!(
            v(CompareMode::Split).passes(400, true),
            vec![
                Pass {
                    side: Side::A,
                    ghost: false,
                    columns: (0, 100)
                },
                Pass {
                    side: Side::B,
                    ghost: false,
                    columns: (100, 400)
                }
            ]
        );
        assert_eq!(
            v(CompareMode::Difference).passes(400, true)[0].side,
            Side::Difference
        );
        assert_eq!(
            v(CompareMode::Difference).passes(400, false)[0].side,
            Side::A,
            "no difference view: A"
        );
        assert_eq!(v(CompareMode::B).passes(400, true).len(), 1);
    }

    #[test]
    fn a_click_reaches_the_scenes_drawn_at_its_column() {
        let split = CompareView {
            mode: CompareMode::Split,
            split: 0.5,
        };
        assert_eq!(split.pickable(10.0, 400, true), vec![Side::A]);
        assert_eq!(split.pickable(300.0, 400, true), vec![Side::B]);
        let overlay = CompareView {
            mode: CompareMode::Overlay,
            split: 0.5,
        };
        assert_eq!(overlay.pickable(10.0, 400, true), vec![Side::A, Side::B]);
    }

    #[test]
    fn a_split_outside_the_view_is_held_at_its_edges() {
        let at = |split| {
            CompareView {
                mode: CompareMode::Split,
                split,
            }
            .split_column(100)
        };
        assert_eq!((at(-1.0), at(2.0), at(f32::NAN)), (0, 100, 50));
    }
}
