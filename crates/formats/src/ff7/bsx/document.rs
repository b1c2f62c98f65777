//! BSX files through the document interface, LZS-wrapped (as on the disc) or not: the
//! decompressed bytes are what the inspector's rows refer to, the container's own bytes a
//! second byte view; the scene is the models with their skeletons, parts and animations.

use super::field_bin_document::{FieldBinDocument, NORMAL_TABLE};
use super::inspect;
use super::inspect::Records;
use super::raw::BsxFile;
use super::scene::{self, Extras, Face, Lit, ShutEyes};
use super::tdb_document::TdbDocument;
use super::vram;
use crate::ff7::lzs::Stored;
use crate::ff7::psx::{PageKey, Vram};
use crate::findings::Diagnostics;
use crate::inspect::InspectorView;
use crate::kind::{Head, Kind, Purpose};
use crate::scene::Scene;
use crate::words::{count, count_len};
use crate::{file_name, Assets};
use crate::{Diagnostic, DocStats, Document, InfoRow, ParseError, Reference};
use serde::Serialize;
use std::borrow::Cow;

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
    /// The error is a cut where the file ends: what lies wholly inside it is shown.
    damaged: bool,
    diagnostics: Diagnostics,
    inspector: Option<InspectorView>,
}

/// What building the scene found, which describing the file reads.
struct SceneFound {
    /// What the scene took from other files (or looked for and did not find).
    links: Vec<InfoRow>,
    /// The VRAM the scene's textures were sampled from and each one's page (with the model
    /// slot of a face page that blinks), and the shut eyes of the slots that blink (the
    /// lower half of their face pages).
    vram: Vram,
    pages: Vec<PageSampled>,
    shut_eyes: Vec<ShutEyes>,
    /// The face each model shows (from FIELD.BIN's tables where it was found).
    faces: Vec<Option<Face>>,
    /// The game's lighting of each polygon, and what became of each character's skeleton.
    lit: Option<Lit>,
    characters: Vec<(u8, String)>,
    /// Why the scene left models out, where it did.
    refused: Option<Diagnostic>,
    /// The file's findings with `refused`.
    diagnostics: Diagnostics,
}

impl BsxDocument {
    /// The scene, and what building it found.
    fn scene(&self, assets: &dyn Assets) -> Option<(Scene, SceneFound)> {
        let SceneFrom {
            built,
            mut links,
            field_bin,
            characters,
            faces_found,
        } = self.scene_from(assets)?;
        let f = self.parsed.as_ref()?;
        let (bcx_alone, offset_models) = (f.bcx.is_some(), f.offset_models as usize);
        match (&built.lit, &field_bin) {
            (Some(lit), Some(p)) => {
                let unlit = if lit.unlit.is_empty() { String::new() } else { format!("; {}", lit.unlit.join("; ")) };
                links.push(InfoRow::new("lighting", format!("lit by {p}: {}{unlit}", crate::words::count_len(lit.parts, "part"))).with_links(vec![p.clone()]));
                if lit.past_table > 0 {
                    links.push(InfoRow::warning("lighting", format!("{} past the normal table's 240 entries: lit with the bytes after it, as the engine would read them", crate::words::count_len(lit.past_table, "colour names a normal"))));
                }
            }
            (None, Some(p)) if bcx_alone => links.push(InfoRow::new("lighting", format!("stored colours: a character's lights are in the field files that place it ({p} is there for them)")).with_links(vec![p.clone()])),
            _ => {}
        }
        if built.faces.iter().any(Option::is_some) && faces_found {
            let source = match field_bin {
                Some(_) => format!("chosen by FIELD.BIN's face tables, eyes open; they blink, shut for {} every {} (relicview's cadence: the game's scripts drive its own)", count(scene::BLINK_FRAMES, "frame"), count(scene::BLINK_EVERY, "frame")),
                None => "guessed from FIELD.TDB's layout (no FIELD.BIN)".to_string(),
            };
            links.push(InfoRow::new("face images", source));
        }
        let refused = built.refused.map(|message| Diagnostic {
            offset: offset_models,
            path: "models".into(),
            message,
        });
        let mut diagnostics = self.diagnostics.clone();
        if let Some(d) = &refused {
            diagnostics.push(d.clone());
        }
        let found = SceneFound {
            links,
            vram: built.vram,
            pages: built.pages,
            shut_eyes: built.shut_eyes,
            faces: built.faces,
            lit: built.lit,
            characters,
            refused,
            diagnostics,
        };
        Some((built.scene, found))
    }

