//! A field's .DAT read from its unpacked bytes, every part with its offset
//! (docs/formats/field-dat.md): the section table, the script section (header, actor names,
//! script table, every script walked opcode by opcode, the dialogue), the walkmesh, the
//! background tile map's blocks, the camera, the triggers, the encounters and the model
//! loader. Each section is read on its own: one that is wrong is an error at its byte, and
//! the others are still read.

pub use super::bytes::SECTION_NAMES;
use super::bytes::{need, s16_at, s32_at, section_error, u16_at, u32_at};
use super::opcodes;
pub use super::tiles::TileMap;
use crate::findings::{Diagnostics, ParseError};
use crate::scene::RecordBytes;
use std::ops::Range;

/// Where the engine loads the unpacked file: a section's offset is its pointer minus this.
pub const BASE: u32 = 0x8011_4FE4;
/// The section table: seven pointers.
pub const HEADER: usize = 28;
/// The script section's header before the actor names.
pub const SCRIPT_HEADER: usize = 0x20;
/// Entry points a script table gives each actor.
pub const SCRIPTS_PER_ACTOR: usize = 32;
/// A walkmesh triangle: three vertices of four s16 (x, y, z, pad).
pub const TRIANGLE: usize = 24;
/// A triangle's access record: the neighbour across each edge (−1: a wall).
pub const ACCESS: usize = 6;
/// The camera record's bytes.
pub const CAMERA: usize = 38;
/// The triggers section's bytes.
pub const TRIGGERS: usize = 740;
pub const GATEWAYS_AT: usize = 0x38;
pub const GATEWAY: usize = 24;
pub const BG_TRIGGERS_AT: usize = 0x158;
pub const BG_TRIGGER: usize = 16;
pub const ARROW_FLAGS_AT: usize = 0x218;
pub const ARROWS_AT: usize = 0x224;
pub const ARROW: usize = 16;
/// Slots of each trigger table.
pub const SLOTS: usize = 12;
/// A gateway whose destination is this map id is an unused slot.
pub const NO_MAP: u16 = 0x7FFF;
/// The encounter tables: two of 24 bytes.
pub const ENCOUNTER_TABLE: usize = 24;
/// A model loader record.
pub const LOADER_RECORD: usize = 8;
/// The most strings a dialogue block may list (its count is a u16).
const MAX_STRINGS: usize = 4096;

/// The unpacked .DAT.
#[derive(Debug, Clone)]
pub struct DatFile {
    /// Each section's bytes in the file, in the table's order.
    pub sections: [Range<usize>; 7],
    pub script: Result<ScriptSection, ParseError>,
    pub walkmesh: Result<Walkmesh, ParseError>,
    pub tile_map: Result<TileMap, ParseError>,
    pub camera: Result<Camera, ParseError>,
    pub triggers: Result<Triggers, ParseError>,
    pub encounters: Result<[EncounterTable; 2], ParseError>,
    pub loader: Result<Vec<LoaderRecord>, ParseError>,
}

