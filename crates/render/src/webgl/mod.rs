//! The renderer on WebGL2, through three-d (the crate's docs say how it draws).

// The neutral types drawn, under the names this code has always used for them.
use relicview_model::{scene, texture};
use relicview_view as view;

mod capture;
mod game_camera;
mod geometry;
mod material;
mod stage;

use crate::packing::VertexArrays;
use crate::webgl::scene::{Bounds, RecordBytes, Scene};
pub use crate::webgl::view::{
    AxisView, Background, CameraMode, CameraState, ViewOptions, ViewpointAt, BACKGROUND, CHECKER,
    CHECKER_PX,
};
use crate::webgl::view::{CompareView, Side};
use geometry::SceneGeometry;
use glam::Vec3 as GVec3;
pub use stage::Hit;
use stage::{lighting, retro_materials, upload_texture, HighlightTarget, Stage, StageFrame};
use std::sync::Arc;
use three_d::{
    degrees, vec3, Camera, ClearState, ColorMaterial, Context, CpuMesh, CpuTexture, Cull, Gm,
    InnerSpace, Interpolation, Mat3, Mat4, Mesh as GpuMesh, RenderTarget, ScissorBox, Srgba,
    Texture2DRef, TextureData, Vec3, Viewport, Wrapping,
};

const FOV_DEGREES: f32 = 45.0;

/// Something drawn with a flat camera (a picture on the view).
type Flat = Gm<GpuMesh, ColorMaterial>;
/// What the cards as drawn were made for: the view's aspect, the camera's near and far
/// planes, and the layers of the picture hidden.
type CardsKey = ([f32; 3], Vec<u32>);

/// Vertices uploaded per frame at most (but always one batch): a large world appears batch
/// by batch, one mesh after another, and no frame waits for the whole upload.
const UPLOAD_BUDGET: usize = 150_000;
/// How high above a viewpoint's node the eye is (a pod's cockpit over its dropzone).
pub const EYE_HEIGHT: f32 = 2.0;

pub struct Renderer {
    context: Context,
    camera: Camera,
    /// The scene on show (A) and, comparing, B and the difference view, by `Side::index`.
    stages: [Option<Stage>; 3],
    /// How a comparison is drawn; None while one file is on show.
    compare: Option<CompareView>,
    /// The sides the last frame drew.
    drawn: Vec<Side>,
    /// A full-view square textured with the checker, drawn first when it is the background.
    checker: Option<Gm<GpuMesh, ColorMaterial>>,
    pub options: ViewOptions,
    width: u32,
    height: u32,
    /// Draw calls of the last frame.
    draw_calls: u32,
    pub camera_mode: CameraMode,
    clock: fn() -> f64,
    /// The points measured between (none, one, or two), and their marks as drawn.
    measure: Vec<[f32; 3]>,
    measure_marks: Option<Gm<GpuMesh, ColorMaterial>>,
    /// The ground grid as drawn, for the bounds and step it was made for.
    grid: Option<(Bounds, f32, Gm<GpuMesh, ColorMaterial>)>,
    /// The picture behind the scene through its game camera, uploaded once per scene and
    /// set of its layers hidden (the key): the pictures drawn, in order (none: nothing).
    backdrop: Option<(Vec<u32>, Vec<three_d::Texture2DRef>)>,
    /// The backdrop's squares as drawn, for the rectangle they were made for.
    backdrop_quad: Option<([f32; 4], Vec<Flat>)>,
    /// The picture's pieces at depths among the models, for the view's aspect, the
    /// camera's near and far planes and the picture's layers hidden they were made for.
    cards: Option<(CardsKey, Option<Flat>)>,
}

const MEASURE_COLOR: Srgba = Srgba {
    r: 80,
    g: 220,
    b: 255,
    a: 255,
};
const GRID_COLOR: Srgba = Srgba {
    r: 110,
    g: 118,
    b: 130,
    a: 255,
};

fn to_mat4(m: glam::Mat4) -> Mat4 {
    Mat4::from(m.to_cols_array_2d())
}

fn union(a: Option<Bounds>, b: Option<Bounds>) -> Option<Bounds> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Bounds {
            min: GVec3::from(a.min).min(GVec3::from(b.min)).into(),
            max: GVec3::from(a.max).max(GVec3::from(b.max)).into(),
        }),
        (a, b) => a.or(b),
    }
}

impl Renderer {
    /// `clock` gives milliseconds (the page's clock), for the upload timing.
    pub fn new(
        gl: three_d::context::Context,
        width: u32,
        height: u32,
        clock: fn() -> f64,
    ) -> Result<Renderer, String> {
        // three-d takes its GL context in an Arc; a WebGL context lives on the page's one
        // thread.
        #[allow(clippy::arc_with_non_send_sync)]
        let gl = Arc::new(gl);
        let context = Context::from_gl_context(gl).map_err(|e| e.to_string())?;
        let viewport = Viewport::new_at_origo(width.max(1), height.max(1));
        let camera = Camera::new_perspective(
            viewport,
            vec3(3.0, 2.0, 4.0),
            vec3(0.0, 0.0, 0.0),
            vec3(0.0, 1.0, 0.0),
            degrees(FOV_DEGREES),
            0.01,
            1000.0,
        );
        Ok(Renderer {
            context,
            camera,
            stages: [None, None, None],
            compare: None,
            drawn: Vec::new(),
            checker: None,
            options: ViewOptions::default(),
            width: width.max(1),
            height: height.max(1),
            draw_calls: 0,
            camera_mode: CameraMode::Orbit,
            clock,
            measure: Vec::new(),
            measure_marks: None,
            grid: None,
            backdrop: None,
            backdrop_quad: None,
            cards: None,
        })
    }

