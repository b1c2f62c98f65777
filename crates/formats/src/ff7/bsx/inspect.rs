//! The inspector's view of a BSX: every structure the reader read as a row with its byte
//! range, nested as the file nests them (header, part data blocks with each polygon a record,
//! animation data blocks with their frame tables, the models section with each model's bones,
//! part headers and animation headers, the texture section), the values as fields, and the
//! records the scene points at. Every byte of a well-formed file is some record's.

use super::raw::{
    Animation, AnimationData, BsxFile, FieldAt, Part, PartData, PolyKind, Polygon, AMBIENT,
    ANIMATION_HEADER, BCX_HEADER, FILE_HEADER, LIGHT_AT, LIGHT_COLOUR, MODELS_HEADER, MODEL_RECORD,
    PART_HEADER, RANGE_AT, RECORD_UNKNOWN,
};
use crate::inspect::ff7::{CornerColour, PolygonRecord};
use crate::inspect::InspectorView;
use crate::records;
use crate::words::{count, count_len};
use std::collections::{BTreeSet, HashMap};

/// Inspector rows the describe stage goes back to: each polygon's (to show its lit colours),
/// and the animation rows made for a playable character's skeleton.
#[derive(Debug, Default, Clone)]
pub struct Records {
    /// The row of each polygon, by its offset.
    pub polygon_rows: HashMap<usize, u32>,
    /// Animation data rows made for a playable character's skeleton, with its global id.
    pub character_animations: Vec<(u32, u8)>,
}

/// A BSX row before it is placed in the tree, with what the scene keeps of its index.
pub(crate) type Pending = records::Pending<Key>;

/// What the describe stage keeps of a row's index.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Polygon(usize),
    CharacterAnimation(u8),
}

pub(crate) use records::row;

/// A polygon's fields: its vertex indices, colour words and texcoord indices, and the pads.
fn polygon_fields(p: &Polygon, corners: &[CornerColour]) -> Vec<(usize, usize, String, String)> {
    let (n, at) = (p.kind.corners(), p.offset);
    let mut fields = vec![(
        at,
        n,
        format!("u8 × {n} vertex indices"),
        format!("{:?}", &p.vertices[..n]),
    )];
    if n == 3 {
        fields.push((at + 3, 1, "u8 pad".into(), "0".into()));
    }
    let (col, tc) = p.kind.layout();
    for (j, c) in corners.iter().enumerate() {
        fields.push((
            at + col + 4 * j,
            4,
            format!("colour {j}: u8 R, G, B, normal index"),
            format!(
                "({}, {}, {}), normal {}",
                c.stored[0], c.stored[1], c.stored[2], c.normal
            ),
        ));
    }
    if let Some(tc) = tc {
        fields.push((
            at + tc,
            n,
            format!("u8 × {n} texcoord indices"),
            format!("{:?}", &p.texcoords[..n]),
        ));
        if n == 3 {
            fields.push((
                at + tc + 3,
                1,
                "u8 (not used: junk in the samples)".into(),
                String::new(),
            ));
        }
    }
    fields
}