    /// The parsed file (a BCX reads as a file of one model).
    pub fn file(&self) -> Option<&BsxFile> {
        self.parsed.as_ref()
    }

    /// The character a BCX holds, by its name (1 for CLOUD.BCX …), if it is one.
    fn character(&self) -> Option<u8> {
        let name = file_name(&self.path);
        (self.kind == crate::ff7::bsx::BCX)
            .then(|| {
                super::CHARACTERS
                    .iter()
                    .position(|c| c.eq_ignore_ascii_case(name))
                    .map(|i| i as u8 + 1)
            })
            .flatten()
    }

    /// The characters whose BCX the scene merges in, and whether any polygon shows an eye
    /// or a mouth (which FIELD.TDB supplies).
    fn wants(&self) -> (Vec<u8>, bool) {
        let Some(f) = &self.parsed else {
            return (Vec::new(), false);
        };
        let mut characters: Vec<u8> = f
            .models
            .iter()
            .map(|m| m.global_id)
            .filter(|g| super::character_file(*g).is_some())
            .collect();
        characters.sort_unstable();
        characters.dedup();
        // A character's eyes and mouth are in its BCX parts: a character needs faces too.
        let faces = !characters.is_empty()
            || f.parts
                .values()
                .flat_map(|d| &d.flags)
                .any(|&w| w & 0x3F < 2);
        (characters, faces)
    }

    /// Whether FIELD.BIN has something to give: polygons to light, faces to choose images for.
    fn wants_field_bin(&self) -> bool {
        self.parsed.as_ref().is_some_and(|f| {
            !f.parts.is_empty()
                || f.models
                    .iter()
                    .any(|m| m.global_id != 0 || m.face_id < 0x21)
        })
    }

    /// The inspector after the scene's build: each polygon record's lit colours beside its
    /// stored ones, and a character's animation blocks labelled with what became of its
    /// skeleton.
    fn annotate(&self, view: &mut InspectorView, lit: Option<&Lit>, characters: &[(u8, String)]) {
        let Some(f) = self.parsed.as_ref() else {
            return;
        };
        if let Some(lit) = lit {
            for (&block, colours) in &lit.blocks {
                let Some(d) = f.parts.get(&block) else {
                    continue;
                };
                for (p, lit_words) in d.polygons.iter().zip(colours) {
                    let Some(&row) = self.records.polygon_rows.get(&p.offset) else {
                        continue;
                    };
                    let Some(record) = view
                        .chunks
                        .get_mut(row as usize)
                        .and_then(|r| r.ff7_polygon.as_mut())
                    else {
                        continue;
                    };
                    // (The colour words' fields keep saying what the bytes store: writing the
                    // lit colour into thousands of their texts took as long again as the
                    // lighting and the scene's build together.)
                    for (c, l) in record.corners.iter_mut().zip(lit_words) {
                        c.lit = Some(*l);
                    }
                }
            }
        }
        for &(row, g) in &self.records.character_animations {
            let Some(r) = view.chunks.get_mut(row as usize) else {
                continue;
            };
            if let Some((_, how)) = characters.iter().find(|(c, _)| *c == g) {
                r.label = format!("{} ({how})", r.label);
            }
        }
    }
}