    pub fn camera_state(&self) -> CameraState {
        let (p, t) = (self.camera.position(), self.camera.target());
        CameraState {
            position: [p.x, p.y, p.z],
            target: [t.x, t.y, t.z],
            fov: FOV_DEGREES,
        }
    }

    /// Put the camera where a permalink says (a degenerate or non-finite view is ignored).
    pub fn set_camera_state(&mut self, state: CameraState) -> bool {
        let (p, t) = (Vec3::from(state.position), Vec3::from(state.target));
        let finite = state
            .position
            .iter()
            .chain(&state.target)
            .all(|x| x.is_finite());
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
        self.camera
            .set_viewport(Viewport::new_at_origo(self.width, self.height));
        if self.camera_mode == CameraMode::Game {
            self.update_projection();
        }
    }

    /// Orbit, fly, or look through the scene's game camera (false, and no change, where the
    /// scene has none).
    pub fn set_camera_mode(&mut self, mode: CameraMode) -> bool {
        if mode == CameraMode::Game {
            let Some((eye, target, up)) = self.game_camera().map(game_camera::view) else {
                return false;
            };
            self.camera_mode = mode;
            self.camera.set_view(eye, target, up);
        } else {
            self.camera_mode = mode;
        }
        self.update_projection();
        true
    }

    /// The game camera of the scene on show (not while comparing).
    pub fn game_camera(&self) -> Option<&crate::webgl::scene::GameCamera> {
        if self.compare.is_some() {
            return None;
        }
        game_camera::of(&self.main()?.scene)
    }

    /// A move of the camera by the person leaves the game's camera for orbiting from there.
    fn leave_game_camera(&mut self) {
        if self.camera_mode == CameraMode::Game {
            self.camera_mode = CameraMode::Orbit;
            // The target at the middle of the scene's depth, so orbiting turns about it.
            let (eye, ahead) = (self.camera.position(), self.camera.view_direction());
            let target = eye + ahead.normalize() * self.radius();
            let up = self.camera.up();
            self.camera.set_view(eye, target, up);
            self.update_projection();
        }
    }

    /// Replace the drawn scene (None clears) and frame the camera on its first LOD.
    pub fn set_scene(&mut self, scene: Option<Scene>) {
        self.set_measure(Vec::new());
        self.grid = None;
        self.stages = [scene.map(|s| Stage::new(&self.context, s)), None, None];
        self.compare = None;
        self.camera_mode = CameraMode::Orbit;
        (self.backdrop, self.backdrop_quad, self.cards) = (None, None, None);
        self.frame();
    }

    /// Show two files compared, and their difference view where there is one, under one
    /// camera framed on both.
    pub fn set_comparison(
        &mut self,
        a: Option<Scene>,
        b: Option<Scene>,
        difference: Option<Scene>,
    ) {
        self.set_measure(Vec::new());
        self.grid = None;
        let stage = |s: Option<Scene>| s.map(|s| Stage::new(&self.context, s));
        self.stages = [stage(a), stage(b), stage(difference)];
        self.compare = Some(CompareView::default());
        self.camera_mode = CameraMode::Orbit;
        (self.backdrop, self.backdrop_quad, self.cards) = (None, None, None);
        self.frame();
    }

    pub fn comparing(&self) -> Option<CompareView> {
        self.compare
    }

    /// How the comparison is drawn; false when no comparison is on show.
    pub fn set_compare_view(&mut self, view: CompareView) -> bool {
        let Some(c) = self.compare.as_mut() else {
            return false;
        };
        *c = view;
        true
    }

    fn stage(&self, side: Side) -> Option<&Stage> {
        self.stages[side.index()].as_ref()
    }

    fn main(&self) -> Option<&Stage> {
        self.stages[0].as_ref()
    }

    /// The scene on show (A, when comparing).
    pub fn scene(&self) -> Option<&Scene> {
        self.main().map(|s| &s.scene)
    }

    /// A side's scene, when comparing (A's alone otherwise).
    pub fn scene_of(&self, side: Side) -> Option<&Scene> {
        self.stage(side).map(|s| &s.scene)
    }

    fn bounds(&self) -> Option<Bounds> {
        self.stages
            .iter()
            .flatten()
            .map(|s| s.bounds)
            .fold(None, union)
    }

    /// Look at the scene's bounds from above and in front, far enough to see all of it.
    pub fn frame(&mut self) {
        let Some(b) = self.bounds() else { return };
        self.frame_bounds(b, vec3(0.55, 0.45, 0.7).normalize(), vec3(0.0, 1.0, 0.0));
    }

