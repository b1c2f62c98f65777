//! wasm-bindgen glue: the only module that knows the browser. It translates between the JS
//! shell and the core, and names no format: files are opened through the core's one open
//! sequence and shown through the document interface.

use crate::archive::{self, Archive, ArchiveIndex, FileSource};
use crate::formats::registry::{self, Kind, Purpose};
use crate::formats::{Document, InfoRow, ParseError};
use crate::render::{Background, CameraMode, CameraState, Lighting, Renderer, ViewOptions};
use crate::scene::Scene;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;
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
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

/// An Error whose message names the file and byte offset, with `offset` and `chunkPath`
/// properties so scripts need not parse the text.
fn parse_error(file: &str, e: &ParseError) -> JsValue {
    let err = js_sys::Error::new(&format!("{file}: {e}"));
    let _ = js_sys::Reflect::set(&err, &"offset".into(), &JsValue::from_f64(e.offset as f64));
    let _ = js_sys::Reflect::set(&err, &"chunkPath".into(), &JsValue::from_str(&e.path));
    err.into()
}

fn js_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// The page's clock, the one requestAnimationFrame timestamps use (a worker's own where the
/// core runs in one).
fn clock_ms() -> f64 {
    thread_local! {
        static PERFORMANCE: Option<web_sys::Performance> =
            js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok().and_then(|p| p.dyn_into().ok());
    }
    PERFORMANCE.with(|p| p.as_ref().map_or(0.0, |p| p.now()))
}

