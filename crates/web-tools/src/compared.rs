//! Two files compared: what `relicview diff --json` prints for them, both record trees row
//! by row with the bytes that differ, and the difference view the core's viewer draws beside
//! the two files' own scenes, in the wire form (docs/diff.md). The core opened the files and
//! shows them; this has only their sides (`diff::Side`).

use relicview_services::diff::{self, Alignment, Side};
use relicview_services::scene::Scene;
use relicview_services::wire::ShownScene;
use relicview_web_glue::{js_buffer, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ComparedFiles {
    json: String,
    alignment: Alignment,
    /// The difference view, until the page takes it.
    difference: Option<Scene>,
    difference_layers_from_b: Vec<u32>,
}

/// The difference view's colours, for the page's legend (`#rrggbb`).
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Legend {
    unchanged: String,
    only_in_a: String,
    only_in_b: String,
    moved_least: String,
    moved_most: String,
    moved_from: String,
}

fn css([r, g, b, _]: [u8; 4]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

impl ComparedFiles {
    pub(crate) fn new(a: Side, b: Side) -> Result<ComparedFiles, String> {
        let (comparison, alignment) = diff::compare_in_full(&a, &b);
        let difference = diff::difference_scene(&a, &b, &alignment);
        let json = serde_json::to_string(&comparison).map_err(|e| e.to_string())?;
        let (difference, difference_layers_from_b) =
            difference.map_or((None, Vec::new()), |d| (Some(d.scene), d.layers_from_b));
        Ok(ComparedFiles {
            json,
            alignment,
            difference,
            difference_layers_from_b,
        })
    }
}

#[wasm_bindgen]
impl ComparedFiles {
    /// What `relicview diff --json` prints for the two files.
    pub fn json(&self) -> String {
        self.json.clone()
    }
    /// Both record trees row by row, and the bytes of each side that differ: {lines, rows:
    /// [{a, b, status, depth, range: {a, b}}], rowsDropped, bytes: {a, b}}.
    #[wasm_bindgen(unchecked_return_type = "Alignment")]
    pub fn alignment(&self) -> Result<JsValue, JsValue> {
        to_js(&self.alignment)
    }
    /// Whether there is a difference view to show (two files with scenes, not text).
    #[wasm_bindgen(js_name = hasDifference)]
    pub fn has_difference(&self) -> bool {
        self.difference.is_some()
    }
    /// The difference view's colours: {unchanged, onlyInA, onlyInB, movedLeast, movedMost,
    /// movedFrom} as CSS colours.
    #[wasm_bindgen(unchecked_return_type = "Legend")]
    pub fn legend(&self) -> Result<JsValue, JsValue> {
        to_js(&Legend {
            unchanged: css(diff::UNCHANGED),
            only_in_a: css(diff::ONLY_IN_A),
            only_in_b: css(diff::ONLY_IN_B),
            moved_least: css(diff::MOVED_LEAST),
            moved_most: css(diff::MOVED_MOST),
            moved_from: css(diff::MOVED_FROM),
        })
    }
    /// The difference view in the wire form for the core's `Viewer.showComparison` (taken: a
    /// second call gives null); null where there is none.
    #[wasm_bindgen(js_name = takeDifference)]
    pub fn take_difference(&mut self) -> Option<js_sys::Uint8Array> {
        let shown = ShownScene {
            scene: self.difference.take()?,
            records: Vec::new(),
            placements: 0,
        };
        js_buffer(
            relicview_services::wire::encoded_len(shown.lend()),
            |write| relicview_services::wire::encode_into(shown.lend(), write),
        )
    }
    /// The difference view's layers that hold B's geometry (a pick there names B's records).
    #[wasm_bindgen(js_name = differenceLayersFromB)]
    pub fn difference_layers_from_b(&self) -> Vec<u32> {
        self.difference_layers_from_b.clone()
    }
}