    /// Look at `b` with the eye in direction `dir` from it, from far enough that its sphere
    /// fits the narrower of the view's two angles: a tall, narrow view (a phone held
    /// upright) fits the model across its width.
    fn frame_bounds(&mut self, b: Bounds, dir: Vec3, up: Vec3) {
        // Framing moves the camera: it is no longer the game's.
        if self.camera_mode == CameraMode::Game {
            self.camera_mode = CameraMode::Orbit;
        }
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

    /// Frame the outlined geometry (the selection, on every side outlined), looking from
    /// where the camera is; false when nothing is outlined.
    pub fn frame_highlight(&mut self) -> bool {
        let Some(b) = self
            .stages
            .iter()
            .flatten()
            .map(|s| s.highlight_bounds)
            .fold(None, union)
        else {
            return false;
        };
        let back = self.camera.position() - self.camera.target();
        let dir = if back.magnitude() > 1e-6 {
            back.normalize()
        } else {
            vec3(0.55, 0.45, 0.7).normalize()
        };
        // The screen's up stays (looking straight down, world up would be degenerate).
        let up = self.camera.up();
        self.frame_bounds(b, dir, up);
        true
    }

    fn radius(&self) -> f32 {
        self.bounds().map_or(1.0, |b| b.radius().max(1e-3))
    }

    fn distance(&self) -> f32 {
        (self.camera.position() - self.camera.target()).magnitude()
    }

    fn update_projection(&mut self) {
        let (d, r) = (self.distance(), self.radius());
        if self.camera_mode == CameraMode::Game {
            if let Some(fov) = self
                .game_camera()
                .map(|c| view::game_view::fov_degrees(c, self.width as f32 / self.height as f32))
            {
                // From the eye to past the far side of the scene, wherever the eye is.
                let far = (self.camera.position()
                    - self.bounds().map_or(Vec3::new(0.0, 0.0, 0.0), |b| {
                        vec3(b.center().x, b.center().y, b.center().z)
                    }))
                .magnitude()
                    + r * 2.0;
                // The picture's deepest piece too.
                let deepest = self
                    .game_camera()
                    .map_or(0.0, |c| c.cards.iter().map(|k| k.depth).fold(0.0, f32::max));
                let far = far.max(deepest * 1.05);
                self.camera
                    .set_perspective_projection(degrees(fov), far * 1e-4, far);
                return;
            }
        }
        self.camera.set_perspective_projection(
            degrees(FOV_DEGREES),
            (d * 0.01).min(r * 0.1),
            d * 10.0 + r * 4.0,
        );
    }

    /// Orbit around the target by a drag of (dx, dy) CSS pixels; flying, look around.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.leave_game_camera();
        if self.camera_mode == CameraMode::Fly {
            self.look(-dx * 0.004, -dy * 0.004);
            return;
        }
        let target = self.camera.target();
        self.camera
            .rotate_around_with_fixed_up(target, -dx * 0.01, dy * 0.01);
    }

    /// Turn the view by `yaw` about the world's up and `pitch` about the view's right
    /// (radians), the eye staying where it is; the pitch stops short of straight up or down.
    pub fn look(&mut self, yaw: f32, pitch: f32) {
        self.leave_game_camera();
        let p = self.camera.position();
        let eye = GVec3::new(p.x, p.y, p.z);
        let dir = self.camera.view_direction();
        let dir = GVec3::new(dir.x, dir.y, dir.z).normalize_or(GVec3::NEG_Z);
        let horizontal = dir.with_y(0.0).length();
        let (mut heading, mut elevation) = (dir.x.atan2(dir.z), dir.y.atan2(horizontal));
        heading += yaw;
        elevation = (elevation + pitch).clamp(-1.5, 1.5);
        let d = GVec3::new(
            elevation.cos() * heading.sin(),
            elevation.sin(),
            elevation.cos() * heading.cos(),
        );
        // The target sits at the old focus distance, so switching back to orbiting feels right.
        let t = eye + d * self.distance().max(1e-3);
        self.camera
            .set_view(p, vec3(t.x, t.y, t.z), vec3(0.0, 1.0, 0.0));
        self.update_projection();
    }

    /// Fly by (forward, right, up) world units along the view, its right and the world's up.
    pub fn fly(&mut self, forward: f32, right: f32, up: f32) {
        self.leave_game_camera();
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
        let (p, f, u) = (
            GVec3::from(v.position),
            GVec3::from(v.forward),
            GVec3::from(v.up),
        );
        let eye = p + u * EYE_HEIGHT;
        let target = eye + f * self.radius().max(1.0) * 0.5;
        self.camera.set_view(
            vec3(eye.x, eye.y, eye.z),
            vec3(target.x, target.y, target.z),
            vec3(0.0, 1.0, 0.0),
        );
        self.update_projection();
    }

    /// The scene's viewpoints where they stand at `seconds`.
    pub fn viewpoints(&self, seconds: f64) -> Vec<ViewpointAt> {
        let Some(stage) = self.main() else {
            return Vec::new();
        };
        let scene = &stage.scene;
        let world = stage.world(seconds);
        scene
            .viewpoints
            .iter()
            .filter_map(|v| {
                let m = world.get(v.node as usize)?;
                Some(ViewpointAt {
                    name: v.name.clone(),
                    position: m.transform_point3(GVec3::ZERO).to_array(),
                    forward: m
                        .transform_vector3(GVec3::Z)
                        .normalize_or(GVec3::Z)
                        .to_array(),
                    up: m
                        .transform_vector3(GVec3::Y)
                        .normalize_or(GVec3::Y)
                        .to_array(),
                })
            })
            .collect()
    }

    /// Look at the scene straight along an axis: "front" (from +Z), "side" (from +X) or
    /// "top" (from +Y), framed on its bounds.
    pub fn axis_view(&mut self, axis: AxisView) -> bool {
        let Some(b) = self.bounds() else { return false };
        let ([dx, dy, dz], [ux, uy, uz]) = (axis.direction(), axis.up());
        self.frame_bounds(b, vec3(dx, dy, dz), vec3(ux, uy, uz));
        self.camera_mode = CameraMode::Orbit;
        true
    }

    /// Show option `k` of the scene's choice (its layers, its clip) on every side that has
    /// it; false when the scene on show has none.
    pub fn choose(&mut self, k: usize) -> bool {
        let lod = self.current_lod().unwrap_or(0);
        let mut chosen = Vec::new();
        for stage in self.stages.iter_mut().flatten() {
            chosen.push(stage.choose(k, lod));
        }
        chosen.first().copied().unwrap_or(false)
    }
    pub fn choice(&self) -> Option<usize> {
        self.main().and_then(|s| s.choice)
    }

