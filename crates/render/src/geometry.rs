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
use three_d::context::HasContext;
use three_d::{
    AxisAlignedBoundingBox, ColorTexture, Context, DepthTexture, Effect, Geometry, GeometryId,
    Light, Mat4, Material, Matrix, Program, RenderStates, SquareMatrix, Vec3, Vec4, Viewer,
};

/// One primitive's arrays, placed by `model`, its colour bytes multiplied by `tint`.
#[derive(Clone, Copy)]
pub struct VertexArrays<'a> {
    pub positions: &'a [[f32; 3]],
    pub normals: Option<&'a [[f32; 3]]>,
    pub colors: Option<&'a [[u8; 4]]>,
    pub uvs: Option<&'a [[f32; 2]]>,
    pub indices: &'a [u32],
    pub model: glam::Mat4,
    pub tint: [f32; 4],
}

/// The varyings: what a geometry hands the fragment shader to shade with (how the scene
/// shades a primitive is `scene::Shading`, another thing). Each value interpolated across a
/// triangle has a price per triangle in a software rasteriser (SwiftShader sets up a plane
/// for each component of each triangle, and a 500,000-triangle model is mostly triangles
/// smaller than a pixel), so a draw passes only what its pixels need: a normal where the
/// file gives a usable one for every vertex, the position only where facets must be made
/// from it, a colour per vertex only where the colours differ (else the one colour is a
/// uniform).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Varyings {
    pub normals: Normals,
    pub vertex_colors: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Normals {
    /// None: facets are made per pixel from the position's derivatives.
    None,
    /// Every vertex has a finite, non-zero normal.
    Every,
    /// Some vertices have a zero (or not finite) normal, meaning none: those pixels get
    /// facets, so the position is passed as well.
    Some,
}

/// Whether every normal can be normalised (a zero normal is the files' way of saying none).
fn normals_usable(normals: &[[f32; 3]]) -> bool {
    normals.iter().all(|n| {
        let length = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        length.is_finite() && length > 1e-12
    })
}

/// Writes bytes at a vertex number of the buffer being filled.
type Put<'a> = dyn FnMut(usize, &[u8]) + 'a;

/// Bytes gathered before one `bufferSubData` when parts are small.
const STAGED_BYTES: usize = 1 << 16;

/// A buffer's bytes, written in order, uploaded in runs: a merged draw of thousands of small
/// parts (a world's buildings) goes up in a few calls instead of one a part, each of which
/// crosses into the browser; a part of `STAGED_BYTES` or more still goes up straight from
/// its own array.
struct Staged<F: FnMut(usize, &[u8])> {
    upload: F,
    /// Byte offset of `pending` in the buffer.
    start: usize,
    pending: Vec<u8>,
}

impl<F: FnMut(usize, &[u8])> Staged<F> {
    fn new(upload: F) -> Self {
        Staged {
            upload,
            start: 0,
            pending: Vec::new(),
        }
    }

