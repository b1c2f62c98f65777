//! A field's .DAT through the document interface, LZS-wrapped (as on the disc) or not:
//! every section and its records in the inspector (each script walked into its opcodes, the
//! dialogue's strings, the walkmesh's triangles and their neighbours, the camera, the
//! gateways, the encounters, the model slots), and what `relicview info --json` says of the
//! field (docs/formats/field-dat.md).

use super::entrances::{self, Entrance};
use super::raw::{
    Camera, DatFile, Dialogue, EncounterTable, LoaderRecord, ScriptCode, ScriptSection, TileMap,
    Triggers, Walkmesh, ARROWS_AT, ARROW_FLAGS_AT, BG_TRIGGERS_AT, CAMERA, GATEWAYS_AT, HEADER,
    SCRIPTS_PER_ACTOR, SCRIPT_HEADER, SECTION_NAMES, SLOTS,
};
use super::tiles::{Tile, LAYERS, RECORD};
use super::{backdrop, init, opcodes};
use crate::records::{row, tree};

/// A .DAT's row before it is placed: none is keyed (the scene points at no row).
type Pending = crate::records::Pending<()>;
use crate::ff7::lzs::Stored;
use crate::findings::Diagnostics;
use crate::inspect::InspectorView;
use crate::kind::{Head, Kind, Purpose};
use crate::words::count_len as count;
use crate::{Diagnostic, Document, InfoRow, ParseError};

/// The first pointer of every field's section table: the script section right after it.
const FIRST_POINTER: [u8; 4] = [0x00, 0x50, 0x11, 0x80];

/// A field's .DAT by its first bytes: unpacked, its section table's first pointer; as the
/// disc stores it, the LZS length of the rest, then a control byte of eight literals that
/// start with that pointer.
pub fn sniff(h: &Head) -> bool {
    // (The LZS header's word is not asked to match the file: a container cut short or with
    // bytes after its stream is still a field, its header's disagreement said when it opens.)
    h.bytes.get(..4) == Some(&FIRST_POINTER[..])
        || h.bytes.get(4) == Some(&0xFF) && h.bytes.get(5..9) == Some(&FIRST_POINTER[..])
}

pub struct DatDocument {
    kind: Kind,
    path: String,
    stored: Stored,
    pub parsed: Option<DatFile>,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
}

/// What building the scene found, which the info says.
#[derive(Default)]
struct SceneFound {
    /// The game's variables the scene was built with (every other one 0): `info` says what
    /// the same state gives.
    state: Vec<crate::GameVariable>,
    /// Which field this is (its map id) and the ways into it; or why none were found.
    ways_in: WaysIn,
    /// What the game camera's view says of itself (what it lacks, where it is our reading).
    camera_notes: Vec<String>,
    /// The files the scene needed that the archive lacks (its .BSX, a character's .BCX).
    missing: Vec<InfoRow>,
}

/// What describing a field knows before its scene is built: every variable 0, no ways in
/// looked for.
static NOT_BUILT: SceneFound = SceneFound {
    state: Vec::new(),
    ways_in: WaysIn {
        map: None,
        entrances: Vec::new(),
        why_none: None,
    },
    camera_notes: Vec::new(),
    missing: Vec::new(),
};

/// The field's map id and its entrances, found among the archive's fields; or why not.
#[derive(Debug, Clone, Default)]
struct WaysIn {
    map: Option<u16>,
    entrances: Vec<Entrance>,
    why_none: Option<String>,
}

/// The file whose field table gives every field's map id.
const FIELD_BIN: &str = "FIELD.BIN";

pub fn open(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let stored = Stored::read(path, "dat", file, super::raw::starts_like_a_field);
    let (parsed, mut error) = stored.parse(DatFile::parse);
    // A section that could not be read is the file's error; the rest are shown.
    if let Some(e) = parsed.as_ref().and_then(DatFile::first_error) {
        error.get_or_insert_with(|| e.clone());
    }
    // A container whose header disagrees with the file: damaged, said at byte 0.
    if parsed.is_some() && error.is_none() {
        error = stored.header_damage();
    }
    let mut found = Diagnostics::default();
    found.merge(stored.header_finding(), 0);
    if let Some(d) = &parsed {
        let lengths = d.length_findings(stored.bytes());
        found.merge(lengths.kept, lengths.dropped);
    }
    if let Some(Ok(s)) = parsed.as_ref().map(|p| &p.script) {
        for c in s.scripts.iter().filter_map(|c| c.overrun.map(|at| (c, at))) {
            found.add(c.1, || SECTION_NAMES[0].into(), || format!("an opcode runs past the script's end at byte {}: the rest of the script is not decoded", c.0.range.end));
        }
    }
    let inspector = purpose.describes().then(|| match &parsed {
        Some(d) => view(d, &stored, error.clone(), &found),
        None => stored.failed_view("field-dat", error.clone()),
    });
    Box::new(DatDocument {
        kind,
        path: path.to_string(),
        stored,
        parsed,
        error,
        diagnostics: found.kept,
        inspector,
    })
}

/// One field's bytes: (offset, length, what, value).
type FieldRow = (usize, usize, String, String);

fn f(at: usize, len: usize, what: &str, value: impl ToString) -> FieldRow {
    (at, len, what.to_string(), value.to_string())
}

fn with(mut p: Pending, fields: Vec<FieldRow>) -> Pending {
    p.fields = fields;
    p
}

fn view(
    d: &DatFile,
    stored: &Stored,
    error: Option<ParseError>,
    found: &Diagnostics,
) -> InspectorView {
    let bytes = stored.bytes();
    let mut rows = section_rows(d, bytes);
    if let Ok(s) = &d.script {
        script_rows(s, bytes, &mut rows);
    }
    if let Ok(w) = &d.walkmesh {
        walkmesh_rows(w, &mut rows);
    }
    if let Ok(t) = &d.tile_map {
        tile_map_rows(t, &mut rows);
    }
    if let Ok(c) = &d.camera {
        camera_rows(c, &mut rows);
        let tail = c.at + CAMERA..d.sections[3].end;
        if !tail.is_empty() {
            rows.push(row(
                tail.start,
                tail.end,
                "unused",
                "after the camera record".into(),
                "not read by the engine's usual path (md1_1 repeats the rotation here)".into(),
            ));
        }
    }
    if let Ok(t) = &d.triggers {
        trigger_rows(t, &mut rows);
    }
    if let Ok(tables) = &d.encounters {
        encounter_rows(tables, &mut rows);
    }
    if let Ok(records) = &d.loader {
        let bound = slot_actors(d, bytes, records.len());
        loader_rows(records, bytes, d.sections[6].start, &bound, &mut rows);
    }
    let (mut v, _) = tree(
        "field-dat",
        rows,
        bytes.len(),
        bytes.len(),
        stored.container(),
    );
    v.error = error;
    v.diagnostics = found.kept.clone();
    v.diagnostics_dropped = found.dropped;
    v
}

