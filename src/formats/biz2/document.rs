//! DIV-BIZ2 files through the document interface: one parse builds the chunk tree, the model,
//! the inspector view and the info summary; the scene is built from the model once the
//! libraries and texture maps it names have been read.

use super::raw::{ChunkTree, MAGIC_GEOMETRY, MAGIC_MATERIALS};
use super::materials::{self, library_file_names, split_material_ref, Libraries};
use super::scene;
use super::summary::{self, Info};
use super::{inspect, Biz2File, FileKind, MaterialRef};
use crate::formats::Assets;
use crate::formats::kind::{Head, Kind, Purpose};
use crate::formats::{Diagnostic, DocStats, Document, InfoRow, ParseError, Reference};
use crate::inspect::InspectorView;
use crate::gallery::MaterialCard;
use crate::scene::Scene;

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
    /// Taken by `build_scene` (its arrays move into the scene).
    model: Option<Biz2File>,
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
    /// A library's materials as cards, made with the scene (once its maps are read).
    gallery: Option<Vec<MaterialCard>>,
}

pub fn open(path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let mut tree = ChunkTree::parse(&bytes);
    // Described fields only for the inspector; a summary needs their byte counts alone.
    let model = Biz2File::build_with(&mut tree, purpose == Purpose::Show);
    let inspector = (purpose == Purpose::Show).then(|| inspect::view(&tree, &model));
    let error = tree.error.clone().map(|e| if kind == crate::formats::biz2::UNREADABLE { named_but_not(path, &bytes, e) } else { e });
    let damaged = error.is_some() && tree.damaged_tail;
    let info = (error.is_none() || damaged).then(|| summary::summarize(&tree, &model));
    let diagnostics = model.diagnostics.clone();
    let stats = stats(&tree, &model);
    let references = references(&model);
    drop(tree);
    Box::new(Biz2Document {
        kind,
        materials: model.materials.iter().filter_map(|m| m.name.clone()).collect(),
        diagnostics,
        damaged,
        model: Some(model),
        references,
        error,
        inspector,
        info,
        stats,
        path: path.to_string(),
        bytes,
        gallery: None,
    })
}

/// A file whose name claims the family but whose content does not: the error says both, so
/// that it never reads as a broken chunk of a real DIV-BIZ2 file.
fn named_but_not(path: &str, bytes: &[u8], e: ParseError) -> ParseError {
    let ext = crate::formats::extension(path).to_ascii_uppercase();
    let magic = if ext == "BMF" { "DIV-BMF2 or DIV-BIZ2" } else { "DIV-BIZ2" };
    let found = match bytes.get(..8) {
        Some(head) => format!("its first 8 bytes are {:?}", String::from_utf8_lossy(head)),
        None => format!("the file has {} bytes", bytes.len()),
    };
    ParseError { message: format!("named .{ext}, but it does not start with {magic}: {found}"), ..e }
}

fn references(model: &Biz2File) -> Vec<Reference> {
    let mut out: Vec<Reference> = Vec::new();
    let object_refs = model.objects.iter().flat_map(|o| [&o.front, &o.back]);
    let patch_refs = model.objects.iter().flat_map(|o| o.lods.iter()).flat_map(|l| l.patches.iter()).flat_map(|p| [&p.front, &p.back]);
    for r in patch_refs.chain(object_refs) {
        let Some(MaterialRef::Named(written)) = r else { continue };
        if out.iter().any(|o| o.written == *written) {
            continue;
        }
        let Some((lib, item)) = split_material_ref(written) else { continue };
        out.push(Reference { role: "material", written: written.clone(), names: library_file_names(lib), item: Some(item.to_string()) });
    }
    for t in &model.textures {
        if let Some(map) = &t.map {
            let base = crate::formats::base_name(map).to_string();
            if !out.iter().any(|o| o.names == [base.clone()]) {
                out.push(Reference { role: "texture map", written: map.clone(), names: vec![base], item: None });
            }
        }
    }
    out
}

fn stats(tree: &ChunkTree<'_>, model: &Biz2File) -> DocStats {
    let records = tree.stats.ids().map(|(id, n)| (format!("{id:#06x} {}", super::tags::name(id).unwrap_or("UNKNOWN")), n)).collect();
    let [w1, w2, w4] = tree.length_widths();
    let mut s = DocStats {
        records,
        unknown_records: tree.unknown_tags().iter().map(|id| format!("{id:#06x}")).collect(),
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
        s.zones = parts.zones.into_iter().map(|(z, i)| (z, i.patches)).collect();
        s.behaviours = parts.behaviours.into_iter().map(|(w, n)| (w.to_string(), n)).collect();
    }
    s
}

