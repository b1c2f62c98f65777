//! Vertex data on the GPU with one copy: buffers are filled straight from the scene's arrays
//! (on the web, `bufferData` reads a view of wasm memory), in the scene's own types — f32
//! positions, normals and UVs, sRGB colour bytes — and the vertex shader does what three-d's
//! `Mesh` does on the CPU (sRGB → linear, the UV flip, the material tint). Indices go up as
//! 16-bit where every vertex number fits.

use three_d::{
    AxisAlignedBoundingBox, ColorTexture, Context, DepthTexture, Effect, ElementBuffer, Geometry, GeometryId, InstanceBuffer, Light, Mat4, Material, Matrix, Program, RenderStates, SquareMatrix, Vec3, Vec4,
    VertexBuffer, Viewer,
};

/// The one vertex layout every primitive is drawn with; each part present or not.
pub struct VertexArrays<'a> {
    pub positions: &'a [[f32; 3]],
    pub normals: Option<&'a [[f32; 3]]>,
    pub colors: Option<&'a [[u8; 4]]>,
    pub uvs: Option<&'a [[f32; 2]]>,
    pub indices: &'a [u32],
}

enum Indices {
    U16(ElementBuffer<u16>),
    U32(ElementBuffer<u32>),
}

/// Instance placements: the rows of each instance's 3×4 transform.
struct Placements {
    rows: [InstanceBuffer<Vec4>; 3],
    count: u32,
    aabb: AxisAlignedBoundingBox,
}

pub struct SceneGeometry {
    context: Context,
    positions: VertexBuffer<[f32; 3]>,
    normals: Option<VertexBuffer<[f32; 3]>>,
    colors: Option<VertexBuffer<[u8; 4]>>,
    uvs: Option<VertexBuffer<[f32; 2]>>,
    indices: Indices,
    /// Placement of the vertices in the world (identity for baked, merged vertices).
    model: Mat4,
    /// The material's base colour, multiplied with the vertex colour bytes (as sRGB bytes).
    tint: [f32; 4],
    /// Bounds of the vertices in their own space.
    local: AxisAlignedBoundingBox,
    placements: Option<Placements>,
}

/// Bytes the GPU buffers of `a` take (what one upload copies).
pub fn upload_bytes(a: &VertexArrays) -> usize {
    let index = if fits_u16(a) { 2 } else { 4 };
    a.positions.len() * 12 + a.normals.map_or(0, |n| n.len() * 12) + a.colors.map_or(0, |c| c.len() * 4) + a.uvs.map_or(0, |u| u.len() * 8) + a.indices.len() * index
}

fn fits_u16(a: &VertexArrays) -> bool {
    a.positions.len() <= u16::MAX as usize + 1
}

