//! FF7 field models: the `info` contract against counts read straight from the bytes, the
//! writer → reader round trip, the pose docs/formats/bsx.md describes worked by hand, and clear
//! errors for malformed files.

use proptest::prelude::*;
use relicview::archive::Archive;
use relicview::formats::ff7::bsx::raw::{BsxFile, Channel, PolyKind};
use relicview::formats::ff7::bsx::writer::{
    write, write_bcx, AnimSpec, BsxSpec, ModelSpec, PartSpec, PolySpec, RectSpec,
};
use relicview::formats::ff7::lzs;
use relicview::formats::registry::{self, Purpose};

fn shared(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7")
            .join(name),
    )
    .expect("the shared FF7 test data sits beside the repo")
}

const REAL: [&str; 4] = [
    "ELEVTR1_u.BSX",
    "MD1_1_u.BSX",
    "NMKIN_1_u.BSX",
    "STARTMAP_u.BSX",
];

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// Per model record, from the bytes alone: (bones, parts, animations, triangles, vertices).
fn counts_from_bytes(b: &[u8]) -> Vec<[usize; 5]> {
    let om = u32_at(b, 4);
    (0..u32_at(b, om + 4))
        .map(|i| {
            let rec = om + 16 + 48 * i;
            let (nb, np, na) = (
                b[rec + 0x17] as usize,
                b[rec + 0x23] as usize,
                b[rec + 0x2F] as usize,
            );
            let parts_at = rec + u32_at(b, rec + 4) + 4 * nb;
            let (mut triangles, mut vertices) = (0, 0);
            for j in 0..np {
                let h = &b[parts_at + 32 * j..parts_at + 32 * j + 32];
                vertices += h[2] as usize;
                // Counts in the file's kind order: quads at 4, 6, 9, 11 count twice.
                triangles += [2, 1, 2, 1, 1, 2, 1, 2]
                    .iter()
                    .zip(&h[4..12])
                    .map(|(w, &n)| w * n as usize)
                    .sum::<usize>();
            }
            [nb, np, na, triangles, vertices]
        })
        .collect()
}

fn info_of(name: &str, bytes: Vec<u8>) -> serde_json::Value {
    let doc = registry::open(name, bytes, Purpose::Asset);
    assert!(doc.error().is_none(), "{name}: {:?}", doc.error());
    serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json()).unwrap()
}

#[test]
fn info_reports_every_model_as_its_bytes_say_compressed_or_not() {
    for name in REAL {
        let bytes = shared(name);
        let expected = counts_from_bytes(&bytes);
        for (compressed, file) in [(false, bytes.clone()), (true, lzs::encode(&bytes))] {
            let j = info_of(name, file);
            assert_eq!(j["format"], "bsx");
            assert_eq!(j["compressed"], compressed, "{name}");
            let models = j["models"].as_array().unwrap();
            assert_eq!(models.len(), expected.len(), "{name}");
            for (m, e) in models.iter().zip(&expected) {
                let got = ["bones", "parts", "animations", "triangles", "vertices"]
                    .map(|k| m[k].as_u64().unwrap() as usize);
                assert_eq!(&got, e, "{name}");
            }
            assert_eq!(
                j["triangles"].as_u64().unwrap() as usize,
                expected.iter().map(|e| e[3]).sum::<usize>(),
                "{name}"
            );
            assert_eq!(
                j["diagnostics"],
                serde_json::json!([]),
                "{name}: every layout equality holds"
            );
        }
    }
}

/// The pose of the demo's figure, worked by hand: bone 0 turns +Z to the console's up (−Y),
/// the head sits 116 along the spine's +Z, and the model turns half about X to Y-up.
#[test]
fn bones_pose_as_the_engine_poses_them() {
    let spec = relicview::demo::robot_spec();
    let doc = registry::open("ROBOT.BSX", lzs::encode(&write(&spec)), Purpose::Show);
    let scene = doc.build_scene(&Archive::detached()).scene.unwrap();
    let world = scene.world(&scene.pose(0.0));
    let at = |name: &str| {
        world[scene
            .nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
            .unwrap()]
        .transform_point3(glam::Vec3::ZERO)
    };
    assert!(
        (at("bone 2") - glam::Vec3::new(0.0, 116.0, 0.0)).length() < 1e-3,
        "{}",
        at("bone 2")
    );
    assert!((at("bone 1") - glam::Vec3::ZERO).length() < 1e-3);
    // Two models, each with its animations to choose from; the first is on show.
    let choice = scene.choice.as_ref().unwrap();
    let labels: Vec<&str> = choice.options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "model 0",
            "model 0: animation 0 (24 frames)",
            "model 0: animation 1 (16 frames)",
            "model 1",
            "model 1: animation 0 (1 frame)"
        ]
    );
    assert_eq!(
        choice.default, 1,
        "the first model, playing its first animation"
    );
    // The wave moves the right arm: its hand (the end of bone 3's box) is elsewhere later on.
    let t = |s: f64| scene.world(&scene.pose(s));
    let arm = scene
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("bone 3"))
        .unwrap();
    let hand = |w: &[glam::Mat4]| w[arm].transform_point3(glam::Vec3::new(0.0, 0.0, 70.0));
    assert!(
        (hand(&t(0.0)) - hand(&t(0.2))).length() > 5.0,
        "the arm swings"
    );
    // Every polygon kind is drawn: 48 + 12 triangles, quads as (0,1,2) + (1,3,2).
    assert_eq!(scene.triangle_count(0), 60);
    let textured: usize = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter(|p| p.uvs.is_some())
        .map(|p| p.indices.len() / 3)
        .sum();
    assert_eq!(textured, 2 + 2 + 2 + 2, "the head's four textured faces");
    assert_eq!(scene.textures.len(), 1, "one texture page, CLUT and depth");
    let face = &scene.textures[0].texels;
    let px = |u: usize, v: usize| &face.rgba[(v * 256 + u) * 4..(v * 256 + u) * 4 + 4];
    assert_eq!(px(0, 0), [33, 33, 49, 255], "the border, through the CLUT");
    assert_eq!(px(4, 5), [49, 99, 231, 255], "an eye");
    assert_eq!(px(20, 20)[3], 0, "outside the image: index 0, transparent");
}