/// A polygon's record: its fields (vertex and texcoord indices, pads, colour words) and what
/// the `polygon` key of `relicview inspect --json` says of it.
fn polygon_row(p: &Polygon, index: usize, owners: &[[u32; 2]]) -> Pending {
    let kind = p.kind;
    let (n, at) = (kind.corners(), p.offset);
    let words = if kind.gouraud() { n } else { 1 };
    let corners: Vec<CornerColour> = p.colors[..words]
        .iter()
        .map(|c| CornerColour {
            stored: [c[0], c[1], c[2]],
            normal: c[3],
            lit: None,
        })
        .collect();
    let summary = format!(
        "vertices {:?} · {}",
        &p.vertices[..n],
        corners
            .iter()
            .map(|c| format!(
                "({}, {}, {}) n{}",
                c.stored[0], c.stored[1], c.stored[2], c.normal
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let [start, end] = p.bytes();
    let mut r = row(
        start,
        end,
        "polygon",
        format!("{} {index}", kind.word()),
        summary,
    );
    r.fields = polygon_fields(p, &corners);
    let [model, part] = owners.first().copied().unwrap_or([0, 0]);
    r.ff7_polygon = Some(Box::new(PolygonRecord {
        model,
        part,
        owners: owners.to_vec(),
        kind: kind.word(),
        index: index as u32,
        corners,
    }));
    r.key = Some(Key::Polygon(at));
    r
}

/// A part data block: its leading word, the vertices, each kind's polygons (each a record),
/// the flag words, texcoords and control bytes.
fn part_data_rows(rows: &mut Vec<Pending>, at: usize, d: &PartData, owners: &[[u32; 2]]) {
    let users: Vec<String> = owners
        .iter()
        .map(|[m, p]| format!("model {m} part {p}"))
        .collect();
    let users = if users.is_empty() {
        "a character's part".to_string()
    } else {
        users.join(", ")
    };
    rows.push(row(
        at,
        d.end,
        "part data",
        format!("part data · {users}"),
        format!(
            "{} vertices, {} polygons, {} flags, {} texcoords",
            d.vertices.len(),
            d.polygons.len(),
            d.flags.len(),
            d.texcoords.len()
        ),
    ));
    let mut flag = row(at, at + 4, "flag", "u32 flag".into(), String::new());
    flag.fields.push((
        at,
        4,
        "u32 (0 in files: the engine marks scaled vertices)".into(),
        d.vertex_flag.to_string(),
    ));
    rows.push(flag);
    rows.push(vertices_row(d));
    polygon_group_rows(rows, d, owners);
    if !d.flags.is_empty() {
        rows.push(texture_flags_row(d));
    }
    if !d.texcoords.is_empty() {
        let tc_at = d.texcoords_at;
        rows.push(row(
            tc_at,
            tc_at + 2 * d.texcoords.len(),
            "texcoords",
            format!("{} texcoords", d.texcoords.len()),
            "u8 u, v".into(),
        ));
    }
    if !d.control.is_empty() {
        let c_at = d.control_at;
        rows.push(row(
            c_at,
            d.end,
            "control",
            format!("{} control bytes", d.control.len()),
            format!("{:02x?}", &d.control[..d.control.len().min(8)]),
        ));
    }
}

/// A part data block's vertices, each a field.
fn vertices_row(d: &PartData) -> Pending {
    let va = d.vertices_at;
    let mut v = row(
        va,
        va + 8 * d.vertices.len(),
        "vertices",
        format!("{} vertices", d.vertices.len()),
        "s16 x, y, z, pad".into(),
    );
    v.fields = d
        .vertices
        .iter()
        .enumerate()
        .map(|(k, p)| {
            (
                va + 8 * k,
                8,
                format!("vertex {k}"),
                format!("({}, {}, {})", p[0], p[1], p[2]),
            )
        })
        .collect();
    v
}

/// Each polygon kind of a part data block: a group row, and a row for each polygon.
fn polygon_group_rows(rows: &mut Vec<Pending>, d: &PartData, owners: &[[u32; 2]]) {
    for kind in PolyKind::ALL {
        let polys: Vec<&Polygon> = d.polygons.iter().filter(|p| p.kind == kind).collect();
        let (Some(first), Some(last)) = (polys.first(), polys.last()) else {
            continue;
        };
        rows.push(row(
            first.offset,
            last.offset + kind.size(),
            kind.word(),
            format!("{} × {}", polys.len(), kind.name()),
            format!("{} bytes each", kind.size()),
        ));
        for (k, p) in polys.iter().enumerate() {
            rows.push(polygon_row(p, k, owners));
        }
    }
}

/// A part data block's texture flag words, each a field saying its page, CLUT and depth.
fn texture_flags_row(d: &PartData) -> Pending {
    let flags_at = d.flags_at;
    let mut f = row(
        flags_at,
        flags_at + 4 * d.flags.len(),
        "flags",
        format!("{} texture flag words", d.flags.len()),
        String::new(),
    );
    f.fields = d
        .flags
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let t = super::vram::TextureFlag::of(*w);
            (
                flags_at + 4 * k,
                4,
                format!("flag {k}"),
                format!(
                    "{w:#010x}: type {}, page ({}, {}), CLUT ({}, {}), {:?}",
                    t.kind.bits(),
                    t.key.page_x,
                    t.key.page_y,
                    t.key.clut_x,
                    t.key.clut_y,
                    t.key.depth
                ),
            )
        })
        .collect();
    f
}

/// An animation data block: its leading word, the bone channels and the three frame tables.
fn animation_rows(
    rows: &mut Vec<Pending>,
    at: usize,
    d: &AnimationData,
    header: Option<&Animation>,
    label: String,
    character: Option<u8>,
) {
    let mut top = row(
        at,
        d.end,
        "animation data",
        label,
        format!(
            "{} bone channels, {} translation, {} static, {} rotation values",
            d.channels.len(),
            d.translations.len(),
            d.statics.len(),
            d.rotations.len()
        ),
    );
    if let Some(g) = character {
        top.key = Some(Key::CharacterAnimation(g));
    }
    rows.push(top);
    let mut flag = row(at, at + 4, "flag", "u32 flag".into(), String::new());
    flag.fields.push((
        at,
        4,
        "u32 (0 in files: the engine marks scaled translations)".into(),
        d.flag.to_string(),
    ));
    rows.push(flag);
    let ca = d.channels_at;
    let mut c = row(
        ca,
        ca + 8 * d.channels.len(),
        "channels",
        format!("{} bone channels", d.channels.len()),
        "mask, rx ry rz, tx ty tz, pad".into(),
    );
    c.fields = d
        .channels
        .iter()
        .enumerate()
        .map(|(k, ch)| {
            (
                ca + 8 * k,
                8,
                format!("bone {k}"),
                format!(
                    "mask {:#04x}, rotation {:?}, translation {:?}: {}",
                    ch.mask,
                    ch.rotation,
                    ch.translation,
                    plays(ch, d)
                ),
            )
        })
        .collect();
    rows.push(c);
    // The tables are listed where the block was read (`d`): a block several animations share
    // was read once, by the first header that names it, which need not be `header`.
    if let Some(a) = header {
        frame_table_rows(rows, d, a);
    }
}

/// An animation data block's frame tables: animated translations, static translations and
/// animated rotations, as header `a` counts them.
fn frame_table_rows(rows: &mut Vec<Pending>, d: &AnimationData, a: &Animation) {
    let frames = a.frames as usize;
    if !d.translations.is_empty() && frames > 0 {
        rows.push(translation_frames_row(d, a));
    }
    if !d.statics.is_empty() {
        let s_at = d.statics_at;
        let mut st = row(
            s_at,
            s_at + 2 * d.statics.len(),
            "static translations",
            format!("{} static translations", d.statics.len()),
            "s16 each".into(),
        );
        st.fields = d
            .statics
            .iter()
            .enumerate()
            .map(|(k, v)| (s_at + 2 * k, 2, format!("s16 static {k}"), v.to_string()))
            .collect();
        rows.push(st);
    }
    if !d.rotations.is_empty() && frames > 0 {
        rows.push(rotation_frames_row(d, a));
    }
}

/// The first eight of `values`, and an ellipsis where there are more.
fn first_values(values: impl Iterator<Item = String>) -> String {
    let shown: Vec<String> = values.take(9).collect();
    if shown.len() > 8 {
        format!("{}, …", shown[..8].join(", "))
    } else {
        shown.join(", ")
    }
}

/// The animated translations' row: a field per translation, its value in each frame.
fn translation_frames_row(d: &AnimationData, a: &Animation) -> Pending {
    let frames = a.frames as usize;
    let t_at = d.translations_at;
    let mut t = row(
        t_at,
        t_at + 2 * d.translations.len(),
        "translation frames",
        format!(
            "{} animated translations × {}",
            a.n_trans,
            count(a.frames, "frame")
        ),
        "s16 per frame".into(),
    );
    t.fields = d
        .translations
        .chunks(frames)
        .enumerate()
        .map(|(k, v)| {
            (
                t_at + 2 * frames * k,
                2 * v.len(),
                format!("s16 × {} translation {k}", v.len()),
                first_values(v.iter().map(i16::to_string)),
            )
        })
        .collect();
    t
}

/// The animated rotations' row: a field per rotation, its angle in each frame.
fn rotation_frames_row(d: &AnimationData, a: &Animation) -> Pending {
    let frames = a.frames as usize;
    let r_at = d.rotations_at;
    let mut r = row(
        r_at,
        r_at + d.rotations.len(),
        "rotation frames",
        format!(
            "{} animated rotations × {}",
            a.n_rot,
            count(a.frames, "frame")
        ),
        "u8 per frame, 256 a turn".into(),
    );
    r.fields = d
        .rotations
        .chunks(frames)
        .enumerate()
        .map(|(k, v)| {
            (
                r_at + frames * k,
                v.len(),
                format!("u8 × {} rotation {k}", v.len()),
                first_values(
                    v.iter()
                        .map(|&x| format!("{:.1}°", x as f64 * 360.0 / 256.0)),
                ),
            )
        })
        .collect();
    r
}

/// What a bone channel plays, axis by axis (docs/formats/bsx.md, "Clips"): an animated
/// axis names its row of frames, a fixed rotation is its angle, a fixed translation the
/// clip's static value it names (or 0, for 0xFF).
fn plays(ch: &super::raw::Channel, d: &AnimationData) -> String {
    let rotation = (0..3).map(|axis| {
        if ch.mask >> axis & 1 == 1 {
            format!("rotation frames {}", ch.rotation[axis])
        } else {
            format!("{:.1}°", ch.rotation[axis] as f64 * 360.0 / 256.0)
        }
    });
    let translation = (0..3).map(|axis| match ch.translation[axis] {
        t if ch.mask >> (axis + 4) & 1 == 1 => format!("translation frames {t}"),
        0xFF => "0".to_string(),
        t => d.statics.get(t as usize).map_or_else(
            || format!("static {t} (not in the file)"),
            |v| format!("{v} (static {t})"),
        ),
    });
    format!(
        "rotation ({}), translation ({})",
        rotation.collect::<Vec<_>>().join(", "),
        translation.collect::<Vec<_>>().join(", ")
    )
}

/// A model record's every byte as a field.
fn record_fields(m: &super::raw::ModelRecord) -> Vec<(usize, usize, String, String)> {
    let at = m.offset;
    let mut f = fields(
        at,
        &MODEL_RECORD,
        [
            m.face_id.to_string(),
            m.global_id.to_string(),
            m.scale.to_string(),
            format!("{:#x}", m.offset_skeleton),
        ],
    );
    f.push((
        at + AMBIENT,
        3,
        "u8 × 3 ambient colour (R, G, B)".into(),
        format!("{:?}", m.ambient),
    ));
    f.push((
        at + RECORD_UNKNOWN,
        1,
        "u8 (not known; 0 in the samples)".into(),
        String::new(),
    ));
    for (k, (&l, light)) in LIGHT_AT.iter().zip(&m.lights).enumerate() {
        f.push((
            at + l,
            6,
            format!("s16 × 3 light {} direction (4.12)", k + 1),
            format!("{:?}", light.direction),
        ));
        f.push((
            at + l + LIGHT_COLOUR,
            3,
            format!("u8 × 3 light {} colour (R, G, B)", k + 1),
            format!("{:?}", light.color),
        ));
    }
    for ((&(r, n), what), rg) in RANGE_AT.iter().zip(["bones", "parts", "animations"]).zip([
        m.bones_range,
        m.parts_range,
        m.anims_range,
    ]) {
        f.push((
            at + r,
            2,
            format!("u8 × 2 {what} range (start, end)"),
            format!("{}, {}", rg.start, rg.end),
        ));
        f.push((at + n, 1, format!("u8 num_{what}"), rg.count.to_string()));
    }
    f
}

fn part_header_fields(p: &Part) -> Vec<(usize, usize, String, String)> {
    let c = &p.counts;
    let mut values = vec![
        p.lighting.to_string(),
        p.bone.to_string(),
        c.vertices.to_string(),
        c.texcoords.to_string(),
    ];
    values.extend(c.polygons.iter().map(u8::to_string));
    values.extend([c.flags, c.control].map(|n| n.to_string()));
    values.extend(
        [
            p.offset_poly,
            p.offset_texcoord,
            p.offset_flags,
            p.offset_control,
            p.buffer_size,
        ]
        .map(|n| n.to_string()),
    );
    values.extend([format!("{:#x}", p.block), p.offset_prec.to_string()]);
    fields(
        p.header,
        &PART_HEADER,
        values.try_into().expect("a value per field"),
    )
}

fn animation_header_fields(a: &Animation) -> Vec<(usize, usize, String, String)> {
    let n = |v: u16| v.to_string();
    let values = [
        n(a.frames),
        n(a.bones.into()),
        n(a.n_trans.into()),
        n(a.n_static.into()),
        n(a.n_rot.into()),
        n(a.off_trans),
        n(a.off_static),
        n(a.off_rot),
        format!("{:#x}", a.block),
    ];
    fields(a.header, &ANIMATION_HEADER, values)
}

/// The bytes up to the next 4-byte boundary after a block, where nothing else starts.
fn padding(rows: &mut Vec<Pending>, bytes: &[u8], starts: &BTreeSet<usize>, end: usize) {
    let next = end.div_ceil(4) * 4;
    if next > end && next <= bytes.len() && starts.range(end..next).next().is_none() {
        let pad = &bytes[end..next];
        let mut r = row(
            end,
            next,
            "padding",
            format!("{} of padding to 4 bytes", count_len(pad.len(), "byte")),
            String::new(),
        );
        r.fields
            .push((end, pad.len(), "padding".into(), format!("{pad:02x?}")));
        rows.push(r);
    }
}

/// The view and the records of the scene's nodes and triangles.
pub fn view(
    file: &BsxFile,
    bytes: &[u8],
    decoded_len: usize,
    container_len: Option<usize>,
) -> (InspectorView, Records) {
    let mut rows: Vec<Pending> = vec![header_row(file)];
    let starts = block_starts(file);
    part_data_section(&mut rows, file, bytes, &starts);
    animation_data_section(&mut rows, file, bytes, &starts);
    models_header_rows(&mut rows, file, bytes);
    for (k, m) in file.models.iter().enumerate() {
        model_rows(&mut rows, file, k, m);
    }
    if let Some(t) = &file.textures {
        texture_rows(&mut rows, t, bytes, &starts);
    }
    let (mut view, records) = tree(rows, bytes.len(), decoded_len, container_len);
    view.format = if file.bcx.is_some() {
        super::BCX
    } else {
        super::BSX
    }
    .as_str();
    (view, records)
}

/// The file's header.
fn header_row(file: &BsxFile) -> Pending {
    let title = if file.bcx.is_some() {
        "BCX header"
    } else {
        "BSX header"
    };
    let mut header = row(
        0,
        8,
        "header",
        title.into(),
        format!(
            "size_file {}, offset_models {:#x}",
            file.size_file, file.offset_models
        ),
    );
    header.fields = fields(
        0,
        &FILE_HEADER,
        [
            file.size_file.to_string(),
            format!("{:#x}", file.offset_models),
        ],
    );
    header
}

/// Where blocks and sections start: no padding runs into one.
fn block_starts(file: &BsxFile) -> BTreeSet<usize> {
    let mut starts: BTreeSet<usize> = file
        .parts
        .keys()
        .chain(file.anims.keys())
        .copied()
        .collect();
    starts.insert(file.offset_models as usize);
    starts.extend(
        file.textures
            .iter()
            .flat_map(|t| std::iter::once(t.offset).chain(t.rects.iter().map(|r| r.data))),
    );
    starts
}

/// Each part data block, with every (model, part) that draws it.
fn part_data_section(
    rows: &mut Vec<Pending>,
    file: &BsxFile,
    bytes: &[u8],
    starts: &BTreeSet<usize>,
) {
    // Every (model, part) that draws each part data block, in record order: the first lit it.
    let mut owners: HashMap<usize, Vec<[u32; 2]>> = HashMap::new();
    for (k, m) in file.models.iter().enumerate() {
        for (j, p) in m.parts.iter().enumerate() {
            owners
                .entry(p.block)
                .or_default()
                .push([k as u32, j as u32]);
        }
    }
    for (&at, d) in &file.parts {
        part_data_rows(rows, at, d, owners.get(&at).map_or(&[], Vec::as_slice));
        padding(rows, bytes, starts, d.end);
    }
}

/// Each animation data block, with the (model, animation) slots that play it.
fn animation_data_section(
    rows: &mut Vec<Pending>,
    file: &BsxFile,
    bytes: &[u8],
    starts: &BTreeSet<usize>,
) {
    // Each animation data block with the (model, animation) slots that play it.
    let mut players: HashMap<usize, Vec<(usize, usize, &Animation)>> = HashMap::new();
    for (k, m) in file.models.iter().enumerate() {
        for (j, a) in m.animations.iter().enumerate() {
            players.entry(a.block).or_default().push((k, j, a));
        }
    }
    for (&at, d) in &file.anims {
        let users = players.get(&at).map_or(&[][..], Vec::as_slice);
        // A character's record numbers its animations after its BCX's (from its start index).
        let names: Vec<String> = users
            .iter()
            .map(|&(k, j, _)| {
                format!(
                    "animation {} of model {k}",
                    file.models[k].anims_range.start as usize
                        * usize::from(file.models[k].global_id != 0)
                        + j
                )
            })
            .collect();
        let character = users
            .iter()
            .map(|&(k, _, _)| file.models[k].global_id)
            .find(|&g| super::character_file(g).is_some());
        let skeleton = character
            .and_then(super::character_file)
            .map_or(String::new(), |bcx| format!(", for {bcx}'s skeleton"));
        animation_rows(
            rows,
            at,
            d,
            users.first().map(|u| u.2),
            format!(
                "{}{skeleton}",
                if names.is_empty() {
                    "animation data".into()
                } else {
                    names.join(", ")
                }
            ),
            character,
        );
        padding(rows, bytes, starts, d.end);
    }
}

/// A BCX's character header, or a BSX's models section and its header.
fn models_header_rows(rows: &mut Vec<Pending>, file: &BsxFile, bytes: &[u8]) {
    let om = file.offset_models as usize;
    if let Some(h) = &file.bcx {
        rows.push(character_header_row(h));
    } else if om + 16 <= bytes.len() {
        // (A file cut before its models section has none to show.)
        let tex = file.textures.as_ref().map_or(bytes.len(), |t| t.offset);
        rows.push(row(
            om,
            tex.max(om + 16),
            "models",
            format!("models section: {}", count_len(file.models.len(), "model")),
            String::new(),
        ));
        let mut mh = row(
            om,
            om + 16,
            "models header",
            "models header".into(),
            format!(
                "{}, texture_pointer {:#x}",
                count_len(file.models.len(), "model"),
                file.texture_pointer
            ),
        );
        mh.fields = fields(
            om,
            &MODELS_HEADER,
            [
                format!("{:#010x}", file.psx_memory),
                file.models.len().to_string(),
                format!("{:#x}", file.texture_pointer),
                file.buffer_size.to_string(),
            ],
        );
        rows.push(mh);
    }
}

/// Model `k`'s record (in a BSX), its skeleton, bones, parts and animations.
fn model_rows(rows: &mut Vec<Pending>, file: &BsxFile, k: usize, m: &super::raw::ModelRecord) {
    if file.bcx.is_none() {
        rows.push(model_record_row(k, m));
    }
    if m.bones.is_empty() && m.parts.is_empty() && m.animations.is_empty() {
        return;
    }
    rows.push(row(
        m.skeleton,
        m.skeleton_end,
        "skeleton",
        format!("model {k}: bones, parts, animations"),
        String::new(),
    ));
    if !m.bones.is_empty() {
        rows.push(bones_row(m));
    }
    for (j, p) in m.parts.iter().enumerate() {
        let [start, end] = p.header_bytes();
        let mut r = row(
            start,
            end,
            "part",
            format!("part {j} on bone {}", p.bone),
            format!(
                "{} vertices, {} polygons, data at {:#x}",
                p.counts.vertices,
                p.counts.polygons.iter().map(|&n| n as usize).sum::<usize>(),
                p.block
            ),
        );
        r.fields = part_header_fields(p);
        rows.push(r);
    }
    for (j, a) in m.animations.iter().enumerate() {
        let mut r = row(
            a.header,
            a.header + 16,
            "animation",
            format!("animation {j}"),
            format!(
                "{}, {}, data at {:#x}",
                count(a.frames, "frame"),
                count(a.bones, "bone"),
                a.block
            ),
        );
        r.fields = animation_header_fields(a);
        rows.push(r);
    }
}

/// The texture section: its header and entries, and each rectangle's VRAM data.
fn texture_rows(
    rows: &mut Vec<Pending>,
    t: &super::raw::TextureSection,
    bytes: &[u8],
    starts: &BTreeSet<usize>,
) {
    rows.push(row(
        t.offset,
        bytes.len(),
        "textures",
        format!("texture section: {} rectangles", t.rects.len()),
        format!("size {}", t.size),
    ));
    rows.push(texture_header_row(t));
    if t.rects.is_empty() {
        // An empty section is 20 bytes: 12 after the header that no source explains.
        let (from, to) = (t.offset + 8, (t.offset + t.size as usize).min(bytes.len()));
        if to > from {
            let mut rest = row(
                from,
                to,
                "unexplained",
                format!(
                    "{} after an empty section's header (not known)",
                    count_len(to - from, "byte")
                ),
                String::new(),
            );
            rest.opaque = true;
            rows.push(rest);
        }
    }
    for (k, r) in t.rects.iter().enumerate() {
        let end = r.data + 2 * r.width as usize * r.height as usize;
        rows.push(row(
            r.data,
            end,
            "vram",
            format!(
                "rectangle {k}: {}×{} at ({}, {})",
                r.width, r.height, r.x, r.y
            ),
            if r.height == 1 {
                "a CLUT (palette)".into()
            } else {
                "texel indices".into()
            },
        ));
        padding(rows, bytes, starts, end);
    }
}

/// A BCX's character header.
fn character_header_row(h: &super::raw::BcxHeader) -> Pending {
    let [start, end] = h.bytes();
    let mut r = row(
        start,
        end,
        "character header",
        "character header".into(),
        format!(
            "{}, {}, {}",
            count(h.bones, "bone"),
            count(h.parts, "part"),
            count(h.animations, "animation")
        ),
    );
    let values = [
        format!("{:#06x}", h.magic),
        h.bones.to_string(),
        h.parts.to_string(),
        h.animations.to_string(),
        h.scale.to_string(),
        h.offset_parts.to_string(),
        h.offset_anims.to_string(),
        format!("{:#010x}", h.offset_skeleton),
    ];
    r.fields = fields(h.offset, &BCX_HEADER, values);
    r.fields
        .push((h.offset + 5, 17, "u8 × 17 (zero)".into(), String::new()));
    r.fields
        .push((h.offset + 0x20, 4, "u32 (zero)".into(), String::new()));
    r
}

/// A BSX's record of model `k`.
fn model_record_row(k: usize, m: &super::raw::ModelRecord) -> Pending {
    let character = if m.global_id > 0 {
        format!(
            ", character {} ({})",
            m.global_id,
            super::character_file(m.global_id).unwrap_or("no BCX")
        )
    } else {
        String::new()
    };
    let [start, end] = m.bytes();
    let mut r = row(
        start,
        end,
        "model",
        format!("model {k}"),
        format!(
            "scale {}, {}, {}, {}{character}",
            m.scale,
            count_len(m.bones.len(), "bone"),
            count_len(m.parts.len(), "part"),
            count_len(m.animations.len(), "animation")
        ),
    );
    r.fields = record_fields(m);
    r
}

/// A model's bones, one field each (the model has some).
fn bones_row(m: &super::raw::ModelRecord) -> Pending {
    let [start, end] = m.bones_bytes().unwrap_or([m.skeleton; 2]);
    let mut b = row(
        start,
        end,
        "bones",
        count_len(m.bones.len(), "bone"),
        "s16 length, s8 parent, u8 has_mesh".into(),
    );
    b.fields = m
        .bones
        .iter()
        .enumerate()
        .map(|(j, bone)| {
            (
                bone.offset,
                4,
                format!("bone {j}"),
                format!(
                    "length {}, parent {}, has_mesh {}",
                    bone.length, bone.parent, bone.has_mesh
                ),
            )
        })
        .collect();
    b
}

/// The texture section's header and its rectangles' entries.
fn texture_header_row(t: &super::raw::TextureSection) -> Pending {
    let mut h = row(
        t.offset,
        t.offset + 8 + 12 * t.rects.len(),
        "texture header",
        "texture header and entries".into(),
        String::new(),
    );
    h.fields = vec![
        (t.offset, 4, "u32 size_section".into(), t.size.to_string()),
        (
            t.offset + 4,
            1,
            "u8 num_textures".into(),
            t.count.to_string(),
        ),
        (
            t.offset + 5,
            3,
            "u8 × 3 TDB patch offset".into(),
            format!("{:?}", t.patch),
        ),
    ];
    h.fields.extend(t.rects.iter().enumerate().map(|(k, r)| {
        (
            r.entry,
            12,
            format!("rectangle {k}: u16 width, height, x, y, u32 data"),
            format!(
                "{}×{} at ({}, {}), data at {:#x}",
                r.width,
                r.height,
                r.x,
                r.y,
                r.data - t.offset
            ),
        )
    }));
    h
}

/// A fixed layout's fields at `base`, with the values the reader read from them.
pub(super) fn fields<const N: usize>(
    base: usize,
    layout: &[FieldAt; N],
    values: [String; N],
) -> Vec<(usize, usize, String, String)> {
    layout
        .iter()
        .zip(values)
        .map(|(&(at, len, name), value)| (base + at, len, name.to_string(), value))
        .collect()
}

/// The rows in a tree (records::tree), and the rows the scene points at.
pub(crate) fn tree(
    pending: Vec<Pending>,
    file_len: usize,
    decoded_len: usize,
    container_len: Option<usize>,
) -> (InspectorView, Records) {
    let (view, keyed) = records::tree("bsx", pending, file_len, decoded_len, container_len);
    let mut records = Records::default();
    for (index, key) in keyed {
        match key {
            Key::Polygon(at) => {
                records.polygon_rows.insert(at, index);
            }
            Key::CharacterAnimation(g) => records.character_animations.push((index, g)),
        }
    }
    (view, records)
}
