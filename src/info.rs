//! The summary behind `relicview info --json` and the viewer's info panel. Its field names
//! are a contract that scripts rely on: add fields, never rename.

use crate::archive::{AssetSet, MaterialResolution, TextureStatus};
use crate::formats::biz2::raw::Coverage;
use crate::formats::biz2::{Biz2File, ChunkTree, DeclaredBounds, FileKind, MaterialRef};
use crate::formats::{Diagnostic, ParseError};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LodInfo {
    pub distance: Option<[f32; 2]>,
    pub vertices: usize,
    pub triangles: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ObjectInfo {
    pub name: Option<String>,
    pub lods: Vec<LodInfo>,
    pub points: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BoundsInfo {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MaterialInfo {
    pub name: String,
    pub diffuse: Option<[f32; 3]>,
    pub texture: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TextureInfo {
    pub name: String,
    pub map: Option<String>,
    /// [u0, v0, du, dv] from SPECIAL " SCROLL u0 v0 du dv ".
    pub scroll: Option<[f32; 4]>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Info {
    pub format: &'static str,
    pub kind: FileKind,
    pub bytes: usize,
    pub closes_exactly: bool,
    pub chunks: usize,
    pub length_widths: BTreeMap<&'static str, usize>,
    pub unknown_tags: Vec<u16>,
    pub unit: Option<u8>,
    pub scale: Option<f32>,
    pub objects: Vec<ObjectInfo>,
    pub triangles: usize,
    pub vertices: usize,
    pub bounds: Option<BoundsInfo>,
    /// The BOUND block's BBOX and BSPHERE, as the file declares them.
    pub declared_bounds: Option<DeclaredBounds>,
    pub materials: Vec<String>,
    pub specials: Vec<String>,
    pub material_defs: Vec<MaterialInfo>,
    pub textures: Vec<TextureInfo>,
    /// With an archive root: how each named material resolved (None without a root).
    pub material_resolution: Option<Vec<MaterialResolution>>,
    /// With an archive root: the named materials that could not be found.
    pub missing_materials: Option<Vec<String>>,
    /// With an archive root: each textured material's map, decoded or drawn as a checker.
    pub texture_status: Option<Vec<TextureStatus>>,
    /// Bytes by how they were accounted for.
    pub coverage: Coverage,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parse a DIV-BIZ2 file and summarise it.
pub fn biz2_info(bytes: &[u8]) -> Result<Info, ParseError> {
    let (tree, file) = Biz2File::parse(bytes)?;
    Ok(summarize(&tree, &file))
}

/// Summarise an already parsed file.
pub fn summarize(tree: &ChunkTree<'_>, file: &Biz2File) -> Info {
    let bytes = tree.bytes;
    let [w1, w2, w4] = tree.length_widths();
    let lod0 = || file.objects.iter().filter_map(|o| o.lods.first());
    let mut bounds: Option<BoundsInfo> = None;
    for p in lod0().flat_map(|l| l.primitives()).flat_map(|p| p.vertices.positions.iter()) {
        if !p.iter().all(|x| x.is_finite()) {
            continue;
        }
        let b = bounds.get_or_insert(BoundsInfo { min: *p, max: *p });
        for k in 0..3 {
            b.min[k] = b.min[k].min(p[k]);
            b.max[k] = b.max[k].max(p[k]);
        }
    }
    let patches = || file.objects.iter().flat_map(|o| o.lods.iter()).flat_map(|l| l.patches.iter());
    let object_refs = file.objects.iter().flat_map(|o| [&o.front, &o.back]);
    let mut materials: Vec<String> = patches()
        .flat_map(|p| [&p.front, &p.back])
        .chain(object_refs)
        .filter_map(|m| match m {
            Some(MaterialRef::Named(n)) => Some(n.clone()),
            _ => None,
        })
        .collect();
    materials.sort();
    materials.dedup();
    let mut specials: Vec<String> = patches().filter_map(|p| p.special.clone()).collect();
    specials.sort();
    specials.dedup();
    Info {
        format: "biz2",
        kind: file.kind,
        bytes: bytes.len(),
        closes_exactly: tree.closes_exactly,
        chunks: tree.chunks.len(),
        length_widths: BTreeMap::from([("1", w1), ("2", w2), ("4", w4)]),
        unknown_tags: tree.unknown_tags(),
        unit: file.header.unit,
        scale: file.header.scale,
        objects: file
            .objects
            .iter()
            .map(|o| ObjectInfo {
                name: o.name.clone(),
                lods: o.lods.iter().map(|l| LodInfo { distance: l.distance, vertices: l.vertex_count(), triangles: l.triangle_count() }).collect(),
                points: o.points.len(),
            })
            .collect(),
        triangles: file.triangle_count(),
        vertices: file.vertex_count(),
        bounds,
        declared_bounds: file.bounds.clone(),
        materials,
        specials,
        material_defs: file
            .materials
            .iter()
            .map(|m| MaterialInfo { name: m.name.clone().unwrap_or_default(), diffuse: m.diffuse, texture: m.texture_name().map(str::to_string) })
            .collect(),
        textures: file
            .textures
            .iter()
            .map(|t| TextureInfo { name: t.name.clone().unwrap_or_default(), map: t.map.clone(), scroll: t.scroll() })
            .collect(),
        material_resolution: None,
        missing_materials: None,
        texture_status: None,
        coverage: tree.coverage(),
        diagnostics: file.diagnostics.clone(),
    }
}

/// Fill in how the model's named materials resolve in an archive whose libraries have been
/// read into `assets`.
pub fn resolve_materials(info: &mut Info, assets: &AssetSet, model_path: &str) {
    let resolved: Vec<MaterialResolution> = info
        .materials
        .iter()
        .map(|r| {
            let mut res = assets.libraries.resolve(&assets.index, model_path, r).0;
            res.library_error = res.library.as_deref().and_then(|l| assets.failure(l)).map(str::to_string);
            res
        })
        .collect();
    info.missing_materials = Some(resolved.iter().filter(|r| !r.found).map(|r| r.reference.clone()).collect());
    info.material_resolution = Some(resolved);
}