fn arb_poly(nv: u8, nt: u8, nf: u8) -> impl Strategy<Value = PolySpec> {
    (
        0..8usize,
        prop::array::uniform4(0..nv.max(1)),
        prop::array::uniform4(prop::array::uniform4(any::<u8>())),
        prop::array::uniform4(0..nt.max(1)),
        0..nf.max(1),
    )
        .prop_map(move |(k, vertices, mut colors, texcoords, flag)| {
            let kind = PolyKind::ALL[k];
            let kind = if kind.textured() && (nt == 0 || nf == 0) {
                PolyKind::QuadMono
            } else {
                kind
            };
            if !kind.gouraud() {
                colors = [colors[0], [0; 4], [0; 4], [0; 4]];
            }
            let n = kind.corners();
            let mut v = [0u8; 4];
            v[..n].copy_from_slice(&vertices[..n]);
            let mut t = [0u8; 4];
            if kind.textured() {
                t[..n].copy_from_slice(&texcoords[..n]);
            }
            let mut c = [[0u8; 4]; 4];
            c[..if kind.gouraud() { n } else { 1 }]
                .copy_from_slice(&colors[..if kind.gouraud() { n } else { 1 }]);
            PolySpec {
                kind: Some(kind),
                vertices: v,
                colors: c,
                texcoords: t,
                control: if kind.textured() { flag | 0x20 } else { 0 },
            }
        })
}

fn arb_part(bones: usize) -> impl Strategy<Value = PartSpec> {
    (1u8..20, 0u8..6, 0u8..3, 0..bones as u8).prop_flat_map(|(nv, nt, nf, bone)| {
        (
            prop::collection::vec(prop::array::uniform3(any::<i16>()), nv as usize),
            prop::collection::vec(arb_poly(nv, nt, nf), 0..12),
            prop::collection::vec(any::<u32>(), nf as usize),
            prop::collection::vec(prop::array::uniform2(any::<u8>()), nt as usize),
        )
            .prop_map(move |(vertices, polygons, flags, texcoords)| PartSpec {
                bone,
                vertices,
                polygons,
                flags,
                texcoords,
            })
    })
}

fn arb_anim(bones: usize) -> impl Strategy<Value = AnimSpec> {
    (1u16..6, 0usize..3, 0usize..3, 0usize..3).prop_flat_map(move |(frames, nt, ns, nr)| {
        let f = frames as usize;
        let channel = (
            any::<u8>(),
            prop::array::uniform3(any::<u8>()),
            prop::array::uniform3(any::<u8>()),
        )
            .prop_map(move |(mask, rot, tr)| {
                let mut c = Channel {
                    mask: mask & 0x77,
                    rotation: rot,
                    translation: tr,
                };
                for a in 0..3 {
                    if c.mask >> a & 1 == 1 {
                        if nr == 0 {
                            c.mask &= !(1 << a)
                        } else {
                            c.rotation[a] %= nr as u8
                        }
                    }
                    if c.mask >> (a + 4) & 1 == 1 {
                        if nt == 0 {
                            c.mask &= !(1 << (a + 4))
                        } else {
                            c.translation[a] %= nt as u8
                        }
                    }
                    if c.mask >> (a + 4) & 1 == 0 {
                        c.translation[a] = if ns == 0 || c.translation[a] % 2 == 0 {
                            0xFF
                        } else {
                            c.translation[a] % ns as u8
                        };
                    }
                }
                c
            });
        (
            prop::collection::vec(channel, bones),
            prop::collection::vec(any::<i16>(), nt * f),
            prop::collection::vec(any::<i16>(), ns),
            prop::collection::vec(any::<u8>(), nr * f),
        )
            .prop_map(
                move |(channels, translations, statics, rotations)| AnimSpec {
                    frames,
                    channels,
                    translations,
                    statics,
                    rotations,
                },
            )
    })
}

fn arb_model() -> impl Strategy<Value = ModelSpec> {
    (1usize..6).prop_flat_map(|nb| {
        let bones = prop::collection::vec(any::<i16>(), nb).prop_map(|lengths| {
            lengths
                .iter()
                .enumerate()
                .map(|(i, &l)| (if i == 0 { 0 } else { l }, i as i8 - 1))
                .collect::<Vec<_>>()
        });
        (
            bones,
            prop::collection::vec(arb_part(nb), 0..4),
            prop::collection::vec(arb_anim(nb), 0..3),
            1u16..8192,
        )
            .prop_map(|(bones, parts, animations, scale)| ModelSpec {
                face_id: 0x21,
                global_id: 0,
                scale,
                ambient: [1, 2, 3],
                bones,
                parts,
                animations,
                starts: [0; 3],
            })
    })
}

fn arb_spec() -> impl Strategy<Value = BsxSpec> {
    let rect = (0u16..900, 0u16..500, 1u16..8, 1u16..8).prop_flat_map(|(x, y, w, h)| {
        prop::collection::vec(any::<u16>(), (w * h) as usize).prop_map(move |halfwords| RectSpec {
            x,
            y,
            width: w,
            height: h,
            halfwords,
        })
    });
    (
        prop::collection::vec(arb_model(), 1..4),
        prop::collection::vec(rect, 0..3),
    )
        .prop_map(|(models, rects)| BsxSpec { models, rects })
}

/// What a parsed file says, in the writer's terms.
/// What the reader found, as a spec; a texture rectangle's texel words read from `bytes`
/// where the reader says they are.
fn spec_of(f: &BsxFile, bytes: &[u8]) -> BsxSpec {
    let models = f
        .models
        .iter()
        .map(|m| ModelSpec {
            face_id: m.face_id,
            global_id: m.global_id,
            scale: m.scale,
            ambient: m.ambient,
            bones: m.bones.iter().map(|b| (b.length, b.parent)).collect(),
            parts: m
                .parts
                .iter()
                .map(|p| {
                    let d = &f.parts[&p.block];
                    PartSpec {
                        bone: p.bone,
                        vertices: d.vertices.iter().map(|v| [v[0], v[1], v[2]]).collect(),
                        polygons: d
                            .polygons
                            .iter()
                            .map(|q| PolySpec {
                                kind: Some(q.kind),
                                vertices: q.vertices,
                                colors: q.colors,
                                texcoords: q.texcoords,
                                control: q.control.map_or(0, |c| d.control[c as usize]),
                            })
                            .collect(),
                        flags: d.flags.clone(),
                        texcoords: d.texcoords.clone(),
                    }
                })
                .collect(),
            animations: m
                .animations
                .iter()
                .map(|a| {
                    let d = &f.anims[&a.block];
                    AnimSpec {
                        frames: a.frames,
                        channels: d.channels.clone(),
                        translations: d.translations.clone(),
                        statics: d.statics.clone(),
                        rotations: d.rotations.clone(),
                    }
                })
                .collect(),
            starts: [m.bones_range, m.parts_range, m.anims_range].map(|r| {
                if r.count > 0 {
                    r.start
                } else {
                    0
                }
            }),
        })
        .collect();
    let rects = f
        .textures
        .iter()
        .flat_map(|t| &t.rects)
        .map(|r| RectSpec {
            x: r.x,
            y: r.y,
            width: r.width,
            height: r.height,
            halfwords: bytes[r.data..r.data + r.width as usize * r.height as usize * 2]
                .chunks_exact(2)
                .map(|h| u16::from_le_bytes([h[0], h[1]]))
                .collect(),
        })
        .collect();
    BsxSpec { models, rects }
}

