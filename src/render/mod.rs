//! The only module that knows three-d: draws a neutral [`Scene`] into the page's WebGL2
//! canvas, owns the camera, and evaluates the scene's clips at the animation clock.
//!
//! Draw plan (see `Scene::draw_plan`): meshes used once and not moved by a clip are baked
//! into world space and merged, one draw per texture; a mesh placed by several nodes (or
//! moved by a clip) is one instanced draw per primitive for all its nodes. Draw calls grow
//! with unique meshes, not with placements. LODs are uploaded the first time they show.

mod geometry;
mod material;

use crate::view::skeleton;
use crate::scene::{source_of, Bounds, DrawPlan, Marker, Scene, SourceRun};
pub use crate::view::{AxisView, Background, CameraMode, CameraState, Lighting, ViewOptions, ViewpointAt, BACKGROUND, CHECKER, CHECKER_PX};
use glam::Vec3 as GVec3;
use geometry::{SceneGeometry, VertexArrays};
use material::{Pass, RetroMaterial};
use std::sync::Arc;
use three_d::{
    degrees, vec2, vec3, Camera, ClearState, ColorMaterial, Context, CpuMesh, CpuTexture, Cull, Geometry, Gm, InnerSpace, Interpolation, Mat3, Mat4, Mesh as GpuMesh,
    Mipmap, Positions, RenderTarget, ScissorBox, Srgba, Texture2DRef, TextureData, Vec3, Viewport, Wireframe, Wrapping,
};

const FOV_DEGREES: f32 = 45.0;

const WIRE_COLOR: Srgba = Srgba { r: 240, g: 240, b: 240, a: 255 };
const POINT_COLOR: [u8; 4] = [255, 236, 150, 255];
const DROPZONE_COLOR: [u8; 4] = [230, 40, 40, 255];
/// Vertices uploaded per frame at most (but always one batch): a large world appears batch
/// by batch, one mesh after another, and no frame waits for the whole upload.
const UPLOAD_BUDGET: usize = 150_000;
/// How high above a viewpoint's node the eye is (a pod's cockpit over its dropzone).
pub const EYE_HEIGHT: f32 = 2.0;
const HIGHLIGHT_COLOR: Srgba = Srgba { r: 255, g: 200, b: 40, a: 255 };

/// Meshes baked into world space and merged: one draw per texture.
struct MergedDraw {
    gm: Gm<SceneGeometry, RetroMaterial>,
    /// A semi-transparent material's second pass: its blended texels.
    semi: Option<RetroMaterial>,
    /// The material a clip animates in this draw (its UV drift, its glow).
    animated_material: Option<u32>,
}

/// One mesh primitive drawn at every node that places it.
struct InstancedDraw {
    gm: Gm<SceneGeometry, RetroMaterial>,
    semi: Option<RetroMaterial>,
    nodes: Vec<u32>,
    /// A clip moves some of the nodes: instances are updated every frame.
    animated: bool,
    animated_material: Option<u32>,
}

/// One LOD as uploaded so far: its draw plan, and the batches of it already on the GPU.
struct GpuLod {
    plan: DrawPlan,
    merged: Vec<MergedDraw>,
    instanced: Vec<InstancedDraw>,
    /// Batches of the plan uploaded (merged first, then instanced).
    uploaded: usize,
    markers: Option<Gm<GpuMesh, ColorMaterial>>,
    wire: Option<Wireframe>,
    triangles: usize,
    instances: usize,
}

impl GpuLod {
    fn batches(&self) -> usize {
        self.plan.merged.len() + self.plan.instanced.len()
    }
}

/// What the outline shows: a record's geometry, or one face of it (the bytes start..end).
#[derive(Debug, Clone, Copy, PartialEq)]
struct HighlightTarget {
    record: u32,
    face: Option<(usize, usize)>,
    /// The LOD it was outlined in; another LOD on show outlines it again (or nothing).
    lod: Option<usize>,
}

/// What a click in the view hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The record of the primitive, and of the node that drew it.
    pub primitive: Option<u32>,
    pub node: Option<u32>,
    /// The run of triangles (record and face bytes) the triangle belongs to.
    pub source: Option<SourceRun>,
    pub triangle: u32,
    pub distance: f32,
}

pub struct Renderer {
    context: Context,
    camera: Camera,
    scene: Option<Scene>,
    textures: Vec<Texture2DRef>,
    /// Per LOD, uploaded on first use.
    lods: Vec<Option<GpuLod>>,
    highlight: Option<Wireframe>,
    highlight_target: Option<HighlightTarget>,
    /// The box around the outlined triangles, for framing the selection.
    highlight_bounds: Option<Bounds>,
    highlight_count: usize,
    /// A full-view square textured with the checker, drawn first when it is the background.
    checker: Option<Gm<GpuMesh, ColorMaterial>>,
    bounds: Option<Bounds>,
    pub options: ViewOptions,
    width: u32,
    height: u32,
    shown_lod: Option<usize>,
    /// Draw calls of the last frame.
    draw_calls: u32,
    /// Layers of the scene not drawn.
    hidden_layers: Vec<u32>,
    pub camera_mode: CameraMode,
    /// The option of the scene's choice on show.
    choice: Option<usize>,
    /// Bytes of vertex and index data sent to the GPU for the scene on show, and the time
    /// the uploads took (building the buffers and handing them to GL).
    upload_bytes: usize,
    upload_ms: f64,
    clock: fn() -> f64,
}

fn to_mat4(m: glam::Mat4) -> Mat4 {
    Mat4::from(m.to_cols_array_2d())
}

