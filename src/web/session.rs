//! The open archive as the page holds it: the listing, the assets read so far, the reference
//! graph, and the page's way to read a file.

use super::opened::OpenedFile;
use super::{clock_ms, js_error, to_js};
use crate::archive::{self, Archive, ArchiveIndex, FileSource};
use crate::formats::kind::{Kind, Purpose};
use crate::formats::registry;
use serde::Serialize;
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

/// The open archive: its listing, the assets read so far, the reference graph, and the way
/// to read its files.
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

    /// The archive's paths, the kind each was typed as and its size as stored (bytes are
    /// read on demand): the paths one after another in `paths`, each as long as `lengths`
    /// says (in UTF-16 units, as JS counts), each kind as its number (`kindWords`), each size
    /// a number (NaN where not known yet: `setSizes`). One string crosses into wasm, not
    /// 20,000 (a 20,000-file listing took 45 ms as arrays of strings).
    #[wasm_bindgen(js_name = setListing)]
    pub fn set_listing(&self, paths: &str, lengths: &[u32], kinds: &[u8], sizes: &[f64]) {
        let mut index = ArchiveIndex::from_joined(paths, lengths, kinds);
        index.set_size_numbers(sizes);
        let mut archive = Archive::new(index);
        // The game state the person set outlives a new listing.
        archive.game_state = std::mem::take(&mut self.archive.borrow_mut().game_state);
        *self.archive.borrow_mut() = archive;
    }

    /// Forget the files read so far, keeping the listing: the next open reads all it needs
    /// again (the thumbnail worker keeps each thumbnail with every file it was drawn from).
    /// `setListing` again does the same at a cost that grows with the listing.
    #[wasm_bindgen(js_name = forgetReads)]
    pub fn forget_reads(&self) {
        self.archive.borrow_mut().forget_reads();
    }

    /// Set the game's variables the files' scripts read (an FF7 field's init), as
    /// `BANK:ADDRESS=VALUE` separated by commas or spaces (empty: every variable 0), for the
    /// opens from now on. Rejects text that does not read, naming what is expected, and
    /// keeps the state as it was.
    #[wasm_bindgen(js_name = setGameState)]
    pub fn set_game_state(&self, text: &str) -> Result<(), JsValue> {
        let state = crate::formats::ff7::game_state::parse_list(text).map_err(|e| js_error(&e))?;
        self.archive.borrow_mut().game_state = state;
        Ok(())
    }

    /// The game state set, as `setGameState` reads it ("" when every variable is 0).
    #[wasm_bindgen(js_name = gameState)]
    pub fn game_state(&self) -> String {
        crate::formats::ff7::game_state::list_text(&self.archive.borrow().game_state)
    }

    /// The listing's kinds again, as numbers (`kindWords`) in the listing's order, its paths
    /// unchanged (typing by content ends): → false, and nothing changed, when the count is
    /// not the listing's (then `setListing`).
    #[wasm_bindgen(js_name = setKinds)]
    pub fn set_kinds(&self, kinds: &[u8]) -> bool {
        self.archive.borrow_mut().index.set_kind_numbers(kinds)
    }

    /// The listing's sizes again, as `setListing` takes them (a picked folder's are looked
    /// up in the background): → false, and nothing changed, when the count is not the
    /// listing's. An FF7 field finds the fields that lead to it by their sizes.
    #[wasm_bindgen(js_name = setSizes)]
    pub fn set_sizes(&self, sizes: &[f64]) -> bool {
        self.archive.borrow_mut().index.set_size_numbers(sizes)
    }

    /// Open a file through the core's open sequence (read, parse, read what it refers to,
    /// build its scene) → Promise<OpenedFile>. Rejects only when the file cannot be read; a
    /// file that does not parse resolves, with its error in `error()`.
    #[wasm_bindgen(unchecked_return_type = "Promise<OpenedFile>")]
    pub fn open(&self, path: String) -> js_sys::Promise {
        self.open_for(path, Purpose::Show)
    }

    /// `open`, to be drawn and nothing more (a thumbnail): the scene or the picture, with no
    /// inspector view (its `inspect()` is null) → Promise<OpenedFile>.
    #[wasm_bindgen(js_name = openToDraw, unchecked_return_type = "Promise<OpenedFile>")]
    pub fn open_to_draw(&self, path: String) -> js_sys::Promise {
        self.open_for(path, Purpose::Draw)
    }

    fn open_for(&self, path: String, purpose: Purpose) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let opened = archive::open_file_for(&archive, &*source, &path, purpose)
                .await
                .map_err(|e| js_error(&e))?;
            // The deliberate trap of test builds (feature test-trap; ./run.sh's build and the
            // shipped page compile it out, so it cannot fire there): inside the open, after the
            // read, where a real fault in a parser would be. It must trap, not return an error:
            // the browser tests prove the page survives a trapped core with it.
            #[cfg(feature = "test-trap")]
            if path.to_ascii_uppercase().ends_with(".TRAP") {
                // (This panic cannot fire in the shipped page: it is compiled only with the
                // test-trap feature, which only scripts/build.sh --test-build sets.)
                panic!("{path}: the test build's trap"); // cannot fire outside test builds
            }
            Ok(OpenedFile::from_opened(opened).into())
        })
    }

    /// The textures archive file `path` gives the texture gallery → Promise<[{path, texture,
    /// width, height, format, materials, thumbnail: {width, height, rgba}}]>: its picture, or
    /// the textures its scene decodes itself. Opened in an archive of its own.
    #[wasm_bindgen(js_name = textureCards, unchecked_return_type = "Promise<PicturedTextureCard[]>")]
    pub fn texture_cards(&self, path: String) -> js_sys::Promise {
        let alone = self.opened_alone(path);
        wasm_bindgen_futures::future_to_promise(async move {
            let opened = alone.await?;
            let cards: Vec<_> = archive::texture_cards(&opened)
                .into_iter()
                .map(|card| super::opened::PicturedTextureCard {
                    thumbnail: relicview_web_glue::Picture::of(&card.thumbnail),
                    card,
                })
                .collect();
            to_js(&cards)
        })
    }

    /// What archive file `path` exports to in an Export all is made from, in the wire form
    /// for the tools module's `exportFile` → Promise<Uint8Array>. Opened as Export all opens
    /// it (`crate::bundle::open_for_export`), in an archive of its own, so that what it reads
    /// is let go with it. Rejects when it cannot be read.
    #[wasm_bindgen(js_name = exportInput, unchecked_return_type = "Promise<Uint8Array>")]
    pub fn export_input(&self, path: String) -> js_sys::Promise {
        let alone = self.opened_alone(path);
        wasm_bindgen_futures::future_to_promise(async move {
            let opened = alone.await?;
            let input = crate::bundle::ExportInput::of(&opened);
            let tag = crate::wire::EXPORT_INPUT;
            let len = crate::wire::encoded_value_len(tag, &input);
            let bytes = relicview_web_glue::js_buffer(len, |write| {
                crate::wire::encode_value_into(tag, &input, write)
            });
            bytes.map(Into::into).ok_or_else(|| {
                js_error(&format!(
                    "{}: its export's input is too big for a JS buffer ({len} bytes)",
                    opened.path
                ))
            })
        })
    }

    /// Who uses the picture file `path` → Promise<{materials, files}> (the archive's
    /// references, read once, and the libraries that name it).
    #[wasm_bindgen(js_name = textureUsers, unchecked_return_type = "Promise<TextureUsers>")]
    pub fn texture_users(&self, path: String) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            to_js(&archive::texture_users(&archive, &*source, &path).await)
        })
    }

    /// Parse the file at `path` on its own, as `census` does, and drop it: → {kind, error:
    /// {message, offset} or null, damaged, warnings, zones, behaviours} (the damage zones and
    /// behaviour words its models carry). For the page's archive check and the Parts view's
    /// "which files use this word".
    #[wasm_bindgen(unchecked_return_type = "Promise<Checked>")]
    pub fn check(&self, path: String) -> js_sys::Promise {
        let source = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let checked = match source.read(&path).await {
                Err(why) => Checked {
                    kind: Kind::sniff(&path, &[], 0),
                    error: Some(Problem {
                        message: format!("{path}: {why}"),
                        offset: None,
                    }),
                    damaged: false,
                    warnings: 0,
                    zones: Vec::new(),
                    behaviours: Vec::new(),
                },
                Ok(bytes) => {
                    let doc = registry::open(&path, bytes, Purpose::Asset);
                    let error = doc.error().map(|e| Problem {
                        message: format!("{path}: {e}"),
                        offset: Some(e.offset),
                    });
                    let stats = crate::formats::Described::alone(&*doc).stats();
                    let (zones, behaviours) = (
                        stats.zones.into_iter().map(|z| z.0).collect(),
                        stats.behaviours.into_iter().map(|b| b.0).collect(),
                    );
                    Checked {
                        kind: doc.kind(),
                        error,
                        damaged: doc.damaged(),
                        warnings: doc.diagnostics().len(),
                        zones,
                        behaviours,
                    }
                }
            };
            to_js(&checked)
        })
    }

    /// "Used by" rows for the file at `path` ({label, value, severity}), reading the files
    /// the reference graph does not hold yet (once per archive). `exports` are the named
    /// items the file offers (see `OpenedFile.exports`).
    #[wasm_bindgen(js_name = usedBy, unchecked_return_type = "Promise<InfoRow[]>")]
    pub fn used_by(&self, path: String, exports: Vec<String>) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            archive::scan_references(&archive, &*source).await;
            let rows = archive.borrow().used_by_rows(&path, &exports);
            to_js(&rows)
        })
    }

    /// Who uses entry `index` of the table `table` the file at `path` holds (an inspector
    /// row's `entry`: a normal of FIELD.BIN) → Promise<[{label, value, links}]>: how many
    /// records of each file of the archive, the files as links.
    #[wasm_bindgen(js_name = tableUsers, unchecked_return_type = "Promise<InfoRow[]>")]
    pub fn table_users(&self, path: String, table: String, index: u32) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let rows = archive::table_user_rows(&archive, &*source, &path, &table, index).await;
            to_js(&rows)
        })
    }
}

impl Session {
    /// `path` opened as an Export all opens it (`crate::bundle::open_for_export`: a picture
    /// shown, the rest as an asset), in an archive of its own, so that what it reads is let
    /// go with it.
    fn opened_alone(
        &self,
        path: String,
    ) -> impl std::future::Future<Output = Result<archive::Opened, JsValue>> {
        let (index, source) = (self.archive.borrow().index.clone(), self.source.clone());
        async move {
            let archive = RefCell::new(Archive::new(index));
            crate::bundle::open_for_export(&archive, &*source, &path)
                .await
                .map_err(|e| js_error(&format!("{path}: {e}")))
        }
    }
}

/// Why a file did not parse: the message naming it, and the byte (none where it could not
/// be read).
#[derive(Serialize, tsify::Tsify)]
pub struct Problem {
    message: String,
    offset: Option<usize>,
}

/// A file parsed on its own, as `census` does ([`Session::check`]).
#[derive(Serialize, tsify::Tsify)]
pub struct Checked {
    #[tsify(type = "string")]
    kind: Kind,
    error: Option<Problem>,
    damaged: bool,
    warnings: usize,
    zones: Vec<String>,
    behaviours: Vec<String>,
}
