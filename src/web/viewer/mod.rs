//! One viewport on a page canvas: the renderer, the clock and the frame rate behind the
//! page's view. What needs no browser lives in `crate::view`; this translates.

use super::opened::{records_of, OpenedFile};
use super::{clock_ms, js_error, to_js};
use crate::render::Renderer;
use crate::scene::Scene;
use crate::view::{
    layers, non_background, timeline_label, AxisView, CameraMode, CameraState, Clock, CompareView,
    FrameRate, OptionChanges,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod capture;
mod link;
mod pointing;

#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FrameStats {
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

#[derive(Serialize, tsify::Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PixelStats {
    width: u32,
    height: u32,
    background: [u8; 3],
    non_background: usize,
}

/// One viewport on a page canvas.
#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    /// Byte range of every inspector record of the file on show (and, comparing, of file
    /// B), for picks on strips.
    records: [Vec<(usize, usize)>; 2],
    /// The difference view's layers that hold B's geometry (a pick there names B's records).
    difference_layers_from_b: Vec<u32>,
    /// Time the last `show` took (ms).
    show_ms: f64,
    clock: Clock,
    placements: usize,
    /// The last frame's time (ms), so read-backs redraw the same frame.
    now: f64,
    frames: FrameRate,
}

#[wasm_bindgen]
impl Viewer {
    /// Take the canvas's WebGL2 context. Fails with a clear message where WebGL2 is missing.
    #[wasm_bindgen(constructor)]
    pub fn new(canvas: web_sys::HtmlCanvasElement) -> Result<Viewer, JsValue> {
        let gl = canvas.get_context_with_context_options("webgl2", &context_attributes())?;
        Viewer::on(gl, canvas.width(), canvas.height())
    }

    /// A viewer on a canvas off the page (a worker's: the archive grid's thumbnails).
    pub fn offscreen(canvas: web_sys::OffscreenCanvas) -> Result<Viewer, JsValue> {
        let gl = canvas.get_context_with_context_options("webgl2", &context_attributes())?;
        Viewer::on(gl, canvas.width(), canvas.height())
    }

    /// Compile the shader programs models are drawn with before any file opens (see
    /// `Renderer::warm_up`); → ms it took.
    #[wasm_bindgen(js_name = warmUp)]
    pub fn warm_up(&mut self) -> f64 {
        let t0 = clock_ms();
        // With and without normals and vertex colours; untextured, textured, and textured
        // with cut-out texels (the field models' materials).
        let variants: Vec<(bool, bool, Option<f32>)> = (0..12)
            .map(|k| (k & 1 != 0, k & 2 != 0, [None, Some(0.0), Some(0.5)][k >> 2]))
            .collect();
        self.renderer.warm_up(&variants);
        clock_ms() - t0
    }

    /// Show an opened file's scene (taken from it), or clear the view when it has none.
    pub fn show(&mut self, file: &mut OpenedFile) {
        let t0 = clock_ms();
        self.records = [records_of(file), Vec::new()];
        self.placements = file.described().stats().placements;
        self.show_scene(file.scene.take(), t0);
    }

    /// Show two files compared under one camera, B ghosted over A to begin with: their
    /// scenes and the difference view in the wire form the tools module gives them
    /// (`ComparedFiles.takeScene`), each absent where that file has no scene, and the
    /// difference view's layers that hold B's geometry (a pick there names B's records).
    #[wasm_bindgen(js_name = showComparison)]
    pub fn show_comparison(
        &mut self,
        a: Option<Vec<u8>>,
        b: Option<Vec<u8>>,
        difference: Option<Vec<u8>>,
        difference_layers_from_b: Vec<u32>,
    ) -> Result<(), JsValue> {
        let t0 = clock_ms();
        let decode = |bytes: Option<Vec<u8>>| {
            bytes
                .map(|b| crate::wire::decode(&b))
                .transpose()
                .map_err(|e| js_error(&e))
        };
        let (a, b, difference) = (decode(a)?, decode(b)?, decode(difference)?);
        let ranges = |s: &Option<crate::wire::ShownScene>| {
            s.as_ref()
                .map_or(Vec::new(), |s| crate::wire::record_offsets(&s.records))
        };
        self.records = [ranges(&a), ranges(&b)];
        self.placements = a.as_ref().map_or(0, |s| s.placements as usize);
        self.renderer.options.lod = 0;
        self.difference_layers_from_b = difference_layers_from_b;
        let now = self.clock_now();
        self.clock.set_playing(true, now);
        self.renderer.set_comparison(
            a.map(|s| s.scene),
            b.map(|s| s.scene),
            difference.map(|s| s.scene),
        );
        self.show_ms = clock_ms() - t0;
        Ok(())
    }