    /// Hide the layers named in `names` on every side shown, show the others.
    pub fn set_hidden_layers_named(&mut self, names: &[String]) {
        for stage in self.stages.iter_mut().flatten() {
            let own = crate::webgl::view::layers::layers_named(&stage.scene, names);
            stage.set_hidden_layers(own);
        }
    }
    /// The layers hidden on `side` (A: the scene on show).
    pub fn hidden_layers_of(&self, side: Side) -> &[u32] {
        self.stage(side).map_or(&[], |s| &s.hidden_layers)
    }
    pub fn hidden_layers(&self) -> &[u32] {
        self.hidden_layers_of(Side::A)
    }

    /// The side a frame draws first (A, B, or the difference view): whose layers, LODs and
    /// choice the page's controls show.
    pub fn primary(&self) -> Side {
        self.passes().first().map_or(Side::A, |p| p.side)
    }

    /// Batches uploaded of the LODs drawn in the last frame, and in all.
    pub fn upload_progress(&self) -> (usize, usize) {
        self.drawn_stages()
            .map(|s| s.upload_progress(s.shown_lod))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    }

    /// The first draw the GPU would not take, of what is on show.
    pub fn gpu_error(&self) -> Option<&str> {
        self.drawn_stages().find_map(|s| s.gpu_error.as_deref())
    }

