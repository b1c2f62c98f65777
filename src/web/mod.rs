//! wasm-bindgen glue: the only module that knows the browser. It translates between the JS
//! shell and the core; everything it calls is tested natively.

use crate::archive::{ArchiveIndex, AssetSet};
use crate::formats::biz2::{Biz2File, ChunkTree};
use crate::inspect::{self, InspectorView};
use crate::formats::ParseError;
use crate::info::{self, Info};
use crate::render::{CameraState, Renderer, ViewOptions, BACKGROUND};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
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

/// The page's clock, the one requestAnimationFrame timestamps use.
fn clock_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameStats {
    triangles: usize,
    draw_calls: u32,
    fps: f64,
    /// The LOD drawn in the last frame (null when nothing is open).
    lod: Option<usize>,
    lod_count: usize,
    /// A scrolling texture is on show: the shell keeps drawing frames.
    animating: bool,
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
}

/// Where the time of the last open went, in ms.
#[derive(Serialize, Default, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct OpenTimings {
    /// Chunk walk, model and info summary.
    parse_ms: f64,
    /// Materials, textures and triangulation into meshes.
    build_ms: f64,
    /// GPU buffers and textures.
    upload_ms: f64,
}

/// A parsed file waiting for its libraries and texture maps before it is shown.
struct Loaded {
    path: String,
    /// Taken (moved into the scene) by `show`.
    file: Option<Biz2File>,
    lod_count: usize,
    info: Info,
}

/// Parse a DIV-BIZ2 file and triangulate its LOD 0 without drawing: the core alone, for
/// scripts and for measuring the wasm build against the native one. Returns the triangle
/// count, or throws the parse error.
#[wasm_bindgen(js_name = countTriangles)]
pub fn count_triangles(bytes: &[u8]) -> Result<u32, JsValue> {
    let (_, file) = Biz2File::parse(bytes).map_err(|e| parse_error("input", &e))?;
    let scene = file.into_scene(&|_| Default::default());
    Ok(scene.lods.first().map_or(0, |l| l.mesh.triangle_count()) as u32)
}

/// The named material references ("lib:name") a DIV-BIZ2 model uses, for "used by"
/// scans over an archive. Throws the parse error for a broken file.
#[wasm_bindgen(js_name = materialRefs)]
pub fn material_refs(bytes: &[u8]) -> Result<Vec<String>, JsValue> {
    let (tree, file) = Biz2File::parse(bytes).map_err(|e| parse_error("input", &e))?;
    Ok(info::summarize(&tree, &file).materials)
}

/// The `.bgf` files a MOD draws (`[video] object=`).
#[wasm_bindgen(js_name = modObjects)]
pub fn mod_objects(bytes: &[u8]) -> Result<Vec<String>, JsValue> {
    let ini = crate::formats::ini::IniFile::parse(bytes).map_err(|e| js_error(&e))?;
    Ok(ini.mod_video_objects().into_iter().map(|(name, _)| name).collect())
}

/// The `.mod` files a MAP declares (`type=model` sections' `modelfile=`).
#[wasm_bindgen(js_name = mapModelFiles)]
pub fn map_model_files(bytes: &[u8]) -> Result<Vec<String>, JsValue> {
    let ini = crate::formats::ini::IniFile::parse(bytes).map_err(|e| js_error(&e))?;
    Ok(ini.map_model_files().into_iter().map(|(name, _)| name).collect())
}

/// What a file is, from its first bytes (magic) and then its name (see `census::kind_of`).
#[wasm_bindgen(js_name = kindOf)]
pub fn kind_of(path: &str, head: &[u8], size: f64) -> String {
    crate::census::kind_of(path, head, size as u64).to_string()
}

