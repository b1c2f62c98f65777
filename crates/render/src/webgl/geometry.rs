//! Vertex data on the GPU with one copy: buffers are filled straight from the scene's arrays
//! (on the web, `bufferSubData` reads a view of wasm memory), in the scene's own types — f32
//! positions, normals and UVs, sRGB colour bytes — and the vertex shader does what three-d's
//! `Mesh` does on the CPU (sRGB → linear, the UV flip, the material tint). A draw merged from
//! several primitives gets one buffer per attribute, each primitive's array written at its
//! place (small ones gathered into runs first, the one extra copy, so that a world's
//! thousands of parts are a few calls); only the index list is rewritten (each primitive's
//! numbers move by the vertices before it), 16-bit wherever every vertex number fits. Each
//! geometry keeps its attribute bindings in a vertex array object of its own, with fixed
//! attribute locations.

use super::to_mat4;
use crate::packing::{
    placed_box, put_colours, put_normals, put_positions, put_uvs, upload_bytes, DrawLayout,
    Normals, Put, Staged, Varyings, VertexArrays,
};
use three_d::context::HasContext;
use three_d::{
    AxisAlignedBoundingBox, ColorTexture, Context, DepthTexture, Effect, Geometry, GeometryId,
    Light, Mat4, Material, Matrix, Program, RenderStates, SquareMatrix, Vec3, Vec4, Viewer,
};

/// Attribute locations, fixed in the vertex shader.
const POSITION: u32 = 0;
const NORMAL: u32 = 1;
const COLOR: u32 = 2;
const UV: u32 = 3;
const ROWS: u32 = 4; // 4, 5, 6: an instance's transform rows

pub struct SceneGeometry {
    context: Context,
    vao: three_d::context::VertexArray,
    buffers: Vec<three_d::context::Buffer>,
    varyings: Varyings,
    uvs: bool,
    /// Index type (UNSIGNED_SHORT or UNSIGNED_INT) and count.
    index_type: u32,
    index_count: i32,
    /// Placement of the vertices in the world (identity for a merged draw).
    model: Mat4,
    /// The material's base colour, multiplied with the vertex colour bytes (as sRGB bytes).
    tint: [f32; 4],
    /// Bounds of the vertices in their own space.
    local: AxisAlignedBoundingBox,
    /// Bytes of vertex and index data sent at creation.
    bytes: usize,
    /// Instanced: the buffer of transform rows, the instance count and their bounds.
    instances: Option<(three_d::context::Buffer, i32, AxisAlignedBoundingBox)>,
}

fn bounds(parts: &[VertexArrays]) -> AxisAlignedBoundingBox {
    match placed_box(parts) {
        Some((min, max)) => {
            AxisAlignedBoundingBox::new_with_positions(&[Vec3::from(min), Vec3::from(max)])
        }
        None => AxisAlignedBoundingBox::EMPTY,
    }
}

/// How one vertex attribute is laid out: its shader location, components, GL type and the
/// bytes of one vertex.
#[derive(Clone, Copy)]
struct AttributeLayout {
    location: u32,
    size: i32,
    kind: u32,
    stride: usize,
}

impl SceneGeometry {
    /// Upload `parts` as one draw. A part's positions and normals go up as they are unless its
    /// model matrix moves them (then they are baked first, that part alone); colour bytes go
    /// up as they are unless the parts' tints differ (then each part is tinted first).
    /// → None when there is nothing to draw; an error when the GPU would not give a vertex
    /// array or a buffer (whatever was made before it is deleted).
    pub fn new(context: &Context, parts: &[VertexArrays]) -> Result<Option<SceneGeometry>, String> {
        let vertices: usize = parts.iter().map(|a| a.positions.len()).sum();
        let indices: usize = parts.iter().map(|a| a.indices.len()).sum();
        // (GL sizes are i32: a draw past 2 GiB is not made; the scene's budget keeps real
        // files far below it.)
        let bytes = upload_bytes(parts);
        if indices == 0 || vertices == 0 || bytes > i32::MAX as usize {
            return Ok(None);
        }
        let layout = DrawLayout::of(parts);
        // A single part keeps its placement as a uniform; merged parts are placed in the buffers.
        let (model, tint) = if layout.single {
            (to_mat4(parts[0].model), parts[0].tint)
        } else {
            (
                Mat4::identity(),
                if layout.one_tint {
                    parts[0].tint
                } else {
                    [1.0; 4]
                },
            )
        };
        let mut made = GpuObjects::new(context)?;
        made.attributes(parts, vertices, &layout)?;
        let short = vertices <= u16::MAX as usize + 1;
        made.indices(parts, indices, short)?;
        let local = if layout.single {
            bounds(&[VertexArrays {
                model: glam::Mat4::IDENTITY,
                ..parts[0]
            }])
        } else {
            bounds(parts)
        };
        let (vao, buffers) = made.finish();
        Ok(Some(SceneGeometry {
            context: context.clone(),
            vao,
            buffers,
            varyings: layout.varyings,
            uvs: layout.uvs,
            index_type: if short {
                three_d::context::UNSIGNED_SHORT
            } else {
                three_d::context::UNSIGNED_INT
            },
            index_count: indices as i32,
            model,
            tint,
            local,
            bytes,
            instances: None,
        }))
    }

