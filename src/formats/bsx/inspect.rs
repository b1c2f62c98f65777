//! The inspector's view of a BSX: every structure the reader read as a row with its byte
//! range, nested as the file nests them (header, part data blocks, animation data blocks,
//! the models section with each model's bones, part headers and animation headers, the
//! texture section), the values as fields, and the records the scene points at.

use super::raw::{BsxFile, FieldAt, PolyKind, BCX_HEADER, FILE_HEADER, MODELS_HEADER, MODEL_RECORD};
use std::collections::HashMap;
use crate::inspect::{runs_from_spans, ByteClass, ByteView, Field, InspectorView, Row, MAX_ROWS};
use crate::words::{count, count_len};

/// Inspector rows the scene's records point at.
#[derive(Debug, Default, Clone)]
pub struct Records {
    /// The row of each polygon group, by (part data offset, kind).
    pub polygons: HashMap<(usize, PolyKind), u32>,
    /// The row of each model record, of each bone list and of each part header.
    pub models: Vec<u32>,
    pub bones: HashMap<usize, u32>,
    pub parts: HashMap<usize, u32>,
}

/// A row before it is placed in the tree.
pub(super) struct Pending {
    start: usize,
    end: usize,
    name: String,
    label: String,
    summary: String,
    pub(super) fields: Vec<(usize, usize, String, String)>,
    /// What the scene keeps of this row's index.
    key: Key,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    None,
    Polygons(usize, PolyKind),
    Model(usize),
    Bone(usize),
    PartHeader(usize),
}

pub(super) fn row(start: usize, end: usize, name: &str, label: String, summary: String) -> Pending {
    Pending { start, end, name: name.to_string(), label, summary, fields: Vec::new(), key: Key::None }
}

