//! The FF7 field-model matrix: generated files across every polygon kind × texture windows
//! sampled through 1, 4 or 16 CLUTs × 1, 8 or 32 bones × animations of 1, 30 or 1,000
//! frames × one model or three model records sharing one skeleton; and a model of the size
//! of a party member or a boss. Each is opened, built, picked, exported and summarised, and
//! checked against counts and texels the test computes itself from the format notes
//! (docs/formats/bsx.md): triangles per kind, one texture page per (page, CLUT), the texel a
//! 4-bit page shows for an index through its CLUT, a key a frame for a moving bone.

use relicview::archive::Archive;
use relicview::formats::ff7::bsx::raw::{Channel, PolyKind};
use relicview::formats::ff7::bsx::writer::{
    write, AnimSpec, BsxSpec, ModelSpec, PartSpec, PolySpec, RectSpec,
};
use relicview::formats::registry::{self, Purpose};
use relicview::scene::{source_of, Scene, Target};

/// Where the 4-bit texture page and the CLUT rows sit in VRAM.
const PAGE: (u16, u16) = (640, 256);
const CLUT_ROW: u16 = 480;

/// The flag word of a 4-bit page at PAGE sampled through CLUT row `row` (x 0): texture
/// type 2 (the model's own), depth bits 0, page x/64 at bit 8, page y/256 at bit 12, CLUT
/// x/16 at bit 16, CLUT y at bit 22.
fn flag(row: u16) -> u32 {
    2 | ((PAGE.0 / 64) as u32) << 8 | ((PAGE.1 / 256) as u32) << 12 | (row as u32) << 22
}

/// The 4-bit index of texel (u, v) of the page, as the test paints it.
fn index_at(u: usize, v: usize) -> u16 {
    ((u * 3 + v * 5) % 16) as u16
}

/// Entry `i` of CLUT `c` as a 15-bit colour (never 0: 0 is the transparent texel).
fn clut_colour(c: usize, i: usize) -> u16 {
    let (r, g, b) = ((c * 2 + 1) as u16 & 31, (i * 2 + 1) as u16 & 31, 7u16);
    r | g << 5 | b << 10
}

/// A 15-bit colour as RGBA bytes: 5 bits a channel widened as (v << 3) | (v >> 2).
fn rgba(c: u16) -> [u8; 4] {
    let ch = |s: u16| {
        let v = ((c >> s) & 31) as u8;
        (v << 3) | (v >> 2)
    };
    [ch(0), ch(5), ch(10), 255]
}

/// VRAM rectangles: a 16 × 16-texel window of the page (4 halfwords a row, four 4-bit
/// indices each, the lowest nibble first) and `cluts` CLUT rows of 16 entries.
fn rects(cluts: usize) -> Vec<RectSpec> {
    let mut page = Vec::new();
    for v in 0..16 {
        for hx in 0..4 {
            page.push(
                (0..4)
                    .map(|k| index_at(hx * 4 + k, v) << (4 * k))
                    .fold(0, |a, b| a | b),
            );
        }
    }
    let mut out = vec![RectSpec {
        x: PAGE.0,
        y: PAGE.1,
        width: 4,
        height: 16,
        halfwords: page,
    }];
    for c in 0..cluts {
        out.push(RectSpec {
            x: 0,
            y: CLUT_ROW + c as u16,
            width: 16,
            height: 1,
            halfwords: (0..16).map(|i| clut_colour(c, i)).collect(),
        });
    }
    out
}