/// What a file is, from its first bytes (magic) and then its name.
#[wasm_bindgen(js_name = kindOf)]
pub fn kind_of(path: &str, head: &[u8], size: f64) -> String {
    Kind::sniff(path, head, size as u64).as_str().to_string()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KindInfo {
    kind: Kind,
    label: &'static str,
    title: &'static str,
    capabilities: registry::Capabilities,
}

/// A kind's badge, title and what files of it can do: {kind, label, title, capabilities}.
#[wasm_bindgen(js_name = kindInfo)]
pub fn kind_info(kind: &str) -> Result<JsValue, JsValue> {
    let k = Kind::parse(kind).unwrap_or(Kind::Unknown);
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

/// Reads archive files through the page: `read(path)` returns a Promise of an ArrayBuffer.
struct JsSource {
    read: js_sys::Function,
}

impl FileSource for JsSource {
    async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        let message = |e: JsValue| e.dyn_ref::<js_sys::Error>().map_or_else(|| format!("{e:?}"), |e| String::from(e.message()));
        let promise: js_sys::Promise = self.read.call1(&JsValue::NULL, &JsValue::from_str(path)).map_err(message)?.dyn_into().map_err(|_| "read() did not return a Promise".to_string())?;
        let buffer = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(message)?;
        Ok(js_sys::Uint8Array::new(&buffer).to_vec())
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
        Session { archive: Rc::new(RefCell::new(Archive::new(ArchiveIndex::default()))), source: Rc::new(JsSource { read }) }
    }

    /// The archive's paths and the kind each was typed as (bytes are read on demand).
    #[wasm_bindgen(js_name = setListing)]
    pub fn set_listing(&self, paths: Vec<String>, kinds: Vec<String>) {
        let index = ArchiveIndex::with_kinds(paths.into_iter().zip(kinds.into_iter().map(|k| Kind::parse(&k)).chain(std::iter::repeat(None))));
        *self.archive.borrow_mut() = Archive::new(index);
    }

    /// Open a file through the core's open sequence (read, parse, read what it refers to,
    /// build its scene) → Promise<OpenedFile>. Rejects only when the file cannot be read; a
    /// file that does not parse resolves, with its error in `error()`.
    pub fn open(&self, path: String) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let opened = archive::open_file(&archive, &*source, &path).await.map_err(|e| js_error(&e))?;
            // The deliberate trap of test builds (feature test-trap, never in ./run.sh's build):
            // inside the open, after the read, where a real fault in a parser would be.
            #[cfg(feature = "test-trap")]
            if path.to_ascii_uppercase().ends_with(".TRAP") {
                panic!("{path}: the test build's trap");
            }
            let has_scene = opened.scene.is_some();
            Ok(OpenedFile { path: opened.path, document: opened.document, scene: opened.scene, has_scene, unreadable: opened.unreadable, notes: opened.notes, timings: opened.timings }.into())
        })
    }

    /// Parse the file at `path` on its own, as `census` does, and drop it: → {kind, error:
    /// {message, offset} or null, damaged, warnings}. For the page's archive check.
    pub fn check(&self, path: String) -> js_sys::Promise {
        let source = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            #[derive(Serialize)]
            struct Problem {
                message: String,
                offset: Option<usize>,
            }
            #[derive(Serialize)]
            struct Checked {
                kind: Kind,
                error: Option<Problem>,
                damaged: bool,
                warnings: usize,
            }
            let checked = match source.read(&path).await {
                Err(why) => Checked { kind: Kind::sniff(&path, &[], 0), error: Some(Problem { message: format!("{path}: {why}"), offset: None }), damaged: false, warnings: 0 },
                Ok(bytes) => {
                    let doc = registry::open(&path, bytes, Purpose::Asset);
                    let error = doc.error().map(|e| Problem { message: format!("{path}: {e}"), offset: Some(e.offset) });
                    Checked { kind: doc.kind(), error, damaged: doc.damaged(), warnings: doc.diagnostics().len() }
                }
            };
            to_js(&checked)
        })
    }

    /// "Used by" rows for the file at `path` ({label, value, severity}), reading the files
    /// the reference graph does not hold yet (once per archive). `exports` are the named
    /// items the file offers (see `OpenedFile.exports`).
    #[wasm_bindgen(js_name = usedBy)]
    pub fn used_by(&self, path: String, exports: Vec<String>) -> js_sys::Promise {
        let (archive, source) = (self.archive.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            archive::scan_references(&archive, &*source).await;
            let rows = archive.borrow().used_by_rows(&path, &exports);
            to_js(&rows)
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileCapabilities {
    scene: bool,
    text: bool,
    image: bool,
    used_by: bool,
    export: bool,
}

/// A file opened by `Session.open`: its document (inspector, info, text or picture) and the
/// scene `Viewer.show` takes.
#[wasm_bindgen]
pub struct OpenedFile {
    path: String,
    document: Box<dyn Document>,
    /// Taken by `Viewer.show`.
    scene: Option<Scene>,
    has_scene: bool,
    unreadable: Vec<String>,
    notes: Vec<String>,
    timings: archive::OpenTimings,
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
    /// What the page can do with it: {scene, text, image, usedBy, export}.
    pub fn capabilities(&self) -> Result<JsValue, JsValue> {
        to_js(&FileCapabilities {
            scene: self.has_scene,
            text: self.document.text().is_some(),
            image: self.document.image().is_some(),
            used_by: self.document.kind().capabilities().used_by,
            export: self.has_scene,
        })
    }
    /// The parse error as an Error to throw (message naming file and byte offset, with
    /// `offset` and `chunkPath`), or null.
    pub fn error(&self) -> JsValue {
        self.document.error().filter(|_| !self.document.damaged()).map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// Damage where the file ends (cut short, or bytes after its end) as an Error, or null:
    /// the file is shown up to it, and the page says so.
    pub fn damage(&self) -> JsValue {
        self.document.error().filter(|_| self.document.damaged()).map_or(JsValue::NULL, |e| parse_error(&self.path, e))
    }
    /// The inspector's view: rows, fields, coverage runs, diagnostics, byte views.
    pub fn inspect(&self) -> Result<JsValue, JsValue> {
        to_js(&self.document.inspector())
    }
    /// `inspect()` as JSON text: what a worker sends the page (parsing it there is several
    /// times quicker than the structured clone of the same objects).
    #[wasm_bindgen(js_name = inspectJson)]
    pub fn inspect_json(&self) -> Result<String, JsValue> {
        serde_json::to_string(&self.document.inspector()).map_err(|e| js_error(&e.to_string()))
    }
    /// The length of byte view `view` (0 when there is none).
    #[wasm_bindgen(js_name = byteViewLength)]
    pub fn byte_view_length(&self, view: usize) -> usize {
        self.document.inspector().and_then(|v| v.views.get(view)).map_or(0, |v| v.len)
    }
    /// How many byte views `bytes(view)` has.
    #[wasm_bindgen(js_name = byteViewCount)]
    pub fn byte_view_count(&self) -> usize {
        self.document.inspector().map_or(0, |v| v.views.len())
    }
    /// The bytes of byte view `view` (0: what the rows refer to).
    pub fn bytes(&self, view: usize) -> Option<js_sys::Uint8Array> {
        self.document.bytes(view).map(js_sys::Uint8Array::from)
    }
    /// The info panel: [{label, value, severity}], with assets that could not be read.
    #[wasm_bindgen(js_name = infoRows)]
    pub fn info_rows(&self) -> Result<JsValue, JsValue> {
        let mut rows = self.document.info_rows();
        rows.extend(self.unreadable.iter().map(|u| InfoRow::warning("unreadable file", u.clone())));
        rows.extend(self.notes.iter().map(|n| InfoRow::warning("untextured", n.clone())));
        to_js(&rows)
    }
    /// The summary `relicview info --json` prints for this file.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        js_sys::JSON::parse(&self.document.info_json())
    }
    /// The file as text, for files shown as text.
    pub fn text(&self) -> Option<String> {
        self.document.text().map(str::to_string)
    }
    /// The picture: {width, height, rgba} (top row first), for files shown as pictures.
    pub fn image(&self) -> Result<JsValue, JsValue> {
        let Some(t) = self.document.image() else { return Ok(JsValue::NULL) };
        let out = js_sys::Object::new();
        js_sys::Reflect::set(&out, &"width".into(), &t.width.into())?;
        js_sys::Reflect::set(&out, &"height".into(), &t.height.into())?;
        js_sys::Reflect::set(&out, &"rgba".into(), &js_sys::Uint8ClampedArray::from(&t.rgba[..]).into())?;
        Ok(out.into())
    }
    /// Named items other files take from this one (a library's materials).
    pub fn exports(&self) -> Vec<String> {
        self.document.exports()
    }
    /// {readMs, parseMs, assetsMs, buildMs} of the open.
    pub fn timings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.timings)
    }
    /// The scene (taken from the file) as bytes for `Viewer.showSceneBytes` on another
    /// thread, with what the viewer reads of the document; null when there is none.
    #[wasm_bindgen(js_name = takeSceneBytes)]
    pub fn take_scene_bytes(&mut self) -> Option<js_sys::Uint8Array> {
        let scene = self.scene.take()?;
        let records = records_of(&*self.document).into_iter().map(|(a, b)| (a as u64, b as u64)).collect();
        let shown = crate::wire::ShownScene { scene, records, placements: self.document.stats().placements as u64 };
        let out = js_sys::Uint8Array::new_with_length(u32::try_from(crate::wire::encoded_len(&shown)).ok()?);
        crate::wire::encode_into(&shown, |at, bytes| {
            // SAFETY: the view is read by `set` at once, before anything can allocate and move
            // wasm memory.
            let view = unsafe { js_sys::Uint8Array::view(bytes) };
            out.set(&view, at as u32);
        });
        Some(out)
    }
}

