//! The model layer: objects, LODs, patches and triangulated primitives built from a
//! [`ChunkTree`]. Every element keeps the index of the chunk it came from, and every
//! triangle the bytes of the face that made it, so a pick in the 3D view finds its bytes.
//! The layout is described in docs/formats/biz2.md.

use super::raw::{Chunk, ChunkTree, Field, Ordinals, MAGIC_MATERIALS};
use super::tags::{self, VertexLayout};
use crate::inspect::Diagnostics;
use crate::scene::RecordBytes;
pub use crate::scene::SourceRun;
use crate::{Diagnostic, ParseError};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Geometry,
    Materials,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Header {
    pub version: Option<String>,
    pub date: Option<String>,
    pub time: Option<String>,
    pub scale: Option<f32>,
    pub precision: Option<u8>,
    pub filetype: Option<u8>,
    /// The raw UNIT code: read as metres by one source, inches by the other (docs/formats/biz2.md).
    pub unit: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum MaterialRef {
    None,
    /// "lib:material", verbatim.
    Named(String),
    Default,
    SameAsFront,
    Other(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PrimitiveKind {
    PMesh,
    TriStrip,
    Polygon,
    PolyStrip,
}

/// One vertex block, decoded into separate attribute arrays.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VertexBlock {
    pub format: u16,
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub colors: Option<Vec<[f32; 4]>>,
    /// Luminance and alpha.
    pub lum: Option<Vec<[f32; 2]>>,
    pub uvs: Option<Vec<[f32; 2]>>,
    pub uvws: Option<Vec<[f32; 3]>>,
}

/// Index data of a PMESH exactly as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Connectivity {
    /// CONNECTION_LIST: a flat triangle list.
    Triangles(Vec<[i32; 3]>),
    /// PCONN_LIST: faces of `points_per_face` indices each.
    Faces {
        points_per_face: u8,
        indices: Vec<i32>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Primitive {
    pub kind: PrimitiveKind,
    pub record: RecordBytes,
    pub vertices: VertexBlock,
    /// PMESH index lists in file order (CONNECTION_LIST and PCONN_LIST may both occur).
    pub connectivity: Vec<Connectivity>,
    /// Triangles after fan/strip triangulation, indices into `vertices`.
    pub triangles: Vec<[u32; 3]>,
    /// Which chunk (CONNECTION_LIST, PCONN_LIST or the primitive itself) and which face's
    /// bytes produced which triangles, as runs in triangle order.
    pub triangle_sources: Vec<SourceRun>,
    /// The box around the finite positions (min, max), None when there are none. Taken while
    /// the decoded positions are still in cache: a summary of a model with millions of
    /// vertices would otherwise read them all again from memory.
    pub bounds: Option<[[f32; 3]; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Patch {
    pub record: RecordBytes,
    pub name: Option<String>,
    pub front: Option<MaterialRef>,
    pub back: Option<MaterialRef>,
    /// Every SV_SPECIAL, in file order.
    pub specials: Vec<String>,
    pub faceted: Option<u8>,
    pub decal: Option<u8>,
    pub primitives: Vec<Primitive>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lod {
    /// None for the implicit LOD of a 1994 object with patches straight under it.
    pub record: Option<RecordBytes>,
    pub distance: Option<[f32; 2]>,
    pub transition: Option<f32>,
    pub patches: Vec<Patch>,
}

impl Primitive {
    /// Bytes its arrays hold.
    pub fn heap_bytes(&self) -> usize {
        fn bytes<T>(v: &[T]) -> usize {
            std::mem::size_of_val(v)
        }
        let v = &self.vertices;
        let vertices = bytes(&v.positions)
            + v.normals.as_deref().map_or(0, bytes)
            + v.colors.as_deref().map_or(0, bytes)
            + v.lum.as_deref().map_or(0, bytes)
            + v.uvs.as_deref().map_or(0, bytes)
            + v.uvws.as_deref().map_or(0, bytes);
        let lists: usize = self
            .connectivity
            .iter()
            .map(|c| match c {
                Connectivity::Triangles(t) => bytes(t),
                Connectivity::Faces { indices, .. } => bytes(indices),
            } + std::mem::size_of::<Connectivity>())
            .sum();
        vertices + lists + bytes(&self.triangles) + bytes(&self.triangle_sources)
    }
}

impl Patch {
    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(|p| p.triangles.len()).sum()
    }
}

impl Lod {
    pub fn vertex_count(&self) -> usize {
        self.primitives().map(|p| p.vertices.positions.len()).sum()
    }
    pub fn triangle_count(&self) -> usize {
        self.primitives().map(|p| p.triangles.len()).sum()
    }
    pub fn primitives(&self) -> impl Iterator<Item = &Primitive> {
        self.patches.iter().flat_map(|p| p.primitives.iter())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Object {
    pub record: RecordBytes,
    pub name: Option<String>,
    /// Object-level material references; a patch without its own inherits them.
    pub front: Option<MaterialRef>,
    pub back: Option<MaterialRef>,
    pub sv_vertex: Option<u32>,
    /// Every SV_SPECIAL, in file order.
    pub specials: Vec<String>,
    pub lods: Vec<Lod>,
    /// SPHERE light points, wherever they sit in the object.
    pub points: Vec<LightPoint>,
}

/// One SPHERE of a SPHERE_LIST. Its payload layout is unconfirmed (docs/formats/biz2.md): the
/// first three floats are read as the centre and a fourth, when present, as the radius.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightPoint {
    pub record: RecordBytes,
    pub position: [f32; 3],
    pub radius: Option<f32>,
}

/// A MATERIAL's texture reference: the mode byte, and the texture's name when mode is 2.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureRef {
    pub mode: u8,
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaterialDef {
    pub record: RecordBytes,
    pub name: Option<String>,
    pub scope: Option<u8>,
    pub texture: Option<TextureRef>,
    pub ambient: Option<[f32; 3]>,
    pub diffuse: Option<[f32; 3]>,
    pub specular: Option<[f32; 4]>,
    pub emissive: Option<[f32; 3]>,
    pub opacity: Option<[f32; 3]>,
    pub ramp: Option<String>,
}

impl MaterialDef {
    pub fn new(name: &str) -> MaterialDef {
        MaterialDef {
            record: [0, 0],
            name: Some(name.into()),
            scope: None,
            texture: None,
            ambient: None,
            diffuse: None,
            specular: None,
            emissive: None,
            opacity: None,
            ramp: None,
        }
    }
    pub fn texture_name(&self) -> Option<&str> {
        self.texture.as_ref().and_then(|t| t.name.as_deref())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureDef {
    pub record: RecordBytes,
    pub name: Option<String>,
    pub scope: Option<u8>,
    /// The image file holding the pixels (TEXTURE_MAP).
    pub map: Option<String>,
    pub minify: Option<u8>,
    pub magnify: Option<u8>,
    pub alpha: Option<u8>,
    pub wrap_u: Option<u8>,
    pub wrap_v: Option<u8>,
    pub detail: Option<u8>,
    /// Plane index into a .BSL bit-slice pack; absent means slice 0.
    pub bitslice: Option<u8>,
    /// Every SV_SPECIAL string, verbatim, in file order.
    pub specials: Vec<String>,
}

impl TextureDef {
    pub fn new(name: &str) -> TextureDef {
        TextureDef {
            record: [0, 0],
            name: Some(name.into()),
            scope: None,
            map: None,
            minify: None,
            magnify: None,
            alpha: None,
            wrap_u: None,
            wrap_v: None,
            detail: None,
            bitslice: None,
            specials: Vec::new(),
        }
    }

    /// " SCROLL u0 v0 du dv " from the first SPECIAL that has one: UV offset
    /// (u0 + du·t, v0 + dv·t), t in seconds.
    pub fn scroll(&self) -> Option<[f32; 4]> {
        self.specials.iter().find_map(|s| parse_scroll(s))
    }
}

/// Find `SCROLL u0 v0 du dv` (case-insensitive) among a SPECIAL string's words.
pub fn parse_scroll(special: &str) -> Option<[f32; 4]> {
    let words: Vec<&str> = special.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| w.eq_ignore_ascii_case("SCROLL"))?;
    let mut out = [0.0f32; 4];
    for (k, v) in out.iter_mut().enumerate() {
        *v = words
            .get(at + 1 + k)?
            .parse()
            .ok()
            .filter(|x: &f32| x.is_finite())?;
    }
    Some(out)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RampDef {
    pub record: RecordBytes,
    pub name: Option<String>,
    pub scope: Option<u8>,
    /// color0 and color1.
    pub colors: Option<[[f32; 3]; 2]>,
}

/// The BOUND block: the bounds the file declares (not computed from its vertices).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DeclaredBounds {
    /// BBOX: min, max.
    pub bbox: Option<[[f32; 3]; 2]>,
    /// BSPHERE: centre, radius.
    pub bsphere: Option<([f32; 3], f32)>,
}

/// A parsed DIV-BIZ2 file: geometry, or a material library.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Biz2File {
    pub kind: FileKind,
    pub header: Header,
    pub bounds: Option<DeclaredBounds>,
    pub objects: Vec<Object>,
    pub materials: Vec<MaterialDef>,
    pub textures: Vec<TextureDef>,
    pub ramps: Vec<RampDef>,
    /// COMMENT chunks, as text.
    pub comments: Vec<String>,
    /// The first [`crate::inspect::MAX_DIAGNOSTICS`] findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings beyond those, counted.
    pub diagnostics_dropped: usize,
}

impl Biz2File {
    pub fn new(kind: FileKind, header: Header) -> Biz2File {
        Biz2File {
            kind,
            header,
            bounds: None,
            objects: Vec::new(),
            materials: Vec::new(),
            textures: Vec::new(),
            ramps: Vec::new(),
            comments: Vec::new(),
            diagnostics: Vec::new(),
            diagnostics_dropped: 0,
        }
    }

    /// Parse and build in one go. A framing error is fatal; problems inside meshes are
    /// diagnostics and the rest still loads.
    pub fn parse(bytes: &[u8]) -> Result<(ChunkTree<'_>, Biz2File), ParseError> {
        let mut tree = ChunkTree::parse(bytes);
        if let Some(e) = &tree.error {
            return Err(e.clone());
        }
        let file = Biz2File::build(&mut tree);
        Ok((tree, file))
    }

    /// Build the model from a walked tree, also one that stopped at a framing error (the
    /// inspector shows what came before it), and record the decoded fields in the tree.
    pub fn build(tree: &mut ChunkTree<'_>) -> Biz2File {
        Biz2File::build_with(tree, true)
    }

    /// [`Self::build`]; without `record_fields` only the number of bytes each chunk had
    /// decoded is kept (what coverage needs), not a described field per value: a summary of a
    /// file of millions of small chunks then costs no strings per chunk.
    pub fn build_with(tree: &mut ChunkTree<'_>, record_fields: bool) -> Biz2File {
        let budget = model_budget(tree.bytes.len());
        let builder = Builder {
            tree,
            diagnostics: Diagnostics::default(),
            ordinals: Ordinals::default(),
            fields: Vec::new(),
            record_fields,
            decoded: 0,
            budget,
            refused: 0,
            budget_diagnostic: None,
        };
        let (file, fields, decoded) = builder.build();
        tree.fields = fields;
        tree.decoded_bytes = decoded;
        file
    }

    pub fn triangle_count(&self) -> usize {
        self.objects
            .iter()
            .filter_map(|o| o.lods.first())
            .map(Lod::triangle_count)
            .sum()
    }
    pub fn vertex_count(&self) -> usize {
        self.objects
            .iter()
            .filter_map(|o| o.lods.first())
            .map(Lod::vertex_count)
            .sum()
    }

    /// Most LODs of any object.
    pub fn lod_count(&self) -> usize {
        self.objects.iter().map(|o| o.lods.len()).max().unwrap_or(0)
    }
}

fn cstr(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn f32s<const N: usize>(bytes: &[u8]) -> Option<[f32; N]> {
    if bytes.len() < N * 4 {
        return None;
    }
    let mut out = [0.0; N];
    for (i, v) in out.iter_mut().enumerate() {
        *v = f32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().ok()?);
    }
    Some(out)
}

fn uint_le(bytes: &[u8]) -> Option<u32> {
    match bytes.len() {
        1 => Some(bytes[0] as u32),
        2 => Some(u16::from_le_bytes([bytes[0], bytes[1]]) as u32),
        4 => Some(u32::from_le_bytes(bytes.try_into().ok()?)),
        _ => None,
    }
}

struct Builder<'t, 'a> {
    tree: &'t ChunkTree<'a>,
    diagnostics: Diagnostics,
    /// Leaf ordinals counted so far, for the paths of diagnostics.
    ordinals: Ordinals,
    fields: Vec<Field>,
    record_fields: bool,
    /// Payload bytes decoded.
    decoded: usize,
    /// Bytes the model may still allocate (see [`model_budget`]).
    budget: usize,
    /// Elements not built for want of budget, and the diagnostic that says so.
    refused: usize,
    budget_diagnostic: Option<usize>,
}

/// What a model may allocate: twice its file, plus room for small files. Real geometry
/// takes about 1.5× its bytes (vertex arrays as stored, triangles beside the index lists
/// they came from); only elements that hold next to nothing (millions of empty OBJECTs or
/// PATCHes) reach the bound, and past it the builder stops adding elements rather than let
/// a hostile file cost a hundred times its size (docs/formats/biz2.md, "Memory").
pub fn model_budget(file_len: usize) -> usize {
    file_len.saturating_mul(2).saturating_add(1 << 20)
}

impl Builder<'_, '_> {
    fn diag(&mut self, offset: usize, chunk: u32, message: impl Into<String>) {
        // Past the cap only the count grows: no path, no message.
        let path = if self.diagnostics.has_room() {
            self.tree.path_with(&mut self.ordinals, chunk)
        } else {
            String::new()
        };
        self.diagnostics.push(Diagnostic {
            offset,
            path,
            message: message.into(),
        });
    }

    /// Whether an element of `bytes` at chunk `c` still fits the model's budget; the first
    /// refusal is a diagnostic, the later ones are counted in it.
    fn afford(&mut self, c: &Chunk, bytes: usize) -> bool {
        if let Some(left) = self.budget.checked_sub(bytes) {
            self.budget = left;
            return true;
        }
        self.refused += 1;
        if self.refused == 1 {
            let limit = model_budget(self.tree.bytes.len());
            self.budget_diagnostic = self
                .diagnostics
                .has_room()
                .then_some(self.diagnostics.kept.len());
            self.diag(c.offset, c.index, format!("the model would take more than {limit} bytes of memory (twice the file, plus 1 MiB): {} and what follows it are not built", c.name()));
        }
        false
    }

    /// Keep the first value of an attribute the model holds one of; a repeat is reported
    /// with its offset, never silently dropped.
    fn once<T>(&mut self, slot: &mut Option<T>, value: Option<T>, c: &Chunk) {
        if value.is_none() {
            return;
        }
        if slot.is_some() {
            if !self.diagnostics.has_room() {
                self.diagnostics.dropped += 1;
                return;
            }
            let parent = c
                .parent
                .and_then(|p| self.tree.chunk(p))
                .map_or("the file", |p| p.name());
            self.diag(
                c.offset,
                c.index,
                format!(
                    "a second {} in {parent} is ignored; the first one is kept",
                    c.name()
                ),
            );
        } else {
            *slot = value;
        }
    }

    /// A leaf whose payload is too short for what its id needs.
    fn short(&mut self, c: &Chunk, need: &str) {
        self.diag(
            c.payload_offset,
            c.index,
            format!(
                "{} expected {need}, payload has {} bytes",
                c.name(),
                c.payload_len()
            ),
        );
    }

    /// Record what `len` payload bytes of chunk `i`, from `from`, were decoded as.
    /// Every payload byte is decoded at most once, so the sum is the decoded total.
    fn field(
        &mut self,
        c: &Chunk,
        from: usize,
        len: usize,
        what: impl Into<String>,
        value: impl Into<String>,
    ) {
        self.decoded += len.min(c.payload_len().saturating_sub(from));
        // Fields describe the records the inspector lists.
        if self.record_fields && (c.index as usize) < crate::inspect::MAX_ROWS {
            self.fields.push(Field {
                chunk: c.index,
                offset: c.payload_offset + from,
                len,
                what: what.into(),
                value: value.into(),
            });
        }
    }

    /// A NUL-terminated string starting `from` bytes into the payload.
    fn text(&mut self, c: &Chunk, from: usize) -> String {
        let p = self.tree.payload(c);
        let rest = p.get(from..).unwrap_or_default();
        let nul = rest.iter().position(|&b| b == 0);
        let end = nul.map_or(rest.len(), |n| n + 1);
        // A string is its payload (biz2.md): a length that says more or less is said.
        let len = rest.len();
        match nul {
            Some(n) if n + 1 < len => self.diag(c.payload_offset + from + n + 1, c.index, format!("{} bytes after the string's NUL, to the chunk's end: its length says more than the string", len - n - 1)),
            None if !rest.is_empty() => self.diag(c.payload_offset + from, c.index, "the string has no NUL before the chunk's end: its length says less than the string"),
            _ => {}
        }
        let s = cstr(rest);
        // Strings are counted but never refused: each is at most its own payload.
        self.budget = self.budget.saturating_sub(s.len());
        self.field(c, from, end, "string", format!("{s:?}"));
        s
    }

    /// An SV_SPECIAL string, and a field for each of its words naming its role (a zone, a
    /// behaviour word …): within the string's own bytes, so they decode nothing more.
    fn special(&mut self, c: &Chunk) -> String {
        let s = self.text(c, 0);
        if self.record_fields && (c.index as usize) < crate::inspect::MAX_ROWS {
            let spans = super::special::word_spans(self.tree.payload(c));
            for ((start, end), role) in spans.into_iter().zip(super::special::roles(&s)) {
                let value = match &role {
                    super::special::Role::Zone(z) => z.clone(),
                    super::special::Role::Behaviour(b) => b.word().to_string(),
                    _ => String::from_utf8_lossy(&self.tree.payload(c)[start..end]).into_owned(),
                };
                self.fields.push(Field {
                    chunk: c.index,
                    offset: c.payload_offset + start,
                    len: end - start,
                    what: role.what().into(),
                    value,
                });
            }
        }
        s
    }

    fn byte(&mut self, c: &Chunk) -> Option<u8> {
        let b = self.tree.payload(c).first().copied();
        match b {
            Some(b) => self.field(c, 0, 1, "u8", b.to_string()),
            None => self.short(c, "a byte"),
        }
        b
    }

    /// u8 type (0 none, 1 named, 2 default, 3 same as front), then the name for type 1.
    fn material_ref(&mut self, c: &Chunk) -> Option<MaterialRef> {
        let kind = self.byte(c)?;
        // Only a named reference (1) has more than its type byte.
        let len = self.tree.payload(c).len();
        if kind != 1 && len > 1 {
            self.diag(c.payload_offset + 1, c.index, format!("{} bytes after the reference's type {kind}, which has none: its length says more", len - 1));
        }
        Some(match kind {
            0 => MaterialRef::None,
            1 => MaterialRef::Named(self.text(c, 1)),
            2 => MaterialRef::Default,
            3 => MaterialRef::SameAsFront,
            t => MaterialRef::Other(t),
        })
    }

    fn build(mut self) -> (Biz2File, Vec<Field>, usize) {
        let tree = self.tree;
        let kind = if &tree.magic == MAGIC_MATERIALS {
            FileKind::Materials
        } else {
            FileKind::Geometry
        };
        let mut file = Biz2File::new(kind, Header::default());
        for c in tree.iter() {
            if c.misplaced {
                if !self.diagnostics.has_room() {
                    self.diagnostics.dropped += 1;
                    continue;
                }
                let parent = c
                    .parent
                    .and_then(|p| tree.chunk(p))
                    .map_or("the top level", |p| p.name());
                self.diag(
                    c.offset,
                    c.index,
                    format!(
                        "{} ({:#06x}) is not expected inside {parent}; kept as an opaque chunk",
                        c.name(),
                        c.tag_word
                    ),
                );
            }
            if c.id == tags::COMMENT && self.afford(&c, std::mem::size_of::<String>()) {
                file.comments.push(self.text(&c, 0));
            }
        }
        for c in tree.children(None) {
            match c.id {
                tags::HEADER => file.header = self.header(&c),
                tags::OBJECT => file.objects.extend(self.object(&c)),
                tags::BOUND => file.bounds = Some(self.bound(&c)),
                tags::MATERIAL => file.materials.extend(self.material(&c)),
                tags::TEXTURE => file.textures.extend(self.texture(&c)),
                tags::RAMP => file.ramps.extend(self.ramp(&c)),
                _ => {}
            }
        }
        if self.refused > 0 {
            if let Some(d) = self
                .budget_diagnostic
                .and_then(|k| self.diagnostics.kept.get_mut(k))
            {
                d.message = format!(
                    "{}; {} elements in all were not built",
                    d.message, self.refused
                );
            }
        }
        if file.header.filetype == Some(1) {
            file.kind = FileKind::Materials;
        }
        file.diagnostics = self.diagnostics.kept;
        file.diagnostics_dropped = self.diagnostics.dropped;
        self.fields.sort_by_key(|f| f.offset);
        (file, self.fields, self.decoded)
    }

    fn header(&mut self, at: &Chunk) -> Header {
        let mut h = Header::default();
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::VERSION => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut h.version, v, &c)
                }
                tags::DATE => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut h.date, v, &c)
                }
                tags::TIME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut h.time, v, &c)
                }
                tags::SCALE => {
                    let v = self.floats::<1>(&c, p).map(|[s]| s);
                    self.once(&mut h.scale, v, &c)
                }
                tags::PRECISION => {
                    let v = self.byte(&c);
                    self.once(&mut h.precision, v, &c)
                }
                tags::FILETYPE => {
                    let v = self.byte(&c);
                    self.once(&mut h.filetype, v, &c)
                }
                tags::UNIT => {
                    let v = self.byte(&c);
                    self.once(&mut h.unit, v, &c)
                }
                _ => {}
            }
        }
        h
    }

    fn object(&mut self, at: &Chunk) -> Option<Object> {
        if !self.afford(at, std::mem::size_of::<Object>()) {
            return None;
        }
        let mut o = Object {
            record: at.bytes(),
            name: None,
            front: None,
            back: None,
            sv_vertex: None,
            specials: Vec::new(),
            lods: Vec::new(),
            points: Vec::new(),
        };
        // 1994 files hang patches straight under OBJECT: they form one implicit LOD.
        let mut flat = Lod {
            record: None,
            distance: None,
            transition: None,
            patches: Vec::new(),
        };
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut o.name, v, &c)
                }
                tags::SV_F_MATERIAL => {
                    let v = self.material_ref(&c);
                    self.once(&mut o.front, v, &c)
                }
                tags::SV_B_MATERIAL => {
                    let v = self.material_ref(&c);
                    self.once(&mut o.back, v, &c)
                }
                tags::SV_SPECIAL if self.afford(&c, std::mem::size_of::<String>()) => {
                    o.specials.push(self.special(&c))
                }
                tags::SV_VERTEX => match uint_le(p) {
                    Some(v) => {
                        self.field(
                            &c,
                            0,
                            p.len(),
                            format!("u{}", p.len() * 8),
                            format!("{v:#x}"),
                        );
                        self.once(&mut o.sv_vertex, Some(v), &c);
                    }
                    None => self.short(&c, "a 1-, 2- or 4-byte value"),
                },
                tags::LOD => {
                    let Some(lod) = self.lod(&c, &mut o.points) else {
                        continue;
                    };
                    // An empty LOD marker beside flat patches is ignored (docs/formats/biz2.md).
                    if !(lod.patches.is_empty() && lod.distance.is_none()) {
                        o.lods.push(lod);
                    }
                }
                tags::PATCH => flat.patches.extend(self.patch(&c, &mut o.points)),
                tags::SPHERE_LIST => self.spheres(&c, &mut o.points),
                _ => {}
            }
        }
        if !flat.patches.is_empty() {
            o.lods.insert(0, flat);
        }
        Some(o)
    }

    fn lod(&mut self, at: &Chunk, points: &mut Vec<LightPoint>) -> Option<Lod> {
        if !self.afford(at, std::mem::size_of::<Lod>()) {
            return None;
        }
        let mut lod = Lod {
            record: Some(at.bytes()),
            distance: None,
            transition: None,
            patches: Vec::new(),
        };
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::LOD_DISTANCE => {
                    let v = self.floats::<2>(&c, p);
                    self.once(&mut lod.distance, v, &c)
                }
                tags::LOD_TRANSITION => {
                    let v = self.floats::<1>(&c, p).map(|[t]| t);
                    self.once(&mut lod.transition, v, &c)
                }
                tags::PATCH => lod.patches.extend(self.patch(&c, points)),
                tags::SPHERE_LIST => self.spheres(&c, points),
                _ => {}
            }
        }
        Some(lod)
    }

    fn patch(&mut self, at: &Chunk, points: &mut Vec<LightPoint>) -> Option<Patch> {
        if !self.afford(at, std::mem::size_of::<Patch>()) {
            return None;
        }
        let mut patch = Patch {
            record: at.bytes(),
            name: None,
            front: None,
            back: None,
            specials: Vec::new(),
            faceted: None,
            decal: None,
            primitives: Vec::new(),
        };
        for c in self.tree.children_of(at) {
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut patch.name, v, &c)
                }
                tags::SV_F_MATERIAL => {
                    let v = self.material_ref(&c);
                    self.once(&mut patch.front, v, &c)
                }
                tags::SV_B_MATERIAL => {
                    let v = self.material_ref(&c);
                    self.once(&mut patch.back, v, &c)
                }
                tags::SV_SPECIAL if self.afford(&c, std::mem::size_of::<String>()) => {
                    patch.specials.push(self.special(&c))
                }
                tags::SV_FACETED => {
                    let v = self.byte(&c);
                    self.once(&mut patch.faceted, v, &c)
                }
                tags::SV_DECAL => {
                    let v = self.byte(&c);
                    self.once(&mut patch.decal, v, &c)
                }
                tags::PMESH => patch
                    .primitives
                    .extend(self.primitive(&c, PrimitiveKind::PMesh)),
                tags::TRISTRIP => patch
                    .primitives
                    .extend(self.primitive(&c, PrimitiveKind::TriStrip)),
                tags::POLYGON => patch
                    .primitives
                    .extend(self.primitive(&c, PrimitiveKind::Polygon)),
                tags::POLYSTRIP => patch
                    .primitives
                    .extend(self.primitive(&c, PrimitiveKind::PolyStrip)),
                tags::SPHERE_LIST => self.spheres(&c, points),
                _ => {}
            }
        }
        Some(patch)
    }

    fn primitive(&mut self, at: &Chunk, kind: PrimitiveKind) -> Option<Primitive> {
        if !self.afford(at, std::mem::size_of::<Primitive>()) {
            return None;
        }
        let mut prim = Primitive {
            kind,
            record: at.bytes(),
            vertices: VertexBlock::default(),
            connectivity: Vec::new(),
            triangles: Vec::new(),
            triangle_sources: Vec::new(),
            bounds: None,
        };
        let children: Vec<Chunk> = self.tree.children_of(at).collect();
        let (mut have_vertices, mut finite_count) = (false, 0);
        for c in &children {
            if let Some(layout) = tags::vertex_layout(c.id) {
                if have_vertices {
                    self.diag(
                        c.offset,
                        c.index,
                        "a second vertex block in one primitive is ignored",
                    );
                    continue;
                }
                have_vertices = true;
                (prim.vertices, prim.bounds, finite_count) = self.vertices(c, layout);
            }
        }
        let n = prim.vertices.positions.len() as u32;
        // Vertices with NaN/inf positions: their triangles are skipped (empty when none are).
        let bad_vertex: Vec<bool> = if finite_count == n as usize {
            Vec::new()
        } else {
            prim.vertices
                .positions
                .iter()
                .map(|p| !p.iter().all(|x| x.is_finite()))
                .collect()
        };
        match kind {
            PrimitiveKind::PMesh => {
                for c in &children {
                    match c.id {
                        tags::CONNECTION_LIST => self.connection_list(c, n, &bad_vertex, &mut prim),
                        tags::PCONN_LIST => self.pconn_list(c, n, &bad_vertex, &mut prim),
                        _ => {}
                    }
                }
            }
            PrimitiveKind::TriStrip | PrimitiveKind::Polygon | PrimitiveKind::PolyStrip => {
                whole_record_triangles(&mut prim, at, n, &bad_vertex)
            }
        }
        // The arrays are counted once they exist: a primitive is never larger than a few times
        // its own payload, so the overshoot is bounded.
        if !self.afford(at, prim.heap_bytes()) {
            return None;
        }
        Some(prim)
    }

    /// The block, the box around its finite positions and how many positions are finite.
    fn vertices(
        &mut self,
        c: &Chunk,
        layout: &VertexLayout,
    ) -> (VertexBlock, Option<[[f32; 3]; 2]>, usize) {
        let (at, p) = (c.index, self.tree.payload(c));
        let stride = layout.floats * 4;
        if p.len() % stride != 0 {
            self.diag(
                c.payload_offset,
                at,
                format!("{} payload of {} bytes is not a multiple of its {stride}-byte stride; the last partial vertex is ignored", c.name(), p.len()),
            );
        }
        let count = p.len() / stride;
        self.field(
            c,
            0,
            count * stride,
            format!("{count} vertices × {stride} B"),
            format!("{} floats per vertex", layout.floats),
        );
        // One streaming pass per attribute: simple loops the compiler vectorises.
        fn column<const N: usize>(
            p: &[u8],
            stride: usize,
            offset: Option<usize>,
        ) -> Option<Vec<[f32; N]>> {
            let at = offset? * 4;
            let read = |v: &[u8]| -> [f32; N] {
                let raw: [u32; N] = bytemuck::pod_read_unaligned(&v[at..at + N * 4]);
                // The file is little-endian; on a little-endian host this is a plain load.
                raw.map(|w| f32::from_bits(u32::from_le(w)))
            };
            Some(p.chunks_exact(stride).map(read).collect())
        }
        let block = VertexBlock {
            format: layout.id,
            positions: column::<3>(p, stride, Some(0)).unwrap_or_default(),
            normals: column::<3>(p, stride, layout.normal),
            colors: column::<4>(p, stride, layout.rgba),
            lum: column::<2>(p, stride, layout.lum),
            uvs: column::<2>(p, stride, layout.uv),
            uvws: column::<3>(p, stride, layout.uvw),
        };
        let (bounds, finite) = finite_bounds(&block.positions);
        if finite < count {
            let v = block
                .positions
                .iter()
                .position(|p| !p.iter().all(|x| x.is_finite()))
                .unwrap_or(0);
            self.diag(
                c.payload_offset + v * stride,
                at,
                format!("{} vertex position(s) are NaN or infinite (first: vertex {v}); their triangles are skipped", count - finite),
            );
        }
        (block, bounds, finite)
    }

    fn connection_list(&mut self, c: &Chunk, n: u32, bad: &[bool], prim: &mut Primitive) {
        let (at, p) = (c.index, self.tree.payload(c));
        if p.len() % 12 != 0 {
            self.diag(
                c.payload_offset,
                at,
                format!(
                    "CONNECTION_LIST of {} bytes is not a whole number of 12-byte triangles",
                    p.len()
                ),
            );
        }
        let mut triangles: Vec<[i32; 3]> = bytemuck::pod_collect_to_vec(&p[..p.len() / 12 * 12]);
        from_le(bytemuck::cast_slice_mut(&mut triangles));
        self.field(
            c,
            0,
            triangles.len() * 12,
            format!("{} triangles × 3 × i32", triangles.len()),
            "",
        );
        prim.triangles.reserve(triangles.len());
        let largest = triangles
            .iter()
            .flatten()
            .fold(0u32, |m, &i| m.max(i as u32));
        if bad.is_empty() && largest < n && n <= i32::MAX as u32 {
            // Every index valid and every vertex finite (see pconn_list): one run, no checks.
            if !triangles.is_empty() {
                let first = prim.triangles.len() as u32;
                prim.triangle_sources.push(SourceRun {
                    first,
                    record: c.bytes(),
                    start: c.payload_offset,
                    face_len: 12,
                    tris_per_face: 1,
                });
            }
            prim.triangles
                .extend(triangles.iter().map(|t| t.map(|i| i as u32)));
            prim.connectivity.push(Connectivity::Triangles(triangles));
            return;
        }
        for (t, tri) in triangles.iter().enumerate() {
            let start = c.payload_offset + t * 12;
            if self.face_in_range(tri, n, start, at) {
                push_face(
                    prim,
                    &[tri.map(|i| i as u32)],
                    SourceRun {
                        first: 0,
                        record: c.bytes(),
                        start,
                        face_len: 12,
                        tris_per_face: 1,
                    },
                    bad,
                );
            }
        }
        prim.connectivity.push(Connectivity::Triangles(triangles));
    }

    fn pconn_list(&mut self, c: &Chunk, n: u32, bad: &[bool], prim: &mut Primitive) {
        let (at, p) = (c.index, self.tree.payload(c));
        let Some(&ppf) = p.first() else {
            self.diag(
                c.payload_offset,
                at,
                "PCONN_LIST is too short to hold its points-per-face byte",
            );
            return;
        };
        self.field(c, 0, 1, "u8 points per face", ppf.to_string());
        if ppf < 3 {
            self.diag(
                c.payload_offset,
                at,
                format!("PCONN_LIST points-per-face is {ppf}, expected 3 or more"),
            );
            return;
        }
        let face_bytes = ppf as usize * 4;
        if (p.len() - 1) % face_bytes != 0 {
            self.diag(
                c.payload_offset + 1,
                at,
                format!(
                    "PCONN_LIST index data of {} bytes is not a whole number of {ppf}-point faces",
                    p.len() - 1
                ),
            );
        }
        let faces = (p.len() - 1) / face_bytes;
        let mut indices: Vec<i32> = bytemuck::pod_collect_to_vec(&p[1..1 + faces * face_bytes]);
        from_le(&mut indices);
        self.field(
            c,
            1,
            faces * face_bytes,
            format!("{faces} faces × {ppf} × i32"),
            "",
        );
        prim.triangles.reserve(faces * (ppf as usize - 2));
        // A negative index read as u32 is at least 2^31, above any vertex count a file can
        // hold; the maximum without a short-circuit is one vectorised pass.
        let largest = indices.iter().fold(0u32, |m, &i| m.max(i as u32));
        if bad.is_empty() && largest < n && n <= i32::MAX as u32 {
            // Every index valid and every vertex finite, the usual case: fan without checks.
            fan_unchecked(prim, c, &indices, ppf);
        } else {
            self.fan_checked(prim, c, &indices, ppf, n, bad);
        }
        prim.connectivity.push(Connectivity::Faces {
            points_per_face: ppf,
            indices,
        });
    }

    /// `ppf`-point faces fanned into triangles, each face checked: one with an index out of
    /// `n` is left out with a diagnostic, triangles on `bad` vertices are dropped.
    fn fan_checked(
        &mut self,
        prim: &mut Primitive,
        c: &Chunk,
        indices: &[i32],
        ppf: u8,
        n: u32,
        bad: &[bool],
    ) {
        let face_bytes = ppf as usize * 4;
        let mut fan: Vec<[u32; 3]> = Vec::with_capacity(ppf as usize - 2);
        for (f, face) in indices.chunks_exact(ppf as usize).enumerate() {
            let start = c.payload_offset + 1 + f * face_bytes;
            if self.face_in_range(face, n, start, c.index) {
                fan.clear();
                fan.extend(
                    (1..face.len() - 1)
                        .map(|k| [face[0] as u32, face[k] as u32, face[k + 1] as u32]),
                );
                push_face(
                    prim,
                    &fan,
                    SourceRun {
                        first: 0,
                        record: c.bytes(),
                        start,
                        face_len: face_bytes as u32,
                        tris_per_face: 0,
                    },
                    bad,
                );
            }
        }
    }

    /// Whether every index of a face is in range; a diagnostic at the first one that is not.
    fn face_in_range(&mut self, face: &[i32], n: u32, at_byte: usize, chunk: u32) -> bool {
        match face.iter().position(|&i| i < 0 || i as u32 >= n) {
            None => true,
            Some(k) => {
                self.diag(
                    at_byte + k * 4,
                    chunk,
                    format!(
                        "index {} out of range: the vertex block has {n} vertices; face skipped",
                        face[k]
                    ),
                );
                false
            }
        }
    }

    fn bound(&mut self, at: &Chunk) -> DeclaredBounds {
        let mut b = DeclaredBounds::default();
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::BBOX => {
                    let v = self
                        .floats::<6>(&c, p)
                        .map(|v| [[v[0], v[1], v[2]], [v[3], v[4], v[5]]]);
                    self.once(&mut b.bbox, v, &c)
                }
                tags::BSPHERE => {
                    let v = self.floats::<4>(&c, p).map(|v| ([v[0], v[1], v[2]], v[3]));
                    self.once(&mut b.bsphere, v, &c)
                }
                _ => {}
            }
        }
        b
    }

    fn spheres(&mut self, at: &Chunk, points: &mut Vec<LightPoint>) {
        for c in self.tree.children_of(at) {
            if c.id != tags::SPHERE {
                continue;
            }
            let p = self.tree.payload(&c);
            match f32s::<3>(p) {
                Some(_) if !self.afford(&c, std::mem::size_of::<LightPoint>()) => {}
                Some(position) => {
                    let radius = f32s::<4>(p).map(|v| v[3]);
                    self.field(
                        &c,
                        0,
                        12,
                        "3 × f32 centre (unconfirmed layout)",
                        format!("{position:?}"),
                    );
                    if let Some(r) = radius {
                        self.field(&c, 12, 4, "f32 radius (unconfirmed)", r.to_string());
                    }
                    points.push(LightPoint {
                        record: c.bytes(),
                        position,
                        radius,
                    });
                }
                None => self.short(&c, "at least three 4-byte floats (the centre)"),
            }
        }
    }

    /// A leaf that must hold `N` floats: the values, or a diagnostic.
    fn floats<const N: usize>(&mut self, c: &Chunk, p: &[u8]) -> Option<[f32; N]> {
        let v = f32s::<N>(p);
        match v {
            Some(v) => self.field(c, 0, N * 4, format!("{N} × f32"), format!("{v:?}")),
            None => self.short(c, &format!("{N} 4-byte floats")),
        }
        v
    }

    fn material(&mut self, at: &Chunk) -> Option<MaterialDef> {
        if !self.afford(at, std::mem::size_of::<MaterialDef>()) {
            return None;
        }
        let mut m = MaterialDef {
            record: at.bytes(),
            name: None,
            ..MaterialDef::new("")
        };
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut m.name, v, &c)
                }
                tags::SCOPE => {
                    let v = self.byte(&c);
                    self.once(&mut m.scope, v, &c)
                }
                tags::MATERIAL_TEXTURE => {
                    let v = self.byte(&c).map(|mode| TextureRef {
                        mode,
                        name: (mode == 2).then(|| self.text(&c, 1)),
                    });
                    self.once(&mut m.texture, v, &c)
                }
                tags::AMBIENT => {
                    let v = self.floats::<3>(&c, p);
                    self.once(&mut m.ambient, v, &c)
                }
                tags::DIFFUSE => {
                    let v = self.floats::<3>(&c, p);
                    self.once(&mut m.diffuse, v, &c)
                }
                tags::SPECULAR => {
                    let v = self.floats::<4>(&c, p);
                    self.once(&mut m.specular, v, &c)
                }
                tags::EMISSIVE => {
                    let v = self.floats::<3>(&c, p);
                    self.once(&mut m.emissive, v, &c)
                }
                tags::OPACITY => {
                    let v = self.floats::<3>(&c, p);
                    self.once(&mut m.opacity, v, &c)
                }
                tags::MATERIAL_RAMP => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut m.ramp, v, &c)
                }
                _ => {}
            }
        }
        Some(m)
    }

    fn texture(&mut self, at: &Chunk) -> Option<TextureDef> {
        if !self.afford(at, std::mem::size_of::<TextureDef>()) {
            return None;
        }
        let mut t = TextureDef {
            record: at.bytes(),
            name: None,
            ..TextureDef::new("")
        };
        for c in self.tree.children_of(at) {
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut t.name, v, &c)
                }
                tags::TEXTURE_MAP => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut t.map, v, &c)
                }
                tags::SV_SPECIAL if self.afford(&c, std::mem::size_of::<String>()) => {
                    t.specials.push(self.special(&c))
                }
                id => {
                    let slot = match id {
                        tags::SCOPE => &mut t.scope,
                        tags::MINIFY => &mut t.minify,
                        tags::MAGNIFY => &mut t.magnify,
                        tags::ALPHA => &mut t.alpha,
                        tags::WRAP_U => &mut t.wrap_u,
                        tags::WRAP_V => &mut t.wrap_v,
                        tags::DETAIL => &mut t.detail,
                        tags::BITSLICE => &mut t.bitslice,
                        _ => continue,
                    };
                    let v = self.byte(&c);
                    self.once(slot, v, &c)
                }
            }
        }
        Some(t)
    }

    fn ramp(&mut self, at: &Chunk) -> Option<RampDef> {
        if !self.afford(at, std::mem::size_of::<RampDef>()) {
            return None;
        }
        let mut r = RampDef {
            record: at.bytes(),
            name: None,
            scope: None,
            colors: None,
        };
        for c in self.tree.children_of(at) {
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(&c, 0));
                    self.once(&mut r.name, v, &c)
                }
                tags::SCOPE => {
                    let v = self.byte(&c);
                    self.once(&mut r.scope, v, &c)
                }
                // Inside RAMP, 0x031 is the ramp data (color0, color1), not SV_B_MATERIAL.
                tags::SV_B_MATERIAL => {
                    let v = self
                        .floats::<6>(&c, p)
                        .map(|v| [[v[0], v[1], v[2]], [v[3], v[4], v[5]]]);
                    self.once(&mut r.colors, v, &c)
                }
                _ => {}
            }
        }
        Some(r)
    }
}