pub fn open(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let bcx = kind == crate::ff7::bsx::BCX;
    let stored = Stored::read(path, kind.as_str(), file, super::raw::starts_like_a_model);
    let (parsed, mut error) = stored.parse(if bcx {
        BsxFile::parse_bcx
    } else {
        BsxFile::parse
    });
    // A container cut short that decoded to too little to read says so with why.
    if let (Some(e), Some(_)) = (error.as_mut(), stored.cut()) {
        e.message = format!("{}; {}", container_cut(&stored), e.message);
    }
    // Cut short: what lies wholly inside is shown, and the damage says where the file ends.
    let mut damaged = match parsed.as_ref().and_then(|f| f.cut.as_ref()) {
        Some(cut) => {
            error = Some(cut_error(cut, &stored));
            true
        }
        None => false,
    };
    // A file whose LZS header disagrees with the file reads: it is damaged, said at byte 0,
    // however well the rest reads.
    if let (None, Some(_)) = (&error, &parsed) {
        error = stored.header_damage();
        damaged = error.is_some();
    }
    let mut diagnostics = Diagnostics::default();
    diagnostics.merge(stored.header_finding(), 0);
    if let Some(f) = &parsed {
        diagnostics.merge(f.diagnostics.kept.iter().cloned(), f.diagnostics.dropped);
    }
    // An asset (a character's BCX, merged into the model that names it) lends its records
    // to no inspector: it builds none.
    let (inspector, records) = match (&parsed, purpose.describes()) {
        (Some(f), true) => {
            let (mut view, records) =
                inspect::view(f, stored.bytes(), stored.bytes().len(), stored.container());
            view.diagnostics = diagnostics.kept.clone();
            view.diagnostics_dropped = diagnostics.dropped;
            (Some(view), records)
        }
        (None, true) => (
            Some(stored.failed_view(kind.as_str(), error.clone())),
            Records::default(),
        ),
        (_, false) => (None, Records::default()),
    };
    let mut doc = BsxDocument {
        kind,
        path: path.to_string(),
        stored,
        parsed,
        records,
        error,
        damaged,
        diagnostics,
        inspector,
    };
    // A BCX alone draws its character with the face its name implies.
    if let (Some(g), Some(f)) = (doc.character(), doc.parsed.as_mut()) {
        f.models[0].face_id = g - 1;
    }
    Box::new(doc)
}

/// The damage of a file cut short: where it ends (its decompressed bytes, and the container's
/// where that is what was cut), what its header promised, what was left out.
fn cut_error(cut: &super::raw::Cut, stored: &Stored) -> ParseError {
    let len = stored.bytes().len();
    let mut left = cut.left_out.join("; ");
    if cut.more > 0 {
        left.push_str(&format!("; and {} more", cut.more));
    }
    let left = if left.is_empty() {
        "nothing the file's records point at".to_string()
    } else {
        left
    };
    let ends = if stored.cut().is_some() {
        container_cut(stored)
    } else {
        format!("cut short: the file ends at byte {len}")
    };
    ParseError::new(
        len,
        "",
        format!(
            "{ends}, size_file says {} bytes; left out: {left}",
            cut.declared
        ),
    )
}

/// Where a cut LZS container ends, against what its header says, and what that decoded to.
fn container_cut(stored: &Stored) -> String {
    let declared = stored.cut().unwrap_or(0) + 4;
    format!("cut short: the LZS container ends at byte {} of the {declared} its header says, which decompress to {} bytes", stored.file.len(), stored.bytes().len())
}

/// What `info` says of a field model file: its container, each model's counts and face,
/// its textures, and what was found reading it and building its scene.
#[derive(Serialize)]
struct BsxInfo<'a> {
    format: &'static str,
    #[serde(skip)]
    kind: Kind,
    compressed: bool,
    models: Vec<ModelInfo>,
    triangles: usize,
    /// Whether the file is a character's .BCX (its one model is the character).
    #[serde(skip)]
    bcx: bool,
    bytes: usize,
    decompressed_bytes: usize,
    /// The VRAM rectangles of the file's textures (0 where it has no texture section).
    textures: usize,
    #[serde(skip)]
    has_textures: bool,
    diagnostics: &'a [Diagnostic],
    diagnostics_dropped: usize,
    /// The damage, where the file is damaged (what lies wholly inside is shown).
    #[serde(skip)]
    damage: Option<&'a ParseError>,
    /// The rows naming the other files the scene's build used (FIELD.BIN, FIELD.TDB, a BCX).
    #[serde(skip)]
    links: &'a [InfoRow],
    #[serde(skip)]
    stored: &'a Stored,
}

