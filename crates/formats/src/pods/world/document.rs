//! .MAP, .MOD and .SUB files through the document interface: the text with every section
//! and key as an inspector row linked to its bytes, what each file refers to, what it needs
//! read before it can be drawn, and the assembled world (or game object) as a scene.

use super::assemble::{self, WorldAssets, WorldReport};
use super::ini::IniFile;
use super::map::MapFile;
use super::objects::{GameObject, SubsystemFile};
use crate::charset::looks_like_dos_text;
use crate::findings::Diagnostics;
use crate::inspect::{ByteClass, Field, InspectorView, Row, MAX_ROWS};
use crate::kind::{Kind, Purpose};
use crate::scene::{Bounds, RecordBytes, Scene};
use crate::words::count_len;
use crate::{base_name, file_name, Assets, Resolution};
use crate::{Diagnostic, DocStats, Document, InfoRow, ParseError, Placement, Reference};
use serde::Serialize;
use std::borrow::Cow;

pub fn sniff_map(h: &crate::kind::Head) -> bool {
    h.ext == "map" && looks_like_dos_text(h.bytes)
}
pub fn sniff_mod(h: &crate::kind::Head) -> bool {
    h.ext == "mod" && looks_like_dos_text(h.bytes)
}
pub fn sniff_sub(h: &crate::kind::Head) -> bool {
    h.ext == "sub" && looks_like_dos_text(h.bytes)
}

/// What the file is read as.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Map(MapFile),
    Mod(GameObject),
    Sub(SubsystemFile),
}

/// What building the scene found: the assembly, and the file's findings with the build's.
struct Built {
    assembled: Assembled,
    diagnostics: Diagnostics,
}

/// What assembling the scene found, for the info panel and `info --json`.
#[derive(Debug, Clone, Default)]
struct Assembled {
    report: WorldReport,
    placements: usize,
    dropzones: usize,
    lab_only: usize,
    left_out: usize,
    triangles: usize,
    bounds: Option<Bounds>,
    includes: Vec<String>,
    root_section: Option<String>,
    /// The .BGF files a game object draws, as resolved.
    objects: Vec<String>,
    /// References were looked up in an archive (not a file opened on its own).
    resolved: bool,
    /// The expanded placements, from which [`Document::placements`] lists every placement
    /// through every nesting when first asked (a comparison, `info --json`; not an open).
    expanded: Vec<assemble::Placed>,
    placed: std::cell::OnceCell<Vec<Placement>>,
}

/// The placements of an expanded map, depth first, each at its world position; paths start
/// below the root section, so that two versions of a world pair whatever the root is named.
/// Every placement below `parent` (its path and world matrix), its children after it, as
/// `build_scene` placed them: `nodes` gives each one's scene node in that order. Only a
/// nested map has children (`assemble::Builder::place` walks the same way).
fn placements_of(
    placed: &[assemble::Placed],
    parent: (&str, glam::Mat4),
    nodes: &mut impl Iterator<Item = u32>,
    out: &mut Vec<Placement>,
) {
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for p in placed {
        let n = seen.entry(p.target.as_str()).or_default();
        let path = if parent.0.is_empty() {
            format!("{}[{}]", p.target, *n)
        } else {
            format!("{}/{}[{}]", parent.0, p.target, *n)
        };
        *n += 1;
        let world = parent.1 * p.pose.matrix();
        let model = match &p.kind {
            assemble::PlacedKind::Model { modelfile } => modelfile.clone(),
            assemble::PlacedKind::Dropzone { .. } => Some("dropzone".into()),
            assemble::PlacedKind::Map => Some("map".into()),
            assemble::PlacedKind::Unknown => None,
        };
        out.push(Placement {
            path: path.clone(),
            section: p.target.clone(),
            model,
            position: world.w_axis.truncate().to_array(),
            rotation: p.pose.rotation,
            node: nodes.next(),
        });
        if p.kind == assemble::PlacedKind::Map {
            placements_of(&p.children, (&path, world), nodes, out);
        }
    }
}

pub struct WorldDocument {
    kind: Kind,
    path: String,
    bytes: Vec<u8>,
    text: String,
    parsed: Parsed,
    /// Inspector row of every entry (its section's row, then one per entry before it).
    entry_rows: Vec<u32>,
    /// Every entry's and every section's bytes: the records a scene's placements point at.
    entry_bytes: Vec<RecordBytes>,
    section_bytes: Vec<RecordBytes>,
    error: Option<ParseError>,
    diagnostics: Diagnostics,
    inspector: Option<InspectorView>,
    lines: u32,
}

