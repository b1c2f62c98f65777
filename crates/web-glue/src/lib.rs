//! What the page's wasm modules share where they meet JS. The page loads the core first
//! (the top crate's `web` glue: viewing a file) and the others when first used:
//! `relicview-web-containers` (containers and their decoders, in the container worker) and
//! `relicview-web-tools` (glTF export, comparisons, Export all). Each is a module of its own
//! with its own memory, built from this crate's pieces, so a rule of the boundary (how an
//! error names a file and byte, how a value crosses) is written once.
//!
//! WebAssembly only: natively the crate is empty.
#![cfg(target_arch = "wasm32")]

use relicview_model::findings::ParseError;
use relicview_model::inspect::InspectorView;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A panic traps the instance; the page says why from the message left here
/// (`globalThis.relicviewPanic`) beside the console's report. Each module's start calls it.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let text = info.to_string().replace('\n', " ");
        let _ = js_sys::Reflect::set(&js_sys::global(), &"relicviewPanic".into(), &text.into());
    }));
}

/// Plain JS objects (not Maps) for every map, so the shell reads fields as properties.
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

/// The most inspector rows [`inspector_view`] sends as JSON text: a few hundred bytes a row,
/// so the text is at most a few MB of wasm memory (a 50 MB model's 7,800 rows made it grow
/// by 8 MB for good).
const JSON_ROWS: usize = 4_096;

/// An inspector's view for the page. A view of up to [`JSON_ROWS`] rows crosses as one JSON
/// text parsed by the page (a world's 3,200 rows: about a third of the time of building the
/// objects call by call); a larger one is built call by call, so that its text never sits
/// whole in wasm memory, which does not shrink.
pub fn inspector_view(view: Option<&InspectorView>) -> Result<JsValue, JsValue> {
    if view.map_or(0, |v| v.chunks.len()) <= JSON_ROWS {
        js_sys::JSON::parse(&serde_json::to_string(&view).map_err(|e| js_error(&e.to_string()))?)
    } else {
        to_js(&view)
    }
}

/// Where a file went wrong, as plain data: the message naming the file and byte, the byte
/// and the record path apart (so scripts need not parse the text). A worker posts it as it
/// is; [`parse_error`] makes an Error carrying the same fields.
#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ErrorAt {
    pub message: String,
    /// The byte offset in the file.
    pub offset: f64,
    /// The record path, such as `OBJECT[0]/LOD[1]`; empty at the top level.
    pub chunk_path: String,
}

impl ErrorAt {
    pub fn of(file: &str, e: &ParseError) -> ErrorAt {
        ErrorAt {
            message: format!("{file}: {e}"),
            offset: e.offset as f64,
            chunk_path: e.path.clone(),
        }
    }
}

/// An Error (`Error & ErrorAt` to tsc) whose message names the file and byte offset, with
/// `offset` and `chunkPath` properties.
pub fn parse_error(file: &str, e: &ParseError) -> JsValue {
    let at = ErrorAt::of(file, e);
    let err = js_sys::Error::new(&at.message);
    match to_js(&at) {
        Ok(fields) => js_sys::Object::assign(&err, &fields.into()).into(),
        Err(_) => err.into(),
    }
}

/// A picture as the page draws it: RGBA texels, the top row first, in one typed array
/// rather than a list of numbers.
#[derive(Serialize, tsify::Tsify)]
pub struct Picture {
    pub width: u32,
    pub height: u32,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    #[tsify(type = "Uint8ClampedArray")]
    pub rgba: JsValue,
}

impl Picture {
    pub fn of(t: &relicview_model::texture::Texels) -> Picture {
        Picture {
            width: t.width,
            height: t.height,
            rgba: js_sys::Uint8ClampedArray::from(&t.rgba[..]).into(),
        }
    }
}

pub fn js_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// An error's message, whatever was thrown.
pub fn message_of(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map_or_else(
        || e.as_string().unwrap_or_else(|| format!("{e:?}")),
        |e| String::from(e.message()),
    )
}

/// The page's clock, the one requestAnimationFrame timestamps use (a worker's own where the
/// module runs in one).
pub fn clock_ms() -> f64 {
    thread_local! {
        static PERFORMANCE: Option<web_sys::Performance> =
            js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok().and_then(|p| p.dyn_into().ok());
    }
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, |p| p.now()))
}

/// A file of the archive read through the page: `read(path)` returns a Promise of an
/// ArrayBuffer (the page's read of a dropped File or a hosted URL).
pub async fn read_through(read: &js_sys::Function, path: &str) -> Result<Vec<u8>, String> {
    let promise: js_sys::Promise = read
        .call1(&JsValue::NULL, &JsValue::from_str(path))
        .map_err(|e| message_of(&e))?
        .dyn_into()
        .map_err(|_| "read() did not return a Promise".to_string())?;
    let buffer = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|e| message_of(&e))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A JS buffer of `len` bytes filled by `fill(write)`, each `write(offset, bytes)` copied
/// straight from wasm memory: a scene's wire form goes out without a second copy of it in
/// wasm memory. None where `len` is past a JS buffer's reach.
pub fn js_buffer(
    len: usize,
    fill: impl FnOnce(&mut dyn FnMut(usize, &[u8])),
) -> Option<js_sys::Uint8Array> {
    let out = js_sys::Uint8Array::new_with_length(u32::try_from(len).ok()?);
    fill(&mut |at, bytes| {
        // SAFETY: the view is read by `set` at once, before anything can allocate and move
        // wasm memory.
        let view = unsafe { js_sys::Uint8Array::view(bytes) };
        out.set(&view, at as u32);
    });
    Some(out)
}