/// A part on bone `bone`: `n` polygons of `kind` side by side, each with corners of its own,
/// textured ones each sampling the window through CLUT `k % cluts`.
fn part(bone: u8, kind: PolyKind, n: usize, cluts: usize) -> PartSpec {
    let corners = kind.corners();
    let mut vertices = Vec::new();
    let mut polygons = Vec::new();
    for k in 0..n {
        let x = (k as i16 % 16) * 40;
        let y = (k as i16 / 16) * 40;
        let base = vertices.len() as u8;
        // Quads in the console's corner order (v0 v1 / v2 v3).
        vertices.extend(
            [
                [x, y, 0],
                [x + 30, y, 0],
                [x, y + 30, 0],
                [x + 30, y + 30, 0],
            ]
            .into_iter()
            .take(corners),
        );
        let mut v = [0u8; 4];
        for (c, slot) in v.iter_mut().enumerate().take(corners) {
            *slot = base + c as u8;
        }
        polygons.push(PolySpec {
            kind: Some(kind),
            vertices: v,
            colors: [[128, 128, 128, 0]; 4],
            texcoords: [0, 1, 2, 3],
            control: (k % cluts) as u8,
        });
    }
    let textured = kind.textured();
    PartSpec {
        bone,
        vertices,
        polygons,
        flags: if textured {
            (0..cluts).map(|c| flag(CLUT_ROW + c as u16)).collect()
        } else {
            vec![]
        },
        texcoords: if textured {
            vec![[0, 0], [15, 0], [0, 15], [15, 15]]
        } else {
            vec![]
        },
    }
}

/// An animation of `frames` frames that turns every bone about x by a per-frame table.
fn animation(bones: usize, frames: u16) -> AnimSpec {
    let channels = (0..bones)
        .map(|b| Channel {
            mask: 1,
            rotation: [b as u8, 0, 0],
            translation: [0xFF; 3],
        })
        .collect();
    let n = frames.max(1) as usize;
    let rotations = (0..bones)
        .flat_map(|b| (0..n).map(move |f| ((f * 7 + b * 13) % 256) as u8))
        .collect();
    AnimSpec {
        frames,
        channels,
        translations: vec![],
        statics: vec![],
        rotations,
    }
}