/// A NUL-padded ASCII name as text (bytes outside printable ASCII as `\xNN`).
pub fn name_of(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes[..end]
        .iter()
        .map(|&b| {
            if (0x20..0x7F).contains(&b) {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect()
}

/// Whether `b` starts as a field's .DAT does: a section table of seven RAM addresses in
/// order, the first the byte after the table (loaded at [`BASE`]). What tells a .DAT's LZS
/// container whose header disagrees with the file from the .DAT's own bytes
/// (docs/formats/lzs.md, "Lengths").
pub fn starts_like_a_field(b: &[u8]) -> bool {
    let Some(table) = b.get(..HEADER) else {
        return false;
    };
    let words: Vec<u32> = table
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    words[0] == BASE + HEADER as u32 && words.windows(2).all(|w| w[0] <= w[1])
}

/// Where each of the seven sections starts, by the section table (a file at least HEADER
/// bytes long), and where each that starts past the end would (those start at the end).
/// An error for a pointer that is not in the file, or out of order.
fn section_starts(bytes: &[u8]) -> Result<([usize; 7], [Option<usize>; 7]), ParseError> {
    let mut starts = [0usize; 7];
    let mut past = [None; 7];
    for k in 0..7 {
        let ptr = u32_at(bytes, 4 * k);
        let mut at = ptr.wrapping_sub(BASE) as usize;
        if ptr >= BASE && at > bytes.len() {
            past[k] = Some(at);
            at = bytes.len();
        }
        if ptr < BASE || at < HEADER {
            return Err(ParseError::new(
                4 * k,
                "",
                format!(
                    "section {} ({}) pointer {ptr:#010x}: expected an address from {:#010x} to {:#010x} (the file loaded at {BASE:#010x})",
                    k + 1,
                    SECTION_NAMES[k],
                    BASE + HEADER as u32,
                    BASE as usize + bytes.len()
                ),
            ));
        }
        if k > 0 && at < starts[k - 1] {
            return Err(ParseError::new(
                4 * k,
                "",
                format!(
                    "section {} ({}) starts at byte {at}, before section {} at {}: expected them in order",
                    k + 1,
                    SECTION_NAMES[k],
                    k,
                    starts[k - 1]
                ),
            ));
        }
        starts[k] = at;
    }
    Ok((starts, past))
}

impl DatFile {
    /// The section table, then each section. An error here is the table's: a pointer that
    /// is not in the file, or out of order.
    pub fn parse(bytes: &[u8]) -> Result<DatFile, ParseError> {
        if bytes.len() < HEADER {
            return Err(ParseError::new(
                0,
                "",
                format!(
                    "expected a section table of {HEADER} bytes; the file has {}",
                    bytes.len()
                ),
            ));
        }
        // Sections that start past the end (a file cut short): each an error of its own at
        // the end, the sections before still read.
        let (starts, past) = section_starts(bytes)?;
        let sections: [Range<usize>; 7] =
            std::array::from_fn(|k| starts[k]..if k < 6 { starts[k + 1] } else { bytes.len() });
        let at = |k: usize| &sections[k];
        let cut = |k: usize| {
            past[k].map(|at| {
                ParseError::new(
                    bytes.len(),
                    SECTION_NAMES[k],
                    format!(
                        "section {} ({}) starts at byte {at} (its address at byte {}), past the file's end at byte {}: the file is cut short",
                        k + 1,
                        SECTION_NAMES[k],
                        4 * k,
                        bytes.len()
                    ),
                )
            })
        };
        fn or_cut<T>(
            read: Result<T, ParseError>,
            cut: Option<ParseError>,
        ) -> Result<T, ParseError> {
            match cut {
                Some(e) => Err(e),
                None => read,
            }
        }
        Ok(DatFile {
            script: or_cut(ScriptSection::parse(bytes, at(0).clone()), cut(0)),
            walkmesh: or_cut(Walkmesh::parse(bytes, at(1).clone()), cut(1)),
            tile_map: or_cut(TileMap::parse(bytes, at(2).clone()), cut(2)),
            camera: or_cut(Camera::parse(bytes, at(3).clone()), cut(3)),
            triggers: or_cut(Triggers::parse(bytes, at(4).clone()), cut(4)),
            encounters: or_cut(parse_encounters(bytes, at(5).clone()), cut(5)),
            loader: or_cut(parse_loader(bytes, at(6).clone()), cut(6)),
            sections,
        })
    }

    /// Where a length the file declares disagrees with what it holds (field-dat.md, "The
    /// section table"; lzs.md, "Lengths"), each a diagnostic at that length's byte, the file
    /// read as it is: a section off the 4-byte boundary every section of the game's files
    /// starts on; a walkmesh, triggers, encounters or loader section longer or shorter than
    /// its counts make it; a tile-map block of part of a record; a camera whose copy of its
    /// last rotation entry (byte 18) is not that entry.
    pub fn length_findings(&self, b: &[u8]) -> Diagnostics {
        // (byte, section, what is wrong)
        let mut said: Vec<(usize, usize, String)> = Vec::new();
        for (k, r) in self.sections.iter().enumerate() {
            if r.start % 4 != 0 {
                said.push((4 * k, k, format!("section {} ({}) starts at byte {}, off the 4-byte boundary every section starts on", k + 1, SECTION_NAMES[k], r.start)));
            }
        }
        let exactly = |k: usize, at: usize, want: usize, what: String| {
            let len = self.sections[k].len();
            (len != want).then(|| {
                (
                    at,
                    k,
                    format!("the section is {len} bytes; {what} are {want}"),
                )
            })
        };
        if let Ok(w) = &self.walkmesh {
            let n = w.triangles.len();
            said.extend(exactly(1, w.range.start, 4 + n * (TRIANGLE + ACCESS) + 2 * (n % 2), format!("its count, {n} triangles and their access records (and a pad where the count is odd)")));
        }
        if self.triggers.is_ok() {
            said.extend(exactly(
                4,
                self.sections[4].start,
                TRIGGERS,
                "the triggers".to_string(),
            ));
        }
        if self.encounters.is_ok() {
            said.extend(exactly(
                5,
                self.sections[5].start,
                2 * ENCOUNTER_TABLE,
                "two encounter tables".to_string(),
            ));
        }
        if let Ok(records) = &self.loader {
            let s = self.sections[6].start;
            said.extend(exactly(
                6,
                s + 2,
                4 + records.len() * LOADER_RECORD,
                format!("its size, count and {} model records", records.len()),
            ));
        }
        said.extend(self.word_findings(b));
        let mut found = Diagnostics::default();
        for (at, k, message) in said {
            found.add(at, || SECTION_NAMES[k].to_string(), || message);
        }
        found
    }

    /// Where words of the file disagree with what else it says: the loader's size word with
    /// its section, the camera's copy of its last rotation entry with that entry, a tile-map
    /// block with its records' size. (byte, section, what is wrong)
    fn word_findings(&self, b: &[u8]) -> Vec<(usize, usize, String)> {
        let mut said = Vec::new();
        if self.loader.is_ok() {
            let s = self.sections[6].start;
            let declared = u16_at(b, s) as usize;
            if declared != self.sections[6].len() {
                said.push((
                    s,
                    6,
                    format!(
                        "the loader's size word says {declared} bytes; the section is {}",
                        self.sections[6].len()
                    ),
                ));
            }
        }
        if let Ok(c) = &self.camera {
            let copy = s16_at(b, c.at + 18);
            if copy != c.rotation[2][2] {
                said.push((c.at + 18, 3, format!("the camera's copy of its last rotation entry is {copy}; the entry (byte 16) is {}", c.rotation[2][2])));
            }
        }
        if let Ok(t) = &self.tile_map {
            let pages = t.blocks[1]..t.blocks[2];
            for (block, what, record) in [
                (t.block(0), "layer 1's tiles", super::tiles::RECORD[0]),
                (pages, "the texture-page words", 2),
                (t.block(1), "layer 2's tiles", super::tiles::RECORD[1]),
                (
                    t.block(2),
                    "layers 3 and 4's tiles",
                    super::tiles::RECORD[2],
                ),
            ] {
                if block.len() % record != 0 {
                    said.push((block.start, 2, format!("the block of {what} is {} bytes, not a whole number of its {record}-byte records", block.len())));
                }
            }
        }
        said
    }

    /// The first section that could not be read, with why.
    pub fn first_error(&self) -> Option<&ParseError> {
        [
            self.script.as_ref().err(),
            self.walkmesh.as_ref().err(),
            self.tile_map.as_ref().err(),
            self.camera.as_ref().err(),
            self.triggers.as_ref().err(),
            self.encounters.as_ref().err(),
            self.loader.as_ref().err(),
        ]
        .into_iter()
        .flatten()
        .next()
    }
}

/// The script section.
#[derive(Debug, Clone)]
pub struct ScriptSection {
    pub range: Range<usize>,
    /// Bytes 0 and 1 (2 and 5 in every field).
    pub version: [u8; 2],
    pub actor_count: u8,
    pub model_count: u8,
    /// The dialogue block's offset, from the section's start.
    pub text_offset: u16,
    pub akao_count: u16,
    /// The field's scale: 512 is 1.0.
    pub scale: u16,
    pub creator: String,
    pub name: String,
    /// Each actor's name, and where it is.
    pub actors: Vec<(usize, String)>,
    /// The music blocks' offsets (from the section's start), and where each is listed.
    pub akao: Vec<(usize, u32)>,
    /// Where the script table starts, and each actor's 32 entry points (from the section's
    /// start).
    pub table_at: usize,
    pub table: Vec<[u16; SCRIPTS_PER_ACTOR]>,
    /// Every distinct entry point walked to the next: file offsets.
    pub scripts: Vec<ScriptCode>,
    pub dialogue: Option<Dialogue>,
}

/// One stretch of script code: from an entry point to the next one (or the dialogue).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptCode {
    pub range: Range<usize>,
    /// The (actor, script) pairs that start here.
    pub entries: Vec<(usize, usize)>,
    pub ops: Vec<Op>,
    /// Where a walk stopped short of the end, and why: an opcode that runs past it.
    pub overrun: Option<usize>,
}

/// One opcode: where it is and how long it is (its arguments follow its byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    pub at: usize,
    pub code: u8,
    pub len: usize,
}

/// The dialogue block: its strings, each with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dialogue {
    pub at: usize,
    /// The count word, and the offsets that follow it (from the block's start).
    pub count: usize,
    pub offsets: Vec<u16>,
    pub strings: Vec<(Range<usize>, String)>,
}

