//! The page's containers module: a wasm module of its own, which the page loads the first
//! time it opens a container (www/ground/modules.js), so that a link to a loose model downloads none
//! of the decoders (deflate, Deflate64, bzip2, LZMA, XZ, PPMd, Zstandard, 7z, CHD).
//!
//! In the container worker (www/workers/container-worker.js) a `File` is read synchronously in
//! ranges (FileReaderSync over `File.slice`), its directory listed by the containers'
//! readers, an entry read when the page asks. Containers inside it are opened in turn from
//! memory, as on disk (crates/services/src/disk.rs). On the page, an entry of a container on
//! a static host is rebuilt from the ranges fetched (`readHosted`). Names no format: the page
//! types the entries. Which file is a container at all is the core's to say (its sniffers
//! are small), so a folder without one never loads this module.
//!
//! WebAssembly only: natively the crate is empty.
#![cfg(target_arch = "wasm32")]

use relicview_containers::{self as containers, hosted, ByteSource, Container, Limits, SectorMode};
use relicview_web_glue::{js_error, to_js};
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// This module reads containers: a 7z header's tables are read under a ceiling on one
/// allocation, which only this allocator enforces (crates/containers/src/ceiling.rs).
#[global_allocator]
static ALLOCATOR: containers::ceiling::CeilingAllocator = containers::ceiling::CeilingAllocator;

#[wasm_bindgen(start)]
pub fn start() {
    relicview_web_glue::install_panic_hook();
}

/// Containers nest at most this deep.
const MAX_NESTING: usize = 4;

/// A JS function `(offset, length) → Uint8Array`, synchronous (a worker's FileReaderSync).
struct JsBytes {
    read: js_sys::Function,
    len: u64,
}

impl ByteSource for JsBytes {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|e| e > self.len)
        {
            return Err(format!(
                "{} bytes at byte {offset} run past the end ({} bytes)",
                buf.len(),
                self.len
            ));
        }
        let got = self
            .read
            .call2(
                &JsValue::NULL,
                &(offset as f64).into(),
                &(buf.len() as f64).into(),
            )
            .map_err(|e| {
                format!(
                    "at byte {offset}: {}",
                    e.as_string()
                        .or_else(|| js_sys::Error::from(e).message().as_string())
                        .unwrap_or_default()
                )
            })?;
        let bytes = js_sys::Uint8Array::new(&got);
        if bytes.length() as usize != buf.len() {
            return Err(format!(
                "at byte {offset}: {} bytes read of {}",
                bytes.length(),
                buf.len()
            ));
        }
        bytes.copy_to(buf);
        Ok(())
    }
}

