//! What a draw uploads, and how, decided and written without a GPU: one primitive's arrays
//! ([`VertexArrays`]), the varyings a draw passes ([`Varyings`]), the layout decided once
//! for a draw of several parts ([`DrawLayout`]), the bytes of each attribute written part by
//! part (placed, turned, tinted), gathered into runs for few uploads ([`Staged`]), and the
//! box around the parts as placed. The WebGL side (webgl/geometry.rs) hands these its
//! buffers; natively they are what the renderer's unit tests reach.

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
pub fn normals_usable(normals: &[[f32; 3]]) -> bool {
    normals.iter().all(|n| {
        let length = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        length.is_finite() && length > 1e-12
    })
}

/// Writes bytes at a vertex number of the buffer being filled.
pub type Put<'a> = dyn FnMut(usize, &[u8]) + 'a;

/// Bytes gathered before one `bufferSubData` when parts are small.
pub const STAGED_BYTES: usize = 1 << 16;

/// A buffer's bytes, written in order, uploaded in runs: a merged draw of thousands of small
/// parts (a world's buildings) goes up in a few calls instead of one a part, each of which
/// crosses into the browser; a part of `STAGED_BYTES` or more still goes up straight from
/// its own array.
pub struct Staged<F: FnMut(usize, &[u8])> {
    upload: F,
    /// Byte offset of `pending` in the buffer.
    start: usize,
    pending: Vec<u8>,
}

impl<F: FnMut(usize, &[u8])> Staged<F> {
    pub fn new(upload: F) -> Self {
        Staged {
            upload,
            start: 0,
            pending: Vec::new(),
        }
    }