fn model(bones: usize, parts: Vec<PartSpec>, animations: Vec<AnimSpec>) -> ModelSpec {
    ModelSpec {
        face_id: 0,
        global_id: 0,
        scale: 4096,
        ambient: [0; 3],
        bones: (0..bones).map(|b| (100, b as i8 - 1)).collect(),
        parts,
        animations,
        starts: [0; 3],
    }
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// Make model records 1.. copies of record 0, pointing at its skeleton: models sharing one.
fn share_first_skeleton(bytes: &mut [u8], records: usize) {
    let om = u32_at(bytes, 4);
    let first = om + 16;
    let skeleton = first + u32_at(bytes, first + 4);
    let record: Vec<u8> = bytes[first..first + 48].to_vec();
    for k in 1..records {
        let at = first + 48 * k;
        bytes[at..at + 48].copy_from_slice(&record);
        bytes[at + 4..at + 8].copy_from_slice(&((skeleton - at) as u32).to_le_bytes());
    }
}

/// The texel at page texel (u, v) of the texture a material samples.
fn texel(scene: &Scene, material: u32, u: usize, v: usize) -> [u8; 4] {
    let t = &scene.textures[scene.materials[material as usize]
        .texture
        .expect("textured") as usize]
        .texels;
    let at = (v * t.width as usize + u) * 4;
    t.rgba[at..at + 4].try_into().unwrap()
}

struct Case {
    kind: PolyKind,
    cluts: usize,
    bones: usize,
    frames: u16,
    models: usize,
}

fn check(c: &Case) {
    let name = format!(
        "{:?} × {} CLUTs × {} bones × {} frames × {} models",
        c.kind, c.cluts, c.bones, c.frames, c.models
    );
    // A part per bone, as many polygons as CLUTs (at least two).
    let per_part = c.cluts.max(2);
    let parts: Vec<PartSpec> = (0..c.bones)
        .map(|b| part(b as u8, c.kind, per_part, c.cluts))
        .collect();
    let spec = BsxSpec {
        models: vec![model(c.bones, parts, vec![animation(c.bones, c.frames)]); c.models],
        rects: rects(c.cluts),
    };
    let mut bytes = write(&spec);
    if c.models > 1 {
        share_first_skeleton(&mut bytes, c.models);
    }
    let doc = registry::open("MATRIX.BSX", bytes.clone(), Purpose::Show);
    assert!(doc.error().is_none(), "{name}: {:?}", doc.error());
    assert!(
        doc.diagnostics().is_empty(),
        "{name}: {:?}",
        doc.diagnostics()
    );
    let triangles = c.models * c.bones * per_part * (c.kind.corners() - 2);

    // info --json: the counts of the notes.
    let info: serde_json::Value =
        serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json()).unwrap();
    assert!(info.get("error").is_none(), "{name}");
    assert_eq!(
        info["triangles"].as_u64(),
        Some(triangles as u64),
        "{name}: {info}"
    );
    for m in info["models"].as_array().unwrap() {
        assert_eq!(
            (
                m["bones"].as_u64(),
                m["parts"].as_u64(),
                m["animations"].as_u64()
            ),
            (Some(c.bones as u64), Some(c.bones as u64), Some(1)),
            "{name}"
        );
    }
    let textured = if c.kind.textured() { c.cluts } else { 0 };
    assert_eq!(
        info["textures"].as_u64(),
        Some(c.cluts as u64 + 1),
        "{name}: VRAM rectangles"
    );

    // The scene: every part, a texture page per CLUT, every animation, all within budget.
    let scene = doc
        .build_scene(&Archive::detached())
        .scene
        .unwrap_or_else(|| panic!("{name}: no scene"));
    assert!(
        doc.diagnostics()
            .iter()
            .all(|d| !d.message.contains("not built")),
        "{name}: {:?}",
        doc.diagnostics()
    );
    assert_eq!(
        scene.triangle_count_in(0, &[]),
        triangles,
        "{name}: triangles"
    );
    assert_eq!(
        scene.textures.len(),
        textured,
        "{name}: one page per (page, CLUT)"
    );
    // Each textured material shows the window through its own CLUT.
    for (mi, m) in scene
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.texture.is_some())
    {
        let row = m
            .name
            .as_deref()
            .and_then(|n| n.split("clut (0, ").nth(1))
            .and_then(|s| s.split(')').next())
            .and_then(|s| s.parse::<usize>().ok())
            .expect("the CLUT in the name");
        for (u, v) in [(0, 0), (5, 3), (15, 15), (7, 12)] {
            assert_eq!(
                texel(&scene, mi as u32, u, v),
                rgba(clut_colour(
                    row - CLUT_ROW as usize,
                    index_at(u, v) as usize
                )),
                "{name}: texel ({u}, {v}) of {:?}",
                m.name
            );
        }
    }
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        assert_eq!(scene.texture_of(p).is_some(), c.kind.textured(), "{name}");
    }
    assert_eq!(
        scene.clips.len(),
        c.models,
        "{name}: an animation per model"
    );
    for clip in &scene.clips {
        assert!(
            (clip.duration - c.frames.max(1) as f32 / 30.0).abs() < 1e-4,
            "{name}"
        );
        let rotations: Vec<_> = clip
            .tracks
            .iter()
            .filter(|t| matches!(t.target, Target::Rotation(_)))
            .collect();
        assert_eq!(rotations.len(), c.bones, "{name}: a track per bone");
        // Every bone moves: a key a frame and one to close the loop (one frame: a still pose).
        let keys = if c.frames <= 1 {
            2
        } else {
            c.frames as usize + 1
        };
        assert!(
            rotations.iter().all(|t| t.times.len() == keys),
            "{name}: {} keys",
            rotations[0].times.len()
        );
    }
    assert_eq!(
        scene.skeleton.len(),
        c.models * (c.bones - 1),
        "{name}: a bone to each joint but the root"
    );

    // Picking: every triangle's face is one polygon record of the kind's size, and a ray
    // onto a triangle's middle lands on it (when nothing lies in front).
    let view = doc
        .inspector(relicview::formats::Found::NOTHING)
        .expect("an inspector");
    let rows: Vec<(usize, usize)> = view.chunks.iter().map(|c| (c.offset, c.end)).collect();
    let world = scene.world(&scene.pose(0.0));
    let mut faces = std::collections::BTreeSet::new();
    for (ni, n) in scene.nodes.iter().enumerate() {
        let Some(m) = n.mesh else { continue };
        for p in &scene.meshes[m as usize].primitives {
            for t in 0..p.triangle_count() as u32 {
                let run = source_of(&p.sources, t)
                    .unwrap_or_else(|| panic!("{name}: triangle {t} has no source"));
                // Its record, by its bytes, is a row of the inspector: the polygon's.
                let row = relicview::scene::row_of(&rows, run.record)
                    .unwrap_or_else(|| panic!("{name}: triangle {t}'s record is no row"));
                let r = &view.chunks[row as usize];
                assert_eq!(
                    ([r.offset, r.end], r.name.as_str()),
                    (run.record, "polygon"),
                    "{name}: its record is its polygon's row"
                );
                let (a, b) = run.face_bytes(t);
                assert_eq!(b - a, c.kind.size(), "{name}: a face is one polygon record");
                assert!(a >= r.offset && b <= r.end, "{name}: inside its record");
                faces.insert(a);
            }
        }
        if c.models == 1 && ni == scene.nodes.iter().position(|n| n.mesh.is_some()).unwrap() {
            let p = &scene.meshes[m as usize].primitives[0];
            let corner = |i: u32| {
                world[ni].transform_point3(glam::Vec3::from(
                    p.positions[p.indices[i as usize] as usize],
                ))
            };
            let (a, b, cc) = (corner(0), corner(1), corner(2));
            let mid = (a + b + cc) / 3.0;
            let normal = (b - a).cross(cc - a).normalize();
            let hit = scene
                .pick(mid + normal * 50.0, -normal, 0, &[], &world)
                .unwrap_or_else(|| panic!("{name}: nothing picked"));
            assert_eq!(
                (hit.node as usize, hit.triangle),
                (ni, 0),
                "{name}: the triangle aimed at"
            );
        }
    }
    // Every polygon the test wrote, once (records shared by models count once).
    assert_eq!(faces.len(), c.bones * per_part, "{name}: distinct faces");

    // Export: every triangle, textures sampled through TEXCOORD_0, an animation per clip.
    let glb = relicview::gltf::export_glb(&scene, Default::default()).unwrap();
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let j: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let mut exported = 0;
    let mut stack: Vec<usize> = j["scenes"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    while let Some(n) = stack.pop() {
        stack.extend(
            j["nodes"][n]["children"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v.as_u64().unwrap() as usize),
        );
        let Some(mesh) = j["nodes"][n]["mesh"].as_u64() else {
            continue;
        };
        for p in j["meshes"][mesh as usize]["primitives"].as_array().unwrap() {
            exported += j["accessors"][p["indices"].as_u64().unwrap() as usize]["count"]
                .as_u64()
                .unwrap() as usize
                / 3;
            let textured = p["material"].as_u64().is_some_and(|m| {
                !j["materials"][m as usize]["pbrMetallicRoughness"]["baseColorTexture"].is_null()
            });
            assert_eq!(textured, c.kind.textured(), "{name}");
            assert!(
                !textured || p["attributes"]["TEXCOORD_0"].is_u64(),
                "{name}"
            );
        }
    }
    assert_eq!(exported, triangles, "{name}: exported triangles");
    assert_eq!(
        j["animations"].as_array().map_or(0, |a| a.len()),
        c.models,
        "{name}: animations"
    );
}