#[derive(Serialize)]
struct ModelInfo {
    bones: usize,
    parts: usize,
    animations: usize,
    triangles: usize,
    vertices: usize,
    scale: u16,
    /// 1..9: a playable character whose skeleton and parts are in its BCX.
    character: u8,
    /// The character the record itself names (a BCX's names none: 0).
    #[serde(skip)]
    global_id: u8,
    /// The face the record's byte 0 names: its FIELD.TDB images as the model loads.
    #[serde(skip_serializing_if = "Option::is_none")]
    face: Option<FaceJson>,
}

impl crate::Summary for BsxInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            self.stored.bytes_row(),
        ];
        if let Some(e) = self.damage {
            rows.insert(
                0,
                InfoRow::warning(
                    "damaged",
                    format!("{}; what lies wholly inside is shown", e.message),
                ),
            );
        }
        for (k, m) in self.models.iter().enumerate() {
            let own = format!(
                "{} · {} · {} · {}",
                count_len(m.bones, "bone"),
                count_len(m.parts, "part"),
                count_len(m.animations, "animation"),
                count_len(m.triangles, "triangle")
            );
            let value = match super::character_file(m.global_id) {
                Some(bcx) => format!("character {} ({bcx} brings its skeleton, parts and first animations) · this record adds {own}", m.global_id),
                None => own,
            };
            let label = if self.bcx {
                "character".to_string()
            } else {
                format!("model {k}")
            };
            rows.push(InfoRow::new(label, value));
        }
        if self.has_textures {
            let t = self.textures;
            rows.push(InfoRow::new("textures", format!("{t} VRAM rectangles")));
        }
        rows.extend(self.links.iter().cloned());
        rows.extend(self.diagnostics.iter().map(|d| {
            InfoRow::warning(
                format!("warning @{}", d.offset),
                format!("{}: {}", d.path, d.message),
            )
        }));
        if self.diagnostics_dropped > 0 {
            rows.push(InfoRow::warning(
                "more warnings",
                format!("{} not listed", self.diagnostics_dropped),
            ));
        }
        rows
    }
}

#[derive(Serialize)]
struct FaceJson {
    id: u8,
    eyes: [u8; 2],
    mouth: u8,
    /// "FIELD.BIN" (the engine's tables) or "guess" (relicview's, from FIELD.TDB's layout).
    source: &'static str,
}

impl From<&Face> for FaceJson {
    fn from(f: &Face) -> FaceJson {
        FaceJson {
            id: f.id,
            eyes: [f.open[0], f.open[1]],
            mouth: f.open[2],
            source: if f.from_tables { "FIELD.BIN" } else { "guess" },
        }
    }
}

/// The file that holds the normals, the sine table and the face tables.
const FIELD_BIN: &str = "FIELD.BIN";

impl BsxDocument {
    /// The scene with what was found for it in `assets` (the BCXs, FIELD.TDB, FIELD.BIN):
    /// the built scene, the info rows saying what came from where, the FIELD.BIN it was lit
    /// by, and what became of each character.
    fn scene_from(&self, assets: &dyn Assets) -> Option<SceneFrom> {
        let (characters, faces) = self.wants();
        let mut extras = Extras::default();
        let mut links = Vec::new();
        for g in characters {
            self.merge_character(g, assets, &mut extras, &mut links);
        }
        if faces {
            self.find_faces(assets, &mut extras, &mut links);
        }
        let field_bin = if self.wants_field_bin() {
            self.find_field_bin(assets, &mut extras, &mut links)
        } else {
            None
        };
        let characters = self.skeletons_played(&extras);
        let f = self.parsed.as_ref()?;
        let built = scene::build(file_name(&self.path), f, self.stored.bytes(), &extras);
        let faces_found = extras.faces.is_some();
        Some(SceneFrom {
            built,
            links,
            field_bin,
            characters,
            faces_found,
        })
    }

