//! BSX files through the document interface, LZS-wrapped (as on the disc) or not: the
//! decompressed bytes are what the inspector's rows refer to, the container's own bytes a
//! second byte view; the scene is the models with their skeletons, parts and animations.

use super::inspect;
use super::raw::BsxFile;
use super::inspect::Records;
use super::scene::{self, Extras};
use super::vram::{PageKey, Vram};
use super::tdb_document::TdbDocument;
use crate::formats::{file_name, Assets};
use crate::formats::lzs::Stored;
use crate::formats::kind::{Head, Kind, Purpose};
use crate::findings::Diagnostics;
use crate::formats::{Diagnostic, DocStats, Document, InfoRow, ParseError, Reference};
use crate::inspect::InspectorView;
use crate::scene::Scene;
use crate::words::count_len;
use serde::Serialize;

/// A .BSX, compressed or not; under that name anything else is opened as BSX too, to say
/// what is wrong with it.
pub fn sniff(h: &Head) -> bool {
    h.ext == "bsx"
}
pub fn sniff_bcx(h: &Head) -> bool {
    h.ext == "bcx"
}

pub struct BsxDocument {
    kind: Kind,
    path: String,
    stored: Stored,
    parsed: Option<BsxFile>,
    records: Records,
    error: Option<ParseError>,
    diagnostics: Diagnostics,
    inspector: Option<InspectorView>,
    /// What the scene took from other files (or looked for and did not find).
    links: Vec<InfoRow>,
    /// The VRAM the scene's textures were sampled from and each one's page, once built.
    pages: Option<(Vram, Vec<PageKey>)>,
}

impl BsxDocument {
    /// The parsed file (a BCX reads as a file of one model).
    pub fn file(&self) -> Option<&BsxFile> {
        self.parsed.as_ref()
    }

    /// The character a BCX holds, by its name (1 for CLOUD.BCX …), if it is one.
    fn character(&self) -> Option<u8> {
        let name = file_name(&self.path);
        (self.kind == Kind::Bcx).then(|| super::CHARACTERS.iter().position(|c| c.eq_ignore_ascii_case(name)).map(|i| i as u8 + 1)).flatten()
    }

    /// The characters whose BCX the scene merges in, and whether any polygon shows an eye
    /// or a mouth (which FIELD.TDB supplies).
    fn wants(&self) -> (Vec<u8>, bool) {
        let Some(f) = &self.parsed else { return (Vec::new(), false) };
        let mut characters: Vec<u8> = f.models.iter().map(|m| m.global_id).filter(|g| super::character_file(*g).is_some()).collect();
        characters.sort_unstable();
        characters.dedup();
        // A character's eyes and mouth are in its BCX parts: a character needs faces too.
        let faces = !characters.is_empty() || f.parts.values().flat_map(|d| &d.flags).any(|&w| w & 0x3F < 2);
        (characters, faces)
    }
}

pub fn open(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let bcx = kind == Kind::Bcx;
    let stored = Stored::read(path, if bcx { "bcx" } else { "bsx" }, file);
    let mut error = stored.error.clone();
    let parsed = match error {
        Some(_) => None,
        None => if bcx { BsxFile::parse_bcx(stored.bytes()) } else { BsxFile::parse(stored.bytes()) }.map_err(|e| error = Some(e)).ok(),
    };
    let diagnostics = parsed.as_ref().map(|f| f.diagnostics.clone()).unwrap_or_default();
    // An asset (a character's BCX, merged into the model that names it) lends its records
    // to no inspector: it builds none.
    let (inspector, records) = match (&parsed, purpose) {
        (Some(f), Purpose::Show) => {
            let (mut view, records) = inspect::view(f, stored.bytes(), stored.bytes().len(), stored.container());
            view.diagnostics = diagnostics.kept.clone();
            view.diagnostics_dropped = diagnostics.dropped;
            (Some(view), records)
        }
        (None, Purpose::Show) => (Some(stored.failed_view("bsx", error.clone())), Records::default()),
        (_, Purpose::Asset) => (None, Records::default()),
    };
    let mut doc = BsxDocument { kind, path: path.to_string(), stored, parsed, records, error, diagnostics, inspector, links: Vec::new(), pages: None };
    // A BCX alone draws its character with the face its name implies.
    if let (Some(g), Some(f)) = (doc.character(), doc.parsed.as_mut()) {
        f.models[0].face_id = g - 1;
    }
    Box::new(doc)
}

