//! FIELD.BIN through the document interface, gzip-compressed as on the disc or unpacked: the
//! tables the field engine reads for models as inspector records (the sine table, each
//! normal, each face's eye and mouth images), the rest of the module as opaque code and data,
//! and the 240 normals drawn as points on a sphere, each picking its record.

use super::field_bin::{
    self, FieldTables, Packing, Table, EYES, MAPS, MODULE_LEN, MOUTHS, NORMALS, SINES,
};
use super::inspect::{row, tree, Pending};
use crate::findings::Diagnostics;
use crate::inspect::{ByteClass, ByteView, InspectorView, TableEntry};
use crate::kind::{Head, Kind, Purpose};
use crate::scene::{Material, Mesh, Node, Primitive, Scene, SourceRun, Transform};
use crate::words::count_len;
use crate::{file_name, Document, InfoRow, ParseError};

/// A file named as the field module, or holding it (unpacked, or as the disc stores it).
/// FIELD.BIN by its size and code, whatever its name.
pub fn by_content(h: &Head) -> bool {
    field_bin::looks_like(h.bytes, h.size)
}
/// Named FIELD.BIN: opened as one, to say what is wrong where it is not.
pub fn by_name(h: &Head) -> bool {
    field_bin::named(file_name(h.path))
}

/// The table other files index by number: FIELD.BIN's normals, by a polygon colour's fourth
/// byte.
pub const NORMAL_TABLE: &str = "normal";

pub struct FieldBinDocument {
    kind: Kind,
    file: Vec<u8>,
    /// The unpacked module, when the file was packed.
    module: Option<Vec<u8>>,
    packing: Option<Packing>,
    pub tables: Option<FieldTables>,
    error: Option<ParseError>,
    diagnostics: Diagnostics,
    inspector: Option<InspectorView>,
}

impl FieldBinDocument {
    /// The module's bytes (unpacked).
    fn module(&self) -> &[u8] {
        self.module.as_deref().unwrap_or(&self.file)
    }
}

pub fn open_field_bin(
    path: &str,
    file: Vec<u8>,
    kind: Kind,
    purpose: Purpose,
) -> Box<dyn Document> {
    let (packing, module, mut error) = match field_bin::unpack(&file) {
        Ok((packing, module)) => (Some(packing), module, None),
        Err(e) => (None, None, Some(e)),
    };
    let bytes = module.as_deref().unwrap_or(&file);
    let tables = match (&error, &packing) {
        (None, Some(_)) => FieldTables::parse(bytes).map_err(|e| error = Some(e)).ok(),
        _ => None,
    };
    let inspector = purpose
        .describes()
        .then(|| view(bytes, file.len(), packing, tables.as_ref(), error.clone()));
    let _ = path;
    Box::new(FieldBinDocument {
        kind,
        file,
        module,
        packing,
        tables,
        error,
        diagnostics: Diagnostics::default(),
        inspector,
    })
}

/// The module's bytes `from..to` that are not one of the tables, kept as they are.
fn unread(from: usize, to: usize) -> Option<Pending> {
    let mut r = row(
        from,
        to,
        "module",
        "the field engine's code and data (not read)".into(),
        count_len(to.checked_sub(from).filter(|&n| n > 0)?, "byte"),
    );
    r.opaque = true;
    Some(r)
}

/// A table's row (a container of its entries' rows, or of its fields) at its offset.
fn table_row(t: &Table, summary: String) -> Pending {
    row(
        t.at,
        t.end(),
        &t.name.replace(' ', "_"),
        format!(
            "{} · RAM {:#010x} · {} × {} bytes",
            t.name,
            t.ram(),
            t.entries,
            t.width
        ),
        summary,
    )
}

fn view(
    module: &[u8],
    stored_len: usize,
    packing: Option<Packing>,
    tables: Option<&FieldTables>,
    error: Option<ParseError>,
) -> InspectorView {
    let packed = matches!(packing, Some(Packing::Gzip { .. }));
    let Some(t) = tables else {
        let mut v = InspectorView::flat("field-bin", module.len(), ByteClass::Unclaimed);
        if packed {
            v.views = packed_views(module.len(), stored_len);
        }
        v.error = error;
        return v;
    };
    let mut rows: Vec<Pending> = Vec::new();
    // The module's bytes around and between the tables: its code and other variables.
    let mut from = 0;
    for table in field_bin::TABLES {
        rows.extend(unread(from, table.at));
        from = table.end();
    }
    rows.extend(unread(from, module.len()));
    map_rows(t, &mut rows);
    rows.push(sine_row(t));
    normal_rows(t, &mut rows);
    face_rows(t, &mut rows);
    let (mut v, _) = tree(
        rows,
        module.len(),
        module.len(),
        packed.then_some(stored_len),
    );
    v.format = "field-bin";
    if packed {
        v.views = packed_views(module.len(), stored_len);
    }
    v
}

