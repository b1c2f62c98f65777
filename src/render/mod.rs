//! The only module that knows three-d: uploads `scene` meshes to the GPU, owns the camera
//! and draws frames into the page's WebGL2 canvas.

use crate::scene::{Bounds, Mesh};
use std::sync::Arc;
use three_d::{
    degrees, vec3, Camera, ClearState, ColorMaterial, Context, CpuMesh, Gm, InnerSpace, Mesh as GpuMesh, Positions, RenderTarget, Srgba, Vec3, Viewport,
};

/// Background colour (sRGB bytes), also what pixel tests compare against.
pub const BACKGROUND: [u8; 3] = [24, 26, 31];
const FOV_DEGREES: f32 = 45.0;

pub struct Renderer {
    context: Context,
    camera: Camera,
    model: Option<Gm<GpuMesh, ColorMaterial>>,
    bounds: Option<Bounds>,
    triangles: usize,
    width: u32,
    height: u32,
}

impl Renderer {
    pub fn new(gl: three_d::context::Context, width: u32, height: u32) -> Result<Renderer, String> {
        let context = Context::from_gl_context(Arc::new(gl)).map_err(|e| e.to_string())?;
        let viewport = Viewport::new_at_origo(width.max(1), height.max(1));
        let camera = Camera::new_perspective(viewport, vec3(3.0, 2.0, 4.0), vec3(0.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), degrees(FOV_DEGREES), 0.01, 1000.0);
        Ok(Renderer { context, camera, model: None, bounds: None, triangles: 0, width: width.max(1), height: height.max(1) })
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        self.width = width.max(1);
        self.height = height.max(1);
        self.camera.set_viewport(Viewport::new_at_origo(self.width, self.height));
    }

    /// Replace the drawn model with `mesh` (None clears) and frame the camera on it.
    pub fn set_mesh(&mut self, mesh: Option<&Mesh>) {
        self.model = None;
        self.triangles = 0;
        self.bounds = None;
        let Some(mesh) = mesh.filter(|m| m.triangle_count() > 0) else { return };
        let cpu = CpuMesh {
            positions: Positions::F32(mesh.positions.iter().map(|p| vec3(p[0], p[1], p[2])).collect()),
            colors: Some(lit_colors(mesh)),
            ..Default::default()
        };
        let material = ColorMaterial { color: Srgba::WHITE, ..Default::default() };
        self.model = Some(Gm::new(GpuMesh::new(&self.context, &cpu), material));
        self.triangles = mesh.triangle_count();
        self.bounds = mesh.bounds();
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
        self.camera.set_perspective_projection(degrees(FOV_DEGREES), distance * 0.01, distance * 10.0 + radius * 4.0);
    }

    fn radius(&self) -> f32 {
        self.bounds.map_or(1.0, |b| b.radius().max(1e-3))
    }

    /// Orbit around the target by a drag of (dx, dy) CSS pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        let target = self.camera.target();
        self.camera.rotate_around_with_fixed_up(target, -dx * 0.01, dy * 0.01);
    }

    /// Move camera and target across the view by a drag of (dx, dy) CSS pixels.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let distance = (self.camera.position() - self.camera.target()).magnitude();
        // World units per CSS pixel at the target's depth.
        let scale = 2.0 * distance * (FOV_DEGREES.to_radians() * 0.5).tan() / self.height as f32;
        let right = self.camera.right_direction();
        let up = self.camera.up_orthogonal();
        let change: Vec3 = right * (-dx * scale) + up * (dy * scale);
        self.camera.translate(change);
    }

    /// Zoom exponentially: positive `steps` move closer (one wheel notch is about 1).
    pub fn zoom(&mut self, steps: f32) {
        let distance = (self.camera.position() - self.camera.target()).magnitude();
        let factor = (-steps * 0.15).exp();
        let r = self.radius();
        let target = self.camera.target();
        self.camera.zoom_towards(target, distance - distance * factor, r * 0.02, r * 200.0);
        let d = (self.camera.position() - self.camera.target()).magnitude();
        self.camera.set_perspective_projection(degrees(FOV_DEGREES), (d * 0.01).min(r * 0.1), d * 10.0 + r * 4.0);
    }

    /// Draw one frame; returns the number of draw calls issued.
    pub fn render(&mut self) -> u32 {
        let [r, g, b] = BACKGROUND.map(|c| c as f32 / 255.0);
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
        match &self.model {
            Some(model) => {
                target.render(&self.camera, [model], &[]);
                1
            }
            None => 0,
        }
    }

    /// Read back the frame just drawn (bottom row first).
    pub fn read_pixels(&mut self) -> Vec<[u8; 4]> {
        let target = RenderTarget::screen(&self.context, self.width, self.height);
        target.read_color::<[u8; 4]>()
    }

    pub fn triangles(&self) -> usize {
        self.triangles
    }
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }
}

/// Vertex colours with a fixed key light and fill baked in, so the unlit ColorMaterial
/// shows shape while keeping the file's colours exact (three-d's lit materials tone-map).
fn lit_colors(mesh: &Mesh) -> Vec<Srgba> {
    let light = glam::Vec3::new(0.45, 0.8, 0.35).normalize();
    mesh.colors
        .iter()
        .zip(&mesh.normals)
        .map(|(c, n)| {
            // Double-sided: winding is unconfirmed in these files (DECISIONS.md).
            let lambert = glam::Vec3::from(*n).dot(light).abs();
            let k = 0.35 + 0.65 * lambert;
            Srgba::new((c[0] as f32 * k) as u8, (c[1] as f32 * k) as u8, (c[2] as f32 * k) as u8, c[3])
        })
        .collect()
}
