//! The raw layer of a BSX (decompressed): the header, the models section (48-byte model
//! records, then per model its bones, part headers and animation headers), the part and
//! animation data blocks they point at (blocks may be shared between models: they are read
//! once, by offset), and the texture section's VRAM rectangles. Every structure keeps its
//! byte range; every read is checked against the file (docs/formats/bsx.md).

use crate::findings::{Diagnostics, ParseError};
use crate::scene::RecordBytes;
use std::collections::BTreeMap;

/// The PSX RAM tag on block pointers.
const RAM: u32 = 0x8000_0000;

/// Reads with bounds checks: a read past the end is an error naming what was expected.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    pub bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn slice(
        &self,
        at: usize,
        len: usize,
        path: &str,
        what: &str,
    ) -> Result<&'a [u8], ParseError> {
        at.checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .map(|end| &self.bytes[at..end])
            .ok_or_else(|| {
                ParseError::new(
                    at.min(self.bytes.len()),
                    path,
                    format!(
                        "expected {what} ({len} bytes at byte {at}), the file has {} bytes",
                        self.bytes.len()
                    ),
                )
            })
    }
    pub fn u8(&self, at: usize, path: &str, what: &str) -> Result<u8, ParseError> {
        Ok(self.slice(at, 1, path, what)?[0])
    }
    pub fn u16(&self, at: usize, path: &str, what: &str) -> Result<u16, ParseError> {
        let b = self.slice(at, 2, path, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    pub fn i16(&self, at: usize, path: &str, what: &str) -> Result<i16, ParseError> {
        Ok(self.u16(at, path, what)? as i16)
    }
    pub fn u32(&self, at: usize, path: &str, what: &str) -> Result<u32, ParseError> {
        let b = self.slice(at, 4, path, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// A field of a fixed-layout structure: its offset from the structure's start, its width in
/// bytes (1, 2 or 4) and its name. The reader reads through these tables and the inspector
/// shows them, so an offset is written once.
pub type FieldAt = (usize, usize, &'static str);

/// The little-endian value of a field of `b`, the structure's bytes (already checked to hold it).
pub fn field(b: &[u8], (at, len, _): FieldAt) -> u32 {
    b[at..at + len]
        .iter()
        .rev()
        .fold(0, |v, &x| v << 8 | x as u32)
}

/// The 8-byte file header BSX and BCX share.
pub const FILE_HEADER: [FieldAt; 2] = [(0, 4, "u32 size_file"), (4, 4, "u32 offset_models")];
/// The 16-byte models header at offset_models.
pub const MODELS_HEADER: [FieldAt; 4] = [
    (0, 4, "u32 psx_memory"),
    (4, 4, "u32 num_models"),
    (8, 4, "u32 texture_pointer"),
    (12, 4, "u32 buffer_size"),
];
/// The first fields of a 48-byte model record; the ambient colour, the lights and the
/// ranges follow ([`AMBIENT`], [`LIGHT_AT`], [`RANGE_AT`]).
pub const MODEL_RECORD: [FieldAt; 4] = [
    (0, 1, "u8 face id"),
    (1, 1, "u8 global model id"),
    (2, 2, "u16 scale (4.12)"),
    (4, 4, "u32 offset_skeleton"),
];
/// The ambient colour (R, G, B), then a byte no source explains (0 in every sample).
pub const AMBIENT: usize = 8;
pub const RECORD_UNKNOWN: usize = 0x0B;
/// Where each of the three lights sits in a model record: its direction (`s16 x, y, z`, a
/// 4.12 unit vector), and 8 bytes on its colour (`u8 R, G, B`).
pub const LIGHT_AT: [usize; 3] = [0x0C, 0x18, 0x24];
pub const LIGHT_COLOUR: usize = 8;
/// Where each list's range (`u8 start, u8 end`) and count sit in a model record: bones,
/// parts, animations.
pub const RANGE_AT: [(usize, usize); 3] = [(0x12, 0x17), (0x1E, 0x23), (0x2A, 0x2F)];
/// The 32-byte part header: lighting flag, bone, vertex and texcoord counts, a count per
/// polygon kind (in [`PolyKind::ALL`] order), the flag and control counts, the offsets of
/// the lists in the data block, the GPU packet size and the data block's RAM pointer.
pub const PART_HEADER: [FieldAt; 21] = [
    (0, 1, "u8 lighting flag"),
    (1, 1, "u8 bone_index"),
    (2, 1, "u8 num_vertices"),
    (3, 1, "u8 num_texcoords"),
    (4, 1, "u8 n_quad_color_tex"),
    (5, 1, "u8 n_tri_color_tex"),
    (6, 1, "u8 n_quad_mono_tex"),
    (7, 1, "u8 n_tri_mono_tex"),
    (8, 1, "u8 n_tri_mono"),
    (9, 1, "u8 n_quad_mono"),
    (10, 1, "u8 n_tri_color"),
    (11, 1, "u8 n_quad_color"),
    (0x0C, 1, "u8 num_flags"),
    (0x0D, 1, "u8 num_control"),
    (0x0E, 2, "u16 offset_poly"),
    (0x10, 2, "u16 offset_texcoord"),
    (0x12, 2, "u16 offset_flags"),
    (0x14, 2, "u16 offset_control"),
    (0x16, 2, "u16 buffer_size"),
    (0x18, 4, "u32 offset_vertex"),
    (0x1C, 4, "u32 offset_prec"),
];
/// The 16-byte animation header.
pub const ANIMATION_HEADER: [FieldAt; 9] = [
    (0, 2, "u16 num_frames"),
    (2, 1, "u8 num_bones"),
    (3, 1, "u8 animated translations"),
    (4, 1, "u8 static translations"),
    (5, 1, "u8 animated rotations"),
    (6, 2, "u16 off_trans_frames"),
    (8, 2, "u16 off_static_trans"),
    (10, 2, "u16 off_rot_frames"),
    (12, 4, "u32 offset_data"),
];
/// The 36-byte character header of a BCX.
pub const BCX_HEADER: [FieldAt; 8] = [
    (0, 2, "u16 magic"),
    (2, 1, "u8 num_bones"),
    (3, 1, "u8 num_parts"),
    (4, 1, "u8 num_animations"),
    (0x16, 2, "u16 scale (not used)"),
    (0x18, 2, "u16 offset_parts"),
    (0x1A, 2, "u16 offset_anims"),
    (0x1C, 4, "u32 offset_skeleton"),
];

/// A count and where it starts in the model's (or the BCX character's) lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Range {
    pub start: u8,
    pub end: u8,
    pub count: u8,
}

impl Range {
    /// All `n` of a character's own (a BCX's header counts them): `0..n`, or none as a
    /// BSX writes none (start and end 0xFF).
    fn all(n: u8) -> Range {
        if n == 0 {
            Range {
                start: 0xFF,
                end: 0xFF,
                count: 0,
            }
        } else {
            Range {
                start: 0,
                end: n - 1,
                count: n,
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Light {
    /// A 4.12 unit vector.
    pub direction: [i16; 3],
    pub color: [u8; 3],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bone {
    pub offset: usize,
    /// Raw units before the model's scale; an offset along the parent's +Z.
    pub length: i16,
    /// −1 for the root.
    pub parent: i8,
    pub has_mesh: u8,
}

/// The eight polygon record kinds, in the order the part data stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolyKind {
    QuadColorTex,
    TriColorTex,
    QuadMonoTex,
    TriMonoTex,
    TriMono,
    QuadMono,
    TriColor,
    QuadColor,
}

impl PolyKind {
    pub const ALL: [PolyKind; 8] = [
        PolyKind::QuadColorTex,
        PolyKind::TriColorTex,
        PolyKind::QuadMonoTex,
        PolyKind::TriMonoTex,
        PolyKind::TriMono,
        PolyKind::QuadMono,
        PolyKind::TriColor,
        PolyKind::QuadColor,
    ];
    /// Bytes per record.
    pub fn size(self) -> usize {
        match self {
            PolyKind::QuadColorTex => 0x18,
            PolyKind::TriColorTex => 0x14,
            PolyKind::QuadMonoTex | PolyKind::TriMonoTex => 0x0C,
            PolyKind::TriMono | PolyKind::QuadMono => 0x08,
            PolyKind::TriColor => 0x10,
            PolyKind::QuadColor => 0x14,
        }
    }
    pub fn corners(self) -> usize {
        match self {
            PolyKind::QuadColorTex
            | PolyKind::QuadMonoTex
            | PolyKind::QuadMono
            | PolyKind::QuadColor => 4,
            _ => 3,
        }
    }
    pub fn textured(self) -> bool {
        matches!(
            self,
            PolyKind::QuadColorTex
                | PolyKind::TriColorTex
                | PolyKind::QuadMonoTex
                | PolyKind::TriMonoTex
        )
    }
    /// One colour per corner (gouraud) or one for the polygon (flat).
    pub fn gouraud(self) -> bool {
        matches!(
            self,
            PolyKind::QuadColorTex
                | PolyKind::TriColorTex
                | PolyKind::TriColor
                | PolyKind::QuadColor
        )
    }
    /// The libgpu packet size the engine builds for one polygon (POLY_GT4 …).
    pub fn gpu_size(self) -> usize {
        match self {
            PolyKind::QuadColorTex => 52,
            PolyKind::TriColorTex => 40,
            PolyKind::QuadMonoTex => 40,
            PolyKind::TriMonoTex => 32,
            PolyKind::TriMono => 20,
            PolyKind::QuadMono => 24,
            PolyKind::TriColor => 28,
            PolyKind::QuadColor => 36,
        }
    }
    /// The format notes' word for the kind (quad_color_tex …).
    pub fn word(self) -> &'static str {
        match self {
            PolyKind::QuadColorTex => "quad_color_tex",
            PolyKind::TriColorTex => "tri_color_tex",
            PolyKind::QuadMonoTex => "quad_mono_tex",
            PolyKind::TriMonoTex => "tri_mono_tex",
            PolyKind::TriMono => "tri_mono",
            PolyKind::QuadMono => "quad_mono",
            PolyKind::TriColor => "tri_color",
            PolyKind::QuadColor => "quad_color",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            PolyKind::QuadColorTex => "gouraud textured quads",
            PolyKind::TriColorTex => "gouraud textured triangles",
            PolyKind::QuadMonoTex => "flat textured quads",
            PolyKind::TriMonoTex => "flat textured triangles",
            PolyKind::TriMono => "flat triangles",
            PolyKind::QuadMono => "flat quads",
            PolyKind::TriColor => "gouraud triangles",
            PolyKind::QuadColor => "gouraud quads",
        }
    }
    /// Byte offsets in the record of the first colour and of the first texcoord index.
    pub fn layout(self) -> (usize, Option<usize>) {
        match self {
            PolyKind::QuadColorTex => (4, Some(0x14)),
            PolyKind::TriColorTex => (4, Some(0x10)),
            PolyKind::QuadMonoTex | PolyKind::TriMonoTex => (4, Some(8)),
            _ => (4, None),
        }
    }
}

/// One polygon record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Polygon {
    pub kind: PolyKind,
    pub offset: usize,
    pub vertices: [u8; 4],
    /// R, G, B, normal index; one per corner for gouraud kinds, else the first only.
    pub colors: [[u8; 4]; 4],
    pub texcoords: [u8; 4],
    /// Index into the part's control bytes (textured kinds).
    pub control: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartCounts {
    pub vertices: u8,
    pub texcoords: u8,
    /// Per kind, in [`PolyKind::ALL`] order.
    pub polygons: [u8; 8],
    pub flags: u8,
    pub control: u8,
}

/// A part header and the data block it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub header: usize,
    pub lighting: u8,
    pub bone: u8,
    pub counts: PartCounts,
    pub offset_poly: u16,
    pub offset_texcoord: u16,
    pub offset_flags: u16,
    pub offset_control: u16,
    pub buffer_size: u16,
    /// Absolute offset of the data block.
    pub block: usize,
    pub offset_prec: u32,
}

/// A part data block, read once however many parts point at it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PartData {
    pub offset: usize,
    pub end: usize,
    pub vertex_flag: u32,
    pub vertices: Vec<[i16; 4]>,
    pub polygons: Vec<Polygon>,
    pub flags: Vec<u32>,
    pub texcoords: Vec<[u8; 2]>,
    pub control: Vec<u8>,
    /// Where the reader found each list (absolute offsets).
    pub vertices_at: usize,
    pub flags_at: usize,
    pub texcoords_at: usize,
    pub control_at: usize,
}

/// One bone's channels in an animation: which axes are animated, and indices into the
/// frame tables (or the values themselves, for unanimated rotations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Channel {
    pub mask: u8,
    pub rotation: [u8; 3],
    pub translation: [u8; 3],
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Animation {
    pub header: usize,
    pub frames: u16,
    pub bones: u8,
    pub n_trans: u8,
    pub n_static: u8,
    pub n_rot: u8,
    pub off_trans: u16,
    pub off_static: u16,
    pub off_rot: u16,
    pub block: usize,
}

/// An animation data block.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnimationData {
    pub offset: usize,
    pub end: usize,
    pub flag: u32,
    pub channels: Vec<Channel>,
    pub translations: Vec<i16>,
    pub statics: Vec<i16>,
    pub rotations: Vec<u8>,
    /// Where the bone channels and the three frame tables start (absolute), as read: a block
    /// several animations share is read once, by the first header that names it.
    pub channels_at: usize,
    pub translations_at: usize,
    pub statics_at: usize,
    pub rotations_at: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRecord {
    pub offset: usize,
    pub face_id: u8,
    /// 1..9: a playable character whose skeleton is in its BCX; 0: none.
    pub global_id: u8,
    /// 4.12 fixed point.
    pub scale: u16,
    pub offset_skeleton: u32,
    pub ambient: [u8; 3],
    pub lights: [Light; 3],
    pub bones_range: Range,
    pub parts_range: Range,
    pub anims_range: Range,
    pub bones: Vec<Bone>,
    pub parts: Vec<Part>,
    pub animations: Vec<Animation>,
    /// Where the bones, part headers and animation headers sit, and where they end.
    pub skeleton: usize,
    pub skeleton_end: usize,
}

/// A rectangle of PSX VRAM: `width × height` halfwords at (x, y).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VramRect {
    pub entry: usize,
    pub width: u16,
    pub height: u16,
    pub x: u16,
    pub y: u16,
    /// Absolute offset of the halfwords.
    pub data: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextureSection {
    pub offset: usize,
    pub size: u32,
    pub count: u8,
    /// Bytes 5..7 of the header: a TDB patch offset when not zero (not read).
    pub patch: [u8; 3],
    pub rects: Vec<VramRect>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BsxFile {
    pub size_file: u32,
    pub offset_models: u32,
    pub psx_memory: u32,
    pub texture_pointer: u32,
    pub buffer_size: u32,
    pub models: Vec<ModelRecord>,
    /// Part and animation data blocks by offset.
    pub parts: BTreeMap<usize, PartData>,
    pub anims: BTreeMap<usize, AnimationData>,
    pub textures: Option<TextureSection>,
    /// Layout equalities that do not hold: the file still shows.
    pub diagnostics: Diagnostics,
    /// A BCX's character header (its one model record is made from it).
    pub bcx: Option<BcxHeader>,
    /// The file is cut short (size_file says more bytes than there are): what lies wholly
    /// inside was read, the rest is listed here. None for a whole file.
    pub cut: Option<Cut>,
}

/// What a file cut short left out: every model, part, animation or texture whose bytes run
/// past the end (or were damaged by the cut), in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cut {
    /// What size_file says; the file ends before it.
    pub declared: u32,
    pub left_out: Vec<String>,
    /// Items left out beyond the first [`Cut::LISTED`].
    pub more: usize,
}

impl Cut {
    pub const LISTED: usize = 24;
    fn note(&mut self, what: String) {
        if self.left_out.len() < Cut::LISTED {
            self.left_out.push(what);
        } else {
            self.more += 1;
        }
    }
}

/// The 36-byte header of a BCX, at offset_models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BcxHeader {
    pub offset: usize,
    pub magic: u16,
    pub bones: u8,
    pub parts: u8,
    pub animations: u8,
    /// Not used by the engine: the BSX record's scale wins.
    pub scale: u16,
    pub offset_parts: u16,
    pub offset_anims: u16,
    pub offset_skeleton: u32,
}

/// Most models, bones, parts … a file may declare: the counts are bytes, so these only bound
/// the models count (a u32 in the file).
pub const MAX_MODELS: u32 = 256;

fn range(
    r: Reader<'_>,
    at: usize,
    count_at: usize,
    path: &str,
    what: &str,
) -> Result<Range, ParseError> {
    Ok(Range {
        start: r.u8(at, path, what)?,
        end: r.u8(at + 1, path, what)?,
        count: r.u8(count_at, path, what)?,
    })
}

/// Whether `b` starts as a field model (BSX) or character (BCX) does: its models section
/// 4-byte aligned, after the 8-byte header and before the size it declares, and there
/// psx_memory naming it (a BSX) or a character header's 0xFF01 (a BCX). What tells a model's
/// LZS container whose header disagrees with the file from the model's own bytes
/// (docs/formats/lzs.md, "Lengths").
pub fn starts_like_a_model(b: &[u8]) -> bool {
    let word = |at: usize| {
        b.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    };
    let (Some(size), Some(models)) = (word(0), word(4)) else {
        return false;
    };
    let at = models as usize;
    models >= 8
        && models % 4 == 0
        && models < size
        && (word(at) == Some(models | RAM) || b.get(at..at + 2) == Some(&[0x01, 0xFF]))
}

// Where each record the scene points at lies: the inspector's rows are made from the same
// ranges (docs/formats/bsx.md, "File layout").
impl Polygon {
    /// The polygon record's bytes.
    pub fn bytes(&self) -> RecordBytes {
        [self.offset, self.offset + self.kind.size()]
    }
}

impl Part {
    /// The 32-byte part header's bytes.
    pub fn header_bytes(&self) -> RecordBytes {
        [self.header, self.header + 32]
    }
}

impl ModelRecord {
    /// The 48-byte model record's bytes (a BSX's).
    pub fn bytes(&self) -> RecordBytes {
        [self.offset, self.offset + 48]
    }
    /// The bone list's bytes, 4 a bone (none without bones).
    pub fn bones_bytes(&self) -> Option<RecordBytes> {
        (!self.bones.is_empty()).then(|| [self.skeleton, self.skeleton + 4 * self.bones.len()])
    }
}

impl BcxHeader {
    /// The 36-byte character header's bytes: a BCX's one model record.
    pub fn bytes(&self) -> RecordBytes {
        [self.offset, self.offset + 36]
    }
}

impl BsxFile {
    /// Model `k`'s record: a BCX's character header, else the BSX's model record.
    pub fn model_bytes(&self, k: usize) -> Option<RecordBytes> {
        match &self.bcx {
            Some(h) => (k == 0).then(|| h.bytes()),
            None => self.models.get(k).map(ModelRecord::bytes),
        }
    }
}

impl BsxFile {
    /// The 8-byte header BSX and BCX share. A size_file larger than the file marks it cut
    /// short (read as far as it goes); a smaller one is an error.
    fn header(r: Reader<'_>) -> Result<BsxFile, ParseError> {
        let b = r.slice(0, 8, "header", "the 8-byte header")?;
        let mut f = BsxFile {
            size_file: field(b, FILE_HEADER[0]),
            offset_models: field(b, FILE_HEADER[1]),
            ..Default::default()
        };
        if (f.size_file as usize) > r.bytes.len() {
            f.cut = Some(Cut {
                declared: f.size_file,
                ..Default::default()
            });
        } else if f.size_file as usize != r.bytes.len() {
            return Err(ParseError::new(
                0,
                "header",
                format!(
                    "size_file says {} bytes, the file has {}",
                    f.size_file,
                    r.bytes.len()
                ),
            ));
        }
        Ok(f)
    }

    /// An item that could not be read: in a file cut short it is left out and noted (the
    /// rest is still read), in a whole file it is the file's error.
    fn leave_out(&mut self, what: String, e: ParseError) -> Result<(), ParseError> {
        match &mut self.cut {
            Some(cut) => {
                cut.note(format!("{what} (byte {}: {})", e.offset, e.message));
                Ok(())
            }
            None => Err(e),
        }
    }

    /// Read a decompressed BSX. A read outside the file, an index out of range or a header
    /// size that disagrees with the bytes is an error; the other layout equalities of the
    /// format are warnings. In a file cut short ([`Cut`]) what the cut reaches is left out
    /// and the rest is read (docs/formats/bsx.md, "Cut short").
    pub fn parse(bytes: &[u8]) -> Result<BsxFile, ParseError> {
        let r = Reader { bytes };
        let mut f = BsxFile::header(r)?;
        let om = f.offset_models as usize;
        let h = match r.slice(om, 16, "models", "the 16-byte models header") {
            Ok(h) => h,
            Err(_) if f.cut.is_some() => {
                // Cut before its models: nothing to draw, and the file says where it ends.
                let past = ParseError::new(
                    bytes.len(),
                    "models",
                    format!("the models section starts at byte {om}, past the end"),
                );
                f.leave_out("every model".into(), past)?;
                return Ok(f);
            }
            Err(e) => return Err(e),
        };
        let [psx_memory, num_models, texture_pointer, buffer_size] =
            MODELS_HEADER.map(|at| field(h, at));
        (f.psx_memory, f.texture_pointer, f.buffer_size) =
            (psx_memory, texture_pointer, buffer_size);
        if f.psx_memory != f.offset_models | RAM {
            f.warn(
                om,
                "models",
                format!(
                    "psx_memory is {:#010x}, expected offset_models | 0x80000000 = {:#010x}",
                    f.psx_memory,
                    f.offset_models | RAM
                ),
            );
        }
        if num_models > MAX_MODELS {
            return Err(ParseError::new(
                om + 4,
                "models",
                format!("{num_models} models: expected at most {MAX_MODELS}"),
            ));
        }
        for i in 0..num_models as usize {
            match f.model(r, om + 16 + i * 48, i) {
                Ok(m) => f.models.push(m),
                Err(e) => {
                    // The records follow one another: the rest lie further still.
                    f.leave_out(format!("model[{i}] to model[{}]", num_models - 1), e)?;
                    break;
                }
            }
        }
        if let Err(e) = f.texture_section(r) {
            f.leave_out("the texture section".into(), e)?;
        }
        Ok(f)
    }

    fn warn(&mut self, offset: usize, path: &str, message: String) {
        self.diagnostics
            .add(offset, || path.to_string(), || message);
    }

    fn model(&mut self, r: Reader<'_>, at: usize, i: usize) -> Result<ModelRecord, ParseError> {
        let path = format!("model[{i}]");
        let p = path.as_str();
        let b = r.slice(at, 48, p, "a 48-byte model record")?;
        let light = |k: usize| Light {
            direction: [0, 2, 4].map(|o| i16::from_le_bytes([b[k + o], b[k + o + 1]])),
            color: [0, 1, 2].map(|c| b[k + LIGHT_COLOUR + c]),
        };
        let mut m = ModelRecord {
            offset: at,
            face_id: field(b, MODEL_RECORD[0]) as u8,
            global_id: field(b, MODEL_RECORD[1]) as u8,
            scale: field(b, MODEL_RECORD[2]) as u16,
            offset_skeleton: field(b, MODEL_RECORD[3]),
            ambient: [0, 1, 2].map(|c| b[AMBIENT + c]),
            lights: LIGHT_AT.map(light),
            bones_range: range(
                r,
                at + RANGE_AT[0].0,
                at + RANGE_AT[0].1,
                p,
                "the bones range",
            )?,
            parts_range: range(
                r,
                at + RANGE_AT[1].0,
                at + RANGE_AT[1].1,
                p,
                "the parts range",
            )?,
            anims_range: range(
                r,
                at + RANGE_AT[2].0,
                at + RANGE_AT[2].1,
                p,
                "the animations range",
            )?,
            bones: Vec::new(),
            parts: Vec::new(),
            animations: Vec::new(),
            skeleton: 0,
            skeleton_end: 0,
        };
        self.check_ranges(&m, p);
        let (nb, np, na) = (
            m.bones_range.count as usize,
            m.parts_range.count as usize,
            m.anims_range.count as usize,
        );
        if nb + np + na == 0 {
            // A character from its BCX with nothing of its own: offset_skeleton means nothing.
            return Ok(m);
        }
        let skeleton = at
            .checked_add(m.offset_skeleton as usize)
            .ok_or_else(|| ParseError::new(at + 4, p, "offset_skeleton overflows"))?;
        if let Err(e) = self.skeleton(r, &mut m, skeleton, p) {
            // Without its bones a model cannot be posed: it keeps its place, empty.
            self.leave_out(format!("model[{i}]"), e)?;
            (m.bones, m.parts, m.animations) = (Vec::new(), Vec::new(), Vec::new());
        }
        Ok(m)
    }

    /// A warning for each of a model's ranges whose start and end do not fit its count.
    fn check_ranges(&mut self, m: &ModelRecord, p: &str) {
        let at = m.offset;
        for (what, rg) in [
            ("bones", m.bones_range),
            ("parts", m.parts_range),
            ("animations", m.anims_range),
        ] {
            let ok = if rg.count > 0 {
                rg.end as usize == rg.start as usize + rg.count as usize - 1
            } else {
                rg.start == 0xFF && rg.end == 0xFF
            };
            if !ok {
                self.warn(
                    at,
                    p,
                    format!(
                        "{what} range {}..{} does not fit its count {}",
                        rg.start, rg.end, rg.count
                    ),
                );
            }
        }
    }

    /// A model's bones, part headers and animation headers, one after the other from
    /// `skeleton`, as many as its ranges count (and the data blocks they point at).
    fn skeleton(
        &mut self,
        r: Reader<'_>,
        m: &mut ModelRecord,
        skeleton: usize,
        p: &str,
    ) -> Result<(), ParseError> {
        let (nb, np, na) = (
            m.bones_range.count as usize,
            m.parts_range.count as usize,
            m.anims_range.count as usize,
        );
        m.skeleton = skeleton;
        for k in 0..nb {
            let bone = self.bone(r, m, skeleton + 4 * k, k, p)?;
            m.bones.push(bone);
        }
        let parts_at = skeleton + 4 * nb;
        for k in 0..np {
            match self.part(r, parts_at + 32 * k, &format!("{p}/part[{k}]"), m) {
                Ok(part) => m.parts.push(part),
                Err(e) => {
                    // The headers follow one another, then the animations' headers.
                    self.leave_out(
                        format!("{p}: parts {k} to {} and its animations", np - 1),
                        e,
                    )?;
                    m.skeleton_end = parts_at + 32 * k;
                    return Ok(());
                }
            }
        }
        self.check_has_mesh(m, p);
        let anims_at = parts_at + 32 * np;
        for k in 0..na {
            match self.animation(r, anims_at + 16 * k, &format!("{p}/animation[{k}]")) {
                Ok(a) => m.animations.push(a),
                Err(e) => {
                    self.leave_out(format!("{p}: animations {k} to {}", na - 1), e)?;
                    m.skeleton_end = anims_at + 16 * k;
                    return Ok(());
                }
            }
        }
        m.skeleton_end = anims_at + 16 * na;
        Ok(())
    }

    /// Bone `k` of model `m`, its record at `o`: an error where its parent is not an earlier
    /// bone (the root alone has none), a warning for a second root.
    fn bone(
        &mut self,
        r: Reader<'_>,
        m: &ModelRecord,
        o: usize,
        k: usize,
        p: &str,
    ) -> Result<Bone, ParseError> {
        let b = r.slice(o, 4, &format!("{p}/bone[{k}]"), "a 4-byte bone")?;
        let bone = Bone {
            offset: o,
            length: i16::from_le_bytes([b[0], b[1]]),
            parent: b[2] as i8,
            has_mesh: b[3],
        };
        // Parents come first: the root alone has none. A character's extra bones may
        // hang from its BCX skeleton, which this file does not hold.
        let own = m.global_id == 0;
        if own && (bone.parent as i32 >= k as i32 || bone.parent < -1) {
            return Err(ParseError::new(
                o + 2,
                &format!("{p}/bone[{k}]"),
                format!(
                    "parent {} of bone {k}: expected −1 for the root or an earlier bone",
                    bone.parent
                ),
            ));
        }
        if own && bone.parent == -1 && k > 0 {
            self.warn(o + 2, p, format!("bone {k} is a second root"));
        }
        Ok(bone)
    }

    /// A warning for each bone whose has_mesh disagrees with whether a part hangs on it.
    fn check_has_mesh(&mut self, m: &ModelRecord, p: &str) {
        for (k, bone) in m.bones.iter().enumerate() {
            let used = m.parts.iter().any(|q| q.bone as usize == k);
            if (bone.has_mesh != 0) != used {
                let message = format!(
                    "bone {k}: has_mesh is {} but {} part uses it",
                    bone.has_mesh,
                    if used { "a" } else { "no" }
                );
                self.warn(bone.offset + 3, p, message);
            }
        }
    }

    /// A warning for each of a BCX header's fields that is not what the layout implies.
    fn check_bcx_header(&mut self, h: &BcxHeader) {
        let (at, p) = (h.offset, "character");
        if h.magic != 0xFF01 {
            self.warn(
                at,
                p,
                format!("the header starts with {:#06x}, expected 0xff01", h.magic),
            );
        }
        let skeleton = (h.offset_skeleton & !RAM) as usize;
        if skeleton != at + 36 {
            self.warn(
                at + BCX_HEADER[7].0,
                p,
                format!(
                    "offset_skeleton is {:#x}, expected offset_models + 36 = {:#x}",
                    h.offset_skeleton,
                    (at + 36) as u32 | RAM
                ),
            );
        }
        let (nb, np) = (h.bones as usize, h.parts as usize);
        if h.offset_parts as usize != 4 * nb {
            self.warn(
                at + BCX_HEADER[5].0,
                p,
                format!(
                    "offset_parts is {}, expected 4 × {nb} bones = {}",
                    h.offset_parts,
                    4 * nb
                ),
            );
        }
        if h.offset_anims as usize != 4 * nb + 32 * np {
            self.warn(
                at + BCX_HEADER[6].0,
                p,
                format!(
                    "offset_anims is {}, expected 4 × {nb} bones + 32 × {np} parts = {}",
                    h.offset_anims,
                    4 * nb + 32 * np
                ),
            );
        }
    }

    /// Read a decompressed BCX: a playable character's skeleton, parts and animations in
    /// the BSX layouts, after one 36-byte header at offset_models; no texture section. It
    /// reads as a file of one model record with the character's own bones.
    pub fn parse_bcx(bytes: &[u8]) -> Result<BsxFile, ParseError> {
        let r = Reader { bytes };
        let mut f = BsxFile::header(r)?;
        let at = f.offset_models as usize;
        let p = "character";
        let b = r.slice(at, 36, p, "the 36-byte character header")?;
        let [magic, bones, parts, animations, scale, offset_parts, offset_anims, offset_skeleton] =
            BCX_HEADER.map(|at| field(b, at));
        let h = BcxHeader {
            offset: at,
            magic: magic as u16,
            bones: bones as u8,
            parts: parts as u8,
            animations: animations as u8,
            scale: scale as u16,
            offset_parts: offset_parts as u16,
            offset_anims: offset_anims as u16,
            offset_skeleton,
        };
        f.check_bcx_header(&h);
        let mut m = ModelRecord {
            offset: at,
            face_id: 0x21,
            global_id: 0,
            scale: h.scale,
            offset_skeleton: h.offset_skeleton,
            ambient: [0; 3],
            lights: [Light::default(); 3],
            bones_range: Range::all(h.bones),
            parts_range: Range::all(h.parts),
            anims_range: Range::all(h.animations),
            bones: Vec::new(),
            parts: Vec::new(),
            animations: Vec::new(),
            skeleton: 0,
            skeleton_end: 0,
        };
        // The skeleton follows the header; offset_skeleton only says so (a warning above).
        f.skeleton(r, &mut m, at + 36, p)?;
        f.models.push(m);
        f.bcx = Some(h);
        Ok(f)
    }

    fn part(
        &mut self,
        r: Reader<'_>,
        at: usize,
        p: &str,
        m: &ModelRecord,
    ) -> Result<Part, ParseError> {
        let b = r.slice(at, 32, p, "a 32-byte part header")?;
        let v = PART_HEADER.map(|f| field(b, f));
        let polygons: [u8; 8] = std::array::from_fn(|k| v[4 + k] as u8);
        let part = Part {
            header: at,
            lighting: v[0] as u8,
            bone: v[1] as u8,
            counts: PartCounts {
                vertices: v[2] as u8,
                texcoords: v[3] as u8,
                polygons,
                flags: v[12] as u8,
                control: v[13] as u8,
            },
            offset_poly: v[14] as u16,
            offset_texcoord: v[15] as u16,
            offset_flags: v[16] as u16,
            offset_control: v[17] as u16,
            buffer_size: v[18] as u16,
            block: (v[19] & !RAM) as usize,
            offset_prec: v[20],
        };
        // Bones: the model's own, or (a character's extra parts) its BCX skeleton's.
        if m.global_id == 0 && part.bone as usize >= m.bones.len() {
            return Err(ParseError::new(
                at + 1,
                p,
                format!(
                    "bone_index {} out of range: the model has {} bones",
                    part.bone,
                    m.bones.len()
                ),
            ));
        }
        self.check_part_header(&part, p);
        let c = &part.counts;
        if !self.parts.contains_key(&part.block) {
            // A part whose data the cut reached keeps its header (and its slot), not drawn.
            match self.part_data(r, &part, p) {
                Ok(data) => {
                    self.parts.insert(part.block, data);
                }
                Err(e) => self.leave_out(format!("{p}'s data"), e)?,
            }
        } else if self.parts[&part.block].vertices.len() != c.vertices as usize {
            return Err(ParseError::new(
                at + 0x18,
                p,
                format!(
                    "part data at byte {} is shared with a part of another size",
                    part.block
                ),
            ));
        }
        Ok(part)
    }

    /// A warning for each of a part header's counts and offsets that disagrees with its
    /// polygons.
    fn check_part_header(&mut self, part: &Part, p: &str) {
        let at = part.header;
        let c = &part.counts;
        let textured: usize = c.polygons[..4].iter().map(|&n| n as usize).sum();
        if c.control as usize != textured {
            self.warn(
                at + 0x0D,
                p,
                format!(
                    "num_control is {}, the part has {textured} textured polygons",
                    c.control
                ),
            );
        }
        let gpu: usize = PolyKind::ALL
            .iter()
            .zip(&c.polygons)
            .map(|(k, &n)| k.gpu_size() * n as usize)
            .sum();
        if part.buffer_size as usize != gpu {
            self.warn(
                at + 0x16,
                p,
                format!(
                    "buffer_size is {}, the polygons need {gpu} bytes of GPU packets",
                    part.buffer_size
                ),
            );
        }
        if part.offset_prec != 0 {
            self.warn(
                at + 0x1C,
                p,
                format!(
                    "offset_prec is {:#x}, expected 0 in a file",
                    part.offset_prec
                ),
            );
        }
    }

    fn part_data(&mut self, r: Reader<'_>, part: &Part, p: &str) -> Result<PartData, ParseError> {
        let base = part.block;
        let c = &part.counts;
        let mut d = PartData {
            offset: base,
            vertex_flag: r.u32(base, p, "the part data's first u32")?,
            ..Default::default()
        };
        if d.vertex_flag != 0 {
            self.warn(
                base,
                p,
                format!(
                    "the part data starts with {:#x}, expected 0 in a file",
                    d.vertex_flag
                ),
            );
        }
        let nv = c.vertices as usize;
        d.vertices_at = base + 4;
        let vb = r.slice(d.vertices_at, 8 * nv, p, "the vertices")?;
        d.vertices = vb
            .chunks_exact(8)
            .map(|v| [0, 2, 4, 6].map(|o| i16::from_le_bytes([v[o], v[o + 1]])))
            .collect();
        if d.vertices.iter().any(|v| v[3] != 0) {
            self.warn(base + 4, p, "a vertex's pad halfword is not 0".into());
        }
        if part.offset_poly as usize != 4 + 8 * nv {
            self.warn(
                part.header + 0x0E,
                p,
                format!(
                    "offset_poly is {}, expected 4 + 8 × {nv} vertices = {}",
                    part.offset_poly,
                    4 + 8 * nv
                ),
            );
        }
        let mut at = base + part.offset_poly as usize;
        let mut control = 0u16;
        for (kind, &n) in PolyKind::ALL.iter().zip(&c.polygons) {
            let block = r.slice(at, kind.size() * n as usize, p, kind.name())?;
            for (k, rec) in block.chunks_exact(kind.size()).enumerate() {
                let poly = polygon(*kind, rec, at + k * kind.size(), c, &mut control, p)?;
                d.polygons.push(poly);
            }
            at += block.len();
        }
        self.part_tables(r, part, &mut d, at, p)?;
        let (nf, nt, nc) = (c.flags as usize, c.texcoords as usize, c.control as usize);
        d.end = [
            base + 4 + 8 * nv,
            at,
            base + part.offset_flags as usize + 4 * nf,
            base + part.offset_texcoord as usize + 2 * nt,
            d.control_at + nc,
        ]
        .into_iter()
        .max()
        .unwrap_or(base);
        Ok(d)
    }

    /// A part's tables after its polygons (which end at `at`): the texture flag words, the
    /// texcoords and the control bytes, each where the part's header says, each control
    /// byte checked against the flags.
    fn part_tables(
        &mut self,
        r: Reader<'_>,
        part: &Part,
        d: &mut PartData,
        at: usize,
        p: &str,
    ) -> Result<(), ParseError> {
        let base = part.block;
        let c = &part.counts;
        let rel = |o: usize| o - base;
        if part.offset_flags as usize != rel(at) {
            self.warn(
                part.header + 0x12,
                p,
                format!(
                    "offset_flags is {}, the polygons end at {}",
                    part.offset_flags,
                    rel(at)
                ),
            );
        }
        let nf = c.flags as usize;
        d.flags_at = base + part.offset_flags as usize;
        let fb = r.slice(d.flags_at, 4 * nf, p, "the texture flag words")?;
        d.flags = fb
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let nt = c.texcoords as usize;
        if part.offset_texcoord as usize != part.offset_flags as usize + 4 * nf {
            self.warn(
                part.header + 0x10,
                p,
                format!(
                    "offset_texcoord is {}, expected offset_flags + 4 × {nf} = {}",
                    part.offset_texcoord,
                    part.offset_flags as usize + 4 * nf
                ),
            );
        }
        d.texcoords_at = base + part.offset_texcoord as usize;
        let tb = r.slice(d.texcoords_at, 2 * nt, p, "the texcoords")?;
        d.texcoords = tb.chunks_exact(2).map(|t| [t[0], t[1]]).collect();
        if part.offset_control as usize != part.offset_texcoord as usize + 2 * nt {
            self.warn(
                part.header + 0x14,
                p,
                format!(
                    "offset_control is {}, expected offset_texcoord + 2 × {nt} = {}",
                    part.offset_control,
                    part.offset_texcoord as usize + 2 * nt
                ),
            );
        }
        let nc = c.control as usize;
        let control_at = base + part.offset_control as usize;
        d.control_at = control_at;
        d.control = r.slice(control_at, nc, p, "the control bytes")?.to_vec();
        check_control(d, nf, p)
    }

    fn animation(&mut self, r: Reader<'_>, at: usize, p: &str) -> Result<Animation, ParseError> {
        let b = r.slice(at, 16, p, "a 16-byte animation header")?;
        let [frames, bones, n_trans, n_static, n_rot, off_trans, off_static, off_rot, block] =
            ANIMATION_HEADER.map(|f| field(b, f));
        let a = Animation {
            header: at,
            frames: frames as u16,
            bones: bones as u8,
            n_trans: n_trans as u8,
            n_static: n_static as u8,
            n_rot: n_rot as u8,
            off_trans: off_trans as u16,
            off_static: off_static as u16,
            off_rot: off_rot as u16,
            block: (block & !RAM) as usize,
        };
        if !self.anims.contains_key(&a.block) {
            match self.animation_data(r, &a, p) {
                Ok(data) => {
                    self.anims.insert(a.block, data);
                }
                Err(e) => self.leave_out(format!("{p}'s data"), e)?,
            }
        }
        Ok(a)
    }

    fn animation_data(
        &mut self,
        r: Reader<'_>,
        a: &Animation,
        p: &str,
    ) -> Result<AnimationData, ParseError> {
        let base = a.block;
        let (nb, nf) = (a.bones as usize, a.frames as usize);
        let mut d = AnimationData {
            offset: base,
            flag: r.u32(base, p, "the animation data's first u32")?,
            ..Default::default()
        };
        d.channels_at = base + 4;
        let cb = r.slice(d.channels_at, 8 * nb, p, "the bone channels")?;
        d.channels = cb
            .chunks_exact(8)
            .map(|c| Channel {
                mask: c[0],
                rotation: [c[1], c[2], c[3]],
                translation: [c[4], c[5], c[6]],
            })
            .collect();
        self.check_offsets(a, p);
        (d.translations_at, d.statics_at, d.rotations_at) = (
            base + a.off_trans as usize,
            base + a.off_static as usize,
            base + a.off_rot as usize,
        );
        let tb = r.slice(
            d.translations_at,
            2 * a.n_trans as usize * nf,
            p,
            "the translation frames",
        )?;
        d.translations = tb
            .chunks_exact(2)
            .map(|v| i16::from_le_bytes([v[0], v[1]]))
            .collect();
        let sb = r.slice(
            d.statics_at,
            2 * a.n_static as usize,
            p,
            "the static translations",
        )?;
        d.statics = sb
            .chunks_exact(2)
            .map(|v| i16::from_le_bytes([v[0], v[1]]))
            .collect();
        d.rotations = r
            .slice(
                d.rotations_at,
                a.n_rot as usize * nf,
                p,
                "the rotation frames",
            )?
            .to_vec();
        check_channels(&d.channels, a, p)?;
        d.end = [
            base + 4 + 8 * nb,
            base + a.off_trans as usize + tb.len(),
            base + a.off_static as usize + sb.len(),
            base + a.off_rot as usize + d.rotations.len(),
        ]
        .into_iter()
        .max()
        .unwrap_or(base);
        Ok(d)
    }

    /// A warning for each of the animation's offsets that is not where the blocks before
    /// it end.
    fn check_offsets(&mut self, a: &Animation, p: &str) {
        let (nb, nf) = (a.bones as usize, a.frames as usize);
        let expect = [
            (a.off_trans as usize, 4 + 8 * nb, "off_trans_frames"),
            (
                a.off_static as usize,
                a.off_trans as usize + 2 * a.n_trans as usize * nf,
                "off_static_trans",
            ),
            (
                a.off_rot as usize,
                a.off_static as usize + 2 * a.n_static as usize,
                "off_rot_frames",
            ),
        ];
        for (got, want, name) in expect {
            if got != want {
                self.warn(a.header, p, format!("{name} is {got}, expected {want}"));
            }
        }
    }

    fn texture_section(&mut self, r: Reader<'_>) -> Result<(), ParseError> {
        let at = self.offset_models as usize + self.texture_pointer as usize;
        if at >= r.bytes.len() && self.cut.is_some() {
            return Err(ParseError::new(
                r.bytes.len(),
                "textures",
                format!("the section starts at byte {at}, past the end"),
            ));
        }
        if at >= r.bytes.len() {
            self.warn(
                self.offset_models as usize + 8,
                "textures",
                "texture_pointer leads past the end of the file: no texture section".into(),
            );
            return Ok(());
        }
        let p = "textures";
        let mut t = TextureSection {
            offset: at,
            size: r.u32(at, p, "u32 size_section")?,
            count: r.u8(at + 4, p, "the texture count")?,
            ..Default::default()
        };
        t.patch
            .copy_from_slice(r.slice(at + 5, 3, p, "the TDB patch offset")?);
        if t.size as usize != r.bytes.len() - at && self.cut.is_none() {
            self.warn(
                at,
                p,
                format!(
                    "size_section is {}, {} bytes remain",
                    t.size,
                    r.bytes.len() - at
                ),
            );
        }
        if t.patch != [0; 3] {
            self.warn(
                at + 5,
                p,
                "a TDB patch block is named; it is not read".into(),
            );
        }
        for k in 0..t.count as usize {
            if let Some(rect) = self.vram_rect(r, at, k)? {
                t.rects.push(rect);
            }
        }
        // The blocks end the file (each padded to 4 bytes).
        if let Some(end) = t
            .rects
            .iter()
            .map(|r| r.data + 2 * r.width as usize * r.height as usize)
            .max()
        {
            if end.div_ceil(4) * 4 != r.bytes.len() && end != r.bytes.len() && self.cut.is_none() {
                self.warn(
                    at,
                    p,
                    format!(
                        "the rectangles end at byte {end}, the file at {}",
                        r.bytes.len()
                    ),
                );
            }
        }
        self.textures = Some(t);
        Ok(())
    }

    /// The texture section's rectangle `k` (the section at `at`): `None` where its halfwords
    /// lie past the end of a cut file (left out); an error where it runs outside the VRAM.
    fn vram_rect(
        &mut self,
        r: Reader<'_>,
        at: usize,
        k: usize,
    ) -> Result<Option<VramRect>, ParseError> {
        let e = at + 8 + 12 * k;
        let path = format!("textures/rect[{k}]");
        let b = r.slice(e, 12, &path, "a 12-byte rectangle entry")?;
        let v = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let rect = VramRect {
            entry: e,
            width: v(0),
            height: v(2),
            x: v(4),
            y: v(6),
            data: at + u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize,
        };
        if let Err(e) = r.slice(
            rect.data,
            rect.width as usize * rect.height as usize * 2,
            &path,
            "the rectangle's halfwords",
        ) {
            self.leave_out(path, e)?;
            return Ok(None);
        }
        if rect.x as usize + rect.width as usize > 1024
            || rect.y as usize + rect.height as usize > 512
        {
            return Err(ParseError::new(
                e + 4,
                &path,
                format!(
                    "rectangle {}×{} at ({}, {}) runs outside the 1024×512 VRAM",
                    rect.width, rect.height, rect.x, rect.y
                ),
            ));
        }
        Ok(Some(rect))
    }

    /// Triangles the model's own parts draw (quads count as two).
    pub fn triangles(&self, m: &ModelRecord) -> usize {
        m.parts
            .iter()
            .filter_map(|p| self.parts.get(&p.block))
            .flat_map(|d| &d.polygons)
            .map(|p| p.kind.corners() - 2)
            .sum()
    }
    pub fn vertices(&self, m: &ModelRecord) -> usize {
        m.parts.iter().map(|p| p.counts.vertices as usize).sum()
    }
}

/// One polygon record `rec` of `kind` at `offset`, its indices checked against the part's
/// counts; a textured one takes the next control byte's number from `control`.
fn polygon(
    kind: PolyKind,
    rec: &[u8],
    offset: usize,
    c: &PartCounts,
    control: &mut u16,
    p: &str,
) -> Result<Polygon, ParseError> {
    let nv = c.vertices as usize;
    let corners = kind.corners();
    let mut poly = Polygon {
        kind,
        offset,
        vertices: [0; 4],
        colors: [[0; 4]; 4],
        texcoords: [0; 4],
        control: None,
    };
    poly.vertices[..corners].copy_from_slice(&rec[..corners]);
    if let Some(v) = poly.vertices[..corners]
        .iter()
        .position(|&v| v as usize >= nv)
    {
        return Err(ParseError::new(
            offset + v,
            p,
            format!(
                "vertex index {} out of range: the part has {nv} vertices",
                poly.vertices[v]
            ),
        ));
    }
    let (col, tc) = kind.layout();
    let colours = if kind.gouraud() { corners } else { 1 };
    for j in 0..colours {
        poly.colors[j].copy_from_slice(&rec[col + 4 * j..col + 4 * j + 4]);
    }
    if let Some(tc) = tc {
        poly.texcoords[..corners].copy_from_slice(&rec[tc..tc + corners]);
        if let Some(t) = poly.texcoords[..corners]
            .iter()
            .position(|&t| t >= c.texcoords)
        {
            return Err(ParseError::new(
                offset + tc + t,
                p,
                format!(
                    "texcoord index {} out of range: the part has {} texcoords",
                    poly.texcoords[t], c.texcoords
                ),
            ));
        }
        poly.control = Some(*control);
        *control += 1;
    }
    Ok(poly)
}

/// An error at the first of the bone `channels` (each byte) naming an animated rotation or
/// translation, or a static translation, that the animation `a` does not have.
fn check_channels(channels: &[Channel], a: &Animation, p: &str) -> Result<(), ParseError> {
    let base = a.block;
    for (k, ch) in channels.iter().enumerate() {
        for axis in 0..3 {
            let (rot_animated, tr_animated) =
                (ch.mask >> axis & 1 == 1, ch.mask >> (axis + 4) & 1 == 1);
            if rot_animated && ch.rotation[axis] >= a.n_rot {
                return Err(ParseError::new(
                    base + 4 + 8 * k + 1 + axis,
                    p,
                    format!(
                        "bone {k} rotation channel {} out of range: {} animated rotations",
                        ch.rotation[axis], a.n_rot
                    ),
                ));
            }
            let t = ch.translation[axis];
            if tr_animated && t >= a.n_trans {
                return Err(ParseError::new(
                    base + 4 + 8 * k + 4 + axis,
                    p,
                    format!(
                        "bone {k} translation channel {t} out of range: {} animated translations",
                        a.n_trans
                    ),
                ));
            }
            if !tr_animated && t != 0xFF && t >= a.n_static {
                return Err(ParseError::new(
                    base + 4 + 8 * k + 4 + axis,
                    p,
                    format!(
                        "bone {k} static translation {t} out of range: {} static values",
                        a.n_static
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An error at a textured polygon of `d` with no control byte, or whose control byte names
/// a texture flag past the part's `nf`.
fn check_control(d: &PartData, nf: usize, p: &str) -> Result<(), ParseError> {
    let (control_at, nc) = (d.control_at, d.control.len());
    for poly in &d.polygons {
        if let Some(k) = poly.control {
            let Some(&byte) = d.control.get(k as usize) else {
                return Err(ParseError::new(
                    control_at,
                    p,
                    format!("textured polygon {k} has no control byte: the part has {nc}"),
                ));
            };
            if (byte & 0x0F) as usize >= nf {
                return Err(ParseError::new(
                    control_at + k as usize,
                    p,
                    format!(
                        "control byte {byte:#04x} names texture flag {}, the part has {nf}",
                        byte & 0x0F
                    ),
                ));
            }
        }
    }
    Ok(())
}
