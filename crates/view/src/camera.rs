//! How the camera is described to the page: its mode, its state in a permalink, the axis
//! views and the viewpoints of a scene. The renderer moves the camera; these are the words.

use serde::{Deserialize, Serialize};

/// Where the camera is, for permalinks: position, target, vertical field of view (degrees).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct CameraState {
    pub position: [f32; 3],
    pub target: [f32; 3],
    pub fov: f32,
}
/// How the camera moves: around a target, flying (looking where it goes), or fixed where
/// the file's own camera is (an FF7 field's, through which its game shows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum CameraMode {
    #[default]
    Orbit,
    Fly,
    Game,
}

/// A viewpoint of the scene on show, in world space.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ViewpointAt {
    pub name: String,
    pub position: [f32; 3],
    pub forward: [f32; 3],
    pub up: [f32; 3],
}

/// A view along an axis, framing the whole scene: what the toolbar's front/side/top buttons
/// and the 1/3/7 keys ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum AxisView {
    Front,
    Side,
    Top,
}

impl AxisView {
    pub const ALL: [AxisView; 3] = [AxisView::Front, AxisView::Side, AxisView::Top];

    /// From the eye towards the target is minus this (the eye sits along it).
    pub fn direction(self) -> [f32; 3] {
        match self {
            AxisView::Front => [0.0, 0.0, 1.0],
            AxisView::Side => [1.0, 0.0, 0.0],
            AxisView::Top => [0.0, 1.0, 0.0],
        }
    }
    /// Up on screen. Looking down, it is −Z (the model's back).
    pub fn up(self) -> [f32; 3] {
        match self {
            AxisView::Top => [0.0, 0.0, -1.0],
            _ => [0.0, 1.0, 0.0],
        }
    }
    /// From its word, as serialised ("front", "side", "top").
    pub fn parse(word: &str) -> Option<AxisView> {
        AxisView::ALL
            .into_iter()
            .find(|a| serde_json::to_value(a).is_ok_and(|v| v == word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_views_look_along_their_axis_with_up_across_it() {
        for a in AxisView::ALL {
            let (d, u) = (glam::Vec3::from(a.direction()), glam::Vec3::from(a.up()));
            assert!((d.length() - 1.0).abs() < 1e-6 && (u.length() - 1.0).abs() < 1e-6);
            assert_eq!(
                d.dot(u),
                0.0,
                "{a:?}: up is on the screen, not along the view"
            );
        }
        assert_eq!(AxisView::parse("top"), Some(AxisView::Top));
        assert_eq!(AxisView::parse("Top"), None);
        assert_eq!(serde_json::to_string(&AxisView::Side).unwrap(), "\"side\"");
        assert_eq!(serde_json::to_string(&CameraMode::Fly).unwrap(), "\"fly\"");
        let state: CameraState =
            serde_json::from_str(r#"{"position":[1,2,3],"target":[0,0,0],"fov":45}"#).unwrap();
        assert_eq!(state.position, [1.0, 2.0, 3.0]);
    }
}
