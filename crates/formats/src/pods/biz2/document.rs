//! DIV-BIZ2 files through the document interface: one parse builds the chunk tree, the model,
//! the inspector view and the info summary; the scene is built from the model once the
//! libraries and texture maps it names have been read.

use super::materials::{
    self, library_file_names, split_material_ref, Libraries, MaterialResolution, TextureStatus,
};
use super::raw::{ChunkTree, MAGIC_GEOMETRY, MAGIC_MATERIALS};
use super::scene;
use super::summary::{self, Info};
use super::{inspect, Biz2File, FileKind, MaterialRef, Primitive};
use crate::gallery::MaterialCard;
use crate::inspect::InspectorView;
use crate::kind::{Head, Kind, Purpose};
use crate::scene::Scene;
use crate::Assets;
use crate::{Diagnostic, DocStats, Document, InfoRow, ParseError, Reference};
use std::borrow::Cow;
use std::cell::RefCell;

/// DIV-BIZ2 is also the magic of some material libraries (their FILETYPE says so): a .BMF
/// with it is a library, as its name says, not a model.
pub fn sniff_geometry(h: &Head) -> bool {
    h.bytes.starts_with(MAGIC_GEOMETRY) && h.ext != "bmf"
}
pub fn sniff_materials(h: &Head) -> bool {
    h.bytes.starts_with(MAGIC_MATERIALS) || (h.bytes.starts_with(MAGIC_GEOMETRY) && h.ext == "bmf")
}
/// A name of the family without its magic: opened as DIV-BIZ2 to say what is wrong.
pub fn sniff_unreadable(h: &Head) -> bool {
    matches!(h.ext.as_str(), "bgf" | "bmf" | "b2z")
}

pub struct Biz2Document {
    kind: Kind,
    bytes: Vec<u8>,
    /// The parsed model, its patches' primitives held apart in `arrays`.
    model: Option<Biz2File>,
    /// Every patch's primitives (vertex and index arrays), in the model's order: most of a
    /// large model's memory, so the first scene built takes them rather than copying them
    /// (a copy held a 12 MB model at 4× the file). A later build reads the file again, and
    /// builds the same scene. Nothing describes them: the summary and the stats are made
    /// at open.
    arrays: RefCell<Option<Vec<Vec<Primitive>>>>,
    references: Vec<Reference>,
    materials: Vec<String>,
    error: Option<ParseError>,
    /// `error` is damage at the file's end: the rest is shown.
    damaged: bool,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
    info: Option<Info>,
    stats: DocStats,
    path: String,
}

/// What building the scene found: how each named material and texture map resolved (the
/// info's), and a library's materials as cards (once its maps are read).
#[derive(Default)]
struct Resolved {
    info: Option<(Vec<MaterialResolution>, Vec<TextureStatus>)>,
    gallery: Option<Vec<MaterialCard>>,
}

pub fn open(path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let mut tree = ChunkTree::parse(&bytes);
    // Described fields only for the inspector; a summary needs their byte counts alone.
    let model = Biz2File::build_with(&mut tree, purpose.describes());
    let inspector = purpose.describes().then(|| inspect::view(&tree, &model));
    let error = tree.error.clone().map(|e| {
        if kind == crate::pods::biz2::UNREADABLE {
            named_but_not(path, &bytes, e)
        } else {
            e
        }
    });
    let damaged = error.is_some() && tree.damaged_tail;
    let info = (error.is_none() || damaged).then(|| summary::summarize(&tree, &model));
    let diagnostics = model.diagnostics.clone();
    let stats = stats(&tree, &model);
    let references = references(&model);
    drop(tree);
    let mut model = model;
    let arrays = take_arrays(&mut model);
    Box::new(Biz2Document {
        kind,
        materials: model
            .materials
            .iter()
            .filter_map(|m| m.name.clone())
            .collect(),
        diagnostics,
        damaged,
        model: Some(model),
        arrays: RefCell::new(Some(arrays)),
        references,
        error,
        inspector,
        info,
        stats,
        path: path.to_string(),
        bytes,
    })
}

