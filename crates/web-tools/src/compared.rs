//! Two files opened side by side: what `relicview diff --json` prints for them, both record
//! trees row by row with the bytes that differ, each side as the inspector shows it, and the
//! scenes the core's viewer draws (A, B and the difference view) in the wire form
//! (docs/diff.md).

use relicview_services::archive::Opened;
use relicview_services::diff::{self, Alignment};
use relicview_services::scene::Scene;
use relicview_services::wire::ShownScene;
use relicview_web_glue::{js_buffer, js_error, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ComparedFiles {
    sides: [Side; 2],
    json: String,
    alignment: Alignment,
    /// The difference view, until the page takes it.
    difference: Option<Scene>,
    difference_layers_from_b: Vec<u32>,
}

/// One file of the two.
struct Side {
    opened: Opened,
    /// Its scene with what the viewer reads of its document, until the page takes it.
    shown: Option<ShownScene>,
    has_scene: bool,
}

/// One file of two compared, as the inspector shows it.
#[derive(Serialize, tsify::Tsify)]
pub struct ComparedSide {
    path: String,
    /// Its records (`InspectorView | null`, as `relicview_web_glue::inspector_view` sends it).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "InspectorView | null")]
    view: JsValue,
    /// Its bytes as read.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint8Array")]
    bytes: JsValue,
    /// Whether it has a 3D scene.
    scene: bool,
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
    pub(crate) fn new(a: Opened, b: Opened) -> Result<ComparedFiles, String> {
        let scenes = a.scene.as_ref().zip(b.scene.as_ref());
        let (comparison, alignment) = diff::compare_in_full(a.described(), b.described(), scenes);
        let difference = scenes
            .and_then(|s| diff::difference_scene(a.described(), b.described(), s, &alignment));
        let json = serde_json::to_string(&comparison).map_err(|e| e.to_string())?;
        let (difference, difference_layers_from_b) =
            difference.map_or((None, Vec::new()), |d| (Some(d.scene), d.layers_from_b));
        let side = |mut opened: Opened| {
            let has_scene = opened.scene.is_some();
            let shown = opened
                .scene
                .take()
                .map(|s| ShownScene::of(s, opened.described()));
            Side {
                opened,
                shown,
                has_scene,
            }
        };
        Ok(ComparedFiles {
            sides: [side(a), side(b)],
            json,
            alignment,
            difference,
            difference_layers_from_b,
        })
    }

    fn side(&self, which: &str) -> Result<&Side, JsValue> {
        match which {
            "a" => Ok(&self.sides[0]),
            "b" => Ok(&self.sides[1]),
            _ => Err(js_error(&format!("no side {which:?}: 'a' or 'b'"))),
        }
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
    /// Side `which` ('a' or 'b') as the inspector shows it: {path, view, bytes, scene}.
    #[wasm_bindgen(js_name = side, unchecked_return_type = "ComparedSide")]
    pub fn side_js(&self, which: &str) -> Result<JsValue, JsValue> {
        let side = self.side(which)?;
        let document = &*side.opened.document;
        to_js(&ComparedSide {
            path: side.opened.path.clone(),
            view: relicview_web_glue::inspector_view(
                side.opened.described().inspector().as_deref(),
            )?,
            bytes: js_sys::Uint8Array::from(document.bytes(0).unwrap_or_default()).into(),
            scene: side.has_scene,
        })
    }
    /// The scene of side 'a' or 'b', or the 'difference' view, in the wire form for the
    /// core's `Viewer.showComparison` (taken: a second call gives null); null where there is
    /// none.
    #[wasm_bindgen(js_name = takeScene)]
    pub fn take_scene(&mut self, which: &str) -> Result<Option<js_sys::Uint8Array>, JsValue> {
        let shown = match which {
            "difference" => self.difference.take().map(|scene| ShownScene {
                scene,
                records: Vec::new(),
                placements: 0,
            }),
            _ => {
                let k = usize::from(which == "b");
                self.side(which)?;
                self.sides[k].shown.take()
            }
        };
        Ok(shown.and_then(|s| {
            js_buffer(relicview_services::wire::encoded_len(s.lend()), |write| {
                relicview_services::wire::encode_into(s.lend(), write)
            })
        }))
    }
    /// The difference view's layers that hold B's geometry (a pick there names B's records).
    #[wasm_bindgen(js_name = differenceLayersFromB)]
    pub fn difference_layers_from_b(&self) -> Vec<u32> {
        self.difference_layers_from_b.clone()
    }
}
