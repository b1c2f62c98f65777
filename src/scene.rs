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
    /// The primitive chunk and the PATCH chunk that holds it.
    pub chunk: u32,
    pub patch_chunk: u32,
    /// The front material reference, verbatim ("lib:name").
    pub material: Option<String>,
    /// Index into [`SceneModel::textures`].
    pub texture: Option<u32>,
}

impl MeshPart {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
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