/// The writer groups polygons by kind: compare them in the file's order.
fn normalised(mut s: BsxSpec) -> BsxSpec {
    for m in &mut s.models {
        for p in &mut m.parts {
            p.polygons
                .sort_by_key(|q| q.kind.map(|k| PolyKind::ALL.iter().position(|x| *x == k)));
        }
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn read_of_write_is_identity(spec in arb_spec()) {
        let bytes = write(&spec);
        let f = BsxFile::parse(&bytes).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        prop_assert_eq!(normalised(spec_of(&f, &bytes)), normalised(spec));
        // And wrapped in LZS, through the registry.
        let doc = registry::open("X.BSX", lzs::encode(&bytes), Purpose::Asset);
        prop_assert!(doc.error().is_none());
    }

    #[test]
    fn a_character_reads_back_as_written(model in arb_model()) {
        let bytes = write_bcx(&model);
        let f = BsxFile::parse_bcx(&bytes).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        prop_assert!(f.textures.is_none());
        // A BCX has no face, colours or lights of its own: the BSX record brings them.
        let own = ModelSpec { face_id: 0x21, ambient: [0; 3], ..model };
        prop_assert_eq!(normalised(spec_of(&f, &bytes)), normalised(BsxSpec { models: vec![own], rects: vec![] }));
        let doc = registry::open("CLOUD.BCX", lzs::encode(&bytes), Purpose::Asset);
        prop_assert_eq!(doc.kind(), relicview::formats::ff7::bsx::BCX);
        prop_assert!(doc.error().is_none(), "{:?}", doc.error());
    }
}

#[test]
fn malformed_files_are_errors_with_their_offset() {
    let good = write(&relicview::demo::robot_spec());
    let error = |bytes: Vec<u8>| {
        let doc = registry::open("BAD.BSX", bytes, Purpose::Show);
        doc.error().cloned().expect("a malformed file is an error")
    };
    // Cut short: size_file disagrees.
    let e = error(
        good[..good.len() - 10]
            .iter()
            .copied()
            .chain([0u8; 0])
            .collect::<Vec<_>>()
            .into_iter()
            .enumerate()
            .map(|(i, b)| {
                if i < 4 {
                    ((good.len() as u32 - 10).to_le_bytes())[i]
                } else {
                    b
                }
            })
            .collect(),
    );
    assert!(
        e.message.contains("expected") && e.offset <= good.len(),
        "{e}"
    );
    // A vertex index out of range in the first polygon of the first part.
    let f = BsxFile::parse(&good).unwrap();
    let first = f.parts.values().next().unwrap();
    let poly = first.polygons[0].offset;
    let mut bad = good.clone();
    bad[poly] = 200;
    let e = error(bad);
    assert_eq!(e.offset, poly);
    assert!(e.message.contains("vertex index 200 out of range"), "{e}");
    // A part whose data block lies past the end.
    let mut bad = good.clone();
    let header = f.models[0].parts[0].header;
    bad[header + 0x18..header + 0x1C]
        .copy_from_slice(&(0x8000_0000u32 | 0x00FF_0000).to_le_bytes());
    let e = error(bad);
    assert!(e.message.contains("the file has"), "{e}");
    // A wrong size_file.
    let mut bad = good.clone();
    bad[0] ^= 1;
    assert!(error(bad).message.contains("size_file"));
    // An LZS bomb: references that would decompress far past the bound stop with an error.
    let bomb: Vec<u8> = (0..(1 << 20) / 17)
        .flat_map(|_| std::iter::once(0u8).chain([0xEE, 0xFF].repeat(8)))
        .collect();
    let mut file = (bomb.len() as u32).to_le_bytes().to_vec();
    file.extend(&bomb);
    let out = lzs::decode(&file, 1 << 20);
    assert!(
        out.is_err_and(|e| e.message.contains("at most")),
        "a small bound holds"
    );
    // The real files, truncated anywhere, never panic and fail with an offset inside.
    for name in REAL {
        let bytes = shared(name);
        for cut in (0..bytes.len()).step_by(97) {
            let doc = registry::open(name, bytes[..cut].to_vec(), Purpose::Show);
            if let Some(e) = doc.error() {
                assert!(e.offset <= cut, "{name} cut at {cut}: {e}");
            }
        }
    }
}

/// Bytes a scene holds in its arrays: what the budget is about.
fn scene_bytes(scene: &relicview::scene::Scene) -> usize {
    let prims = scene.meshes.iter().flat_map(|m| &m.primitives);
    let geometry: usize = prims
        .map(|p| {
            p.positions.len() * 12
                + p.colors.as_ref().map_or(0, |c| c.len() * 4)
                + p.lit_colors.as_ref().map_or(0, |c| c.len() * 4)
                + p.uvs.as_ref().map_or(0, |u| u.len() * 8)
                + p.indices.len() * 4
        })
        .sum();
    let textures: usize = scene.textures.iter().map(|t| t.texels.rgba.len()).sum();
    let clips: usize = scene
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| (t.times.len() + t.values.len()) * 4)
        .sum();
    geometry + textures + clips
}

