//! The page's tools module: a wasm module of its own, which the page loads the first time
//! one of its tools is used (www/ground/modules.js), so that a shared link downloads none of it.
//! - glTF export of the scene on show: the core hands over the scene in the wire form and
//!   what is on show (`Viewer.sceneBytes`, `Viewer.glbOptions`), this writes the .glb.
//! - Two files compared record by record (docs/diff.md): opened here, in an archive of this
//!   module's own that the page keeps listed as the core's; the core shows their scenes and
//!   the difference view, handed over in the wire form.
//! - Export all: each file exported as `relicview export --all` does, into a zip.
//!
//! WebAssembly only: natively the crate is empty.
#![cfg(target_arch = "wasm32")]

mod bundle;
mod compared;
mod session;

use relicview_services::{gltf, wire};
use relicview_web_glue::js_error;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    relicview_web_glue::install_panic_hook();
}

/// A scene in the wire form (`Viewer.sceneBytes`) as a binary glTF, exported as `options`
/// say (`Viewer.glbOptions`: the LOD on show or every LOD, the layers hidden, the colours).
#[wasm_bindgen(js_name = exportGlb)]
pub fn export_glb(
    scene: &[u8],
    #[wasm_bindgen(unchecked_param_type = "ExportOptions")] options: JsValue,
) -> Result<js_sys::Uint8Array, JsValue> {
    let options: gltf::ExportOptions = serde_wasm_bindgen::from_value(options)
        .map_err(|e| js_error(&format!("the export's options: {e}")))?;
    let shown = wire::decode(scene).map_err(|e| js_error(&e))?;
    let glb = gltf::export_glb(&shown.scene, options).map_err(|e| js_error(&e))?;
    Ok(js_sys::Uint8Array::from(&glb[..]))
}
