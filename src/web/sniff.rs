//! Which dropped files are containers, told from their names and a few bytes: the page asks
//! this of the core before it loads the containers module (crates/web-containers), so that
//! a folder holding none never downloads it.

use crate::containers;
use relicview_web_glue::js_error;
use wasm_bindgen::prelude::*;

/// The data track a cue sheet names: {file, mode ("MODE1", "MODE2", "COOKED"), start,
/// line}, or an Error naming the line.
// The shape `cue_track` below makes, for tsc (it is built key by key).
#[wasm_bindgen(typescript_custom_section)]
const CUE_TRACK: &str = "/** A cue sheet's data track: its file, sector mode, INDEX 01 sector and line. */\nexport interface CueTrack { file: string; mode: string; start: number; line: number }";

#[wasm_bindgen(js_name = cueTrack, unchecked_return_type = "CueTrack")]
pub fn cue_track(text: &str) -> Result<JsValue, JsValue> {
    let t = containers::cue_data_track(text).map_err(|e| js_error(&e))?;
    let mode = t.mode.word();
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"file".into(), &t.file.into())?;
    js_sys::Reflect::set(&out, &"mode".into(), &mode.into())?;
    js_sys::Reflect::set(&out, &"start".into(), &(t.start as f64).into())?;
    js_sys::Reflect::set(&out, &"line".into(), &(t.line as f64).into())?;
    Ok(out.into())
}

/// What container a file is (its name, first bytes: 17 sectors tell an ISO, and last
/// bytes: a zip's end record, up to `containerTail()`): "zip", "7z", "iso", "raw disc",
/// "chd", or "cue" for a cue sheet (by its name); undefined if none.
#[wasm_bindgen(js_name = containerKind)]
pub fn container_kind(name: &str, head: &[u8], tail: &[u8]) -> Option<String> {
    if containers::is_cue(name) {
        return Some("cue".into());
    }
    containers::sniff_with_tail(name, head, tail).map(|k| k.as_str().to_string())
}

/// How many of a file's first bytes `containerKind` wants, given its first 17 sectors: more
/// for a program, which may be a self-extracting 7z with the archive after it.
#[wasm_bindgen(js_name = containerHead)]
pub fn container_head(head: &[u8]) -> usize {
    containers::head_wanted(head)
}

/// How many of a file's last bytes `containerKind` wants.
#[wasm_bindgen(js_name = containerTail)]
pub fn container_tail() -> usize {
    containers::TAIL
}