fn bounds(positions: &[[f32; 3]]) -> AxisAlignedBoundingBox {
    let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in positions {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    if positions.is_empty() {
        return AxisAlignedBoundingBox::EMPTY;
    }
    AxisAlignedBoundingBox::new_with_positions(&[Vec3::from(min), Vec3::from(max)])
}

impl SceneGeometry {
    /// Upload `a` placed by `model`, its colours multiplied by `tint`.
    pub fn new(context: &Context, a: &VertexArrays, model: Mat4, tint: [f32; 4]) -> SceneGeometry {
        let indices = if fits_u16(a) {
            // The one conversion: half the bytes to send and to fetch per corner.
            let short: Vec<u16> = a.indices.iter().map(|&i| i as u16).collect();
            Indices::U16(ElementBuffer::new_with_data(context, &short))
        } else {
            Indices::U32(ElementBuffer::new_with_data(context, a.indices))
        };
        SceneGeometry {
            context: context.clone(),
            positions: VertexBuffer::new_with_data(context, a.positions),
            normals: a.normals.map(|n| VertexBuffer::new_with_data(context, n)),
            colors: a.colors.map(|c| VertexBuffer::new_with_data(context, c)),
            uvs: a.uvs.map(|u| VertexBuffer::new_with_data(context, u)),
            indices,
            model,
            tint,
            local: bounds(a.positions),
            placements: None,
        }
    }

    /// Draw once per transform in `at` (an instanced draw) instead of once at `model`.
    pub fn set_instances(&mut self, at: &[Mat4]) {
        let row = |k: usize| at.iter().map(|m| Vec4::new(m[0][k], m[1][k], m[2][k], m[3][k])).collect::<Vec<_>>();
        let mut aabb = AxisAlignedBoundingBox::EMPTY;
        for m in at {
            aabb.expand_with_aabb(self.local.transformed(*m));
        }
        match &mut self.placements {
            Some(p) if p.count as usize == at.len() => {
                for (k, buffer) in p.rows.iter_mut().enumerate() {
                    buffer.fill(&row(k));
                }
                p.aabb = aabb;
            }
            _ => {
                let rows = [0, 1, 2].map(|k| InstanceBuffer::new_with_data(&self.context, &row(k)));
                self.placements = Some(Placements { rows, count: at.len() as u32, aabb });
            }
        }
    }

    pub fn has_normals(&self) -> bool {
        self.normals.is_some()
    }
}

impl Geometry for SceneGeometry {
    fn draw(&self, viewer: &dyn Viewer, program: &Program, render_states: RenderStates) {
        program.use_uniform("viewProjection", viewer.projection() * viewer.view());
        program.use_uniform("modelMatrix", self.model);
        if program.requires_uniform("normalMatrix") {
            let Some(inverse) = self.model.invert() else { return };
            program.use_uniform("normalMatrix", inverse.transpose());
        }
        program.use_uniform_if_required("tint", Vec4::from(self.tint));
        program.use_vertex_attribute("position", &self.positions);
        let attribute = |name: &str| program.requires_attribute(name);
        if let (true, Some(b)) = (attribute("normal"), &self.normals) {
            program.use_vertex_attribute("normal", b);
        }
        if let (true, Some(b)) = (attribute("color"), &self.colors) {
            program.use_vertex_attribute("color", b);
        }
        if let (true, Some(b)) = (attribute("uv_coordinates"), &self.uvs) {
            program.use_vertex_attribute("uv_coordinates", b);
        }
        let viewport = viewer.viewport();
        match &self.placements {
            Some(p) => {
                for (k, buffer) in p.rows.iter().enumerate() {
                    program.use_instance_attribute(["row1", "row2", "row3"][k], buffer);
                }
                match &self.indices {
                    Indices::U16(b) => program.draw_elements_instanced(render_states, viewport, b, p.count),
                    Indices::U32(b) => program.draw_elements_instanced(render_states, viewport, b, p.count),
                }
            }
            None => match &self.indices {
                Indices::U16(b) => program.draw_elements(render_states, viewport, b),
                Indices::U32(b) => program.draw_elements(render_states, viewport, b),
            },
        }
    }

    fn vertex_shader_source(&self) -> String {
        let mut s = String::new();
        for (on, define) in [
            (self.normals.is_some(), "USE_NORMALS"),
            (self.colors.is_some(), "USE_VERTEX_COLORS"),
            (self.uvs.is_some(), "USE_UVS"),
            (self.placements.is_some(), "USE_INSTANCE_TRANSFORMS"),
        ] {
            if on {
                s.push_str(&format!("#define {define}\n"));
            }
        }
        s.push_str(VERTEX_SHADER);
        s
    }

    fn id(&self) -> GeometryId {
        // The public id range, one id per shader variant.
        GeometryId(0x0200 | self.normals.is_some() as u16 | (self.colors.is_some() as u16) << 1 | (self.uvs.is_some() as u16) << 2 | (self.placements.is_some() as u16) << 3)
    }

    fn render_with_material(&self, material: &dyn Material, viewer: &dyn Viewer, lights: &[&dyn Light]) {
        if let Err(e) = three_d::render_with_material(&self.context, viewer, self, material, lights) {
            panic!("{e}");
        }
    }

    fn render_with_effect(&self, effect: &dyn Effect, viewer: &dyn Viewer, lights: &[&dyn Light], color_texture: Option<ColorTexture>, depth_texture: Option<DepthTexture>) {
        if let Err(e) = three_d::render_with_effect(&self.context, viewer, self, effect, lights, color_texture, depth_texture) {
            panic!("{e}");
        }
    }

    fn aabb(&self) -> AxisAlignedBoundingBox {
        match &self.placements {
            Some(p) => p.aabb,
            None => self.local.transformed(self.model),
        }
    }
}

/// The outputs three-d's fragment shaders read (pos, nor, uvs, col, instance_id).
const VERTEX_SHADER: &str = r#"
uniform mat4 viewProjection;
uniform mat4 modelMatrix;
uniform vec4 tint;
in vec3 position;
out vec3 pos;
#ifdef USE_INSTANCE_TRANSFORMS
in vec4 row1;
in vec4 row2;
in vec4 row3;
#endif
#ifdef USE_NORMALS
uniform mat4 normalMatrix;
in vec3 normal;
out vec3 nor;
#endif
#ifdef USE_UVS
in vec2 uv_coordinates;
out vec2 uvs;
#endif
#ifdef USE_VERTEX_COLORS
in uvec4 color;
#endif
out vec4 col;
flat out int instance_id;

// The sRGB transfer curve, as three-d applies it to vertex colours on the CPU.
vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

void main() {
    mat4 local2World = modelMatrix;
#ifdef USE_INSTANCE_TRANSFORMS
    mat4 transform;
    transform[0] = vec4(row1.x, row2.x, row3.x, 0.0);
    transform[1] = vec4(row1.y, row2.y, row3.y, 0.0);
    transform[2] = vec4(row1.z, row2.z, row3.z, 0.0);
    transform[3] = vec4(row1.w, row2.w, row3.w, 1.0);
    local2World = local2World * transform;
#endif
    vec4 world = local2World * vec4(position, 1.0);
    gl_Position = viewProjection * world;
    pos = world.xyz / world.w;
#ifdef USE_NORMALS
#ifdef USE_INSTANCE_TRANSFORMS
    nor = normalize(mat3(transpose(inverse(local2World))) * normal);
#else
    nor = normalize(mat3(normalMatrix) * normal);
#endif
#endif
#ifdef USE_UVS
    // Texture rows go up top row first: v runs downwards.
    uvs = vec2(uv_coordinates.x, 1.0 - uv_coordinates.y);
#endif
    // The colour bytes times the tint, rounded to bytes as the file's colours are.
#ifdef USE_VERTEX_COLORS
    vec4 srgb = floor(vec4(color) * tint + 0.5) / 255.0;
#else
    vec4 srgb = floor(255.0 * tint + 0.5) / 255.0;
#endif
    col = vec4(srgb_to_linear(srgb.rgb), srgb.a);
    instance_id = gl_InstanceID;
}
"#;