#[test]
fn a_file_whose_models_all_reuse_one_skeleton_is_built_within_its_budget() {
    // One model with 40 parts of 200 quads; 255 more records copy its record and point at
    // its skeleton: 256 × 40 parts' worth of geometry from a file of one model's.
    let quad = PolySpec {
        kind: Some(PolyKind::QuadMono),
        vertices: [0, 1, 2, 3],
        colors: [[200, 100, 50, 0], [0; 4], [0; 4], [0; 4]],
        texcoords: [0; 4],
        control: 0,
    };
    let part = PartSpec {
        bone: 0,
        vertices: vec![[0, 0, 0], [100, 0, 0], [0, 100, 0], [100, 100, 0]],
        polygons: vec![quad; 200],
        flags: vec![],
        texcoords: vec![],
    };
    let model = ModelSpec {
        face_id: 0,
        global_id: 0,
        scale: 4096,
        ambient: [0; 3],
        bones: vec![(0, -1)],
        parts: vec![part; 40],
        animations: vec![],
        starts: [0; 3],
    };
    let spare = ModelSpec {
        parts: vec![],
        bones: vec![],
        ..model.clone()
    };
    let mut bytes = write(&BsxSpec {
        models: std::iter::once(model)
            .chain(std::iter::repeat_n(spare, 255))
            .collect(),
        rects: vec![],
    });
    let om = u32_at(&bytes, 4);
    let first = om + 16;
    let skeleton = first + u32_at(&bytes, first + 4);
    let record: Vec<u8> = bytes[first..first + 48].to_vec();
    for k in 1..256 {
        let at = first + 48 * k;
        bytes[at..at + 48].copy_from_slice(&record);
        bytes[at + 4..at + 8].copy_from_slice(&((skeleton - at) as u32).to_le_bytes());
    }
    let info = info_of("SHARED.BSX", bytes.clone());
    assert_eq!(info["models"].as_array().unwrap().len(), 256);
    assert_eq!(
        info["triangles"],
        256 * 40 * 400,
        "the file claims 4 million triangles"
    );
    let doc = registry::open("SHARED.BSX", bytes.clone(), Purpose::Show);
    let built = doc.build_scene(&Archive::detached());
    let scene = built.scene.as_ref().unwrap();
    let doc = relicview::formats::Described {
        document: &*doc,
        found: &built.found,
    };
    // The bound docs/formats/bsx.md ("Memory") gives: 64 times the file plus 8 MiB, where
    // the 4 million triangles it claims would take some 200 bytes each.
    let bound = 64 * bytes.len() + (8 << 20);
    assert!(
        scene_bytes(scene) <= bound,
        "{} bytes for a {}-byte file: more than 64 × it + 8 MiB",
        scene_bytes(scene),
        bytes.len()
    );
    assert!(
        scene_bytes(scene) < 256 * 40 * 400 * 10,
        "far less than what the claimed triangles would take"
    );
    assert!(
        scene.triangle_count_in(0, &[]) >= 400 * 40,
        "the first model is drawn whole"
    );
    let warning = doc
        .diagnostics()
        .iter()
        .find(|d| d.message.contains("not built"))
        .expect("a warning says what was left out");
    assert!(warning.message.contains("parts"), "{}", warning.message);
    assert!(
        doc.inspector()
            .unwrap()
            .diagnostics
            .iter()
            .any(|d| d.message == warning.message),
        "the inspector lists it too"
    );
}

#[test]
fn an_animation_of_65535_frames_of_nothing_costs_a_key_per_bone() {
    // 255 bones, an animation that claims 65,535 frames but moves nothing: no tables, a few
    // hundred bytes, and a clip of 17 million keys if each frame were a key. (Per-frame
    // channels need their data in the file: without it the file is malformed.)
    let still = Channel {
        mask: 0,
        rotation: [1, 2, 3],
        translation: [0xFF; 3],
    };
    let anim = AnimSpec {
        frames: u16::MAX,
        channels: vec![still; 255],
        translations: vec![],
        statics: vec![],
        rotations: vec![],
    };
    let short = AnimSpec {
        frames: 2,
        ..anim.clone()
    };
    // Parents are s8: bones past 128 hang from the first 128.
    let bones: Vec<(i16, i8)> = (0..255i32)
        .map(|i| (10, if i == 0 { -1 } else { ((i - 1) % 128) as i8 }))
        .collect();
    let model = ModelSpec {
        face_id: 0,
        global_id: 0,
        scale: 4096,
        ambient: [0; 3],
        bones,
        parts: vec![],
        animations: vec![short, anim],
        starts: [0; 3],
    };
    let bytes = write(&BsxSpec {
        models: vec![model],
        rects: vec![],
    });
    let doc = registry::open("LONG.BSX", bytes.clone(), Purpose::Show);
    assert!(doc.error().is_none(), "{:?}", doc.error());
    let scene = doc.build_scene(&Archive::detached()).scene.unwrap();
    assert!(
        scene_bytes(&scene) <= 64 * bytes.len() + (8 << 20),
        "docs/formats/bsx.md's bound: 64 × the file + 8 MiB"
    );
    assert_eq!(scene.clips.len(), 2, "both animations are built");
    let long = &scene.clips[1];
    assert!(
        (long.duration - 65535.0 / 30.0).abs() < 1e-2,
        "the clip keeps its length"
    );
    assert!(
        long.tracks.iter().all(|t| t.times == [0.0, long.duration]),
        "a still channel is held by two keys, at the clip's start and end"
    );
    assert!(
        scene_bytes(&scene) < 64 * bytes.len(),
        "{} bytes of scene from a {}-byte file",
        scene_bytes(&scene),
        bytes.len()
    );
    assert!(
        doc.diagnostics()
            .iter()
            .all(|d| !d.message.contains("not built")),
        "{:?}",
        doc.diagnostics()
    );
}

/// Open `path` among `files` as the viewer does: its assets read from the same folder.
fn open_among(files: Vec<(&str, Vec<u8>)>, path: &str) -> relicview::archive::Opened {
    let source =
        relicview::archive::MemorySource::new(files.into_iter().map(|(p, b)| (p.to_string(), b)));
    let archive = std::cell::RefCell::new(source.archive());
    pollster::block_on(relicview::archive::open_file(&archive, &source, path)).unwrap()
}

fn node(scene: &relicview::scene::Scene, name: &str, under: &str) -> usize {
    let top = scene
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some(under))
        .unwrap();
    let within = |mut i: usize| loop {
        if i == top {
            return true;
        }
        match scene.nodes[i].parent {
            Some(p) => i = p as usize,
            None => return false,
        }
    };
    (0..scene.nodes.len())
        .find(|&i| scene.nodes[i].name.as_deref() == Some(name) && within(i))
        .unwrap_or_else(|| panic!("{name} under {under}"))
}