/// The byte views of a packed FIELD.BIN: the module unpacked, then the file as stored.
fn packed_views(unpacked: usize, stored: usize) -> Vec<ByteView> {
    vec![
        ByteView {
            label: "unpacked".into(),
            len: unpacked,
        },
        ByteView {
            label: "as stored".into(),
            len: stored,
        },
    ]
}

/// The field table: each map id's .DAT, .MIM and .BSX on the disc.
fn map_rows(t: &FieldTables, rows: &mut Vec<Pending>) {
    rows.push(table_row(
        &MAPS,
        "per map id, u32 sector and u32 size of its .DAT, .MIM and .BSX on the disc".into(),
    ));
    for (id, m) in t.maps.iter().enumerate() {
        let at = MAPS.at + MAPS.width * id;
        let mut r = row(
            at,
            at + MAPS.width,
            "map",
            format!("map {id}"),
            format!(
                "DAT {} bytes, MIM {} bytes, BSX {} bytes",
                m.dat[1], m.mim[1], m.bsx[1]
            ),
        );
        r.fields = [("DAT", m.dat), ("MIM", m.mim), ("BSX", m.bsx)]
            .iter()
            .enumerate()
            .flat_map(|(k, (what, [sector, size]))| {
                [
                    (
                        at + 8 * k,
                        4,
                        format!("u32 {what} sector"),
                        sector.to_string(),
                    ),
                    (
                        at + 8 * k + 4,
                        4,
                        format!("u32 {what} size"),
                        size.to_string(),
                    ),
                ]
            })
            .collect();
        rows.push(r);
    }
}

/// The sine table, an angle a field.
fn sine_row(t: &FieldTables) -> Pending {
    let mut sines = table_row(&SINES, "(sin, cos) in 4.12 per 256th of a turn".into());
    sines.fields = t
        .sines
        .iter()
        .enumerate()
        .map(|(k, [s, c])| {
            (
                SINES.at + 4 * k,
                4,
                format!("angle {k} ({:.2}°)", k as f64 * 360.0 / 256.0),
                format!("sin {s}, cos {c}"),
            )
        })
        .collect();
    sines
}

/// The normal table, a row a normal (the entries polygons name).
fn normal_rows(t: &FieldTables, rows: &mut Vec<Pending>) {
    rows.push(table_row(
        &NORMALS,
        "s16 x, y, z, pad: unit vectors in 4.12".into(),
    ));
    for (k, n) in t.normals.iter().take(NORMALS.entries).enumerate() {
        let at = NORMALS.at + 8 * k;
        let f = n.map(|c| c as f64 / 4096.0);
        let mut r = row(
            at,
            at + 8,
            "normal",
            format!("normal {k}"),
            format!(
                "({}, {}, {}) · ({:.3}, {:.3}, {:.3})",
                n[0], n[1], n[2], f[0], f[1], f[2]
            ),
        );
        r.fields = ["x", "y", "z", "pad"]
            .iter()
            .enumerate()
            .map(|(i, axis)| (at + 2 * i, 2, format!("s16 {axis}"), n[i].to_string()))
            .collect();
        r.entry = Some(TableEntry {
            table: NORMAL_TABLE,
            index: k as u32,
        });
        rows.push(r);
    }
}

/// The eye and mouth tables: per face id, the FIELD.TDB image of each slot.
fn face_rows(t: &FieldTables, rows: &mut Vec<Pending>) {
    for (table, list, slots) in [
        (
            &EYES,
            &t.eyes.iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
            "eye slot",
        ),
        (
            &MOUTHS,
            &t.mouths.iter().map(|r| r.to_vec()).collect::<Vec<_>>(),
            "mouth slot",
        ),
    ] {
        rows.push(table_row(
            table,
            format!("per face id, the FIELD.TDB image of each {slots}"),
        ));
        for (f, images) in list.iter().enumerate() {
            let at = table.at + table.width * f;
            let mut r = row(
                at,
                at + table.width,
                "face",
                format!("face {f}"),
                format!("images {images:?}"),
            );
            r.fields = images
                .iter()
                .enumerate()
                .map(|(slot, i)| {
                    (
                        at + slot,
                        1,
                        format!("u8 {slots} {slot}"),
                        format!("image {i}"),
                    )
                })
                .collect();
            rows.push(r);
        }
    }
}

/// How far from the centre the normals are drawn, and how big each point is.
const SPHERE: f32 = 1.0;
const POINT: f32 = 0.035;

impl Document for FieldBinDocument {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        match (view, &self.module) {
            (0, _) => Some(self.module()),
            (1, Some(_)) => Some(&self.file),
            _ => None,
        }
    }
    fn build_scene(&self, _assets: &dyn crate::Assets) -> crate::Built {
        crate::Built::scene(self.normals_scene())
    }
}

impl crate::Describe for FieldBinDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(FieldBinInfo {
            format: "field-bin",
            kind: self.kind,
            compressed: matches!(self.packing, Some(Packing::Gzip { .. })),
            packing: self.packing,
            bytes: self.file.len(),
            unpacked_bytes: self.module().len(),
            read: self.tables.is_some(),
            normals: self.tables.as_ref().map_or(0, |_| NORMALS.entries),
            faces: self.tables.as_ref().map_or(0, |t| t.eyes.len()),
            error: self.error.as_ref(),
        })
    }
}

