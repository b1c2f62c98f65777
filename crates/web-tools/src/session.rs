//! The archive as the tools module sees it: the listing the page keeps in step with the
//! core's (www/ground/modules.js), the assets read so far, and the page's way to read a file. The
//! tools open files here, in this module's memory, through the same open sequence as the
//! core.

use crate::bundle::ExportedFile;
use crate::compared::ComparedFiles;
use relicview_services::archive::{self, Archive, ArchiveIndex, FileSource};
use relicview_web_glue::{clock_ms, js_error};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Reads archive files through the page: `read(path)` returns a Promise of an ArrayBuffer.
struct JsSource {
    read: js_sys::Function,
}

impl FileSource for JsSource {
    async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        relicview_web_glue::read_through(&self.read, path).await
    }
    fn now_ms(&self) -> f64 {
        clock_ms()
    }
}

/// The archive the tools open files in.
#[wasm_bindgen]
pub struct Session {
    archive: Rc<RefCell<Archive>>,
    source: Rc<JsSource>,
}

#[wasm_bindgen]
impl Session {
    /// `read(path)` → Promise<ArrayBuffer> of an archive file.
    #[wasm_bindgen(constructor)]
    pub fn new(read: js_sys::Function) -> Session {
        Session {
            archive: Rc::new(RefCell::new(Archive::new(ArchiveIndex::default()))),
            source: Rc::new(JsSource { read }),
        }
    }

    /// The archive's paths, kinds and sizes, as the core's `Session.setListing` takes them.
    #[wasm_bindgen(js_name = setListing)]
    pub fn set_listing(&self, paths: &str, lengths: &[u32], kinds: &[u8], sizes: &[f64]) {
        let mut index = ArchiveIndex::from_joined(paths, lengths, kinds);
        index.set_size_numbers(sizes);
        *self.archive.borrow_mut() = Archive::new(index);
    }

    /// The listing's sizes again, as the core's `Session.setSizes` takes them: → false, and
    /// nothing changed, when the count is not the listing's.
    #[wasm_bindgen(js_name = setSizes)]
    pub fn set_sizes(&self, sizes: &[f64]) -> bool {
        self.archive.borrow_mut().index.set_size_numbers(sizes)
    }

    /// The listing's kinds again, as the core's `Session.setKinds` takes them: → false, and
    /// nothing changed, when the count is not the listing's.
    #[wasm_bindgen(js_name = setKinds)]
    pub fn set_kinds(&self, kinds: &[u8]) -> bool {
        self.archive.borrow_mut().index.set_kind_numbers(kinds)
    }

    /// Open two files of the archive and compare them record by record (docs/diff.md) →
    /// Promise<ComparedFiles>: what `relicview diff --json` prints for them, both trees row
    /// by row, each side as the inspector shows it and the scenes the core's viewer shows.
    /// Rejects when either cannot be read.
    #[wasm_bindgen(js_name = openComparison, unchecked_return_type = "Promise<ComparedFiles>")]
    pub fn open_comparison(&self, a: String, b: String) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let oa = archive::open_file(&archive, &*source, &a)
                .await
                .map_err(|e| js_error(&e))?;
            let ob = archive::open_file(&archive, &*source, &b)
                .await
                .map_err(|e| js_error(&e))?;
            Ok(ComparedFiles::new(oa, ob).map_err(|e| js_error(&e))?.into())
        })
    }

    /// What archive file `path` exports to in an Export all (`relicview_services::bundle`)
    /// → Promise<ExportedFile>, for `ArchiveExport.add`. It is opened in an archive of its
    /// own, so what it reads is let go with it. Rejects when it cannot be read.
    /// `all_scenes`: every LOD and model as glTF scenes (`export --all --lods all`); `rig`:
    /// how skeletons go out (`export --rig`).
    #[wasm_bindgen(js_name = exportFile, unchecked_return_type = "Promise<ExportedFile>")]
    pub fn export_file(
        &self,
        path: String,
        all_scenes: bool,
        #[wasm_bindgen(unchecked_param_type = "Rig")] rig: JsValue,
    ) -> js_sys::Promise {
        let (index, source) = (self.archive.borrow().index.clone(), self.source.clone());
        let rig: Result<relicview_services::gltf::Rig, _> = serde_wasm_bindgen::from_value(rig);
        wasm_bindgen_futures::future_to_promise(async move {
            let rig = rig.map_err(|e| js_error(&format!("the rig: {e}")))?;
            let archive = RefCell::new(Archive::new(index));
            let opened = relicview_services::bundle::open_for_export(&archive, &*source, &path)
                .await
                .map_err(|e| js_error(&format!("{path}: {e}")))?;
            Ok(ExportedFile {
                outcome: Some(relicview_services::bundle::outcome_of(
                    &opened, all_scenes, rig,
                )),
            }
            .into())
        })
    }
}