    fn drawn_stages(&self) -> impl Iterator<Item = &Stage> + '_ {
        self.drawn.iter().filter_map(|&side| self.stage(side))
    }

    /// Move camera and target across the view by a drag of (dx, dy) CSS pixels.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        self.leave_game_camera();
        // World units per CSS pixel at the target's depth.
        let scale =
            2.0 * self.distance() * (FOV_DEGREES.to_radians() * 0.5).tan() / self.height as f32;
        let right = self.camera.right_direction();
        let up = self.camera.up_orthogonal();
        let change: Vec3 = right * (-dx * scale) + up * (dy * scale);
        self.camera.translate(change);
    }

    /// Zoom exponentially: positive `steps` move closer (one wheel notch is about 1). The
    /// far limit is generous so that distance-switched LODs can be seen to switch.
    pub fn zoom(&mut self, steps: f32) {
        self.leave_game_camera();
        let distance = self.distance();
        let factor = (-steps * 0.15).exp();
        let r = self.radius();
        let (target, far) = (self.camera.target(), self.far_limit());
        self.camera
            .zoom_towards(target, distance - distance * factor, r * 0.02, far);
        self.update_projection();
    }

    /// How far the camera may back away: generous, so that distance-switched LODs can be
    /// seen to switch.
    fn far_limit(&self) -> f32 {
        let r = self.radius();
        self.stages
            .iter()
            .flatten()
            .flat_map(|s| &s.scene.lods)
            .filter_map(|l| l.distance.map(|d| d[1]))
            .fold(r * 200.0, f32::max)
            * 1.2
    }

    /// Zoom towards the point of the surface under canvas pixel (x, y) (top-left origin):
    /// camera and target both move towards it, so it stays under the cursor, and the eye
    /// only ever covers part of the way there, so it never passes the surface. With nothing
    /// under the cursor (or flying) this is [`Self::zoom`].
    pub fn zoom_at(&mut self, steps: f32, x: f32, y: f32, seconds: f64) {
        self.leave_game_camera();
        let hit = (self.camera_mode == CameraMode::Orbit)
            .then(|| self.pick(x, y, seconds))
            .flatten();
        let Some((_, hit)) = hit.filter(|(_, h)| h.distance.is_finite() && h.distance > 0.0) else {
            return self.zoom(steps);
        };
        let pixel = (x, self.height as f32 - y);
        let (eye, ray) = (
            self.camera.position(),
            self.camera.view_direction_at_pixel(pixel),
        );
        let point = eye + ray * hit.distance;
        let factor = (-steps * 0.15).exp();
        // Not nearer the surface than a thousandth of the model, nor further than the limit.
        let near = self.radius() * 1e-3;
        let factor = factor
            .max(near / hit.distance)
            .min(self.far_limit() / self.distance().max(1e-6));
        let target = self.camera.target();
        let (eye2, target2) = (
            point + (eye - point) * factor,
            point + (target - point) * factor,
        );
        let up = self.camera.up();
        self.camera.set_view(eye2, target2, up);
        self.update_projection();
    }

    /// How many LODs the scene has (0 with nothing open; comparing, the most of either file).
    pub fn lod_count(&self) -> usize {
        self.stages
            .iter()
            .flatten()
            .map(Stage::lod_count)
            .max()
            .unwrap_or(0)
    }

    /// The LOD the options select at the current camera distance.
    pub fn current_lod(&self) -> Option<usize> {
        self.main()
            .map(|s| s.current_lod(&self.options, self.camera.position()))
    }

    /// Compile the shader programs of `variants` (normals, vertex colours, and the texture's
    /// alpha cut-off: none untextured, 0 for a texture whose every texel is drawn) by drawing
    /// one triangle of each outside the view, so that the first frame of a file does not wait
    /// for them. Leaves the frame cleared to the background.
    pub fn warm_up(&mut self, variants: &[(bool, bool, Option<f32>)]) {
        let texture = upload_texture(
            &self.context,
            &crate::webgl::scene::Texture {
                name: None,
                texels: crate::webgl::texture::Texels {
                    width: 1,
                    height: 1,
                    rgba: std::sync::Arc::new(vec![255; 4]),
                },
                file: None,
                nearest: true,
                stand_in: false,
            },
        );
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        // A small triangle in front of the camera, cleared away after: a software rasteriser
        // (SwiftShader) builds its setup and pixel routines only for triangles that reach the
        // screen, so one behind the camera would leave that work to the first file's frame.
        let (centre, eye) = (self.camera.target(), self.camera.position());
        let size = (centre - eye).magnitude() * 0.02;
        let (right, up) = (
            self.camera.right_direction() * size,
            self.camera.up_orthogonal() * size,
        );
        let corner = |v: Vec3| [v.x, v.y, v.z];
        let positions = [
            corner(centre - right - up),
            corner(centre + right - up),
            corner(centre + up),
        ];
        let (normals, colors, uvs) = (
            [[0.0f32, 1.0, 0.0]; 3],
            [[255u8; 4]; 3],
            [[0.0f32; 2], [1.0, 0.0], [0.5, 1.0]],
        );
        for &(with_normals, with_colors, alpha_cutoff) in variants {
            let arrays = VertexArrays {
                positions: &positions,
                normals: with_normals.then_some(&normals[..]),
                colors: with_colors.then_some(&colors[..]),
                uvs: alpha_cutoff.map(|_| &uvs[..]),
                indices: &[0, 1, 2],
                model: glam::Mat4::IDENTITY,
                tint: [1.0; 4],
            };
            let Ok(Some(geometry)) = SceneGeometry::new(&self.context, &[arrays]) else {
                continue;
            };
            let material = crate::webgl::scene::Material {
                alpha_cutoff: alpha_cutoff.filter(|&c| c > 0.0),
                ..Default::default()
            };
            let (material, _) = retro_materials(
                Some(&material),
                alpha_cutoff.map(|_| texture.clone()),
                geometry.varyings(),
            );
            target.render(&self.camera, [&Gm::new(geometry, material)], &[]);
        }
        let [r, g, b] = BACKGROUND.map(|c| c as f32 / 255.0);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
    }

    /// Bytes of vertex and index data sent to the GPU for the scenes on show so far.
    pub fn upload_bytes(&self) -> usize {
        self.stages.iter().flatten().map(|s| s.upload_bytes).sum()
    }

    /// Milliseconds spent uploading batches of the scenes on show so far.
    pub fn upload_ms(&self) -> f64 {
        self.stages.iter().flatten().map(|s| s.upload_ms).sum()
    }

    /// Whether a LOD drawn in the last frame still has batches to upload (frames must keep
    /// coming).
    pub fn uploading(&self) -> bool {
        self.drawn_stages().any(|s| s.uploading(s.shown_lod))
    }

    /// The sides a frame draws and how.
    fn passes(&self) -> Vec<crate::webgl::view::ComparePass> {
        match self.compare {
            Some(c) => c.passes(self.width, self.stages[Side::Difference.index()].is_some()),
            None => vec![crate::webgl::view::ComparePass {
                side: Side::A,
                ghost: false,
                columns: (0, self.width),
            }],
        }
    }

    /// What is under the pixel (x, y) of the canvas, top-left origin, in canvas pixels, and
    /// the side it belongs to: comparing, the nearest hit among the sides drawn there.
    pub fn pick(&self, x: f32, y: f32, seconds: f64) -> Option<(Side, Hit)> {
        let pixel = (x, self.height as f32 - y);
        let o = self.camera.position_at_pixel(pixel);
        let d = self.camera.view_direction_at_pixel(pixel);
        let (o, d) = (GVec3::new(o.x, o.y, o.z), GVec3::new(d.x, d.y, d.z));
        let sides = match self.compare {
            Some(c) => c.pickable(
                x,
                self.width,
                self.stages[Side::Difference.index()].is_some(),
            ),
            None => vec![Side::A],
        };
        let eye = self.camera.position();
        sides
            .into_iter()
            .filter_map(|side| {
                let stage = self.stage(side)?;
                Some((
                    side,
                    stage.pick(o, d, stage.current_lod(&self.options, eye), seconds)?,
                ))
            })
            .min_by(|a, b| a.1.distance.total_cmp(&b.1.distance))
    }

    /// Outline what came from the record at `record` (its bytes) on `side` in the LOD on
    /// show, or with a face (bytes start..end) only that face; None clears. Returns how many
    /// triangles are outlined.
    pub fn set_highlight_on(
        &mut self,
        side: Side,
        target: Option<(RecordBytes, Option<(usize, usize)>)>,
        seconds: f64,
    ) -> usize {
        let eye = self.camera.position();
        let options = self.options;
        let Some(stage) = self.stages[side.index()].as_mut() else {
            return 0;
        };
        let lod = stage.current_lod(&options, eye);
        stage.set_highlight(
            &self.context,
            target.map(|(record, face)| HighlightTarget {
                record: Some(record),
                face,
                zone: None,
                lod: None,
            }),
            Some(lod),
            seconds,
        )
    }

    /// Outline the parts of damage zone `zone` (a layer) of the scene on show in the LOD on
    /// show; None clears. Returns how many triangles are outlined.
    pub fn set_zone_highlight(&mut self, zone: Option<u32>, seconds: f64) -> usize {
        let eye = self.camera.position();
        let options = self.options;
        let Some(stage) = self.stages[Side::A.index()].as_mut() else {
            return 0;
        };
        let lod = stage.current_lod(&options, eye);
        // No record of its own: a zone's outline is its parts' triangles.
        stage.set_highlight(
            &self.context,
            zone.map(|z| HighlightTarget {
                record: None,
                face: None,
                zone: Some(z),
                lod: None,
            }),
            Some(lod),
            seconds,
        )
    }

    /// Outline what came from the record at `record` in the LOD on show; None clears.
    /// Returns how many triangles are outlined.
    pub fn set_highlight(&mut self, record: Option<RecordBytes>, seconds: f64) -> usize {
        self.set_highlight_on(Side::A, record.map(|r| (r, None)), seconds)
    }

    /// Outline one face: the triangles made from the bytes start..end of the index record at
    /// `record` (a picked face), not the rest of its list.
    pub fn set_highlight_face(
        &mut self,
        record: RecordBytes,
        start: usize,
        end: usize,
        seconds: f64,
    ) -> usize {
        self.set_highlight_on(Side::A, Some((record, Some((start, end)))), seconds)
    }

    /// Triangles outlined now on a side (0: none, or the outlined record is not in the LOD
    /// on show).
    pub fn highlighted_triangles_on(&self, side: Side) -> usize {
        self.stage(side).map_or(0, Stage::highlighted_triangles)
    }

    pub fn highlighted_triangles(&self) -> usize {
        self.highlighted_triangles_on(Side::A)
    }

    /// Which LOD shows the node that came from the record at `record`.
    pub fn lod_index_of(&self, record: RecordBytes) -> Option<usize> {
        self.scene()?.lod_of_record(record)
    }

    /// Whether something on show moves with the clock, so frames must keep coming.
    pub fn animating(&self) -> bool {
        self.stages.iter().flatten().any(Stage::animating)
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

    /// The largest side a capture can have on this GPU.
    pub fn max_capture_size(&self) -> u32 {
        capture::max_size(&self.context)
    }

    /// Draw the view off the screen at `width` × `height` (the view's shape, scaled), at
    /// `seconds`, the camera turned by `turn` radians about its target, without the view's
    /// background where `transparent`; → its pixels, RGBA rows top first, colours straight
    /// (`view::capture::unpremultiply`). The view itself is left as it was.
    pub fn capture(
        &mut self,
        seconds: f64,
        (width, height): (u32, u32),
        transparent: bool,
        turn: f32,
    ) -> Result<Vec<u8>, String> {
        let offscreen = capture::Offscreen::new(&self.context, width, height)?;
        let (shown_width, shown_height, camera) = (self.width, self.height, self.camera.clone());
        if turn != 0.0 {
            let (p, t, up) = (camera.position(), camera.target(), camera.up());
            let q = crate::webgl::view::capture::turned([p.x, p.y, p.z], [t.x, t.y, t.z], turn);
            self.camera.set_view(Vec3::from(q), t, up);
        }
        self.resize(width, height);
        geometry::take_faults();
        let mut pixels = offscreen.draw(|target| {
            self.draw_into(target, seconds, transparent);
        });
        let faults = geometry::take_faults();
        self.camera = camera;
        self.resize(shown_width, shown_height);
        if !faults.is_empty() {
            return Err(faults.join("; "));
        }
        if transparent {
            crate::webgl::view::capture::unpremultiply(&mut pixels);
        }
        Ok(pixels)
    }

    /// The canvas pixel (top-left origin) a world point is drawn at; None behind the eye.
    pub fn project(&self, p: [f32; 3]) -> Option<(f32, f32)> {
        let clip = self.camera.projection() * self.camera.view() * Vec3::from(p).extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let px = self.camera.pixel_at_position(Vec3::from(p));
        Some((px.x, self.height as f32 - px.y))
    }

    /// The surface point under canvas pixel (x, y), or the corner of the face there when
    /// the pointer is within a few pixels of it (`view::measure::snapped`).
    pub fn surface_point(&self, x: f32, y: f32, seconds: f64) -> Option<[f32; 3]> {
        let (_, hit) = self.pick(x, y, seconds)?;
        let pixel = (x, self.height as f32 - y);
        let (eye, ray) = (
            self.camera.position(),
            self.camera.view_direction_at_pixel(pixel),
        );
        let at = eye + ray * hit.distance;
        let corners = hit.corners.map(GVec3::from);
        let screen = |c: GVec3| self.project(c.to_array());
        Some(
            crate::webgl::view::measure::snapped(
                GVec3::new(at.x, at.y, at.z),
                &corners,
                screen,
                (x, y),
            )
            .to_array(),
        )
    }

    /// Mark the points measured between (one: where it starts; two: the line between).
    pub fn set_measure(&mut self, points: Vec<[f32; 3]>) {
        self.measure = points.into_iter().take(2).collect();
        self.measure_marks = None;
    }

    /// The size (x, y, z) of the box around what is on show, and of the outlined selection.
    pub fn sizes(&self) -> (Option<[f32; 3]>, Option<[f32; 3]>) {
        let size = |b: Bounds| (GVec3::from(b.max) - GVec3::from(b.min)).to_array();
        (
            self.bounds().map(size),
            self.main().and_then(|s| s.highlight_bounds).map(size),
        )
    }

    /// The step of the ground grid for the scene on show (0 without one).
    pub fn grid_step(&self) -> f32 {
        self.bounds().map_or(0.0, |b| {
            crate::webgl::view::measure::grid_step(
                (GVec3::from(b.max) - GVec3::from(b.min)).max_element(),
            )
        })
    }

    /// Triangles of the measuring marks: a small diamond at each point and a bar between.
    fn measure_mesh(&self) -> Option<Gm<GpuMesh, ColorMaterial>> {
        if self.measure.is_empty() {
            return None;
        }
        let size = self.radius() * 0.012;
        let mut cpu = stage::point_markers(
            &self.measure.iter().map(|&p| (p, size)).collect::<Vec<_>>(),
            size,
        );
        if let [a, b] = self.measure[..] {
            let (a, b) = (GVec3::from(a), GVec3::from(b));
            let along = (b - a).normalize_or(GVec3::X);
            let side = along.any_orthonormal_vector() * size * 0.3;
            let up = along.cross(side).normalize_or(GVec3::Y) * size * 0.3;
            let v = |p: GVec3| vec3(p.x, p.y, p.z);
            if let three_d::Positions::F32(positions) = &mut cpu.positions {
                for d in [side, up] {
                    positions.extend([v(a - d), v(b - d), v(b + d), v(a - d), v(b + d), v(a + d)]);
                }
            }
            if let Some(colors) = cpu.colors.as_mut() {
                colors.extend([MEASURE_COLOR; 12]);
            }
        }
        if let Some(colors) = cpu.colors.as_mut() {
            colors.iter_mut().for_each(|c| *c = MEASURE_COLOR);
        }
        Some(Gm::new(
            GpuMesh::new(&self.context, &cpu),
            ColorMaterial::default(),
        ))
    }

    /// The ground grid's mesh for the scene's bounds, made again when they change.
    fn grid_mesh(&mut self) -> Option<&Gm<GpuMesh, ColorMaterial>> {
        let b = self.bounds()?;
        let step = self.grid_step();
        if self
            .grid
            .as_ref()
            .is_none_or(|(gb, gs, _)| *gb != b || *gs != step)
        {
            let quads = crate::webgl::view::measure::grid_quads(&b, step, step * 0.02);
            let cpu = CpuMesh {
                positions: three_d::Positions::F32(
                    quads.iter().map(|p| vec3(p[0], p[1], p[2])).collect(),
                ),
                colors: Some(vec![GRID_COLOR; quads.len()]),
                ..Default::default()
            };
            self.grid = Some((
                b,
                step,
                Gm::new(GpuMesh::new(&self.context, &cpu), ColorMaterial::default()),
            ));
        }
        self.grid.as_ref().map(|(_, _, g)| g)
    }

    fn draw(&mut self, seconds: f64) -> u32 {
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        self.draw_into(&target, seconds, false)
    }

    /// Draw a frame into `target` (of the view's size); `transparent` leaves the view's
    /// background out (a capture's): its pixels keep alpha 0.
    fn draw_into(&mut self, target: &RenderTarget, seconds: f64, transparent: bool) -> u32 {
        let [r, g, b] = self.options.background.colors()[0].map(|c| c as f32 / 255.0);
        if transparent {
            target.clear(ClearState::color_and_depth(0.0, 0.0, 0.0, 0.0, 1.0));
        } else {
            target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        }
        let mut calls = 0;
        if self.options.background == Background::Checker && !transparent {
            calls += self.draw_checker(target);
        }
        if self.camera_mode == CameraMode::Game {
            calls += self.draw_backdrop(target);
        }
        let cull = if self.options.cull_back {
            Cull::Back
        } else {
            Cull::None
        };
        let eye = self.camera.position();
        let (radius, options, clock, height) =
            (self.radius(), self.options, self.clock, self.height);
        let passes = self.passes();
        self.drawn = passes.iter().map(|p| p.side).collect();
        for stage in self.stages.iter_mut().flatten() {
            stage.shown_lod = None;
        }
        // Each side's upload shares the frame's budget.
        let budget = UPLOAD_BUDGET / passes.len().max(1);
        for pass in passes {
            let Some(stage) = self.stages[pass.side.index()].as_mut() else {
                continue;
            };
            let lod = stage.current_lod(&options, eye);
            stage.set_colours(&options);
            stage.set_blinking(options.blink);
            // A comparison's difference is coloured by what differs, never by zone.
            stage.set_zone_colours(options.zone_colours && pass.side != Side::Difference);
            let (light, ambient) = lighting(&options, &self.camera, stage.game_lit);
            stage.prepare(&self.context, lod, budget, clock);
            let (x0, x1) = pass.columns;
            let frame = StageFrame {
                lod,
                radius,
                seconds,
                light,
                ambient,
                cull,
                scissor: ScissorBox {
                    x: x0 as i32,
                    y: 0,
                    width: x1.saturating_sub(x0),
                    height,
                },
                ghost: pass.ghost,
            };
            calls += stage.draw(&self.context, target, &self.camera, &frame, &options);
        }
        if self.camera_mode == CameraMode::Game {
            calls += self.draw_cards(target);
        }
        calls += self.draw_overlays(target);
        self.draw_calls = calls;
        calls
    }

    /// The checkerboard behind everything, in squares of CHECKER_PX device pixels whatever
    /// the view's size. → the draw calls it took.
    fn draw_checker(&mut self, target: &RenderTarget) -> u32 {
        let (w, h) = (self.width, self.height);
        let checker = self
            .checker
            .get_or_insert_with(|| checker_square(&self.context));
        if let Some(t) = checker.material.texture.as_mut() {
            t.transformation = Mat3::from_nonuniform_scale(
                w as f32 / (2.0 * CHECKER_PX),
                h as f32 / (2.0 * CHECKER_PX),
            );
        }
        let flat = game_camera::flat_camera(w, h);
        checker.set_transformation(Mat4::from_nonuniform_scale(w as f32 / h as f32, 1.0, 1.0));
        target.render(&flat, [&*checker], &[]);
        target.clear(ClearState::depth(1.0));
        1
    }

    /// The grid and the measuring tape's marks, over the scene. → the draw calls they took.
    fn draw_overlays(&mut self, target: &RenderTarget) -> u32 {
        let mut calls = 0;
        if self.options.grid {
            let camera = self.camera.clone();
            if let Some(grid) = self.grid_mesh() {
                target.render(&camera, [grid], &[]);
                calls += 1;
            }
        }
        if !self.measure.is_empty() {
            if self.measure_marks.is_none() {
                self.measure_marks = self.measure_mesh();
            }
            if let Some(marks) = &self.measure_marks {
                // Over everything: a measured corner may be behind the surface drawn.
                target.clear_partially(
                    ScissorBox::new_at_origo(self.width, self.height),
                    ClearState::depth(1.0),
                );
                target.render(&self.camera, [marks], &[]);
                calls += 1;
            }
        }
        calls
    }

    /// The layers of the game camera's picture that are hidden.
    fn hidden_picture_layers(&self, camera: &crate::webgl::scene::GameCamera) -> Vec<u32> {
        let hidden = self.hidden_layers();
        camera
            .layers
            .iter()
            .map(|l| l.layer)
            .filter(|l| hidden.contains(l))
            .collect()
    }

    /// The picture the game draws behind the scene, on its frame, under everything: as
    /// composed where every layer of it is shown, else the shown layers' own pictures over
    /// each other in the order drawn.
    fn draw_backdrop(&mut self, target: &RenderTarget) -> u32 {
        let (w, h) = (self.width, self.height);
        let aspect = w as f32 / h as f32;
        let Some(camera) = self.game_camera().cloned() else {
            return 0;
        };
        let hidden = self.hidden_picture_layers(&camera);
        if self.backdrop.as_ref().is_none_or(|(k, _)| *k != hidden) {
            // What lies behind every model: the whole picture, or where some of it lies
            // among the models (cards, drawn after them), the rest.
            let whole = camera
                .backdrop
                .and_then(|t| Some(&self.main()?.scene.textures.get(t as usize)?.texels));
            let pictures: Vec<&crate::webgl::texture::Texels> = if hidden.is_empty() {
                camera.behind.as_ref().or(whole).into_iter().collect()
            } else {
                camera
                    .layers
                    .iter()
                    .filter(|l| !hidden.contains(&l.layer))
                    .filter_map(|l| l.picture.as_ref())
                    .collect()
            };
            let textures = pictures
                .into_iter()
                .filter(|t| t.rgba.len() == 4 * t.width as usize * t.height as usize)
                .map(|t| game_camera::backdrop_texture(&self.context, t))
                .collect();
            self.backdrop = Some((hidden.clone(), textures));
            self.backdrop_quad = None;
        }
        let Some((_, textures)) = &self.backdrop else {
            return 0;
        };
        if textures.is_empty() {
            return 0;
        }
        let rect = game_camera::frame_on_screen(&camera, aspect);
        if self.backdrop_quad.as_ref().is_none_or(|(r, _)| *r != rect) {
            // Several pictures are layers, each over the ones before where it draws.
            let layered = !hidden.is_empty();
            let quads = textures
                .iter()
                .map(|t| game_camera::backdrop(&self.context, t.clone(), rect, layered))
                .collect();
            self.backdrop_quad = Some((rect, quads));
        }
        let Some((_, quads)) = &self.backdrop_quad else {
            return 0;
        };
        let flat = game_camera::flat_camera(w, h);
        for quad in quads {
            target.render(&flat, [quad], &[]);
        }
        target.clear(ClearState::depth(1.0));
        quads.len() as u32
    }

    /// The picture's pieces at depths among the models, over the scene drawn: with the flat
    /// camera, as the picture behind, at the depths the scene's camera gives them; those of
    /// a hidden layer left out.
    fn draw_cards(&mut self, target: &RenderTarget) -> u32 {
        let Some(camera) = self.game_camera().cloned() else {
            return 0;
        };
        let (w, h) = (self.width, self.height);
        let key = (
            [
                w as f32 / h as f32,
                self.camera.z_near(),
                self.camera.z_far(),
            ],
            self.hidden_picture_layers(&camera),
        );
        if self.cards.as_ref().is_none_or(|(k, _)| *k != key) {
            let fits = |t: &&crate::webgl::texture::Texels| {
                t.rgba.len() == 4 * t.width as usize * t.height as usize
            };
            let texture = camera
                .card_texels
                .as_ref()
                .filter(fits)
                .map(|t| game_camera::backdrop_texture(&self.context, t));
            let ([aspect, near, far], hidden) = &key;
            let cards = texture.and_then(|t| {
                game_camera::cards(&self.context, &camera, t, *aspect, *near, *far, hidden)
            });
            self.cards = Some((key, cards));
        }
        let Some((_, Some(cards))) = &self.cards else {
            return 0;
        };
        let flat = game_camera::flat_camera(w, h);
        target.render(&flat, [cards], &[]);
        1
    }

    /// Read back the frame just drawn (top row first: three-d turns GL's rows over).
    pub fn read_pixels(&mut self) -> Vec<[u8; 4]> {
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.read_color::<[u8; 4]>()
    }

    /// Triangles of the LODs drawn in the last frame, every instance counted.
    pub fn triangles(&self) -> usize {
        self.drawn_stages().map(Stage::triangles).sum()
    }
    /// Mesh placements drawn in the last frame.
    pub fn instances(&self) -> usize {
        self.drawn_stages().map(Stage::instances).sum()
    }
    /// The LOD of the scene on show drawn in the last frame (comparing: of the first side drawn).
    pub fn shown_lod(&self) -> Option<usize> {
        self.drawn_stages().next().and_then(|s| s.shown_lod)
    }
    pub fn draw_calls(&self) -> u32 {
        self.draw_calls
    }
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
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
    let material = ColorMaterial {
        texture: Some(Texture2DRef::from_cpu_texture(context, &cpu)),
        ..Default::default()
    };
    Gm::new(GpuMesh::new(context, &CpuMesh::square()), material)
}
