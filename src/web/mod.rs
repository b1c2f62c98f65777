//! wasm-bindgen glue of the core module: what the page loads first, all that viewing a file
//! needs. It translates between the JS shell and the core, and names no format: files are
//! opened through the core's one open sequence and shown through the document interface.
//! The session holds the archive, an opened file its document, the viewer the canvas.
//! Containers and the tools (glTF export, comparisons, Export all) are wasm modules of their
//! own, loaded when first used (crates/web-containers, crates/web-tools); what the modules
//! share at the boundary is crates/web-glue.

mod opened;
mod session;
mod sniff;
mod viewer;

use crate::archive::Archive;
use crate::formats::kind::{Capabilities, Kind, Purpose};
use crate::formats::registry;
use serde::Serialize;
use wasm_bindgen::prelude::*;

pub(crate) use relicview_web_glue::{clock_ms, js_error, parse_error, to_js};

#[wasm_bindgen(start)]
pub fn start() {
    relicview_web_glue::install_panic_hook();
}

/// One round of the page's warm-up in idle time (see `crate::demo::exercise_open_sequence`):
/// a city of `side`² blocks and a model of `patches` patches opened and let go; → the ms it
/// took.
#[wasm_bindgen(js_name = exerciseCore)]
pub fn exercise_core(side: u32, patches: u32) -> Result<f64, JsValue> {
    let t0 = clock_ms();
    crate::demo::exercise_open_sequence(side as usize, patches as usize)
        .map_err(|e| js_error(&e))?;
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
    names
        .iter()
        .map(|p| Kind::by_name(p).map_or(u8::MAX, Kind::number))
        .collect()
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
    to_js(&KindInfo {
        kind: k,
        label: k.label(),
        title: k.title(),
        capabilities: k.capabilities(),
    })
}

/// Parse a file and build its scene without drawing: the core alone, for scripts and for
/// measuring the wasm build against the native one. Returns the triangle count at LOD 0.
#[wasm_bindgen(js_name = countTriangles)]
pub fn count_triangles(bytes: &[u8]) -> Result<u32, JsValue> {
    let doc = registry::open("input", bytes.to_vec(), Purpose::Asset);
    if let Some(e) = doc.error() {
        return Err(parse_error("input", e));
    }
    Ok(doc
        .build_scene(&Archive::detached())
        .scene
        .map_or(0, |s| s.triangle_count(0)) as u32)
}

/// The words the page's menus and keys use (backgrounds, lightings, axis views, camera
/// modes): {backgrounds, lightings, axisViews, cameraModes}.
#[wasm_bindgen(js_name = viewWords, unchecked_return_type = "Words")]
pub fn view_words() -> Result<JsValue, JsValue> {
    to_js(&crate::view::WORDS)
}

/// A hosted listing (index.json from `relicview publish` or `index`, archive.json from
/// `relicview serve`) as the page lists it: every file and container row checked, what is
/// wrong left out with why, at most `max_listed` files and entries; null where `bytes` are
/// no listing at all.
#[wasm_bindgen(js_name = readHostedIndex, unchecked_return_type = "ReadIndex | null")]
pub fn read_hosted_index(bytes: &[u8], max_listed: u32) -> Result<JsValue, JsValue> {
    to_js(&crate::containers::hosted::read_index(
        bytes,
        max_listed as usize,
    ))
}