    /// The path of the file `name` nearest this one in `assets`.
    fn nearest(&self, assets: &dyn Assets, name: &str) -> Option<String> {
        assets.resolve(&self.path, &[name.to_string()]).file
    }

    /// Playable character `g`'s BCX into `extras`, its skeleton, parts and animations to be
    /// merged, with an info row saying where from (or why not).
    fn merge_character<'a>(
        &self,
        g: u8,
        assets: &'a dyn Assets,
        extras: &mut Extras<'a>,
        links: &mut Vec<InfoRow>,
    ) {
        let bcx = super::character_file(g).expect("wants() keeps known characters");
        let path = self.nearest(assets, bcx);
        let file = path.as_ref().and_then(|p| {
            assets
                .get(p)?
                .as_any()
                .downcast_ref::<BsxDocument>()?
                .file()
        });
        match (file, &path) {
            (Some(f), Some(p)) => {
                extras.characters[g as usize - 1] = Some(f);
                links.push(
                    InfoRow::new(
                        format!("character {g}"),
                        format!("skeleton, parts and animations merged from {p}"),
                    )
                    .with_links(vec![p.clone()]),
                );
            }
            _ => links.push(InfoRow::warning(
                format!("character {g}"),
                why_not(assets, path, bcx, "its records are drawn alone"),
            )),
        }
    }

    /// FIELD.TDB into `extras` (the eyes and mouths), with an info row saying where from (or
    /// why not).
    fn find_faces<'a>(
        &self,
        assets: &'a dyn Assets,
        extras: &mut Extras<'a>,
        links: &mut Vec<InfoRow>,
    ) {
        let path = self.nearest(assets, FACES);
        let tdb = path.as_ref().and_then(|p| {
            let t = assets.get(p)?.as_any().downcast_ref::<TdbDocument>()?;
            Some((t.parsed.as_ref()?, t.bytes()))
        });
        match (tdb, &path) {
            (Some(t), Some(p)) => {
                extras.faces = Some(t);
                links.push(
                    InfoRow::new("eyes and mouths", format!("from {p}"))
                        .with_links(vec![p.clone()]),
                );
            }
            _ => links.push(InfoRow::warning(
                "eyes and mouths",
                why_not(assets, path, FACES, "drawn grey"),
            )),
        }
    }

    /// FIELD.BIN's tables into `extras` (the game's lighting). → its path, or `None` with an
    /// info row saying why it is not used.
    fn find_field_bin<'a>(
        &self,
        assets: &'a dyn Assets,
        extras: &mut Extras<'a>,
        links: &mut Vec<InfoRow>,
    ) -> Option<String> {
        let path = self.nearest(assets, FIELD_BIN);
        let tables = path.as_ref().and_then(|p| {
            assets
                .get(p)?
                .as_any()
                .downcast_ref::<FieldBinDocument>()?
                .tables
                .as_ref()
        });
        match (tables, path) {
            (Some(t), Some(p)) => {
                extras.tables = Some(t);
                Some(p)
            }
            (_, path) => {
                let why = why_not(
                    assets,
                    path,
                    FIELD_BIN,
                    "stored colours, and the faces' images guessed from FIELD.TDB's layout",
                );
                links.push(InfoRow::warning("lighting", why));
                None
            }
        }
    }

    /// What became of each character's skeleton, for its animation blocks' labels.
    fn skeletons_played(&self, extras: &Extras) -> Vec<(u8, String)> {
        self.wants()
            .0
            .iter()
            .filter_map(|&g| {
                let bcx = super::character_file(g)?;
                let how = match extras.characters[g as usize - 1] {
                    Some(c) => format!(
                        "played on {bcx}'s {}",
                        crate::words::count_len(c.models[0].bones.len(), "bone")
                    ),
                    None => format!("{bcx} not in this archive"),
                };
                Some((g, how))
            })
            .collect()
    }
}

