//! Which dropped files are containers, told from their names and a few bytes: the page asks
//! this of the core before it loads the containers module (crates/web-containers), so that
//! a folder holding none never downloads it.

use crate::containers;
use relicview_web_glue::{js_error, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A dropped cue sheet's data track, as the page lists its disc: the file it names (as
/// written), the mode word, the first sector, its line in the sheet; the archive path of
/// that file beside the sheet, and why the disc cannot be read when no such file is there.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CueSheet {
    file: String,
    mode: &'static str,
    start: u64,
    line: usize,
    beside: String,
    not_beside: String,
}

/// Cue sheet `sheet`, `size` bytes, whose bytes `read()` gives (a Promise of an
/// ArrayBuffer, asked only when the size is one the core reads): → Promise of its
/// [`CueSheet`], or an Error saying why not. The rule (the size, the track, the file beside
/// it) is the one every reader of a sheet keeps (containers' `read_cue_sheet`).
#[wasm_bindgen(js_name = cueSheet, unchecked_return_type = "Promise<CueSheet>")]
pub fn cue_sheet(sheet: String, size: f64, read: js_sys::Function) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(async move {
        containers::cue_size_read(&sheet, size as u64).map_err(|e| js_error(&e))?;
        let text = relicview_web_glue::read_through(&read, &sheet)
            .await
            .map_err(|e| js_error(&format!("{sheet}: {e}")))?;
        let t = containers::parse_cue_sheet(&sheet, &text).map_err(|e| js_error(&e))?;
        to_js(&CueSheet {
            beside: t.file_beside(&sheet),
            not_beside: t.not_beside(&sheet),
            mode: t.mode.word(),
            file: t.file,
            start: t.start,
            line: t.line,
        })
    })
}

/// Whether a file is a cue sheet (by its name, as every reader of the archive tells one).
#[wasm_bindgen(js_name = isCueSheet)]
pub fn is_cue_sheet(name: &str) -> bool {
    containers::is_cue(name)
}

/// How many of a file's first bytes tell a container (read before `containerHead`).
#[wasm_bindgen(js_name = containerFirstBytes)]
pub fn container_first_bytes() -> usize {
    containers::HEAD
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