/// The material libraries among `assets`: documents of this format whose model is still held.
fn libraries(assets: &dyn Assets) -> Libraries<'_> {
    Libraries { assets, library: |d| d.as_any().downcast_ref::<Biz2Document>().and_then(Biz2Document::model) }
}

impl Biz2Document {
    /// The parsed model (until the scene has been built from it).
    pub fn model(&self) -> Option<&Biz2File> {
        self.model.as_ref()
    }
    pub fn summary(&self) -> Option<&Info> {
        self.info.as_ref()
    }
    fn material_refs(&self) -> Vec<String> {
        self.references.iter().filter(|r| r.role == "material").map(|r| r.written.clone()).collect()
    }
}

impl Document for Biz2Document {
    crate::formats::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = self.info.as_ref().map(Info::rows).unwrap_or_default();
        if let (true, Some(e)) = (self.damaged, &self.error) {
            rows.insert(0, InfoRow::warning("damaged", format!("{e}; what comes before it is shown")));
        }
        rows
    }
    fn damaged(&self) -> bool {
        self.damaged
    }
    /// The summary's own word, "geometry" or "materials", where the file was read.
    fn kind_word(&self) -> String {
        let read = self.info.as_ref().and_then(|i| serde_json::to_value(i.kind).ok()).and_then(|v| v.as_str().map(String::from));
        read.unwrap_or_else(|| self.kind.as_str().to_string())
    }
    fn info_json(&self) -> String {
        match (&self.info, &self.error) {
            // Written straight from the summary: a value tree of a large file's summary
            // would cost several times the file.
            (Some(info), None) => serde_json::to_string(info).unwrap_or_else(|e| crate::formats::summary_json(serde_json::json!({ "format": "biz2" }), Some(&ParseError::new(0, "", e.to_string())))),
            // Damaged: what was read, and the damage as its error.
            (Some(info), Some(e)) => crate::formats::summary_json(serde_json::to_value(info).unwrap_or_else(|_| serde_json::json!({ "format": "biz2" })), Some(e)),
            (None, e) => crate::formats::summary_json(serde_json::json!({ "format": "biz2" }), e.as_ref()),
        }
    }
    fn references(&self) -> Vec<Reference> {
        self.references.clone()
    }
    fn exports(&self) -> Vec<String> {
        self.materials.clone()
    }
    fn gallery(&self) -> Option<&[MaterialCard]> {
        self.gallery.as_deref()
    }
    fn needs(&self, assets: &dyn Assets) -> Vec<String> {
        let mut out = materials::needs(&libraries(assets), &self.path, &self.material_refs());
        // A library shown on its own shows its textures too.
        if let Some(m) = self.model.as_ref().filter(|m| m.kind == FileKind::Materials && self.inspector.is_some() && out.is_empty()) {
            out = materials::own_maps(assets, &self.path, m);
        }
        out
    }
    fn build_scene(&mut self, assets: &dyn Assets) -> Option<Scene> {
        let model = self.model.take()?;
        if model.kind == FileKind::Materials && self.inspector.is_some() {
            self.gallery = Some(materials::cards(assets, &self.path, &model));
        }
        // A library (by magic or by FILETYPE) draws nothing unless it holds triangles.
        let geometry = model.kind == FileKind::Geometry;
        let libraries = libraries(assets);
        let (scene, statuses) = scene::build(&self.path, model, &libraries);
        if let Some(info) = self.info.as_mut().filter(|_| assets.resolves()) {
            // Every named reference, back faces' and objects' included (sorted, as listed).
            let resolved: Vec<_> = info.materials.iter().map(|m| materials::resolution(&libraries, &self.path, m)).collect();
            info.missing_materials = Some(resolved.iter().filter(|r| !r.found).map(|r| r.reference.clone()).collect());
            info.material_resolution = Some(resolved);
            info.texture_status = Some(statuses);
        }
        (geometry || scene.meshes.iter().any(|m| m.triangle_count() > 0)).then_some(scene)
    }
    fn scene_as_asset(&self, assets: &dyn Assets) -> Option<Scene> {
        let model = self.model.as_ref().filter(|m| m.kind == FileKind::Geometry)?;
        Some(scene::build(&self.path, model.clone(), &libraries(assets)).0)
    }
    fn stats(&self) -> DocStats {
        self.stats.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{open_file, MemorySource};
    use crate::formats::biz2::writer::{write_nodes, Node, WriteOptions};
    use crate::formats::biz2::tags;
    use crate::scene::source_of;
    use std::cell::RefCell;

    fn opened(path: &str) -> (crate::archive::Opened, Vec<u8>) {
        let source = MemorySource::new(crate::demo::demo_files());
        let archive = RefCell::new(source.archive());
        let o = pollster::block_on(open_file(&archive, &source, path)).unwrap();
        (o, source.files[&path.to_ascii_lowercase()].clone())
    }

    #[test]
    fn every_triangle_maps_to_the_bytes_of_its_face() {
        let (o, bytes) = opened("DEMO/VIDEO/HEXPOD.BGF");
        let scene = o.scene.unwrap();
        let view = o.document.inspector().unwrap();
        let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        // LOD 0's PMESH: hexagons (ppf 6), quads (ppf 4), then the roof triangles (CONN).
        let prim = &scene.meshes[0].primitives[0];
        let lists: Vec<_> = view.chunks.iter().filter(|c| c.name == "PCONN_LIST" || c.name == "CONNECTION_LIST").take(3).collect();
        let bytes_of = |t: u32| source_of(&prim.sources, t).unwrap().face_bytes(t, (0, 0));
        // Triangle 5 is the second hexagon's second triangle (4 per face).
        assert_eq!(bytes_of(5), (lists[0].payload_offset + 1 + 24, lists[0].payload_offset + 1 + 48));
        assert_eq!(i32_at(bytes_of(5).0), 6, "the top hexagon starts at vertex 6");
        // Triangle 8 + 3 is the second quad.
        assert_eq!(bytes_of(11), (lists[1].payload_offset + 1 + 16, lists[1].payload_offset + 1 + 32));
        assert_eq!(i32_at(bytes_of(11).0), 1);
        // Roof triangle 2 (after 8 + 12) is the third 12-byte entry: (8, 12, 9).
        let (s, e) = bytes_of(22);
        assert_eq!((s, e - s), (lists[2].payload_offset + 24, 12));
        assert_eq!([i32_at(s), i32_at(s + 4), i32_at(s + 8)], [8, 12, 9]);
    }

    #[test]
    fn face_bytes_stay_right_after_skipped_faces() {
        // Four quads; the second indexes a vertex that does not exist and is skipped.
        let positions: Vec<f32> = (0..8).flat_map(|i| [i as f32, (i % 2) as f32, 0.0]).collect();
        let quads: Vec<i32> = vec![0, 1, 3, 2, 2, 3, 99, 4, 4, 5, 7, 6, 0, 2, 4, 6];
        let mut pconn = vec![4u8];
        pconn.extend(quads.iter().flat_map(|i| i.to_le_bytes()));
        let pmesh = Node::container(tags::PMESH, vec![Node::floats(0x0080, &positions), Node::leaf(tags::PCONN_LIST, pconn)]);
        let patch = Node::container(tags::PATCH, vec![pmesh]);
        let bytes = write_nodes(b"DIV-BIZ2", &[Node::container(tags::OBJECT, vec![patch])], WriteOptions::default());
        let source = MemorySource::new([("A.BGF".to_string(), bytes.clone())]);
        let archive = RefCell::new(source.archive());
        let o = pollster::block_on(open_file(&archive, &source, "A.BGF")).unwrap();
        assert_eq!(o.document.diagnostics().len(), 1, "the bad face is reported");
        let prim = &o.scene.as_ref().unwrap().meshes[0].primitives[0];
        assert_eq!(prim.triangle_count(), 6);
        let list = o.document.inspector().unwrap().chunks.iter().find(|c| c.name == "PCONN_LIST").unwrap().clone();
        // Triangles 2 and 3 are the third quad (the second was skipped): bytes of face 2.
        for t in [2, 3] {
            let (s, e) = source_of(&prim.sources, t).unwrap().face_bytes(t, (0, 0));
            assert_eq!((s, e), (list.payload_offset + 1 + 32, list.payload_offset + 1 + 48), "triangle {t}");
            assert_eq!(i32::from_le_bytes(bytes[s..s + 4].try_into().unwrap()), 4);
        }
    }

    #[test]
    fn repeated_attributes_keep_every_special_and_report_what_is_ignored() {
        let special = |s: &str| Node::string(tags::SV_SPECIAL, s);
        let patch = Node::container(tags::PATCH, vec![Node::string(tags::NAME, "first"), Node::string(tags::NAME, "second"), special(" A "), special(" B ")]);
        let object = Node::container(tags::OBJECT, vec![special("obj1"), special("obj2"), patch]);
        let texture = Node::container(tags::TEXTURE, vec![Node::string(tags::NAME, "t"), special("ADDITIVE"), special(" SCROLL 0 0 1 2 ")]);
        let bytes = write_nodes(b"DIV-BIZ2", &[texture, object], WriteOptions::default());
        let doc = open("X.BGF", bytes, crate::formats::biz2::GEOMETRY, Purpose::Show);
        let json: serde_json::Value = serde_json::from_str(&doc.info_json()).unwrap();
        assert_eq!(json["specials"], serde_json::json!([" A ", " B ", "obj1", "obj2"]));
        assert_eq!(json["textures"][0]["specials"], serde_json::json!(["ADDITIVE", " SCROLL 0 0 1 2 "]));
        assert_eq!(json["textures"][0]["scroll"], serde_json::json!([0.0, 0.0, 1.0, 2.0]));
        let d = doc.diagnostics();
        assert_eq!(d.len(), 1, "{d:?}");
        assert!(d[0].message.contains("a second NAME in PATCH is ignored"), "{}", d[0].message);
        assert_eq!(d[0].path, "OBJECT[0]/PATCH[0]/NAME[1]");
        let model = doc.as_any().downcast_ref::<Biz2Document>().unwrap().model().unwrap();
        assert_eq!(model.objects[0].lods[0].patches[0].name.as_deref(), Some("first"));
    }

    #[test]
    fn a_library_is_found_nearest_first_and_its_failure_is_kept() {
        let mut files = crate::demo::demo_files();
        let lib = files.iter().find(|(p, _)| p.ends_with("DEMO.BMF")).unwrap().1.clone();
        let cube = files.iter().find(|(p, _)| p.ends_with("CUBE.BGF")).unwrap().1.clone();
        files.push(("OTHER/MATERIAL/DEMO.BMF".into(), lib[..100].to_vec()));
        files.push(("OTHER/VIDEO/CUBE.BGF".into(), cube));
        let source = MemorySource::new(files);
        let archive = RefCell::new(source.archive());
        let o = pollster::block_on(open_file(&archive, &source, "other/video/cube.bgf")).unwrap();
        assert_eq!(o.path, "OTHER/VIDEO/CUBE.BGF", "the archive's spelling");
        let info: serde_json::Value = serde_json::from_str(&o.document.info_json()).unwrap();
        let res = &info["material_resolution"][0];
        assert_eq!(res["library"], "OTHER/MATERIAL/DEMO.BMF");
        assert_eq!(res["found"], false);
        assert!(res["library_error"].as_str().unwrap().contains("at byte"), "{res}");
        assert_eq!(o.scene.unwrap().triangle_count(0), 12, "the model still draws");
    }
}