/// The section table's row (each section's RAM address and where it starts) and a row for
/// each section.
fn section_rows(d: &DatFile, bytes: &[u8]) -> Vec<Pending> {
    let mut rows = vec![with(
        row(
            0,
            HEADER,
            "sections",
            "section table".into(),
            "seven RAM addresses (the file loaded at 0x80114FE4)".into(),
        ),
        (0..7)
            .map(|k| {
                f(
                    4 * k,
                    4,
                    &format!("u32 section {} ({}) address", k + 1, SECTION_NAMES[k]),
                    format!(
                        "{:#010x}: byte {}",
                        u32::from_le_bytes([
                            bytes[4 * k],
                            bytes[4 * k + 1],
                            bytes[4 * k + 2],
                            bytes[4 * k + 3]
                        ]),
                        d.sections[k].start
                    ),
                )
            })
            .collect(),
    )];
    for (k, r) in d.sections.iter().enumerate() {
        rows.push(row(
            r.start,
            r.end,
            &SECTION_NAMES[k].replace(' ', "_"),
            format!("section {}: {}", k + 1, SECTION_NAMES[k]),
            count(r.len(), "byte"),
        ));
    }
    rows
}

/// The actor the init pass binds to each of the `slots` model slots (every variable 0), by
/// its label.
fn slot_actors(d: &DatFile, bytes: &[u8], slots: usize) -> Vec<Option<String>> {
    let pass = init_pass(d, bytes, &[]);
    (0..slots)
        .map(|k| {
            let p = pass.as_ref()?;
            let a = p.entities.iter().position(|e| e.model == Some(k))?;
            d.script
                .as_ref()
                .ok()
                .map(|s| actor_label(&s.actors[a].1, a))
        })
        .collect()
}

fn script_rows(s: &ScriptSection, bytes: &[u8], rows: &mut Vec<Pending>) {
    rows.push(script_header_row(s, bytes));
    if let (Some(first), Some(last)) = (s.actors.first(), s.actors.last()) {
        rows.push(with(
            row(
                first.0,
                last.0 + 8,
                "actors",
                "actor names".into(),
                count(s.actors.len(), "actor"),
            ),
            s.actors
                .iter()
                .enumerate()
                .map(|(k, (at, name))| {
                    f(*at, 8, &format!("char[8] actor {k}"), actor_label(name, k))
                })
                .collect(),
        ));
    }
    if let (Some(first), Some(last)) = (s.akao.first(), s.akao.last()) {
        rows.push(with(
            row(
                first.0,
                last.0 + 4,
                "music",
                "music block offsets".into(),
                count(s.akao.len(), "block"),
            ),
            s.akao
                .iter()
                .enumerate()
                .map(|(k, (at, o))| f(*at, 4, &format!("u32 music block {k}"), o))
                .collect(),
        ));
    }
    script_table_rows(s, rows);
    script_code_rows(s, bytes, rows);
    let music = music_rows(s, rows);
    if let Some(dlg) = &s.dialogue {
        let dialogue_end = music.first().copied().unwrap_or(s.range.end);
        dialogue_rows(dlg, dialogue_end, rows);
    }
}

/// The script header's row and fields.
fn script_header_row(s: &ScriptSection, bytes: &[u8]) -> Pending {
    let at = s.range.start;
    with(
        row(
            at,
            at + SCRIPT_HEADER,
            "header",
            "script header".into(),
            format!(
                "{} · {}, {} models, scale {}",
                s.name,
                count(s.actor_count as usize, "actor"),
                s.model_count,
                s.scale
            ),
        ),
        vec![
            f(
                at,
                2,
                "u8 × 2 version",
                format!("{}.{}", s.version[0], s.version[1]),
            ),
            f(at + 2, 1, "u8 actors", s.actor_count),
            f(at + 3, 1, "u8 model slots", s.model_count),
            f(at + 4, 2, "u16 dialogue offset", s.text_offset),
            f(at + 6, 2, "u16 music blocks", s.akao_count),
            f(at + 8, 2, "u16 scale (512 = 1.0)", s.scale),
            f(at + 0x0A, 6, "zero", hex_of(&bytes[at + 0x0A..at + 0x10])),
            f(at + 0x10, 8, "char[8] creator", &s.creator),
            f(at + 0x18, 8, "char[8] field name", &s.name),
        ],
    )
}

/// The music blocks after the dialogue, kept as they are, a row each. → where each starts,
/// in order.
fn music_rows(s: &ScriptSection, rows: &mut Vec<Pending>) -> Vec<usize> {
    let at = s.range.start;
    let mut music: Vec<usize> = s
        .akao
        .iter()
        .map(|&(_, o)| at + o as usize)
        .filter(|&o| o >= at + s.text_offset as usize && o < s.range.end)
        .collect();
    music.sort_unstable();
    for (k, &from) in music.iter().enumerate() {
        let to = music.get(k + 1).copied().unwrap_or(s.range.end);
        let mut p = row(
            from,
            to,
            "music",
            format!("music block {k}"),
            "AKAO sequence (not read)".into(),
        );
        p.opaque = true;
        rows.push(p);
    }
    music
}

/// The script table: each actor's 32 entry points.
fn script_table_rows(s: &ScriptSection, rows: &mut Vec<Pending>) {
    let table_end = s.table_at + 2 * SCRIPTS_PER_ACTOR * s.table.len();
    rows.push(row(
        s.table_at,
        table_end,
        "script_table",
        "script table".into(),
        format!(
            "32 entry points an actor; {}",
            count(s.scripts.len(), "distinct script")
        ),
    ));
    for (a, entries) in s.table.iter().enumerate() {
        let from = s.table_at + 2 * SCRIPTS_PER_ACTOR * a;
        rows.push(with(
            row(
                from,
                from + 2 * SCRIPTS_PER_ACTOR,
                "entries",
                format!("{}'s scripts", actor_label(&s.actors[a].1, a)),
                String::new(),
            ),
            entries
                .iter()
                .enumerate()
                .map(|(k, e)| f(from + 2 * k, 2, &format!("u16 script {k}"), e))
                .collect(),
        ));
    }
}

/// Each distinct script and its opcodes.
fn script_code_rows(s: &ScriptSection, bytes: &[u8], rows: &mut Vec<Pending>) {
    for c in &s.scripts {
        rows.push(script_row(c, s));
        for op in &c.ops {
            let mut fields = vec![f(
                op.at,
                1,
                "opcode",
                format!("{:#04x} {}", op.code, opcodes::name(op.code)),
            )];
            if op.len > 1 {
                fields.push(f(
                    op.at + 1,
                    op.len - 1,
                    "arguments",
                    arguments(&bytes[op.at..op.at + op.len]),
                ));
            }
            rows.push(with(
                row(
                    op.at,
                    op.at + op.len,
                    "op",
                    opcodes::name(op.code).to_string(),
                    arguments(&bytes[op.at..op.at + op.len]),
                ),
                fields,
            ));
        }
    }
}