/// Every patch's primitives, taken out of `model` in its order.
fn take_arrays(model: &mut Biz2File) -> Vec<Vec<Primitive>> {
    patches(model)
        .map(|p| std::mem::take(&mut p.primitives))
        .collect()
}

fn patches(model: &mut Biz2File) -> impl Iterator<Item = &mut super::Patch> {
    model
        .objects
        .iter_mut()
        .flat_map(|o| o.lods.iter_mut())
        .flat_map(|l| l.patches.iter_mut())
}

/// A file whose name claims the family but whose content does not: the error says both, so
/// that it never reads as a broken chunk of a real DIV-BIZ2 file.
fn named_but_not(path: &str, bytes: &[u8], e: ParseError) -> ParseError {
    let ext = crate::extension(path).to_ascii_uppercase();
    let magic = if ext == "BMF" {
        "DIV-BMF2 or DIV-BIZ2"
    } else {
        "DIV-BIZ2"
    };
    let found = match bytes.get(..8) {
        Some(head) => format!("its first 8 bytes are {:?}", String::from_utf8_lossy(head)),
        None => format!("the file has {} bytes", bytes.len()),
    };
    ParseError {
        message: format!("named .{ext}, but it does not start with {magic}: {found}"),
        ..e
    }
}

fn references(model: &Biz2File) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    let object_refs = model.objects.iter().flat_map(|o| [&o.front, &o.back]);
    let patch_refs = model
        .objects
        .iter()
        .flat_map(|o| o.lods.iter())
        .flat_map(|l| l.patches.iter())
        .flat_map(|p| [&p.front, &p.back]);
    for r in patch_refs.chain(object_refs) {
        let Some(MaterialRef::Named(written)) = r else {
            continue;
        };
        if out.iter().any(|o| o.written == *written) {
            continue;
        }
        let Some((lib, item)) = split_material_ref(written) else {
            continue;
        };
        out.push(Reference {
            role: "material",
            written: written.clone(),
            names: library_file_names(lib),
            item: Some(item.to_string()),
        });
    }
    for t in &model.textures {
        if let Some(map) = &t.map {
            let base = crate::base_name(map).to_string();
            if !out.iter().any(|o| o.names == [base.clone()]) {
                out.push(Reference {
                    role: "texture map",
                    written: map.clone(),
                    names: vec![base],
                    item: None,
                });
            }
        }
    }
    out
}

fn stats(tree: &ChunkTree<'_>, model: &Biz2File) -> DocStats {
    let records = tree
        .stats
        .ids()
        .map(|(id, n)| {
            (
                format!("{id:#06x} {}", super::tags::name(id).unwrap_or("UNKNOWN")),
                n,
            )
        })
        .collect();
    let [w1, w2, w4] = tree.length_widths();
    let mut s = DocStats {
        records,
        unknown_records: tree
            .unknown_tags()
            .iter()
            .map(|id| format!("{id:#06x}"))
            .collect(),
        length_widths: vec![("1", w1), ("2", w2), ("4", w4)],
        records_read: true,
        closes_exactly: tree.closes_exactly,
        diagnostics: model.diagnostics.len() + model.diagnostics_dropped,
        ..Default::default()
    };
    if tree.error.is_none() {
        for o in &model.objects {
            let tris: usize = o.lods.iter().map(|l| l.triangle_count()).sum();
            if tris > 0 {
                s.mesh_objects += 1;
            } else if !o.points.is_empty() {
                s.point_only_objects += 1;
            }
        }
        s.triangles = model.triangle_count();
        let parts = super::summary::PartCounts::of(model);
        s.zones = parts
            .zones
            .into_iter()
            .map(|(z, i)| (z, i.patches))
            .collect();
        s.behaviours = parts
            .behaviours
            .into_iter()
            .map(|(w, n)| (w.to_string(), n))
            .collect();
    }
    s
}

/// The material libraries among `assets`: documents of this format whose model is still held.
fn libraries(assets: &dyn Assets) -> Libraries<'_> {
    Libraries {
        assets,
        library: |d| {
            d.as_any()
                .downcast_ref::<Biz2Document>()
                .and_then(Biz2Document::model)
        },
    }
}