impl ScriptSection {
    fn parse(b: &[u8], range: Range<usize>) -> Result<ScriptSection, ParseError> {
        need(0, &range, SCRIPT_HEADER, "the script header")?;
        let s = range.start;
        let version = [b[s], b[s + 1]];
        if version != [2, 5] {
            return Err(section_error(
                0,
                s,
                format!(
                    "version {}.{}: expected 2.5 (bytes 02 05), the one the engine reads",
                    version[0], version[1]
                ),
            ));
        }
        let actor_count = b[s + 2];
        let model_count = b[s + 3];
        let text_offset = u16_at(b, s + 4);
        let akao_count = u16_at(b, s + 6);
        let scale = u16_at(b, s + 8);
        let names_at = s + SCRIPT_HEADER;
        let akao_at = names_at + 8 * actor_count as usize;
        let table_at = akao_at + 4 * akao_count as usize;
        let code_from = table_at + 2 * SCRIPTS_PER_ACTOR * actor_count as usize;
        need(
            0,
            &range,
            code_from - s,
            &format!(
                "the header, {actor_count} actor names, {akao_count} music offsets and the script table"
            ),
        )?;
        let text_at = dialogue_start(&range, text_offset, code_from)?;
        let actors = (0..actor_count as usize)
            .map(|k| {
                let at = names_at + 8 * k;
                (at, name_of(&b[at..at + 8]))
            })
            .collect();
        let akao = (0..akao_count as usize)
            .map(|k| (akao_at + 4 * k, u32_at(b, akao_at + 4 * k)))
            .collect();
        let table: Vec<[u16; SCRIPTS_PER_ACTOR]> = (0..actor_count as usize)
            .map(|a| std::array::from_fn(|k| u16_at(b, table_at + 2 * (a * SCRIPTS_PER_ACTOR + k))))
            .collect();
        let starts = entry_points(&table, s, code_from, text_at, table_at)?;
        let scripts = script_codes(b, &starts, text_at);
        let dialogue = (text_at < range.end).then(|| Dialogue::parse(b, text_at, range.end));
        Ok(ScriptSection {
            version,
            actor_count,
            model_count,
            text_offset,
            akao_count,
            scale,
            creator: name_of(&b[s + 0x10..s + 0x18]),
            name: name_of(&b[s + 0x18..s + 0x20]),
            actors,
            akao,
            table_at,
            table,
            scripts,
            dialogue,
            range,
        })
    }