/// The box around the finite points and how many are finite: one pass, kept in registers.
pub fn finite_bounds(points: &[[f32; 3]]) -> (Option<[[f32; 3]; 2]>, usize) {
    let (mut lo, mut hi, mut finite) = (glam::Vec3::INFINITY, glam::Vec3::NEG_INFINITY, 0);
    for p in points {
        let v = glam::Vec3::from(*p);
        let ok = v.is_finite();
        finite += ok as usize;
        // Branch-free: a non-finite point contributes the empty box's corners.
        lo = lo.min(if ok { v } else { glam::Vec3::INFINITY });
        hi = hi.max(if ok { v } else { glam::Vec3::NEG_INFINITY });
    }
    (lo.cmple(hi).all().then(|| [lo.into(), hi.into()]), finite)
}

/// Little-endian file values, copied in host order: a no-op on little-endian hosts.
fn from_le(values: &mut [i32]) {
    if cfg!(target_endian = "big") {
        values.iter_mut().for_each(|v| *v = i32::from_le(*v));
    }
}

/// Add the triangles of one face unless they touch a vertex marked bad (`bad` is empty when
/// none is), and record where they came from. `source` gives the record and the face's
/// bytes (`face_len` 0: the whole record, as for strips); a run goes on while faces follow
/// each other in the file with the same number of triangles, so a skipped face, or one that
/// lost triangles to a bad vertex, starts a new run and every face keeps its own bytes.
#[inline]
fn push_face(prim: &mut Primitive, triangles: &[[u32; 3]], source: SourceRun, bad: &[bool]) {
    let keep = |t: &&[u32; 3]| bad.is_empty() || !t.iter().any(|&i| bad[i as usize]);
    let n = triangles.iter().filter(keep).count() as u32;
    if n == 0 {
        return;
    }
    let at = prim.triangles.len() as u32;
    let whole = source.face_len == 0;
    let tris_per_face = if whole { 0 } else { n };
    let continues = prim.triangle_sources.last().is_some_and(|r| {
        r.record == source.record
            && r.tris_per_face == tris_per_face
            && r.face_len == source.face_len
            && (whole
                || r.start + ((at - r.first) / n) as usize * source.face_len as usize
                    == source.start)
    });
    if !continues {
        prim.triangle_sources.push(SourceRun {
            first: at,
            tris_per_face,
            ..source
        });
    }
    prim.triangles.extend(triangles.iter().filter(keep));
}