#[wasm_bindgen]
extern "C" {
    /// Decoded entries kept by the page (www/workers/decoded-cache.js: the Origin Private File
    /// System), answering synchronously. Its TypeScript interface is the page's, declared
    /// where the page implements it (www/workers/worker-types.d.ts).
    #[wasm_bindgen(typescript_type = "DecodedStore")]
    pub type DecodedStore;
    #[wasm_bindgen(method, catch)]
    fn has(this: &DecodedStore, index: f64) -> Result<bool, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn get(this: &DecodedStore, index: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn put(
        this: &DecodedStore,
        index: f64,
        offset: f64,
        bytes: &js_sys::Uint8Array,
        last: bool,
    ) -> Result<(), JsValue>;
}

/// The page's store as the containers crate asks it. A store that throws is a store
/// without the entry.
struct JsDecodedStore(DecodedStore);

impl containers::DecodedStore for JsDecodedStore {
    fn has(&self, index: usize) -> bool {
        self.0.has(index as f64).unwrap_or(false)
    }
    fn get(&self, index: usize) -> Option<Vec<u8>> {
        // Whatever a store answers is checked: a Uint8Array or no entry.
        let v = self.0.get(index as f64).ok()?;
        v.is_instance_of::<js_sys::Uint8Array>()
            .then(|| js_sys::Uint8Array::from(v).to_vec())
    }
    fn put(&self, index: usize, offset: u64, bytes: &[u8], last: bool) {
        // SAFETY: the view into wasm memory lives only for this call, and the store writes
        // it synchronously without calling into wasm, so the memory cannot grow or move
        // under it (a copy would double a large entry's peak).
        let view = unsafe { js_sys::Uint8Array::view(bytes) };
        let _ = self.0.put(index as f64, offset as f64, &view, last);
    }
}

/// A file inside a container, as its listing gives it to the page.
#[derive(Serialize, tsify::Tsify)]
pub struct Listed {
    path: String,
    size: u64,
    /// Which opened container holds it, and its index there.
    container: usize,
    index: usize,
    /// Its first bytes cost the decoding of others (a solid 7z): confirm its kind on open.
    costly: bool,
    /// Its path as the container itself writes it, where that is not `path` (an ISO's 8.3
    /// name under its Rock Ridge or Joliet one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(optional)]
    written: Option<String>,
}

/// A container (and those inside it) opened in this worker.
#[wasm_bindgen]
pub struct ContainerReader {
    opened: Vec<Box<dyn Container>>,
    listed: Vec<Listed>,
    problems: Vec<String>,
    notes: Vec<String>,
}

#[wasm_bindgen]
impl ContainerReader {
    /// Open `name` (its archive path) of `len` bytes read by `read(offset, length)`. A cue
    /// sheet's disc is opened with `mode` ("MODE1", "MODE2" or "COOKED") and `start` (its
    /// INDEX 01 sector); otherwise `mode` is empty and the kind comes from the bytes.
    /// `progress(done, total)` hears how far the listing got (total 0: not known). `store`,
    /// if not undefined, keeps what the container decodes (see `keepsDecoded`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        name: String,
        #[wasm_bindgen(unchecked_param_type = "(offset: number, length: number) => Uint8Array")]
        read: js_sys::Function,
        len: f64,
        mode: String,
        start: f64,
        #[wasm_bindgen(unchecked_param_type = "(done: number, total: number) => void")]
        progress: js_sys::Function,
        store: Option<DecodedStore>,
    ) -> Result<ContainerReader, JsValue> {
        let mut report = |done: u64, total: u64| {
            // A listener that throws only loses its progress, not the listing.
            let _ = progress.call2(
                &JsValue::NULL,
                &(done as f64).into(),
                &(total as f64).into(),
            );
        };
        let source: Rc<dyn ByteSource> = Rc::new(JsBytes {
            read,
            len: len as u64,
        });
        let limits = Limits::default();
        let mut root = match mode.as_str() {
            "" => {
                let kind = containers::sniff_source(&name, &*source).ok_or_else(|| {
                    js_error(&format!(
                        "{name}: not a zip, a 7z, an ISO 9660 image, a raw disc or a CHD"
                    ))
                })?;
                containers::open_reporting(&name, kind, source, limits, &mut report)
            }
            m => {
                let mode = SectorMode::from_word(m).unwrap_or(SectorMode::Cooked);
                containers::open_track_reporting(
                    &name,
                    source,
                    mode,
                    start as u64,
                    limits,
                    &mut report,
                )
            }
        }
        .map_err(|e| js_error(&e.to_string()))?;
        if let Some(store) = store {
            root.keep_decoded_in(Box::new(JsDecodedStore(store)));
        }
        let mut reader = ContainerReader {
            opened: Vec::new(),
            listed: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
        };
        reader.add(&name, root, 0);
        Ok(reader)
    }

    fn add(&mut self, name: &str, container: Box<dyn Container>, depth: usize) {
        let id = self.opened.len();
        self.problems
            .extend(container.problems().iter().map(|p| p.to_string()));
        self.notes
            .extend(container.notes().iter().map(|n| n.to_string()));
        // Cue sheets first: each is opened as its disc, from the .bin it names beside it,
        // which is then not listed on its own. A sheet that names nothing here stays a file.
        let cues = if depth + 1 < MAX_NESTING {
            containers::CueDiscs::of(&*container)
        } else {
            containers::CueDiscs::default()
        };
        self.problems
            .extend(cues.problems.iter().map(|why| format!("{name}/{why}")));
        let mut nested = Vec::new();
        for (i, e) in container.entries().iter().enumerate() {
            if cues.takes(i) {
                continue;
            }
            let path = format!("{name}/{}", e.path);
            // Only names a container goes by are looked into now: the listing reads the
            // directory, not a sector of every file (the page types them by content after).
            if depth + 1 < MAX_NESTING && containers::may_nest(&path) {
                let head = container.head(i, 17 * 2048).unwrap_or_default();
                if let Some(kind) = containers::sniff(&path, &head) {
                    nested.push((path, i, kind));
                    continue;
                }
            }
            let written = container.written_name(i).map(|w| format!("{name}/{w}"));
            self.listed.push(Listed {
                path,
                size: e.size,
                container: id,
                index: i,
                costly: container.heads_are_costly(),
                written,
            });
        }
        self.opened.push(container);
        for (cue, bin, track) in cues.discs {
            let path = format!("{name}/{}", self.opened[id].entries()[cue].path);
            let opened = self.opened[id]
                .read(bin)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    containers::open_track(
                        &path,
                        Rc::new(bytes),
                        track.mode,
                        track.start,
                        Limits::default(),
                    )
                    .map_err(|e| e.to_string())
                });
            match opened {
                Ok(c) => self.add(&path, c, depth + 1),
                Err(why) => self.problems.push(why),
            }
        }
        for (path, i, kind) in nested {
            let opened = self.opened[id]
                .read(i)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    containers::open(&path, kind, Rc::new(bytes), Limits::default())
                        .map_err(|e| e.to_string())
                });
            match opened {
                Ok(c) => self.add(&path, c, depth + 1),
                Err(why) => self.problems.push(why),
            }
        }
    }

    /// Every file inside, containers in it opened as folders: [{path, size, container,
    /// index}], sorted by path.
    #[wasm_bindgen(unchecked_return_type = "Listed[]")]
    pub fn entries(&mut self) -> Result<JsValue, JsValue> {
        self.listed.sort_by(|a, b| a.path.cmp(&b.path));
        to_js(&self.listed)
    }

    /// What the listing found wrong without stopping (a duplicate name, an extent past the
    /// end, a container inside that could not be opened).
    pub fn problems(&self) -> Vec<String> {
        self.problems.clone()
    }

    /// What is said of the containers that is not wrong (a self-extracting program before
    /// the archive), as messages naming each.
    pub fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }

    /// The first `n` bytes of entry `index` of opened container `container` (for its kind).
    pub fn head(
        &self,
        container: usize,
        index: usize,
        n: usize,
    ) -> Result<js_sys::Uint8Array, JsValue> {
        let c = self
            .opened
            .get(container)
            .ok_or_else(|| js_error("no such container"))?;
        let bytes = c.head(index, n).map_err(|e| js_error(&e.to_string()))?;
        Ok(js_sys::Uint8Array::from(&bytes[..]))
    }

    /// The bytes of entry `index` of opened container `container`.
    pub fn read(&self, container: usize, index: usize) -> Result<js_sys::Uint8Array, JsValue> {
        self.read_reporting(container, index, js_sys::Function::new_no_args(""))
    }

    /// `read`, `progress(done, total)` hearing how far a long read got (bytes).
    #[wasm_bindgen(js_name = readReporting)]
    pub fn read_reporting(
        &self,
        container: usize,
        index: usize,
        progress: js_sys::Function,
    ) -> Result<js_sys::Uint8Array, JsValue> {
        let c = self
            .opened
            .get(container)
            .ok_or_else(|| js_error("no such container"))?;
        let mut report = |done: u64, total: u64| {
            let _ = progress.call2(
                &JsValue::NULL,
                &(done as f64).into(),
                &(total as f64).into(),
            );
        };
        let bytes = c
            .read_reporting(index, &mut report)
            .map_err(|e| js_error(&e.to_string()))?;
        Ok(js_sys::Uint8Array::from(&bytes[..]))
    }

    /// How many times a block of these containers has been decoded from its start (a solid
    /// 7z's).
    #[wasm_bindgen(js_name = blocksDecoded)]
    pub fn blocks_decoded(&self) -> f64 {
        self.opened.iter().map(|c| c.blocks_decoded()).sum::<u64>() as f64
    }

    /// Decode every entry that costs a decode of others (a solid 7z's, not yet in the store)
    /// once, block by block, into its container's store of decoded entries: reading them one
    /// by one afterwards (Export all) takes each from there, where each would decode its
    /// block from the start. `progress(done, total)` hears the entries done. → how many
    /// entries were decoded (0: none costs a decode, or no container has a store).
    pub fn warm(
        &self,
        #[wasm_bindgen(unchecked_param_type = "(done: number, total: number) => void")]
        progress: js_sys::Function,
    ) -> usize {
        let mut decoded = 0;
        for c in self.opened.iter().filter(|c| c.keeps_decoded()) {
            let all: Vec<usize> = (0..c.entries().len())
                .filter(|&i| c.costs_a_decode(i))
                .collect();
            let total = all.len() as f64;
            c.read_each(&all, &mut |_, read| {
                decoded += read.is_ok() as usize;
                let _ = progress.call2(&JsValue::NULL, &(decoded as f64).into(), &total.into());
                true
            });
        }
        decoded
    }

    /// What reading entry `index` will take, in words, where it takes long ("decoding block
    /// 2 of 5 (41 MB)"), else null.
    #[wasm_bindgen(js_name = readNote)]
    pub fn read_note(&self, container: usize, index: usize) -> Option<String> {
        self.opened.get(container)?.read_note(index)
    }
}