    fn put(&mut self, offset: usize, bytes: &[u8]) {
        if !self.pending.is_empty()
            && (offset != self.start + self.pending.len()
                || self.pending.len() + bytes.len() > STAGED_BYTES)
        {
            self.flush();
        }
        if bytes.len() >= STAGED_BYTES {
            (self.upload)(offset, bytes);
            return;
        }
        if self.pending.is_empty() {
            self.start = offset;
        }
        self.pending.extend_from_slice(bytes);
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            (self.upload)(self.start, &self.pending);
            self.pending.clear();
        }
    }
}

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
    let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    let mut any = false;
    // Each part's own box, its corners placed: a box around the placed points (larger for
    // a turned part than theirs, which culling allows), without placing every point.
    for a in parts {
        let (mut lo, mut hi) = (glam::Vec3::INFINITY, glam::Vec3::NEG_INFINITY);
        for p in a.positions {
            let p = glam::Vec3::from(*p);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        if a.positions.is_empty() {
            continue;
        }
        for corner in 0..8 {
            let c = glam::Vec3::new(
                if corner & 1 == 0 { lo.x } else { hi.x },
                if corner & 2 == 0 { lo.y } else { hi.y },
                if corner & 4 == 0 { lo.z } else { hi.z },
            );
            let p = a.model.transform_point3(c).to_array();
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        any = true;
    }
    if !any {
        return AxisAlignedBoundingBox::EMPTY;
    }
    AxisAlignedBoundingBox::new_with_positions(&[Vec3::from(min), Vec3::from(max)])
}

/// Bytes a draw of `parts` sends to the GPU.
fn upload_bytes(parts: &[VertexArrays]) -> usize {
    let vertices: usize = parts.iter().map(|a| a.positions.len()).sum();
    let indices: usize = parts.iter().map(|a| a.indices.len()).sum();
    let normals = parts.iter().all(|a| a.normals.is_some());
    let colors = colours_needed(parts);
    let uvs = parts.iter().any(|a| a.uvs.is_some());
    let index = if vertices <= u16::MAX as usize + 1 {
        2
    } else {
        4
    };
    vertices
        * (12 + if normals { 12 } else { 0 } + if colors { 4 } else { 0 } + if uvs { 8 } else { 0 })
        + indices * index
}

/// A colour attribute is needed when a part has colours or the parts' tints differ; a tint
/// they all share is a uniform.
fn colours_needed(parts: &[VertexArrays]) -> bool {
    parts
        .iter()
        .any(|a| a.colors.is_some() || a.tint != parts[0].tint)
}

/// What a draw of some parts uploads, decided once from the parts.
struct DrawLayout {
    varyings: Varyings,
    uvs: bool,
    /// Every part has the same tint (a uniform then, not baked into colour bytes).
    one_tint: bool,
    /// One part, placed by a uniform: its vertices go up as they are.
    single: bool,
}

impl DrawLayout {
    fn of(parts: &[VertexArrays]) -> DrawLayout {
        // Smooth normals only where every part has them; the shader makes flat facets otherwise.
        let normals = match parts.iter().all(|a| a.normals.is_some()) {
            false => Normals::None,
            true if parts
                .iter()
                .all(|a| normals_usable(a.normals.unwrap_or_default())) =>
            {
                Normals::Every
            }
            true => Normals::Some,
        };
        DrawLayout {
            varyings: Varyings {
                normals,
                vertex_colors: colours_needed(parts),
            },
            uvs: parts.iter().any(|a| a.uvs.is_some()),
            one_tint: parts.iter().all(|a| a.tint == parts[0].tint),
            single: parts.len() == 1,
        }
    }

    /// Whether a part's vertices are placed (moved by its model matrix) in the buffer.
    fn placed(&self, a: &VertexArrays) -> bool {
        !self.single && a.model != glam::Mat4::IDENTITY
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

/// Writes each part's positions, placed where `layout` says, through one scratch array
/// reused (a world's thousands of small parts make no allocation each).
fn put_positions(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
    let mut scratch: Vec<[f32; 3]> = Vec::new();
    let mut at = 0;
    for a in parts {
        if layout.placed(a) {
            scratch.clear();
            scratch.extend(
                a.positions
                    .iter()
                    .map(|&v| a.model.transform_point3(glam::Vec3::from(v)).to_array()),
            );
            put(at, bytemuck::cast_slice(&scratch));
        } else {
            put(at, bytemuck::cast_slice(a.positions));
        }
        at += a.positions.len();
    }
}

/// Writes each part's normals, turned by its normal matrix where it is placed.
fn put_normals(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
    let mut scratch: Vec<[f32; 3]> = Vec::new();
    let mut at = 0;
    for a in parts {
        let n = a.normals.unwrap_or_default();
        if layout.placed(a) {
            let m = glam::Mat3::from_mat4(a.model).inverse().transpose();
            scratch.clear();
            scratch.extend(n.iter().map(|&v| (m * glam::Vec3::from(v)).to_array()));
            put(at, bytemuck::cast_slice(&scratch));
        } else {
            put(at, bytemuck::cast_slice(n));
        }
        at += a.positions.len();
    }
}

/// Writes each part's colour bytes: as they are under a shared tint; otherwise tinted by the
/// part's own tint (the shader's is 1 then), and white under the shared tint where a part
/// has no colours.
fn put_colours(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
    let mut tinted: Vec<[u8; 4]> = Vec::new();
    let mut at = 0;
    for a in parts {
        match (a.colors, layout.one_tint) {
            (Some(c), true) => put(at, bytemuck::cast_slice(c)),
            (c, _) => {
                let t = if layout.one_tint { [1.0; 4] } else { a.tint };
                tinted.clear();
                match c {
                    Some(c) => tinted.extend(
                        c.iter()
                            .map(|c| std::array::from_fn(|k| (c[k] as f32 * t[k] + 0.5) as u8)),
                    ),
                    None => tinted.resize(
                        a.positions.len(),
                        std::array::from_fn(|k| (255.0 * t[k] + 0.5) as u8),
                    ),
                }
                put(at, bytemuck::cast_slice(&tinted));
            }
        }
        at += a.positions.len();
    }
}

/// Writes each part's texture coordinates, (0, 0) for a part without.
fn put_uvs(parts: &[VertexArrays], put: &mut Put) {
    let mut at = 0;
    for a in parts {
        match a.uvs {
            Some(uv) => put(at, bytemuck::cast_slice(uv)),
            None => put(
                at,
                bytemuck::cast_slice(&vec![[0.0f32; 2]; a.positions.len()]),
            ),
        }
        at += a.positions.len();
    }
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
    let decode = |c: f32| crate::texture::srgb_to_linear(byte(c));
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