    /// How a comparison is drawn: {mode: "a" | "b" | "overlay" | "split" | "difference",
    /// split: share of the width left of the split}; null while one file is on show.
    #[wasm_bindgen(js_name = compareView, unchecked_return_type = "CompareView | null")]
    pub fn compare_view(&self) -> Result<JsValue, JsValue> {
        self.renderer
            .comparing()
            .map_or(Ok(JsValue::NULL), |v| to_js(&v))
    }
    /// Change how the comparison is drawn ({mode, split}); false when none is on show.
    #[wasm_bindgen(js_name = setCompareView)]
    pub fn set_compare_view(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Partial<CompareView>")] view: JsValue,
    ) -> Result<bool, JsValue> {
        let view: CompareView = serde_wasm_bindgen::from_value(view)?;
        Ok(self.renderer.set_compare_view(view))
    }

    /// Show a scene a worker opened (`OpenedFile.takeSceneBytes` there).
    #[wasm_bindgen(js_name = showSceneBytes)]
    pub fn show_scene_bytes(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        let t0 = clock_ms();
        let shown = crate::wire::decode(bytes).map_err(|e| js_error(&e))?;
        self.records = [crate::wire::record_offsets(&shown.records), Vec::new()];
        self.placements = shown.placements as usize;
        self.show_scene(Some(shown.scene), t0);
        Ok(())
    }

    fn show_scene(&mut self, scene: Option<Scene>, t0: f64) {
        self.renderer.options.lod = 0;
        // Each file opens playing: a pause is the file's, not the page's (a link that says
        // paused pauses it again once it is shown).
        let now = self.clock_now();
        self.clock.set_playing(true, now);
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
        self.records = [Vec::new(), Vec::new()];
        self.placements = 0;
        self.renderer.set_scene(None);
    }

    /// {done, total, failed}: batches of the scene on show uploaded to the GPU so far, and
    /// the first the GPU would not take (null: none).
    #[wasm_bindgen(js_name = uploadProgress, unchecked_return_type = "UploadProgress")]
    pub fn upload_progress(&self) -> Result<JsValue, JsValue> {
        let (done, total) = self.renderer.upload_progress();
        to_js(&UploadProgress {
            done,
            total,
            failed: self.renderer.gpu_error(),
        })
    }