pub fn open(path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let text = crate::charset::decode(&bytes);
    let (parsed, rows, records, view, error, diagnostics, lines) = match IniFile::parse(&bytes) {
        Err(e) => (
            Parsed::Map(MapFile::default()),
            (Vec::new(), Vec::new()),
            (Vec::new(), Vec::new()),
            None,
            Some(ParseError::new(0, "", e)),
            Diagnostics::default(),
            0,
        ),
        Ok(ini) => {
            let mut diagnostics = Diagnostics::default();
            let stray = ini.stray.iter().map(|l| Diagnostic {
                offset: l.start as usize,
                path: format!("line {}", l.line),
                message: if l.before_sections {
                    "a key=value line before any [section] belongs to nothing".into()
                } else {
                    "expected a [section], a key=value line or a comment".into()
                },
            });
            diagnostics.merge(stray, ini.stray_dropped);
            let parsed = match kind {
                crate::pods::world::MOD => Parsed::Mod(GameObject::read(&ini)),
                crate::pods::world::SUB => {
                    let f = SubsystemFile::read(&ini);
                    diagnostics.merge(f.diagnostics.iter().cloned(), f.diagnostics_dropped);
                    Parsed::Sub(f)
                }
                _ => {
                    let f = MapFile::read(&ini);
                    diagnostics.merge(f.diagnostics.iter().cloned(), f.diagnostics_dropped);
                    Parsed::Map(f)
                }
            };
            let rows = rows_of(&ini);
            let view = purpose
                .describes()
                .then(|| view_of(&ini, &rows, &diagnostics));
            let records = (
                ini.sections
                    .iter()
                    .map(|s| [s.start as usize, s.end as usize])
                    .collect(),
                ini.entries
                    .iter()
                    .map(|e| [e.start as usize, e.end as usize])
                    .collect(),
            );
            (parsed, rows, records, view, None, diagnostics, ini.lines)
        }
    };
    let (_, entry_rows) = rows;
    let (section_bytes, entry_bytes) = records;
    Box::new(WorldDocument {
        kind,
        path: path.to_string(),
        bytes,
        text,
        parsed,
        entry_rows,
        entry_bytes,
        section_bytes,
        error,
        diagnostics,
        inspector: view,
        lines,
    })
}

/// The row of every section and of every entry: a section's row, then its entries'.
fn rows_of(ini: &IniFile<'_>) -> (Vec<u32>, Vec<u32>) {
    let mut sections = Vec::with_capacity(ini.sections.len());
    let mut entries = Vec::with_capacity(ini.entries.len());
    let mut row = 0u32;
    for s in &ini.sections {
        sections.push(row);
        row += 1;
        for _ in s.entries.clone() {
            entries.push(row);
            row += 1;
        }
    }
    (sections, entries)
}

fn view_of(
    ini: &IniFile<'_>,
    (section_rows, _): &(Vec<u32>, Vec<u32>),
    diagnostics: &Diagnostics,
) -> InspectorView {
    let bytes = ini.bytes;
    let mut view = InspectorView::flat("text", bytes.len(), ByteClass::Text);
    view.rows_total = ini.sections.len() + ini.entries.len();
    'sections: for (k, s) in ini.sections.iter().enumerate() {
        let section = section_rows[k];
        let keys = s.entries.len();
        let lab = if s.lab_only { " (LAB_ONLY)" } else { "" };
        let name = ini.name(s);
        view.chunks.push(Row {
            index: section,
            offset: s.start as usize,
            payload_offset: s.header_end as usize,
            end: s.end as usize,
            depth: 0,
            parent: None,
            container: true,
            name: format!("[{name}]"),
            label: format!("[{name}] line {}{lab}", s.line),
            detail: format!("section {name} on line {}, {keys} keys", s.line),
            summary: format!("{keys} keys"),
            flags: if s.lab_only {
                vec!["lab-only"]
            } else {
                Vec::new()
            },
            ff7_polygon: None,
            entry: None,
        });
        for e in ini.entries_of(s) {
            if view.chunks.len() >= MAX_ROWS {
                break 'sections;
            }
            let row = view.chunks.len() as u32;
            let (key, value) = (ini.text(e.key), ini.text(e.value));
            view.fields.push(Field {
                chunk: row,
                offset: e.value.start as usize,
                len: e.value.len as usize,
                what: format!("value of {key}"),
                value: format!("{value:?}"),
            });
            view.chunks.push(Row {
                index: row,
                offset: e.start as usize,
                payload_offset: e.value.start as usize,
                end: e.end as usize,
                depth: 1,
                parent: Some(section),
                container: false,
                name: key.to_string(),
                label: format!("{key} line {}", e.line),
                detail: format!("{key} = {value} (line {})", e.line),
                summary: value.to_string(),
                flags: if e.lab_only {
                    vec!["lab-only"]
                } else {
                    Vec::new()
                },
                ff7_polygon: None,
                entry: None,
            });
        }
    }
    view.diagnostics = diagnostics.kept.clone();
    view.diagnostics_dropped = diagnostics.dropped;
    view
}