/// The dialogue up to `dialogue_end`: its string offsets, each string, and the bytes
/// between them that no offset names.
fn dialogue_rows(dlg: &Dialogue, dialogue_end: usize, rows: &mut Vec<Pending>) {
    rows.push(row(
        dlg.at,
        dialogue_end,
        "dialogue",
        "dialogue".into(),
        count(dlg.strings.len(), "string"),
    ));
    let mut table = vec![f(dlg.at, 2, "u16 strings", dlg.count)];
    table.extend(dlg.offsets.iter().enumerate().map(|(k, o)| {
        f(
            dlg.at + 2 + 2 * k,
            2,
            &format!("u16 string {k}'s offset"),
            o,
        )
    }));
    rows.push(with(
        row(
            dlg.at,
            dlg.at + 2 + 2 * dlg.offsets.len(),
            "offsets",
            "string offsets".into(),
            String::new(),
        ),
        table,
    ));
    for (k, (r, text)) in dlg.strings.iter().enumerate() {
        rows.push(row(
            r.start,
            r.end,
            "string",
            format!("string {k}"),
            text.clone(),
        ));
    }
    // What lies between the strings (and after the last) that no offset names.
    let mut named: Vec<(usize, usize)> =
        dlg.strings.iter().map(|(r, _)| (r.start, r.end)).collect();
    named.sort_unstable();
    let mut at = dlg.at + 2 + 2 * dlg.offsets.len();
    for (from, to) in named.into_iter().chain([(dialogue_end, dialogue_end)]) {
        if from > at {
            rows.push(row(
                at,
                from,
                "unnamed",
                "bytes no string offset names".into(),
                count(from - at, "byte"),
            ));
        }
        at = at.max(to);
    }
}

fn script_row(c: &ScriptCode, s: &ScriptSection) -> Pending {
    let who: Vec<String> = c
        .entries
        .iter()
        .take(4)
        .map(|&(a, k)| format!("{} script {k}", actor_label(&s.actors[a].1, a)))
        .collect();
    let more = c.entries.len().saturating_sub(4);
    let label = if more > 0 {
        format!("{} and {more} more", who.join(", "))
    } else {
        who.join(", ")
    };
    row(
        c.range.start,
        c.range.end,
        "script",
        label,
        count(c.ops.len(), "opcode"),
    )
}

fn walkmesh_rows(w: &Walkmesh, rows: &mut Vec<Pending>) {
    let s = w.range.start;
    let n = w.triangles.len();
    rows.push(with(
        row(s, s + 4, "count", "triangle count".into(), n.to_string()),
        vec![f(s, 4, "u32 triangles", n)],
    ));
    rows.push(row(
        s + 4,
        w.access_at(0),
        "triangles",
        "triangles".into(),
        count(n, "triangle"),
    ));
    for t in 0..n {
        rows.push(triangle_row(w, t));
    }
    rows.push(row(
        w.access_at(0),
        w.access_at(n),
        "access",
        "access (the neighbour across each edge)".into(),
        String::new(),
    ));
    if n % 2 == 1 {
        rows.push(row(
            w.access_at(n),
            w.access_at(n) + 2,
            "padding",
            "padding".into(),
            "to a multiple of 4 bytes".into(),
        ));
    }
    for (t, a) in w.access.iter().enumerate() {
        rows.push(access_row(w, t, a));
    }
}

/// Walkmesh triangle `t`'s row: its three vertices.
fn triangle_row(w: &Walkmesh, t: usize) -> Pending {
    let tri = &w.triangles[t];
    let at = w.triangle_at(t);
    let [start, end] = w.triangle_bytes(t);
    with(
        row(
            start,
            end,
            "triangle",
            format!("triangle {t}"),
            format!("{:?} {:?} {:?}", tri[0], tri[1], tri[2]),
        ),
        (0..3)
            .map(|v| {
                f(
                    at + 8 * v,
                    8,
                    &format!("s16 × 4 vertex {} (x, y, z, pad)", ["A", "B", "C"][v]),
                    format!("{:?}", tri[v]),
                )
            })
            .collect(),
    )
}

/// Walkmesh triangle `t`'s access record `a`: the triangle across each edge, or a wall.
fn access_row(w: &Walkmesh, t: usize, a: &[i16; 3]) -> Pending {
    let at = w.access_at(t);
    let side = |x: i16| {
        if x < 0 {
            "wall".to_string()
        } else {
            format!("triangle {x}")
        }
    };
    with(
        row(
            at,
            at + 6,
            "access",
            format!("triangle {t}"),
            format!("{} · {} · {}", side(a[0]), side(a[1]), side(a[2])),
        ),
        (0..3)
            .map(|e| {
                f(
                    at + 2 * e,
                    2,
                    &format!("s16 across {}", ["AB", "BC", "CA"][e]),
                    a[e],
                )
            })
            .collect(),
    )
}

/// An opcode's argument bytes in hex.
fn arguments(op: &[u8]) -> String {
    op[1..]
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An actor's name, or "actor N" where it has none.
pub fn actor_label(name: &str, k: usize) -> String {
    if name.is_empty() {
        format!("actor {k}")
    } else {
        name.to_string()
    }
}

/// A playable character by global model id (the BCX files' order).
pub fn character_name(global: u8) -> Option<&'static str> {
    [
        "Cloud",
        "Aerith",
        "Barret",
        "Tifa",
        "Red XIII",
        "Cid",
        "Yuffie",
        "Cait Sith",
        "Vincent",
    ]
    .get(global.checked_sub(1)? as usize)
    .copied()
}

/// The script's name, actors and size, for the info pane.
fn script_summary_rows(d: &DatFile, rows: &mut Vec<InfoRow>) {
    if let Ok(s) = &d.script {
        rows.push(InfoRow::new("field", s.name.clone()));
        rows.push(InfoRow::new(
            "actors",
            s.actors
                .iter()
                .enumerate()
                .map(|(k, (_, n))| actor_label(n, k))
                .collect::<Vec<_>>()
                .join(", "),
        ));
        rows.push(InfoRow::new(
            "scripts",
            format!(
                "{} · {} opcodes",
                count(s.scripts.len(), "script"),
                s.scripts.iter().map(|c| c.ops.len()).sum::<usize>()
            ),
        ));
    }
}