/// The texels of an image of a TDB (`images` at `image_offset`), through a palette, read
/// straight from the bytes.
fn tdb_texel(tdb: &[u8], image: usize, face: usize, x: usize, y: usize) -> [u8; 4] {
    let (io, po) = (u32_at(tdb, 8), u32_at(tdb, 12));
    let byte = tdb[io + 512 * image + 16 * y + x / 2];
    let index = if x % 2 == 0 { byte & 15 } else { byte >> 4 } as usize;
    let c = u16::from_le_bytes([
        tdb[po + 32 * face + 2 * index],
        tdb[po + 32 * face + 2 * index + 1],
    ]);
    if c == 0 {
        return [0; 4];
    }
    let ch = |s: u16| (((c >> s) & 31) as u8) << 3 | (((c >> s) & 31) as u8) >> 2;
    [ch(0), ch(5), ch(10), 255]
}

/// The texel at texcoord (u, v) of the texture a primitive samples, and its UV there.
fn texel_of(scene: &relicview::scene::Scene, material_name: &str, u: usize, v: usize) -> [u8; 4] {
    let m = scene
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some(material_name))
        .unwrap_or_else(|| {
            panic!(
                "{material_name} in {:?}",
                scene
                    .materials
                    .iter()
                    .map(|m| m.name.clone())
                    .collect::<Vec<_>>()
            )
        });
    let t = &scene.textures[m.texture.expect("textured") as usize].texels;
    t.rgba[(v * 256 + u) * 4..(v * 256 + u) * 4 + 4]
        .try_into()
        .unwrap()
}

#[test]
fn a_characters_record_adds_to_its_bcx_and_its_eyes_come_from_field_tdb() {
    let files: Vec<(&str, Vec<u8>)> = relicview::demo::demo_files()
        .into_iter()
        .filter(|(p, _)| p.starts_with("DEMO/FIELD/"))
        .map(|(p, b)| {
            (
                if p.ends_with("PARTY.BSX") {
                    "F/PARTY.BSX"
                } else if p.ends_with("CLOUD.BCX") {
                    "F/CLOUD.BCX"
                } else if p.ends_with("FIELD.TDB") {
                    "F/FIELD.TDB"
                } else {
                    "F/OTHER"
                },
                b,
            )
        })
        .collect();
    let tdb = lzs::decode(
        &files.iter().find(|f| f.0 == "F/FIELD.TDB").unwrap().1,
        1 << 20,
    )
    .unwrap();
    let mut opened = open_among(files.clone(), "F/PARTY.BSX");
    let scene = opened.scene.take().expect("a scene");
    // The hero's five parts from the BCX, then the record's sword: six parts under model 0.
    let hero = relicview::demo::hero();
    let parts: Vec<usize> = (0..6)
        .map(|j| node(&scene, &format!("part {j}"), "model 0"))
        .collect();
    let sword = parts[5];
    assert_eq!(
        scene.nodes[sword]
            .parent
            .map(|p| scene.nodes[p as usize].name.clone().unwrap()),
        Some("bone 3".into()),
        "the sword is on the right arm"
    );
    let bcx_triangles: usize = hero
        .parts
        .iter()
        .flat_map(|p| &p.polygons)
        .map(|p| p.kind.unwrap().corners() - 2)
        .sum();
    let model0 = scene.layers.iter().position(|l| l == "model 0").unwrap() as u32;
    let others: Vec<u32> = (0..scene.layers.len() as u32)
        .filter(|&l| l != model0)
        .collect();
    assert_eq!(
        scene.triangle_count_in(0, &others),
        bcx_triangles + 12,
        "the BCX's triangles and the sword's 12"
    );
    // The BCX's three animations (its stand, walk and run), then the record's at slot 3.
    let labels: Vec<&str> = scene
        .choice
        .as_ref()
        .unwrap()
        .options
        .iter()
        .map(|o| o.label.as_str())
        .collect();
    assert_eq!(
        &labels[..5],
        [
            "model 0 (CLOUD.BCX)",
            "model 0: animation 0, stand (1 frame)",
            "model 0: animation 1, walk (16 frames)",
            "model 0: animation 2, run (8 frames)",
            "model 0: animation 3 (12 frames)"
        ]
    );
    let info = opened.described().info_rows();
    assert!(
        info.iter()
            .any(|r| r.value.contains("merged from F/CLOUD.BCX")),
        "{info:?}"
    );
    assert!(
        info.iter()
            .any(|r| r.label == "eyes and mouths" && r.value == "from F/FIELD.TDB"),
        "{info:?}"
    );
    // Slot 0, face 0: the eye image (0) at u 0..31, v 0..31 and again at u 32..63; the mouth (5) at v 160.
    let page = "page (768, 256) clut (320, 480) Four";
    for (x, y) in [(15, 15), (3, 16), (20, 10)] {
        assert_eq!(
            texel_of(&scene, page, x, y),
            tdb_texel(&tdb, 0, 0, x, y),
            "left eye at ({x}, {y})"
        );
        assert_eq!(
            texel_of(&scene, page, 32 + x, y),
            tdb_texel(&tdb, 0, 0, x, y),
            "right eye at ({x}, {y})"
        );
        assert_eq!(
            texel_of(&scene, page, x, 160 + y),
            tdb_texel(&tdb, 5, 0, x, y),
            "mouth at ({x}, {y})"
        );
    }
    assert_ne!(tdb_texel(&tdb, 0, 0, 15, 15), [0; 4], "the iris is drawn");
    // The lamp's glow: semi-transparent, adding to what is behind; its STP texels half transparent.
    let glow = scene
        .materials
        .iter()
        .find(|m| m.name.as_deref().is_some_and(|n| n.contains("(704, 256)")))
        .expect("the glow's page");
    assert_eq!(glow.blend, Some(relicview::scene::Blend::Add));
    let t = &scene.textures[glow.texture.unwrap() as usize].texels;
    assert_eq!(
        t.rgba[(8 * 256 + 8) * 4 + 3],
        128,
        "an STP texel of a semi-transparent polygon blends"
    );
    // Exported: the glow blends, the cut-outs are masks.
    let glb = relicview::gltf::export_glb(&scene, Default::default()).unwrap();
    let json = String::from_utf8_lossy(
        &glb[20..20 + u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize],
    )
    .to_string();
    assert!(json.contains("\"alphaMode\":\"BLEND\"") && json.contains("\"alphaMode\":\"MASK\""));

    // Without the BCX and the TDB: the record's sword alone, hung at the model; eyes grey.
    let alone: Vec<(&str, Vec<u8>)> = files.into_iter().filter(|f| f.0 == "F/PARTY.BSX").collect();
    let mut opened = open_among(alone, "F/PARTY.BSX");
    let scene = opened.scene.take().unwrap();
    let sword = node(&scene, "part 5", "model 0");
    assert_eq!(
        scene.nodes[sword]
            .parent
            .map(|p| scene.nodes[p as usize].name.clone().unwrap()),
        Some("model 0".into())
    );
    assert_eq!(scene.choice.as_ref().unwrap().options[0].label, "model 0");
    let info = opened.described().info_rows();
    assert!(
        info.iter()
            .any(|r| r.value.contains("CLOUD.BCX is not in the archive")),
        "{info:?}"
    );
}