/// The archive, seen from the root file of what is assembled.
struct RootAssets<'a> {
    archive: &'a dyn Assets,
    from: &'a str,
}

fn world_doc<'a>(archive: &'a dyn Assets, path: &str) -> Option<&'a WorldDocument> {
    archive.get(path)?.as_any().downcast_ref::<WorldDocument>()
}

impl WorldAssets for RootAssets<'_> {
    fn resolve(&self, name: &str) -> Resolution {
        self.archive
            .resolve(self.from, &[base_name(name).to_string()])
    }
    fn map(&self, path: &str) -> Option<&MapFile> {
        match &world_doc(self.archive, path)?.parsed {
            Parsed::Map(m) => Some(m),
            _ => None,
        }
    }
    fn game_object(&self, path: &str) -> Option<&GameObject> {
        match &world_doc(self.archive, path)?.parsed {
            Parsed::Mod(m) => Some(m),
            _ => None,
        }
    }
    fn subsystems(&self, path: &str) -> Option<&SubsystemFile> {
        match &world_doc(self.archive, path)?.parsed {
            Parsed::Sub(s) => Some(s),
            _ => None,
        }
    }
    fn model_scene(&self, path: &str) -> Option<Scene> {
        self.archive.get(path)?.scene_as_asset(self.archive)
    }
    fn known(&self, path: &str) -> bool {
        self.archive.known(path)
    }
}

/// A map's sections, its root, its placements, includes and the files it uses.
fn map_rows(m: &MapFile, assembled: Option<&Assembled>, rows: &mut Vec<InfoRow>) {
    rows.push(InfoRow::new("sections", m.sections.len().to_string()));
    if let Some(a) = assembled {
        if let Some(r) = &a.root_section {
            rows.push(InfoRow::new("map", format!("[{r}]")));
        }
        rows.push(InfoRow::new(
            "placements",
            format!(
                "{} · {} · {}{}",
                count_len(a.placements, "model"),
                count_len(a.dropzones, "dropzone"),
                count_len(a.report.doors, "door"),
                if a.lab_only > 0 {
                    format!(" · {} LAB_ONLY", a.lab_only)
                } else {
                    String::new()
                }
            ),
        ));
        if !a.includes.is_empty() {
            rows.push(
                InfoRow::new("includes", a.includes.join(", ")).with_links(a.includes.clone()),
            );
        }
        // What it uses, as resolved (a long list is cut short: the inspector has all).
        let uses: Vec<&str> = a.report.resolved.iter().map(|(_, p)| p.as_str()).collect();
        if !uses.is_empty() {
            let more = if uses.len() > 24 {
                format!(" … and {} more", uses.len() - 24)
            } else {
                String::new()
            };
            let listed = &uses[..uses.len().min(24)];
            rows.push(
                InfoRow::new("uses", format!("{}{more}", listed.join(", ")))
                    .with_links(listed.iter().map(|p| p.to_string()).collect()),
            );
        }
    }
}