impl Biz2Document {
    /// The parsed model, without its patches' primitives (held apart: `arrays`).
    pub fn model(&self) -> Option<&Biz2File> {
        self.model.as_ref()
    }
    /// The summary, with how the references resolved where the scene's build `found` it
    /// (copied only then: a large file's summary lists every object).
    pub fn summary(&self, found: &crate::Found) -> Option<Cow<'_, Info>> {
        let info = self.info.as_ref()?;
        let Some((resolved, statuses)) = found.own::<Resolved>().and_then(|r| r.info.as_ref())
        else {
            return Some(Cow::Borrowed(info));
        };
        let mut info = info.clone();
        info.missing_materials = Some(
            resolved
                .iter()
                .filter(|r| !r.found)
                .map(|r| r.reference.clone())
                .collect(),
        );
        info.material_resolution = Some(resolved.clone());
        info.texture_status = Some(statuses.clone());
        Some(Cow::Owned(info))
    }
    /// The patches' primitives, which `take` takes (the document's own scene) or copies (a
    /// model placed in a world, perhaps by several); once taken, read from the file again.
    fn arrays(&self, take: bool) -> Vec<Vec<Primitive>> {
        let held = match take {
            true => self.arrays.borrow_mut().take(),
            false => self.arrays.borrow().clone(),
        };
        held.unwrap_or_else(|| {
            take_arrays(&mut Biz2File::build_with(
                &mut ChunkTree::parse(&self.bytes),
                false,
            ))
        })
    }
    fn material_refs(&self) -> Vec<String> {
        self.references
            .iter()
            .filter(|r| r.role == "material")
            .map(|r| r.written.clone())
            .collect()
    }
}

impl Document for Biz2Document {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn damaged(&self) -> bool {
        self.damaged
    }
    fn references(&self) -> Vec<Reference> {
        self.references.clone()
    }
    fn exports(&self) -> Vec<String> {
        self.materials.clone()
    }
    fn gallery<'a>(&'a self, found: &'a crate::Found) -> Option<&'a [MaterialCard]> {
        found.own::<Resolved>()?.gallery.as_deref()
    }
    fn needs(&self, assets: &dyn Assets) -> Vec<String> {
        let mut out = materials::needs(&libraries(assets), &self.path, &self.material_refs());
        // A library shown on its own shows its textures too.
        if let Some(m) = self
            .model
            .as_ref()
            .filter(|m| m.kind == FileKind::Materials && self.inspector.is_some() && out.is_empty())
        {
            out = materials::own_maps(assets, &self.path, m);
        }
        out
    }
    fn build_scene(&self, assets: &dyn Assets) -> crate::Built {
        let Some(model) = self.model.as_ref() else {
            return crate::Built::default();
        };
        let mut found = Resolved::default();
        if model.kind == FileKind::Materials && self.inspector.is_some() {
            found.gallery = Some(materials::cards(assets, &self.path, model));
        }
        // A library (by magic or by FILETYPE) draws nothing unless it holds triangles.
        let geometry = model.kind == FileKind::Geometry;
        let libraries = libraries(assets);
        let (scene, statuses) = scene::build(&self.path, model, self.arrays(true), &libraries);
        if let Some(info) = self.info.as_ref().filter(|_| assets.resolves()) {
            // Every named reference, back faces' and objects' included (sorted, as listed).
            let resolved: Vec<_> = info
                .materials
                .iter()
                .map(|m| materials::resolution(&libraries, &self.path, m))
                .collect();
            found.info = Some((resolved, statuses));
        }
        crate::Built {
            scene: (geometry || scene.meshes.iter().any(|m| m.triangle_count() > 0))
                .then_some(scene),
            found: crate::Found::of(found),
        }
    }
    fn scene_as_asset(&self, assets: &dyn Assets) -> Option<Scene> {
        let model = self
            .model
            .as_ref()
            .filter(|m| m.kind == FileKind::Geometry)?;
        let arrays = self.arrays(false);
        Some(scene::build(&self.path, model, arrays, &libraries(assets)).0)
    }
    /// The summary's own word, "geometry" or "materials", where the file was read.
    fn kind_word(&self) -> String {
        let read = self
            .info
            .as_ref()
            .and_then(|i| serde_json::to_value(i.kind).ok())
            .and_then(|v| v.as_str().map(String::from));
        read.unwrap_or_else(|| self.kind.as_str().to_string())
    }
}

