//! The only module that knows three-d: uploads `scene` meshes to the GPU, owns the camera
//! and draws frames into the page's WebGL2 canvas.

mod material;

use crate::scene::{Bounds, Mesh, MeshPart, SceneModel};
use material::RetroMaterial;
use std::sync::Arc;
use three_d::{
    degrees, vec2, vec3, Camera, ClearState, ColorMaterial, Context, CpuMesh, CpuTexture, Cull, Gm, Indices, InnerSpace, Interpolation, Mat3, Mesh as GpuMesh, Mipmap,
    Positions, RenderTarget, Srgba, Texture2DRef, TextureData, Vec3, Viewport, Wireframe, Wrapping,
};

/// Background colour (sRGB bytes), also what pixel tests compare against.
pub const BACKGROUND: [u8; 3] = [24, 26, 31];
const FOV_DEGREES: f32 = 45.0;

/// Where the camera is, for permalinks: position, target, vertical field of view (degrees).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CameraState {
    pub position: [f32; 3],
    pub target: [f32; 3],
    pub fov: f32,
}
const WIRE_COLOR: Srgba = Srgba { r: 240, g: 240, b: 240, a: 255 };
const POINT_COLOR: [u8; 4] = [255, 236, 150, 255];
const HIGHLIGHT_COLOR: Srgba = Srgba { r: 255, g: 200, b: 40, a: 255 };

/// One draw of an LOD: the triangles that share a texture (or have none), and how that
/// texture drifts.
struct GpuPart {
    gm: Gm<GpuMesh, RetroMaterial>,
    scroll: Option<[f32; 4]>,
}

/// One level of detail as uploaded: what the file says about when to show it, and the
/// wireframe made the first time it is asked for.
struct GpuLod {
    parts: Vec<GpuPart>,
    /// The scene's mesh, kept for a wireframe made on demand.
    mesh: Mesh,
    wire: Option<Wireframe>,
    triangles: usize,
    distance: Option<[f32; 2]>,
}

/// What the renderer is asked to show; the web glue owns these switches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewOptions {
    pub wireframe: bool,
    /// Hide back faces. Off by default: winding is unconfirmed in these files.
    pub cull_back: bool,
    /// Pick the LOD by camera distance (LOD_DISTANCE in/out) instead of `lod`.
    pub auto_lod: bool,
    pub lod: usize,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions { wireframe: false, cull_back: false, auto_lod: false, lod: 0 }
    }
}

/// What a click in the view hit.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Hit {
    /// The primitive chunk (PMESH …) and its PATCH.
    pub primitive: u32,
    pub patch: u32,
    /// The chunk whose indices made the triangle (CONNECTION_LIST, PCONN_LIST, or the
    /// primitive for strips and fans), and the triangle's number within that chunk's run.
    pub source: u32,
    pub triangle_in_source: u32,
    pub distance: f32,
}

pub struct Renderer {
    highlight: Option<Wireframe>,
    highlight_chunk: Option<u32>,
    context: Context,
    camera: Camera,
    lods: Vec<GpuLod>,
    points: Option<Gm<GpuMesh, ColorMaterial>>,
    bounds: Option<Bounds>,
    pub options: ViewOptions,
    width: u32,
    height: u32,
    shown_lod: Option<usize>,
}

impl Renderer {
    pub fn new(gl: three_d::context::Context, width: u32, height: u32) -> Result<Renderer, String> {
        let context = Context::from_gl_context(Arc::new(gl)).map_err(|e| e.to_string())?;
        let viewport = Viewport::new_at_origo(width.max(1), height.max(1));
        let camera = Camera::new_perspective(viewport, vec3(3.0, 2.0, 4.0), vec3(0.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), degrees(FOV_DEGREES), 0.01, 1000.0);
        Ok(Renderer {
            highlight: None,
            highlight_chunk: None,
            context,
            camera,
            lods: Vec::new(),
            points: None,
            bounds: None,
            options: ViewOptions::default(),
            width: width.max(1),
            height: height.max(1),
            shown_lod: None,
        })
    }