    pub fn put(&mut self, offset: usize, bytes: &[u8]) {
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

    pub fn flush(&mut self) {
        if !self.pending.is_empty() {
            (self.upload)(self.start, &self.pending);
            self.pending.clear();
        }
    }
}

/// The box around `parts` as placed: each part's own box, its corners placed (larger for a
/// turned part than its points', which culling allows), without placing every point.
/// → (min, max), or None when no part has a vertex.
pub fn placed_box(parts: &[VertexArrays]) -> Option<([f32; 3], [f32; 3])> {
    let (mut min, mut max) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    let mut any = false;
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
    any.then_some((min, max))
}

/// Bytes a draw of `parts` sends to the GPU.
pub fn upload_bytes(parts: &[VertexArrays]) -> usize {
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
pub fn colours_needed(parts: &[VertexArrays]) -> bool {
    parts
        .iter()
        .any(|a| a.colors.is_some() || a.tint != parts[0].tint)
}

/// What a draw of some parts uploads, decided once from the parts.
pub struct DrawLayout {
    pub varyings: Varyings,
    pub uvs: bool,
    /// Every part has the same tint (a uniform then, not baked into colour bytes).
    pub one_tint: bool,
    /// One part, placed by a uniform: its vertices go up as they are.
    pub single: bool,
}

impl DrawLayout {
    pub fn of(parts: &[VertexArrays]) -> DrawLayout {
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
    pub fn placed(&self, a: &VertexArrays) -> bool {
        !self.single && a.model != glam::Mat4::IDENTITY
    }
}

/// Writes each part's positions, placed where `layout` says, through one scratch array
/// reused (a world's thousands of small parts make no allocation each).
pub fn put_positions(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
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
pub fn put_normals(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
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
pub fn put_colours(parts: &[VertexArrays], layout: &DrawLayout, put: &mut Put) {
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
pub fn put_uvs(parts: &[VertexArrays], put: &mut Put) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};

    fn part<'a>(
        positions: &'a [[f32; 3]],
        normals: Option<&'a [[f32; 3]]>,
        colors: Option<&'a [[u8; 4]]>,
        model: Mat4,
        tint: [f32; 4],
    ) -> VertexArrays<'a> {
        VertexArrays {
            positions,
            normals,
            colors,
            uvs: None,
            indices: &[0, 1, 2],
            model,
            tint,
        }
    }

    const TRIANGLE: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    const UP: [[f32; 3]; 3] = [[0.0, 0.0, 1.0]; 3];
    const WHITE: [f32; 4] = [1.0; 4];

    /// What `write` puts for `parts`, as values of `N` components read back per vertex.
    fn written<T: bytemuck::Pod + Default + Copy, const N: usize>(
        parts: &[VertexArrays],
        write: impl Fn(&[VertexArrays], &mut Put),
    ) -> Vec<[T; N]> {
        let vertices: usize = parts.iter().map(|a| a.positions.len()).sum();
        let mut out = vec![[T::default(); N]; vertices];
        let mut put = |at: usize, bytes: &[u8]| {
            let values: &[[T; N]] = bytemuck::cast_slice(bytes);
            out[at..at + values.len()].copy_from_slice(values);
        };
        write(parts, &mut put);
        out
    }

    #[test]
    fn a_draw_passes_normals_only_where_every_part_has_usable_ones() {
        let zero = [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let id = Mat4::IDENTITY;
        let every = [part(&TRIANGLE, Some(&UP), None, id, WHITE); 2];
        assert_eq!(DrawLayout::of(&every).varyings.normals, Normals::Every);
        let some = [
            part(&TRIANGLE, Some(&UP), None, id, WHITE),
            part(&TRIANGLE, Some(&zero), None, id, WHITE),
        ];
        assert_eq!(DrawLayout::of(&some).varyings.normals, Normals::Some);
        let none = [
            part(&TRIANGLE, Some(&UP), None, id, WHITE),
            part(&TRIANGLE, None, None, id, WHITE),
        ];
        assert_eq!(DrawLayout::of(&none).varyings.normals, Normals::None);
        let nan = [[f32::NAN, 0.0, 1.0]; 3];
        assert!(!normals_usable(&nan));
    }

    #[test]
    fn colours_are_an_attribute_only_where_they_differ() {
        let id = Mat4::IDENTITY;
        let red = [1.0, 0.0, 0.0, 1.0];
        let bytes = [[10u8, 20, 30, 255]; 3];
        let shared = [part(&TRIANGLE, None, None, id, red); 3];
        let layout = DrawLayout::of(&shared);
        assert!(!layout.varyings.vertex_colors && layout.one_tint);
        let tints = [
            part(&TRIANGLE, None, None, id, red),
            part(&TRIANGLE, None, None, id, WHITE),
        ];
        let layout = DrawLayout::of(&tints);
        assert!(layout.varyings.vertex_colors && !layout.one_tint);
        let coloured = [
            part(&TRIANGLE, None, Some(&bytes), id, red),
            part(&TRIANGLE, None, None, id, red),
        ];
        assert!(DrawLayout::of(&coloured).varyings.vertex_colors);
        assert!(colours_needed(&coloured) && !colours_needed(&shared));
    }

    #[test]
    fn placed_parts_are_baked_and_a_single_part_goes_up_as_it_is() {
        let moved = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
        let one = [part(&TRIANGLE, None, None, moved, WHITE)];
        let layout = DrawLayout::of(&one);
        assert!(layout.single && !layout.placed(&one[0]));
        let positions: Vec<[f32; 3]> = written(&one, |p, put| put_positions(p, &layout, put));
        assert_eq!(positions, TRIANGLE, "one part is placed by a uniform");

        let two = [
            part(&TRIANGLE, None, None, Mat4::IDENTITY, WHITE),
            part(&TRIANGLE, None, None, moved, WHITE),
        ];
        let layout = DrawLayout::of(&two);
        assert!(!layout.placed(&two[0]) && layout.placed(&two[1]));
        let positions: Vec<[f32; 3]> = written(&two, |p, put| put_positions(p, &layout, put));
        assert_eq!(&positions[..3], &TRIANGLE);
        assert_eq!(
            &positions[3..],
            &[[10.0, 0.0, 0.0], [11.0, 0.0, 0.0], [10.0, 1.0, 0.0]]
        );
    }

    #[test]
    fn normals_are_turned_by_the_inverse_transpose_of_the_placement() {
        // Stretched twice along x: a surface leaning on x leans less, so its normal turns
        // towards y (a normal matrix of diag(1/2, 1, 1)).
        let stretched = Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0));
        let leaning = [[1.0, 1.0, 0.0]; 3];
        let parts = [
            part(&TRIANGLE, Some(&UP), None, Mat4::IDENTITY, WHITE),
            part(&TRIANGLE, Some(&leaning), None, stretched, WHITE),
        ];
        let layout = DrawLayout::of(&parts);
        let normals: Vec<[f32; 3]> = written(&parts, |p, put| put_normals(p, &layout, put));
        assert_eq!(&normals[..3], &UP);
        for n in &normals[3..] {
            assert!((n[0] - 0.5).abs() < 1e-6 && (n[1] - 1.0).abs() < 1e-6 && n[2] == 0.0);
        }
    }

    #[test]
    fn colour_bytes_carry_each_part_s_tint_when_the_tints_differ() {
        let id = Mat4::IDENTITY;
        let bytes = [[200u8, 100, 50, 255]; 3];
        let half = [0.5, 0.5, 0.5, 1.0];
        let shared = [part(&TRIANGLE, None, Some(&bytes), id, half); 2];
        let layout = DrawLayout::of(&shared);
        let colours: Vec<[u8; 4]> = written(&shared, |p, put| put_colours(p, &layout, put));
        assert_eq!(
            colours,
            vec![[200, 100, 50, 255]; 6],
            "a shared tint is a uniform"
        );

        let differing = [
            part(&TRIANGLE, None, Some(&bytes), id, half),
            part(&TRIANGLE, None, None, id, [0.5, 1.0, 0.0, 1.0]),
        ];
        let layout = DrawLayout::of(&differing);
        let colours: Vec<[u8; 4]> = written(&differing, |p, put| put_colours(p, &layout, put));
        // Rounded to the nearest byte: 200 × 0.5 = 100, 255 × 0.5 = 127.5 → 128.
        assert_eq!(&colours[..3], &[[100, 50, 25, 255]; 3]);
        assert_eq!(&colours[3..], &[[128, 255, 0, 255]; 3]);
    }

    #[test]
    fn a_part_without_texture_coordinates_gets_zeros_at_its_place() {
        let uvs = [[0.25f32, 0.75]; 3];
        let mut with = part(&TRIANGLE, None, None, Mat4::IDENTITY, WHITE);
        with.uvs = Some(&uvs);
        let without = part(&TRIANGLE, None, None, Mat4::IDENTITY, WHITE);
        let written: Vec<[f32; 2]> = written(&[without, with], |p, put| put_uvs(p, put));
        assert_eq!(&written[..3], &[[0.0, 0.0]; 3]);
        assert_eq!(&written[3..], &uvs);
    }

    #[test]
    fn small_parts_go_up_in_runs_and_large_ones_straight() {
        let mut uploads: Vec<(usize, usize)> = Vec::new();
        let mut staged =
            Staged::new(|offset: usize, bytes: &[u8]| uploads.push((offset, bytes.len())));
        // A thousand 12-byte parts end to end: one run.
        for k in 0..1000 {
            staged.put(k * 12, &[0; 12]);
        }
        // A gap: the run so far goes up, a new one starts.
        staged.put(20_000, &[0; 12]);
        // A part of the run's size or more goes up alone, after the run before it.
        staged.put(20_012, &vec![0; STAGED_BYTES]);
        // Runs never pass STAGED_BYTES.
        let base = 100_000;
        for k in 0..(STAGED_BYTES / 1000 + 1) {
            staged.put(base + k * 1000, &[0; 1000]);
        }
        staged.flush();
        drop(staged);
        let mut expected = vec![
            (0, 12_000),
            (20_000, 12),
            (20_012, STAGED_BYTES),
            (base, STAGED_BYTES / 1000 * 1000),
        ];
        let last = base + STAGED_BYTES / 1000 * 1000;
        expected.push((last, 1000));
        assert_eq!(uploads, expected);
    }

    #[test]
    fn upload_bytes_count_each_attribute_and_the_index_width() {
        let uvs = [[0.0f32; 2]; 3];
        let mut p = part(&TRIANGLE, Some(&UP), None, Mat4::IDENTITY, WHITE);
        p.uvs = Some(&uvs);
        // Positions 12, normals 12, UVs 8 a vertex; 16-bit indices.
        assert_eq!(upload_bytes(&[p]), 3 * (12 + 12 + 8) + 3 * 2);
        let many = vec![[0.0f32; 3]; u16::MAX as usize + 2];
        let big = part(&many, None, None, Mat4::IDENTITY, WHITE);
        assert_eq!(
            upload_bytes(&[big]),
            many.len() * 12 + 3 * 4,
            "32-bit indices"
        );
    }

    #[test]
    fn the_box_holds_every_part_as_placed() -> Result<(), String> {
        let cube: Vec<[f32; 3]> = (0..8)
            .map(|c| [(c & 1) as f32, ((c >> 1) & 1) as f32, ((c >> 2) & 1) as f32])
            .collect();
        let moved = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0));
        let turned = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let parts = [
            part(&cube, None, None, moved, WHITE),
            part(&cube, None, None, turned, WHITE),
        ];
        let (min, max) = placed_box(&parts).ok_or("placed parts have a box")?;
        let half_diagonal = std::f32::consts::FRAC_1_SQRT_2;
        assert!((min[0] + half_diagonal).abs() < 1e-6, "{min:?}");
        assert_eq!((max[0], max[1], max[2]), (6.0, 2.0 * half_diagonal, 1.0));
        assert_eq!(placed_box(&[part(&[], None, None, moved, WHITE)]), None);
        Ok(())
    }
}