    /// Draw once per transform in `at` (an instanced draw) instead of once at `model`.
    pub fn set_instances(&mut self, at: &[Mat4]) {
        let rows: Vec<[f32; 12]> = at
            .iter()
            .map(|m| std::array::from_fn(|i| m[i % 4][i / 4]))
            .collect();
        let mut aabb = AxisAlignedBoundingBox::EMPTY;
        for m in at {
            aabb.expand_with_aabb(self.local.transformed(*m));
        }
        let gl = &**self.context;
        // SAFETY: names only this geometry's vertex array and its instance buffer (made here
        // on this context, deleted only when the geometry drops); data from a live slice.
        unsafe {
            let buffer = match self.instances {
                Some((b, _, _)) => b,
                None => {
                    let Ok(b) = gl.create_buffer() else { return };
                    gl.bind_vertex_array(Some(self.vao));
                    gl.bind_buffer(three_d::context::ARRAY_BUFFER, Some(b));
                    for k in 0..3 {
                        gl.enable_vertex_attrib_array(ROWS + k);
                        gl.vertex_attrib_pointer_f32(
                            ROWS + k,
                            4,
                            three_d::context::FLOAT,
                            false,
                            48,
                            16 * k as i32,
                        );
                        gl.vertex_attrib_divisor(ROWS + k, 1);
                    }
                    gl.bind_vertex_array(None);
                    b
                }
            };
            gl.bind_buffer(three_d::context::ARRAY_BUFFER, Some(buffer));
            gl.buffer_data_u8_slice(
                three_d::context::ARRAY_BUFFER,
                bytemuck::cast_slice(&rows),
                three_d::context::DYNAMIC_DRAW,
            );
            gl.bind_buffer(three_d::context::ARRAY_BUFFER, None);
            self.instances = Some((buffer, at.len() as i32, aabb));
        }
    }

    /// Bytes of vertex and index data this geometry sent to the GPU.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// What the geometry gives the fragment shader (its material is made to match).
    pub fn varyings(&self) -> Varyings {
        self.varyings
    }
}

/// A vertex array and buffers being made: deleted when dropped, unless `finish` handed them
/// to the geometry that owns them from then on.
///
/// Every GL call here is `unsafe` in glow because a WebGL object's name is not checked: each
/// names only objects this context made here and has not deleted (the vertex array and the
/// buffers this holds), sizes are within the i32 that `SceneGeometry::new` checked, and data
/// comes from live slices.
struct GpuObjects<'a> {
    context: &'a Context,
    vao: three_d::context::VertexArray,
    buffers: Vec<three_d::context::Buffer>,
    handed_over: bool,
}

