//! A writer of synthetic BSX files for tests and the demo archive: models with their bones,
//! parts, animations and a texture section, laid out as the game lays them out (header, part
//! data blocks, animation data blocks, models section, texture section), every block 4-byte
//! aligned. Wrap the result with `lzs::encode` for a file as the disc holds it.

use super::raw::{Channel, PolyKind};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolySpec {
    pub kind: Option<PolyKind>,
    pub vertices: [u8; 4],
    /// R, G, B, normal index per corner (flat kinds use the first).
    pub colors: [[u8; 4]; 4],
    pub texcoords: [u8; 4],
    /// The control byte of a textured polygon.
    pub control: u8,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartSpec {
    pub bone: u8,
    pub vertices: Vec<[i16; 3]>,
    /// In any order: written grouped by kind, in the file's kind order.
    pub polygons: Vec<PolySpec>,
    pub flags: Vec<u32>,
    pub texcoords: Vec<[u8; 2]>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimSpec {
    pub frames: u16,
    pub channels: Vec<Channel>,
    pub translations: Vec<i16>,
    pub statics: Vec<i16>,
    pub rotations: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelSpec {
    pub face_id: u8,
    pub global_id: u8,
    pub scale: u16,
    pub ambient: [u8; 3],
    /// (length, parent) per bone.
    pub bones: Vec<(i16, i8)>,
    pub parts: Vec<PartSpec>,
    pub animations: Vec<AnimSpec>,
    /// Where the record's bones, parts and animations go in a character's lists (after
    /// its BCX's); 0 for a model of its own.
    pub starts: [u8; 3],
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RectSpec {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
    pub halfwords: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct BsxSpec {
    pub models: Vec<ModelSpec>,
    pub rects: Vec<RectSpec>,
}

fn align(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend(v.to_le_bytes());
}
fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend(v.to_le_bytes());
}

/// Where a part's data block landed and what its header must say.
struct PartBlock {
    offset: usize,
    counts: [u8; 8],
    offset_poly: u16,
    offset_flags: u16,
    offset_texcoord: u16,
    offset_control: u16,
    control: u8,
}

struct AnimBlock {
    offset: usize,
    off_trans: u16,
    off_static: u16,
    off_rot: u16,
    n_trans: u8,
    n_static: u8,
    n_rot: u8,
}

fn write_part(out: &mut Vec<u8>, p: &PartSpec) -> PartBlock {
    let offset = out.len();
    put32(out, 0);
    for v in &p.vertices {
        for c in v.iter().chain(&[0]) {
            put16(out, *c as u16);
        }
    }
    let offset_poly = (out.len() - offset) as u16;
    let mut counts = [0u8; 8];
    let mut control = Vec::new();
    for (k, kind) in PolyKind::ALL.iter().enumerate() {
        for poly in p.polygons.iter().filter(|x| x.kind == Some(*kind)) {
            counts[k] += 1;
            let n = kind.corners();
            let start = out.len();
            out.extend(&poly.vertices[..n]);
            if n == 3 {
                out.push(0);
            }
            let colours = if kind.gouraud() { n } else { 1 };
            for c in &poly.colors[..colours] {
                out.extend(c);
            }
            if kind.textured() {
                out.extend(&poly.texcoords[..n]);
                if n == 3 {
                    out.push(0);
                }
                control.push(poly.control);
            }
            debug_assert_eq!(out.len() - start, kind.size());
        }
    }
    let offset_flags = (out.len() - offset) as u16;
    for f in &p.flags {
        put32(out, *f);
    }
    let offset_texcoord = (out.len() - offset) as u16;
    for t in &p.texcoords {
        out.extend(t);
    }
    let offset_control = (out.len() - offset) as u16;
    out.extend(&control);
    align(out);
    PartBlock {
        offset,
        counts,
        offset_poly,
        offset_flags,
        offset_texcoord,
        offset_control,
        control: control.len() as u8,
    }
}

fn write_anim(out: &mut Vec<u8>, a: &AnimSpec) -> AnimBlock {
    let offset = out.len();
    put32(out, 0);
    for c in &a.channels {
        out.push(c.mask);
        out.extend(c.rotation);
        out.extend(c.translation);
        out.push(0);
    }
    let off_trans = (out.len() - offset) as u16;
    for t in &a.translations {
        put16(out, *t as u16);
    }
    let off_static = (out.len() - offset) as u16;
    for s in &a.statics {
        put16(out, *s as u16);
    }
    let off_rot = (out.len() - offset) as u16;
    out.extend(&a.rotations);
    align(out);
    let per = a.frames.max(1) as usize;
    AnimBlock {
        offset,
        off_trans,
        off_static,
        off_rot,
        n_trans: (a.translations.len() / per) as u8,
        n_static: a.statics.len() as u8,
        n_rot: (a.rotations.len() / per) as u8,
    }
}

fn range(start: usize, n: usize) -> [u8; 2] {
    if n == 0 {
        [0xFF, 0xFF]
    } else {
        [start as u8, (start + n - 1) as u8]
    }
}

/// A model's bones, part headers and animation headers (its skeleton block).
fn write_skeleton(out: &mut Vec<u8>, m: &ModelSpec, parts: &[PartBlock], anims: &[AnimBlock]) {
    for (b, &(length, parent)) in m.bones.iter().enumerate() {
        put16(out, length as u16);
        out.push(parent as u8);
        out.push(m.parts.iter().any(|p| p.bone as usize == b) as u8);
    }
    for (p, block) in m.parts.iter().zip(parts) {
        out.extend([1, p.bone, p.vertices.len() as u8, p.texcoords.len() as u8]);
        out.extend(block.counts);
        out.extend([p.flags.len() as u8, block.control]);
        for v in [
            block.offset_poly,
            block.offset_texcoord,
            block.offset_flags,
            block.offset_control,
        ] {
            put16(out, v);
        }
        let gpu: usize = PolyKind::ALL
            .iter()
            .zip(&block.counts)
            .map(|(k, &n)| k.gpu_size() * n as usize)
            .sum();
        put16(out, gpu as u16);
        put32(out, block.offset as u32 | 0x8000_0000);
        put32(out, 0);
    }
    for (a, block) in m.animations.iter().zip(anims) {
        put16(out, a.frames);
        out.extend([
            a.channels.len() as u8,
            block.n_trans,
            block.n_static,
            block.n_rot,
        ]);
        for v in [block.off_trans, block.off_static, block.off_rot] {
            put16(out, v);
        }
        put32(out, block.offset as u32 | 0x8000_0000);
    }
}

/// Model `m`'s 48-byte record, its skeleton at `skeleton`: ids, scale, the offset to the
/// skeleton, the ambient colour and three lights that carry its ranges.
fn write_model_record(out: &mut Vec<u8>, m: &ModelSpec, skeleton: usize) {
    let at = out.len();
    out.extend([m.face_id, m.global_id]);
    put16(out, m.scale);
    put32(out, (skeleton - at) as u32);
    let light = |out: &mut Vec<u8>, range: [u8; 2], count: usize| {
        for d in [4096i16, 0, 0] {
            put16(out, d as u16);
        }
        out.extend(range);
        out.extend([128, 128, 128, count as u8]);
    };
    out.extend(m.ambient);
    out.push(0);
    let [b, p, a] = m.starts.map(usize::from);
    light(out, range(b, m.bones.len()), m.bones.len());
    light(out, range(p, m.parts.len()), m.parts.len());
    light(out, range(a, m.animations.len()), m.animations.len());
    debug_assert_eq!(out.len() - at, 48);
}

/// The texture section: header, entries, then each rectangle's halfwords.
fn write_texture_section(out: &mut Vec<u8>, rects: &[RectSpec]) {
    let section = out.len();
    let mut data_at = 8 + 12 * rects.len();
    let mut entries = Vec::new();
    for r in rects {
        entries.push(data_at);
        data_at += 2 * r.halfwords.len();
        data_at = data_at.div_ceil(4) * 4;
    }
    let empty_pad = if rects.is_empty() { 12 } else { 0 };
    put32(out, (data_at + empty_pad) as u32);
    put32(out, rects.len() as u32);
    for (r, &off) in rects.iter().zip(&entries) {
        for v in [r.width, r.height, r.x, r.y] {
            put16(out, v);
        }
        put32(out, off as u32);
    }
    for r in rects {
        for h in &r.halfwords {
            put16(out, *h);
        }
        align(out);
    }
    // An empty section is 20 bytes, as the game's are.
    out.extend(std::iter::repeat_n(0, empty_pad));
    debug_assert_eq!(out.len() - section, data_at + empty_pad);
}

/// The file, decompressed.
pub fn write(spec: &BsxSpec) -> Vec<u8> {
    let mut out = vec![0u8; 8];
    let parts: Vec<Vec<PartBlock>> = spec
        .models
        .iter()
        .map(|m| m.parts.iter().map(|p| write_part(&mut out, p)).collect())
        .collect();
    let anims: Vec<Vec<AnimBlock>> = spec
        .models
        .iter()
        .map(|m| {
            m.animations
                .iter()
                .map(|a| write_anim(&mut out, a))
                .collect()
        })
        .collect();
    let om = out.len();
    let records = om + 16;
    let mut skeleton = records + 48 * spec.models.len();
    let skeletons: Vec<usize> = spec
        .models
        .iter()
        .map(|m| {
            let at = skeleton;
            skeleton += 4 * m.bones.len() + 32 * m.parts.len() + 16 * m.animations.len();
            at
        })
        .collect();
    let texture_at = skeleton;
    put32(&mut out, om as u32 | 0x8000_0000);
    put32(&mut out, spec.models.len() as u32);
    put32(&mut out, (texture_at - om) as u32);
    put32(&mut out, 0);
    for (m, &skeleton) in spec.models.iter().zip(&skeletons) {
        write_model_record(&mut out, m, skeleton);
    }
    for (k, m) in spec.models.iter().enumerate() {
        debug_assert_eq!(out.len(), skeletons[k]);
        write_skeleton(&mut out, m, &parts[k], &anims[k]);
    }
    write_texture_section(&mut out, &spec.rects);
    let size = out.len() as u32;
    out[0..4].copy_from_slice(&size.to_le_bytes());
    out[4..8].copy_from_slice(&(om as u32).to_le_bytes());
    out
}

/// A BCX (decompressed) of one character: its data blocks from byte 8, then the 36-byte
/// header at offset_models and the skeleton block right after it; no texture section.
pub fn write_bcx(m: &ModelSpec) -> Vec<u8> {
    let mut out = vec![0u8; 8];
    let parts: Vec<PartBlock> = m.parts.iter().map(|p| write_part(&mut out, p)).collect();
    let anims: Vec<AnimBlock> = m
        .animations
        .iter()
        .map(|a| write_anim(&mut out, a))
        .collect();
    let om = out.len();
    put16(&mut out, 0xFF01);
    out.extend([
        m.bones.len() as u8,
        m.parts.len() as u8,
        m.animations.len() as u8,
    ]);
    out.extend([0u8; 17]);
    put16(&mut out, m.scale);
    put16(&mut out, (4 * m.bones.len()) as u16);
    put16(&mut out, (4 * m.bones.len() + 32 * m.parts.len()) as u16);
    put32(&mut out, (om + 36) as u32 | 0x8000_0000);
    put32(&mut out, 0);
    write_skeleton(&mut out, m, &parts, &anims);
    let size = out.len() as u32;
    out[0..4].copy_from_slice(&size.to_le_bytes());
    out[4..8].copy_from_slice(&(om as u32).to_le_bytes());
    out
}

/// A FIELD.TDB (decompressed): the 16-byte header, the images (512 bytes each: 32 rows of
/// 16 bytes, the low nibble first), then the palettes (16 colours each).
pub fn write_tdb(images: &[[u8; 512]], palettes: &[[u16; 16]]) -> Vec<u8> {
    let image_offset = 16usize;
    let palette_offset = image_offset + 512 * images.len();
    let mut out = Vec::with_capacity(palette_offset + 32 * palettes.len());
    put32(&mut out, (palette_offset + 32 * palettes.len()) as u32);
    put16(&mut out, images.len() as u16);
    put16(&mut out, palettes.len() as u16);
    put32(&mut out, image_offset as u32);
    put32(&mut out, palette_offset as u32);
    for i in images {
        out.extend(i);
    }
    for p in palettes {
        for c in p {
            put16(&mut out, *c);
        }
    }
    out
}