#[test]
fn every_polygon_kind_clut_count_skeleton_size_animation_length_and_sharing() {
    // A thread per polygon kind: this test alone is its binary, and a debug build's checks
    // of 432 models take a core a quarter of a minute.
    let n: usize = std::thread::scope(|scope| {
        let kinds: Vec<_> = PolyKind::ALL
            .into_iter()
            .map(|kind| {
                scope.spawn(move || {
                    let mut n = 0;
                    for cluts in [1, 4, 16] {
                        for bones in [1, 8, 32] {
                            for frames in [1, 30, 1000] {
                                for models in [1, 3] {
                                    check(&Case {
                                        kind,
                                        cluts,
                                        bones,
                                        frames,
                                        models,
                                    });
                                    n += 1;
                                }
                            }
                        }
                    }
                    n
                })
            })
            .collect();
        kinds.into_iter().map(|k| k.join().unwrap()).sum()
    });
    assert_eq!(n, 8 * 3 * 3 * 3 * 2);
}

#[test]
fn a_party_member_sized_model_is_built_whole() {
    // 22 bones, 21 parts of 255 vertices (85 gouraud-textured triangles each), 16 texture
    // windows through 16 CLUTs, four animations of 300 frames: as big as the party members
    // and bosses are. The budget is for hostile files; none of this may be cut.
    let kinds = [
        PolyKind::TriColorTex,
        PolyKind::TriMonoTex,
        PolyKind::TriColor,
    ];
    let parts: Vec<PartSpec> = (0..21)
        .map(|b| {
            let mut p = part(b as u8 + 1, kinds[b % 3], 85, 16);
            // 16 windows: each part samples its own place of the page by its texcoords.
            p.texcoords = if p.texcoords.is_empty() {
                vec![]
            } else {
                vec![[0, 0], [15, 0], [0, 15], [15, 15]]
            };
            p
        })
        .collect();
    let spec = BsxSpec {
        models: vec![model(
            22,
            parts,
            (0..4).map(|_| animation(22, 300)).collect(),
        )],
        rects: rects(16),
    };
    let bytes = write(&spec);
    assert!(
        bytes.len() > 100_000,
        "{} bytes: the size of the field files that hit the old budget",
        bytes.len()
    );
    let doc = registry::open("BOSS.BSX", bytes.clone(), Purpose::Show);
    assert!(doc.error().is_none(), "{:?}", doc.error());
    let scene = doc.build_scene(&Archive::detached()).scene.unwrap();
    assert!(
        doc.diagnostics().is_empty(),
        "nothing left out: {:?}",
        doc.diagnostics()
    );
    assert_eq!(scene.triangle_count_in(0, &[]), 21 * 85);
    assert_eq!(scene.meshes.len(), 21, "every part");
    assert_eq!(scene.textures.len(), 16, "a page per CLUT");
    assert_eq!(scene.clips.len(), 4, "every animation");
    assert!(scene
        .clips
        .iter()
        .all(|c| c.tracks.iter().filter(|t| t.times.len() == 301).count() == 22));
    // What it takes: textures, geometry and keys, against the file and the budget.
    let textures: usize = scene.textures.iter().map(|t| t.texels.rgba.len()).sum();
    let geometry: usize = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| {
            p.positions.len() * 12
                + p.colors.as_ref().map_or(0, |c| c.len() * 4)
                + p.uvs.as_ref().map_or(0, |u| u.len() * 8)
                + p.indices.len() * 4
        })
        .sum();
    let keys: usize = scene
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| (t.times.len() + t.values.len()) * 4)
        .sum();
    // docs/formats/bsx.md ("Memory"): 64 times the file plus 8 MiB.
    let budget = 64 * bytes.len() + (8 << 20);
    assert!(textures + geometry + keys <= budget);
    eprintln!(
        "party-member model: {} bytes of file; scene {} textures + {} geometry + {} keys = {} bytes ({:.1}× the file; budget {})",
        bytes.len(),
        textures,
        geometry,
        keys,
        textures + geometry + keys,
        (textures + geometry + keys) as f64 / bytes.len() as f64,
        budget
    );
}

#[test]
fn real_field_models_build_whole_and_export() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/ff7");
    for name in [
        "ELEVTR1_u.BSX",
        "MD1_1_u.BSX",
        "NMKIN_1_u.BSX",
        "STARTMAP_u.BSX",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let doc = registry::open(name, bytes, Purpose::Show);
        let scene = doc.build_scene(&Archive::detached()).scene.unwrap();
        assert!(
            doc.diagnostics()
                .iter()
                .all(|d| !d.message.contains("not built")),
            "{name}: {:?}",
            doc.diagnostics()
        );
        let info: serde_json::Value =
            serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json()).unwrap();
        assert_eq!(
            scene.triangle_count_in(0, &[]) as u64,
            info["triangles"].as_u64().unwrap(),
            "{name}"
        );
        let glb = relicview::gltf::export_glb(&scene, Default::default()).unwrap();
        assert_eq!(&glb[..4], b"glTF", "{name}");
    }
}