    /// The code of actor `actor`'s script `k`.
    pub fn code_of(&self, actor: usize, k: usize) -> Option<&ScriptCode> {
        self.scripts
            .iter()
            .find(|c| c.entries.contains(&(actor, k)))
    }
}

/// A file offset where scripts start, and the (actor, script) pairs that start there.
type EntryPoint = (usize, Vec<(usize, usize)>);

/// Every distinct entry point of the script table (file offsets) with the (actor, script)
/// pairs that start there, in file order. An actor's first script must be in the code (it
/// holds init); a later one outside it is a slot not used.
fn entry_points(
    table: &[[u16; SCRIPTS_PER_ACTOR]],
    s: usize,
    code_from: usize,
    text_at: usize,
    table_at: usize,
) -> Result<Vec<EntryPoint>, ParseError> {
    let mut starts: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    for (a, entries) in table.iter().enumerate() {
        for (k, &e) in entries.iter().enumerate() {
            let at = s + e as usize;
            if at < code_from || at >= text_at {
                // An entry that points outside the code is a script that is not there
                // (the table repeats the last one for the unused slots in practice).
                if k == 0 {
                    return Err(section_error(
                        0,
                        table_at + 2 * a * SCRIPTS_PER_ACTOR,
                        format!(
                            "actor {a}'s first script at {e}: expected it between the script table's end ({}) and the dialogue ({})",
                            code_from - s,
                            text_at - s
                        ),
                    ));
                }
                continue;
            }
            match starts.binary_search_by_key(&at, |(x, _)| *x) {
                Ok(i) => starts[i].1.push((a, k)),
                Err(i) => starts.insert(i, (at, vec![(a, k)])),
            }
        }
    }
    Ok(starts)
}