    /// "orbit", "fly" or "game".
    #[wasm_bindgen(js_name = cameraMode, unchecked_return_type = "CameraMode")]
    pub fn camera_mode(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.camera_mode)
    }
    #[wasm_bindgen(js_name = setCameraMode)]
    pub fn set_camera_mode(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "CameraMode")] mode: JsValue,
    ) -> Result<(), JsValue> {
        let mode = serde_wasm_bindgen::from_value::<CameraMode>(mode)?;
        if !self.renderer.set_camera_mode(mode) {
            return Err(js_error("the file on show has no game camera"));
        }
        Ok(())
    }
    /// The game camera of the file on show (an FF7 field's), or null: its name, what the
    /// viewer says of it, its picture's frame and whether the picture is there.
    #[wasm_bindgen(js_name = gameCamera, unchecked_return_type = "GameCameraShown | null")]
    pub fn game_camera(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.game_camera().map(|c| GameCameraShown {
            name: c.name.clone(),
            notes: c.notes.clone(),
            frame: c.frame,
            projection: c.projection,
            background: c.backdrop.is_some(),
        }))
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
    #[wasm_bindgen(unchecked_return_type = "ViewpointAt[]")]
    pub fn viewpoints(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.viewpoints(self.animation_time()))
    }
    /// Look from viewpoint `i` (the eye above it, along its forward axis), flying from there.
    #[wasm_bindgen(js_name = lookFrom)]
    pub fn look_from(&mut self, i: usize) -> bool {
        let Some(v) = self
            .renderer
            .viewpoints(self.animation_time())
            .into_iter()
            .nth(i)
        else {
            return false;
        };
        self.renderer.set_camera_mode(CameraMode::Fly);
        self.renderer.look_from(&v);
        true
    }
    /// Look along an axis: "front", "side" or "top" (`viewWords().axisViews`).
    #[wasm_bindgen(js_name = axisView)]
    pub fn axis_view(&mut self, axis: &str) -> bool {
        AxisView::parse(axis).is_some_and(|a| self.renderer.axis_view(a))
    }

    /// The scene's layers: [{name, shown, nodes, chosen}] (nodes on the layer; chosen: the
    /// scene's choice shows and hides it). Comparing, those of the scene drawn first.
    #[wasm_bindgen(unchecked_return_type = "LayerState[]")]
    pub fn layers(&self) -> Result<JsValue, JsValue> {
        let side = self.renderer.primary();
        let Some(scene) = self.renderer.scene_of(side) else {
            return to_js(&Vec::<()>::new());
        };
        to_js(&layers::layers(scene, self.renderer.hidden_layers_of(side)))
    }

    /// The scene's choice (one model of a file, one of its animations): {name, options:
    /// [label], selected}, or null.
    #[wasm_bindgen(unchecked_return_type = "ChoiceState | null")]
    pub fn choice(&self) -> Result<JsValue, JsValue> {
        let Some(c) = self
            .renderer
            .scene()
            .and_then(|s| layers::choice(s, self.renderer.choice()))
        else {
            return Ok(JsValue::NULL);
        };
        to_js(&c)
    }
    /// Show option `k` of the scene's choice; false when there is no such option.
    pub fn choose(&mut self, k: usize) -> bool {
        self.renderer.choose(k)
    }
    /// Whether the scene has a skeleton to draw over it.
    #[wasm_bindgen(js_name = hasSkeleton)]
    pub fn has_skeleton(&self) -> bool {
        self.renderer
            .scene()
            .is_some_and(|s| !s.skeleton.is_empty())
    }
    /// Whether the scene has damage zones: where colour by zone applies (and goes in a link).
    #[wasm_bindgen(js_name = hasZones)]
    pub fn has_zones(&self) -> bool {
        self.renderer.scene().is_some_and(|s| !s.zones.is_empty())
    }
    /// Whether the scene has faces that blink (`setOptions({blink})` stops them).
    #[wasm_bindgen(js_name = hasBlink)]
    pub fn has_blink(&self) -> bool {
        self.renderer
            .scene()
            .is_some_and(|s| !s.ff7.blinks.is_empty())
    }
    /// The Parts view of the scene on show (`crate::view::parts::Parts`): {zones: [{name,
    /// layer, patches, triangles, hidden, colour}], parts: [{name, record, zones, words,
    /// triangles, placedIn}], partsTotal, words: {word: parts}}, at the LOD on show.
    #[wasm_bindgen(unchecked_return_type = "Parts")]
    pub fn parts(&self) -> Result<JsValue, JsValue> {
        let Some(scene) = self.renderer.scene() else {
            return to_js(&crate::view::parts::Parts::default());
        };
        to_js(&crate::view::parts::parts(
            scene,
            self.renderer.current_lod().unwrap_or(0),
            self.renderer.hidden_layers(),
            &self.records[0],
        ))
    }

    /// Outline the parts of the damage zone called `name` (None clears); → triangles outlined.
    #[wasm_bindgen(js_name = highlightZone)]
    pub fn highlight_zone(&mut self, name: Option<String>) -> usize {
        let zone = name.and_then(|n| {
            self.renderer.scene().and_then(|s| {
                s.zones
                    .iter()
                    .copied()
                    .find(|&z| s.layers.get(z as usize) == Some(&n))
            })
        });
        self.renderer
            .set_zone_highlight(zone, self.animation_time())
    }

    /// Hide the layers named in `names`, show the others.
    #[wasm_bindgen(js_name = setHiddenLayers)]
    pub fn set_hidden_layers(&mut self, names: Vec<String>) {
        self.renderer.set_hidden_layers_named(&names);
    }

    /// Where the first node called `name` is in the world at the animation clock (null when
    /// there is none): what a test checks a clip against.
    #[wasm_bindgen(js_name = nodePosition)]
    pub fn node_position(&self, name: &str) -> Option<Vec<f32>> {
        layers::node_position(self.renderer.scene()?, name, self.animation_time())
            .map(|p| p.to_vec())
    }
    /// The UV offset of the first material called `name` at the animation clock.
    #[wasm_bindgen(js_name = uvOffset)]
    pub fn uv_offset(&self, name: &str) -> Option<Vec<f32>> {
        layers::uv_offset(self.renderer.scene()?, name, self.animation_time()).map(|o| o.to_vec())
    }
    /// The longest looping clip that plays (seconds): one period of everything that repeats
    /// (0: none).
    #[wasm_bindgen(js_name = clipDuration)]
    pub fn clip_duration(&self) -> f32 {
        self.renderer.scene().map_or(0.0, layers::loop_duration)
    }
    /// The step of the clips that play, when they run in frames (seconds); undefined when
    /// they do not.
    #[wasm_bindgen(js_name = frameTime)]
    pub fn frame_time(&self) -> Option<f32> {
        self.renderer.scene().and_then(|s| s.frame_time)
    }

    /// Whether the clock moves something the reader plays and pauses: a clip of the choice
    /// on show, a door, a scrolling texture. A face's blink alone is not (it keeps its own
    /// cadence): a still model shows no timeline.
    #[wasm_bindgen(js_name = hasTimeline)]
    pub fn has_timeline(&self) -> bool {
        self.renderer
            .scene()
            .is_some_and(|s| s.timeline_clips().any(|c| !c.tracks.is_empty()))
    }

    /// Run or stop the animation clock.
    #[wasm_bindgen(js_name = setPlaying)]
    pub fn set_playing(&mut self, playing: bool) {
        let now = self.clock_now();
        self.clock.set_playing(playing, now);
    }
    /// How fast the clock runs (¼ to 4).
    #[wasm_bindgen(js_name = setSpeed)]
    pub fn set_speed(&mut self, speed: f64) {
        let now = self.clock_now();
        self.clock.set_speed(speed, now);
    }
    /// What the timeline says of the clock: the time within the loop the slider shows (and
    /// the frame, where the clips run in frames).
    #[wasm_bindgen(js_name = clockLabel)]
    pub fn clock_label(&self) -> String {
        let Some(scene) = self.renderer.scene() else {
            return timeline_label(self.animation_time(), 0.0, None);
        };
        timeline_label(
            self.animation_time(),
            layers::loop_duration(scene) as f64,
            scene.frame_time.map(f64::from),
        )
    }
    /// {playing, speed} of the clock.
    #[wasm_bindgen(js_name = clockState, unchecked_return_type = "ClockState")]
    pub fn clock_state(&self) -> Result<JsValue, JsValue> {
        to_js(&ClockState {
            playing: self.clock.playing,
            speed: self.clock.speed,
        })
    }

    /// The scene on show in the wire form, for the tools module's glTF export
    /// (`exportGlb(sceneBytes, glbOptions)`); null when nothing is on show.
    #[wasm_bindgen(js_name = sceneBytes)]
    pub fn scene_bytes(&self) -> Option<js_sys::Uint8Array> {
        let shown = crate::wire::ShownSceneRef {
            scene: self.renderer.scene()?,
            records: &[],
            placements: self.placements as u64,
        };
        relicview_web_glue::js_buffer(crate::wire::encoded_len(shown), |write| {
            crate::wire::encode_into(shown, write)
        })
    }

    /// What a glTF export of the view takes: the LOD on show (with `all_lods`, every LOD as
    /// a glTF scene of its own, the default scene the LOD on show), the layers hidden (a
    /// file's other models stay out), the colours as drawn (the game's lighting's where
    /// it is on show) and how skeletons go out (`rig`).
    #[wasm_bindgen(js_name = glbOptions, unchecked_return_type = "ExportOptions")]
    pub fn glb_options(
        &self,
        all_lods: bool,
        #[wasm_bindgen(unchecked_param_type = "Rig")] rig: JsValue,
    ) -> Result<JsValue, JsValue> {
        let rig: crate::gltf::Rig = serde_wasm_bindgen::from_value(rig)?;
        let game_lit = self.renderer.scene().is_some_and(|s| s.has_lit_colours());
        let options = crate::gltf::ExportOptions {
            lod: self.renderer.current_lod().unwrap_or(0),
            hidden_layers: self.renderer.hidden_layers().to_vec(),
            every_choice: false,
            colours: self.renderer.options.lighting.colours(game_lit),
            all_lods,
            rig,
        };
        to_js(&options)
    }

    /// Change view switches: {wireframe, cullBack, autoLod, lod}.
    #[wasm_bindgen(js_name = setOptions)]
    pub fn set_options(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "OptionChanges")] changes: JsValue,
    ) -> Result<(), JsValue> {
        let c: OptionChanges = serde_wasm_bindgen::from_value(changes)?;
        c.apply(&mut self.renderer.options);
        Ok(())
    }

    #[wasm_bindgen(js_name = options, unchecked_return_type = "ViewOptions")]
    pub fn options_js(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.options)
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

    /// The animation clock (seconds) that clips and texture scrolling follow.
    #[wasm_bindgen(js_name = animationTime)]
    pub fn animation_time(&self) -> f64 {
        self.clock.at(self.now)
    }

    /// Set the animation clock, e.g. from a permalink or the timeline, so animation goes on
    /// from there.
    #[wasm_bindgen(js_name = setAnimationTime)]
    pub fn set_animation_time(&mut self, seconds: f64) {
        let now = self.clock_now();
        self.clock.set(seconds, now);
    }

    /// {position, target, fov} of the camera.
    #[wasm_bindgen(unchecked_return_type = "CameraState")]
    pub fn camera(&self) -> Result<JsValue, JsValue> {
        to_js(&self.renderer.camera_state())
    }

    /// Move the camera to {position, target, fov}; false when the view is unusable.
    #[wasm_bindgen(js_name = setCamera)]
    pub fn set_camera(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "CameraState")] state: JsValue,
    ) -> Result<bool, JsValue> {
        let state: CameraState = serde_wasm_bindgen::from_value(state)?;
        Ok(self.renderer.set_camera_state(state))
    }

    /// Draw a frame; `now` is the rAF timestamp in ms (also the animation clock).
    /// A scene that cannot be drawn is taken off the view, and the frame throws why.
    #[wasm_bindgen(unchecked_return_type = "FrameStats")]
    pub fn render(&mut self, now: f64) -> Result<JsValue, JsValue> {
        self.now = now;
        self.draw()?;
        self.frames.drawn(now);
        self.stats()
    }

    /// {triangles, drawCalls, instances, fps, lod, lodCount, animating}: fps counts the
    /// frames drawn in the last second (the viewer draws only when something changes).
    #[wasm_bindgen(unchecked_return_type = "FrameStats")]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let stats = FrameStats {
            triangles: self.renderer.triangles(),
            draw_calls: self.renderer.draw_calls(),
            instances: self.renderer.instances(),
            fps: self.frames.fps(clock_ms()) as f64,
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
    #[wasm_bindgen(js_name = pixelStats, unchecked_return_type = "PixelStats")]
    pub fn pixel_stats(&mut self) -> Result<JsValue, JsValue> {
        self.draw()?;
        let pixels = self.renderer.read_pixels();
        let background = self.renderer.options.background;
        let (width, height) = self.renderer.size();
        to_js(&PixelStats {
            width,
            height,
            background: background.colors()[0],
            non_background: non_background(&pixels, background),
        })
    }

    /// Redraw and return the frame as RGBA bytes, top row first (width × height × 4).
    #[wasm_bindgen(js_name = readPixels)]
    pub fn read_pixels(&mut self) -> Result<Vec<u8>, JsValue> {
        self.draw()?;
        // three-d's read_color turns GL's rows the right way up: the top row comes first.
        Ok(self.renderer.read_pixels().into_iter().flatten().collect())
    }
}