/// Whether a container starting with `head` is worth a store of decoded entries (a 7z,
/// whose solid blocks cost a decode from their start): see ContainerReader's `store`.
#[wasm_bindgen(js_name = keepsDecoded)]
pub fn keeps_decoded(head: &[u8]) -> bool {
    containers::keeps_decoded(head)
}

/// The bytes of one entry of a container on a static host (www/sources/hosted.js), rebuilt from the
/// ranges the page fetched: `ranges` is `[offset, length, offset, length, …]` in the
/// container, their bytes one after another in `bytes`; `layout` is the index's
/// `{kind, mode, start}`; `at`, `size` and `crc32` (8 hex digits) are the entry's row, and
/// `extents` its extents (`[offset, length, …]`) for a disc file written in several, else
/// empty. An error names the container, the entry and what did not match (a stale index
/// among them).
#[wasm_bindgen(js_name = readHosted)]
#[allow(clippy::too_many_arguments)]
pub fn read_hosted(
    container: &str,
    entry: &str,
    #[wasm_bindgen(unchecked_param_type = "Layout")] layout: JsValue,
    container_size: f64,
    ranges: &[f64],
    bytes: &[u8],
    at: f64,
    size: f64,
    crc32: &str,
    extents: &[f64],
) -> Result<js_sys::Uint8Array, JsValue> {
    let fail = |m: String| js_error(&format!("{container}: {entry}: {m}"));
    let layout: hosted::Layout = serde_wasm_bindgen::from_value(layout)
        .map_err(|e| fail(format!("the index's layout: {e}")))?;
    let crc32 = u32::from_str_radix(crc32, 16)
        .map_err(|_| fail(format!("CRC-32 {crc32:?}: expected 8 hex digits")))?;
    let mut pieces = Vec::with_capacity(ranges.len() / 2);
    let mut used = 0usize;
    for pair in ranges.chunks_exact(2) {
        let (offset, length) = (pair[0] as u64, pair[1] as usize);
        let piece = bytes
            .get(used..used.saturating_add(length))
            .ok_or_else(|| {
                fail(format!(
                    "{length} bytes for the range at {offset}, {} left",
                    bytes.len() - used
                ))
            })?;
        pieces.push((offset, piece.to_vec()));
        used += length;
    }
    let fetched = hosted::Fetched::new(container_size as u64, pieces).map_err(fail)?;
    let extents = (!extents.is_empty()).then(|| {
        extents
            .chunks_exact(2)
            .map(|p| [p[0] as u64, p[1] as u64])
            .collect()
    });
    let wanted = hosted::Wanted {
        at: at as u64,
        size: size as u64,
        crc32,
        pieces: extents,
    };
    let out = hosted::read_hosted(
        container,
        entry,
        &layout,
        fetched,
        wanted,
        Limits::default(),
    )
    .map_err(|e| js_error(&e.to_string()))?;
    Ok(js_sys::Uint8Array::from(&out[..]))
}