/// What [`BsxDocument::scene_from`] made.
struct SceneFrom {
    built: scene::Built,
    links: Vec<InfoRow>,
    /// The FIELD.BIN the scene was lit by.
    field_bin: Option<String>,
    /// What became of each character's skeleton.
    characters: Vec<(u8, String)>,
    /// Whether FIELD.TDB's eyes and mouths were found.
    faces_found: bool,
}

impl Document for BsxDocument {
    crate::common_accessors!();
    fn damaged(&self) -> bool {
        self.damaged
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        self.stored.view(view)
    }
    fn references(&self) -> Vec<Reference> {
        let (characters, faces) = self.wants();
        let mut refs: Vec<Reference> = characters
            .iter()
            .filter_map(|&g| super::character_file(g))
            .map(|bcx| Reference {
                role: "character",
                written: bcx.to_string(),
                names: vec![bcx.to_string()],
                item: None,
            })
            .collect();
        if faces {
            refs.push(Reference {
                role: "eyes and mouths",
                written: FACES.to_string(),
                names: vec![FACES.to_string()],
                item: None,
            });
        }
        if self.wants_field_bin() {
            refs.push(Reference {
                role: "lighting and face tables",
                written: FIELD_BIN.to_string(),
                names: vec![FIELD_BIN.to_string()],
                item: None,
            });
        }
        refs
    }
    fn needs(&self, assets: &dyn Assets) -> Vec<String> {
        self.references()
            .iter()
            .filter_map(|r| assets.resolve(&self.path, &r.names).file)
            .filter(|p| !assets.known(p))
            .collect()
    }
    fn build_scene(&self, assets: &dyn Assets) -> crate::Built {
        match self.scene(assets) {
            Some((scene, found)) => crate::Built {
                scene: Some(scene),
                found: crate::Found {
                    diagnostics: found
                        .refused
                        .is_some()
                        .then(|| found.diagnostics.kept.clone()),
                    ..crate::Found::of(found)
                },
            },
            None => crate::Built::default(),
        }
    }
    fn scene_as_asset(&self, assets: &dyn Assets) -> Option<Scene> {
        self.scene_from(assets).map(|s| s.built.scene)
    }
}