/// The view and the records of the scene's nodes and triangles.
pub fn view(file: &BsxFile, bytes: &[u8], decoded_len: usize, container_len: Option<usize>) -> (InspectorView, Records) {
    let mut rows: Vec<Pending> = Vec::new();
    let title = if file.bcx.is_some() { "BCX header" } else { "BSX header" };
    let mut header = row(0, 8, "header", title.into(), format!("size_file {}, offset_models {:#x}", file.size_file, file.offset_models));
    header.fields = fields(0, &FILE_HEADER, [file.size_file.to_string(), format!("{:#x}", file.offset_models)]);
    rows.push(header);
    // Part data blocks, once each, with what uses them.
    for (&at, d) in &file.parts {
        let users: Vec<String> = file.models.iter().enumerate().flat_map(|(k, m)| m.parts.iter().enumerate().filter(move |(_, p)| p.block == at).map(move |(j, _)| format!("model {k} part {j}"))).collect();
        rows.push(row(at, d.end, "part data", format!("part data · {}", users.join(", ")), format!("{} vertices, {} polygons, {} flags, {} texcoords", d.vertices.len(), d.polygons.len(), d.flags.len(), d.texcoords.len())));
        let va = d.vertices_at;
        let mut v = row(va, va + 8 * d.vertices.len(), "vertices", format!("{} vertices", d.vertices.len()), "s16 x, y, z, pad".into());
        v.fields = d.vertices.iter().enumerate().map(|(k, p)| (va + 8 * k, 8, format!("vertex {k}"), format!("({}, {}, {})", p[0], p[1], p[2]))).collect();
        rows.push(v);
        for kind in PolyKind::ALL {
            let polys: Vec<_> = d.polygons.iter().filter(|p| p.kind == kind).collect();
            let (Some(first), Some(last)) = (polys.first(), polys.last()) else { continue };
            let mut g = row(first.offset, last.offset + kind.size(), "polygons", format!("{} × {}", polys.len(), kind.name()), format!("{} bytes each", kind.size()));
            g.key = Key::Polygons(at, kind);
            g.fields = polys
                .iter()
                .map(|p| {
                    let n = kind.corners();
                    let tc = if kind.textured() { format!(", texcoords {:?}", &p.texcoords[..n]) } else { String::new() };
                    (p.offset, kind.size(), format!("{}-corner polygon", n), format!("vertices {:?}, colour {:?}{tc}", &p.vertices[..n], &p.colors[0][..3]))
                })
                .collect();
            rows.push(g);
        }
        let flags_at = d.flags_at;
        if !d.flags.is_empty() {
            let mut f = row(flags_at, flags_at + 4 * d.flags.len(), "flags", format!("{} texture flag words", d.flags.len()), String::new());
            f.fields = d.flags.iter().enumerate().map(|(k, w)| {
                let t = super::vram::TextureFlag::of(*w);
                (flags_at + 4 * k, 4, format!("flag {k}"), format!("{w:#010x}: type {}, page ({}, {}), CLUT ({}, {}), {:?}", t.kind.bits(), t.key.page_x, t.key.page_y, t.key.clut_x, t.key.clut_y, t.key.depth))
            }).collect();
            rows.push(f);
        }
        if !d.texcoords.is_empty() {
            let tc_at = d.texcoords_at;
            rows.push(row(tc_at, tc_at + 2 * d.texcoords.len(), "texcoords", format!("{} texcoords", d.texcoords.len()), "u8 u, v".into()));
        }
        if !d.control.is_empty() {
            let c_at = d.control_at;
            rows.push(row(c_at, d.end, "control", format!("{} control bytes", d.control.len()), format!("{:02x?}", &d.control[..d.control.len().min(8)])));
        }
    }
    for (&at, d) in &file.anims {
        rows.push(row(at, d.end, "animation data", "animation data".into(), format!("{} bone channels, {} translation, {} static, {} rotation values", d.channels.len(), d.translations.len(), d.statics.len(), d.rotations.len())));
        let ca = d.channels_at;
        let mut c = row(ca, ca + 8 * d.channels.len(), "channels", format!("{} bone channels", d.channels.len()), "mask, rx ry rz, tx ty tz".into());
        c.fields = d.channels.iter().enumerate().map(|(k, ch)| (ca + 8 * k, 8, format!("bone {k}"), format!("mask {:#04x}, rotation {:?}, translation {:?}", ch.mask, ch.rotation, ch.translation))).collect();
        rows.push(c);
    }
    let om = file.offset_models as usize;
    if let Some(h) = &file.bcx {
        let mut r = row(om, om + 36, "character header", "character header".into(), format!("{}, {}, {}", count(h.bones, "bone"), count(h.parts, "part"), count(h.animations, "animation")));
        r.key = Key::Model(0);
        let values = [format!("{:#06x}", h.magic), h.bones.to_string(), h.parts.to_string(), h.animations.to_string(), h.scale.to_string(), h.offset_parts.to_string(), h.offset_anims.to_string(), format!("{:#010x}", h.offset_skeleton)];
        r.fields = fields(h.offset, &BCX_HEADER, values);
        rows.push(r);
    } else {
        let tex = file.textures.as_ref().map_or(bytes.len(), |t| t.offset);
        rows.push(row(om, tex.max(om + 16), "models", format!("models section: {}", count_len(file.models.len(), "model")), String::new()));
        let mut mh = row(om, om + 16, "models header", "models header".into(), format!("{}, texture_pointer {:#x}", count_len(file.models.len(), "model"), file.texture_pointer));
        mh.fields = fields(om, &MODELS_HEADER, [format!("{:#010x}", file.psx_memory), file.models.len().to_string(), format!("{:#x}", file.texture_pointer), file.buffer_size.to_string()]);
        rows.push(mh);
    }
    for (k, m) in file.models.iter().enumerate() {
        if file.bcx.is_none() {
            let character = if m.global_id > 0 { format!(", character {} ({})", m.global_id, super::character_file(m.global_id).unwrap_or("no BCX")) } else { String::new() };
            let mut r = row(m.offset, m.offset + 48, "model", format!("model {k}"), format!("scale {}, {}, {}, {}{character}", m.scale, count_len(m.bones.len(), "bone"), count_len(m.parts.len(), "part"), count_len(m.animations.len(), "animation")));
            r.key = Key::Model(k);
            r.fields = fields(m.offset, &MODEL_RECORD, [m.face_id.to_string(), m.global_id.to_string(), m.scale.to_string(), format!("{:#x}", m.offset_skeleton)]);
            rows.push(r);
        }
        if m.bones.is_empty() && m.parts.is_empty() && m.animations.is_empty() {
            continue;
        }
        rows.push(row(m.skeleton, m.skeleton_end, "skeleton", format!("model {k}: bones, parts, animations"), String::new()));
        if !m.bones.is_empty() {
            let mut b = row(m.skeleton, m.skeleton + 4 * m.bones.len(), "bones", count_len(m.bones.len(), "bone"), "s16 length, s8 parent, u8 has_mesh".into());
            b.fields = m.bones.iter().enumerate().map(|(j, bone)| (bone.offset, 4, format!("bone {j}"), format!("length {}, parent {}, has_mesh {}", bone.length, bone.parent, bone.has_mesh))).collect();
            b.key = Key::Bone(m.bones[0].offset);
            rows.push(b);
        }
        for (j, p) in m.parts.iter().enumerate() {
            let mut r = row(p.header, p.header + 32, "part", format!("part {j} on bone {}", p.bone), format!("{} vertices, {} polygons, data at {:#x}", p.counts.vertices, p.counts.polygons.iter().map(|&n| n as usize).sum::<usize>(), p.block));
            r.key = Key::PartHeader(p.header);
            rows.push(r);
        }
        for (j, a) in m.animations.iter().enumerate() {
            rows.push(row(a.header, a.header + 16, "animation", format!("animation {j}"), format!("{}, {}, data at {:#x}", count(a.frames, "frame"), count(a.bones, "bone"), a.block)));
        }
    }
    if let Some(t) = &file.textures {
        rows.push(row(t.offset, bytes.len(), "textures", format!("texture section: {} rectangles", t.rects.len()), format!("size {}", t.size)));
        rows.push(row(t.offset, t.offset + 8 + 12 * t.rects.len(), "texture header", "texture header and entries".into(), String::new()));
        for (k, r) in t.rects.iter().enumerate() {
            rows.push(row(r.data, r.data + 2 * r.width as usize * r.height as usize, "vram", format!("rectangle {k}: {}×{} at ({}, {})", r.width, r.height, r.x, r.y), if r.height == 1 { "a CLUT (palette)".into() } else { "texel indices".into() }));
        }
    }
    tree(rows, bytes.len(), decoded_len, container_len)
}

