//! Two files opened side by side: each as `Session.open` gives it, what `relicview diff
//! --json` prints for them, both record trees row by row with the bytes that differ, and
//! the difference view the viewer shows (docs/diff.md).

use super::opened::OpenedFile;
use super::to_js;
use crate::diff::{self, Alignment};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ComparedFiles {
    /// Taken by the page (`takeA`, `takeB`) once the viewer has their scenes.
    pub(super) a: Option<OpenedFile>,
    pub(super) b: Option<OpenedFile>,
    json: String,
    alignment: Alignment,
    /// Taken by `Viewer.showComparison`.
    pub(super) difference: Option<diff::Difference>,
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
    pub(super) fn new(a: OpenedFile, b: OpenedFile) -> Result<ComparedFiles, String> {
        let scenes = a.scene.as_ref().zip(b.scene.as_ref());
        let (comparison, alignment) = diff::compare_in_full(&*a.document, &*b.document, scenes);
        let difference = scenes.and_then(|s| diff::difference_scene(&*a.document, &*b.document, s, &alignment));
        let json = serde_json::to_string(&comparison).map_err(|e| e.to_string())?;
        Ok(ComparedFiles { a: Some(a), b: Some(b), json, alignment, difference })
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
    /// File A (its document for the inspector and info; its scene already with the viewer).
    #[wasm_bindgen(js_name = takeA)]
    pub fn take_a(&mut self) -> Option<OpenedFile> {
        self.a.take()
    }
    #[wasm_bindgen(js_name = takeB)]
    pub fn take_b(&mut self) -> Option<OpenedFile> {
        self.b.take()
    }
}