impl SceneFound {
    /// What the info pane says of what the scene's build found: the files it lacked, the
    /// game camera's notes, the field's map id and ways in, the game state it was built with.
    fn rows(&self, rows: &mut Vec<InfoRow>) {
        rows.extend(self.missing.iter().cloned());
        rows.extend(
            self.camera_notes
                .iter()
                .map(|n| InfoRow::new("game camera", n.clone())),
        );
        if let Some(id) = self.ways_in.map {
            rows.push(InfoRow::new(
                "map id",
                format!("{id} (FIELD.BIN's field table)"),
            ));
        }
        rows.push(
            match (&self.ways_in.entrances[..], &self.ways_in.why_none) {
                ([], Some(why)) => InfoRow::warning(
                    "entrances",
                    format!("none found: {why}; the party leader stands where the init put it"),
                ),
                ([], None) => InfoRow::new(
                    "entrances",
                    "looked for when the field's scene is built".to_string(),
                ),
                (ways, _) => InfoRow::new(
                    "entrances",
                    format!(
                        "{}: the party leader comes in by the first, the entrance picker by any",
                        ways.iter()
                            .map(|w| format!(
                                "{} at ({}, {}, {}) facing {}",
                                w.label(),
                                w.position[0],
                                w.position[1],
                                w.position[2],
                                w.direction
                            ))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                ),
            },
        );
        let state = crate::ff7::game_state::list_text(&self.state);
        rows.push(InfoRow::new("game state", if state.is_empty() { "every variable 0 (the toolbar's game state, or relicview --set BANK:ADDRESS=VALUE, sets one)".to_string() } else { format!("{state}, every other variable 0") }));
    }
}

impl DatDocument {
    /// The scene with every variable 0 but those the archive's game state sets, and what
    /// building it found.
    fn scene(&self, assets: &dyn crate::Assets) -> Option<(crate::scene::Scene, SceneFound)> {
        let d = self.parsed.as_ref()?;
        let state = assets.game_state().to_vec();
        let pass = init_pass(d, self.stored.bytes(), &state);
        let models = self
            .models_file(assets)
            .and_then(|p| assets.get(&p))
            .and_then(|doc| doc.scene_as_asset(assets));
        let names: Vec<String> = d.script.as_ref().map_or(Vec::new(), |s| {
            s.actors
                .iter()
                .enumerate()
                .map(|(k, (_, n))| actor_label(n, k))
                .collect()
        });
        let ways_in = self.ways_in(assets);
        let mut scene = super::scene::build(
            crate::stem(&self.path),
            d,
            pass.as_ref(),
            &names,
            models,
            &ways_in.entrances,
        )?;
        let mim = self.pixels_file(assets);
        let pixels = mim.as_deref().and_then(|p| {
            Some(backdrop::Pixels {
                path: p,
                vram: assets
                    .get(p)?
                    .as_any()
                    .downcast_ref::<crate::ff7::mim::MimDocument>()?
                    .vram()?,
            })
        });
        backdrop::add_to(&mut scene, d, crate::stem(&self.path), pixels.as_ref());
        let found = SceneFound {
            camera_notes: scene
                .ff7
                .cameras
                .iter()
                .flat_map(|c| c.notes.iter().cloned())
                .collect(),
            missing: self.missing_files(d, assets),
            ways_in,
            state,
        };
        Some((scene, found))
    }

    /// The field's models: the .BSX of its name beside it.
    fn models_file(&self, assets: &dyn crate::Assets) -> Option<String> {
        assets
            .resolve(&self.path, &[format!("{}.BSX", crate::stem(&self.path))])
            .file
    }
    /// The field's background pixels: the .MIM of its name beside it.
    fn pixels_file(&self, assets: &dyn crate::Assets) -> Option<String> {
        assets
            .resolve(&self.path, &[format!("{}.MIM", crate::stem(&self.path))])
            .file
    }
    /// What the scene lacks of the archive's files: the .BSX (then no model is drawn), or a
    /// playable character's .BCX a model slot needs (then that model is the .BSX's records
    /// alone), each as a warning naming the file.
    fn missing_files(&self, d: &DatFile, assets: &dyn crate::Assets) -> Vec<InfoRow> {
        if !assets.resolves() {
            return Vec::new();
        }
        let stem = crate::stem(&self.path);
        if self.models_file(assets).is_none() {
            return vec![InfoRow::warning("models", format!("{stem}.BSX is not beside the field: the walkmesh, its gateways and the camera are shown, the models not"))];
        }
        let mut out = Vec::new();
        let mut globals: Vec<u8> = d.loader.as_ref().map_or(Vec::new(), |l| {
            l.iter().map(|r| r.global).filter(|&g| g > 0).collect()
        });
        globals.sort_unstable();
        globals.dedup();
        for g in globals {
            let Some(bcx) = crate::ff7::bsx::character_file(g) else {
                continue;
            };
            if assets
                .resolve(&self.path, &[bcx.to_string()])
                .file
                .is_none()
            {
                out.push(InfoRow::warning(format!("character {}", character_name(g).unwrap_or("?")), format!("{bcx} is not in the archive: that model is drawn from {stem}.BSX's own records, without the character's skeleton and animations")));
            }
        }
        out
    }
    /// FIELD.BIN, nearest first.
    fn field_bin_file(&self, assets: &dyn crate::Assets) -> Option<String> {
        assets.resolve(&self.path, &[FIELD_BIN.to_string()]).file
    }
    /// FIELD.BIN's tables, once read.
    fn field_tables<'a>(
        &self,
        assets: &'a dyn crate::Assets,
    ) -> Option<&'a crate::ff7::bsx::field_bin::FieldTables> {
        let doc = assets.get(&self.field_bin_file(assets)?)?;
        doc.as_any()
            .downcast_ref::<crate::ff7::bsx::FieldBinDocument>()?
            .tables
            .as_ref()
    }
    /// This field's map id: the one whose .DAT as stored (and .MIM, where its size is
    /// known) have this field's sizes; or why there is none.
    fn map_id(
        &self,
        tables: &crate::ff7::bsx::field_bin::FieldTables,
        assets: &dyn crate::Assets,
    ) -> Result<u16, String> {
        let dat = self.stored.file.len() as u64;
        let mim = self.pixels_file(assets).and_then(|p| assets.size(&p));
        match tables.maps_fitting(dat, mim)[..] {
            [id] => Ok(id),
            [] if !self.stored.compressed => Err(format!("FIELD.BIN's field table knows a field by its .DAT's size as the disc stores it (LZS-compressed); this one is stored unpacked ({dat} bytes)")),
            [] => Err(format!("no field of FIELD.BIN's table has a .DAT of {dat} bytes{}", mim.map_or(String::new(), |m| format!(" and a .MIM of {m}")))),
            ref several => Err(format!("{} fields of FIELD.BIN's table have a .DAT of {dat} bytes (maps {several:?}), and the .MIM that would tell them apart is not beside it", several.len())),
        }
    }
    /// The fields this one leads to (by its gateways and MAPJUMPs) that the archive has: the
    /// .DAT of each one's size in FIELD.BIN's table, nearest first; at most
    /// [`entrances::MAX_NEIGHBOURS`].
    fn neighbour_files(
        &self,
        tables: &crate::ff7::bsx::field_bin::FieldTables,
        assets: &dyn crate::Assets,
    ) -> Vec<String> {
        let Some(d) = &self.parsed else {
            return Vec::new();
        };
        let mut maps: Vec<u16> = entrances::exits(d, self.stored.bytes())
            .iter()
            .map(|e| e.to)
            .filter(|&m| m > crate::ff7::bsx::field_bin::WORLD_MAP_SLOTS)
            .collect();
        maps.sort_unstable();
        maps.dedup();
        let mut files: Vec<String> = Vec::new();
        for m in maps {
            let Some(entry) = tables.maps.get(m as usize) else {
                continue;
            };
            let found = assets.files_sized(&self.path, "dat", entry.dat[1] as u64);
            if let Some(f) = found
                .into_iter()
                .find(|f| !f.eq_ignore_ascii_case(&self.path) && !files.contains(f))
            {
                files.push(f);
            }
            if files.len() == entrances::MAX_NEIGHBOURS {
                break;
            }
        }
        files
    }
    /// The ways in: this field's map id and the exits into it among its neighbours'.
    fn ways_in(&self, assets: &dyn crate::Assets) -> WaysIn {
        let none = |why: String| WaysIn {
            why_none: Some(why),
            ..Default::default()
        };
        let (Some(d), true) = (&self.parsed, assets.resolves()) else {
            return none(
                "opened on its own: the fields that lead here are looked for in its archive".into(),
            );
        };
        let Ok(w) = &d.walkmesh else {
            return none("the walkmesh is not read".into());
        };
        let Some(tables) = self.field_tables(assets) else {
            return none(format!(
                "{FIELD_BIN} is not in the archive: its field table says which field this is"
            ));
        };
        let id = match self.map_id(tables, assets) {
            Ok(id) => id,
            Err(why) => return none(why),
        };
        let neighbours = self.neighbour_files(tables, assets);
        let found = entrances::entrances(
            w,
            id,
            neighbours.iter().filter_map(|p| {
                let doc = assets.get(p)?.as_any().downcast_ref::<DatDocument>()?;
                Some((
                    crate::stem(p),
                    entrances::exits(doc.parsed.as_ref()?, doc.stored.bytes()),
                ))
            }),
        );
        let why_none = found.is_empty().then(|| match neighbours.is_empty() {
            true => "none of the fields this one leads to is in the archive (their .DAT files are found by their sizes in FIELD.BIN's table, where the archive knows its files' sizes)".to_string(),
            false => format!("none of the fields this one leads to leads back here ({})", neighbours.iter().map(|p| crate::stem(p)).collect::<Vec<_>>().join(", ")),
        });
        WaysIn {
            map: Some(id),
            entrances: found,
            why_none,
        }
    }
}