/// The opcodes of `code` (at file offset `at`), and where the walk stopped if an opcode
/// runs past the end.
fn walk(code: &[u8], at: usize) -> (Vec<Op>, Option<usize>) {
    let mut ops = Vec::new();
    let mut i = 0;
    while i < code.len() {
        match opcodes::length(&code[i..]) {
            Some(len) => {
                ops.push(Op {
                    at: at + i,
                    code: code[i],
                    len,
                });
                i += len;
            }
            None => return (ops, Some(at + i)),
        }
    }
    (ops, None)
}

impl Dialogue {
    fn parse(b: &[u8], at: usize, end: usize) -> Dialogue {
        let mut strings = Vec::new();
        let mut offsets = Vec::new();
        let mut count = 0;
        if at + 2 <= end {
            count = (u16_at(b, at) as usize).min(MAX_STRINGS);
            for k in 0..count {
                let o = at + 2 + 2 * k;
                if o + 2 > end {
                    break;
                }
                offsets.push(u16_at(b, o));
                let from = at + u16_at(b, o) as usize;
                if from >= end {
                    continue;
                }
                let to = b[from..end]
                    .iter()
                    .position(|&c| c == 0xFF)
                    .map_or(end, |n| from + n + 1);
                strings.push((from..to, decode_text(&b[from..to])));
            }
        }
        Dialogue {
            at,
            count,
            offsets,
            strings,
        }
    }
}

/// A dialogue string as text: a byte is its character + 0x20; 0xE0 and up are control codes,
/// written `{XX}` (0xFF ends the string).
pub fn decode_text(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &c in bytes {
        match c {
            0xFF => break,
            0xE0.. => out.push_str(&format!("{{{c:02X}}}")),
            _ => match char::from_u32(c as u32 + 0x20).filter(|ch| (' '..='~').contains(ch)) {
                Some(ch) => out.push(ch),
                None => out.push_str(&format!("{{{c:02X}}}")),
            },
        }
    }
    out
}

/// The walkmesh: triangles with their vertices and the neighbour across each edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Walkmesh {
    pub range: Range<usize>,
    pub triangles: Vec<[[i16; 3]; 3]>,
    /// Across edges AB, BC, CA (−1: none).
    pub access: Vec<[i16; 3]>,
}

impl Walkmesh {
    fn parse(b: &[u8], range: Range<usize>) -> Result<Walkmesh, ParseError> {
        need(1, &range, 4, "the triangle count")?;
        let n = u16_at(b, range.start) as usize;
        need(
            1,
            &range,
            4 + n * (TRIANGLE + ACCESS),
            &format!("{n} triangles and their access records"),
        )?;
        let tri_at = range.start + 4;
        let access_at = tri_at + n * TRIANGLE;
        let triangles = (0..n)
            .map(|t| {
                std::array::from_fn(|v| {
                    let at = tri_at + t * TRIANGLE + 8 * v;
                    [s16_at(b, at), s16_at(b, at + 2), s16_at(b, at + 4)]
                })
            })
            .collect();
        let access = (0..n)
            .map(|t| std::array::from_fn(|e| s16_at(b, access_at + t * ACCESS + 2 * e)))
            .collect();
        Ok(Walkmesh {
            range,
            triangles,
            access,
        })
    }
    /// Where triangle `t`'s record is.
    pub fn triangle_at(&self, t: usize) -> usize {
        self.range.start + 4 + t * TRIANGLE
    }
    /// Triangle `t`'s record: its bytes (its inspector row's, and what a pick on it names).
    pub fn triangle_bytes(&self, t: usize) -> RecordBytes {
        let at = self.triangle_at(t);
        [at, at + TRIANGLE]
    }
    /// Where triangle `t`'s access record is.
    pub fn access_at(&self, t: usize) -> usize {
        self.range.start + 4 + self.triangles.len() * TRIANGLE + t * ACCESS
    }
}

