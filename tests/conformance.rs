//! The conformance matrix: DIV-BIZ2 models generated from the format notes (docs/formats/
//! biz2.md, worlds.md), not from the project's writer, across the cross product of
//!
//! - the 14 vertex formats,
//! - 6 ways to give a patch its material (none, untextured, textured, a library that is not
//!   there, a scrolling texture, a back material "same as front"),
//! - 16 structures: 1994 files (patches straight under OBJECT, ids without the 0x2000
//!   namespace bit) and 1996 files (LOD containers, namespaced ids), each with a TRISTRIP, a
//!   POLYGON, a POLYSTRIP, PCONN_LISTs of 3 to 6 points per face, or CONNECTION_LIST and
//!   PCONN_LIST in one PMESH,
//! - 4 contexts: the model alone, placed once by a MAP, placed three times (instanced), and
//!   placed by a map nested in the root map,
//!
//! and every combination is opened, drawn (the scene's shading decision), picked (the ray
//! lands on the triangle the test aimed at, and its bytes are the face the test wrote),
//! exported (glTF invariants) and summarised (`info --json`). Expected numbers come from the
//! notes' formulas, computed here.

use relicview::archive::{self, Archive, ArchiveIndex, MemorySource};
use relicview::scene::{source_of, Scene, Target};
use std::cell::RefCell;

// The chunk emitter and the ids, written from the notes (tests/common/chunks.rs).
#[path = "common/chunks.rs"]
mod chunks;
use chunks::*;

/// A vertex format as the notes' table gives it: id, floats per vertex, and which of
/// normal, rgba, luminance + alpha, uv, uvw it has (in that order after the position).
#[derive(Clone, Copy, Debug)]
struct Format {
    id: u16,
    normal: bool,
    rgba: bool,
    la: bool,
    uv: bool,
    uvw: bool,
}

impl Format {
    fn floats(self) -> usize {
        3 + 3 * self.normal as usize
            + 4 * self.rgba as usize
            + 2 * self.la as usize
            + 2 * self.uv as usize
            + 3 * self.uvw as usize
    }
    fn samples_textures(self) -> bool {
        self.uv || self.uvw
    }
    /// One vertex at (x, y, 0), facing +Z, its UVs from its position.
    fn vertex(self, x: f32, y: f32) -> Vec<f32> {
        let mut v = vec![x, y, 0.0];
        if self.normal {
            v.extend([0.0, 0.0, 1.0]);
        }
        if self.rgba {
            v.extend([0.2, 0.6, 1.0, 1.0]);
        }
        if self.la {
            v.extend([0.8, 1.0]);
        }
        if self.uv {
            v.extend([x * 0.25, y * 0.25]);
        }
        if self.uvw {
            v.extend([x * 0.25, y * 0.25, 0.0]);
        }
        v
    }
}

const fn f(id: u16, normal: bool, rgba: bool, la: bool, uv: bool, uvw: bool) -> Format {
    Format {
        id,
        normal,
        rgba,
        la,
        uv,
        uvw,
    }
}

