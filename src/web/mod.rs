//! wasm-bindgen glue: the only module that knows the browser. It translates between the JS
//! shell and the core, and names no format: files are opened through the core's one open
//! sequence and shown through the document interface. The session holds the archive, an
//! opened file its document, the viewer the canvas.

mod bundle;
mod compared;
mod containers;
mod opened;
mod session;
mod viewer;

use crate::archive::Archive;
use crate::formats::kind::{Capabilities, Kind, Purpose};
use crate::formats::{registry, ParseError};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(start)]
pub fn start() {
    // A panic traps the instance; the page starts another and says why, from the message
    // left here (globalThis.relicviewPanic) beside the console's report.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let text = info.to_string().replace('\n', " ");
        let _ = js_sys::Reflect::set(&js_sys::global(), &"relicviewPanic".into(), &text.into());
    }));
}

/// Plain JS objects (not Maps) for every map, so the shell reads fields as properties.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

// The shape `parse_error` below makes, for tsc (it is built key by key).
#[wasm_bindgen(typescript_custom_section)]
const RELICVIEW_ERROR: &str = "/** An Error naming the file and byte, with the byte and record path apart. */\nexport interface RelicviewError extends Error { offset: number; chunkPath: string }";

/// An Error whose message names the file and byte offset, with `offset` and `chunkPath`
/// properties so scripts need not parse the text.
pub(crate) fn parse_error(file: &str, e: &ParseError) -> JsValue {
    let err = js_sys::Error::new(&format!("{file}: {e}"));
    let _ = js_sys::Reflect::set(&err, &"offset".into(), &JsValue::from_f64(e.offset as f64));
    let _ = js_sys::Reflect::set(&err, &"chunkPath".into(), &JsValue::from_str(&e.path));
    err.into()
}

pub(crate) fn js_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// The page's clock, the one requestAnimationFrame timestamps use (a worker's own where the
/// core runs in one).
pub(crate) fn clock_ms() -> f64 {
    thread_local! {
        static PERFORMANCE: Option<web_sys::Performance> =
            js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok().and_then(|p| p.dyn_into().ok());
    }
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, |p| p.now()))
}

/// One round of the page's warm-up in idle time (see `crate::demo::exercise_open_sequence`):
/// a city of `side`² blocks and a model of `patches` patches opened and let go; → the ms it
/// took.
#[wasm_bindgen(js_name = exerciseCore)]
pub fn exercise_core(side: u32, patches: u32) -> Result<f64, JsValue> {
    let t0 = clock_ms();
    crate::demo::exercise_open_sequence(side as usize, patches as usize).map_err(|e| js_error(&e))?;
    Ok(clock_ms() - t0)
}

/// What a file is, from its first bytes (magic) and then its name.
#[wasm_bindgen(js_name = kindOf)]
pub fn kind_of(path: &str, head: &[u8], size: f64) -> String {
    Kind::sniff(path, head, size as u64).as_str().to_string()
}

/// Every kind's word, numbered by its place: a listing's kinds cross as these numbers, one
/// byte a file (`Session.setListing`, `kindsByName`), the words once.
#[wasm_bindgen(js_name = kindWords)]
pub fn kind_words() -> Vec<String> {
    Kind::all().map(|k| k.as_str().to_string()).collect()
}

/// The number `kindsByName` gives a name that says no kind.
#[wasm_bindgen(js_name = noKind)]
pub fn no_kind() -> u8 {
    u8::MAX
}

/// The kind each file's name says it is (a known extension), as its number in `kindWords`,
/// or `noKind()` where a name does not say: the listing types such files by their name, the
/// rest by their first bytes. The paths come as Session.setListing takes them (one string
/// crossing into wasm for the whole listing).
#[wasm_bindgen(js_name = kindsByName)]
pub fn kinds_by_name(paths: &str, lengths: &[u32]) -> Vec<u8> {
    let names = crate::wire::split_js_joined(paths, lengths);
    names.iter().map(|p| Kind::by_name(p).map_or(u8::MAX, Kind::number)).collect()
}

#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct KindInfo {
    #[tsify(type = "string")]
    kind: Kind,
    label: &'static str,
    title: &'static str,
    capabilities: Capabilities,
}

/// A kind's badge, title and what files of it can do: {kind, label, title, capabilities}.
#[wasm_bindgen(js_name = kindInfo, unchecked_return_type = "KindInfo")]
pub fn kind_info(kind: &str) -> Result<JsValue, JsValue> {
    let k = Kind::parse(kind).unwrap_or(Kind::UNKNOWN);
    to_js(&KindInfo { kind: k, label: k.label(), title: k.title(), capabilities: k.capabilities() })
}

/// Parse a file and build its scene without drawing: the core alone, for scripts and for
/// measuring the wasm build against the native one. Returns the triangle count at LOD 0.
#[wasm_bindgen(js_name = countTriangles)]
pub fn count_triangles(bytes: &[u8]) -> Result<u32, JsValue> {
    let mut doc = registry::open("input", bytes.to_vec(), Purpose::Asset);
    if let Some(e) = doc.error() {
        return Err(parse_error("input", e));
    }
    Ok(doc.build_scene(&Archive::detached()).map_or(0, |s| s.triangle_count(0)) as u32)
}

/// The words the page's menus and keys use (backgrounds, lightings, axis views, camera
/// modes): {backgrounds, lightings, axisViews, cameraModes}.
#[wasm_bindgen(js_name = viewWords, unchecked_return_type = "Words")]
pub fn view_words() -> Result<JsValue, JsValue> {
    to_js(&crate::view::WORDS)
}
