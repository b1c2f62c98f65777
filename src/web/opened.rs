//! A file opened by the session, as the page reads it: its document (inspector, info, text
//! or picture) and the scene the viewer takes.

use super::{js_error, parse_error, to_js};
use crate::archive;
use crate::formats::{Document, InfoRow};
use crate::scene::Scene;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FileCapabilities {
    scene: bool,
    text: bool,
    image: bool,
    /// Shown as a grid of cards (a library's materials).
    gallery: bool,
    used_by: bool,
    export: bool,
}

/// A file opened by `Session.open`: its document (inspector, info, text or picture) and the
/// scene `Viewer.show` takes.
#[wasm_bindgen]
pub struct OpenedFile {
    pub(super) path: String,
    pub(super) document: Box<dyn Document>,
    /// Taken by `Viewer.show`.
    pub(super) scene: Option<Scene>,
    pub(super) has_scene: bool,
    pub(super) unreadable: Vec<String>,
    pub(super) notes: Vec<String>,
    pub(super) timings: archive::OpenTimings,
}

impl OpenedFile {
    /// What the core's open sequence gave, as the page takes it.
    pub(super) fn from_opened(opened: archive::Opened) -> OpenedFile {
        let has_scene = opened.scene.is_some();
        OpenedFile {
            path: opened.path,
            document: opened.document,
            scene: opened.scene,
            has_scene,
            unreadable: opened.unreadable,
            notes: opened.notes,
            timings: opened.timings,
        }
    }
}

