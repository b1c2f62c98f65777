//! What the tools do with files the core opened: the core hands over each file in neutral
//! terms, in the wire form (`Session.comparisonSide`, `Session.exportInput` of the core), and
//! this module, which links no format, compares or exports them.

use crate::bundle::ExportedFile;
use crate::compared::ComparedFiles;
use relicview_services::{bundle, diff, gltf, wire};
use relicview_web_glue::js_error;
use wasm_bindgen::prelude::*;

/// Two files compared record by record (docs/diff.md), each given as the core's
/// `OpenedFile.comparisonSide()` bytes → what `relicview diff --json` prints for them, both
/// trees row by row and the difference view. Throws when the bytes are not two sides.
#[wasm_bindgen(js_name = compareSides)]
pub fn compare_sides(a: &[u8], b: &[u8]) -> Result<ComparedFiles, JsValue> {
    let side = |bytes: &[u8]| {
        wire::decode_value::<diff::Side<'static>>(wire::SIDE, "comparison side", bytes)
            .map_err(|e| js_error(&e))
    };
    ComparedFiles::new(side(a)?, side(b)?).map_err(|e| js_error(&e))
}

/// What a file exports to in an Export all (`relicview_services::bundle`), given as the
/// core's `Session.exportInput(path)` bytes → an ExportedFile for `ArchiveExport.add`.
/// `all_scenes`: every LOD and model as glTF scenes (`export --all --lods all`); `rig`: how
/// skeletons go out (`export --rig`). Throws when the bytes are not an export's input.
#[wasm_bindgen(js_name = exportFile)]
pub fn export_file(
    input: &[u8],
    all_scenes: bool,
    #[wasm_bindgen(unchecked_param_type = "Rig")] rig: JsValue,
) -> Result<ExportedFile, JsValue> {
    let rig: gltf::Rig =
        serde_wasm_bindgen::from_value(rig).map_err(|e| js_error(&format!("the rig: {e}")))?;
    let input: bundle::ExportInput<'static> =
        wire::decode_value(wire::EXPORT_INPUT, "export input", input).map_err(|e| js_error(&e))?;
    Ok(ExportedFile {
        outcome: Some(bundle::outcome_of_input(&input, all_scenes, rig)),
    })
}