/// What `info` says of a DIV-BIZ2 file: its summary (what was read, with what the scene's
/// build resolved), and the damage where the file is damaged.
struct Biz2Info<'a> {
    summary: Option<Cow<'a, Info>>,
    damage: Option<&'a ParseError>,
}

impl crate::Info for Biz2Info<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = self
            .summary
            .as_ref()
            .map(|info| info.rows())
            .unwrap_or_default();
        if let Some(e) = self.damage {
            rows.insert(
                0,
                InfoRow::warning("damaged", format!("{e}; what comes before it is shown")),
            );
        }
        rows
    }
    fn json(&self, error: Option<&ParseError>) -> String {
        match (&self.summary, error) {
            // Written straight from the summary: a value tree of a large file's summary
            // would cost several times the file.
            (Some(info), None) => serde_json::to_string(info).unwrap_or_else(|e| {
                crate::summary_json(
                    serde_json::json!({ "format": "biz2" }),
                    Some(&ParseError::new(0, "", e.to_string())),
                )
            }),
            // Damaged: what was read, and the damage as its error.
            (Some(info), Some(e)) => crate::summary_json(
                serde_json::to_value(info)
                    .unwrap_or_else(|_| serde_json::json!({ "format": "biz2" })),
                Some(e),
            ),
            (None, e) => crate::summary_json(serde_json::json!({ "format": "biz2" }), e),
        }
    }
}

impl crate::Describe for Biz2Document {
    crate::stored_inspector!();
    fn info<'a>(&'a self, found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(Biz2Info {
            summary: self.summary(found),
            damage: self.error.as_ref().filter(|_| self.damaged),
        })
    }
    fn stats(&self, _found: &crate::Found) -> DocStats {
        self.stats.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pods::biz2::tags;
    use crate::pods::biz2::writer::{write_nodes, Node, WriteOptions};

    #[test]
    fn repeated_attributes_keep_every_special_and_report_what_is_ignored() {
        let special = |s: &str| Node::string(tags::SV_SPECIAL, s);
        let patch = Node::container(
            tags::PATCH,
            vec![
                Node::string(tags::NAME, "first"),
                Node::string(tags::NAME, "second"),
                special(" A "),
                special(" B "),
            ],
        );
        let object = Node::container(tags::OBJECT, vec![special("obj1"), special("obj2"), patch]);
        let texture = Node::container(
            tags::TEXTURE,
            vec![
                Node::string(tags::NAME, "t"),
                special("ADDITIVE"),
                special(" SCROLL 0 0 1 2 "),
            ],
        );
        let bytes = write_nodes(b"DIV-BIZ2", &[texture, object], WriteOptions::default());
        let doc = open("X.BGF", bytes, crate::pods::biz2::GEOMETRY, Purpose::Show);
        let json: serde_json::Value =
            serde_json::from_str(&crate::Described::alone(&*doc).info_json()).unwrap();
        assert_eq!(
            json["specials"],
            serde_json::json!([" A ", " B ", "obj1", "obj2"])
        );
        assert_eq!(
            json["textures"][0]["specials"],
            serde_json::json!(["ADDITIVE", " SCROLL 0 0 1 2 "])
        );
        assert_eq!(
            json["textures"][0]["scroll"],
            serde_json::json!([0.0, 0.0, 1.0, 2.0])
        );
        let d = doc.diagnostics();
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(
            d[0].message.contains("a second NAME in PATCH is ignored"),
            "{}",
            d[0].message
        );
        assert_eq!(d[0].path, "OBJECT[0]/PATCH[0]/NAME[1]");
        let model = doc
            .as_any()
            .downcast_ref::<Biz2Document>()
            .unwrap()
            .model()
            .unwrap();
        assert_eq!(
            model.objects[0].lods[0].patches[0].name.as_deref(),
            Some("first")
        );
    }
}
