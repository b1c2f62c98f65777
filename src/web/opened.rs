//! A file opened by the session, as the page reads it: its document (inspector, info, text
//! or picture) and the scene the viewer takes.

use super::{js_error, parse_error, to_js};
use crate::archive;
use crate::formats::{Described, Document, Found, InfoRow};
use crate::gallery::{ImageRegion, MaterialCard, TextureCard};
use crate::inspect::InspectorView;
use crate::scene::Scene;
use relicview_web_glue::{ErrorAt, Picture};
use serde::Serialize;
use std::borrow::Cow;
use std::cell::OnceCell;
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
    /// What building the scene found, which describing the document reads.
    found: Found,
    /// The inspector's view where the scene's build changed it (made when first asked).
    built_view: OnceCell<InspectorView>,
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
            found: opened.found,
            built_view: OnceCell::new(),
            has_scene,
            unreadable: opened.unreadable,
            notes: opened.notes,
            timings: opened.timings,
        }
    }

    /// The document with what its scene's build found.
    pub(super) fn described(&self) -> Described<'_> {
        Described {
            document: &*self.document,
            found: &self.found,
        }
    }

    /// The inspector's view, described when first asked.
    fn view(&self) -> Option<&InspectorView> {
        if let Some(view) = self.built_view.get() {
            return Some(view);
        }
        match self.described().inspector()? {
            Cow::Borrowed(view) => Some(view),
            Cow::Owned(view) => Some(self.built_view.get_or_init(|| view)),
        }
    }

    fn capabilities_of(&self) -> FileCapabilities {
        FileCapabilities {
            scene: self.has_scene,
            text: self.document.text().is_some(),
            image: self.document.image().is_some(),
            gallery: self.described().gallery().is_some(),
            used_by: self.document.kind().capabilities().used_by,
            export: self.has_scene,
        }
    }

    /// The parse error where the file is `damaged` (cut short, or bytes after its end) or
    /// where it is not.
    fn fault(&self, damaged: bool) -> Option<&crate::findings::ParseError> {
        self.described()
            .error()
            .filter(|_| self.document.damaged() == damaged)
    }

    fn info_rows_of(&self) -> Vec<InfoRow> {
        let mut rows = self.described().info_rows();
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
        rows
    }

    fn image_planes_of(&self) -> Vec<TexelPlaneShown> {
        self.document
            .image_planes()
            .into_iter()
            .map(|plane| TexelPlaneShown {
                values: js_sys::Uint16Array::from(&plane.values[..]).into(),
                name: plane.name.to_string(),
                hex: plane.hex,
            })
            .collect()
    }

    fn gallery_of(&self) -> Option<Vec<PicturedMaterialCard>> {
        let cards = self.described().gallery()?;
        // Each card's record found among the inspector's rows by its bytes.
        let rows = records_of(self);
        Some(
            cards
                .iter()
                .map(|card| PicturedMaterialCard {
                    thumbnail: card.thumbnail.as_ref().map(Picture::of),
                    card: MaterialCard {
                        record: card.bytes.and_then(|b| crate::scene::row_of(&rows, b)),
                        ..card.clone()
                    },
                })
                .collect(),
        )
    }
}

/// Everything the page reads of an opened file but its scene (`OpenedFile.summary`): what a
/// parsing worker posts, and what the page's `RemoteFile` (www/sources/opener.js) answers from, so
/// the file has one shape on both threads.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct OpenedSummary {
    path: String,
    kind: String,
    capabilities: FileCapabilities,
    error: Option<ErrorAt>,
    damage: Option<ErrorAt>,
    /// The inspector's view as JSON text (`InspectorView | null` once parsed): parsing it on
    /// the page is several times quicker than the structured clone of the same objects.
    inspect: String,
    /// The byte views (`OpenedFile.bytes`), the file as stored last.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint8Array[]")]
    bytes: JsValue,
    info_rows: Vec<InfoRow>,
    /// What `relicview info --json` prints.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Record<string, unknown>")]
    info: JsValue,
    text: Option<String>,
    image: Option<Picture>,
    image_regions: Vec<ImageRegion>,
    image_planes: Vec<TexelPlaneShown>,
    gallery: Option<Vec<PicturedMaterialCard>>,
    exports: Vec<String>,
    timings: archive::OpenTimings,
}

/// What a picture's texels are stored as (a palette index, a colour word): one number a
/// texel, the top row first.
#[derive(Serialize, tsify::Tsify)]
pub struct TexelPlaneShown {
    name: String,
    /// Written in hexadecimal.
    hex: bool,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint16Array")]
    values: JsValue,
}

