//! The only module that knows three-d: uploads `scene` meshes to the GPU, owns the camera
//! and draws frames into the page's WebGL2 canvas.

mod material;

use crate::scene::{Bounds, Mesh, SceneModel};
use material::RetroMaterial;
use std::sync::Arc;
use three_d::{
    degrees, vec2, vec3, Camera, ClearState, ColorMaterial, Context, CpuMesh, CpuTexture, Cull, Gm, Indices, InnerSpace, Interpolation, Mat3, Mesh as GpuMesh, Mipmap,
    Positions, RenderTarget, Srgba, Texture2DRef, TextureData, Vec3, Viewport, Wireframe, Wrapping,
};

/// Background colour (sRGB bytes), also what pixel tests compare against.
pub const BACKGROUND: [u8; 3] = [24, 26, 31];
const FOV_DEGREES: f32 = 45.0;
const WIRE_COLOR: Srgba = Srgba { r: 240, g: 240, b: 240, a: 255 };
const POINT_COLOR: [u8; 4] = [255, 236, 150, 255];

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
    /// The scene's vertices and indices, kept for a wireframe made on demand.
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
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

pub struct Renderer {
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

    pub fn resize(&mut self, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.camera.set_viewport(Viewport::new_at_origo(self.width, self.height));
    }

    /// Replace the drawn model (None clears) and frame the camera on its first LOD (or its
    /// light points when it has no triangles).
    pub fn set_model(&mut self, model: Option<SceneModel>) {
        self.lods.clear();
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
            for g in &mesh.groups {
                if !keys.contains(&g.texture) {
                    keys.push(g.texture);
                }
            }
            let parts = keys
                .into_iter()
                .filter_map(|key| {
                    let cpu = part_mesh(&mesh, key, textures.len() > 0)?;
                    let texture = key.and_then(|k| textures.get(k as usize).cloned());
                    let scroll = key.and_then(|k| model.textures.get(k as usize)).and_then(|t| t.scroll);
                    let material = RetroMaterial { texture, normals: cpu.normals.is_some(), cull: Cull::None };
                    Some(GpuPart { gm: Gm::new(GpuMesh::new(&self.context, &cpu), material), scroll })
                })
                .collect();
            self.lods.push(GpuLod { parts, positions: mesh.positions, indices: mesh.indices, wire: None, triangles, distance });
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
                let positions: Vec<Vec3> = l.indices.iter().map(|&i| Vec3::from(l.positions[i as usize])).collect();
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

/// The vertices and indices of the triangles whose group uses texture `key`, compacted so
/// each draw uploads only its own vertices. The copy into three-d's vertex types is the one
/// the GPU upload needs.
fn part_mesh(mesh: &Mesh, key: Option<u32>, textured_model: bool) -> Option<CpuMesh> {
    let groups: Vec<_> = mesh.groups.iter().filter(|g| g.texture == key).collect();
    let whole = groups.len() == mesh.groups.len();
    let corners = |g: &&crate::scene::MeshGroup| (g.first_triangle as usize * 3)..((g.first_triangle + g.triangles) as usize * 3);
    // Which source vertex each of this part's vertices is (None: all of them, in order).
    let (vertices, indices): (Option<Vec<u32>>, Vec<u32>) = if whole {
        (None, mesh.indices.clone())
    } else {
        // Old index → new index, for the vertices this part uses.
        let mut remap = vec![u32::MAX; mesh.positions.len()];
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        for g in &groups {
            for &i in &mesh.indices[corners(g)] {
                let slot = &mut remap[i as usize];
                if *slot == u32::MAX {
                    *slot = vertices.len() as u32;
                    vertices.push(i);
                }
                indices.push(*slot);
            }
        }
        (Some(vertices), indices)
    };
    if indices.is_empty() {
        return None;
    }
    fn gather<T: Copy, U>(all: &[T], which: &Option<Vec<u32>>, f: impl Fn(T) -> U) -> Vec<U> {
        match which {
            None => all.iter().map(|&x| f(x)).collect(),
            Some(v) => v.iter().map(|&i| f(all[i as usize])).collect(),
        }
    }
    Some(CpuMesh {
        positions: Positions::F32(gather(&mesh.positions, &vertices, Vec3::from)),
        indices: Indices::U32(indices),
        normals: mesh.normals.as_ref().map(|n| gather(n, &vertices, Vec3::from)),
        colors: Some(gather(&mesh.colors, &vertices, |[r, g, b, a]| Srgba::new(r, g, b, a))),
        uvs: (key.is_some() && textured_model).then(|| gather(&mesh.uvs, &vertices, |[u, v]| vec2(u, v))),
        ..Default::default()
    })
}