/// One viewport on a page canvas, and the archive it shows files from.
#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    assets: AssetSet,
    loaded: Option<Loaded>,
    draw_calls: u32,
    timings: OpenTimings,
    /// The inspector's view of the last file loaded (kept when it failed to parse).
    inspector: Option<InspectorView>,
    /// Added to frame times for the animation clock (permalinks set it).
    clock_offset_ms: f64,
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
        let renderer = Renderer::new(gl, canvas.width(), canvas.height()).map_err(|e| js_error(&e))?;
        Ok(Viewer {
            renderer,
            assets: AssetSet::default(),
            loaded: None,
            draw_calls: 0,
            now: 0.0,
            clock_offset_ms: 0.0,
            timings: OpenTimings::default(),
            inspector: None,
            frame_times: Default::default(),
        })
    }

    /// The paths of the archive now open (names only; bytes are read on demand).
    #[wasm_bindgen(js_name = setListing)]
    pub fn set_listing(&mut self, paths: Vec<String>) {
        self.assets = AssetSet::new(ArchiveIndex::new(paths));
    }

    /// Parse a file and keep it for `show`. A file that fails to parse clears the view and
    /// throws an Error naming the byte offset.
    pub fn load(&mut self, path: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.loaded = None;
        let t0 = clock_ms();
        let mut tree = ChunkTree::parse(bytes);
        let file = Biz2File::build(&mut tree);
        // The inspector shows every file, a broken one up to its error.
        self.inspector = Some(inspect::view(&tree, &file));
        if let Some(e) = &tree.error {
            self.renderer.set_model(None);
            return Err(parse_error(path, e));
        }
        let info = info::summarize(&tree, &file);
        self.loaded = Some(Loaded { path: path.to_string(), lod_count: file.lod_count(), file: Some(file), info });
        self.timings = OpenTimings { parse_ms: clock_ms() - t0, ..Default::default() };
        Ok(())
    }

    /// Archive paths the loaded file still needs (material libraries, then the texture maps
    /// they name). Read each and hand it to `provide`; ask again until this is empty.
    pub fn needs(&self) -> Vec<String> {
        self.loaded.as_ref().map_or(Vec::new(), |l| self.assets.needs(&l.path, &l.info.materials))
    }

    /// Take a needed file's bytes. One that does not parse or decode throws, saying why; it
    /// is remembered and not asked for again.
    pub fn provide(&mut self, path: &str, bytes: &[u8]) -> Result<(), JsValue> {
        self.assets.provide(path, bytes).map_err(|e| js_error(&e))
    }

    /// A needed file could not be read.
    pub fn unreadable(&mut self, path: &str, why: &str) {
        self.assets.unreadable(path, why);
    }

    /// Upload the loaded file with its materials resolved, frame the camera, and return the
    /// summary `relicview info --json --root` prints.
    pub fn show(&mut self) -> Result<JsValue, JsValue> {
        let loaded = self.loaded.as_mut().ok_or_else(|| js_error("show() without a loaded file"))?;
        let t0 = clock_ms();
        let file = loaded.file.take().ok_or_else(|| js_error("show() twice for one load()"))?;
        let (scene, textures) = self.assets.scene(&loaded.path, file);
        let t1 = clock_ms();
        info::resolve_materials(&mut loaded.info, &self.assets, &loaded.path);
        loaded.info.texture_status = Some(textures);
        self.renderer.options.lod = 0;
        self.renderer.set_model(Some(scene));
        self.timings.build_ms = t1 - t0;
        self.timings.upload_ms = clock_ms() - t1;
        to_js(&loaded.info)
    }

    /// The last loaded file's chunks, fields, coverage runs and diagnostics (see
    /// `inspect::InspectorView`), or null.
    pub fn inspect(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inspector)
    }

    /// Timings of the last load/show: {parseMs, buildMs, uploadMs}.
    pub fn timings(&self) -> Result<JsValue, JsValue> {
        to_js(&self.timings)
    }

    pub fn clear(&mut self) {
        self.loaded = None;
        self.renderer.set_model(None);
    }

    /// Change view switches: {wireframe, cullBack, autoLod, lod}.
    #[wasm_bindgen(js_name = setOptions)]
    pub fn set_options(&mut self, changes: JsValue) -> Result<(), JsValue> {
        let c: OptionChanges = serde_wasm_bindgen::from_value(changes)?;
        let o = &mut self.renderer.options;
        let ViewOptions { wireframe, cull_back, auto_lod, lod } = o;
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
        }
        to_js(&Out { wireframe: o.wireframe, cull_back: o.cull_back, auto_lod: o.auto_lod, lod: o.lod })
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
    /// Frame the camera on the model again.
    pub fn home(&mut self) {
        self.renderer.frame();
    }

    /// What is under canvas pixel (x, y) (top-left origin): {primitive, patch, source,
    /// triangleInSource, distance, start, end} where start..end are the bytes of the face
    /// in the file (the index-list entries that made the triangle), or null.
    pub fn pick(&self, x: f32, y: f32) -> Result<JsValue, JsValue> {
        let Some(hit) = self.renderer.pick(x, y) else { return Ok(JsValue::NULL) };
        let (start, end) = self.inspector.as_ref().map_or((0, 0), |v| v.face_bytes(hit.source, hit.triangle_in_source));
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Picked {
            primitive: u32,
            patch: u32,
            source: u32,
            triangle_in_source: u32,
            distance: f32,
            start: usize,
            end: usize,
        }
        to_js(&Picked { primitive: hit.primitive, patch: hit.patch, source: hit.source, triangle_in_source: hit.triangle_in_source, distance: hit.distance, start, end })
    }

    /// The LOD number (as in `setOptions({lod})`) that draws LOD chunk `chunk`, if any: an
    /// object's implicit 1994 LOD and ignored empty LOD markers make it differ from the
    /// chunk's position among its siblings.
    #[wasm_bindgen(js_name = lodOf)]
    pub fn lod_of(&self, chunk: u32) -> Option<usize> {
        self.renderer.lod_index_of(chunk)
    }

    /// Outline the geometry of a chunk (PATCH, primitive or index list); null clears.
    /// Returns the number of triangles outlined.
    #[wasm_bindgen(js_name = setHighlight)]
    pub fn set_highlight(&mut self, chunk: Option<u32>) -> usize {
        self.renderer.set_highlight(chunk)
    }

    /// The library file a model at `model_path` takes `reference` ("lib:name") from, if
    /// the archive has one (nearest first, as when drawing).
    #[wasm_bindgen(js_name = libraryFor)]
    pub fn library_for(&self, model_path: &str, reference: &str) -> Option<String> {
        crate::archive::Libraries::wanted(&self.assets.index, model_path, &[reference.to_string()]).into_iter().next()
    }

    /// The animation clock (seconds) that texture scrolling follows.
    #[wasm_bindgen(js_name = animationTime)]
    pub fn animation_time(&self) -> f64 {
        (self.now + self.clock_offset_ms) / 1000.0
    }

    /// Set the animation clock, e.g. from a permalink, so scrolling resumes in phase.
    #[wasm_bindgen(js_name = setAnimationTime)]
    pub fn set_animation_time(&mut self, seconds: f64) {
        if seconds.is_finite() {
            self.clock_offset_ms = seconds * 1000.0 - self.now;
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

    /// Draw a frame; `now` is the rAF timestamp in ms (also the texture-scrolling clock).
    pub fn render(&mut self, now: f64) -> Result<JsValue, JsValue> {
        self.now = now;
        self.draw_calls = self.renderer.render(self.animation_time());
        self.frame_times.push_back(now);
        while self.frame_times.front().is_some_and(|&t| now - t > 1000.0) {
            self.frame_times.pop_front();
        }
        self.stats()
    }

    /// {triangles, drawCalls, fps, lod, lodCount}: fps counts the frames drawn in the last
    /// second (the viewer draws only when something changes, so an idle view reports few).
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let stats = FrameStats {
            triangles: self.renderer.triangles(),
            draw_calls: self.draw_calls,
            fps: self.frame_times.iter().filter(|&&t| clock_ms() - t <= 1000.0).count() as f64,
            lod: self.renderer.shown_lod(),
            lod_count: self.loaded.as_ref().map_or(0, |l| l.lod_count),
            animating: self.renderer.animating(),
        };
        to_js(&stats)
    }

    /// Redraw and read the framebuffer back: how many pixels differ from the background.
    #[wasm_bindgen(js_name = pixelStats)]
    pub fn pixel_stats(&mut self) -> Result<JsValue, JsValue> {
        self.draw_calls = self.renderer.render(self.animation_time());
        let pixels = self.renderer.read_pixels();
        let non_background = pixels.iter().filter(|p| p[..3].iter().zip(BACKGROUND).any(|(&a, b)| a.abs_diff(b) > 3)).count();
        let (width, height) = self.renderer.size();
        to_js(&PixelStats { width, height, background: BACKGROUND, non_background })
    }

    /// Redraw and return the frame as RGBA bytes, top row first (width × height × 4).
    #[wasm_bindgen(js_name = readPixels)]
    pub fn read_pixels(&mut self) -> Vec<u8> {
        self.draw_calls = self.renderer.render(self.animation_time());
        let pixels = self.renderer.read_pixels();
        let (w, _) = self.renderer.size();
        // read_color returns the bottom row first.
        pixels.chunks(w as usize).rev().flatten().flatten().copied().collect()
    }
}