impl Document for DatDocument {
    crate::common_accessors!();
    fn damaged(&self) -> bool {
        self.stored.is_header_damage(self.error.as_ref())
    }
    fn references(&self) -> Vec<crate::Reference> {
        let stem = crate::stem(&self.path);
        [("models", "BSX"), ("background", "MIM")]
            .into_iter()
            .map(|(role, ext)| {
                let name = format!("{stem}.{ext}");
                crate::Reference {
                    role,
                    written: name.clone(),
                    names: vec![name],
                    item: None,
                }
            })
            .collect()
    }
    fn needs(&self, assets: &dyn crate::Assets) -> Vec<String> {
        // The .MIM beside it; the .BSX, and then what the .BSX needs (its characters, faces,
        // lights).
        let mut needed: Vec<String> = self
            .pixels_file(assets)
            .filter(|p| !assets.known(p))
            .into_iter()
            .collect();
        // FIELD.BIN (which field this is, by its table), then the fields this one leads to
        // (their ways back are its entrances).
        if let Some(fb) = self.field_bin_file(assets) {
            match self.field_tables(assets) {
                _ if !assets.known(&fb) => needed.push(fb),
                Some(tables) => needed.extend(
                    self.neighbour_files(tables, assets)
                        .into_iter()
                        .filter(|p| !assets.known(p)),
                ),
                None => {}
            }
        }
        if let Some(bsx) = self.models_file(assets) {
            match assets.get(&bsx) {
                _ if !assets.known(&bsx) => needed.push(bsx),
                Some(d) => needed.extend(d.needs(assets)),
                None => {}
            }
        }
        needed
    }
    fn build_scene(&self, assets: &dyn crate::Assets) -> crate::Built {
        match self.scene(assets) {
            Some((scene, found)) => crate::Built {
                scene: Some(scene),
                found: crate::Found::of(found),
            },
            None => crate::Built::default(),
        }
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        self.stored.view(view)
    }
}

impl crate::Describe for DatDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        let built = found.own::<SceneFound>().unwrap_or(&NOT_BUILT);
        let parsed = self.parsed.as_ref();
        Box::new(DatInfo {
            kind: self.kind,
            stored: &self.stored,
            parsed,
            pass: parsed.and_then(|d| init_pass(d, self.stored.bytes(), &built.state)),
            built,
        })
    }
}

/// Where the init pass stopped: each actor's init that did.
fn init_rows(d: &DatFile, pass: Option<&init::InitPass>, rows: &mut Vec<InfoRow>) {
    let Some(pass) = pass else { return };
    let names: Vec<String> = d.script.as_ref().map_or(Vec::new(), |s| {
        s.actors
            .iter()
            .enumerate()
            .map(|(k, (_, n))| actor_label(n, k))
            .collect()
    });
    for (a, at, why) in &pass.stopped {
        rows.push(InfoRow::warning(
            "init stopped",
            format!(
                "{}'s init at byte {at}: {why}; the scene shows what it did until then",
                names.get(*a).map_or("an actor", |n| n.as_str())
            ),
        ));
    }
}
/// What `info` says of a field's .DAT: its container, its script, walkmesh, gateways and
/// model slots, the init pass run with the state the scene was built with (once, for both
/// the rows and the JSON), and what the scene's build found.
struct DatInfo<'a> {
    kind: Kind,
    stored: &'a Stored,
    parsed: Option<&'a DatFile>,
    pass: Option<init::InitPass>,
    built: &'a SceneFound,
}

impl crate::Info for DatInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let built = self.built;
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", self.stored.bytes().len().to_string()),
        ];
        rows.extend(self.stored.header_rows());
        let Some(d) = self.parsed else { return rows };
        script_summary_rows(d, &mut rows);
        init_rows(d, self.pass.as_ref(), &mut rows);
        if let Ok(w) = &d.walkmesh {
            rows.push(InfoRow::new(
                "walkmesh",
                count(w.triangles.len(), "triangle"),
            ));
        }
        if let Ok(t) = &d.triggers {
            let to: Vec<String> = t
                .gateways
                .iter()
                .map(|g| format!("map {}", g.map))
                .collect();
            rows.push(InfoRow::new(
                "gateways",
                if to.is_empty() {
                    "none".to_string()
                } else {
                    to.join(", ")
                },
            ));
        }
        built.rows(&mut rows);
        if let Ok(l) = &d.loader {
            rows.push(InfoRow::new("models", count(l.len(), "model slot")));
        }
        rows
    }
    fn json(&self, error: Option<&ParseError>) -> String {
        let built = self.built;
        let field = self.parsed.map(|d| {
            let mut json = field_json(d, self.pass.as_ref(), &built.state);
            json["map"] = serde_json::json!(built.ways_in.map);
            json["entrances"] = built.ways_in.entrances.iter().map(|w| serde_json::json!({"from": w.from, "via": w.via.word(), "position": w.position, "triangle": w.triangle, "direction": w.direction})).collect();
            json
        });
        let fields = serde_json::json!({
            "format": "field-dat",
            "kind": self.kind,
            "bytes": self.stored.bytes().len(),
            "compressed": self.stored.compressed,
            "field": field,
        });
        crate::summary_json(fields, error)
    }
}

/// The init pass with every variable 0 but those `state` sets, the models XYI placed on
/// their triangles' planes.
fn init_pass(d: &DatFile, bytes: &[u8], state: &[crate::GameVariable]) -> Option<init::InitPass> {
    let mut pass = init::run(d.script.as_ref().ok()?, bytes, &mut memory(state));
    if let Ok(w) = &d.walkmesh {
        pass.settle(w);
    }
    Some(pass)
}