/// The notes' table of vertex blocks 0x080–0x094, with its float counts.
const FORMATS: [(Format, usize); 14] = [
    (f(0x080, false, false, false, false, false), 3),
    (f(0x081, true, false, false, false, false), 6),
    (f(0x082, false, true, false, false, false), 7),
    (f(0x083, true, true, false, false, false), 10),
    (f(0x084, false, false, true, false, false), 5),
    (f(0x085, true, false, true, false, false), 8),
    (f(0x088, false, false, false, true, false), 5),
    (f(0x089, true, false, false, true, false), 8),
    (f(0x08A, false, true, false, true, false), 9),
    (f(0x08C, false, false, true, true, false), 7),
    (f(0x090, false, false, false, false, true), 6),
    (f(0x091, true, false, false, false, true), 9),
    (f(0x092, false, true, false, false, true), 10),
    (f(0x094, false, false, true, false, true), 8),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mat {
    None,
    Plain,
    Textured,
    MissingLibrary,
    Scroll,
    BackSameAsFront,
}
const MATS: [Mat; 6] = [
    Mat::None,
    Mat::Plain,
    Mat::Textured,
    Mat::MissingLibrary,
    Mat::Scroll,
    Mat::BackSameAsFront,
];

impl Mat {
    fn wants_texture(self) -> bool {
        matches!(self, Mat::Textured | Mat::Scroll | Mat::BackSameAsFront)
    }
    /// The material reference chunks (front, and back where it has one).
    fn refs(self, ns: u16) -> Vec<Chunk> {
        let named = |s: &str| {
            let mut p = vec![1u8];
            p.extend(cstr(s));
            p
        };
        match self {
            Mat::None => vec![],
            Mat::Plain => vec![leaf(SV_F_MATERIAL & ns, named("lib:plain_mtl"))],
            Mat::Textured => vec![leaf(SV_F_MATERIAL & ns, named("lib:tex_mtl"))],
            Mat::MissingLibrary => vec![leaf(SV_F_MATERIAL & ns, named("nolib:gone_mtl"))],
            Mat::Scroll => vec![leaf(SV_F_MATERIAL & ns, named("lib:scroll_mtl"))],
            Mat::BackSameAsFront => vec![
                leaf(SV_F_MATERIAL & ns, named("lib:tex_mtl")),
                leaf(SV_B_MATERIAL & ns, vec![3]),
            ],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Prim {
    Tristrip,
    Polygon,
    Polystrip,
    Pconn(usize),
    ConnAndPconn,
}
const PRIMS: [Prim; 8] = [
    Prim::Tristrip,
    Prim::Polygon,
    Prim::Polystrip,
    Prim::Pconn(3),
    Prim::Pconn(4),
    Prim::Pconn(5),
    Prim::Pconn(6),
    Prim::ConnAndPconn,
];

/// How many faces the PCONN structures have.
const FACES: usize = 3;

/// A regular `n`-gon of radius 1 around (cx, 0): convex, so its fan never overlaps itself.
fn ngon(cx: f32, n: usize) -> Vec<[f32; 2]> {
    (0..n)
        .map(|k| {
            let a = std::f32::consts::TAU * k as f32 / n as f32;
            [cx + a.cos(), a.sin()]
        })
        .collect()
}

/// What the test wrote of a primitive: its vertices and its triangles as the notes
/// triangulate them (vertex numbers), and for each triangle the bytes of its face
/// (label of the chunk, byte offset of the face in the chunk's payload, face length);
/// `None` where the whole record made the triangle (strips and fans).
struct Written {
    chunk: Chunk,
    vertices: Vec<[f32; 2]>,
    triangles: Vec<[usize; 3]>,
    faces: Vec<Option<(String, usize, usize)>>,
}

impl Prim {
    fn triangles_by_formula(self) -> usize {
        match self {
            // Strips and fans: n − 2 for the 6 vertices written.
            Prim::Tristrip | Prim::Polygon | Prim::Polystrip => 6 - 2,
            Prim::Pconn(ppf) => FACES * (ppf - 2),
            // CONN n/3 for its 2 triangles, and 2 quads: 2 · (4 − 2).
            Prim::ConnAndPconn => 2 + 2 * 2,
        }
    }

    fn write(self, fmt: Format, tag: &str) -> Written {
        let block = |vs: &[[f32; 2]]| {
            leaf(
                fmt.id,
                floats(
                    &vs.iter()
                        .flat_map(|&[x, y]| fmt.vertex(x, y))
                        .collect::<Vec<f32>>(),
                ),
            )
        };
        let indices = |v: &[usize]| {
            v.iter()
                .flat_map(|&i| (i as i32).to_le_bytes())
                .collect::<Vec<u8>>()
        };
        let fan = |n: usize, base: usize| {
            (1..n - 1)
                .map(|k| [base, base + k, base + k + 1])
                .collect::<Vec<_>>()
        };
        match self {
            Prim::Tristrip => {
                let vertices: Vec<[f32; 2]> =
                    (0..6).map(|i| [(i / 2) as f32, (i % 2) as f32]).collect();
                let triangles = (0..4)
                    .map(|i| {
                        if i % 2 == 0 {
                            [i, i + 1, i + 2]
                        } else {
                            [i + 1, i, i + 2]
                        }
                    })
                    .collect();
                Written {
                    chunk: labelled(node(TRISTRIP, vec![block(&vertices)]), tag.into()),
                    vertices,
                    triangles,
                    faces: vec![None; 4],
                }
            }
            Prim::Polygon | Prim::Polystrip => {
                let vertices = ngon(0.0, 6);
                let id = if self == Prim::Polygon {
                    POLYGON
                } else {
                    POLYSTRIP
                };
                Written {
                    chunk: labelled(node(id, vec![block(&vertices)]), tag.into()),
                    vertices,
                    triangles: fan(6, 0),
                    faces: vec![None; 4],
                }
            }
            Prim::Pconn(ppf) => {
                let vertices: Vec<[f32; 2]> =
                    (0..FACES).flat_map(|f| ngon(3.0 * f as f32, ppf)).collect();
                let mut payload = vec![ppf as u8];
                payload.extend(indices(&(0..FACES * ppf).collect::<Vec<_>>()));
                let label = format!("{tag}/pconn");
                let triangles: Vec<[usize; 3]> =
                    (0..FACES).flat_map(|f| fan(ppf, f * ppf)).collect();
                let faces = (0..FACES)
                    .flat_map(|f| {
                        std::iter::repeat_n(
                            Some((label.clone(), 1 + f * ppf * 4, ppf * 4)),
                            ppf - 2,
                        )
                    })
                    .collect();
                let mesh = labelled(
                    node(
                        PMESH,
                        vec![block(&vertices), labelled(leaf(PCONN, payload), label)],
                    ),
                    tag.into(),
                );
                Written {
                    chunk: mesh,
                    vertices,
                    triangles,
                    faces,
                }
            }
            Prim::ConnAndPconn => {
                // Two quads by PCONN_LIST (vertices 0–7), then two triangles by
                // CONNECTION_LIST (vertices 8–11): both lists, in file order.
                let mut vertices = ngon(0.0, 4);
                vertices.extend(ngon(3.0, 4));
                vertices.extend([[6.0, -1.0], [8.0, -1.0], [8.0, 1.0], [6.0, 1.0]]);
                let mut pconn = vec![4u8];
                pconn.extend(indices(&(0..8).collect::<Vec<_>>()));
                let conn = indices(&[8, 9, 10, 8, 10, 11]);
                let (lp, lc) = (format!("{tag}/pconn"), format!("{tag}/conn"));
                let mut triangles = fan(4, 0);
                triangles.extend(fan(4, 4));
                triangles.extend([[8, 9, 10], [8, 10, 11]]);
                let faces = vec![
                    Some((lp.clone(), 1, 16)),
                    Some((lp.clone(), 1, 16)),
                    Some((lp.clone(), 17, 16)),
                    Some((lp.clone(), 17, 16)),
                    Some((lc.clone(), 0, 12)),
                    Some((lc.clone(), 12, 12)),
                ];
                let mesh = labelled(
                    node(
                        PMESH,
                        vec![
                            block(&vertices),
                            labelled(leaf(PCONN, pconn), lp),
                            labelled(leaf(CONN, conn), lc),
                        ],
                    ),
                    tag.into(),
                );
                Written {
                    chunk: mesh,
                    vertices,
                    triangles,
                    faces,
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Era {
    /// Patches straight under OBJECT, attribute ids without the namespace bit, the
    /// material on the object (its patches take it).
    Y1994,
    /// OBJECT → LOD (with its distances) → PATCH, namespaced ids, the material on the patch.
    Y1996,
}

struct Model {
    bytes: Vec<u8>,
    offsets: Offsets,
    written: Written,
}

fn model(fmt: Format, mat: Mat, prim: Prim, era: Era) -> Model {
    let Written {
        chunk,
        vertices,
        triangles,
        faces,
    } = prim.write(fmt, "prim");
    let ns = if era == Era::Y1994 { !0x2000 } else { !0 };
    let mut patch = vec![leaf(NAME & ns, cstr("p0"))];
    let mut object = vec![leaf(NAME & ns, cstr("m"))];
    match era {
        Era::Y1994 => object.extend(mat.refs(ns)),
        Era::Y1996 => patch.extend(mat.refs(ns)),
    }
    patch.push(chunk);
    let patch = node(PATCH, patch);
    match era {
        Era::Y1994 => object.push(patch),
        Era::Y1996 => object.push(node(
            LOD,
            vec![leaf(LOD_DISTANCE, floats(&[0.0, 1000.0])), patch],
        )),
    }
    let (bytes, offsets) = file(b"DIV-BIZ2", &[node(HEADER, vec![]), node(OBJECT, object)]);
    Model {
        bytes,
        offsets,
        written: Written {
            chunk: leaf(0, vec![]),
            vertices,
            triangles,
            faces,
        },
    }
}

/// The material library the models name (LIB.BMF) and its texture map.
fn library() -> Vec<u8> {
    let material = |name: &str, texture: Option<&str>| {
        let mut c = vec![
            leaf(NAME, cstr(name)),
            leaf(DIFFUSE, floats(&[0.8, 0.5, 0.25])),
        ];
        if let Some(t) = texture {
            let mut p = vec![2u8];
            p.extend(cstr(t));
            c.push(leaf(MATERIAL_TEXTURE, p));
        }
        node(MATERIAL, c)
    };
    let texture = |name: &str, special: Option<&str>| {
        let mut c = vec![
            leaf(NAME, cstr(name)),
            leaf(TEXTURE_MAP, cstr("c:\\art\\check.tga")),
        ];
        if let Some(s) = special {
            c.push(leaf(SV_SPECIAL, cstr(s)));
        }
        node(TEXTURE, c)
    };
    file(
        b"DIV-BMF2",
        &[
            node(HEADER, vec![leaf(FILETYPE, vec![1])]),
            texture("check_t", None),
            texture("drift_t", Some(" SCROLL 0 0 0.5 0.25 ")),
            material("plain_mtl", None),
            material("tex_mtl", Some("check_t")),
            material("scroll_mtl", Some("drift_t")),
        ],
    )
    .0
}

/// An 8 × 8 uncompressed true-colour TGA (image type 2, 32 bits, top-left origin): a
/// checker of two colours, written from the TGA header's definition.
fn tga() -> Vec<u8> {
    let (w, h) = (8u16, 8u16);
    let mut out = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    out.extend(w.to_le_bytes());
    out.extend(h.to_le_bytes());
    out.extend([32, 0x28]);
    for y in 0..h {
        for x in 0..w {
            out.extend(if (x + y) % 2 == 0 {
                [255, 255, 255, 255]
            } else {
                [40, 40, 200, 255]
            });
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Context {
    Alone,
    Once,
    Thrice,
    Nested,
}
const CONTEXTS: [Context; 4] = [
    Context::Alone,
    Context::Once,
    Context::Thrice,
    Context::Nested,
];

impl Context {
    /// The world positions the model is placed at.
    fn placements(self) -> Vec<[f32; 3]> {
        match self {
            Context::Alone => vec![[0.0; 3]],
            Context::Once => vec![[20.0, 0.0, 0.0]],
            Context::Thrice => vec![[0.0, 0.0, 0.0], [20.0, 0.0, 0.0], [40.0, 0.0, 0.0]],
            // The inner map places the model at (1, 0, 0); the root places the inner map at
            // (0, 5, 0): child · parent composes them.
            Context::Nested => vec![[1.0, 5.0, 0.0]],
        }
    }
    /// The MAP that places model `name` (MOD `name`.MOD), called `map`.
    fn map(self, map: &str, name: &str) -> Option<String> {
        let model = format!("[m]\r\ntype=model\r\nmodelfile={name}.mod\r\n");
        let at = |[x, y, z]: [f32; 3]| format!("instance=m {x} {y} {z} 0 0 0\r\n");
        Some(match self {
            Context::Alone => return None,
            Context::Once | Context::Thrice => format!("{model}[{map}]\r\ntype=map\r\n{}", self.placements().into_iter().map(at).collect::<String>()),
            Context::Nested => format!("{model}[inner]\r\ntype=map\r\ninstance=m 1 0 0 0 0 0\r\n[{map}]\r\ntype=map\r\ninstance=inner 0 5 0 0 0 0\r\n"),
        })
    }
}

struct Combination {
    fmt: Format,
    mat: Mat,
    prim: Prim,
    era: Era,
}

impl Combination {
    fn name(&self) -> String {
        let prim = match self.prim {
            Prim::Tristrip => "TS".to_string(),
            Prim::Polygon => "PG".to_string(),
            Prim::Polystrip => "PS".to_string(),
            Prim::Pconn(n) => format!("P{n}"),
            Prim::ConnAndPconn => "CP".to_string(),
        };
        format!(
            "F{:03X}{}{}{}",
            self.fmt.id,
            MATS.iter().position(|m| *m == self.mat).unwrap(),
            prim,
            if self.era == Era::Y1994 { "A" } else { "B" }
        )
    }
}

fn combinations() -> Vec<Combination> {
    let mut out = Vec::new();
    for (fmt, floats) in FORMATS {
        assert_eq!(
            fmt.floats(),
            floats,
            "the notes' float count of {:#x}",
            fmt.id
        );
        for mat in MATS {
            for prim in PRIMS {
                for era in [Era::Y1994, Era::Y1996] {
                    out.push(Combination {
                        fmt,
                        mat,
                        prim,
                        era,
                    });
                }
            }
        }
    }
    out
}

/// The JSON chunk of a .glb.
fn gltf_json(glb: &[u8]) -> serde_json::Value {
    assert_eq!(&glb[..4], b"glTF");
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

/// What the default glTF scene draws: (triangles, primitives with a base colour texture)
/// and the invariant the Khronos validator checks (a texture implies TEXCOORD_0).
fn gltf_counts(j: &serde_json::Value, name: &str) -> (usize, usize) {
    let scene = j["scene"].as_u64().unwrap() as usize;
    let mut stack: Vec<usize> = j["scenes"][scene]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let (mut triangles, mut textured) = (0, 0);
    while let Some(n) = stack.pop() {
        let node = &j["nodes"][n];
        stack.extend(
            node["children"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_u64().unwrap() as usize),
        );
        let Some(mesh) = node["mesh"].as_u64() else {
            continue;
        };
        for p in j["meshes"][mesh as usize]["primitives"].as_array().unwrap() {
            triangles += j["accessors"][p["indices"].as_u64().unwrap() as usize]["count"]
                .as_u64()
                .unwrap() as usize
                / 3;
            let Some(m) = p["material"].as_u64() else {
                continue;
            };
            if !j["materials"][m as usize]["pbrMetallicRoughness"]["baseColorTexture"].is_null() {
                assert!(
                    p["attributes"]["TEXCOORD_0"].is_u64(),
                    "{name}: a textured material on a primitive without TEXCOORD_0"
                );
                textured += 1;
            }
        }
    }
    (triangles, textured)
}

fn open(archive: &RefCell<Archive>, source: &MemorySource, path: &str) -> archive::Opened {
    pollster::block_on(archive::open_file(archive, source, path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every textured primitive of the scene samples it through UVs, and the scene's choice is
/// the one the notes imply.
fn check_shading(c: &Combination, scene: &Scene, name: &str) {
    let textured_expected = c.mat.wants_texture() && c.fmt.samples_textures();
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        assert_eq!(
            scene.texture_of(p).is_some(),
            textured_expected,
            "{name}: texture of a primitive"
        );
        if scene.texture_of(p).is_some() {
            assert!(p.has_uvs(), "{name}");
        }
        assert_eq!(p.normals.is_some(), c.fmt.normal, "{name}: normals");
    }
    // The colour it is drawn in: white under texels that carry the colour, the material's
    // diffuse where it samples none; vertex colours win over both.
    const DIFFUSE: [f32; 4] = [0.8, 0.5, 0.25, 1.0];
    if !c.fmt.rgba
        && matches!(
            c.mat,
            Mat::Plain | Mat::Textured | Mat::Scroll | Mat::BackSameAsFront
        )
    {
        let sampled = c.mat.wants_texture() && c.fmt.samples_textures();
        for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
            assert_eq!(
                scene.shading(p).base_color,
                if sampled { [1.0; 4] } else { DIFFUSE },
                "{name}: the colour drawn"
            );
        }
    }
    let notes = scene.untextured_notes();
    assert_eq!(
        !notes.is_empty(),
        c.mat.wants_texture() && !c.fmt.samples_textures(),
        "{name}: {notes:?}"
    );
    let drifts = scene
        .clips
        .iter()
        .flat_map(|k| &k.tracks)
        .any(|t| matches!(t.target, Target::UvOffset(_)));
    assert_eq!(drifts, c.mat == Mat::Scroll, "{name}: a scroll clip");
}

/// Open, draw, pick, export and summarise one combination in one context (panics on the
/// first thing that is not as the notes say).
fn check(
    c: &Combination,
    m: &Model,
    ctx: Context,
    k: usize,
    index: &ArchiveIndex,
    source: &MemorySource,
) {
    let formula = c.prim.triangles_by_formula();
    let ctx = &ctx;
    let name = format!("{} {ctx:?}", c.name());
    let path = match ctx {
        Context::Alone => format!("GAME/VIDEO/{}.BGF", c.name()),
        _ => format!("GAME/MAPS/{}{k}.MAP", c.name()),
    };
    // An archive per open, as a fresh page would have.
    let archive = RefCell::new(Archive::new(index.clone()));
    let opened = open(&archive, source, &path);
    let doc = opened.described();
    assert!(doc.error().is_none(), "{name}: {:?}", doc.error());
    let placements = ctx.placements();
    let scene = opened
        .scene
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no scene"));

    // Open and draw: the triangles of the notes' formula at every placement.
    assert_eq!(
        scene.triangle_count(0),
        formula * placements.len(),
        "{name}: triangles"
    );
    check_shading(c, scene, &name);
    assert_eq!(opened.notes, scene.untextured_notes(), "{name}");

    // info --json: the same numbers, and no "error" key on success.
    let info: serde_json::Value = serde_json::from_str(&doc.info_json()).unwrap();
    assert!(info.get("error").is_none(), "{name}: {info}");
    assert_eq!(
        info["triangles"].as_u64(),
        Some((formula * placements.len()) as u64),
        "{name}: {info}"
    );
    if *ctx == Context::Alone {
        assert_eq!(
            info["vertices"].as_u64(),
            Some(m.written.vertices.len() as u64),
            "{name}"
        );
        // Clean, and a library that is not there is said in the info panel.
        assert!(
            doc.diagnostics().is_empty(),
            "{name}: {:?}",
            doc.diagnostics()
        );
        let rows = doc.info_rows();
        let said = rows.iter().any(|r| {
            r.severity == relicview::formats::Severity::Warning && r.label.contains("nolib:")
        });
        assert_eq!(said, c.mat == Mat::MissingLibrary, "{name}: {rows:?}");
    } else {
        assert_eq!(
            info["placements"].as_u64(),
            Some(placements.len() as u64),
            "{name}: {info}"
        );
    }

    // Pick: a ray down onto the middle of the last triangle, at every placement,
    // lands on that triangle; alone, its bytes are the face the test wrote.
    let world = scene.world(&scene.pose(0.0));
    let last = formula - 1;
    let [a, b, cc] = m.written.triangles[last].map(|i| m.written.vertices[i]);
    let mid = [(a[0] + b[0] + cc[0]) / 3.0, (a[1] + b[1] + cc[1]) / 3.0];
    for at in &placements {
        let origin = glam::Vec3::new(mid[0] + at[0], mid[1] + at[1], at[2] + 5.0);
        let hit = scene
            .pick(origin, glam::Vec3::NEG_Z, 0, &[], &world)
            .unwrap_or_else(|| panic!("{name}: nothing under {origin}"));
        assert_eq!(hit.triangle as usize, last, "{name}: picked triangle");
        assert!(
            (hit.distance - 5.0).abs() < 1e-3,
            "{name}: distance {}",
            hit.distance
        );
        if *ctx != Context::Alone {
            continue;
        }
        let prim = &scene.meshes[hit.mesh as usize].primitives[hit.primitive as usize];
        // The scene names its records by their bytes: each is a row of the inspector.
        let view = doc.inspector().expect("shown files have an inspector");
        let rows: Vec<(usize, usize)> = view.chunks.iter().map(|c| (c.offset, c.end)).collect();
        let record = |bytes: relicview::scene::RecordBytes| {
            let row = relicview::scene::row_of(&rows, bytes).expect("a record of the file");
            let r = &view.chunks[row as usize];
            assert_eq!(
                [r.offset, r.end],
                bytes,
                "{name}: a row with the record's bytes"
            );
            r
        };
        let (prim_at, _) = m.offsets.of("prim");
        assert_eq!(
            record(prim.record.expect("a primitive's record")).offset,
            prim_at,
            "{name}: the primitive's chunk"
        );
        let run = source_of(&prim.sources, hit.triangle).expect("every triangle has a source run");
        let r = record(run.record);
        let bytes = run.face_bytes(hit.triangle);
        match &m.written.faces[last] {
            None => assert_eq!(
                bytes,
                (r.offset, r.end),
                "{name}: a strip's triangle is its whole record"
            ),
            Some((label, at, len)) => {
                let (_, payload) = m.offsets.of(label);
                assert_eq!(
                    bytes,
                    (payload + at, payload + at + len),
                    "{name}: the face's bytes"
                );
            }
        }
    }

    // Export: glTF's invariants, the triangles drawn, the textured primitives.
    let glb = relicview::gltf::export_glb(scene, Default::default()).unwrap();
    let (triangles, textured) = gltf_counts(&gltf_json(&glb), &name);
    assert_eq!(
        triangles,
        formula * placements.len(),
        "{name}: exported triangles"
    );
    // One primitive per placement (an instanced mesh is one glTF mesh used thrice).
    let textured_expected = if c.mat.wants_texture() && c.fmt.samples_textures() {
        placements.len()
    } else {
        0
    };
    assert_eq!(
        textured, textured_expected,
        "{name}: exported textured primitives"
    );
}

#[test]
fn every_vertex_format_material_structure_and_context_opens_draws_picks_and_exports() {
    let combos = combinations();
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("GAME/MATERIAL/LIB.BMF".into(), library()),
        ("GAME/TEXTURE/CHECK.TGA".into(), tga()),
    ];
    let mut models = Vec::new();
    for c in &combos {
        let name = c.name();
        let m = model(c.fmt, c.mat, c.prim, c.era);
        files.push((format!("GAME/VIDEO/{name}.BGF"), m.bytes.clone()));
        files.push((
            format!("GAME/MODELS/{name}.MOD"),
            format!("[video]\r\nobject={name}.bgf\r\n").into_bytes(),
        ));
        for (k, ctx) in CONTEXTS.iter().enumerate() {
            if let Some(text) = ctx.map(&format!("{name}{k}"), &name) {
                files.push((format!("GAME/MAPS/{name}{k}.MAP"), text.into_bytes()));
            }
        }
        models.push(m);
    }
    let source = MemorySource::new(files.clone());
    let index = ArchiveIndex::new(files.iter().map(|(p, _)| p.clone()));
    for (c, m) in combos.iter().zip(&models) {
        let formula = c.prim.triangles_by_formula();
        assert_eq!(
            m.written.triangles.len(),
            formula,
            "the test's own triangles"
        );
    }
    // Every combination is tried, and the failures listed together (quietly: one panic
    // message each would bury the list); the combinations are shared among the machine's
    // cores, as this test alone is its binary.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let cases: Vec<_> = combos.iter().zip(&models).collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let (index, source) = (&index, &source);
    let (checked, failed) = std::thread::scope(|scope| {
        let shares: Vec<_> = cases
            .chunks(cases.len().div_ceil(threads))
            .map(|share| {
                scope.spawn(move || {
                    let (mut checked, mut failed) = (0, Vec::new());
                    for &(c, m) in share {
                        for (k, &ctx) in CONTEXTS.iter().enumerate() {
                            let run =
                                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                    check(c, m, ctx, k, index, source)
                                }));
                            if let Err(e) = run {
                                let why = e
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_default();
                                failed.push(format!(
                                    "{} {ctx:?}: {}",
                                    c.name(),
                                    why.lines().next().unwrap_or("")
                                ));
                            }
                            checked += 1;
                        }
                    }
                    (checked, failed)
                })
            })
            .collect();
        shares.into_iter().map(|s| s.join().unwrap()).fold(
            (0, Vec::new()),
            |(n, mut all), (k, f)| {
                all.extend(f);
                (n + k, all)
            },
        )
    });
    std::panic::set_hook(hook);
    // 14 formats × 6 materials × 16 structures × 4 contexts.
    assert_eq!(checked, 14 * 6 * 16 * 4);
    eprintln!(
        "conformance matrix: {checked} combinations, {} failed",
        failed.len()
    );
    assert!(
        failed.is_empty(),
        "{} of {checked} combinations failed:\n{}",
        failed.len(),
        failed
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