impl Viewer {
    /// A viewer drawing with `gl`, a canvas's WebGL2 context (None: the browser gave none).
    fn on(gl: Option<js_sys::Object>, width: u32, height: u32) -> Result<Viewer, JsValue> {
        let gl = gl
            .ok_or_else(|| js_error("this browser has no WebGL2 context for the canvas"))?
            .dyn_into::<web_sys::WebGl2RenderingContext>()?;
        let gl = three_d::context::Context::from_webgl2_context(gl);
        let renderer = Renderer::new(gl, width, height, clock_ms).map_err(|e| js_error(&e))?;
        Ok(Viewer {
            renderer,
            records: [Vec::new(), Vec::new()],
            difference_layers_from_b: Vec::new(),
            show_ms: 0.0,
            now: 0.0,
            clock: Clock::default(),
            placements: 0,
            frames: FrameRate::default(),
        })
    }

    /// The page's time now, for a change of the clock. Not the last frame's: a stopped clock
    /// draws no frames, and a change timed from the last one would jump by the pause.
    fn clock_now(&mut self) -> f64 {
        self.now = self.now.max(clock_ms());
        self.now
    }

    /// Draw a frame at the clock; a scene some of whose draws fail is cleared (the next
    /// frames draw nothing) and the error says why.
    fn draw(&mut self) -> Result<(), JsValue> {
        let seconds = self.animation_time();
        match self.renderer.render(seconds) {
            Ok(_) => Ok(()),
            Err(why) => {
                let name = self
                    .renderer
                    .scene()
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                self.clear();
                Err(js_error(&format!(
                    "{name}: the scene could not be drawn: {why}"
                )))
            }
        }
    }
}

/// The WebGL2 context the view draws with: antialiased, with depth, no alpha (the page's
/// own colour shows through nowhere).
fn context_attributes() -> web_sys::WebGlContextAttributes {
    let attrs = web_sys::WebGlContextAttributes::new();
    attrs.set_antialias(true);
    attrs.set_depth(true);
    attrs.set_alpha(false);
    attrs
}

/// A file's own camera, as the page shows it.
#[derive(Serialize, tsify::Tsify)]
pub struct GameCameraShown {
    name: String,
    notes: Vec<String>,
    /// The picture's frame: min x, min y, max x, max y, pixels from its centre.
    frame: [i32; 4],
    /// The projection distance, in pixels.
    projection: f32,
    /// The picture the game draws behind the scene is there.
    background: bool,
}

/// Batches of the scene on show uploaded to the GPU so far, of all there are.
#[derive(Serialize, tsify::Tsify)]
pub struct UploadProgress<'a> {
    done: usize,
    total: usize,
    /// A draw the GPU would not take: the file is not drawn whole.
    failed: Option<&'a str>,
}

/// Whether the clock runs, and how fast.
#[derive(Serialize, tsify::Tsify)]
pub struct ClockState {
    playing: bool,
    speed: f64,
}