    pub fn camera_state(&self) -> CameraState {
        let (p, t) = (self.camera.position(), self.camera.target());
        CameraState { position: [p.x, p.y, p.z], target: [t.x, t.y, t.z], fov: FOV_DEGREES }
    }

    /// Put the camera where a permalink says (a degenerate or non-finite view is ignored).
    pub fn set_camera_state(&mut self, state: CameraState) -> bool {
        let (p, t) = (Vec3::from(state.position), Vec3::from(state.target));
        let finite = state.position.iter().chain(&state.target).all(|x| x.is_finite());
        if !finite || (p - t).magnitude() < 1e-6 {
            return false;
        }
        self.camera.set_view(p, t, vec3(0.0, 1.0, 0.0));
        self.update_projection();
        true
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.camera.set_viewport(Viewport::new_at_origo(self.width, self.height));
    }

    /// Replace the drawn model (None clears) and frame the camera on its first LOD (or its
    /// light points when it has no triangles).
    pub fn set_model(&mut self, model: Option<SceneModel>) {
        self.lods.clear();
        self.highlight = None;
        self.highlight_chunk = None;
        self.points = None;
        self.bounds = None;
        self.shown_lod = None;
        let Some(model) = model else { return };
        let textures: Vec<Texture2DRef> = model.textures.iter().map(|t| upload_texture(&self.context, &t.texels)).collect();
        let point_bounds = points_bounds(&model.points);
        self.bounds = model.lods.iter().find_map(|l| l.mesh.bounds()).or(point_bounds);
        for lod in model.lods {
            let (mesh, distance) = (lod.mesh, lod.distance);
            let triangles = mesh.triangle_count();
            // One draw per texture, in the order the textures first appear.
            let mut keys: Vec<Option<u32>> = Vec::new();
            for p in &mesh.parts {
                if !keys.contains(&p.texture) {
                    keys.push(p.texture);
                }
            }
            let parts = keys
                .into_iter()
                .filter_map(|key| {
                    let cpu = draw_mesh(mesh.parts.iter().filter(|p| p.texture == key), key.is_some())?;
                    let texture = key.and_then(|k| textures.get(k as usize).cloned());
                    let scroll = key.and_then(|k| model.textures.get(k as usize)).and_then(|t| t.scroll);
                    let material = RetroMaterial { texture, normals: cpu.normals.is_some(), cull: Cull::None };
                    Some(GpuPart { gm: Gm::new(GpuMesh::new(&self.context, &cpu), material), scroll })
                })
                .collect();
            self.lods.push(GpuLod { parts, mesh, wire: None, triangles, distance });
        }
        if !model.points.is_empty() {
            let size = self.bounds.map_or(0.05, |b| b.radius() * 0.015);
            let cpu = point_markers(&model.points, size);
            self.points = Some(Gm::new(GpuMesh::new(&self.context, &cpu), ColorMaterial { color: Srgba::WHITE, ..Default::default() }));
        }
        self.frame();
    }

    /// Look at the model's bounds from above and in front, far enough to see all of it.
    pub fn frame(&mut self) {
        let Some(b) = self.bounds else { return };
        let c = b.center();
        let center = vec3(c.x, c.y, c.z);
        let radius = b.radius().max(1e-3);
        let distance = radius / (FOV_DEGREES.to_radians() * 0.5).sin() * 1.15;
        let dir = vec3(0.55, 0.45, 0.7).normalize();
        self.camera.set_view(center + dir * distance, center, vec3(0.0, 1.0, 0.0));
        self.update_projection();
    }

    fn radius(&self) -> f32 {
        self.bounds.map_or(1.0, |b| b.radius().max(1e-3))
    }

    fn distance(&self) -> f32 {
        (self.camera.position() - self.camera.target()).magnitude()
    }

