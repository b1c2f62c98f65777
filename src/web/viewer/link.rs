//! The view as a link (crates/view/src/link.rs): the viewer's part of a link to the view on
//! show, the view a link describes put back, and a link read from and written to the
//! address's fragment. The page adds and restores its own part (where the archive comes
//! from, the file, the record selected, the viewpoint it keeps, the points measured).

use super::Viewer;
use crate::view::{layers, CameraMode, ViewLink, ViewerPart};
use crate::web::to_js;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Viewer {
    /// The viewer's part of a link to the view on show (`shown`: a file is on show, else
    /// only the switches that outlive a file): camera, LOD, clock, hidden layers, the
    /// choice, the display switches, a comparison's mode and split.
    #[wasm_bindgen(unchecked_return_type = "ViewLink")]
    pub fn link(&self, shown: bool) -> Result<JsValue, JsValue> {
        let side = self.renderer.primary();
        let hidden = match self.renderer.scene_of(side) {
            Some(scene) if shown => layers::layers(scene, self.renderer.hidden_layers_of(side))
                .into_iter()
                .filter(|l| !l.shown && !l.chosen)
                .map(|l| l.name.to_string())
                .collect(),
            _ => Vec::new(),
        };
        // The layers the file hides when it opens that the person shows.
        let revealed = match self.renderer.scene_of(side) {
            Some(scene) if shown => {
                let now = self.renderer.hidden_layers_of(side);
                scene
                    .hidden
                    .iter()
                    .filter(|l| !now.contains(l))
                    .filter_map(|&l| scene.layers.get(l as usize).cloned())
                    .collect()
            }
            _ => Vec::new(),
        };
        let has_choice = self
            .renderer
            .scene()
            .and_then(|s| layers::choice(s, self.renderer.choice()))
            .is_some();
        to_js(&ViewLink::of_viewer(ViewerPart {
            shown,
            options: &self.renderer.options,
            camera: self.renderer.camera_state(),
            fly: self.renderer.camera_mode == CameraMode::Fly,
            game: self.renderer.camera_mode == CameraMode::Game,
            animating: self.renderer.animating(),
            time: self.animation_time(),
            playing: self.clock.playing,
            hidden,
            revealed,
            choice: self.renderer.choice().filter(|_| has_choice),
            has_zones: self.renderer.scene().is_some_and(|s| !s.zones.is_empty()),
            comparing: self.renderer.comparing(),
        }))
    }

    /// Put back the viewer's part of `link`: its hidden layers, then its choice (which hides
    /// the layers of its other options), the switches it carries (a link without them leaves
    /// the reader's own), its LOD, its viewpoint or else its camera and mode, its clock, and
    /// a comparison's mode and split. → whether the camera looks from the link's viewpoint.
    pub fn restore(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ViewLink")] link: JsValue,
    ) -> Result<bool, JsValue> {
        let link: ViewLink = serde_wasm_bindgen::from_value(link)?;
        // The layers hidden are the link's, where it says anything of layers (a link that
        // shows a layer the file hides names it, and may hide none).
        if !link.hide.is_empty() || !link.show.is_empty() {
            self.renderer.set_hidden_layers_named(&link.hide);
        }
        if let Some(k) = link.choice {
            self.renderer.choose(k);
        }
        link.option_changes().apply(&mut self.renderer.options);
        let at_viewpoint = link.view.is_some_and(|v| self.look_from(v));
        // Through the file's own camera: where it is, whatever the link's camera says.
        let through_game =
            !at_viewpoint && link.game && self.renderer.set_camera_mode(CameraMode::Game);
        if !at_viewpoint && !through_game {
            if let Some(cam) = link.cam {
                self.renderer.set_camera_state(cam);
            }
            self.renderer.set_camera_mode(if link.fly {
                CameraMode::Fly
            } else {
                CameraMode::Orbit
            });
        }
        // Stopped first, then set: a clock still running between the two would move on.
        if link.paused {
            self.set_playing(false);
        }
        if let Some(t) = link.t {
            self.set_animation_time(t);
        }
        if let Some(now) = self.renderer.comparing() {
            self.renderer.set_compare_view(link.compare_view(now));
        }
        Ok(at_viewpoint)
    }
}

/// The link a fragment of the address describes (`#archive=…&path=…`, or without the `#`):
/// what cannot be read is left out.
#[wasm_bindgen(js_name = parseLink, unchecked_return_type = "ViewLink")]
pub fn parse_link(fragment: &str) -> Result<JsValue, JsValue> {
    to_js(&ViewLink::parse(fragment))
}

/// The fragment (with its `#`) that describes `link`, as the page has always written one.
#[wasm_bindgen(js_name = linkFragment)]
pub fn link_fragment(
    #[wasm_bindgen(unchecked_param_type = "ViewLink")] link: JsValue,
) -> Result<String, JsValue> {
    let link: ViewLink = serde_wasm_bindgen::from_value(link)?;
    Ok(link.fragment())
}