/// A material card with its thumbnail as a picture the page draws.
#[derive(Serialize, tsify::Tsify)]
pub struct PicturedMaterialCard {
    #[serde(flatten)]
    card: MaterialCard,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    thumbnail: Option<Picture>,
}

/// A texture card with its thumbnail as a picture the page draws.
#[derive(Serialize, tsify::Tsify)]
pub struct PicturedTextureCard {
    #[serde(flatten)]
    pub(super) card: TextureCard,
    pub(super) thumbnail: Picture,
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
        to_js(&self.capabilities_of())
    }
    /// The parse error as an Error to throw (message naming file and byte offset, with
    /// `offset` and `chunkPath`), or null.
    #[wasm_bindgen(unchecked_return_type = "(Error & ErrorAt) | null")]
    pub fn error(&self) -> JsValue {
        self.fault(false)
            .map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// Damage where the file ends (cut short, or bytes after its end) as an Error, or null:
    /// the file is shown up to it, and the page says so.
    #[wasm_bindgen(unchecked_return_type = "(Error & ErrorAt) | null")]
    pub fn damage(&self) -> JsValue {
        self.fault(true)
            .map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// The inspector's view: rows, fields, coverage runs, diagnostics, byte views
    /// (`relicview_web_glue::inspector_view` says how it crosses).
    #[wasm_bindgen(unchecked_return_type = "InspectorView | null")]
    pub fn inspect(&self) -> Result<JsValue, JsValue> {
        relicview_web_glue::inspector_view(self.view())
    }
    /// `inspect()` as JSON text: what a worker sends the page (parsing it there is several
    /// times quicker than the structured clone of the same objects).
    #[wasm_bindgen(js_name = inspectJson)]
    pub fn inspect_json(&self) -> Result<String, JsValue> {
        serde_json::to_string(&self.view()).map_err(|e| js_error(&e.to_string()))
    }
    /// The length of byte view `view` (0 when there is none).
    #[wasm_bindgen(js_name = byteViewLength)]
    pub fn byte_view_length(&self, view: usize) -> usize {
        self.view()
            .and_then(|v| v.views.get(view))
            .map_or(0, |v| v.len)
    }
    /// How many byte views `bytes(view)` has.
    #[wasm_bindgen(js_name = byteViewCount)]
    pub fn byte_view_count(&self) -> usize {
        self.view().map_or(0, |v| v.views.len())
    }
    /// The bytes of byte view `view` (0: what the rows refer to).
    pub fn bytes(&self, view: usize) -> Option<js_sys::Uint8Array> {
        self.document.bytes(view).map(js_sys::Uint8Array::from)
    }
    /// The info panel: [{label, value, severity}], with assets that could not be read.
    #[wasm_bindgen(js_name = infoRows, unchecked_return_type = "InfoRow[]")]
    pub fn info_rows(&self) -> Result<JsValue, JsValue> {
        to_js(&self.info_rows_of())
    }
    /// The summary `relicview info --json` prints for this file.
    #[wasm_bindgen(unchecked_return_type = "Record<string, unknown>")]
    pub fn info(&self) -> Result<JsValue, JsValue> {
        js_sys::JSON::parse(&self.described().info_json())
    }
    /// The file as text, for files shown as text.
    pub fn text(&self) -> Option<String> {
        self.document.text().map(str::to_string)
    }
    /// The picture: {width, height, rgba} (top row first), for files shown as pictures.
    #[wasm_bindgen(unchecked_return_type = "Picture | null")]
    pub fn image(&self) -> Result<JsValue, JsValue> {
        to_js(&self.document.image().map(Picture::of))
    }
    /// What the picture's texels are stored as: [{name, hex, values}] with `values` a
    /// Uint16Array of one number a texel, the top row first ([] where the colours are all).
    #[wasm_bindgen(js_name = imagePlanes, unchecked_return_type = "TexelPlaneShown[]")]
    pub fn image_planes(&self) -> Result<JsValue, JsValue> {
        to_js(&self.image_planes_of())
    }
    /// The picture's labelled parts: [{x, y, width, height, label, record}] in texels.
    #[wasm_bindgen(js_name = imageRegions, unchecked_return_type = "ImageRegion[]")]
    pub fn image_regions(&self) -> Result<JsValue, JsValue> {
        to_js(&self.document.image_regions())
    }
    /// The file's items as cards ([{name, color, texture, textureFile, problem, record,
    /// thumbnail: {width, height, rgba}}]), or null for a file not shown as a grid.
    #[wasm_bindgen(unchecked_return_type = "PicturedMaterialCard[] | null")]
    pub fn gallery(&self) -> Result<JsValue, JsValue> {
        to_js(&self.gallery_of())
    }
    /// Texture `i` of the file's scene (not yet taken by the viewer): {width, height, rgba}.
    #[wasm_bindgen(js_name = sceneTexture, unchecked_return_type = "Picture | null")]
    pub fn scene_texture(&self, i: usize) -> Result<JsValue, JsValue> {
        self.scene
            .as_ref()
            .and_then(|s| s.textures.get(i))
            .map_or(Ok(JsValue::NULL), |t| to_js(&Picture::of(&t.texels)))
    }
    /// What texel (x, y) of the scene's texture `i` is made of, in the format's words:
    /// [[name, value]] (empty where the texels are all there is).
    #[wasm_bindgen(js_name = texelSource, unchecked_return_type = "[string, string][]")]
    pub fn texel_source(&self, i: usize, x: u32, y: u32) -> Result<JsValue, JsValue> {
        to_js(&self.described().texel_source(i, x, y))
    }
    /// Everything the page reads of the file but its scene, in one value a worker posts as
    /// it is (its typed arrays transferred): see [`OpenedSummary`]. `stored`: the file's
    /// bytes as the worker read them, sent as its last byte view where their lengths agree
    /// rather than a second copy out of wasm memory.
    #[wasm_bindgen(unchecked_return_type = "OpenedSummary")]
    pub fn summary(&self, stored: Option<js_sys::Uint8Array>) -> Result<JsValue, JsValue> {
        let capabilities = self.capabilities_of();
        let views = self.byte_view_count();
        let bytes: js_sys::Array = (0..views)
            .map(|i| match &stored {
                Some(s) if i == views - 1 && s.length() as usize == self.byte_view_length(i) => {
                    JsValue::from(s)
                }
                _ => self.bytes(i).unwrap_or_default().into(),
            })
            .collect();
        to_js(&OpenedSummary {
            path: self.path.clone(),
            kind: self.kind(),
            error: self.fault(false).map(|e| ErrorAt::of(&self.path, e)),
            damage: self.fault(true).map(|e| ErrorAt::of(&self.path, e)),
            inspect: self.inspect_json()?,
            bytes: bytes.into(),
            info_rows: self.info_rows_of(),
            info: self.info()?,
            text: self.text(),
            image: self.document.image().map(Picture::of),
            image_regions: self.document.image_regions(),
            image_planes: self.image_planes_of(),
            gallery: self.gallery_of(),
            exports: self.exports(),
            timings: self.timings,
            capabilities,
        })
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
    /// What comparing reads of the file (`diff::Side`: its kind, bytes, records, placements
    /// and scene), in the wire form for the tools module's `compareSides`. Asked before
    /// `takeSceneBytes`, which takes the scene.
    #[wasm_bindgen(js_name = comparisonSide)]
    pub fn comparison_side(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let side = crate::diff::Side::of(self.described(), self.scene.as_ref());
        let tag = crate::wire::SIDE;
        let len = crate::wire::encoded_value_len(tag, &side);
        relicview_web_glue::js_buffer(len, |write| {
            crate::wire::encode_value_into(tag, &side, write)
        })
        .ok_or_else(|| {
            js_error(&format!(
                "{}: too big to compare in a JS buffer ({len} bytes)",
                self.path
            ))
        })
    }
    /// The scene (taken from the file) as bytes for `Viewer.showSceneBytes` on another
    /// thread, with what the viewer reads of the document; null when there is none.
    #[wasm_bindgen(js_name = takeSceneBytes)]
    pub fn take_scene_bytes(&mut self) -> Option<js_sys::Uint8Array> {
        let scene = self.scene.take()?;
        let shown = crate::wire::ShownScene::of(scene, self.described());
        relicview_web_glue::js_buffer(crate::wire::encoded_len(shown.lend()), |write| {
            crate::wire::encode_into(shown.lend(), write)
        })
    }
}

/// The byte range of every inspector record, for picks on strips.
pub(super) fn records_of(file: &OpenedFile) -> Vec<(usize, usize)> {
    crate::wire::record_offsets(&crate::wire::record_ranges(file.described()))
}