/// What a game object draws (and its low-poly twins), its subsystems and its class.
fn object_rows(o: &GameObject, rows: &mut Vec<InfoRow>) {
    rows.push(InfoRow::new(
        "draws",
        o.video
            .iter()
            .map(|v| v.file.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    ));
    if !o.twins.is_empty() {
        rows.push(InfoRow::new(
            "low-poly twins (not drawn)",
            o.twins
                .iter()
                .map(|v| v.file.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    if let Some(s) = &o.subsystems {
        rows.push(InfoRow::new("subsystems", s.value.clone()));
    }
    if let Some(c) = &o.class {
        rows.push(InfoRow::new("class", c.clone()));
    }
}

/// Each subsystem of a .SUB: a door's slide, or its type.
fn subsystem_rows(f: &SubsystemFile, rows: &mut Vec<InfoRow>) {
    for s in &f.subsystems {
        let what = match s.door() {
            Some(d) => format!(
                "door: slides {:?} over {} s, waits {} s",
                d.extent, d.travel, d.dead
            ),
            None => s.kind.clone().unwrap_or_else(|| "no Type".into()),
        };
        rows.push(InfoRow::new(format!("[{}]", s.name), what));
    }
}

/// What the assembly found: triangles, what was not looked for, the laser glow, what is
/// missing and what several files answer to.
fn assembly_rows(a: &Assembled, rows: &mut Vec<InfoRow>) {
    rows.push(InfoRow::new("triangles", a.triangles.to_string()));
    // Opened on its own, a world draws nothing: say so rather than show an empty view.
    if !a.resolved && a.placements > 0 {
        rows.push(InfoRow::warning("models", format!("not looked for: the world was opened on its own, without the archive that holds its {} and its includes", count_len(a.placements, "model"))));
    }
    if a.report.glowing > 0 {
        rows.push(InfoRow::warning(
            "laser glow",
            "an approximate pulse: the game drives the beam, the files hold no data for it",
        ));
    }
    if !a.report.missing.is_empty() {
        rows.push(InfoRow::warning(
            "missing",
            a.report
                .missing
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    for amb in &a.report.ambiguous {
        rows.push(
            InfoRow::warning(
                format!("several {}", amb.name),
                format!("took {}; also {}", amb.taken, amb.candidates.join(", ")),
            )
            .with_candidates(&amb.taken, &amb.candidates),
        );
    }
}

/// What `info` says of a world, game object or subsystems file: what it holds, and what
/// assembling it found (where it was built), with its findings.
struct WorldInfo<'a> {
    kind: Kind,
    bytes: usize,
    lines: u32,
    parsed: &'a Parsed,
    assembled: Option<&'a Assembled>,
    diagnostics: &'a Diagnostics,
}

impl crate::Info for WorldInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", format!("{} · {} lines", self.bytes, self.lines)),
        ];
        match self.parsed {
            Parsed::Map(m) => map_rows(m, self.assembled, &mut rows),
            Parsed::Mod(o) => object_rows(o, &mut rows),
            Parsed::Sub(f) => subsystem_rows(f, &mut rows),
        }
        if let Some(a) = self.assembled {
            assembly_rows(a, &mut rows);
        }
        for d in self.diagnostics.iter() {
            rows.push(InfoRow::warning(
                format!("warning @{}", d.offset),
                format!(
                    "{}{}{}",
                    d.path,
                    if d.path.is_empty() { "" } else { ": " },
                    d.message
                ),
            ));
        }
        if self.diagnostics.dropped > 0 {
            rows.push(InfoRow::warning(
                "more warnings",
                format!("{} not listed", self.diagnostics.dropped),
            ));
        }
        rows
    }

    fn json(&self, error: Option<&ParseError>) -> String {
        #[derive(Serialize)]
        struct BoundsJson {
            min: [f32; 3],
            max: [f32; 3],
        }
        #[derive(Serialize)]
        struct SubJson<'a> {
            name: &'a str,
            #[serde(rename = "type")]
            kind: Option<&'a str>,
            video_object: Option<&'a str>,
            travel_time: Option<f32>,
            dead_time: Option<f32>,
            motion_extent: Option<[f32; 3]>,
        }
        let a = self.assembled.cloned().unwrap_or_default();
        let bounds = a.bounds.map(|b| BoundsJson {
            min: b.min,
            max: b.max,
        });
        let missing: Vec<&String> = a.report.missing.iter().collect();
        let v = match self.parsed {
            Parsed::Map(m) => serde_json::json!({
                "format": "map",
                "root_section": a.root_section,
                "placements": a.placements,
                "dropzones": a.dropzones,
                "missing": missing,
                "triangles": a.triangles,
                "bounds": bounds,
                "lab_only": a.lab_only,
                "doors": a.report.doors,
                "ambiguous": a.report.ambiguous,
                "includes": a.includes,
                "sections": m.sections.len(),
                "left_out": a.left_out,
                "resolved": a.resolved,
                "diagnostics": self.diagnostics.kept,
                "diagnostics_dropped": self.diagnostics.dropped,
            }),
            Parsed::Mod(o) => serde_json::json!({
                "format": "mod",
                "objects": a.objects,
                "triangles": a.triangles,
                "written": o.video.iter().map(|v| &v.file).collect::<Vec<_>>(),
                "twins": o.twins.iter().map(|v| &v.file).collect::<Vec<_>>(),
                "subsystems": o.subsystems.as_ref().map(|s| &s.value),
                "missing": missing,
                "bounds": bounds,
                "doors": a.report.doors,
                "resolved": a.resolved,
                "diagnostics": self.diagnostics.kept,
                "diagnostics_dropped": self.diagnostics.dropped,
            }),
            Parsed::Sub(f) => serde_json::json!({
                "format": "sub",
                "subsystems": f.subsystems.iter().map(|s| SubJson { name: &s.name, kind: s.kind.as_deref(), video_object: s.video_object.as_deref(), travel_time: s.travel_time, dead_time: s.dead_time, motion_extent: s.motion_extent }).collect::<Vec<_>>(),
                "diagnostics": self.diagnostics.kept,
                "diagnostics_dropped": self.diagnostics.dropped,
            }),
        };
        crate::summary_json(v, error)
    }
}

impl WorldDocument {
    pub fn parsed(&self) -> &Parsed {
        &self.parsed
    }

    fn stem(&self) -> String {
        crate::stem(&self.path).to_string()
    }

    /// The paths still to read for a game object: its BGFs and SUB, then what they need.
    fn object_needs(assets: &RootAssets<'_>, object: &GameObject, out: &mut Vec<String>) {
        let add = |p: Option<String>, out: &mut Vec<String>| {
            if let Some(p) =
                p.filter(|p| !assets.known(p) && !out.iter().any(|o| o.eq_ignore_ascii_case(p)))
            {
                out.push(p);
            }
        };
        for v in &object.video {
            let bgf = assets.resolve(&v.file).file;
            match bgf
                .as_deref()
                .filter(|b| assets.known(b))
                .and_then(|b| assets.archive.get(b))
            {
                Some(doc) => doc
                    .needs(assets.archive)
                    .into_iter()
                    .for_each(|p| add(Some(p), out)),
                None => add(bgf, out),
            }
        }
        if let Some(s) = &object.subsystems {
            add(assets.resolve(&s.value).file, out);
        }
    }
}

impl WorldDocument {
    /// The scene, assembled from the files the world names as far as `archive` has them,
    /// and what the assembly found; or the error that kept it from assembling.
    /// (A subsystems file assembles nothing.)
    fn assemble(&self, archive: &dyn Assets) -> Result<Option<(Scene, Built)>, ParseError> {
        let assets = RootAssets {
            archive,
            from: &self.path,
        };
        let name = file_name(&self.path).to_string();
        let mut diagnostics = self.diagnostics.clone();
        let (scene, mut assembled) = match &self.parsed {
            Parsed::Sub(_) => return Ok(None),
            Parsed::Mod(object) => object_assembled(&name, object, &assets),
            Parsed::Map(map) => self.map_assembled(&name, map, &assets, &mut diagnostics)?,
        };
        assembled.triangles = scene.triangle_count(0);
        assembled.bounds = scene.bounds(0);
        assembled.resolved = archive.resolves();
        if !archive.resolves() {
            // Opened on its own: nothing was looked for, so nothing is missing.
            assembled.report.missing.clear();
            assembled.report.ambiguous.clear();
        }
        for m in &assembled.report.missing {
            diagnostics.add(0, String::new, || {
                format!("{m} is not in the archive: not drawn")
            });
        }
        Ok(Some((
            scene,
            Built {
                assembled,
                diagnostics,
            },
        )))
    }

    /// A map's scene: its sections gathered from its includes, the map of its own name
    /// expanded and every placement built, with what that found (its diagnostics added to
    /// `diagnostics`).
    fn map_assembled(
        &self,
        name: &str,
        map: &MapFile,
        assets: &RootAssets,
        diagnostics: &mut Diagnostics,
    ) -> Result<(Scene, Assembled), ParseError> {
        let result = assemble::gather(&self.path, map, assets).and_then(|sections| {
            let root = sections.files[0]
                .1
                .root_section(&self.stem())
                .ok_or_else(|| {
                    ParseError::new(
                        0,
                        "",
                        "expected a section with type=map to show; the file has none",
                    )
                })?;
            let expanded = assemble::expand(&sections, root)?;
            let includes = sections.files[1..].iter().map(|(p, _)| p.clone()).collect();
            let extra = sections.diagnostics.clone();
            Ok((expanded, includes, extra, root.index))
        });
        let (expanded, includes, extra, root_index) = result?;
        diagnostics.merge(extra.kept, extra.dropped);
        if expanded.left_out > 0 {
            diagnostics.add(0, String::new, || {
                format!(
                    "the map expands to more than {} placements; {} are left out",
                    assemble::MAX_PLACEMENTS,
                    expanded.left_out
                )
            });
        }
        let entries = &self.entry_bytes;
        let root = self.section_bytes.get(root_index as usize).copied();
        let (scene, report) = assemble::build_scene(
            name,
            &expanded,
            assets,
            &|e| entries.get(e as usize).copied(),
            root,
        );
        let a = Assembled {
            report,
            placements: expanded.models,
            dropzones: expanded.dropzones,
            lab_only: expanded.lab_only,
            left_out: expanded.left_out,
            includes,
            root_section: Some(expanded.root_section.clone()),
            expanded: expanded.placed,
            ..Default::default()
        };
        Ok((scene, a))
    }

    /// The findings to describe: the build's where `found` has them, else the file's.
    fn findings<'a>(&'a self, found: &'a crate::Found) -> (&'a Diagnostics, Option<&'a Assembled>) {
        match found.own::<Built>() {
            Some(b) => (&b.diagnostics, Some(&b.assembled)),
            None => (&self.diagnostics, None),
        }
    }
}

impl Document for WorldDocument {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn text(&self) -> Option<&str> {
        Some(&self.text)
    }
    fn references(&self) -> Vec<Reference> {
        let mut out: Vec<Reference> = Vec::new();
        let mut push = |role: &'static str, written: &str| {
            if !out.iter().any(|r| r.written.eq_ignore_ascii_case(written)) {
                out.push(Reference {
                    role,
                    names: vec![base_name(written).to_string()],
                    written: written.to_string(),
                    item: None,
                });
            }
        };
        match &self.parsed {
            Parsed::Map(m) => {
                m.model_files().for_each(|f| push("game object", &f.value));
                m.include_files()
                    .for_each(|f| push("included map", &f.value));
            }
            Parsed::Mod(o) => {
                o.video.iter().for_each(|v| push("model", &v.file));
                if let Some(s) = &o.subsystems {
                    push("subsystems", &s.value);
                }
            }
            Parsed::Sub(_) => {}
        }
        out
    }

    fn needs(&self, archive: &dyn Assets) -> Vec<String> {
        let assets = RootAssets {
            archive,
            from: &self.path,
        };
        let mut out: Vec<String> = Vec::new();
        match &self.parsed {
            Parsed::Mod(o) => Self::object_needs(&assets, o, &mut out),
            Parsed::Sub(_) => {}
            Parsed::Map(map) => {
                let Ok(sections) = assemble::gather(&self.path, map, &assets) else {
                    return out;
                };
                for (_, path) in &sections.unread {
                    if let Some(p) = path.as_ref().filter(|p| !assets.known(p)) {
                        out.push(p.clone());
                    }
                }
                let Some(root) = sections.files[0].1.root_section(&self.stem()) else {
                    return out;
                };
                let mods = sections.model_files_placed(root);
                for m in mods {
                    let Some(path) = assets.resolve(m).file else {
                        continue;
                    };
                    match assets.game_object(&path) {
                        Some(o) => Self::object_needs(&assets, o, &mut out),
                        None if !assets.known(&path)
                            && !out.iter().any(|o| o.eq_ignore_ascii_case(&path)) =>
                        {
                            out.push(path)
                        }
                        None => {}
                    }
                }
            }
        }
        out
    }

    fn build_scene(&self, archive: &dyn Assets) -> crate::Built {
        match self.assemble(archive) {
            Ok(None) => crate::Built::default(),
            Ok(Some((scene, built))) => crate::Built {
                found: crate::Found {
                    diagnostics: Some(built.diagnostics.kept.clone()),
                    ..crate::Found::of(built)
                },
                scene: Some(scene),
            },
            Err(e) => crate::Built {
                scene: None,
                found: crate::Found {
                    error: Some(e),
                    ..crate::Found::default()
                },
            },
        }
    }
}

impl crate::Describe for WorldDocument {
    /// With the scene built: the build's findings, and each instance line saying what it
    /// led to.
    fn inspector(&self, found: &crate::Found) -> Option<Cow<'_, InspectorView>> {
        let view = self.inspector.as_ref()?;
        let Some(built) = found.own::<Built>() else {
            return Some(Cow::Borrowed(view));
        };
        let mut view = view.clone();
        view.diagnostics = built.diagnostics.kept.clone();
        view.diagnostics_dropped = built.diagnostics.dropped;
        for (&entry, outcome) in &built.assembled.report.outcomes {
            let Some(row) = self
                .entry_rows
                .get(entry as usize)
                .and_then(|&r| view.chunks.get_mut(r as usize))
            else {
                continue;
            };
            row.summary = format!("{} {outcome}", row.summary);
            row.detail = format!("{} {outcome}", row.detail);
        }
        Some(Cow::Owned(view))
    }

    fn info<'a>(&'a self, found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        let (diagnostics, assembled) = self.findings(found);
        Box::new(WorldInfo {
            kind: self.kind,
            bytes: self.bytes.len(),
            lines: self.lines,
            parsed: &self.parsed,
            assembled,
            diagnostics,
        })
    }

    fn stats(&self, found: &crate::Found) -> DocStats {
        let (diagnostics, assembled) = self.findings(found);
        let mut s = DocStats {
            diagnostics: diagnostics.total(),
            ..Default::default()
        };
        if let Some(a) = assembled {
            s.triangles = a.triangles;
            s.placements = a.placements;
            s.missing = a.report.missing.iter().cloned().collect();
            s.ambiguous = a.report.ambiguous.len();
        }
        s
    }

    fn placements<'a>(&'a self, found: &'a crate::Found) -> &'a [Placement] {
        self.findings(found).1.map_or(&[], |a| {
            a.placed.get_or_init(|| {
                let mut placed = Vec::new();
                placements_of(
                    &a.expanded,
                    ("", glam::Mat4::IDENTITY),
                    &mut a.report.placement_nodes.iter().copied(),
                    &mut placed,
                );
                placed
            })
        })
    }
}