/// `ppf`-point faces whose indices are all valid fanned into triangles without checks (the
/// usual case, and a large model's hot loop), as one run of faces.
fn fan_unchecked(prim: &mut Primitive, c: &Chunk, indices: &[i32], ppf: u8) {
    if !indices.is_empty() {
        let first = prim.triangles.len() as u32;
        prim.triangle_sources.push(SourceRun {
            first,
            record: c.bytes(),
            start: c.payload_offset + 1,
            face_len: ppf as u32 * 4,
            tris_per_face: ppf as u32 - 2,
        });
    }
    if ppf == 4 {
        // Quads, by far the most common face: two triangles each.
        prim.triangles.extend(indices.chunks_exact(4).flat_map(|q| {
            let q = [q[0] as u32, q[1] as u32, q[2] as u32, q[3] as u32];
            [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
        }));
    } else {
        for face in indices.chunks_exact(ppf as usize) {
            prim.triangles.extend(
                (1..face.len() - 1).map(|k| [face[0] as u32, face[k] as u32, face[k + 1] as u32]),
            );
        }
    }
}

/// The triangles of a strip or polygon of `n` vertices (a triangle strip's alternate in
/// winding; a polygon's and a poly strip's fan from the first vertex), every one from the
/// whole record `at`; those on `bad` vertices dropped.
fn whole_record_triangles(prim: &mut Primitive, at: &Chunk, n: u32, bad: &[bool]) {
    let whole = SourceRun {
        first: 0,
        record: at.bytes(),
        start: 0,
        face_len: 0,
        tris_per_face: 0,
    };
    if prim.kind == PrimitiveKind::TriStrip {
        for k in 0..n.saturating_sub(2) {
            let t = if k % 2 == 0 {
                [k, k + 1, k + 2]
            } else {
                [k + 1, k, k + 2]
            };
            push_face(prim, &[t], whole, bad);
        }
    } else {
        for k in 1..n.saturating_sub(1) {
            push_face(prim, &[[0, k, k + 1]], whole, bad);
        }
    }
}