impl<'a> GpuObjects<'a> {
    /// A new vertex array, bound for the attributes and index list that follow.
    fn new(context: &'a Context) -> Result<GpuObjects<'a>, String> {
        let gl = &***context;
        // SAFETY: makes a vertex array on this context and binds it (see the struct).
        let vao = unsafe { gl.create_vertex_array() }
            .map_err(|e| format!("the GPU gave no vertex array: {e}"))?;
        // SAFETY: the vertex array just made.
        unsafe { gl.bind_vertex_array(Some(vao)) };
        Ok(GpuObjects {
            context,
            vao,
            buffers: Vec::new(),
            handed_over: false,
        })
    }

    /// A new buffer, bound to `target`, sized to `bytes`: `fill` writes it through `put`.
    fn buffer(
        &mut self,
        target: u32,
        bytes: usize,
        fill: &mut dyn FnMut(&mut Put),
        what: &str,
    ) -> Result<(), String> {
        let gl = &***self.context;
        // SAFETY: makes a buffer on this context (see the struct); held to be deleted.
        let buffer = unsafe { gl.create_buffer() }
            .map_err(|e| format!("the GPU gave no buffer for {what}: {e}"))?;
        self.buffers.push(buffer);
        // SAFETY: the buffer just made; `bytes` is within i32 (see the struct).
        unsafe {
            gl.bind_buffer(target, Some(buffer));
            gl.buffer_data_size(target, bytes as i32, three_d::context::STATIC_DRAW);
        }
        let mut staged = Staged::new(|offset, bytes: &[u8]| {
            // SAFETY: writes a live slice into the buffer bound above.
            unsafe { gl.buffer_sub_data_u8_slice(target, offset as i32, bytes) }
        });
        fill(&mut |at, bytes| staged.put(at, bytes));
        staged.flush();
        Ok(())
    }

    /// One vertex attribute of `vertices` vertices, written by `fill` (at vertex numbers),
    /// pointed to by the vertex array.
    fn attribute(
        &mut self,
        vertices: usize,
        layout: AttributeLayout,
        fill: &mut dyn FnMut(&mut Put),
    ) -> Result<(), String> {
        let AttributeLayout {
            location,
            size,
            kind,
            stride,
        } = layout;
        let what = format!("vertex attribute {location}");
        self.buffer(
            three_d::context::ARRAY_BUFFER,
            vertices * stride,
            &mut |put| fill(&mut |at, bytes| put(at * stride, bytes)),
            &what,
        )?;
        let gl = &***self.context;
        // SAFETY: points the bound vertex array's attribute at the buffer bound by `buffer`.
        unsafe {
            gl.enable_vertex_attrib_array(location);
            if kind == three_d::context::FLOAT {
                gl.vertex_attrib_pointer_f32(location, size, kind, false, 0, 0);
            } else {
                gl.vertex_attrib_pointer_i32(location, size, kind, 0, 0);
            }
        }
        Ok(())
    }

    /// Every attribute `layout` asks for.
    fn attributes(
        &mut self,
        parts: &[VertexArrays],
        vertices: usize,
        layout: &DrawLayout,
    ) -> Result<(), String> {
        use three_d::context::{FLOAT, UNSIGNED_BYTE};
        let at = |location, size, kind, stride| AttributeLayout {
            location,
            size,
            kind,
            stride,
        };
        self.attribute(vertices, at(POSITION, 3, FLOAT, 12), &mut |put| {
            put_positions(parts, layout, put)
        })?;
        if layout.varyings.normals != Normals::None {
            self.attribute(vertices, at(NORMAL, 3, FLOAT, 12), &mut |put| {
                put_normals(parts, layout, put)
            })?;
        }
        if layout.varyings.vertex_colors {
            self.attribute(vertices, at(COLOR, 4, UNSIGNED_BYTE, 4), &mut |put| {
                put_colours(parts, layout, put)
            })?;
        }
        if layout.uvs {
            self.attribute(vertices, at(UV, 2, FLOAT, 8), &mut |put| {
                put_uvs(parts, put)
            })?;
        }
        Ok(())
    }

    /// The index list: each part's numbers moved past the vertices before it, as u16 when
    /// `short`. Leaves nothing bound.
    fn indices(
        &mut self,
        parts: &[VertexArrays],
        indices: usize,
        short: bool,
    ) -> Result<(), String> {
        let index_bytes = if short { 2 } else { 4 };
        self.buffer(
            three_d::context::ELEMENT_ARRAY_BUFFER,
            indices * index_bytes,
            &mut |put| {
                let (mut first, mut at) = (0u32, 0usize);
                let (mut short_scratch, mut long_scratch): (Vec<u16>, Vec<u32>) =
                    (Vec::new(), Vec::new());
                for a in parts {
                    let offset = at * index_bytes;
                    if short {
                        short_scratch.clear();
                        short_scratch.extend(a.indices.iter().map(|&i| (i + first) as u16));
                        put(offset, bytemuck::cast_slice(&short_scratch));
                    } else if first == 0 {
                        put(offset, bytemuck::cast_slice(a.indices));
                    } else {
                        long_scratch.clear();
                        long_scratch.extend(a.indices.iter().map(|&i| i + first));
                        put(offset, bytemuck::cast_slice(&long_scratch));
                    }
                    first += a.positions.len() as u32;
                    at += a.indices.len();
                }
            },
            "the index list",
        )?;
        let gl = &***self.context;
        // SAFETY: unbinds (the vertex array keeps its index buffer).
        unsafe {
            gl.bind_vertex_array(None);
            gl.bind_buffer(three_d::context::ARRAY_BUFFER, None);
        }
        Ok(())
    }

    fn finish(mut self) -> (three_d::context::VertexArray, Vec<three_d::context::Buffer>) {
        self.handed_over = true;
        (self.vao, std::mem::take(&mut self.buffers))
    }
}

impl Drop for GpuObjects<'_> {
    fn drop(&mut self) {
        if self.handed_over {
            return;
        }
        let gl = &***self.context;
        // SAFETY: deletes what this made and did not hand over, once.
        unsafe {
            gl.bind_vertex_array(None);
            gl.delete_vertex_array(self.vao);
            for &b in &self.buffers {
                gl.delete_buffer(b);
            }
        }
    }
}

