//! Neutral scene data: what the formats produce and the renderer draws. No GPU, no browser.

use crate::formats::biz2::model::SourceRun;
use serde::Serialize;

/// The triangles of one primitive chunk (PMESH, TRISTRIP …), with its vertices as the file
/// stores them: the arrays are moved out of the model, not copied.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MeshPart {
    pub positions: Vec<[f32; 3]>,
    /// Per vertex, when the vertex format has normals; otherwise faces shade flat.
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB bytes per vertex: vertex colours, or the material's colour (× luminance).
    pub colors: Vec<[u8; 4]>,
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Three per triangle, into this part's vertices.
    pub indices: Vec<u32>,
    /// Which chunk produced which triangles (for picking), as runs in triangle order.
    pub triangle_sources: Vec<SourceRun>,
    /// The primitive chunk, and the PATCH, LOD (if any) and OBJECT chunks that hold it.
    pub chunk: u32,
    pub patch_chunk: u32,
    pub lod_chunk: Option<u32>,
    pub object_chunk: u32,
    /// The front material reference, verbatim ("lib:name").
    pub material: Option<String>,
    /// Index into [`SceneModel::textures`].
    pub texture: Option<u32>,
}

impl MeshPart {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Whether the whole part came from `chunk` or lies inside it.
    pub fn within(&self, chunk: u32) -> bool {
        self.chunk == chunk || self.patch_chunk == chunk || self.lod_chunk == Some(chunk) || self.object_chunk == chunk
    }
}

/// One LOD's triangles: a part per primitive.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Mesh {
    pub parts: Vec<MeshPart>,
}

impl Mesh {
    pub fn triangle_count(&self) -> usize {
        self.parts.iter().map(MeshPart::triangle_count).sum()
    }

    /// The nearest triangle a ray hits (both faces count: winding is unconfirmed):
    /// (part, triangle within the part, distance along `dir`).
    pub fn pick(&self, origin: [f32; 3], dir: [f32; 3]) -> Option<(usize, u32, f32)> {
        let (o, d) = (glam::Vec3::from(origin), glam::Vec3::from(dir));
        let mut best: Option<(usize, u32, f32)> = None;
        for (k, part) in self.parts.iter().enumerate() {
            for (t, tri) in part.indices.chunks_exact(3).enumerate() {
                let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| glam::Vec3::from(part.positions[i as usize]));
                // Möller–Trumbore.
                let (e1, e2) = (b - a, c - a);
                let p = d.cross(e2);
                let det = e1.dot(p);
                if det.abs() < 1e-12 {
                    continue;
                }
                let s = o - a;
                let u = s.dot(p) / det;
                if !(0.0..=1.0).contains(&u) {
                    continue;
                }
                let q = s.cross(e1);
                let v = d.dot(q) / det;
                if v < 0.0 || u + v > 1.0 {
                    continue;
                }
                let dist = e2.dot(q) / det;
                if dist > 0.0 && dist.is_finite() && best.is_none_or(|b| dist < b.2) {
                    best = Some((k, t as u32, dist));
                }
            }
        }
        best
    }

    /// Axis-aligned bounds of the finite positions that triangles use, or None.
    pub fn bounds(&self) -> Option<Bounds> {
        let mut it = self
            .parts
            .iter()
            .flat_map(|p| p.indices.iter().map(|&i| p.positions[i as usize]))
            .filter(|p| p.iter().all(|x| x.is_finite()));
        let first = glam::Vec3::from(it.next()?);
        let (min, max) = it.fold((first, first), |(lo, hi), p| {
            let p = glam::Vec3::from(p);
            (lo.min(p), hi.max(p))
        });
        Some(Bounds { min: min.into(), max: max.into() })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    pub fn center(&self) -> glam::Vec3 {
        (glam::Vec3::from(self.min) + glam::Vec3::from(self.max)) * 0.5
    }
    pub fn radius(&self) -> f32 {
        (glam::Vec3::from(self.max) - glam::Vec3::from(self.min)).length() * 0.5
    }
}

/// One level of detail: its mesh and the camera distances [in, out] it is meant for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SceneLod {
    pub mesh: Mesh,
    pub distance: Option<[f32; 2]>,
}

/// A texture as the renderer needs it: texels (decoded, or a tinted checker standing in),
/// and its UV drift.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SceneTexture {
    pub name: String,
    pub texels: crate::texture::Texels,
    /// [u0, v0, du, dv]: UV offset (u0 + du·t, v0 + dv·t), t in seconds.
    pub scroll: Option<[f32; 4]>,
}

/// How a patch looks: what its material resolved to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Surface {
    pub diffuse: Option<[f32; 3]>,
    pub texture: Option<u32>,
}

/// A whole model ready to draw: one mesh per LOD (LOD i of every object), light points as
/// (centre, radius), and the textures the meshes' groups refer to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SceneModel {
    pub lods: Vec<SceneLod>,
    pub points: Vec<([f32; 3], f32)>,
    pub textures: Vec<SceneTexture>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(z: f32, chunk: u32) -> MeshPart {
        MeshPart {
            positions: vec![[-1.0, -1.0, z], [1.0, -1.0, z], [1.0, 1.0, z], [-1.0, 1.0, z]],
            colors: vec![[255; 4]; 4],
            indices: vec![0, 1, 2, 0, 2, 3],
            chunk,
            ..Default::default()
        }
    }

    #[test]
    fn pick_finds_the_nearest_triangle_from_either_side() {
        let mesh = Mesh { parts: vec![quad(0.0, 10), quad(-2.0, 20)] };
        // From +z looking down -z: the quad at z=0 is nearer.
        assert_eq!(mesh.pick([0.5, -0.5, 5.0], [0.0, 0.0, -1.0]), Some((0, 0, 5.0)));
        assert_eq!(mesh.pick([-0.5, 0.5, 5.0], [0.0, 0.0, -1.0]).map(|p| (p.0, p.1)), Some((0, 1)));
        // From -z: the other quad, back faces included.
        assert_eq!(mesh.pick([0.5, -0.5, -5.0], [0.0, 0.0, 1.0]).map(|p| p.0), Some(1));
        // Beside both, or looking away: nothing.
        assert_eq!(mesh.pick([3.0, 0.0, 5.0], [0.0, 0.0, -1.0]), None);
        assert_eq!(mesh.pick([0.0, 0.0, 5.0], [0.0, 0.0, 1.0]), None);
    }
}