    fn update_projection(&mut self) {
        let (d, r) = (self.distance(), self.radius());
        self.camera.set_perspective_projection(degrees(FOV_DEGREES), (d * 0.01).min(r * 0.1), d * 10.0 + r * 4.0);
    }

    /// Orbit around the target by a drag of (dx, dy) CSS pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        let target = self.camera.target();
        self.camera.rotate_around_with_fixed_up(target, -dx * 0.01, dy * 0.01);
    }

    /// Move camera and target across the view by a drag of (dx, dy) CSS pixels.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        // World units per CSS pixel at the target's depth.
        let scale = 2.0 * self.distance() * (FOV_DEGREES.to_radians() * 0.5).tan() / self.height as f32;
        let right = self.camera.right_direction();
        let up = self.camera.up_orthogonal();
        let change: Vec3 = right * (-dx * scale) + up * (dy * scale);
        self.camera.translate(change);
    }

    /// Zoom exponentially: positive `steps` move closer (one wheel notch is about 1). The
    /// far limit is generous so that distance-switched LODs can be seen to switch.
    pub fn zoom(&mut self, steps: f32) {
        let distance = self.distance();
        let factor = (-steps * 0.15).exp();
        let r = self.radius();
        let far = self.lods.iter().filter_map(|l| l.distance.map(|d| d[1])).fold(r * 200.0, f32::max);
        let target = self.camera.target();
        self.camera.zoom_towards(target, distance - distance * factor, r * 0.02, far * 1.2);
        self.update_projection();
    }

    /// The LOD the options select at the current camera distance.
    pub fn current_lod(&self) -> Option<usize> {
        if self.lods.is_empty() {
            return None;
        }
        if !self.options.auto_lod {
            return Some(self.options.lod.min(self.lods.len() - 1));
        }
        let d = self.bounds.map_or(self.distance(), |b| {
            let c = b.center();
            (self.camera.position() - vec3(c.x, c.y, c.z)).magnitude()
        });
        let within = |l: &GpuLod| l.distance.is_some_and(|[near, far]| d >= near && d < far);
        let beyond = |l: &GpuLod| l.distance.is_some_and(|[near, _]| d >= near);
        self.lods.iter().position(within).or_else(|| self.lods.iter().rposition(beyond)).or(Some(0))
    }

    /// What is under the pixel (x, y) of the canvas, top-left origin, in canvas pixels.
    pub fn pick(&self, x: f32, y: f32) -> Option<Hit> {
        let lod = &self.lods[self.current_lod()?];
        let pixel = (x, self.height as f32 - y);
        let o = self.camera.position_at_pixel(pixel);
        let d = self.camera.view_direction_at_pixel(pixel);
        let (k, t, distance) = lod.mesh.pick([o.x, o.y, o.z], [d.x, d.y, d.z])?;
        let part = &lod.mesh.parts[k];
        let run = part.triangle_sources.iter().rev().find(|r| r.first <= t)?;
        Some(Hit { primitive: part.chunk, patch: part.patch_chunk, source: run.chunk, triangle_in_source: t - run.first, distance })
    }

    /// Outline the geometry that came from `chunk` (an OBJECT, LOD, PATCH, primitive or
    /// index list)
    /// in the LOD on show; None clears. Returns how many triangles are outlined.
    pub fn set_highlight(&mut self, chunk: Option<u32>) -> usize {
        self.highlight = None;
        self.highlight_chunk = chunk;
        let (Some(chunk), Some(lod)) = (chunk, self.current_lod().and_then(|i| self.lods.get(i))) else { return 0 };
        let mut positions: Vec<Vec3> = Vec::new();
        for part in &lod.mesh.parts {
            let whole = part.within(chunk);
            for (t, tri) in part.indices.chunks_exact(3).enumerate() {
                let source = part.triangle_sources.iter().rev().find(|r| r.first as usize <= t).map(|r| r.chunk);
                if whole || source == Some(chunk) {
                    positions.extend(tri.iter().map(|&i| Vec3::from(part.positions[i as usize])));
                }
            }
        }
        let triangles = positions.len() / 3;
        if triangles > 0 {
            self.highlight = Some(Wireframe::new(&self.context, &positions, 2.0, HIGHLIGHT_COLOR));
        }
        triangles
    }

    /// Which LOD (as drawn) holds the geometry of LOD chunk `chunk`.
    pub fn lod_index_of(&self, chunk: u32) -> Option<usize> {
        self.lods.iter().position(|l| l.mesh.parts.iter().any(|p| p.lod_chunk == Some(chunk)))
    }

    /// Whether the LOD on show has a scrolling texture, so frames must keep coming.
    pub fn animating(&self) -> bool {
        self.current_lod().and_then(|i| self.lods.get(i)).is_some_and(|l| l.parts.iter().any(|p| p.scroll.is_some()))
    }

    /// Draw one frame at `seconds` (the clock of texture scrolling); returns the number of
    /// draw calls issued.
    pub fn render(&mut self, seconds: f64) -> u32 {
        let [r, g, b] = BACKGROUND.map(|c| c as f32 / 255.0);
        let lod = self.current_lod();
        self.shown_lod = lod;
        let cull = if self.options.cull_back { Cull::Back } else { Cull::None };
        if let Some(i) = lod {
            let l = &mut self.lods[i];
            for part in &mut l.parts {
                part.gm.material.cull = cull;
                if let (Some([u0, v0, du, dv]), Some(tex)) = (part.scroll, part.gm.material.texture.as_mut()) {
                    // offset(t) = (u0 + du·t, v0 + dv·t), wrapped; f64 keeps long sessions smooth.
                    let u = (u0 as f64 + du as f64 * seconds).rem_euclid(1.0) as f32;
                    let v = (v0 as f64 + dv as f64 * seconds).rem_euclid(1.0) as f32;
                    tex.transformation = Mat3::from_translation(vec2(u, v));
                }
            }
            if self.options.wireframe && l.wire.is_none() {
                let positions: Vec<Vec3> = l.mesh.parts.iter().flat_map(|p| p.indices.iter().map(|&i| Vec3::from(p.positions[i as usize]))).collect();
                l.wire = Some(Wireframe::new(&self.context, &positions, 1.0, WIRE_COLOR));
            }
        }
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        let mut calls = 0;
        if let Some(i) = lod {
            let l = &self.lods[i];
            for part in &l.parts {
                target.render(&self.camera, [&part.gm], &[]);
                calls += 1;
            }
            if let (true, Some(wire)) = (self.options.wireframe, &l.wire) {
                target.render(&self.camera, [wire], &[]);
                calls += 1;
            }
        }
        if let Some(points) = &self.points {
            target.render(&self.camera, [points], &[]);
            calls += 1;
        }
        if let Some(h) = &self.highlight {
            target.render(&self.camera, [h], &[]);
            calls += 1;
        }
        calls
    }

    /// Read back the frame just drawn (bottom row first).
    pub fn read_pixels(&mut self) -> Vec<[u8; 4]> {
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.read_color::<[u8; 4]>()
    }

    /// Triangles of the LOD drawn in the last frame.
    pub fn triangles(&self) -> usize {
        self.shown_lod.and_then(|i| self.lods.get(i)).map_or(0, |l| l.triangles)
    }
    pub fn shown_lod(&self) -> Option<usize> {
        self.shown_lod
    }
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// Upload texels as sRGB-decoded RGBA: three-d samples textures as linear and encodes the
/// output as sRGB, so the file's colours come out as they are stored.
fn upload_texture(context: &Context, texels: &crate::texture::Texels) -> Texture2DRef {
    let mut data = TextureData::RgbaU8(texels.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect());
    data.to_linear_srgb();
    let cpu = CpuTexture {
        name: String::new(),
        data,
        width: texels.width,
        height: texels.height,
        min_filter: Interpolation::Linear,
        // Old games' texels are big on screen: keep them crisp.
        mag_filter: Interpolation::Nearest,
        mipmap: Some(Mipmap::default()),
        wrap_s: Wrapping::Repeat,
        wrap_t: Wrapping::Repeat,
    };
    Texture2DRef::from_cpu_texture(context, &cpu)
}