#[wasm_bindgen]
impl OpenedFile {
    /// The archive's spelling of the path.
    #[wasm_bindgen(getter)]
    pub fn path(&self) -> String {
        self.path.clone()
    }
    pub fn kind(&self) -> String {
        self.document.kind().as_str().to_string()
    }
    /// What the page can do with it: {scene, text, image, gallery, usedBy, export}.
    #[wasm_bindgen(unchecked_return_type = "FileCapabilities")]
    pub fn capabilities(&self) -> Result<JsValue, JsValue> {
        to_js(&FileCapabilities {
            scene: self.has_scene,
            text: self.document.text().is_some(),
            image: self.document.image().is_some(),
            gallery: self.document.gallery().is_some(),
            used_by: self.document.kind().capabilities().used_by,
            export: self.has_scene,
        })
    }
    /// The parse error as an Error to throw (message naming file and byte offset, with
    /// `offset` and `chunkPath`), or null.
    #[wasm_bindgen(unchecked_return_type = "RelicviewError | null")]
    pub fn error(&self) -> JsValue {
        self.document
            .error()
            .filter(|_| !self.document.damaged())
            .map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// Damage where the file ends (cut short, or bytes after its end) as an Error, or null:
    /// the file is shown up to it, and the page says so.
    #[wasm_bindgen(unchecked_return_type = "RelicviewError | null")]
    pub fn damage(&self) -> JsValue {
        self.document
            .error()
            .filter(|_| self.document.damaged())
            .map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// The inspector's view: rows, fields, coverage runs, diagnostics, byte views
    /// (`relicview_web_glue::inspector_view` says how it crosses).
    #[wasm_bindgen(unchecked_return_type = "InspectorView | null")]
    pub fn inspect(&self) -> Result<JsValue, JsValue> {
        relicview_web_glue::inspector_view(self.document.inspector())
    }
    /// `inspect()` as JSON text: what a worker sends the page (parsing it there is several
    /// times quicker than the structured clone of the same objects).
    #[wasm_bindgen(js_name = inspectJson)]
    pub fn inspect_json(&self) -> Result<String, JsValue> {
        serde_json::to_string(&self.document.inspector()).map_err(|e| js_error(&e.to_string()))
    }
    /// The length of byte view `view` (0 when there is none).
    #[wasm_bindgen(js_name = byteViewLength)]
    pub fn byte_view_length(&self, view: usize) -> usize {
        self.document
            .inspector()
            .and_then(|v| v.views.get(view))
            .map_or(0, |v| v.len)
    }
    /// How many byte views `bytes(view)` has.
    #[wasm_bindgen(js_name = byteViewCount)]
    pub fn byte_view_count(&self) -> usize {
        self.document.inspector().map_or(0, |v| v.views.len())
    }
    /// The bytes of byte view `view` (0: what the rows refer to).
    pub fn bytes(&self, view: usize) -> Option<js_sys::Uint8Array> {
        self.document.bytes(view).map(js_sys::Uint8Array::from)
    }
    /// The info panel: [{label, value, severity}], with assets that could not be read.
    #[wasm_bindgen(js_name = infoRows, unchecked_return_type = "InfoRow[]")]
    pub fn info_rows(&self) -> Result<JsValue, JsValue> {
        let mut rows = self.document.info_rows();
        rows.extend(
            self.unreadable
                .iter()
                .map(|u| InfoRow::warning("unreadable file", u.clone())),
        );
        rows.extend(
            self.notes
                .iter()
                .map(|n| InfoRow::warning("untextured", n.clone())),
        );
        to_js(&rows)
    }
    /// The summary `relicview info --json` prints for this file.
    #[wasm_bindgen(unchecked_return_type = "Record<string, unknown>")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        js_sys::JSON::parse(&self.document.info_json())
    }
    /// The file as text, for files shown as text.
    pub fn text(&self) -> Option<String> {
        self.document.text().map(str::to_string)
    }
    /// The picture: {width, height, rgba} (top row first), for files shown as pictures.
    #[wasm_bindgen(unchecked_return_type = "Picture | null")]
    pub fn image(&self) -> Result<JsValue, JsValue> {
        self.document.image().map_or(Ok(JsValue::NULL), picture)
    }
    /// What the picture's texels are stored as: [{name, hex, values}] with `values` a
    /// Uint16Array of one number a texel, the top row first ([] where the colours are all).
    #[wasm_bindgen(js_name = imagePlanes, unchecked_return_type = "{ name: string, hex: boolean, values: Uint16Array }[]")]
    pub fn image_planes(&self) -> Result<JsValue, JsValue> {
        let out = js_sys::Array::new();
        for plane in self.document.image_planes() {
            let value = js_sys::Object::new();
            js_sys::Reflect::set(&value, &"name".into(), &plane.name.into())?;
            js_sys::Reflect::set(&value, &"hex".into(), &plane.hex.into())?;
            js_sys::Reflect::set(
                &value,
                &"values".into(),
                &js_sys::Uint16Array::from(&plane.values[..]).into(),
            )?;
            out.push(&value);
        }
        Ok(out.into())
    }
    /// The picture's labelled parts: [{x, y, width, height, label, record}] in texels.
    #[wasm_bindgen(js_name = imageRegions, unchecked_return_type = "ImageRegion[]")]
    pub fn image_regions(&self) -> Result<JsValue, JsValue> {
        to_js(&self.document.image_regions())
    }
    /// The file's items as cards ([{name, color, texture, textureFile, problem, record,
    /// thumbnail: {width, height, rgba}}]), or null for a file not shown as a grid.
    #[wasm_bindgen(unchecked_return_type = "MaterialCard[] | null")]
    pub fn gallery(&self) -> Result<JsValue, JsValue> {
        let Some(cards) = self.document.gallery() else {
            return Ok(JsValue::NULL);
        };
        let out = js_sys::Array::new();
        for card in cards {
            let thumbnail = card.thumbnail.as_ref().map(picture).transpose()?;
            let value = to_js(&crate::gallery::MaterialCard {
                thumbnail: None,
                ..card.clone()
            })?;
            if let Some(t) = thumbnail {
                js_sys::Reflect::set(&value, &"thumbnail".into(), &t)?;
            }
            out.push(&value);
        }
        Ok(out.into())
    }
    /// Texture `i` of the file's scene (not yet taken by the viewer): {width, height, rgba}.
    #[wasm_bindgen(js_name = sceneTexture, unchecked_return_type = "Picture | null")]
    pub fn scene_texture(&self, i: usize) -> Result<JsValue, JsValue> {
        self.scene
            .as_ref()
            .and_then(|s| s.textures.get(i))
            .map_or(Ok(JsValue::NULL), |t| picture(&t.texels))
    }
    /// What texel (x, y) of the scene's texture `i` is made of, in the format's words:
    /// [[name, value]] (empty where the texels are all there is).
    #[wasm_bindgen(js_name = texelSource, unchecked_return_type = "[string, string][]")]
    pub fn texel_source(&self, i: usize, x: u32, y: u32) -> Result<JsValue, JsValue> {
        to_js(&self.document.texel_source(i, x, y))
    }
    /// Named items other files take from this one (a library's materials).
    pub fn exports(&self) -> Vec<String> {
        self.document.exports()
    }
    /// {readMs, parseMs, assetsMs, buildMs} of the open.
    #[wasm_bindgen(unchecked_return_type = "OpenTimings")]
    pub fn timings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.timings)
    }
    /// The scene (taken from the file) as bytes for `Viewer.showSceneBytes` on another
    /// thread, with what the viewer reads of the document; null when there is none.
    #[wasm_bindgen(js_name = takeSceneBytes)]
    pub fn take_scene_bytes(&mut self) -> Option<js_sys::Uint8Array> {
        let shown = crate::wire::ShownScene::of(self.scene.take()?, &*self.document);
        relicview_web_glue::js_buffer(crate::wire::encoded_len(shown.lend()), |write| {
            crate::wire::encode_into(shown.lend(), write)
        })
    }
}

/// A picture as the page draws it: {width, height, rgba} (top row first), the texels in one
/// typed array rather than a list of numbers (its TypeScript shape, `Picture`, is declared
/// beside `Texels` in the model, whose types name it).
pub(super) fn picture(t: &crate::texture::Texels) -> Result<JsValue, JsValue> {
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"width".into(), &t.width.into())?;
    js_sys::Reflect::set(&out, &"height".into(), &t.height.into())?;
    js_sys::Reflect::set(
        &out,
        &"rgba".into(),
        &js_sys::Uint8ClampedArray::from(&t.rgba[..]).into(),
    )?;
    Ok(out.into())
}

/// The byte range of every inspector record, for picks on strips.
pub(super) fn records_of(document: &dyn Document) -> Vec<(usize, usize)> {
    crate::wire::record_offsets(&crate::wire::record_ranges(document))
}
