//! Captures of the view (crates/view/src/capture.rs): the plan of a still, a turntable or
//! the timeline made from what is on show, each of its frames drawn off the screen, and
//! what its file is called. The page encodes the frames and hands the file over.

use super::Viewer;
use crate::view::capture::{self, CapturePlan, CaptureRequest, ViewNow};
use crate::view::{layers, CameraMode};
use crate::web::{js_error, to_js};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// The frames a capture asked for takes (`{kind, scale, transparent, seconds, fps,
    /// format}`, each may be left out): their size, count, clock times and turns; throws why
    /// where it cannot be made (a size the GPU cannot draw, a turntable through the game's
    /// camera, a length or rate out of range).
    #[wasm_bindgen(js_name = capturePlan, unchecked_return_type = "CapturePlan")]
    pub fn capture_plan(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Partial<CaptureRequest>")] asked: JsValue,
    ) -> Result<JsValue, JsValue> {
        // Read as JSON first: a misspelt option is refused, not silently left out.
        let asked: CaptureRequest = serde_wasm_bindgen::from_value::<serde_json::Value>(asked)
            .map_err(|e| e.to_string())
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            .map_err(|e| {
                js_error(&format!(
                    "a capture asks for {{kind, scale, transparent, seconds, fps, format}}: {e}"
                ))
            })?;
        if self.renderer.scene().is_none() {
            return Err(js_error("nothing to capture: no scene is on show"));
        }
        let (width, height) = self.renderer.size();
        let now = self.clock_now();
        let view = ViewNow {
            width,
            height,
            max_size: self.renderer.max_capture_size(),
            time: self.clock.at(now),
            playing: self.clock.playing,
            speed: self.clock.speed,
            loop_seconds: self.renderer.scene().map_or(0.0, layers::loop_duration) as f64,
            can_turn: self.renderer.camera_mode != CameraMode::Game,
        };
        to_js(&capture::plan(&asked, &view).map_err(|e| js_error(&e))?)
    }

    /// Frame `i` of `plan`, drawn off the screen: RGBA bytes, rows top first
    /// (plan.width × plan.height × 4). The view on the page is not changed.
    #[wasm_bindgen(js_name = captureFrame)]
    pub fn capture_frame(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "CapturePlan")] plan: JsValue,
        i: u32,
    ) -> Result<Vec<u8>, JsValue> {
        let plan: CapturePlan = serde_wasm_bindgen::from_value(plan)?;
        let (seconds, turn) = plan.frame(i);
        self.renderer
            .capture(seconds, (plan.width, plan.height), plan.transparent, turn)
            .map_err(|e| js_error(&format!("the capture could not be drawn: {e}")))
    }

    /// What the capture's file is called, from the name of the file on show (`stem`), what
    /// is on show that is not its default, the kind and scale, and `ext`.
    #[wasm_bindgen(js_name = captureName)]
    pub fn capture_name(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CapturePlan")] plan: JsValue,
        stem: &str,
        ext: &str,
    ) -> Result<String, JsValue> {
        let plan: CapturePlan = serde_wasm_bindgen::from_value(plan)?;
        let tags = self.renderer.scene().map_or(Vec::new(), |scene| {
            capture::tags(
                scene,
                self.renderer.choice(),
                self.renderer.hidden_layers(),
                self.renderer.current_lod(),
                self.renderer.camera_mode == CameraMode::Game,
            )
        });
        Ok(capture::file_name(stem, &tags, plan.kind, plan.scale, ext))
    }
}