/// The camera record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Camera {
    pub at: usize,
    /// Rows of the rotation, 4.12 fixed point.
    pub rotation: [[i16; 3]; 3],
    pub translation: [i32; 3],
    pub offset: [i16; 2],
    /// The projection distance in pixels.
    pub projection: u16,
}

impl Camera {
    fn parse(b: &[u8], range: Range<usize>) -> Result<Camera, ParseError> {
        need(3, &range, CAMERA, "the camera record")?;
        let s = range.start;
        Ok(Camera {
            at: s,
            rotation: std::array::from_fn(|r| {
                std::array::from_fn(|c| s16_at(b, s + 2 * (3 * r + c)))
            }),
            translation: std::array::from_fn(|k| s32_at(b, s + 0x14 + 4 * k)),
            offset: [s16_at(b, s + 0x20), s16_at(b, s + 0x22)],
            projection: u16_at(b, s + 0x24),
        })
    }
    /// The rotation as numbers (4096 is 1).
    pub fn matrix(&self) -> [[f64; 3]; 3] {
        self.rotation.map(|r| r.map(|v| v as f64 / 4096.0))
    }
    /// The camera's place in the field: where the view vector is zero, −Rᵀ·T.
    pub fn position(&self) -> [f64; 3] {
        let r = self.matrix();
        let t = self.translation.map(|v| v as f64);
        std::array::from_fn(|i| -(0..3).map(|k| r[k][i] * t[k]).sum::<f64>())
    }
}

/// One gateway: the exit line, and where it leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gateway {
    pub at: usize,
    pub line: [[i16; 3]; 2],
    pub destination: [i16; 2],
    pub triangle: u16,
    pub map: u16,
    pub direction: u8,
}

/// A background trigger in use: crossing its line turns a bit of a background byte on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BgTrigger {
    pub at: usize,
    pub line: [[i16; 3]; 2],
    pub byte: u8,
    pub bit: u8,
    /// 0 on, 1 off, 2 on and off when leaving, 3 off and on, 4–5 as 2–3 on the plus side.
    pub behaviour: u8,
    /// Which of four sounds it plays.
    pub sound: u8,
}

/// The triggers section: its header, and the slots in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triggers {
    pub at: usize,
    pub name: String,
    pub control_direction: u8,
    pub focus_height: i16,
    /// min x, min y, max x, max y.
    pub scroll: [i16; 4],
    pub gateways: Vec<Gateway>,
    pub bg_triggers: Vec<BgTrigger>,
    pub arrow_flags: [u8; SLOTS],
    /// The header's bytes from 0x14 to the gateways: scroll mode, layer sizes, scroll and
    /// parallax, unused.
    pub rest: [u8; GATEWAYS_AT - 0x14],
}

impl Triggers {
    fn parse(b: &[u8], range: Range<usize>) -> Result<Triggers, ParseError> {
        need(4, &range, TRIGGERS, "the triggers")?;
        let s = range.start;
        let line = |at: usize| -> [[i16; 3]; 2] {
            std::array::from_fn(|p| std::array::from_fn(|c| s16_at(b, at + 6 * p + 2 * c)))
        };
        let gateways = (0..SLOTS)
            .map(|k| s + GATEWAYS_AT + k * GATEWAY)
            .map(|at| Gateway {
                at,
                line: line(at),
                destination: [s16_at(b, at + 12), s16_at(b, at + 14)],
                triangle: u16_at(b, at + 16),
                map: u16_at(b, at + 18),
                direction: b[at + 20],
            })
            .filter(|g| g.map != NO_MAP)
            .collect();
        let bg_triggers = (0..SLOTS)
            .map(|k| s + BG_TRIGGERS_AT + k * BG_TRIGGER)
            .filter(|&at| b[at + 12] != 0xFF)
            .map(|at| BgTrigger {
                at,
                line: line(at),
                byte: b[at + 12],
                bit: b[at + 13],
                behaviour: b[at + 14],
                sound: b[at + 15],
            })
            .collect();
        Ok(Triggers {
            at: s,
            name: name_of(&b[s..s + 9]),
            control_direction: b[s + 9],
            focus_height: s16_at(b, s + 0x0A),
            scroll: std::array::from_fn(|k| s16_at(b, s + 0x0C + 2 * k)),
            gateways,
            bg_triggers,
            arrow_flags: std::array::from_fn(|k| b[s + ARROW_FLAGS_AT + k]),
            rest: std::array::from_fn(|k| b[s + 0x14 + k]),
        })
    }
}