impl Drop for SceneGeometry {
    fn drop(&mut self) {
        let gl = &**self.context;
        // SAFETY: deletes the objects this geometry owns, once, as it goes.
        unsafe {
            gl.delete_vertex_array(self.vao);
            for &b in self
                .buffers
                .iter()
                .chain(self.instances.as_ref().map(|(b, _, _)| b))
            {
                gl.delete_buffer(b);
            }
        }
    }
}

impl Geometry for SceneGeometry {
    fn draw(&self, viewer: &dyn Viewer, program: &Program, render_states: RenderStates) {
        let view_projection = viewer.projection() * viewer.view();
        program.use_uniform_if_required("viewProjection", view_projection);
        program.use_uniform_if_required("modelMatrix", self.model);
        program.use_uniform_if_required("modelViewProjection", view_projection * self.model);
        if program.requires_uniform("normalMatrix") {
            let Some(inverse) = self.model.invert() else {
                return;
            };
            program.use_uniform("normalMatrix", inverse.transpose());
        }
        program.use_uniform_if_required("tint", Vec4::from(self.tint));
        program.use_uniform_if_required("baseColor", Vec4::from(linear_color(self.tint)));
        let gl = &**self.context;
        // SAFETY: draws from this geometry's own vertex array, whose buffers hold
        // `index_count` indices of `index_type`, each below the vertex count.
        program.draw_with(render_states, viewer.viewport(), || unsafe {
            gl.bind_vertex_array(Some(self.vao));
            match self.instances {
                Some((_, count, _)) => gl.draw_elements_instanced(
                    three_d::context::TRIANGLES,
                    self.index_count,
                    self.index_type,
                    0,
                    count,
                ),
                None => gl.draw_elements(
                    three_d::context::TRIANGLES,
                    self.index_count,
                    self.index_type,
                    0,
                ),
            }
            gl.bind_vertex_array(None);
        });
    }

