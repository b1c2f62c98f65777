//! Neutral scene data: what the formats produce and the renderer draws. No GPU, no browser.

use crate::formats::biz2::model::SourceRun;
use serde::Serialize;

/// A run of triangles that came from one primitive chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MeshGroup {
    /// The primitive chunk (PMESH, TRISTRIP …).
    pub chunk: u32,
    /// The PATCH chunk that holds it.
    pub patch_chunk: u32,
    pub first_triangle: u32,
    pub triangles: u32,
    /// The front material reference, verbatim ("lib:name").
    pub material: Option<String>,
    /// Index into [`SceneModel::textures`].
    pub texture: Option<u32>,
}

/// An indexed triangle mesh: the vertices as the file stores them, one index triple per
/// triangle.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    /// Per vertex, only when every primitive has normals; otherwise faces shade flat.
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB bytes per vertex.
    pub colors: Vec<[u8; 4]>,
    /// Texture coordinates per vertex ((0, 0) where the vertex block has none).
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
    /// Which chunk produced which triangles (for picking), as runs in triangle order.
    pub triangle_sources: Vec<SourceRun>,
    pub groups: Vec<MeshGroup>,
}

impl Mesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Axis-aligned bounds of the finite positions that triangles use, or None.
    pub fn bounds(&self) -> Option<Bounds> {
        let mut it = self.indices.iter().map(|&i| self.positions[i as usize]).filter(|p| p.iter().all(|x| x.is_finite()));
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