/// The init pass's memory: every variable 0 but those `state` sets.
fn memory(state: &[crate::GameVariable]) -> init::Memory {
    let mut m = init::Memory::default();
    for v in state {
        m.set(v.bank, v.address, v.value);
    }
    m
}

/// `info --json`'s "field": the script's name, its entities and their model slots, every
/// model where the init pass puts it (every variable 0 but those `state` sets), the
/// conditions it tested, the walkmesh's size and bounds, the camera, the gateways; in the
/// field's own units and axes.
fn field_json(
    d: &DatFile,
    pass: Option<&init::InitPass>,
    state: &[crate::GameVariable],
) -> serde_json::Value {
    let script = d.script.as_ref().ok();
    let name_of = |k: usize| {
        script
            .map(|s| actor_label(&s.actors[k].1, k))
            .unwrap_or_default()
    };
    let entities: Vec<serde_json::Value> = script.map_or(Vec::new(), |s| {
        s.actors.iter().enumerate().map(|(k, (_, name))| serde_json::json!({"index": k, "name": name, "model": pass.as_ref().and_then(|p| p.entities[k].model)})).collect()
    });
    let models = d
        .loader
        .as_ref()
        .map_or(Vec::new(), |slots| models_json(slots, pass, &name_of));
    // An init that never reached its RET (a loop, code that runs out) was stopped: said.
    let stopped: Vec<serde_json::Value> = pass.as_ref().map_or(Vec::new(), |p| {
        p.stopped
            .iter()
            .map(|(a, at, why)| serde_json::json!({"entity": name_of(*a), "at": at, "why": why}))
            .collect()
    });
    let branches: Vec<serde_json::Value> = pass.as_ref().map_or(Vec::new(), |p| {
        p.branches.iter().map(|b| serde_json::json!({"entity": name_of(b.actor), "at": b.at, "test": b.test, "taken": b.taken})).collect()
    });
    let walkmesh = d.walkmesh.as_ref().ok().map(walkmesh_json);
    let camera = d.camera.as_ref().ok().map(|c| {
        let r = c.matrix();
        serde_json::json!({"position": c.position(), "axis": r[2], "projection": c.projection})
    });
    let gateways = d.triggers.as_ref().ok().map(|t| {
        t.gateways
            .iter()
            .map(|g| serde_json::json!({"line": g.line, "to": g.map}))
            .collect::<Vec<_>>()
    });
    serde_json::json!({
        "name": script.map(|s| s.name.clone()),
        "entities": entities,
        "models": models,
        "branches": branches,
        "stopped": stopped,
        "walkmesh": walkmesh,
        "camera": camera,
        "gateways": gateways,
        "state": state,
    })
}

/// `info --json`'s "models": each model slot, where the init pass puts its entity (the party
/// leader, who comes in by an entrance, nowhere), facing its way, shown or not, playing what.
fn models_json(
    slots: &[LoaderRecord],
    pass: Option<&init::InitPass>,
    name_of: &dyn Fn(usize) -> String,
) -> Vec<serde_json::Value> {
    slots
        .iter()
        .enumerate()
        .map(|(k, slot)| {
            let found = pass.as_ref().and_then(|p| {
                p.entities
                    .iter()
                    .enumerate()
                    .find(|(_, e)| e.model == Some(k))
            });
            let (entity, e) = match found {
                Some((a, e)) => (Some(name_of(a)), e.clone()),
                None => (None, init::Entity::default()),
            };
            // The party leader comes in by an entrance, unless init locked the controls.
            let leader = e.character == Some(init::LEADER)
                && !pass.as_ref().is_some_and(|p| p.control_locked);
            serde_json::json!({
                "model": k,
                "entity": entity,
                "character": character_name(slot.global),
                "position": if leader { None } else { e.position },
                "triangle": if leader { None } else { e.triangle },
                "direction": e.direction,
                "visible": e.visible,
                "animation": e.animation,
            })
        })
        .collect()
}

/// `info --json`'s "walkmesh": its triangles and the box around them.
fn walkmesh_json(w: &Walkmesh) -> serde_json::Value {
    let mut lo = [i16::MAX; 3];
    let mut hi = [i16::MIN; 3];
    for v in w.triangles.iter().flatten() {
        for c in 0..3 {
            lo[c] = lo[c].min(v[c]);
            hi[c] = hi[c].max(v[c]);
        }
    }
    serde_json::json!({"triangles": w.triangles.len(), "bounds": if w.triangles.is_empty() { serde_json::Value::Null } else { serde_json::json!([lo, hi]) }})
}

fn tile_map_rows(t: &TileMap, rows: &mut Vec<Pending>) {
    let s = t.range.start;
    rows.push(with(
        row(s, s + 16, "header", "block offsets".into(), String::new()),
        [
            "layer-1 tiles (16 × 16, 8 bytes each)",
            "texture-page words",
            "layer-2 tiles (14 bytes each)",
            "layer-3 and 4 tiles (10 bytes each)",
        ]
        .iter()
        .enumerate()
        .map(|(k, what)| {
            f(
                s + 4 * k,
                4,
                &format!("u32 offset of the {what}"),
                t.blocks[k] - s,
            )
        })
        .collect(),
    ));
    row_group_rows(t, rows);
    if t.blocks[0] > t.groups_end {
        rows.push(row(
            t.groups_end,
            t.blocks[0],
            "unused",
            "after the row groups".into(),
            count(t.blocks[0] - t.groups_end, "byte"),
        ));
    }
    tile_block_rows(t, rows);
    for (i, tile) in t.tiles.iter().enumerate() {
        rows.push(tile_row(i, tile));
    }
}

/// The tile map's row groups, each layer's texture-page markers and where each layer ends.
fn row_group_rows(t: &TileMap, rows: &mut Vec<Pending>) {
    let s = t.range.start;
    let per_layer: Vec<String> = (0..LAYERS)
        .map(|l| {
            format!(
                "layer {}: {}",
                l + 1,
                count(t.groups.iter().filter(|g| g.layer == l).count(), "group")
            )
        })
        .collect();
    rows.push(row(
        s + 16,
        t.groups_end,
        "row_groups",
        "row groups".into(),
        per_layer.join(", "),
    ));
    for g in &t.groups {
        let page = g.page.map_or(String::new(), |p| format!(", page word {p}"));
        rows.push(with(
            row(
                g.at,
                g.at + 6,
                "row_group",
                format!("layer {} row y {}", g.layer + 1, g.y),
                format!(
                    "tiles {}..{}{page}",
                    g.first,
                    g.first as usize + g.count as usize
                ),
            ),
            vec![
                f(g.at, 2, "s16 y", g.y),
                f(g.at + 2, 2, "u16 first tile", g.first),
                f(g.at + 4, 2, "u16 tiles", g.count),
            ],
        ));
    }
    for m in &t.markers {
        rows.push(with(
            row(
                m.at,
                m.at + 6,
                "page_marker",
                format!("layer {} texture page", m.layer + 1),
                format!("the groups before it take page word {}", m.index),
            ),
            vec![
                f(m.at, 2, "u16 marker 0x7FFE", "0x7ffe"),
                f(m.at + 2, 2, "u16 page word index", m.index),
                f(m.at + 4, 2, "u16", m.rest),
            ],
        ));
    }
    for (k, &at) in t.layer_ends.iter().enumerate() {
        rows.push(with(
            row(
                at,
                at + 2,
                "layer_end",
                format!("end of layer {}", k + 1),
                String::new(),
            ),
            vec![f(at, 2, "u16 end word 0x7FFF", "0x7fff")],
        ));
    }
}