impl Renderer {
    /// `clock` gives milliseconds (the page's clock), for the upload timing.
    pub fn new(gl: three_d::context::Context, width: u32, height: u32, clock: fn() -> f64) -> Result<Renderer, String> {
        let context = Context::from_gl_context(Arc::new(gl)).map_err(|e| e.to_string())?;
        let viewport = Viewport::new_at_origo(width.max(1), height.max(1));
        let camera = Camera::new_perspective(viewport, vec3(3.0, 2.0, 4.0), vec3(0.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), degrees(FOV_DEGREES), 0.01, 1000.0);
        Ok(Renderer {
            context,
            camera,
            scene: None,
            textures: Vec::new(),
            lods: Vec::new(),
            highlight: None,
            highlight_target: None,
            highlight_bounds: None,
            highlight_count: 0,
            checker: None,
            bounds: None,
            options: ViewOptions::default(),
            width: width.max(1),
            height: height.max(1),
            shown_lod: None,
            draw_calls: 0,
            hidden_layers: Vec::new(),
            camera_mode: CameraMode::Orbit,
            choice: None,
            upload_bytes: 0,
            upload_ms: 0.0,
            clock,
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

    /// Replace the drawn scene (None clears) and frame the camera on its first LOD.
    pub fn set_scene(&mut self, scene: Option<Scene>) {
        self.lods.clear();
        self.upload_bytes = 0;
        self.upload_ms = 0.0;
        self.textures.clear();
        self.highlight = None;
        self.highlight_target = None;
        self.highlight_bounds = None;
        self.bounds = None;
        self.shown_lod = None;
        self.hidden_layers.clear();
        self.camera_mode = CameraMode::Orbit;
        self.choice = None;
        self.scene = scene;
        if let Some(k) = self.scene.as_ref().and_then(|s| s.choice.as_ref()).map(|c| c.default) {
            self.choose(k);
        }
        let Some(scene) = &self.scene else { return };
        self.textures = scene.textures.iter().map(|t| upload_texture(&self.context, t)).collect();
        self.lods = (0..scene.lod_count()).map(|_| None).collect();
        self.bounds = scene.bounds_in(0, &self.hidden_layers);
        self.frame();
    }

    pub fn scene(&self) -> Option<&Scene> {
        self.scene.as_ref()
    }

    /// Look at the scene's bounds from above and in front, far enough to see all of it.
    pub fn frame(&mut self) {
        let Some(b) = self.bounds else { return };
        self.frame_bounds(b, vec3(0.55, 0.45, 0.7).normalize(), vec3(0.0, 1.0, 0.0));
    }

    /// Look at `b` with the eye in direction `dir` from it, from far enough that its sphere
    /// fits the narrower of the view's two angles: a tall, narrow view (a phone held
    /// upright) fits the model across its width.
    fn frame_bounds(&mut self, b: Bounds, dir: Vec3, up: Vec3) {
        let c = b.center();
        let center = vec3(c.x, c.y, c.z);
        let radius = b.radius().max(1e-3);
        let half_v = (FOV_DEGREES.to_radians() * 0.5).tan();
        let aspect = self.width as f32 / self.height as f32;
        let half = half_v.min(half_v * aspect).atan();
        let distance = radius / half.sin() * 1.15;
        self.camera.set_view(center + dir * distance, center, up);
        self.update_projection();
    }

    /// Frame the outlined geometry (the selection), looking from where the camera is;
    /// false when nothing is outlined.
    pub fn frame_highlight(&mut self) -> bool {
        let Some(b) = self.highlight_bounds else { return false };
        let back = self.camera.position() - self.camera.target();
        let dir = if back.magnitude() > 1e-6 { back.normalize() } else { vec3(0.55, 0.45, 0.7).normalize() };
        // The screen's up stays (looking straight down, world up would be degenerate).
        let up = self.camera.up();
        self.frame_bounds(b, dir, up);
        true
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

    /// Orbit around the target by a drag of (dx, dy) CSS pixels; flying, look around.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        if self.camera_mode == CameraMode::Fly {
            self.look(-dx * 0.004, -dy * 0.004);
            return;
        }
        let target = self.camera.target();
        self.camera.rotate_around_with_fixed_up(target, -dx * 0.01, dy * 0.01);
    }

    /// Turn the view by `yaw` about the world's up and `pitch` about the view's right
    /// (radians), the eye staying where it is; the pitch stops short of straight up or down.
    pub fn look(&mut self, yaw: f32, pitch: f32) {
        let p = self.camera.position();
        let eye = GVec3::new(p.x, p.y, p.z);
        let dir = self.camera.view_direction();
        let dir = GVec3::new(dir.x, dir.y, dir.z).normalize_or(GVec3::NEG_Z);
        let horizontal = dir.with_y(0.0).length();
        let (mut heading, mut elevation) = (dir.x.atan2(dir.z), dir.y.atan2(horizontal));
        heading += yaw;
        elevation = (elevation + pitch).clamp(-1.5, 1.5);
        let d = GVec3::new(elevation.cos() * heading.sin(), elevation.sin(), elevation.cos() * heading.cos());
        // The target sits at the old focus distance, so switching back to orbiting feels right.
        let t = eye + d * self.distance().max(1e-3);
        self.camera.set_view(p, vec3(t.x, t.y, t.z), vec3(0.0, 1.0, 0.0));
        self.update_projection();
    }

    /// Fly by (forward, right, up) world units along the view, its right and the world's up.
    pub fn fly(&mut self, forward: f32, right: f32, up: f32) {
        let d = self.camera.view_direction();
        let r = self.camera.right_direction();
        let change = d.normalize() * forward + r.normalize() * right + vec3(0.0, up, 0.0);
        self.camera.translate(change);
    }

    /// How far flying goes in a second at normal speed: a tenth of the scene's size.
    pub fn fly_speed(&self) -> f32 {
        self.radius() * 0.2
    }

    /// Look from a viewpoint: the eye [`EYE_HEIGHT`] above it, looking along its +Z.
    pub fn look_from(&mut self, v: &ViewpointAt) {
        let (p, f, u) = (GVec3::from(v.position), GVec3::from(v.forward), GVec3::from(v.up));
        let eye = p + u * EYE_HEIGHT;
        let target = eye + f * self.radius().max(1.0) * 0.5;
        self.camera.set_view(vec3(eye.x, eye.y, eye.z), vec3(target.x, target.y, target.z), vec3(0.0, 1.0, 0.0));
        self.update_projection();
    }

    /// The scene's viewpoints where they stand at `seconds`.
    pub fn viewpoints(&self, seconds: f64) -> Vec<ViewpointAt> {
        let Some(scene) = &self.scene else { return Vec::new() };
        let world = scene.world(&scene.pose(seconds));
        scene
            .viewpoints
            .iter()
            .filter_map(|v| {
                let m = world.get(v.node as usize)?;
                Some(ViewpointAt {
                    name: v.name.clone(),
                    position: m.transform_point3(GVec3::ZERO).to_array(),
                    forward: m.transform_vector3(GVec3::Z).normalize_or(GVec3::Z).to_array(),
                    up: m.transform_vector3(GVec3::Y).normalize_or(GVec3::Y).to_array(),
                })
            })
            .collect()
    }

    /// Look at the scene straight along an axis: "front" (from +Z), "side" (from +X) or
    /// "top" (from +Y), framed on its bounds.
    pub fn axis_view(&mut self, axis: AxisView) -> bool {
        let Some(b) = self.bounds else { return false };
        let ([dx, dy, dz], [ux, uy, uz]) = (axis.direction(), axis.up());
        self.frame_bounds(b, vec3(dx, dy, dz), vec3(ux, uy, uz));
        self.camera_mode = CameraMode::Orbit;
        true
    }

    /// Show option `k` of the scene's choice (its layers, its clip); false when there is none.
    pub fn choose(&mut self, k: usize) -> bool {
        let Some(scene) = self.scene.as_mut() else { return false };
        let Some(choice) = &scene.choice else { return false };
        if k >= choice.options.len() {
            return false;
        }
        let all: Vec<u32> = choice.options.iter().flat_map(|o| o.layers.iter().copied()).collect();
        let hidden = scene.choose(k);
        // The person's own hidden layers stay; the choice's are the option's.
        let mut layers: Vec<u32> = self.hidden_layers.iter().copied().filter(|l| !all.contains(l)).collect();
        layers.extend(hidden);
        self.choice = Some(k);
        // Clips that play changed: what is animated is planned again.
        self.lods.iter_mut().for_each(|l| *l = None);
        self.set_hidden_layers(layers);
        if let Some(scene) = &self.scene {
            let lod = self.current_lod().unwrap_or(0);
            self.bounds = scene.bounds_in(lod, &self.hidden_layers).or(self.bounds);
        }
        true
    }
    pub fn choice(&self) -> Option<usize> {
        self.choice
    }

    /// Hide the scene's layers in `hidden` (indices into its layer list), show the rest.
    pub fn set_hidden_layers(&mut self, mut hidden: Vec<u32>) {
        hidden.sort_unstable();
        hidden.dedup();
        if hidden != self.hidden_layers {
            self.hidden_layers = hidden;
            // What is drawn changes: plan and upload again (on the next frame).
            self.lods.iter_mut().for_each(|l| *l = None);
            self.highlight = None;
        }
    }
    pub fn hidden_layers(&self) -> &[u32] {
        &self.hidden_layers
    }

    /// Batches of the LOD on show uploaded, and in all.
    pub fn upload_progress(&self) -> (usize, usize) {
        self.shown().map_or((0, 0), |l| (l.uploaded, l.batches()))
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
        let (target, far) = (self.camera.target(), self.far_limit());
        self.camera.zoom_towards(target, distance - distance * factor, r * 0.02, far);
        self.update_projection();
    }

    /// How far the camera may back away: generous, so that distance-switched LODs can be
    /// seen to switch.
    fn far_limit(&self) -> f32 {
        let r = self.radius();
        self.scene.iter().flat_map(|s| &s.lods).filter_map(|l| l.distance.map(|d| d[1])).fold(r * 200.0, f32::max) * 1.2
    }

    /// Zoom towards the point of the surface under canvas pixel (x, y) (top-left origin):
    /// camera and target both move towards it, so it stays under the cursor, and the eye
    /// only ever covers part of the way there, so it never passes the surface. With nothing
    /// under the cursor (or flying) this is [`Self::zoom`].
    pub fn zoom_at(&mut self, steps: f32, x: f32, y: f32, seconds: f64) {
        let hit = (self.camera_mode == CameraMode::Orbit).then(|| self.pick(x, y, seconds)).flatten();
        let Some(hit) = hit.filter(|h| h.distance.is_finite() && h.distance > 0.0) else { return self.zoom(steps) };
        let pixel = (x, self.height as f32 - y);
        let (eye, ray) = (self.camera.position(), self.camera.view_direction_at_pixel(pixel));
        let point = eye + ray * hit.distance;
        let factor = (-steps * 0.15).exp();
        // Not nearer the surface than a thousandth of the model, nor further than the limit.
        let near = self.radius() * 1e-3;
        let factor = factor.max(near / hit.distance).min(self.far_limit() / self.distance().max(1e-6));
        let target = self.camera.target();
        let (eye2, target2) = (point + (eye - point) * factor, point + (target - point) * factor);
        let up = self.camera.up();
        self.camera.set_view(eye2, target2, up);
        self.update_projection();
    }

    /// How many LODs the scene has (0 with nothing open).
    pub fn lod_count(&self) -> usize {
        self.scene.as_ref().map_or(0, |s| if s.lods.is_empty() { 1 } else { s.lods.len() })
    }

    /// The LOD the options select at the current camera distance.
    pub fn current_lod(&self) -> Option<usize> {
        let scene = self.scene.as_ref()?;
        let count = self.lod_count();
        if !self.options.auto_lod {
            return Some(self.options.lod.min(count - 1));
        }
        let d = self.bounds.map_or(self.distance(), |b| {
            let c = b.center();
            (self.camera.position() - vec3(c.x, c.y, c.z)).magnitude()
        });
        let within = |l: &crate::scene::LodLevel| l.distance.is_some_and(|[near, far]| d >= near && d < far);
        let beyond = |l: &crate::scene::LodLevel| l.distance.is_some_and(|[near, _]| d >= near);
        scene.lods.iter().position(within).or_else(|| scene.lods.iter().rposition(beyond)).or(Some(0))
    }

    /// World matrices at the animation clock.
    fn world(&self, seconds: f64) -> Vec<glam::Mat4> {
        self.scene.as_ref().map_or(Vec::new(), |s| s.world(&s.pose(seconds)))
    }

    /// Plan LOD `lod` if it has not been yet: its markers now, its batches as frames allow.
    fn ensure_lod(&mut self, lod: usize) {
        if self.lods.get(lod).is_none_or(Option::is_some) {
            return;
        }
        let Some(scene) = &self.scene else { return };
        let plan = scene.draw_plan_in(lod, &self.hidden_layers);
        let world = scene.world(&scene.pose(0.0));
        let visible = scene.visible_in(lod, &self.hidden_layers);
        let mut points: Vec<([f32; 3], f32)> = Vec::new();
        let mut dropzones: Vec<glam::Mat4> = Vec::new();
        for (i, n) in scene.nodes.iter().enumerate().filter(|(i, _)| visible[*i]) {
            match n.marker {
                Some(Marker::Light { radius }) => points.push((world[i].transform_point3(GVec3::ZERO).to_array(), radius)),
                Some(Marker::Dropzone) => dropzones.push(world[i]),
                None => {}
            }
        }
        let size = self.bounds.map_or(0.05, |b| b.radius() * 0.015);
        let markers = (!points.is_empty() || !dropzones.is_empty()).then(|| {
            let mut cpu = point_markers(&points, size);
            add_pyramids(&mut cpu, &dropzones, (size * 1.5).max(0.3));
            Gm::new(GpuMesh::new(&self.context, &cpu), ColorMaterial { color: Srgba::WHITE, ..Default::default() })
        });
        let triangles = scene.nodes.iter().zip(&visible).filter(|(_, &v)| v).filter_map(|(n, _)| n.mesh).map(|m| scene.meshes[m as usize].triangle_count()).sum();
        let instances = scene.nodes.iter().zip(&visible).filter(|(n, &v)| v && n.mesh.is_some()).count();
        self.lods[lod] = Some(GpuLod { plan, merged: Vec::new(), instanced: Vec::new(), uploaded: 0, markers, wire: None, triangles, instances });
    }

    /// Upload batches of LOD `lod` until `budget` vertices have gone up this frame (one batch
    /// at least). Returns whether every batch is up.
    fn upload_some(&mut self, lod: usize, budget: usize) -> bool {
        let (Some(scene), Some(Some(l))) = (&self.scene, self.lods.get_mut(lod)) else { return true };
        if l.uploaded >= l.batches() {
            return true;
        }
        let world = scene.world(&scene.pose(0.0));
        let animated = scene.animated_nodes();
        let animated_materials = scene.animated_materials();
        let textures = &self.textures;
        // The shader samples a texture exactly when the geometry has UVs for it: both follow
        // the scene's one decision (`Scene::texture_of`).
        let texture_of = |p: &crate::scene::Primitive| scene.texture_of(p).and_then(|t| textures.get(t as usize).cloned());
        let mut sent = 0usize;
        while l.uploaded < l.batches() && (sent == 0 || sent < budget) {
            let k = l.uploaded;
            l.uploaded += 1;
            if let Some(batch) = l.plan.merged.get(k) {
                let items: Vec<_> = batch.items.iter().map(|&(n, m, k)| (&scene.meshes[m as usize].primitives[k as usize], world[n as usize])).collect();
                sent += items.iter().map(|(p, _)| p.positions.len()).sum::<usize>();
                let texture = batch.texture.and_then(|t| textures.get(t as usize).cloned());
                let Some(geometry) = batch_geometry(&self.context, scene, &items, texture.is_some()) else { continue };
                self.upload_bytes += geometry.bytes();
                let material = batch.items.first().and_then(|&(_, m, k)| scene.meshes[m as usize].primitives[k as usize].material).and_then(|m| scene.materials.get(m as usize));
                let (material, semi) = retro_materials(material, texture, geometry.has_normals());
                l.merged.push(MergedDraw { gm: Gm::new(geometry, material), semi, animated_material: batch.animated_material });
                continue;
            }
            let batch = &l.plan.instanced[k - l.plan.merged.len()];
            let prim = &scene.meshes[batch.mesh as usize].primitives[batch.primitive as usize];
            sent += prim.positions.len();
            let texture = texture_of(prim);
            let Some(mut geometry) = batch_geometry(&self.context, scene, &[(prim, glam::Mat4::IDENTITY)], texture.is_some()) else { continue };
            self.upload_bytes += geometry.bytes();
            geometry.set_instances(&batch.nodes.iter().map(|&n| to_mat4(world[n as usize])).collect::<Vec<_>>());
            let (material, semi) = retro_materials(prim.material.and_then(|m| scene.materials.get(m as usize)), texture, geometry.has_normals());
            l.instanced.push(InstancedDraw {
                gm: Gm::new(geometry, material),
                semi,
                animated: batch.nodes.iter().any(|&n| animated[n as usize]),
                nodes: batch.nodes.clone(),
                animated_material: prim.material.filter(|m| animated_materials.contains(m)),
            });
        }
        l.uploaded >= l.batches()
    }

    /// Compile the shader programs of `variants` (normals, colours, textured) by drawing one
    /// triangle of each outside the view, so that the first frame of a file does not wait
    /// for them. Leaves the frame cleared to the background.
    pub fn warm_up(&mut self, variants: &[(bool, bool, bool)]) {
        let texture = upload_texture(&self.context, &crate::scene::Texture { name: None, texels: crate::texture::Texels { width: 1, height: 1, rgba: std::sync::Arc::new(vec![255; 4]) }, file: None, nearest: true });
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        // A small triangle in front of the camera, cleared away after: a software rasteriser
        // (SwiftShader) builds its setup and pixel routines only for triangles that reach the
        // screen, so one behind the camera would leave that work to the first file's frame.
        let (centre, eye) = (self.camera.target(), self.camera.position());
        let size = (centre - eye).magnitude() * 0.02;
        let (right, up) = (self.camera.right_direction() * size, self.camera.up_orthogonal() * size);
        let corner = |v: Vec3| [v.x, v.y, v.z];
        let positions = [corner(centre - right - up), corner(centre + right - up), corner(centre + up)];
        let (normals, colors, uvs) = ([[0.0f32, 1.0, 0.0]; 3], [[255u8; 4]; 3], [[0.0f32; 2], [1.0, 0.0], [0.5, 1.0]]);
        for &(with_normals, with_colors, textured) in variants {
            let arrays = VertexArrays {
                positions: &positions,
                normals: with_normals.then_some(&normals[..]),
                colors: with_colors.then_some(&colors[..]),
                uvs: textured.then_some(&uvs[..]),
                indices: &[0, 1, 2],
                model: glam::Mat4::IDENTITY,
                tint: [1.0; 4],
            };
            let Some(geometry) = SceneGeometry::new(&self.context, &[arrays]) else { continue };
            let (material, _) = retro_materials(None, textured.then(|| texture.clone()), with_normals);
            target.render(&self.camera, [&Gm::new(geometry, material)], &[]);
        }
        let [r, g, b] = BACKGROUND.map(|c| c as f32 / 255.0);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
    }

    /// Bytes of vertex and index data sent to the GPU for the scene on show so far.
    pub fn upload_bytes(&self) -> usize {
        self.upload_bytes
    }

    /// Milliseconds spent uploading batches of the scene on show so far.
    pub fn upload_ms(&self) -> f64 {
        self.upload_ms
    }

    /// Whether the LOD on show still has batches to upload (frames must keep coming).
    pub fn uploading(&self) -> bool {
        let (done, total) = self.upload_progress();
        done < total
    }

    /// What is under the pixel (x, y) of the canvas, top-left origin, in canvas pixels.
    pub fn pick(&self, x: f32, y: f32, seconds: f64) -> Option<Hit> {
        let scene = self.scene.as_ref()?;
        let lod = self.current_lod()?;
        let pixel = (x, self.height as f32 - y);
        let o = self.camera.position_at_pixel(pixel);
        let d = self.camera.view_direction_at_pixel(pixel);
        let world = self.world(seconds);
        let hit = scene.pick(GVec3::new(o.x, o.y, o.z), GVec3::new(d.x, d.y, d.z), lod, &self.hidden_layers, &world)?;
        let prim = &scene.meshes[hit.mesh as usize].primitives[hit.primitive as usize];
        // A node copied from another file (a model placed in a world) has no record of its
        // own: the placement above it stands for it.
        Some(Hit { primitive: prim.record, node: scene.record_of(hit.node), source: source_of(&prim.sources, hit.triangle).copied(), triangle: hit.triangle, distance: hit.distance })
    }

    /// Outline what came from inspector record `record` in the LOD on show; None clears.
    /// Returns how many triangles are outlined.
    pub fn set_highlight(&mut self, record: Option<u32>, seconds: f64) -> usize {
        self.set_highlight_target(record.map(|record| HighlightTarget { record, face: None, lod: None }), seconds)
    }

    /// Outline one face: the triangles made from the bytes start..end of index record
    /// `record` (a picked face), not the rest of its list.
    pub fn set_highlight_face(&mut self, record: u32, start: usize, end: usize, seconds: f64) -> usize {
        self.set_highlight_target(Some(HighlightTarget { record, face: Some((start, end)), lod: None }), seconds)
    }

    fn set_highlight_target(&mut self, target: Option<HighlightTarget>, seconds: f64) -> usize {
        self.highlight = None;
        self.highlight_bounds = None;
        let lod = self.current_lod();
        self.highlight_target = target.map(|t| HighlightTarget { lod, ..t });
        let (Some(t), Some(lod), Some(scene)) = (target, lod, self.scene.as_ref()) else { return 0 };
        let corners = scene.triangles_of_record(t.record, t.face, lod, &self.world(seconds));
        self.highlight_bounds = Bounds::of(corners.iter().copied());
        let positions: Vec<Vec3> = corners.iter().map(|&p| Vec3::from(p)).collect();
        let triangles = positions.len() / 3;
        self.highlight_count = triangles;
        if triangles > 0 {
            self.highlight = Some(Wireframe::new(&self.context, &positions, 2.0, HIGHLIGHT_COLOR));
        }
        triangles
    }

    /// Triangles outlined now (0: none, or the outlined record is not in the LOD on show).
    pub fn highlighted_triangles(&self) -> usize {
        if self.highlight.is_some() { self.highlight_count } else { 0 }
    }

    /// Which LOD shows the node that came from inspector record `record`.
    pub fn lod_index_of(&self, record: u32) -> Option<usize> {
        self.scene.as_ref()?.lod_of_record(record)
    }

    /// The bones of the scene's skeleton as posed at `seconds`, when the overlay is on; the
    /// bone of the outlined part in the highlight colour.
    fn skeleton_overlay(&self, seconds: f64, lod: Option<usize>) -> Option<Gm<GpuMesh, ColorMaterial>> {
        let scene = self.scene.as_ref().filter(|s| self.options.skeleton && !s.skeleton.is_empty())?;
        let world = scene.world(&scene.pose(seconds));
        let visible = scene.visible_in(lod.unwrap_or(0), &self.hidden_layers);
        let at = |n: u32| world.get(n as usize).map_or(GVec3::NAN, |m| m.transform_point3(GVec3::ZERO));
        let mut bones: Vec<skeleton::Bone> = scene
            .skeleton
            .iter()
            .filter(|&&(_, b)| visible.get(b as usize).copied().unwrap_or(false))
            .map(|&(a, b)| skeleton::Bone { from: at(a), to: at(b), picked: false })
            .collect();
        let shown: Vec<(u32, u32)> = scene.skeleton.iter().copied().filter(|&(_, b)| visible.get(b as usize).copied().unwrap_or(false)).collect();
        if let (Some(t), Some(centre)) = (self.highlight_target, self.highlight_bounds.map(|b| GVec3::from(b.center()))) {
            let picked = skeleton::picked_bone(&shown, &scene.nodes_drawing_record(t.record), |n| scene.nodes.get(n as usize).and_then(|n| n.parent), &bones, centre);
            if let Some(k) = picked {
                bones[k].picked = true;
            }
        }
        let mesh = skeleton::overlay(&bones, self.radius());
        if mesh.positions.is_empty() {
            return None;
        }
        let cpu = CpuMesh {
            positions: Positions::F32(mesh.positions.iter().map(|p| vec3(p.x, p.y, p.z)).collect()),
            colors: Some(mesh.colors.iter().map(|&[r, g, b, a]| Srgba::new(r, g, b, a)).collect()),
            ..Default::default()
        };
        Some(Gm::new(GpuMesh::new(&self.context, &cpu), ColorMaterial::default()))
    }

    /// Whether something on show moves with the clock, so frames must keep coming.
    pub fn animating(&self) -> bool {
        self.scene.as_ref().is_some_and(|s| s.clips.iter().any(|c| !c.tracks.is_empty()))
    }

    /// Draw one frame at `seconds` (the animation clock); returns the number of draw calls,
    /// or why some draws of the scene failed (they were skipped; the caller decides what
    /// becomes of the scene).
    pub fn render(&mut self, seconds: f64) -> Result<u32, String> {
        geometry::take_faults();
        let calls = self.draw(seconds);
        let faults = geometry::take_faults();
        if faults.is_empty() {
            Ok(calls)
        } else {
            Err(faults.join("; "))
        }
    }

    fn draw(&mut self, seconds: f64) -> u32 {
        let [r, g, b] = self.options.background.colors()[0].map(|c| c as f32 / 255.0);
        let lod = self.current_lod();
        self.shown_lod = lod;
        // The outline follows the LOD on show: made again for it (empty when the outlined
        // record is in another LOD).
        if let Some(t) = self.highlight_target.filter(|t| t.lod != lod) {
            self.set_highlight_target(Some(t), seconds);
        }
        let (light, ambient) = match self.options.lighting {
            Lighting::Sun => (material::LIGHT, 0.2),
            Lighting::Camera => (self.camera.position() - self.camera.target(), 0.3),
            Lighting::None => (material::LIGHT, 1.0),
        };
        let cull = if self.options.cull_back { Cull::Back } else { Cull::None };
        if let Some(i) = lod {
            self.ensure_lod(i);
            let (t0, before) = ((self.clock)(), self.upload_bytes);
            self.upload_some(i, UPLOAD_BUDGET);
            if self.upload_bytes != before {
                self.upload_ms += (self.clock)() - t0;
            }
            let animating = self.animating();
            let (Some(scene), Some(Some(l))) = (self.scene.as_ref(), self.lods.get_mut(i)) else { return 0 };
            let offsets = scene.uv_offsets(seconds);
            let glows = scene.glows(seconds);
            let world = if animating { scene.world(&scene.pose(seconds)) } else { Vec::new() };
            let uv = |m: Option<u32>| m.and_then(|m| offsets.get(m as usize)).map(|&[u, v]| Mat3::from_translation(vec2(u, v)));
            let glow = |m: Option<u32>| m.and_then(|m| glows.get(m as usize)).copied().unwrap_or(0.0);
            let update = |m: &mut RetroMaterial, animated: Option<u32>| {
                m.cull = cull;
                m.light = light;
                m.ambient = ambient;
                m.glow = glow(animated);
                if let (Some(t), Some(tex)) = (uv(animated), m.texture.as_mut()) {
                    tex.transformation = t;
                }
            };
            for d in &mut l.merged {
                update(&mut d.gm.material, d.animated_material);
                if let Some(m) = d.semi.as_mut() {
                    update(m, d.animated_material);
                }
            }
            for d in &mut l.instanced {
                update(&mut d.gm.material, d.animated_material);
                if let Some(m) = d.semi.as_mut() {
                    update(m, d.animated_material);
                }
                if d.animated && !world.is_empty() {
                    let transformations: Vec<Mat4> = d.nodes.iter().map(|&n| to_mat4(world[n as usize])).collect();
                    d.gm.geometry.set_instances(&transformations);
                }
            }
            if self.options.wireframe && l.wire.is_none() {
                let w = if world.is_empty() { scene.world(&scene.pose(seconds)) } else { world };
                let visible = scene.visible_in(i, &self.hidden_layers);
                let mut positions: Vec<Vec3> = Vec::new();
                for (n, node) in scene.nodes.iter().enumerate().filter(|(n, _)| visible[*n]) {
                    for p in node.mesh.iter().flat_map(|&m| &scene.meshes[m as usize].primitives) {
                        positions.extend(p.indices.iter().filter_map(|&k| p.positions.get(k as usize)).map(|v| Vec3::from(w[n].transform_point3(GVec3::from(*v)).to_array())));
                    }
                }
                l.wire = Some(Wireframe::new(&self.context, &positions, 1.0, WIRE_COLOR));
            }
        }
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        let mut calls = 0;
        if self.options.background == Background::Checker {
            let (w, h) = (self.width, self.height);
            let checker = self.checker.get_or_insert_with(|| checker_square(&self.context));
            // Squares of CHECKER_PX device pixels whatever the view's size.
            if let Some(t) = checker.material.texture.as_mut() {
                t.transformation = Mat3::from_nonuniform_scale(w as f32 / (2.0 * CHECKER_PX), h as f32 / (2.0 * CHECKER_PX));
            }
            let flat = Camera::new_orthographic(Viewport::new_at_origo(w, h), vec3(0.0, 0.0, 1.0), vec3(0.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), 2.0, 0.1, 10.0);
            checker.set_transformation(Mat4::from_nonuniform_scale(w as f32 / h as f32, 1.0, 1.0));
            target.render(&flat, [&*checker], &[]);
            target.clear(ClearState::depth(1.0));
            calls += 1;
        }
        if let Some(l) = lod.and_then(|i| self.lods[i].as_ref()) {
            for d in &l.merged {
                target.render(&self.camera, [&d.gm], &[]);
                calls += 1;
            }
            for d in &l.instanced {
                target.render(&self.camera, [&d.gm], &[]);
                calls += 1;
            }
            // Semi-transparent texels over everything opaque.
            for (semi, geometry) in l.merged.iter().filter_map(|d| Some((d.semi.as_ref()?, &d.gm.geometry as &dyn Geometry))).chain(l.instanced.iter().filter_map(|d| Some((d.semi.as_ref()?, &d.gm.geometry as &dyn Geometry)))) {
                target.render_with_material(semi, &self.camera, [geometry], &[]);
                calls += 1;
            }
            if let (true, Some(wire)) = (self.options.wireframe, &l.wire) {
                target.render(&self.camera, [wire], &[]);
                calls += 1;
            }
            if let Some(m) = &l.markers {
                target.render(&self.camera, [m], &[]);
                calls += 1;
            }
        }
        if let Some(h) = &self.highlight {
            target.render(&self.camera, [h], &[]);
            calls += 1;
        }
        if let Some(bones) = self.skeleton_overlay(seconds, lod) {
            // Over everything: the bones run inside the model.
            target.clear_partially(ScissorBox::new_at_origo(self.width, self.height), ClearState::depth(1.0));
            target.render(&self.camera, [&bones], &[]);
            calls += 1;
        }
        self.draw_calls = calls;
        calls
    }

    /// Read back the frame just drawn (bottom row first).
    pub fn read_pixels(&mut self) -> Vec<[u8; 4]> {
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.read_color::<[u8; 4]>()
    }

    /// Triangles of the LOD drawn in the last frame, every instance counted.
    pub fn triangles(&self) -> usize {
        self.shown().map_or(0, |l| l.triangles)
    }
    /// Mesh placements drawn in the last frame.
    pub fn instances(&self) -> usize {
        self.shown().map_or(0, |l| l.instances)
    }
    fn shown(&self) -> Option<&GpuLod> {
        self.shown_lod.and_then(|i| self.lods.get(i)).and_then(Option::as_ref)
    }
    pub fn shown_lod(&self) -> Option<usize> {
        self.shown_lod
    }
    pub fn draw_calls(&self) -> u32 {
        self.draw_calls
    }
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// The material a primitive is drawn with and, for a semi-transparent one, the material of
/// its second (blending) pass.
fn retro_materials(material: Option<&crate::scene::Material>, texture: Option<Texture2DRef>, normals: bool) -> (RetroMaterial, Option<RetroMaterial>) {
    let cutoff = material.and_then(|m| m.alpha_cutoff).unwrap_or(0.0);
    let blend = material.and_then(|m| m.blend).filter(|_| texture.is_some());
    let make = |pass| RetroMaterial { texture: texture.clone(), normals, cull: Cull::None, glow: 0.0, alpha_cutoff: cutoff, pass, light: material::LIGHT, ambient: 0.2 };
    match blend {
        Some(rule) => (make(Pass::OpaqueTexels), Some(make(Pass::SemiTexels(rule)))),
        None => (make(Pass::All), None),
    }
}

/// A square over the whole view (under an orthographic camera of height 2, scaled to the
/// aspect) with the 2 × 2 checker texture repeated across it.
fn checker_square(context: &Context) -> Gm<GpuMesh, ColorMaterial> {
    let [a, b] = CHECKER.map(|[r, g, b]| [r, g, b, 255]);
    let mut data = TextureData::RgbaU8(vec![a, b, b, a]);
    data.to_linear_srgb();
    let cpu = CpuTexture {
        name: String::new(),
        data,
        width: 2,
        height: 2,
        min_filter: Interpolation::Nearest,
        mag_filter: Interpolation::Nearest,
        mipmap: None,
        wrap_s: Wrapping::Repeat,
        wrap_t: Wrapping::Repeat,
    };
    let material = ColorMaterial { texture: Some(Texture2DRef::from_cpu_texture(context, &cpu)), ..Default::default() };
    Gm::new(GpuMesh::new(context, &CpuMesh::square()), material)
}

/// The largest texture side uploaded; WebGL2 promises 2,048 and SwiftShader takes 8,192.
const MAX_TEXTURE_SIDE: u32 = 8192;

/// Upload texels as sRGB-decoded RGBA: three-d samples textures as linear and encodes the
/// output as sRGB, so the file's colours come out as they are stored.
fn upload_texture(context: &Context, t: &crate::scene::Texture) -> Texture2DRef {
    let blank = crate::texture::Texels { width: 1, height: 1, rgba: Arc::new(vec![255; 4]) };
    let fits = |x: &crate::texture::Texels| x.width > 0 && x.height > 0 && x.width <= MAX_TEXTURE_SIDE && x.height <= MAX_TEXTURE_SIDE && x.rgba.len() == x.width as usize * x.height as usize * 4;
    // A picture the GPU cannot take is drawn white (times the material's colour), not failed.
    let texels = if fits(&t.texels) { &t.texels } else { &blank };
    let mut data = TextureData::RgbaU8(texels.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect());
    data.to_linear_srgb();
    let cpu = CpuTexture {
        name: String::new(),
        data,
        width: texels.width,
        height: texels.height,
        // Old games' texels are big on screen: keep them crisp. Emulated console VRAM is
        // sampled texel by texel far away too (its cut-out texels would smear in mipmaps).
        min_filter: if t.nearest { Interpolation::Nearest } else { Interpolation::Linear },
        mag_filter: Interpolation::Nearest,
        mipmap: (!t.nearest).then(Mipmap::default),
        wrap_s: Wrapping::Repeat,
        wrap_t: Wrapping::Repeat,
    };
    Texture2DRef::from_cpu_texture(context, &cpu)
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

/// A red pyramid at every dropzone, its apex along the dropzone's +Z.
fn add_pyramids(cpu: &mut CpuMesh, at: &[glam::Mat4], size: f32) {
    let Positions::F32(positions) = &mut cpu.positions else { return };
    let colors = cpu.colors.get_or_insert_with(Vec::new);
    let [r, g, b, a] = DROPZONE_COLOR;
    let (s, h) = (size, size * 2.0);
    let base = [GVec3::new(-s, -s, 0.0), GVec3::new(s, -s, 0.0), GVec3::new(s, s, 0.0), GVec3::new(-s, s, 0.0)].map(|v| v + GVec3::Y * s);
    let apex = GVec3::new(0.0, s, h);
    for m in at {
        let p = |v: GVec3| {
            let w = m.transform_point3(v);
            vec3(w.x, w.y, w.z)
        };
        for k in 0..4 {
            positions.extend([p(base[k]), p(base[(k + 1) % 4]), p(apex)]);
        }
        positions.extend([p(base[0]), p(base[2]), p(base[1]), p(base[0]), p(base[3]), p(base[2])]);
        colors.extend(std::iter::repeat_n(Srgba::new(r, g, b, a), 18));
    }
}

/// One draw's GPU buffers: the primitives placed by their world matrices, tinted by their
/// materials' base colours (see `SceneGeometry::new`).
fn batch_geometry(context: &Context, scene: &Scene, items: &[(&crate::scene::Primitive, glam::Mat4)], textured: bool) -> Option<SceneGeometry> {
    let tint_of = |p: &crate::scene::Primitive| scene.shading(p).base_color.map(|c| c.clamp(0.0, 1.0));
    let parts: Vec<VertexArrays> = items
        .iter()
        .map(|&(p, model)| VertexArrays {
            positions: &p.positions,
            normals: p.normals.as_deref(),
            colors: p.colors.as_deref(),
            // Textured batches hold only primitives with a UV per vertex (`Scene::texture_of`).
            uvs: if textured { p.uvs.as_deref() } else { None },
            indices: &p.indices,
            model,
            tint: tint_of(p),
        })
        .collect();
    SceneGeometry::new(context, &parts)
}