    fn vertex_shader_source(&self) -> String {
        let mut s = String::new();
        for (on, define) in [
            (self.varyings.normals != Normals::None, "USE_NORMALS"),
            (self.varyings.normals != Normals::Every, "USE_POSITIONS"),
            (self.varyings.vertex_colors, "USE_VERTEX_COLORS"),
            (self.uvs, "USE_UVS"),
            (self.instances.is_some(), "USE_INSTANCE_TRANSFORMS"),
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
        let normals = self.varyings.normals != Normals::None;
        let positions = self.varyings.normals != Normals::Every;
        GeometryId(
            0x0200
                | normals as u16
                | (self.varyings.vertex_colors as u16) << 1
                | (self.uvs as u16) << 2
                | (self.instances.is_some() as u16) << 3
                | (positions as u16) << 4,
        )
    }

    // three-d's trait returns nothing: a draw that fails (a shader that does not build) is
    // skipped and its reason kept for the renderer, which fails that file's view alone.
    fn render_with_material(
        &self,
        material: &dyn Material,
        viewer: &dyn Viewer,
        lights: &[&dyn Light],
    ) {
        if let Err(e) = three_d::render_with_material(&self.context, viewer, self, material, lights)
        {
            record_fault(e.to_string());
        }
    }

    fn render_with_effect(
        &self,
        effect: &dyn Effect,
        viewer: &dyn Viewer,
        lights: &[&dyn Light],
        color_texture: Option<ColorTexture>,
        depth_texture: Option<DepthTexture>,
    ) {
        if let Err(e) = three_d::render_with_effect(
            &self.context,
            viewer,
            self,
            effect,
            lights,
            color_texture,
            depth_texture,
        ) {
            record_fault(e.to_string());
        }
    }

    fn aabb(&self) -> AxisAlignedBoundingBox {
        match &self.instances {
            Some((_, _, aabb)) => *aabb,
            None => self.local.transformed(self.model),
        }
    }
}

thread_local! {
    /// Why draws failed since the renderer last asked (a few are enough to say why).
    static FAULTS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn record_fault(why: String) {
    FAULTS.with(|f| {
        let mut f = f.borrow_mut();
        if f.len() < 4 && !f.contains(&why) {
            f.push(why);
        }
    });
}

/// The reasons draws failed since the last call, and forget them.
pub fn take_faults() -> Vec<String> {
    FAULTS.with(|f| std::mem::take(&mut *f.borrow_mut()))
}

/// A tint as the vertex shader makes a vertex colour of it: rounded to bytes as the files'
/// colours are, then sRGB-decoded (the uniform a draw without vertex colours is shaded by).
fn linear_color(tint: [f32; 4]) -> [f32; 4] {
    let byte = |c: f32| (255.0 * c + 0.5).floor() / 255.0;
    let decode = |c: f32| crate::webgl::texture::srgb_to_linear(byte(c));
    [
        decode(tint[0]),
        decode(tint[1]),
        decode(tint[2]),
        byte(tint[3]),
    ]
}

/// The outputs `RetroMaterial`'s fragment shader reads: pos, nor, uvs, and col where the
/// geometry has vertex colours.
const VERTEX_SHADER: &str = r#"
// A software rasteriser runs this for every vertex of every draw, and a first frame waits
// for it: without instances, the clip position takes one matrix (model, view and projection
// multiplied once on the CPU), and the world position is made only where the fragment
// shader needs it (USE_POSITIONS: facets for vertices without normals).
uniform mat4 viewProjection;
uniform mat4 modelMatrix;
uniform mat4 modelViewProjection;
uniform vec4 tint;
layout(location = 0) in vec3 position;
#ifdef USE_POSITIONS
out vec3 pos;
#endif
#ifdef USE_INSTANCE_TRANSFORMS
layout(location = 4) in vec4 row1;
layout(location = 5) in vec4 row2;
layout(location = 6) in vec4 row3;
#endif
#ifdef USE_NORMALS
uniform mat4 normalMatrix;
layout(location = 1) in vec3 normal;
out vec3 nor;
#endif
#ifdef USE_UVS
layout(location = 3) in vec2 uv_coordinates;
out vec2 uvs;
#endif
#ifdef USE_VERTEX_COLORS
layout(location = 2) in uvec4 color;
out vec4 col;
#endif

#ifdef USE_VERTEX_COLORS
// The sRGB transfer curve, as three-d applies it to vertex colours on the CPU.
vec3 srgb_to_linear(vec3 c) {
    return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}
#endif

void main() {
#ifdef USE_INSTANCE_TRANSFORMS
    mat4 transform;
    transform[0] = vec4(row1.x, row2.x, row3.x, 0.0);
    transform[1] = vec4(row1.y, row2.y, row3.y, 0.0);
    transform[2] = vec4(row1.z, row2.z, row3.z, 0.0);
    transform[3] = vec4(row1.w, row2.w, row3.w, 1.0);
    mat4 local2World = modelMatrix * transform;
    vec4 world = local2World * vec4(position, 1.0);
    gl_Position = viewProjection * world;
#else
    gl_Position = modelViewProjection * vec4(position, 1.0);
#ifdef USE_POSITIONS
    vec4 world = modelMatrix * vec4(position, 1.0);
#endif
#endif
#ifdef USE_POSITIONS
    pos = world.xyz / world.w;
#endif
#ifdef USE_NORMALS
#ifdef USE_INSTANCE_TRANSFORMS
    nor = normalize(mat3(transpose(inverse(local2World))) * normal);
#elif defined(USE_POSITIONS)
    // Unit length: the fragment shader tells a zero normal (none) by its length.
    nor = normalize(mat3(normalMatrix) * normal);
#else
    // (The fragment shader normalises what it is given.)
    nor = mat3(normalMatrix) * normal;
#endif
#endif
#ifdef USE_UVS
    // Texture rows go up top row first: v runs downwards.
    uvs = vec2(uv_coordinates.x, 1.0 - uv_coordinates.y);
#endif
    // The colour bytes times the tint, rounded to bytes as the file's colours are.
#ifdef USE_VERTEX_COLORS
    vec4 srgb = floor(vec4(color) * tint + 0.5) / 255.0;
    col = vec4(srgb_to_linear(srgb.rgb), srgb.a);
#endif
}
"#;