fn points_bounds(points: &[([f32; 3], f32)]) -> Option<Bounds> {
    let mut it = points.iter();
    let (first, _) = it.next()?;
    let (mut min, mut max) = (*first, *first);
    for (p, _) in it {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    Some(Bounds { min, max })
}

/// A small octahedron at every light point, sized by its radius (or `size` when smaller).
fn point_markers(points: &[([f32; 3], f32)], size: f32) -> CpuMesh {
    let mut positions = Vec::with_capacity(points.len() * 24);
    let mut colors = Vec::with_capacity(points.len() * 24);
    let dirs = [vec3(1.0, 0.0, 0.0), vec3(0.0, 0.0, 1.0), vec3(-1.0, 0.0, 0.0), vec3(0.0, 0.0, -1.0)];
    let [r, g, b, a] = POINT_COLOR;
    for &(p, radius) in points {
        let c = vec3(p[0], p[1], p[2]);
        let s = radius.max(size);
        for k in 0..4 {
            let (d0, d1) = (dirs[k] * s, dirs[(k + 1) % 4] * s);
            for pole in [vec3(0.0, s, 0.0), vec3(0.0, -s, 0.0)] {
                positions.extend([c + d0, c + d1, c + pole]);
                colors.extend([Srgba::new(r, g, b, a); 3]);
            }
        }
    }
    CpuMesh { positions: Positions::F32(positions), colors: Some(colors), ..Default::default() }
}

/// One draw's vertex and index buffers: the parts that share a texture, concatenated into
/// three-d's vertex types. This is the one copy of the vertices the GPU upload needs.
fn draw_mesh<'a>(parts: impl Iterator<Item = &'a MeshPart> + Clone, textured: bool) -> Option<CpuMesh> {
    let vertices: usize = parts.clone().map(|p| p.positions.len()).sum();
    let indices: usize = parts.clone().map(|p| p.indices.len()).sum();
    if indices == 0 {
        return None;
    }
    // Smooth normals only where every part has them; the shader makes flat facets otherwise.
    let normals = parts.clone().all(|p| p.normals.is_some());
    let mut cpu = CpuMesh {
        positions: Positions::F32(Vec::with_capacity(vertices)),
        indices: Indices::U32(Vec::with_capacity(indices)),
        normals: normals.then(|| Vec::with_capacity(vertices)),
        colors: Some(Vec::with_capacity(vertices)),
        uvs: textured.then(|| Vec::with_capacity(vertices)),
        ..Default::default()
    };
    for part in parts {
        let (Positions::F32(positions), Indices::U32(out_indices)) = (&mut cpu.positions, &mut cpu.indices) else { unreachable!("built as F32/U32 above") };
        let base = positions.len() as u32;
        positions.extend(part.positions.iter().map(|&p| Vec3::from(p)));
        out_indices.extend(part.indices.iter().map(|&i| i + base));
        if let (Some(out), Some(n)) = (cpu.normals.as_mut(), &part.normals) {
            out.extend(n.iter().map(|&n| Vec3::from(n)));
        }
        if let Some(out) = cpu.colors.as_mut() {
            out.extend(part.colors.iter().map(|&[r, g, b, a]| Srgba::new(r, g, b, a)));
        }
        if let Some(out) = cpu.uvs.as_mut() {
            match &part.uvs {
                Some(uv) => out.extend(uv.iter().map(|&[u, v]| vec2(u, v))),
                None => out.extend(std::iter::repeat_n(vec2(0.0, 0.0), part.positions.len())),
            }
        }
    }
    Some(cpu)
}