/// What `info` says of FIELD.BIN: how it was stored, and where the tables models use are.
#[derive(serde::Serialize)]
struct FieldBinInfo<'a> {
    format: &'static str,
    #[serde(skip)]
    kind: Kind,
    compressed: bool,
    #[serde(skip)]
    packing: Option<Packing>,
    bytes: usize,
    unpacked_bytes: usize,
    /// Whether the tables were read (the counts are 0 when not).
    #[serde(skip)]
    read: bool,
    normals: usize,
    faces: usize,
    #[serde(skip)]
    error: Option<&'a ParseError>,
}

impl crate::Summary for FieldBinInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let (bytes, unpacked) = (self.bytes, self.unpacked_bytes);
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", match self.packing {
                Some(Packing::Gzip { header: true, unknown }) => format!("{bytes} stored: an 8-byte header (u32 {MODULE_LEN} unpacked bytes, u32 {unknown:#x} not known) and a gzip stream · {unpacked} unpacked"),
                Some(Packing::Gzip { header: false, .. }) => format!("{bytes} stored as a gzip stream · {unpacked} unpacked"),
                _ => format!("{bytes} (the unpacked module)"),
            }),
        ];
        if self.read {
            rows.push(InfoRow::new(
                "normals",
                format!(
                    "{} unit vectors at {:#x} (RAM {:#010x}): polygons are lit by them",
                    self.normals,
                    NORMALS.at,
                    NORMALS.ram()
                ),
            ));
            rows.push(InfoRow::new(
                "sine table",
                format!(
                    "{} entries at {:#x}: bone rotations for the lighting",
                    SINES.entries, SINES.at
                ),
            ));
            rows.push(InfoRow::new(
                "faces",
                format!(
                    "{} faces: eye images at {:#x}, mouth images at {:#x}",
                    self.faces, EYES.at, MOUTHS.at
                ),
            ));
        }
        rows.extend(
            self.error
                .iter()
                .map(|e| InfoRow::warning("error", e.to_string())),
        );
        rows
    }
}

impl FieldBinDocument {
    /// The normal table drawn: each normal a small octahedron at its tip.
    fn normals_scene(&self) -> Option<Scene> {
        let t = self.tables.as_ref()?;
        let mut scene = Scene {
            name: "FIELD.BIN normals".into(),
            ..Default::default()
        };
        scene.materials.push(Material {
            name: Some("normals".into()),
            ..Default::default()
        });
        let mut prim = Primitive {
            positions: Vec::new(),
            colors: Some(Vec::new()),
            material: Some(0),
            ..Default::default()
        };
        // Each normal a small octahedron at its tip, coloured by its direction.
        for (k, n) in t.normals.iter().take(NORMALS.entries).enumerate() {
            add_octahedron(&mut prim, k, n);
        }
        let mesh = scene.add_mesh(Mesh {
            name: Some("normals".into()),
            primitives: vec![prim],
        });
        // The console's +Y is down: half a turn about X, as the field models are turned.
        let turn = Transform {
            rotation: glam::Quat::from_rotation_x(std::f32::consts::PI).to_array(),
            ..Default::default()
        };
        scene.add_node(
            None,
            Node {
                name: Some("normals".into()),
                mesh: Some(mesh),
                transform: turn,
                ..Default::default()
            },
        );
        Some(scene)
    }
}

/// Normal `k` (`n`, a 4.12 vector) as a small octahedron at its tip, coloured by its
/// direction, its triangles from the normal's record.
fn add_octahedron(prim: &mut Primitive, k: usize, n: &[i16; 4]) {
    let d = glam::Vec3::new(n[0] as f32, n[1] as f32, n[2] as f32) / 4096.0;
    let centre = d * SPHERE;
    let first = prim.positions.len() as u32;
    let tri = prim.indices.len() as u32 / 3;
    for axis in [
        glam::Vec3::X,
        -glam::Vec3::X,
        glam::Vec3::Y,
        -glam::Vec3::Y,
        glam::Vec3::Z,
        -glam::Vec3::Z,
    ] {
        prim.positions.push((centre + axis * POINT).to_array());
    }
    let colour = d
        .map(|c| ((c * 0.5 + 0.5) * 255.0).clamp(0.0, 255.0))
        .to_array()
        .map(|c| c as u8);
    prim.colors
        .as_mut()
        .expect("made with colours")
        .extend([[colour[0], colour[1], colour[2], 255]; 6]);
    for (a, b) in [(0, 2), (2, 1), (1, 3), (3, 0)] {
        prim.indices.extend([
            first + a,
            first + b,
            first + 4,
            first + b,
            first + a,
            first + 5,
        ]);
    }
    // Its record: the normal's 8 bytes (its inspector row's).
    let at = NORMALS.at + 8 * k;
    prim.sources.push(SourceRun {
        first: tri,
        record: [at, at + 8],
        start: at,
        face_len: 8,
        tris_per_face: 8,
    });
}