#[test]
fn real_npcs_get_their_eyes_and_mouths_from_the_real_field_tdb() {
    let tdb = shared("FIELD.TDB_u");
    let opened = open_among(
        vec![
            ("FF7/MD1_1.BSX", shared("MD1_1_u.BSX")),
            ("FF7/FIELD.TDB", lzs::encode(&tdb)),
        ],
        "FF7/MD1_1.BSX",
    );
    let scene = opened.scene.unwrap();
    // Model 2 (slot 2) has face 13: its palette is row 480 + 2 of the face CLUTs, its eye is
    // image 80 + 2·3 = 86 at u + 2·64, its mouth image 87 at u + 2·32.
    let page = "page (768, 256) clut (320, 482) Four";
    let mut drawn = 0;
    for (x, y) in [(16, 16), (10, 12), (22, 20), (5, 8)] {
        let eye = tdb_texel(&tdb, 86, 13, x, y);
        assert_eq!(
            texel_of(&scene, page, 128 + x, y),
            eye,
            "eye texel ({x}, {y})"
        );
        assert_eq!(
            texel_of(&scene, page, 64 + x, 160 + y),
            tdb_texel(&tdb, 87, 13, x, y),
            "mouth texel ({x}, {y})"
        );
        drawn += (eye[3] > 0) as usize;
    }
    assert!(drawn > 0, "the eye has colour");
    // Models 3 and 4 (faces 12 and 18) have their own palette rows.
    for clut in [483, 484] {
        assert!(
            scene
                .materials
                .iter()
                .any(|m| m.name.as_deref()
                    == Some(&format!("page (768, 256) clut (320, {clut}) Four"))),
            "row {clut}"
        );
    }
    assert!(
        !scene
            .materials
            .iter()
            .any(|m| m.name.as_deref().is_some_and(|n| n.contains("FIELD.TDB"))),
        "no grey stand-ins left"
    );
}

#[test]
fn the_format_notes_fixture_recipe_comes_out_where_it_says() {
    // One model, 2 bones, 1 part with one gouraud-textured quad, 1 animation, one 4-bit
    // image and one CLUT: the offsets the format notes give for it.
    let quad = PolySpec {
        kind: Some(PolyKind::QuadColorTex),
        vertices: [0, 1, 2, 3],
        colors: [[128; 4]; 4],
        texcoords: [0, 1, 2, 3],
        control: 0,
    };
    let part = PartSpec {
        bone: 1,
        vertices: vec![[0, 0, 0], [10, 0, 0], [0, 10, 0], [10, 10, 0]],
        polygons: vec![quad],
        flags: vec![0x7D00_1A02],
        texcoords: vec![[0, 0], [15, 0], [0, 15], [15, 15]],
    };
    let anim = AnimSpec {
        frames: 1,
        channels: vec![
            Channel {
                mask: 0,
                rotation: [0; 3],
                translation: [0xFF, 0, 0xFF],
            },
            Channel {
                mask: 0,
                rotation: [0x40, 0, 0],
                translation: [0xFF; 3],
            },
        ],
        statics: vec![0],
        ..Default::default()
    };
    let model = ModelSpec {
        face_id: 0,
        global_id: 0,
        scale: 0x1000,
        ambient: [0; 3],
        bones: vec![(0, -1), (-100, 0)],
        parts: vec![part],
        animations: vec![anim],
        starts: [0; 3],
    };
    let rects = vec![
        RectSpec {
            x: 640,
            y: 256,
            width: 16,
            height: 16,
            halfwords: vec![0x1111; 256],
        },
        RectSpec {
            x: 0,
            y: 500,
            width: 16,
            height: 1,
            halfwords: vec![0x7FFF; 16],
        },
    ];
    let b = write(&BsxSpec {
        models: vec![model],
        rects,
    });
    assert_eq!(
        (u32_at(&b, 0), u32_at(&b, 4)),
        (0x324, 0x6C),
        "size_file, offset_models"
    );
    assert_eq!(b.len(), 0x324);
    assert_eq!(
        [u32_at(&b, 0x6C), u32_at(&b, 0x70), u32_at(&b, 0x74)],
        [0x8000_006C, 1, 0x78],
        "models header"
    );
    assert_eq!(u32_at(&b, 0x7C + 4), 0x30, "offset_skeleton");
    assert_eq!(
        &b[0xB4..0xC2],
        [1, 1, 4, 4, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1],
        "part header counts"
    );
    let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    assert_eq!(
        [
            u16_at(0xC2),
            u16_at(0xC4),
            u16_at(0xC6),
            u16_at(0xC8),
            u16_at(0xCA)
        ],
        [0x24, 0x40, 0x3C, 0x48, 52],
        "part offsets and buffer size"
    );
    assert_eq!(u32_at(&b, 0xCC), 0x8000_0008, "the part block's pointer");
    assert_eq!(
        [
            u16_at(0xD4),
            b[0xD6] as u16,
            u16_at(0xDA),
            u16_at(0xDC),
            u16_at(0xDE)
        ],
        [1, 2, 0x14, 0x14, 0x16],
        "animation header"
    );
    assert_eq!(u32_at(&b, 0xE0), 0x8000_0054);
    assert_eq!(
        [u32_at(&b, 0xE4), b[0xE8] as usize],
        [0x240, 2],
        "texture section header"
    );
    assert_eq!(u32_at(&b, 0xE4 + 8 + 8), 0x20);
    assert_eq!(u32_at(&b, 0xE4 + 8 + 12 + 8), 0x220);
    assert_eq!(u32_at(&b, 0x08 + 0x3C), 0x7D00_1A02, "the flag word");
    let f = BsxFile::parse(&b).unwrap();
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    // Wrapped in LZS and back: the same bytes.
    assert_eq!(lzs::decode(&lzs::encode(&b), 1 << 20).unwrap(), b);
}

