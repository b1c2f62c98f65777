//! A DIV-BIZ2 chunk emitter written from the format notes (docs/formats/biz2.md), not from
//! the project's writer, and the ids the notes give: what the generated-model tests build
//! their files with.
#![allow(dead_code)]

// The emitter: u16 tag word (length width in its top two bits:
// 0 → u8, 1 → u16, 2 → u32), the length, the payload. Labelled chunks report where they
// start, so that picks can be checked against the bytes.

pub enum Body {
    Leaf(Vec<u8>),
    Children(Vec<Chunk>),
}

pub struct Chunk {
    pub id: u16,
    pub body: Body,
    pub label: Option<String>,
}

pub fn leaf(id: u16, payload: Vec<u8>) -> Chunk {
    Chunk {
        id,
        body: Body::Leaf(payload),
        label: None,
    }
}
pub fn node(id: u16, children: Vec<Chunk>) -> Chunk {
    Chunk {
        id,
        body: Body::Children(children),
        label: None,
    }
}
pub fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}
pub fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}
pub fn labelled(mut c: Chunk, label: String) -> Chunk {
    c.label = Some(label);
    c
}

/// Where each labelled chunk starts (its tag word) and where its payload starts.
#[derive(Default)]
pub struct Offsets(pub Vec<(String, usize, usize)>);

impl Offsets {
    pub fn of(&self, label: &str) -> (usize, usize) {
        self.0
            .iter()
            .find(|(l, _, _)| l == label)
            .map(|&(_, a, b)| (a, b))
            .unwrap_or_else(|| panic!("no chunk labelled {label}"))
    }
}

pub fn emit(c: &Chunk, out: &mut Vec<u8>, offsets: &mut Offsets) {
    let start = out.len();
    let mut payload = Vec::new();
    let mut inner = Offsets::default();
    match &c.body {
        Body::Leaf(p) => payload.extend_from_slice(p),
        Body::Children(children) => children
            .iter()
            .for_each(|k| emit(k, &mut payload, &mut inner)),
    }
    let (bits, len): (u16, Vec<u8>) = match payload.len() {
        n if n <= 0xFF => (0, vec![n as u8]),
        n if n <= 0xFFFF => (0x4000, (n as u16).to_le_bytes().to_vec()),
        n => (0x8000, (n as u32).to_le_bytes().to_vec()),
    };
    out.extend((c.id | bits).to_le_bytes());
    out.extend(&len);
    let payload_at = out.len();
    if let Some(l) = &c.label {
        offsets.0.push((l.clone(), start, payload_at));
    }
    offsets.0.extend(
        inner
            .0
            .into_iter()
            .map(|(l, a, b)| (l, a + payload_at, b + payload_at)),
    );
    out.extend(payload);
}

pub fn file(magic: &[u8; 8], chunks: &[Chunk]) -> (Vec<u8>, Offsets) {
    let mut out = magic.to_vec();
    let mut offsets = Offsets::default();
    for c in chunks {
        emit(c, &mut out, &mut offsets);
    }
    emit(&leaf(0x0005, Vec::new()), &mut out, &mut offsets);
    (out, offsets)
}

// Ids from the notes. Attributes carry 0x2000 in 1996 files; 1994 files leave it off.
pub const HEADER: u16 = 0x0003;
pub const TEXTURE: u16 = 0x0010;
pub const MATERIAL: u16 = 0x0020;
pub const OBJECT: u16 = 0x0040;
pub const LOD: u16 = 0x0041;
pub const PATCH: u16 = 0x0042;
pub const POLYGON: u16 = 0x0043;
pub const TRISTRIP: u16 = 0x0044;
pub const POLYSTRIP: u16 = 0x0045;
pub const PMESH: u16 = 0x0046;
pub const CONN: u16 = 0x0047;
pub const PCONN: u16 = 0x004D;
pub const NAME: u16 = 0x2008;
pub const FILETYPE: u16 = 0x2007;
pub const TEXTURE_MAP: u16 = 0x2011;
pub const MATERIAL_TEXTURE: u16 = 0x2021;
pub const DIFFUSE: u16 = 0x2024;
pub const SV_F_MATERIAL: u16 = 0x2030;
pub const SV_B_MATERIAL: u16 = 0x2031;
pub const SV_SPECIAL: u16 = 0x2037;
pub const LOD_DISTANCE: u16 = 0x2046;