#[derive(Serialize)]
struct ModelJson {
    bones: usize,
    parts: usize,
    animations: usize,
    triangles: usize,
    vertices: usize,
    scale: u16,
    /// 1..9: a playable character whose skeleton and parts are in its BCX.
    character: u8,
}

impl Document for BsxDocument {
    crate::formats::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        self.stored.view(view)
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![InfoRow::new("format", self.kind.title()), self.stored.bytes_row()];
        if let Some(f) = &self.parsed {
            for (k, m) in f.models.iter().enumerate() {
                let own = format!("{} · {} · {} · {}", count_len(m.bones.len(), "bone"), count_len(m.parts.len(), "part"), count_len(m.animations.len(), "animation"), count_len(f.triangles(m), "triangle"));
                let value = match super::character_file(m.global_id) {
                    Some(bcx) => format!("character {} ({bcx} brings its skeleton, parts and first animations) · this record adds {own}", m.global_id),
                    None => own,
                };
                rows.push(InfoRow::new(if f.bcx.is_some() { "character".to_string() } else { format!("model {k}") }, value));
            }
            if let Some(t) = &f.textures {
                rows.push(InfoRow::new("textures", format!("{} VRAM rectangles", t.rects.len())));
            }
        }
        rows.extend(self.links.iter().cloned());
        rows.extend(self.diagnostics.iter().map(|d| InfoRow::warning(format!("warning @{}", d.offset), format!("{}: {}", d.path, d.message))));
        if self.diagnostics.dropped > 0 {
            rows.push(InfoRow::warning("more warnings", format!("{} not listed", self.diagnostics.dropped)));
        }
        rows
    }
    fn info_json(&self) -> String {
        let models: Vec<ModelJson> = self
            .parsed
            .iter()
            .flat_map(|f| f.models.iter().map(move |m| ModelJson { bones: m.bones.len(), parts: m.parts.len(), animations: m.animations.len(), triangles: f.triangles(m), vertices: f.vertices(m), scale: m.scale, character: m.global_id }))
            .collect();
        let triangles: usize = models.iter().map(|m| m.triangles).sum();
        let fields = serde_json::json!({
            "format": if self.kind == Kind::Bcx { "bcx" } else { "bsx" },
            "compressed": self.stored.compressed,
            "models": models,
            "triangles": triangles,
            "bytes": self.stored.file.len(),
            "decompressed_bytes": self.stored.bytes().len(),
            "textures": self.parsed.as_ref().and_then(|f| f.textures.as_ref()).map_or(0, |t| t.rects.len()),
            "diagnostics": self.diagnostics.kept,
            "diagnostics_dropped": self.diagnostics.dropped,
        });
        crate::formats::summary_json(fields, self.error.as_ref())
    }
    fn references(&self) -> Vec<Reference> {
        let (characters, faces) = self.wants();
        let mut refs: Vec<Reference> = characters.iter().filter_map(|&g| super::character_file(g)).map(|bcx| Reference { role: "character", written: bcx.to_string(), names: vec![bcx.to_string()], item: None }).collect();
        if faces {
            refs.push(Reference { role: "eyes and mouths", written: FACES.to_string(), names: vec![FACES.to_string()], item: None });
        }
        refs
    }
    fn needs(&self, assets: &dyn Assets) -> Vec<String> {
        self.references().iter().filter_map(|r| assets.resolve(&self.path, &r.names).file).filter(|p| !assets.known(p)).collect()
    }
    fn build_scene(&mut self, assets: &dyn Assets) -> Option<Scene> {
        let (characters, faces) = self.wants();
        let mut extras = Extras::default();
        let mut links = Vec::new();
        let found = |name: &str| assets.resolve(&self.path, &[name.to_string()]).file;
        for g in characters {
            let bcx = super::character_file(g).expect("wants() keeps known characters");
            let doc = found(bcx).and_then(|p| assets.get(&p).map(|d| (p, d)));
            match doc.as_ref().and_then(|(p, d)| Some((p, d.as_any().downcast_ref::<BsxDocument>()?.file()?))) {
                Some((p, f)) => {
                    extras.characters[g as usize - 1] = Some(f);
                    links.push(InfoRow::new(format!("character {g}"), format!("skeleton, parts and animations merged from {p}")).with_links(vec![p.clone()]));
                }
                None => links.push(InfoRow::warning(format!("character {g}"), why_not(assets, found(bcx), bcx, "its records are drawn alone"))),
            }
        }
        if faces {
            let doc = found(FACES).and_then(|p| assets.get(&p).map(|d| (p, d)));
            match doc.as_ref().and_then(|(p, d)| d.as_any().downcast_ref::<TdbDocument>().and_then(|t| Some((p, t.parsed.as_ref()?, t.bytes())))) {
                Some((p, t, bytes)) => {
                    extras.faces = Some((t, bytes));
                    links.push(InfoRow::new("eyes and mouths", format!("from {p}")).with_links(vec![p.clone()]));
                }
                None => links.push(InfoRow::warning("eyes and mouths", why_not(assets, found(FACES), FACES, "drawn grey"))),
            }
        }
        let f = self.parsed.as_ref()?;
        let built = scene::build(file_name(&self.path), f, self.stored.bytes(), &self.records, &extras);
        self.links = links;
        if let Some(message) = built.refused {
            let d = Diagnostic { offset: f.offset_models as usize, path: "models".into(), message };
            if let Some(view) = self.inspector.as_mut().filter(|_| self.diagnostics.has_room()) {
                view.diagnostics.push(d.clone());
            }
            self.diagnostics.push(d);
        }
        self.pages = Some((built.vram, built.pages));
        Some(built.scene)
    }
    fn texel_source(&self, texture: usize, x: u32, y: u32) -> Vec<(String, String)> {
        let Some((vram, pages)) = &self.pages else { return Vec::new() };
        let Some(&key) = pages.get(texture) else { return Vec::new() };
        let t = vram.texel(key, x as usize, y as usize);
        let mut out = vec![("VRAM word".to_string(), format!("0x{:04X} at ({}, {})", t.word, t.at.0, t.at.1))];
        if let Some(i) = t.index {
            out.push(("CLUT index".to_string(), format!("{i} of the CLUT at ({}, {})", key.clut_x, key.clut_y)));
        }
        let c = t.colour;
        let stp = if c & 0x8000 != 0 { ", STP set" } else { "" };
        out.push(("colour".to_string(), format!("0x{c:04X}: red {} green {} blue {} of 31{stp}", c & 0x1F, (c >> 5) & 0x1F, (c >> 10) & 0x1F)));
        out
    }
    fn stats(&self) -> DocStats {
        let Some(f) = &self.parsed else { return DocStats::default() };
        DocStats { triangles: f.models.iter().map(|m| f.triangles(m)).sum(), diagnostics: self.diagnostics.total(), ..Default::default() }
    }
}

/// The file that holds every model's eyes and mouths.
const FACES: &str = "FIELD.TDB";

/// Why a file the scene wanted is not in it.
fn why_not(assets: &dyn Assets, path: Option<String>, name: &str, then: &str) -> String {
    match path {
        None => format!("{name} is not in the archive: {then}"),
        Some(p) => match assets.failure(&p) {
            Some(why) => format!("{why}: {then}"),
            None => format!("{p} could not be read as {name}: {then}"),
        },
    }
}