/// The tile map's tile blocks and its texture-page words.
fn tile_block_rows(t: &TileMap, rows: &mut Vec<Pending>) {
    let block_names = ["layer 1 tiles", "layer 2 tiles", "layer 3 and 4 tiles"];
    for (k, name) in block_names.iter().enumerate() {
        let b = t.block(k);
        let n = t.tiles.iter().filter(|x| t.block(x.layer) == b).count();
        rows.push(row(
            b.start,
            b.end,
            "tiles",
            name.to_string(),
            count(n, "tile"),
        ));
    }
    rows.push(with(
        row(
            t.blocks[1],
            t.blocks[2],
            "pages",
            "texture-page words".into(),
            t.pages
                .iter()
                .map(|p| format!("{p:#06x}"))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        t.pages
            .iter()
            .enumerate()
            .map(|(k, p)| {
                f(
                    t.blocks[1] + 2 * k,
                    2,
                    &format!("u16 page word {k}"),
                    format!(
                        "{p:#06x}: x {}, y {}, {} bits",
                        (p & 0xF) * 64,
                        ((p >> 4) & 1) * 256,
                        [4, 8, 16, 16][((p >> 7) & 3) as usize]
                    ),
                )
            })
            .collect(),
    ));
}

/// The fields a tile's layer adds to the first three: layer 2's page word, depth, param and
/// state; layers 3 and 4's param and state.
fn tile_layer_fields(t: &Tile) -> Vec<FieldRow> {
    let at = t.at;
    match t.layer {
        0 => Vec::new(),
        1 => vec![
            f(
                at + 8,
                2,
                "u16 texture-page word",
                format!("{:#06x}", t.page.unwrap_or(0)),
            ),
            f(
                at + 10,
                2,
                "u16 depth (larger is farther)",
                t.id.unwrap_or(0),
            ),
            f(
                at + 12,
                1,
                "u8 param (bit 7 semi-transparent, group)",
                t.param,
            ),
            f(at + 13, 1, "u8 state bit", t.state),
        ],
        _ => vec![
            f(
                at + 8,
                1,
                "u8 param (bit 7 semi-transparent, group)",
                t.param,
            ),
            f(at + 9, 1, "u8 state bit", t.state),
        ],
    }
}

fn tile_row(i: usize, t: &Tile) -> Pending {
    let at = t.at;
    let mut fields = vec![
        f(
            at,
            4,
            "s16 × 2 place (pixels from the projection centre)",
            format!("({}, {})", t.dst[0], t.dst[1]),
        ),
        f(
            at + 4,
            2,
            "u8 × 2 texel u, v",
            format!("({}, {})", t.uv[0], t.uv[1]),
        ),
        f(
            at + 6,
            2,
            "u16 palette (CLUT)",
            format!(
                "{:#06x}: x {}, y {}",
                t.clut,
                (t.clut & 63) * 16,
                t.clut >> 6
            ),
        ),
    ];
    let mut summary = format!(
        "at ({}, {}), texels ({}, {})",
        t.dst[0], t.dst[1], t.uv[0], t.uv[1]
    );
    fields.extend(tile_layer_fields(t));
    if t.layer == 1 {
        summary += &format!(", depth {}", t.id.unwrap_or(0));
    }
    if t.group() != 0 {
        summary += &format!(", group {} state {}", t.group(), t.state);
    }
    if t.semi_transparent() {
        summary += ", semi-transparent";
    }
    with(
        row(
            at,
            at + RECORD[t.layer],
            "tile",
            format!("layer {} tile {i}", t.layer + 1),
            summary,
        ),
        fields,
    )
}

fn camera_rows(c: &Camera, rows: &mut Vec<Pending>) {
    let at = c.at;
    let mut fields: Vec<FieldRow> = (0..9)
        .map(|i| {
            f(
                at + 2 * i,
                2,
                &format!("s16 rotation R{}{} (4.12)", i / 3 + 1, i % 3 + 1),
                c.rotation[i / 3][i % 3],
            )
        })
        .collect();
    fields.push(f(at + 0x12, 2, "s16 a copy of R33", c.rotation[2][2]));
    fields.extend((0..3).map(|k| {
        f(
            at + 0x14 + 4 * k,
            4,
            &format!("s32 translation {}", ["x", "y", "z"][k]),
            c.translation[k],
        )
    }));
    fields.push(f(at + 0x20, 2, "s16 screen offset x", c.offset[0]));
    fields.push(f(at + 0x22, 2, "s16 screen offset y", c.offset[1]));
    fields.push(f(
        at + 0x24,
        2,
        "u16 projection distance (pixels)",
        c.projection,
    ));
    let p = c.position();
    rows.push(with(
        row(
            at,
            at + CAMERA,
            "camera",
            "camera".into(),
            format!(
                "at ({:.0}, {:.0}, {:.0}), projection {}",
                p[0], p[1], p[2], c.projection
            ),
        ),
        fields,
    ));
}

fn trigger_rows(t: &Triggers, rows: &mut Vec<Pending>) {
    let s = t.at;
    rows.push(triggers_header_row(t));
    gateway_rows(t, rows);
    bg_trigger_rows(t, rows);
    rows.push(with(
        row(
            s + ARROW_FLAGS_AT,
            s + ARROWS_AT,
            "arrow_flags",
            "exit arrows shown".into(),
            String::new(),
        ),
        (0..SLOTS)
            .map(|k| {
                f(
                    s + ARROW_FLAGS_AT + k,
                    1,
                    &format!("u8 gateway {k}'s arrow"),
                    t.arrow_flags[k],
                )
            })
            .collect(),
    ));
    let mut arrows = row(
        s + ARROWS_AT,
        s + 740,
        "arrows",
        "extra arrows".into(),
        String::new(),
    );
    arrows.opaque = true;
    rows.push(arrows);
}

/// The triggers section's header: the field's name, the control direction, the camera's
/// focus height, the scroll range and the layers' sizes, scroll and parallax.
fn triggers_header_row(t: &Triggers) -> Pending {
    let s = t.at;
    with(
        row(
            s,
            s + GATEWAYS_AT,
            "header",
            "triggers header".into(),
            format!(
                "scroll x {}..{}, y {}..{}",
                t.scroll[0], t.scroll[2], t.scroll[1], t.scroll[3]
            ),
        ),
        vec![
            f(s, 9, "char[9] field name", &t.name),
            f(s + 9, 1, "u8 control direction", t.control_direction),
            f(s + 0x0A, 2, "s16 camera focus height", t.focus_height),
            f(
                s + 0x0C,
                8,
                "s16 × 4 scroll range (min x, min y, max x, max y)",
                format!("{:?}", t.scroll),
            ),
            f(
                s + 0x14,
                4,
                "u8 × 4 scroll mode (1, 2: along a diagonal) and three unused",
                hex_of(&t.rest[0..4]),
            ),
            f(
                s + 0x18,
                8,
                "s16 × 4 layer 3 and 4 width and height",
                format!("{:?}", s16s(&t.rest[4..12])),
            ),
            f(
                s + 0x20,
                8,
                "s16 × 4 layer 3 and 4 scroll (the engine writes these)",
                format!("{:?}", s16s(&t.rest[12..20])),
            ),
            f(
                s + 0x28,
                8,
                "s16 × 4 layer 3 and 4 parallax (of 256)",
                format!("{:?}", s16s(&t.rest[20..28])),
            ),
            f(s + 0x30, 8, "unused", hex_of(&t.rest[28..36])),
        ],
    )
}

/// The gateways, each used one, and the unused slots.
fn gateway_rows(t: &Triggers, rows: &mut Vec<Pending>) {
    let s = t.at;
    rows.push(row(
        s + GATEWAYS_AT,
        s + BG_TRIGGERS_AT,
        "gateways",
        "gateways".into(),
        count(t.gateways.len(), "gateway"),
    ));
    for g in &t.gateways {
        rows.push(with(
            row(
                g.at,
                g.at + 24,
                "gateway",
                format!("gateway to map {}", g.map),
                format!(
                    "({}, {}) on triangle {}, facing {}",
                    g.destination[0], g.destination[1], g.triangle, g.direction
                ),
            ),
            vec![
                f(
                    g.at,
                    12,
                    "s16 × 6 exit line",
                    format!("{:?} – {:?}", g.line[0], g.line[1]),
                ),
                f(
                    g.at + 12,
                    4,
                    "s16 × 2 destination x, y",
                    format!("{:?}", g.destination),
                ),
                f(g.at + 16, 2, "u16 destination triangle", g.triangle),
                f(g.at + 18, 2, "u16 destination map id", g.map),
                f(g.at + 20, 4, "u8 direction (and three copies)", g.direction),
            ],
        ));
    }
    let used: Vec<usize> = t.gateways.iter().map(|g| g.at).collect();
    unused_slots(
        rows,
        s + GATEWAYS_AT,
        24,
        &used,
        "gateway slot",
        "not used (map 0x7FFF)",
    );
}

/// The background triggers, each used one, and the unused slots.
fn bg_trigger_rows(t: &Triggers, rows: &mut Vec<Pending>) {
    let s = t.at;
    rows.push(row(
        s + BG_TRIGGERS_AT,
        s + ARROW_FLAGS_AT,
        "bg_triggers",
        "background triggers".into(),
        count(t.bg_triggers.len(), "trigger"),
    ));
    for g in &t.bg_triggers {
        rows.push(with(
            row(
                g.at,
                g.at + 16,
                "bg_trigger",
                format!("background byte {}, bit {}", g.byte, g.bit),
                format!("behaviour {}", g.behaviour),
            ),
            vec![
                f(
                    g.at,
                    12,
                    "s16 × 6 line",
                    format!("{:?} – {:?}", g.line[0], g.line[1]),
                ),
                f(g.at + 12, 1, "u8 background byte", g.byte),
                f(g.at + 13, 1, "u8 bit", g.bit),
                f(g.at + 14, 1, "u8 behaviour", g.behaviour),
                f(g.at + 15, 1, "u8 sound", g.sound),
            ],
        ));
    }
    let used: Vec<usize> = t.bg_triggers.iter().map(|g| g.at).collect();
    unused_slots(
        rows,
        s + BG_TRIGGERS_AT,
        16,
        &used,
        "background trigger slot",
        "not used (byte 0xFF)",
    );
}

fn encounter_rows(tables: &[EncounterTable; 2], rows: &mut Vec<Pending>) {
    for (k, t) in tables.iter().enumerate() {
        let mut fields = vec![
            f(t.at, 1, "u8 enabled", t.enabled),
            f(t.at + 1, 1, "u8 rate", t.rate),
        ];
        fields.extend(t.battles.iter().enumerate().map(|(i, (id, p))| {
            f(
                t.at + 2 + 2 * i,
                2,
                &format!(
                    "u16 battle {i} ({}): id | chance << 10",
                    if i < 6 { "normal" } else { "special" }
                ),
                format!("battle {id}, {p} of 64"),
            )
        }));
        fields.push(f(t.at + 22, 2, "u16 padding", u16::from_le_bytes(t.pad)));
        rows.push(with(
            row(
                t.at,
                t.at + 24,
                "encounters",
                format!("encounter table {}", k + 1),
                if t.enabled {
                    format!("rate {}", t.rate)
                } else {
                    "off".into()
                },
            ),
            fields,
        ));
    }
}

/// The model loader's records; `bound[k]` the actor slot `k` is bound to (its name).
fn loader_rows(
    records: &[LoaderRecord],
    bytes: &[u8],
    s: usize,
    bound: &[Option<String>],
    rows: &mut Vec<Pending>,
) {
    rows.push(with(
        row(
            s,
            s + 4,
            "header",
            "model loader header".into(),
            count(records.len(), "model slot"),
        ),
        vec![
            f(
                s,
                2,
                "u16 section size",
                u16::from_le_bytes([bytes[s], bytes[s + 1]]),
            ),
            f(s + 2, 2, "u16 count", records.len()),
        ],
    ));
    for (k, r) in records.iter().enumerate() {
        let what = match r.global {
            0 => "field-only model".to_string(),
            g => format!(
                "playable character {g} ({})",
                character_name(g).unwrap_or("?")
            ),
        };
        let who = match bound.get(k).cloned().flatten() {
            Some(actor) => format!("{actor}: {what}"),
            None => format!("no actor: {what}"),
        };
        rows.push(with(
            row(
                r.bytes()[0],
                r.bytes()[1],
                "model_slot",
                format!("model slot {k}"),
                who,
            ),
            vec![
                f(r.at, 1, "u8 face id", r.face),
                f(r.at + 1, 1, "u8 bones", r.bones),
                f(r.at + 2, 1, "u8 parts", r.parts),
                f(r.at + 3, 1, "u8 animations", r.animations),
                f(
                    r.at + 4,
                    1,
                    "u8 run-time slot (the engine writes it)",
                    bytes[r.at + 4],
                ),
                f(
                    r.at + 5,
                    1,
                    "u8 load (1 always, 0 when a party member has it)",
                    r.load,
                ),
                f(r.at + 6, 1, "u8 run-time flag", bytes[r.at + 6]),
                f(
                    r.at + 7,
                    1,
                    "u8 global model id (0 field-only, 1–9 a BCX)",
                    r.global,
                ),
            ],
        ));
    }
}

/// A row for each of a trigger table's twelve slots of `width` bytes from `from` that is
/// not among the `used` ones.
fn unused_slots(
    rows: &mut Vec<Pending>,
    from: usize,
    width: usize,
    used: &[usize],
    what: &str,
    why: &str,
) {
    for k in 0..SLOTS {
        let at = from + k * width;
        if !used.contains(&at) {
            rows.push(row(
                at,
                at + width,
                "unused",
                format!("{what} {k}"),
                why.into(),
            ));
        }
    }
}

/// Bytes in hex, one word a byte.
fn hex_of(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Little-endian s16s.
fn s16s(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect()
}
