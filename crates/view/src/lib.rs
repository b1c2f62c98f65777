//! The viewer's state that needs no browser and no GPU: the camera's words, the view's
//! switches, the animation clock, the frame rate, what the page reads of the scene on
//! show, and the skeleton overlay's triangles. The renderer and the web glue use it; `cargo test` reaches all of it.

// The scene shown, under the name this code has always used for it.
use relicview_model::scene;
use relicview_model::scene::Rig;

pub mod camera;
pub mod capture;
pub mod clock;
pub mod compare;
pub mod frames;
pub mod game_view;
pub mod layers;
pub mod link;
pub mod measure;
pub mod options;
pub mod parts;
pub mod skeleton;

pub use camera::{AxisView, CameraMode, CameraState, ViewpointAt};
pub use clock::{timeline_label, Clock};
pub use compare::{CompareMode, CompareView, Pass as ComparePass, Side};
pub use frames::FrameRate;
pub use link::{ViewLink, ViewerPart};
pub use options::{
    non_background, Background, Lighting, OptionChanges, ViewOptions, BACKGROUND, CHECKER,
    CHECKER_PX, LIGHT_BACKGROUND,
};

/// The words the page's menus and keys use, from the enums that read them: the shell asks
/// for these instead of writing them again.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Words {
    pub backgrounds: [Background; 3],
    pub lightings: [Lighting; 4],
    pub axis_views: [AxisView; 3],
    pub camera_modes: [CameraMode; 3],
    pub compare_modes: [CompareMode; 5],
    /// How an export writes a skeleton.
    pub rigs: [Rig; 2],
    /// What a capture is, how its frames leave, and its sizes (times the view's).
    pub capture_kinds: [capture::CaptureKind; 3],
    pub capture_formats: [capture::CaptureFormat; 2],
    pub capture_scales: [u32; 3],
}

pub const WORDS: Words = Words {
    backgrounds: Background::ALL,
    lightings: Lighting::ALL,
    axis_views: AxisView::ALL,
    camera_modes: [CameraMode::Orbit, CameraMode::Fly, CameraMode::Game],
    compare_modes: CompareMode::ALL,
    rigs: Rig::ALL,
    capture_kinds: capture::CaptureKind::ALL,
    capture_formats: capture::CaptureFormat::ALL,
    capture_scales: capture::SCALES,
};

#[cfg(test)]
mod tests {
    #[test]
    fn the_words_are_the_serialised_enums() {
        let w = serde_json::to_value(super::WORDS).unwrap();
        assert_eq!(
            w,
            serde_json::json!({ "backgrounds": ["dark", "light", "checker"], "lightings": ["game", "sun", "camera", "stored"], "axisViews": ["front", "side", "top"], "cameraModes": ["orbit", "fly", "game"], "compareModes": ["a", "b", "overlay", "split", "difference"], "rigs": ["skin", "nodes"], "captureKinds": ["still", "turntable", "timeline"], "captureFormats": ["webm", "frames"], "captureScales": [1, 2, 4] })
        );
    }
}