#[cfg(test)]
mod shared_textures {
    use crate::archive::{open_file, MemorySource};
    use crate::formats::biz2::writer::{write_file, WriteOptions};
    use crate::formats::biz2::{Biz2File, FileKind, Header, MaterialDef, MaterialRef, TextureDef, TextureRef};
    use std::cell::RefCell;

    /// Thirty materials on one map file: the map is read and decoded once, and the scene
    /// holds its texels once.
    #[test]
    fn one_map_file_is_one_texture_however_many_materials_use_it() {
        let files = crate::demo::demo_files();
        let mut lib = Biz2File::new(FileKind::Materials, Header::default());
        lib.textures.push(TextureDef { map: Some("WATER.TGA".into()), ..TextureDef::new("water") });
        let mut model = Biz2File::parse(&files.iter().find(|(p, _)| p.ends_with("CUBE.BGF")).unwrap().1).unwrap().1;
        let patch = model.objects[0].lods[0].patches[0].clone();
        model.objects[0].lods[0].patches.clear();
        for k in 0..30 {
            lib.materials.push(MaterialDef { diffuse: Some([0.5, 0.5, 0.5]), texture: Some(TextureRef { mode: 2, name: Some("water".into()) }), ..MaterialDef::new(&format!("m{k}")) });
            let mut p = patch.clone();
            p.front = Some(MaterialRef::Named(format!("lib:m{k}")));
            model.objects[0].lods[0].patches.push(p);
        }
        let water = files.iter().find(|(p, _)| p.ends_with("WATER.TGA")).unwrap().1.clone();
        let source = MemorySource::new([
            ("G/VIDEO/M.BGF".to_string(), write_file(&model, WriteOptions::default())),
            ("G/MATERIAL/LIB.BMF".to_string(), write_file(&lib, WriteOptions::default())),
            ("G/TEXTURE/WATER.TGA".to_string(), water),
        ]);
        let archive = RefCell::new(source.archive());
        let scene = pollster::block_on(open_file(&archive, &source, "G/VIDEO/M.BGF")).unwrap().scene.unwrap();
        assert_eq!(scene.materials.len(), 30);
        assert_eq!(scene.textures.len(), 1);
        assert!(scene.materials.iter().all(|m| m.texture == Some(0)));
    }
}