/// Per model record that lies wholly inside `b` (cut short of what its header says), from
/// the bytes alone: the triangles of the parts whose header and data lie wholly inside. A
/// model whose bones the cut reaches draws nothing; a part header it reaches ends the list.
fn triangles_inside(b: &[u8]) -> Vec<usize> {
    let u16_at = |at: usize| u16::from_le_bytes([b[at], b[at + 1]]) as usize;
    let om = u32_at(b, 4);
    if om + 16 > b.len() {
        return Vec::new();
    }
    let sizes = [0x18, 0x14, 0x0C, 0x0C, 0x08, 0x08, 0x10, 0x14];
    let mut models = Vec::new();
    for i in 0..u32_at(b, om + 4) {
        let rec = om + 16 + 48 * i;
        if rec + 48 > b.len() {
            break;
        }
        let (nb, np) = (b[rec + 0x17] as usize, b[rec + 0x23] as usize);
        let skeleton = rec + u32_at(b, rec + 4);
        let mut triangles = 0;
        if skeleton + 4 * nb <= b.len() {
            for j in 0..np {
                let h = skeleton + 4 * nb + 32 * j;
                if h + 32 > b.len() {
                    break;
                }
                let base = u32_at(b, h + 0x18) & 0x7FFF_FFFF;
                let (nv, nt, nf, nc) = (
                    b[h + 2] as usize,
                    b[h + 3] as usize,
                    b[h + 0x0C] as usize,
                    b[h + 0x0D] as usize,
                );
                let polys: usize = sizes
                    .iter()
                    .zip(&b[h + 4..h + 12])
                    .map(|(s, &n)| s * n as usize)
                    .sum();
                let end = [
                    base + 4 + 8 * nv,
                    base + u16_at(h + 0x0E) + polys,
                    base + u16_at(h + 0x12) + 4 * nf,
                    base + u16_at(h + 0x10) + 2 * nt,
                    base + u16_at(h + 0x14) + nc,
                ];
                if end.iter().all(|&e| e <= b.len()) {
                    triangles += [2, 1, 2, 1, 1, 2, 1, 2]
                        .iter()
                        .zip(&b[h + 4..h + 12])
                        .map(|(w, &n)| w * n as usize)
                        .sum::<usize>();
                }
            }
        }
        models.push(triangles);
    }
    models
}

#[test]
fn a_field_model_cut_short_shows_what_lies_wholly_inside_and_says_where_it_ends() {
    for name in REAL {
        let bytes = shared(name);
        let om = u32_at(&bytes, 4);
        // Every 499th byte, and around the models section where records and headers sit.
        let cuts = (8..bytes.len())
            .step_by(499)
            .chain((om.saturating_sub(64).max(8)..(om + 2400).min(bytes.len())).step_by(13));
        for cut in cuts {
            let part = &bytes[..cut];
            let doc = registry::open(name, part.to_vec(), Purpose::Show);
            let e = doc
                .error()
                .unwrap_or_else(|| panic!("{name} cut at {cut}: no damage reported"));
            assert!(doc.damaged(), "{name} cut at {cut}: {e}");
            assert!(
                e.message.contains(&format!("ends at byte {cut}"))
                    && e.message
                        .contains(&format!("size_file says {}", bytes.len())),
                "{e}"
            );
            let j: serde_json::Value =
                serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json())
                    .unwrap();
            let got: Vec<usize> = j["models"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["triangles"].as_u64().unwrap() as usize)
                .collect();
            assert_eq!(got, triangles_inside(part), "{name} cut at {cut}");
            assert_eq!(j["error"]["offset"], cut);
        }
    }
    // What the scene draws: model 2 of MD1_1 cut inside model 3's part headers is whole.
    let bytes = shared("MD1_1_u.BSX");
    let part = bytes[..36000].to_vec();
    let expected = triangles_inside(&part);
    let opened = open_among(vec![("FIELD/MD1_1.BSX", part)], "FIELD/MD1_1.BSX");
    let scene = opened
        .scene
        .expect("a damaged field model still has a scene");
    assert_eq!(expected[2], 460);
    assert!(
        expected[3] > 0 && expected[3] < 500,
        "model 3 is drawn in part: {expected:?}"
    );
    assert!(scene.triangle_count(0) > 0);
}

/// Found by the `open` fuzz target: an animation block several headers name, read by one and
/// listed by another whose table offsets differ, listed its static translations past the end
/// of the file. The tables are listed where they were read.
#[test]
fn a_shared_animation_block_lists_its_tables_where_they_were_read() {
    let hex = "54494d2e1000000002020000000000000000000202000000000000000000000800000015000000000003000200000000000000000000010000006000005b0000000000000200000041414141414141414141414141414141414141414141000000000008090a0b000000000000000000";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let doc = relicview::formats::registry::open(
        "X.BSX",
        bytes,
        relicview::formats::registry::Purpose::Show,
    );
    let view = doc.inspector(relicview::formats::Found::NOTHING).unwrap();
    let shown = doc.bytes(0).unwrap().len();
    for r in &view.chunks {
        assert!(
            r.offset <= r.end && r.end <= shown,
            "{} at {}..{} in {shown} bytes",
            r.name,
            r.offset,
            r.end
        );
    }
    assert!(view.fields.iter().all(|f| f.offset + f.len <= shown));
}

fn disc(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7-disc")
            .join(name),
    )
    .expect("the shared FF7 disc files sit beside the repo")
}