/// A game object's scene (its .MOD: the models it names, each as a part), and what that found.
fn object_assembled(name: &str, object: &GameObject, assets: &RootAssets) -> (Scene, Assembled) {
    let (scene, report) = assemble::object_scene(name, object, assets);
    let objects = report
        .resolved
        .iter()
        .filter(|(n, _)| n.ends_with(".bgf"))
        .map(|(_, p)| p.clone())
        .collect();
    (
        scene,
        Assembled {
            report,
            objects,
            ..Default::default()
        },
    )
}

#[cfg(test)]
mod tests {
    /// Past the cap, a finding is counted: the info panel and `info --json` say how many
    /// were not listed, and the census counts them all.
    #[test]
    fn findings_past_the_cap_are_counted_not_lost() {
        let mut text = String::from("[arena]\ntype=map\n");
        for k in 0..700 {
            text.push_str(&format!("stray line {k}\n"));
        }
        let doc = super::open(
            "ARENA.MAP",
            text.into_bytes(),
            crate::pods::world::MAP,
            crate::kind::Purpose::Show,
        );
        assert_eq!(doc.diagnostics().len(), crate::findings::MAX_DIAGNOSTICS);
        assert_eq!(doc.stats(crate::Found::NOTHING).diagnostics, 700);
        let json: serde_json::Value =
            serde_json::from_str(&crate::Described::alone(&*doc).info_json()).unwrap();
        assert_eq!(
            json["diagnostics_dropped"],
            700 - crate::findings::MAX_DIAGNOSTICS
        );
        let more = crate::Described::alone(&*doc)
            .info_rows()
            .into_iter()
            .find(|r| r.label == "more warnings")
            .expect("a row says how many are not listed");
        assert_eq!(
            more.value,
            format!("{} not listed", 700 - crate::findings::MAX_DIAGNOSTICS)
        );
        assert_eq!(
            doc.inspector(crate::Found::NOTHING)
                .unwrap()
                .diagnostics_dropped,
            700 - crate::findings::MAX_DIAGNOSTICS
        );
    }
}