/// An encounter table: whether it is on, its rate, and its battles (id, chance of 64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncounterTable {
    pub at: usize,
    pub enabled: bool,
    pub rate: u8,
    pub battles: [(u16, u8); 10],
    /// The last two bytes.
    pub pad: [u8; 2],
}

/// Where the dialogue starts, `text_offset` bytes into the script section `range`: an
/// error unless it is after the script table (ending at `code_from`) and in the section.
fn dialogue_start(
    range: &Range<usize>,
    text_offset: u16,
    code_from: usize,
) -> Result<usize, ParseError> {
    let s = range.start;
    let text_at = s + text_offset as usize;
    if text_at < code_from || text_at > range.end {
        return Err(section_error(
            0,
            s + 4,
            format!(
                "dialogue offset {text_offset}: expected one from {} (after the script table) to {} (the section's end)",
                code_from - s,
                range.len()
            ),
        ));
    }
    Ok(text_at)
}

/// The scripts' code between their entry points (`starts`: where each starts and the entries
/// that lead there, in order), the last up to the dialogue at `text_at`, each walked.
fn script_codes(b: &[u8], starts: &[EntryPoint], text_at: usize) -> Vec<ScriptCode> {
    (0..starts.len())
        .map(|i| {
            let from = starts[i].0;
            let to = starts.get(i + 1).map_or(text_at, |n| n.0);
            let (ops, overrun) = walk(&b[from..to], from);
            ScriptCode {
                range: from..to,
                entries: starts[i].1.clone(),
                ops,
                overrun,
            }
        })
        .collect()
}

fn parse_encounters(b: &[u8], range: Range<usize>) -> Result<[EncounterTable; 2], ParseError> {
    need(5, &range, 2 * ENCOUNTER_TABLE, "two encounter tables")?;
    Ok(std::array::from_fn(|t| {
        let at = range.start + t * ENCOUNTER_TABLE;
        EncounterTable {
            at,
            enabled: b[at] != 0,
            rate: b[at + 1],
            battles: std::array::from_fn(|k| {
                let w = u16_at(b, at + 2 + 2 * k);
                (w & 0x3FF, (w >> 10) as u8)
            }),
            pad: [b[at + 22], b[at + 23]],
        }
    }))
}

/// One model slot of the loader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoaderRecord {
    pub at: usize,
    pub face: u8,
    pub bones: u8,
    pub parts: u8,
    pub animations: u8,
    /// 1: always loaded; 0: only when a party member is bound to it.
    pub load: u8,
    /// 0: a field-only model; 1–9: a playable character, from its BCX.
    pub global: u8,
}

impl LoaderRecord {
    /// The slot's 8-byte record.
    pub fn bytes(&self) -> RecordBytes {
        [self.at, self.at + 8]
    }
}

fn parse_loader(b: &[u8], range: Range<usize>) -> Result<Vec<LoaderRecord>, ParseError> {
    need(6, &range, 4, "the loader's size and count")?;
    let s = range.start;
    let count = u16_at(b, s + 2) as usize;
    need(
        6,
        &range,
        4 + count * LOADER_RECORD,
        &format!("{count} model records"),
    )?;
    Ok((0..count)
        .map(|k| {
            let at = s + 4 + k * LOADER_RECORD;
            LoaderRecord {
                at,
                face: b[at],
                bones: b[at + 1],
                parts: b[at + 2],
                animations: b[at + 3],
                load: b[at + 5],
                global: b[at + 7],
            }
        })
        .collect())
}