/// The byte range of every inspector record, for picks on strips.
fn records_of(document: &dyn Document) -> Vec<(usize, usize)> {
    document.inspector().map_or(Vec::new(), |v| v.chunks.iter().map(|r| (r.offset, r.end)).collect())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameStats {
    triangles: usize,
    draw_calls: u32,
    /// Mesh placements drawn.
    instances: usize,
    fps: f64,
    /// The LOD drawn in the last frame (null when nothing is open).
    lod: Option<usize>,
    lod_count: usize,
    /// Something moves with the clock (a scrolling texture, a clip).
    animating: bool,
    /// The clock runs (frames keep coming while something moves).
    playing: bool,
    /// Batches of the scene still going up to the GPU (frames keep coming).
    uploading: bool,
    /// Model placements of the file on show (a world's), 0 for a single model.
    placements: usize,
    /// The option of the scene's choice on show.
    choice: Option<usize>,
}

/// The animation clock: seconds = `base` + (frame time − `since`) · `speed` while playing.
#[derive(Debug, Clone, Copy)]
struct Clock {
    playing: bool,
    speed: f64,
    base: f64,
    since_ms: f64,
}

impl Clock {
    fn at(&self, now_ms: f64) -> f64 {
        if self.playing {
            self.base + (now_ms - self.since_ms) * self.speed / 1000.0
        } else {
            self.base
        }
    }
    fn set(&mut self, seconds: f64, now_ms: f64) {
        self.base = seconds;
        self.since_ms = now_ms;
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PixelStats {
    width: u32,
    height: u32,
    background: [u8; 3],
    non_background: usize,
}

/// Switches the shell may set; missing fields keep their value.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct OptionChanges {
    wireframe: Option<bool>,
    cull_back: Option<bool>,
    auto_lod: Option<bool>,
    lod: Option<usize>,
    skeleton: Option<bool>,
    background: Option<Background>,
    lighting: Option<Lighting>,
}

/// One viewport on a page canvas.
#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    /// Byte range of every inspector record of the file on show, for picks on strips.
    records: Vec<(usize, usize)>,
    /// Time the last `show` took (ms).
    show_ms: f64,
    clock: Clock,
    placements: usize,
    /// The last frame's time (ms), so read-backs redraw the same frame.
    now: f64,
    /// Timestamps (ms) of recent frames, for the fps figure.
    frame_times: std::collections::VecDeque<f64>,
}

#[wasm_bindgen]
impl Viewer {
    /// Take the canvas's WebGL2 context. Fails with a clear message where WebGL2 is missing.
    #[wasm_bindgen(constructor)]
    pub fn new(canvas: web_sys::HtmlCanvasElement) -> Result<Viewer, JsValue> {
        let attrs = web_sys::WebGlContextAttributes::new();
        attrs.set_antialias(true);
        attrs.set_depth(true);
        attrs.set_alpha(false);
        let gl = canvas
            .get_context_with_context_options("webgl2", &attrs)?
            .ok_or_else(|| js_error("this browser has no WebGL2 context for the canvas"))?
            .dyn_into::<web_sys::WebGl2RenderingContext>()?;
        let gl = three_d::context::Context::from_webgl2_context(gl);
        let renderer = Renderer::new(gl, canvas.width(), canvas.height(), clock_ms).map_err(|e| js_error(&e))?;
        let clock = Clock { playing: true, speed: 1.0, base: 0.0, since_ms: 0.0 };
        Ok(Viewer { renderer, records: Vec::new(), show_ms: 0.0, now: 0.0, clock, placements: 0, frame_times: Default::default() })
    }

    /// Compile the shader programs models are drawn with before any file opens (see
    /// `Renderer::warm_up`); → ms it took.
    #[wasm_bindgen(js_name = warmUp)]
    pub fn warm_up(&mut self) -> f64 {
        let t0 = clock_ms();
        let variants: Vec<(bool, bool, bool)> = (0..8).map(|k| (k & 1 != 0, k & 2 != 0, k & 4 != 0)).collect();
        self.renderer.warm_up(&variants);
        clock_ms() - t0
    }

    /// Show an opened file's scene (taken from it), or clear the view when it has none.
    pub fn show(&mut self, file: &mut OpenedFile) {
        let t0 = clock_ms();
        self.records = records_of(&*file.document);
        self.placements = file.document.stats().placements;
        self.show_scene(file.scene.take(), t0);
    }

    /// Show a scene a worker opened (`OpenedFile.takeSceneBytes` there).
    #[wasm_bindgen(js_name = showSceneBytes)]
    pub fn show_scene_bytes(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        let t0 = clock_ms();
        let shown = crate::wire::decode(bytes).map_err(|e| js_error(&e))?;
        let offset = |o: u64| usize::try_from(o).unwrap_or(usize::MAX);
        self.records = shown.records.into_iter().map(|(a, b)| (offset(a), offset(b))).collect();
        self.placements = shown.placements as usize;
        self.show_scene(Some(shown.scene), t0);
        Ok(())
    }

    fn show_scene(&mut self, scene: Option<Scene>, t0: f64) {
        self.renderer.options.lod = 0;
        self.renderer.set_scene(scene);
        self.show_ms = clock_ms() - t0;
    }

    /// Time spent in the last `show` (ms): textures, and the scene handed to the renderer.
    #[wasm_bindgen(js_name = showMs)]
    pub fn show_ms(&self) -> f64 {
        self.show_ms
    }

    /// Time spent putting the scene's vertex data on the GPU so far (ms): the buffers of the
    /// batches drawn, built and handed to GL as the frames drew them.
    #[wasm_bindgen(js_name = uploadMs)]
    pub fn upload_ms(&self) -> f64 {
        self.renderer.upload_ms()
    }

    /// Bytes of vertex and index data the GPU has received for the scene on show.
    #[wasm_bindgen(js_name = uploadBytes)]
    pub fn upload_bytes(&self) -> usize {
        self.renderer.upload_bytes()
    }

    pub fn clear(&mut self) {
        self.records.clear();
        self.placements = 0;
        self.renderer.set_scene(None);
    }

    /// {done, total}: batches of the scene on show uploaded to the GPU so far.
    #[wasm_bindgen(js_name = uploadProgress)]
    pub fn upload_progress(&self) -> Result<JsValue, JsValue> {
        let (done, total) = self.renderer.upload_progress();
        #[derive(Serialize)]
        struct Out {
            done: usize,
            total: usize,
        }
        to_js(&Out { done, total })
    }

    /// "orbit" or "fly".
    #[wasm_bindgen(js_name = cameraMode)]
    pub fn camera_mode(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.camera_mode)
    }
    #[wasm_bindgen(js_name = setCameraMode)]
    pub fn set_camera_mode(&mut self, mode: JsValue) -> Result<(), JsValue> {
        self.renderer.camera_mode = serde_wasm_bindgen::from_value::<CameraMode>(mode)?;
        Ok(())
    }
    /// Turn the view (radians about the up axis, then about the view's right).
    pub fn look(&mut self, yaw: f32, pitch: f32) {
        self.renderer.look(yaw, pitch);
    }
    /// Fly by (forward, right, up) world units.
    pub fn fly(&mut self, forward: f32, right: f32, up: f32) {
        self.renderer.fly(forward, right, up);
    }
    /// World units a second of flying covers at normal speed.
    #[wasm_bindgen(js_name = flySpeed)]
    pub fn fly_speed(&self) -> f32 {
        self.renderer.fly_speed()
    }
    /// The scene's viewpoints (a world's dropzones): [{name, position, forward, up}].
    pub fn viewpoints(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.viewpoints(self.animation_time()))
    }
    /// Look from viewpoint `i` (the eye above it, along its forward axis), flying from there.
    #[wasm_bindgen(js_name = lookFrom)]
    pub fn look_from(&mut self, i: usize) -> bool {
        let Some(v) = self.renderer.viewpoints(self.animation_time()).into_iter().nth(i) else { return false };
        self.renderer.look_from(&v);
        self.renderer.camera_mode = CameraMode::Fly;
        true
    }
    /// Look along an axis: "front", "side" or "top".
    #[wasm_bindgen(js_name = axisView)]
    pub fn axis_view(&mut self, axis: &str) -> bool {
        self.renderer.axis_view(axis)
    }

    /// The scene's layers: [{name, shown, nodes, chosen}] (nodes on the layer; chosen: the
    /// scene's choice shows and hides it).
    pub fn layers(&self) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Layer<'a> {
            name: &'a str,
            shown: bool,
            nodes: usize,
            chosen: bool,
        }
        let Some(scene) = self.renderer.scene() else { return to_js(&Vec::<Layer>::new()) };
        let hidden = self.renderer.hidden_layers();
        let chosen: Vec<u32> = scene.choice.iter().flat_map(|c| &c.options).flat_map(|o| o.layers.iter().copied()).collect();
        let layers: Vec<Layer> = scene
            .layers
            .iter()
            .enumerate()
            .map(|(i, name)| Layer { name, shown: !hidden.contains(&(i as u32)), nodes: scene.nodes.iter().filter(|n| n.layer == Some(i as u32)).count(), chosen: chosen.contains(&(i as u32)) })
            .collect();
        to_js(&layers)
    }

    /// The scene's choice (one model of a file, one of its animations): {name, options:
    /// [label], selected}, or null.
    pub fn choice(&self) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Out<'a> {
            name: &'a str,
            options: Vec<&'a str>,
            selected: Option<usize>,
        }
        let Some(c) = self.renderer.scene().and_then(|s| s.choice.as_ref()) else { return Ok(JsValue::NULL) };
        to_js(&Out { name: &c.name, options: c.options.iter().map(|o| o.label.as_str()).collect(), selected: self.renderer.choice() })
    }
    /// Show option `k` of the scene's choice; false when there is no such option.
    pub fn choose(&mut self, k: usize) -> bool {
        self.renderer.choose(k)
    }
    /// Whether the scene has a skeleton to draw over it.
    #[wasm_bindgen(js_name = hasSkeleton)]
    pub fn has_skeleton(&self) -> bool {
        self.renderer.scene().is_some_and(|s| !s.skeleton.is_empty())
    }
    /// Hide the layers named in `names`, show the others.
    #[wasm_bindgen(js_name = setHiddenLayers)]
    pub fn set_hidden_layers(&mut self, names: Vec<String>) {
        let Some(scene) = self.renderer.scene() else { return };
        let hidden = names.iter().filter_map(|n| scene.layers.iter().position(|l| l == n)).map(|i| i as u32).collect();
        self.renderer.set_hidden_layers(hidden);
    }

    /// Where the first node called `name` is in the world at the animation clock (null when
    /// there is none): what a test checks a clip against.
    #[wasm_bindgen(js_name = nodePosition)]
    pub fn node_position(&self, name: &str) -> Option<Vec<f32>> {
        let scene = self.renderer.scene()?;
        let i = scene.nodes.iter().position(|n| n.name.as_deref() == Some(name))?;
        let world = scene.world(&scene.pose(self.animation_time()));
        Some(world[i].transform_point3(glam::Vec3::ZERO).to_array().to_vec())
    }
    /// The UV offset of the first material called `name` at the animation clock.
    #[wasm_bindgen(js_name = uvOffset)]
    pub fn uv_offset(&self, name: &str) -> Option<Vec<f32>> {
        let scene = self.renderer.scene()?;
        let m = scene.materials.iter().position(|m| m.name.as_deref() == Some(name))?;
        scene.uv_offsets(self.animation_time()).get(m).map(|o| o.to_vec())
    }
    /// The longest looping clip that plays (seconds): one period of everything that repeats
    /// (0: none).
    #[wasm_bindgen(js_name = clipDuration)]
    pub fn clip_duration(&self) -> f32 {
        self.renderer.scene().map_or(0.0, |s| s.playing().filter(|c| c.repeat == crate::scene::Repeat::Loop).map(|c| c.duration).fold(0.0, f32::max))
    }
    /// The step of the clips that play, when they run in frames (seconds), else 0.1.
    #[wasm_bindgen(js_name = frameTime)]
    pub fn frame_time(&self) -> f32 {
        self.renderer.scene().and_then(|s| s.frame_time).unwrap_or(0.1)
    }

    /// Run or stop the animation clock.
    #[wasm_bindgen(js_name = setPlaying)]
    pub fn set_playing(&mut self, playing: bool) {
        let t = self.animation_time();
        self.clock.playing = playing;
        self.clock.set(t, self.now);
    }
    /// How fast the clock runs (¼ to 4).
    #[wasm_bindgen(js_name = setSpeed)]
    pub fn set_speed(&mut self, speed: f64) {
        if speed.is_finite() && speed > 0.0 {
            let t = self.animation_time();
            self.clock.speed = speed.clamp(0.25, 4.0);
            self.clock.set(t, self.now);
        }
    }
    /// {playing, speed} of the clock.
    #[wasm_bindgen(js_name = clockState)]
    pub fn clock_state(&self) -> Result<JsValue, JsValue> {
        #[derive(Serialize)]
        struct Out {
            playing: bool,
            speed: f64,
        }
        to_js(&Out { playing: self.clock.playing, speed: self.clock.speed })
    }

    /// The scene on show as a binary glTF, its default scene the LOD on show.
    #[wasm_bindgen(js_name = exportGlb)]
    pub fn export_glb(&self) -> Result<js_sys::Uint8Array, JsValue> {
        let scene = self.renderer.scene().ok_or_else(|| js_error("nothing to export: no scene is on show"))?;
        let lod = self.renderer.current_lod().unwrap_or(0);
        // What is on show: the layers hidden (a file's other models) stay out.
        let options = crate::gltf::ExportOptions { lod, hidden_layers: self.renderer.hidden_layers().to_vec() };
        let glb = crate::gltf::export_glb(scene, options).map_err(|e| js_error(&e))?;
        Ok(js_sys::Uint8Array::from(&glb[..]))
    }

    /// Change view switches: {wireframe, cullBack, autoLod, lod}.
    #[wasm_bindgen(js_name = setOptions)]
    pub fn set_options(&mut self, changes: JsValue) -> Result<(), JsValue> {
        let c: OptionChanges = serde_wasm_bindgen::from_value(changes)?;
        let o = &mut self.renderer.options;
        let ViewOptions { wireframe, cull_back, auto_lod, lod, skeleton, background, lighting } = o;
        *background = c.background.unwrap_or(*background);
        *lighting = c.lighting.unwrap_or(*lighting);
        *skeleton = c.skeleton.unwrap_or(*skeleton);
        *wireframe = c.wireframe.unwrap_or(*wireframe);
        *cull_back = c.cull_back.unwrap_or(*cull_back);
        *auto_lod = c.auto_lod.unwrap_or(*auto_lod);
        *lod = c.lod.unwrap_or(*lod);
        Ok(())
    }

    #[wasm_bindgen(js_name = options)]
    pub fn options_js(&self) -> Result<JsValue, JsValue> {
        let o = self.renderer.options;
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Out {
            wireframe: bool,
            cull_back: bool,
            auto_lod: bool,
            lod: usize,
            skeleton: bool,
            background: Background,
            lighting: Lighting,
        }
        to_js(&Out { wireframe: o.wireframe, cull_back: o.cull_back, auto_lod: o.auto_lod, lod: o.lod, skeleton: o.skeleton, background: o.background, lighting: o.lighting })
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        self.renderer.resize(width, height);
    }

    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.renderer.orbit(dx, dy);
    }
    pub fn pan(&mut self, dx: f32, dy: f32) {
        self.renderer.pan(dx, dy);
    }
    pub fn zoom(&mut self, steps: f32) {
        self.renderer.zoom(steps);
    }
    /// Zoom towards the surface under canvas pixel (x, y), never through it.
    #[wasm_bindgen(js_name = zoomAt)]
    pub fn zoom_at(&mut self, steps: f32, x: f32, y: f32) {
        self.renderer.zoom_at(steps, x, y, self.animation_time());
    }
    /// Frame the outlined selection; false (nothing moved) when nothing is outlined.
    #[wasm_bindgen(js_name = frameHighlight)]
    pub fn frame_highlight(&mut self) -> bool {
        self.renderer.frame_highlight()
    }
    /// Frame the camera on the scene again.
    pub fn home(&mut self) {
        self.renderer.frame();
    }

    /// What is under canvas pixel (x, y) (top-left origin): {primitive, patch, source,
    /// triangleInSource, distance, start, end}: the records of the primitive, of the node
    /// that drew it and of the run its triangle came from, and start..end the bytes of the
    /// face that made the triangle; or null.
    pub fn pick(&self, x: f32, y: f32) -> Result<JsValue, JsValue> {
        let Some(hit) = self.renderer.pick(x, y, self.animation_time()) else { return Ok(JsValue::NULL) };
        // The face's own record, else its primitive's, else the node's nearest (geometry
        // brought from another file is stood for by what brought it).
        let source = hit.source.map(|s| s.record).or(hit.primitive).or(hit.node);
        let range = |r: Option<u32>| r.and_then(|r| self.records.get(r as usize)).copied().unwrap_or((0, 0));
        let (start, end) = match hit.source {
            Some(run) => run.face_bytes(hit.triangle, range(Some(run.record))),
            None => range(hit.primitive.or(hit.node)),
        };
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Picked {
            primitive: Option<u32>,
            patch: Option<u32>,
            source: Option<u32>,
            triangle_in_source: u32,
            distance: f32,
            start: usize,
            end: usize,
        }
        let triangle_in_source = hit.source.map_or(hit.triangle, |s| hit.triangle - s.first);
        to_js(&Picked { primitive: hit.primitive, patch: hit.node, source, triangle_in_source, distance: hit.distance, start, end })
    }

    /// The LOD number (as in `setOptions({lod})`) that shows the node of inspector record
    /// `record`, if that record is a level of detail.
    #[wasm_bindgen(js_name = lodOf)]
    pub fn lod_of(&self, record: u32) -> Option<usize> {
        self.renderer.lod_index_of(record)
    }

    /// Outline the geometry of an inspector record (a node, primitive or index list); null
    /// clears. Returns the number of triangles outlined.
    #[wasm_bindgen(js_name = setHighlight)]
    pub fn set_highlight(&mut self, record: Option<u32>) -> usize {
        self.renderer.set_highlight(record, self.animation_time())
    }

    /// Outline the triangles of one face: those made from the bytes start..end of index
    /// record `record` (what `pick` returned). Returns the number outlined.
    #[wasm_bindgen(js_name = setHighlightBytes)]
    pub fn set_highlight_bytes(&mut self, record: u32, start: usize, end: usize) -> usize {
        self.renderer.set_highlight_face(record, start, end, self.animation_time())
    }

    /// Triangles outlined in the LOD on show.
    #[wasm_bindgen(js_name = highlightedTriangles)]
    pub fn highlighted_triangles(&self) -> usize {
        self.renderer.highlighted_triangles()
    }

    /// The animation clock (seconds) that clips and texture scrolling follow.
    #[wasm_bindgen(js_name = animationTime)]
    pub fn animation_time(&self) -> f64 {
        self.clock.at(self.now)
    }

    /// Set the animation clock, e.g. from a permalink or the timeline, so animation goes on
    /// from there.
    #[wasm_bindgen(js_name = setAnimationTime)]
    pub fn set_animation_time(&mut self, seconds: f64) {
        if seconds.is_finite() {
            self.clock.set(seconds.max(0.0), self.now);
        }
    }

    /// {position, target, fov} of the camera.
    pub fn camera(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.camera_state())
    }

    /// Move the camera to {position, target, fov}; false when the view is unusable.
    #[wasm_bindgen(js_name = setCamera)]
    pub fn set_camera(&mut self, state: JsValue) -> Result<bool, JsValue> {
        let state: CameraState = serde_wasm_bindgen::from_value(state)?;
        Ok(self.renderer.set_camera_state(state))
    }

    /// Draw a frame; `now` is the rAF timestamp in ms (also the animation clock).
    /// A scene that cannot be drawn is taken off the view, and the frame throws why.
    pub fn render(&mut self, now: f64) -> Result<JsValue, JsValue> {
        self.now = now;
        self.draw()?;
        self.frame_times.push_back(now);
        while self.frame_times.front().is_some_and(|&t| now - t > 1000.0) {
            self.frame_times.pop_front();
        }
        self.stats()
    }

    /// {triangles, drawCalls, instances, fps, lod, lodCount, animating}: fps counts the
    /// frames drawn in the last second (the viewer draws only when something changes).
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let stats = FrameStats {
            triangles: self.renderer.triangles(),
            draw_calls: self.renderer.draw_calls(),
            instances: self.renderer.instances(),
            fps: self.frame_times.iter().filter(|&&t| clock_ms() - t <= 1000.0).count() as f64,
            lod: self.renderer.shown_lod(),
            lod_count: self.renderer.lod_count(),
            animating: self.renderer.animating(),
            playing: self.clock.playing,
            uploading: self.renderer.uploading(),
            placements: self.placements,
            choice: self.renderer.choice(),
        };
        to_js(&stats)
    }

    /// Redraw and read the framebuffer back: how many pixels differ from the background.
    #[wasm_bindgen(js_name = pixelStats)]
    pub fn pixel_stats(&mut self) -> Result<JsValue, JsValue> {
        self.draw()?;
        let pixels = self.renderer.read_pixels();
        // Behind a checker a pixel is background when it is either square's colour.
        let colors = self.renderer.options.background.colors();
        let near = |p: &[u8; 4], c: &[u8; 3]| p[..3].iter().zip(c).all(|(&a, &b)| a.abs_diff(b) <= 3);
        let non_background = pixels.iter().filter(|p| !colors.iter().any(|c| near(p, c))).count();
        let (width, height) = self.renderer.size();
        to_js(&PixelStats { width, height, background: colors[0], non_background })
    }

    /// Redraw and return the frame as RGBA bytes, top row first (width × height × 4).
    #[wasm_bindgen(js_name = readPixels)]
    pub fn read_pixels(&mut self) -> Result<Vec<u8>, JsValue> {
        self.draw()?;
        let pixels = self.renderer.read_pixels();
        let (w, _) = self.renderer.size();
        // read_color returns the bottom row first.
        Ok(pixels.chunks(w as usize).rev().flatten().flatten().copied().collect())
    }
}

impl Viewer {
    /// Draw a frame at the clock; a scene some of whose draws fail is cleared (the next
    /// frames draw nothing) and the error says why.
    fn draw(&mut self) -> Result<(), JsValue> {
        let seconds = self.animation_time();
        match self.renderer.render(seconds) {
            Ok(_) => Ok(()),
            Err(why) => {
                let name = self.renderer.scene().map(|s| s.name.clone()).unwrap_or_default();
                self.clear();
                Err(js_error(&format!("{name}: the scene could not be drawn: {why}")))
            }
        }
    }
}
