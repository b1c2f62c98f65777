//! wasm-bindgen glue: the only module that knows the browser. It translates between the JS
//! shell and the core; everything it calls is tested natively.

use crate::formats::ParseError;
use crate::info;
use crate::render::{Renderer, BACKGROUND};
use serde::Serialize;
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

/// An Error whose message names the file and byte offset, with `offset` and `path`
/// properties so scripts need not parse the text.
fn parse_error(file: &str, e: &ParseError) -> JsValue {
    let err = js_sys::Error::new(&format!("{file}: {e}"));
    let _ = js_sys::Reflect::set(&err, &"offset".into(), &JsValue::from_f64(e.offset as f64));
    let _ = js_sys::Reflect::set(&err, &"chunkPath".into(), &JsValue::from_str(&e.path));
    err.into()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FrameStats {
    triangles: usize,
    draw_calls: u32,
    fps: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PixelStats {
    width: u32,
    height: u32,
    background: [u8; 3],
    non_background: usize,
}

/// One viewport on a page canvas.
#[wasm_bindgen]
pub struct Viewer {
    renderer: Renderer,
    draw_calls: u32,
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
            .ok_or_else(|| JsValue::from(js_sys::Error::new("this browser has no WebGL2 context for the canvas")))?
            .dyn_into::<web_sys::WebGl2RenderingContext>()?;
        let gl = three_d::context::Context::from_webgl2_context(gl);
        let renderer = Renderer::new(gl, canvas.width(), canvas.height()).map_err(|e| JsValue::from(js_sys::Error::new(&e)))?;
        Ok(Viewer { renderer, draw_calls: 0, frame_times: Default::default() })
    }

    /// Parse a file, upload LOD 0 of its geometry and frame the camera. Returns the same
    /// summary `relicview info --json` prints. A file that fails to parse clears the view
    /// and throws an Error naming the byte offset.
    pub fn open(&mut self, path: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let parsed = crate::formats::biz2::Biz2File::parse(bytes);
        let (tree, file) = match parsed {
            Ok(p) => p,
            Err(e) => {
                self.renderer.set_mesh(None);
                return Err(parse_error(path, &e));
            }
        };
        let mesh = file.mesh(0);
        self.renderer.set_mesh(Some(&mesh));
        to_js(&info::summarize(&tree, file))
    }

    pub fn clear(&mut self) {
        self.renderer.set_mesh(None);
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

    /// Draw a frame; `now` is the rAF timestamp in ms.
    pub fn render(&mut self, now: f64) -> Result<JsValue, JsValue> {
        self.draw_calls = self.renderer.render();
        self.frame_times.push_back(now);
        while self.frame_times.front().is_some_and(|&t| now - t > 1000.0) {
            self.frame_times.pop_front();
        }
        self.stats()
    }

    /// {triangles, drawCalls, fps}: fps counts the frames drawn in the last second (the
    /// viewer draws only when something changes, so an idle view reports few).
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let stats = FrameStats { triangles: self.renderer.triangles(), draw_calls: self.draw_calls, fps: self.frame_times.len() as f64 };
        to_js(&stats)
    }

    /// Redraw and read the framebuffer back: how many pixels differ from the background.
    #[wasm_bindgen(js_name = pixelStats)]
    pub fn pixel_stats(&mut self) -> Result<JsValue, JsValue> {
        self.draw_calls = self.renderer.render();
        let pixels = self.renderer.read_pixels();
        let non_background = pixels.iter().filter(|p| p[..3].iter().zip(BACKGROUND).any(|(&a, b)| a.abs_diff(b) > 3)).count();
        let (width, height) = self.renderer.size();
        to_js(&PixelStats { width, height, background: BACKGROUND, non_background })
    }
}
