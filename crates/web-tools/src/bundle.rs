//! The page's Export all: each archive file exported as the CLI's `export --all` exports it
//! (`relicview_services::bundle`), named the same way, into a zip handed on entry by entry;
//! and a capture's numbered PNG frames into a zip the same way.

use relicview_services::bundle::zipped::ZipStream;
use relicview_services::bundle::{report::REPORT_NAME, Bundle, Outcome};
use relicview_web_glue::{js_error, to_js};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What one archive file exports to (`Session.exportFile`), for `ArchiveExport.add`.
#[wasm_bindgen]
pub struct ExportedFile {
    pub(crate) outcome: Option<Outcome>,
}

/// An Export all under way: the names given, the report, the zip.
#[wasm_bindgen]
pub struct ArchiveExport {
    bundle: Option<Bundle>,
    zip: Option<ZipStream>,
}

#[derive(Serialize, tsify::Tsify)]
pub struct Summary {
    /// Files of the archive looked at, bytes written into the zip (before compression), and
    /// the files that failed.
    files: usize,
    written: usize,
    bytes: u64,
    failed: usize,
}

#[wasm_bindgen]
impl ArchiveExport {
    /// An export of the archive called `source` (the report says so).
    #[wasm_bindgen(constructor)]
    pub fn new(source: &str) -> ArchiveExport {
        ArchiveExport {
            bundle: Some(Bundle::new(source)),
            zip: Some(ZipStream::new()),
        }
    }

    fn parts(&mut self) -> Result<(&mut Bundle, &mut ZipStream), JsValue> {
        match (self.bundle.as_mut(), self.zip.as_mut()) {
            (Some(b), Some(z)) => Ok((b, z)),
            _ => Err(js_error("the export is finished")),
        }
    }

    /// Add what archive file `path` (its name in the zip) exports to → the zip's bytes that
    /// are final now, to hand on.
    pub fn add(
        &mut self,
        path: &str,
        file: &mut ExportedFile,
    ) -> Result<js_sys::Uint8Array, JsValue> {
        let outcome = file
            .outcome
            .take()
            .ok_or_else(|| js_error("that file was added already"))?;
        let (bundle, zip) = self.parts()?;
        let mut out = Vec::new();
        for (name, bytes) in bundle.take(path, outcome) {
            out.extend(zip.add(&name, &bytes).map_err(|e| js_error(&e))?);
        }
        Ok(js_sys::Uint8Array::from(&out[..]))
    }

    /// A file that could not be read.
    pub fn unreadable(&mut self, path: &str, why: &str) -> Result<(), JsValue> {
        self.parts()?.0.unreadable(path, why);
        Ok(())
    }

    /// {files, written, bytes, failed} so far.
    #[wasm_bindgen(unchecked_return_type = "Summary")]
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        let b = self
            .bundle
            .as_ref()
            .ok_or_else(|| js_error("the export is finished"))?;
        let r = b.report();
        to_js(&Summary {
            files: r.files,
            written: r.written.len(),
            bytes: r.bytes,
            failed: r.failed.len(),
        })
    }

    /// The end of the zip: report.json and the zip's directory.
    pub fn finish(&mut self) -> Result<js_sys::Uint8Array, JsValue> {
        let (Some(bundle), Some(mut zip)) = (self.bundle.take(), self.zip.take()) else {
            return Err(js_error("the export is finished"));
        };
        let report = bundle.finish();
        let json = serde_json::to_vec_pretty(&report).map_err(|e| js_error(&e.to_string()))?;
        let mut out = Vec::new();
        out.extend(zip.add(REPORT_NAME, &json).map_err(|e| js_error(&e))?);
        out.extend(zip.finish().map_err(|e| js_error(&e))?);
        Ok(js_sys::Uint8Array::from(&out[..]))
    }
}

/// A capture's frames as a zip of numbered PNGs, handed on frame by frame (the page never
/// holds the whole zip).
#[wasm_bindgen]
pub struct FrameZip {
    zip: Option<ZipStream>,
}

impl Default for FrameZip {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl FrameZip {
    #[wasm_bindgen(constructor)]
    pub fn new() -> FrameZip {
        FrameZip {
            zip: Some(ZipStream::new()),
        }
    }

    /// Add a frame's PNG as `name` (stored: a PNG is compressed already) → the zip's bytes
    /// that are final now, to hand on.
    pub fn add(&mut self, name: &str, png: &[u8]) -> Result<js_sys::Uint8Array, JsValue> {
        let zip = self
            .zip
            .as_mut()
            .ok_or_else(|| js_error("the frames' zip is finished"))?;
        let out = zip.add_stored(name, png).map_err(|e| js_error(&e))?;
        Ok(js_sys::Uint8Array::from(&out[..]))
    }

    /// The end of the zip: the last frame and the zip's directory.
    pub fn finish(&mut self) -> Result<js_sys::Uint8Array, JsValue> {
        let zip = self
            .zip
            .take()
            .ok_or_else(|| js_error("the frames' zip is finished"))?;
        let out = zip.finish().map_err(|e| js_error(&e))?;
        Ok(js_sys::Uint8Array::from(&out[..]))
    }
}