impl crate::Describe for BsxDocument {
    /// With the scene built: each polygon's lit colours, each character's skeleton, and
    /// why models were left out.
    fn inspector(&self, found: &crate::Found) -> Option<Cow<'_, InspectorView>> {
        let view = self.inspector.as_ref()?;
        let Some(built) = found.own::<SceneFound>() else {
            return Some(Cow::Borrowed(view));
        };
        let mut view = view.clone();
        self.annotate(&mut view, built.lit.as_ref(), &built.characters);
        if let Some(d) = built
            .refused
            .as_ref()
            .filter(|_| self.diagnostics.has_room())
        {
            view.diagnostics.push(d.clone());
        }
        Some(Cow::Owned(view))
    }
    fn info<'a>(&'a self, found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        let found = found.own::<SceneFound>();
        let faces: &[Option<Face>] = found.map_or(&[], |f| &f.faces);
        let models: Vec<ModelInfo> = self
            .parsed
            .iter()
            .flat_map(|f| {
                f.models.iter().enumerate().map(move |(k, m)| ModelInfo {
                    bones: m.bones.len(),
                    parts: m.parts.len(),
                    animations: m.animations.len(),
                    triangles: f.triangles(m),
                    vertices: f.vertices(m),
                    scale: m.scale,
                    // A BCX's own record names no character: its file name does.
                    character: self.character().unwrap_or(m.global_id),
                    global_id: m.global_id,
                    face: faces.get(k).copied().flatten().as_ref().map(FaceJson::from),
                })
            })
            .collect();
        let textures = self.parsed.as_ref().and_then(|f| f.textures.as_ref());
        let diagnostics = found.map_or(&self.diagnostics, |f| &f.diagnostics);
        Box::new(BsxInfo {
            format: self.kind.as_str(),
            kind: self.kind,
            compressed: self.stored.compressed,
            triangles: models.iter().map(|m| m.triangles).sum(),
            models,
            bcx: self.parsed.as_ref().is_some_and(|f| f.bcx.is_some()),
            bytes: self.stored.file.len(),
            decompressed_bytes: self.stored.bytes().len(),
            textures: textures.map_or(0, |t| t.rects.len()),
            has_textures: textures.is_some(),
            diagnostics: &diagnostics.kept,
            diagnostics_dropped: diagnostics.dropped,
            damage: self.error.as_ref().filter(|_| self.damaged),
            links: found.map_or(&[], |f| &f.links),
            stored: &self.stored,
        })
    }
    fn texel_source(
        &self,
        found: &crate::Found,
        texture: usize,
        x: u32,
        y: u32,
    ) -> Vec<(String, String)> {
        let Some(SceneFound {
            vram,
            pages,
            shut_eyes,
            ..
        }) = found.own::<SceneFound>()
        else {
            return Vec::new();
        };
        let Some(&(key, blinking)) = pages.get(texture) else {
            return Vec::new();
        };
        // Below a face page's 256 lines: the same page with the slot's eyes shut (the blink's).
        let shut = blinking
            .filter(|_| y >= 256)
            .and_then(|slot| shut_eyes.iter().find(|e| e.slot == slot));
        let (t, note) = match shut {
            Some(eyes) => (
                vram::with_eyes(&mut vram.clone(), eyes.slot, &eyes.left, &eyes.right, |v| {
                    v.texel(key, x as usize, y as usize % 256)
                }),
                " with the eyes shut, for the blink",
            ),
            None => (vram.texel(key, x as usize, y as usize % 256), ""),
        };
        let mut out = vec![(
            "VRAM word".to_string(),
            format!("0x{:04X} at ({}, {}){note}", t.word, t.at.0, t.at.1),
        )];
        if let Some(i) = t.index {
            out.push((
                "CLUT index".to_string(),
                format!("{i} of the CLUT at ({}, {})", key.clut_x, key.clut_y),
            ));
        }
        let c = t.colour;
        let stp = if c & 0x8000 != 0 { ", STP set" } else { "" };
        out.push((
            "colour".to_string(),
            format!(
                "0x{c:04X}: red {} green {} blue {} of 31{stp}",
                c & 0x1F,
                (c >> 5) & 0x1F,
                (c >> 10) & 0x1F
            ),
        ));
        out
    }
    fn table_uses(&self, table: &str) -> (&'static str, Vec<(u32, u32)>) {
        let Some(f) = self.parsed.as_ref().filter(|_| table == NORMAL_TABLE) else {
            return ("polygon", Vec::new());
        };
        // A polygon uses a normal when one of its colour words names it; each counts once.
        let mut uses = [0u32; 256];
        for p in f.parts.values().flat_map(|d| &d.polygons) {
            let words = if p.kind.gouraud() {
                p.kind.corners()
            } else {
                1
            };
            let mut named: Vec<u8> = p.colors[..words].iter().map(|c| c[3]).collect();
            named.sort_unstable();
            named.dedup();
            named.into_iter().for_each(|n| uses[n as usize] += 1);
        }
        (
            "polygon",
            uses.iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(k, &n)| (k as u32, n))
                .collect(),
        )
    }
    fn stats(&self, found: &crate::Found) -> DocStats {
        let Some(f) = &self.parsed else {
            return DocStats::default();
        };
        let found = found.own::<SceneFound>();
        DocStats {
            triangles: f.models.iter().map(|m| f.triangles(m)).sum(),
            diagnostics: found.map_or(&self.diagnostics, |f| &f.diagnostics).total(),
            ..Default::default()
        }
    }
}

/// A scene texture's VRAM page, and the model slot of a face page that blinks.
type PageSampled = (PageKey, Option<usize>);

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