/// A fixed layout's fields at `base`, with the values the reader read from them.
pub(super) fn fields<const N: usize>(base: usize, layout: &[FieldAt; N], values: [String; N]) -> Vec<(usize, usize, String, String)> {
    layout.iter().zip(values).map(|(&(at, len, name), value)| (base + at, len, name.to_string(), value)).collect()
}

/// Place rows in file order, each under the nearest row that holds it.
pub(super) fn tree(mut pending: Vec<Pending>, file_len: usize, decoded_len: usize, container_len: Option<usize>) -> (InspectorView, Records) {
    pending.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    pending.dedup_by(|b, a| a.start == b.start && a.end == b.end && a.name == b.name);
    let mut view = InspectorView::flat("bsx", decoded_len, ByteClass::Unclaimed);
    view.rows_total = pending.len();
    let mut records = Records::default();
    let mut open: Vec<(u32, usize)> = Vec::new();
    let mut spans: Vec<(usize, usize, ByteClass)> = Vec::new();
    // Rows read whole, with no field of their own.
    let mut bare: Vec<bool> = Vec::new();
    for p in pending.into_iter().take(MAX_ROWS) {
        while open.last().is_some_and(|&(_, end)| p.start >= end || p.end > end) {
            open.pop();
        }
        let index = view.chunks.len() as u32;
        let parent = open.last().map(|&(i, _)| i);
        match p.key {
            Key::Polygons(at, kind) => {
                records.polygons.insert((at, kind), index);
            }
            Key::Model(_) => records.models.push(index),
            Key::Bone(at) => {
                records.bones.insert(at, index);
            }
            Key::PartHeader(at) => {
                records.parts.insert(at, index);
            }
            Key::None => {}
        }
        bare.push(p.fields.is_empty());
        for (offset, len, what, value) in p.fields {
            spans.push((offset, offset + len, ByteClass::Decoded));
            view.fields.push(Field { chunk: index, offset, len, what, value });
        }
        view.chunks.push(Row {
            index,
            offset: p.start,
            payload_offset: p.start,
            end: p.end,
            depth: open.len() as u16,
            parent,
            container: false,
            name: p.name,
            label: p.label,
            detail: format!("bytes {}–{}", p.start, p.end),
            summary: p.summary,
            flags: Vec::new(),
        });
        open.push((index, p.end));
    }
    // Rows that hold others are containers: their own bytes are what the children leave.
    let parents: Vec<u32> = view.chunks.iter().filter_map(|r| r.parent).collect();
    for p in parents {
        view.chunks[p as usize].container = true;
    }
    // A leaf read whole is decoded; a container's bytes are its children's.
    for (r, &b) in view.chunks.iter().zip(&bare) {
        if b && !r.container {
            spans.push((r.offset, r.end, ByteClass::Decoded));
        }
    }
    view.fields.sort_by_key(|f| f.offset);
    view.runs = runs_from_spans(file_len, spans);
    view.coverage = crate::inspect::coverage_of(&view.runs);
    view.views = vec![ByteView { label: if container_len.is_some() { "decompressed".into() } else { "file".into() }, len: decoded_len }];
    if let Some(n) = container_len {
        view.views.push(ByteView { label: "container".into(), len: n });
    }
    (view, records)
}
