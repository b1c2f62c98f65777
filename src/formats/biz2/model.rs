//! The model layer: objects, LODs, patches and triangulated primitives built from a
//! [`ChunkTree`]. Every element keeps the index of the chunk it came from, and every
//! triangle the bytes of the face that made it, so a pick in the 3D view finds its bytes.
//! The layout is described in docs/formats/biz2.md.

use super::raw::{Chunk, ChunkTree, Field, MAGIC_MATERIALS};
use super::tags::{self, VertexLayout};
use crate::formats::{Diagnostic, ParseError};
use crate::inspect::Diagnostics;
pub use crate::scene::SourceRun;
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
    Faces { points_per_face: u8, indices: Vec<i32> },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Primitive {
    pub kind: PrimitiveKind,
    pub chunk: u32,
    pub vertices: VertexBlock,
    /// PMESH index lists in file order (CONNECTION_LIST and PCONN_LIST may both occur).
    pub connectivity: Vec<Connectivity>,
    /// Triangles after fan/strip triangulation, indices into `vertices`.
    pub triangles: Vec<[u32; 3]>,
    /// Which chunk (CONNECTION_LIST, PCONN_LIST or the primitive itself) and which face's
    /// bytes produced which triangles, as runs in triangle order.
    pub triangle_sources: Vec<SourceRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Patch {
    pub chunk: u32,
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
    pub chunk: Option<u32>,
    pub distance: Option<[f32; 2]>,
    pub transition: Option<f32>,
    pub patches: Vec<Patch>,
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
    pub chunk: u32,
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
    pub chunk: u32,
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
    pub chunk: u32,
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
            chunk: 0,
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
    pub chunk: u32,
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
            chunk: 0,
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
    let at = words.iter().position(|w| w.eq_ignore_ascii_case("SCROLL"))?;
    let mut out = [0.0f32; 4];
    for (k, v) in out.iter_mut().enumerate() {
        *v = words.get(at + 1 + k)?.parse().ok().filter(|x: &f32| x.is_finite())?;
    }
    Some(out)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RampDef {
    pub chunk: u32,
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
        let decoded = vec![0u32; tree.chunks.len()];
        let (file, fields, decoded) = Builder { tree, diagnostics: Diagnostics::default(), fields: Vec::new(), record_fields, decoded }.build();
        tree.fields = fields;
        tree.decoded = decoded;
        file
    }

    pub fn triangle_count(&self) -> usize {
        self.objects.iter().filter_map(|o| o.lods.first()).map(Lod::triangle_count).sum()
    }
    pub fn vertex_count(&self) -> usize {
        self.objects.iter().filter_map(|o| o.lods.first()).map(Lod::vertex_count).sum()
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
    fields: Vec<Field>,
    record_fields: bool,
    /// Payload bytes decoded per chunk.
    decoded: Vec<u32>,
}

impl Builder<'_, '_> {
    fn chunk(&self, i: u32) -> &Chunk {
        &self.tree.chunks[i as usize]
    }

    fn diag(&mut self, offset: usize, chunk: u32, message: impl Into<String>) {
        // Past the cap only the count grows: no path, no message.
        let path = if self.diagnostics.has_room() { self.tree.path(chunk) } else { String::new() };
        self.diagnostics.push(Diagnostic { offset, path, message: message.into() });
    }

    /// Keep the first value of an attribute the model holds one of; a repeat is reported
    /// with its offset, never silently dropped.
    fn once<T>(&mut self, slot: &mut Option<T>, value: Option<T>, i: u32) {
        if value.is_none() {
            return;
        }
        if slot.is_some() {
            if !self.diagnostics.has_room() {
                self.diagnostics.dropped += 1;
                return;
            }
            let c = self.chunk(i).clone();
            let parent = c.parent.map_or("the file", |p| self.chunk(p).name());
            self.diag(c.offset, i, format!("a second {} in {parent} is ignored; the first one is kept", c.name()));
        } else {
            *slot = value;
        }
    }

    /// A leaf whose payload is too short for what its id needs.
    fn short(&mut self, i: u32, need: &str) {
        let c = self.chunk(i).clone();
        self.diag(c.payload_offset, i, format!("{} expected {need}, payload has {} bytes", c.name(), c.len));
    }

    /// Record what `len` payload bytes of chunk `i`, from `from`, were decoded as.
    fn field(&mut self, i: u32, from: usize, len: usize, what: impl Into<String>, value: impl Into<String>) {
        if let Some(d) = self.decoded.get_mut(i as usize) {
            *d = d.saturating_add(len as u32);
        }
        if self.record_fields {
            let offset = self.chunk(i).payload_offset + from;
            self.fields.push(Field { chunk: i, offset, len, what: what.into(), value: value.into() });
        }
    }

    /// A NUL-terminated string starting `from` bytes into the payload.
    fn text(&mut self, i: u32, from: usize) -> String {
        let p = self.tree.payload(self.chunk(i));
        let rest = p.get(from..).unwrap_or_default();
        let end = rest.iter().position(|&b| b == 0).map_or(rest.len(), |n| n + 1);
        let s = cstr(rest);
        self.field(i, from, end, "string", format!("{s:?}"));
        s
    }

    fn byte(&mut self, i: u32) -> Option<u8> {
        let b = self.tree.payload(self.chunk(i)).first().copied();
        match b {
            Some(b) => self.field(i, 0, 1, "u8", b.to_string()),
            None => self.short(i, "a byte"),
        }
        b
    }

    /// u8 type (0 none, 1 named, 2 default, 3 same as front), then the name for type 1.
    fn material_ref(&mut self, i: u32) -> Option<MaterialRef> {
        Some(match self.byte(i)? {
            0 => MaterialRef::None,
            1 => MaterialRef::Named(self.text(i, 1)),
            2 => MaterialRef::Default,
            3 => MaterialRef::SameAsFront,
            t => MaterialRef::Other(t),
        })
    }

    fn build(mut self) -> (Biz2File, Vec<Field>, Vec<u32>) {
        let tree = self.tree;
        let kind = if &tree.magic == MAGIC_MATERIALS { FileKind::Materials } else { FileKind::Geometry };
        let mut file = Biz2File::new(kind, Header::default());
        for (i, c) in tree.chunks.iter().enumerate() {
            if c.misplaced {
                if !self.diagnostics.has_room() {
                    self.diagnostics.dropped += 1;
                    continue;
                }
                let parent = c.parent.map_or("the top level", |p| tree.chunks[p as usize].name());
                self.diag(c.offset, i as u32, format!("{} ({:#06x}) is not expected inside {parent}; kept as an opaque chunk", c.name(), c.tag_word));
            }
            if c.id == tags::COMMENT {
                file.comments.push(self.text(i as u32, 0));
            }
        }
        for i in tree.children(None) {
            match self.chunk(i).id {
                tags::HEADER => file.header = self.header(i),
                tags::OBJECT => file.objects.push(self.object(i)),
                tags::BOUND => file.bounds = Some(self.bound(i)),
                tags::MATERIAL => file.materials.push(self.material(i)),
                tags::TEXTURE => file.textures.push(self.texture(i)),
                tags::RAMP => file.ramps.push(self.ramp(i)),
                _ => {}
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

    fn header(&mut self, at: u32) -> Header {
        let mut h = Header::default();
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::VERSION => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut h.version, v, i)
                }
                tags::DATE => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut h.date, v, i)
                }
                tags::TIME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut h.time, v, i)
                }
                tags::SCALE => {
                    let v = self.floats::<1>(i, p).map(|[s]| s);
                    self.once(&mut h.scale, v, i)
                }
                tags::PRECISION => {
                    let v = self.byte(i);
                    self.once(&mut h.precision, v, i)
                }
                tags::FILETYPE => {
                    let v = self.byte(i);
                    self.once(&mut h.filetype, v, i)
                }
                tags::UNIT => {
                    let v = self.byte(i);
                    self.once(&mut h.unit, v, i)
                }
                _ => {}
            }
        }
        h
    }

    fn object(&mut self, at: u32) -> Object {
        let mut o = Object { chunk: at, name: None, front: None, back: None, sv_vertex: None, specials: Vec::new(), lods: Vec::new(), points: Vec::new() };
        // 1994 files hang patches straight under OBJECT: they form one implicit LOD.
        let mut flat = Lod { chunk: None, distance: None, transition: None, patches: Vec::new() };
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut o.name, v, i)
                }
                tags::SV_F_MATERIAL => {
                    let v = self.material_ref(i);
                    self.once(&mut o.front, v, i)
                }
                tags::SV_B_MATERIAL => {
                    let v = self.material_ref(i);
                    self.once(&mut o.back, v, i)
                }
                tags::SV_SPECIAL => o.specials.push(self.text(i, 0)),
                tags::SV_VERTEX => match uint_le(p) {
                    Some(v) => {
                        self.field(i, 0, p.len(), format!("u{}", p.len() * 8), format!("{v:#x}"));
                        self.once(&mut o.sv_vertex, Some(v), i);
                    }
                    None => self.short(i, "a 1-, 2- or 4-byte value"),
                },
                tags::LOD => {
                    let lod = self.lod(i, &mut o.points);
                    // An empty LOD marker beside flat patches is ignored (docs/formats/biz2.md).
                    if !(lod.patches.is_empty() && lod.distance.is_none()) {
                        o.lods.push(lod);
                    }
                }
                tags::PATCH => flat.patches.push(self.patch(i, &mut o.points)),
                tags::SPHERE_LIST => self.spheres(i, &mut o.points),
                _ => {}
            }
        }
        if !flat.patches.is_empty() {
            o.lods.insert(0, flat);
        }
        o
    }

    fn lod(&mut self, at: u32, points: &mut Vec<LightPoint>) -> Lod {
        let mut lod = Lod { chunk: Some(at), distance: None, transition: None, patches: Vec::new() };
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::LOD_DISTANCE => {
                    let v = self.floats::<2>(i, p);
                    self.once(&mut lod.distance, v, i)
                }
                tags::LOD_TRANSITION => {
                    let v = self.floats::<1>(i, p).map(|[t]| t);
                    self.once(&mut lod.transition, v, i)
                }
                tags::PATCH => lod.patches.push(self.patch(i, points)),
                tags::SPHERE_LIST => self.spheres(i, points),
                _ => {}
            }
        }
        lod
    }

    fn patch(&mut self, at: u32, points: &mut Vec<LightPoint>) -> Patch {
        let mut patch = Patch {
            chunk: at,
            name: None,
            front: None,
            back: None,
            specials: Vec::new(),
            faceted: None,
            decal: None,
            primitives: Vec::new(),
        };
        for i in self.tree.children(Some(at)) {
            match self.chunk(i).id {
                tags::NAME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut patch.name, v, i)
                }
                tags::SV_F_MATERIAL => {
                    let v = self.material_ref(i);
                    self.once(&mut patch.front, v, i)
                }
                tags::SV_B_MATERIAL => {
                    let v = self.material_ref(i);
                    self.once(&mut patch.back, v, i)
                }
                tags::SV_SPECIAL => patch.specials.push(self.text(i, 0)),
                tags::SV_FACETED => {
                    let v = self.byte(i);
                    self.once(&mut patch.faceted, v, i)
                }
                tags::SV_DECAL => {
                    let v = self.byte(i);
                    self.once(&mut patch.decal, v, i)
                }
                tags::PMESH => patch.primitives.push(self.primitive(i, PrimitiveKind::PMesh)),
                tags::TRISTRIP => patch.primitives.push(self.primitive(i, PrimitiveKind::TriStrip)),
                tags::POLYGON => patch.primitives.push(self.primitive(i, PrimitiveKind::Polygon)),
                tags::POLYSTRIP => patch.primitives.push(self.primitive(i, PrimitiveKind::PolyStrip)),
                tags::SPHERE_LIST => self.spheres(i, points),
                _ => {}
            }
        }
        patch
    }

    fn primitive(&mut self, at: u32, kind: PrimitiveKind) -> Primitive {
        let mut prim = Primitive { kind, chunk: at, vertices: VertexBlock::default(), connectivity: Vec::new(), triangles: Vec::new(), triangle_sources: Vec::new() };
        let children: Vec<u32> = self.tree.children(Some(at)).collect();
        let mut have_vertices = false;
        for &i in &children {
            if let Some(layout) = tags::vertex_layout(self.chunk(i).id) {
                if have_vertices {
                    let off = self.chunk(i).offset;
                    self.diag(off, i, "a second vertex block in one primitive is ignored");
                    continue;
                }
                have_vertices = true;
                prim.vertices = self.vertices(i, layout);
            }
        }
        let n = prim.vertices.positions.len() as u32;
        // Vertices with NaN/inf positions: their triangles are skipped (empty when none are).
        let bad_vertex: Vec<bool> = if prim.vertices.positions.iter().flatten().all(|x| x.is_finite()) {
            Vec::new()
        } else {
            prim.vertices.positions.iter().map(|p| !p.iter().all(|x| x.is_finite())).collect()
        };
        match kind {
            PrimitiveKind::PMesh => {
                for &i in &children {
                    match self.chunk(i).id {
                        tags::CONNECTION_LIST => self.connection_list(i, n, &bad_vertex, &mut prim),
                        tags::PCONN_LIST => self.pconn_list(i, n, &bad_vertex, &mut prim),
                        _ => {}
                    }
                }
            }
            PrimitiveKind::TriStrip => {
                let whole = SourceRun { first: 0, record: at, start: 0, face_len: 0, tris_per_face: 0 };
                for k in 0..n.saturating_sub(2) {
                    let t = if k % 2 == 0 { [k, k + 1, k + 2] } else { [k + 1, k, k + 2] };
                    push_face(&mut prim, &[t], whole, &bad_vertex);
                }
            }
            PrimitiveKind::Polygon | PrimitiveKind::PolyStrip => {
                let whole = SourceRun { first: 0, record: at, start: 0, face_len: 0, tris_per_face: 0 };
                for k in 1..n.saturating_sub(1) {
                    push_face(&mut prim, &[[0, k, k + 1]], whole, &bad_vertex);
                }
            }
        }
        prim
    }

    fn vertices(&mut self, at: u32, layout: &VertexLayout) -> VertexBlock {
        let c = self.chunk(at).clone();
        let p = self.tree.payload(&c);
        let stride = layout.floats * 4;
        if p.len() % stride != 0 {
            self.diag(
                c.payload_offset,
                at,
                format!("{} payload of {} bytes is not a multiple of its {stride}-byte stride; the last partial vertex is ignored", c.name(), p.len()),
            );
        }
        let count = p.len() / stride;
        self.field(at, 0, count * stride, format!("{count} vertices × {stride} B"), format!("{} floats per vertex", layout.floats));
        // One streaming pass per attribute: simple loops the compiler vectorises.
        fn column<const N: usize>(p: &[u8], stride: usize, offset: Option<usize>) -> Option<Vec<[f32; N]>> {
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
        if let Some(v) = block.positions.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
            let bad = block.positions.iter().filter(|p| !p.iter().all(|x| x.is_finite())).count();
            self.diag(
                c.payload_offset + v * stride,
                at,
                format!("{bad} vertex position(s) are NaN or infinite (first: vertex {v}); their triangles are skipped"),
            );
        }
        block
    }

    fn connection_list(&mut self, at: u32, n: u32, bad: &[bool], prim: &mut Primitive) {
        let c = self.chunk(at).clone();
        let p = self.tree.payload(&c);
        if p.len() % 12 != 0 {
            self.diag(c.payload_offset, at, format!("CONNECTION_LIST of {} bytes is not a whole number of 12-byte triangles", p.len()));
        }
        let mut triangles: Vec<[i32; 3]> = bytemuck::pod_collect_to_vec(&p[..p.len() / 12 * 12]);
        from_le(bytemuck::cast_slice_mut(&mut triangles));
        self.field(at, 0, triangles.len() * 12, format!("{} triangles × 3 × i32", triangles.len()), "");
        prim.triangles.reserve(triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            let start = c.payload_offset + t * 12;
            if self.face_in_range(tri, n, start, at) {
                push_face(prim, &[tri.map(|i| i as u32)], SourceRun { first: 0, record: at, start, face_len: 12, tris_per_face: 1 }, bad);
            }
        }
        prim.connectivity.push(Connectivity::Triangles(triangles));
    }

    fn pconn_list(&mut self, at: u32, n: u32, bad: &[bool], prim: &mut Primitive) {
        let c = self.chunk(at).clone();
        let p = self.tree.payload(&c);
        let Some(&ppf) = p.first() else {
            self.diag(c.payload_offset, at, "PCONN_LIST is too short to hold its points-per-face byte");
            return;
        };
        self.field(at, 0, 1, "u8 points per face", ppf.to_string());
        if ppf < 3 {
            self.diag(c.payload_offset, at, format!("PCONN_LIST points-per-face is {ppf}, expected 3 or more"));
            return;
        }
        let face_bytes = ppf as usize * 4;
        if (p.len() - 1) % face_bytes != 0 {
            self.diag(
                c.payload_offset + 1,
                at,
                format!("PCONN_LIST index data of {} bytes is not a whole number of {ppf}-point faces", p.len() - 1),
            );
        }
        let faces = (p.len() - 1) / face_bytes;
        let mut indices: Vec<i32> = bytemuck::pod_collect_to_vec(&p[1..1 + faces * face_bytes]);
        from_le(&mut indices);
        self.field(at, 1, faces * face_bytes, format!("{faces} faces × {ppf} × i32"), "");
        prim.triangles.reserve(faces * (ppf as usize - 2));
        if bad.is_empty() && indices.iter().all(|&i| i >= 0 && (i as u32) < n) {
            // Every index valid and every vertex finite, the usual case: fan without checks.
            if !indices.is_empty() {
                let first = prim.triangles.len() as u32;
                prim.triangle_sources.push(SourceRun { first, record: at, start: c.payload_offset + 1, face_len: face_bytes as u32, tris_per_face: ppf as u32 - 2 });
            }
            if ppf == 4 {
                // Quads, by far the most common face: two triangles each.
                prim.triangles.extend(indices.chunks_exact(4).flat_map(|q| {
                    let q = [q[0] as u32, q[1] as u32, q[2] as u32, q[3] as u32];
                    [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]
                }));
            } else {
                for face in indices.chunks_exact(ppf as usize) {
                    prim.triangles.extend((1..face.len() - 1).map(|k| [face[0] as u32, face[k] as u32, face[k + 1] as u32]));
                }
            }
            prim.connectivity.push(Connectivity::Faces { points_per_face: ppf, indices });
            return;
        }
        let mut fan: Vec<[u32; 3]> = Vec::with_capacity(ppf as usize - 2);
        for (f, face) in indices.chunks_exact(ppf as usize).enumerate() {
            let start = c.payload_offset + 1 + f * face_bytes;
            if self.face_in_range(face, n, start, at) {
                fan.clear();
                fan.extend((1..face.len() - 1).map(|k| [face[0] as u32, face[k] as u32, face[k + 1] as u32]));
                push_face(prim, &fan, SourceRun { first: 0, record: at, start, face_len: face_bytes as u32, tris_per_face: 0 }, bad);
            }
        }
        prim.connectivity.push(Connectivity::Faces { points_per_face: ppf, indices });
    }

    /// Whether every index of a face is in range; a diagnostic at the first one that is not.
    fn face_in_range(&mut self, face: &[i32], n: u32, at_byte: usize, chunk: u32) -> bool {
        match face.iter().position(|&i| i < 0 || i as u32 >= n) {
            None => true,
            Some(k) => {
                self.diag(at_byte + k * 4, chunk, format!("index {} out of range: the vertex block has {n} vertices; face skipped", face[k]));
                false
            }
        }
    }

    fn bound(&mut self, at: u32) -> DeclaredBounds {
        let mut b = DeclaredBounds::default();
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::BBOX => {
                    let v = self.floats::<6>(i, p).map(|v| [[v[0], v[1], v[2]], [v[3], v[4], v[5]]]);
                    self.once(&mut b.bbox, v, i)
                }
                tags::BSPHERE => {
                    let v = self.floats::<4>(i, p).map(|v| ([v[0], v[1], v[2]], v[3]));
                    self.once(&mut b.bsphere, v, i)
                }
                _ => {}
            }
        }
        b
    }

    fn spheres(&mut self, at: u32, points: &mut Vec<LightPoint>) {
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            if c.id != tags::SPHERE {
                continue;
            }
            let p = self.tree.payload(&c);
            match f32s::<3>(p) {
                Some(position) => {
                    let radius = f32s::<4>(p).map(|v| v[3]);
                    self.field(i, 0, 12, "3 × f32 centre (unconfirmed layout)", format!("{position:?}"));
                    if let Some(r) = radius {
                        self.field(i, 12, 4, "f32 radius (unconfirmed)", r.to_string());
                    }
                    points.push(LightPoint { chunk: i, position, radius });
                }
                None => self.short(i, "at least three 4-byte floats (the centre)"),
            }
        }
    }

    /// A leaf that must hold `N` floats: the values, or a diagnostic.
    fn floats<const N: usize>(&mut self, i: u32, p: &[u8]) -> Option<[f32; N]> {
        let v = f32s::<N>(p);
        match v {
            Some(v) => self.field(i, 0, N * 4, format!("{N} × f32"), format!("{v:?}")),
            None => self.short(i, &format!("{N} 4-byte floats")),
        }
        v
    }

    fn material(&mut self, at: u32) -> MaterialDef {
        let mut m = MaterialDef { chunk: at, name: None, ..MaterialDef::new("") };
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut m.name, v, i)
                }
                tags::SCOPE => {
                    let v = self.byte(i);
                    self.once(&mut m.scope, v, i)
                }
                tags::MATERIAL_TEXTURE => {
                    let v = self.byte(i).map(|mode| TextureRef { mode, name: (mode == 2).then(|| self.text(i, 1)) });
                    self.once(&mut m.texture, v, i)
                }
                tags::AMBIENT => {
                    let v = self.floats::<3>(i, p);
                    self.once(&mut m.ambient, v, i)
                }
                tags::DIFFUSE => {
                    let v = self.floats::<3>(i, p);
                    self.once(&mut m.diffuse, v, i)
                }
                tags::SPECULAR => {
                    let v = self.floats::<4>(i, p);
                    self.once(&mut m.specular, v, i)
                }
                tags::EMISSIVE => {
                    let v = self.floats::<3>(i, p);
                    self.once(&mut m.emissive, v, i)
                }
                tags::OPACITY => {
                    let v = self.floats::<3>(i, p);
                    self.once(&mut m.opacity, v, i)
                }
                tags::MATERIAL_RAMP => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut m.ramp, v, i)
                }
                _ => {}
            }
        }
        m
    }

    fn texture(&mut self, at: u32) -> TextureDef {
        let mut t = TextureDef { chunk: at, name: None, ..TextureDef::new("") };
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut t.name, v, i)
                }
                tags::TEXTURE_MAP => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut t.map, v, i)
                }
                tags::SV_SPECIAL => t.specials.push(self.text(i, 0)),
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
                    let v = self.byte(i);
                    self.once(slot, v, i)
                }
            }
        }
        t
    }

    fn ramp(&mut self, at: u32) -> RampDef {
        let mut r = RampDef { chunk: at, name: None, scope: None, colors: None };
        for i in self.tree.children(Some(at)) {
            let c = self.chunk(i).clone();
            let p = self.tree.payload(&c);
            match c.id {
                tags::NAME => {
                    let v = Some(self.text(i, 0));
                    self.once(&mut r.name, v, i)
                }
                tags::SCOPE => {
                    let v = self.byte(i);
                    self.once(&mut r.scope, v, i)
                }
                // Inside RAMP, 0x031 is the ramp data (color0, color1), not SV_B_MATERIAL.
                tags::SV_B_MATERIAL => {
                    let v = self.floats::<6>(i, p).map(|v| [[v[0], v[1], v[2]], [v[3], v[4], v[5]]]);
                    self.once(&mut r.colors, v, i)
                }
                _ => {}
            }
        }
        r
    }
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
            && (whole || r.start + ((at - r.first) / n) as usize * source.face_len as usize == source.start)
    });
    if !continues {
        prim.triangle_sources.push(SourceRun { first: at, tris_per_face, ..source });
    }
    prim.triangles.extend(triangles.iter().filter(keep));
}