#[test]
fn a_clip_plays_its_own_static_translations_and_every_clip_lasts_its_frames() {
    use relicview::scene::Target;
    // MD1_1's model 3 holds its root at (0, −261, 2) for all of clip 3; its first animation
    // at (0, −412, 2) (docs/formats/bsx.md, "Clips").
    let opened = open_among(vec![("MD1_1.BSX", shared("MD1_1_u.BSX"))], "MD1_1.BSX");
    let mut scene = opened.scene.unwrap();
    let root = node(&scene, "bone 0", "model 3");
    assert_eq!(
        scene.nodes[root].transform.translation,
        [0.0, -412.0, 2.0],
        "at rest: the first animation's first frame"
    );
    let (k, clip) = scene
        .clips
        .iter()
        .enumerate()
        .find(|(_, c)| c.name == "model 3 animation 3")
        .unwrap();
    let held = clip
        .tracks
        .iter()
        .find(|t| t.target == Target::Translation(root as u32))
        .expect("the clip keys the root's translation");
    assert_eq!(held.values[..3], [0.0, -261.0, 2.0]);
    let option = scene
        .choice
        .as_ref()
        .unwrap()
        .options
        .iter()
        .position(|o| o.clip == Some(k as u32))
        .unwrap();
    scene.choose(option);
    for t in [0.0, 0.25, 0.5] {
        assert_eq!(
            scene.pose(t)[root].translation,
            [0.0, -261.0, 2.0],
            "the viewer plays the clip's own translation at {t} s"
        );
    }
    // The inspector says what each channel plays: the root of clip 3 held at its statics.
    let doc = registry::open("MD1_1.BSX", shared("MD1_1_u.BSX"), Purpose::Show);
    let plays: Vec<String> = doc
        .inspector(relicview::formats::Found::NOTHING)
        .unwrap()
        .fields
        .iter()
        .filter(|f| f.what == "bone 0")
        .map(|f| f.value.clone())
        .collect();
    assert!(
        plays
            .iter()
            .any(|v| v.ends_with("translation (0, -261 (static 0), 2 (static 1))")),
        "{plays:?}"
    );
    assert!(
        plays
            .iter()
            .any(|v| v.ends_with("translation (0, translation frames 0, 2 (static 0))")),
        "{plays:?}"
    );
    // Every channel of every clip spans the clip: a still one lasts its frames.
    for c in scene.clips.iter().filter(|c| c.name != "blink") {
        assert!(
            c.tracks
                .iter()
                .all(|t| t.times.first() == Some(&0.0) && t.times.last() == Some(&c.duration)),
            "{}",
            c.name
        );
    }
}

#[test]
fn a_characters_bcx_alone_names_its_clips_after_it_and_says_which_character_it_is() {
    let opened = open_among(vec![("CLOUD.BCX", disc("CLOUD.BCX"))], "CLOUD.BCX");
    let scene = opened.scene.as_ref().unwrap();
    let names: Vec<&str> = scene.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "CLOUD animation 0 (stand)",
            "CLOUD animation 1 (walk)",
            "CLOUD animation 2 (run)"
        ]
    );
    assert_eq!(scene.skins.len(), 1);
    assert_eq!(
        (scene.skins[0].name.as_str(), scene.skins[0].joints.len()),
        ("CLOUD", 22),
        "one skeleton of Cloud's 22 bones"
    );
    let info: serde_json::Value = serde_json::from_str(&opened.described().info_json()).unwrap();
    assert_eq!(
        (
            info["format"].as_str(),
            info["models"][0]["character"].as_u64()
        ),
        (Some("bcx"), Some(1)),
        "CLOUD.BCX is character 1"
    );
    let doc = registry::open("CLOUD.BCX", disc("CLOUD.BCX"), Purpose::Show);
    assert_eq!(
        doc.inspector(relicview::formats::Found::NOTHING)
            .map(|v| v.format),
        Some("bcx"),
        "inspect says what info says"
    );
    let _ = doc.build_scene(&Archive::detached());
}

#[test]
fn a_field_model_in_its_lzs_container_cut_short_decodes_what_is_there_and_draws_what_lies_inside() {
    for name in REAL {
        let plain = shared(name);
        let packed = lzs::encode(&plain);
        // Cuts across the container: a few bytes in, every 997th byte, its half.
        for cut in (16..packed.len()).step_by(997).chain([packed.len() / 2]) {
            let part = packed[..cut].to_vec();
            // What the bytes there decode to, by the stream's own rule.
            let decoded = lzs::decode_stream(&part[4..], usize::MAX).unwrap();
            let doc = registry::open(name, part, Purpose::Show);
            let j: serde_json::Value =
                serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json())
                    .unwrap();
            assert_eq!(
                j["compressed"], true,
                "{name} cut at {cut}: read as its LZS container"
            );
            assert_eq!(
                j["decompressed_bytes"].as_u64(),
                Some(decoded.len() as u64),
                "{name} cut at {cut}"
            );
            let e = doc
                .error()
                .unwrap_or_else(|| panic!("{name} cut at {cut}: no damage"));
            assert!(
                e.message.contains(&format!(
                    "the LZS container ends at byte {cut} of the {}",
                    packed.len()
                )),
                "{e}"
            );
            if decoded.len() >= u32_at(&plain, 4) + 16 {
                assert!(doc.damaged(), "{name} cut at {cut}: {e}");
                assert_eq!(
                    e.offset,
                    decoded.len(),
                    "damaged at the last decompressed byte"
                );
                let got: Vec<usize> = j["models"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["triangles"].as_u64().unwrap() as usize)
                    .collect();
                assert_eq!(got, triangles_inside(&decoded), "{name} cut at {cut}");
            }
        }
    }
    // MD1_1 cut at three quarters of its container (past its models section): the info
    // pane's bytes row says so, and models draw.
    let packed = lzs::encode(&shared("MD1_1_u.BSX"));
    let half = packed[..packed.len() * 3 / 4].to_vec();
    let rows = registry::open("MD1_1.BSX", half.clone(), Purpose::Show)
        .info(relicview::formats::Found::NOTHING)
        .rows();
    let bytes = rows.iter().find(|r| r.label == "bytes").unwrap();
    assert!(
        bytes.value.contains("compressed (LZS, cut short"),
        "{}",
        bytes.value
    );
    let opened = open_among(vec![("MD1_1.BSX", half)], "MD1_1.BSX");
    assert!(
        opened
            .scene
            .expect("a scene of what lies inside")
            .triangle_count(0)
            > 0
    );
    // A plain model cut short stays a plain one.
    let doc = registry::open(
        "MD1_1.BSX",
        shared("MD1_1_u.BSX")[..30_000].to_vec(),
        Purpose::Show,
    );
    assert!(relicview::formats::Described::alone(&*doc)
        .info_rows()
        .iter()
        .any(|r| r.label == "bytes" && r.value.contains("not compressed")));
}
