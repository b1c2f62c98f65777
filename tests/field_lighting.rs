//! FF7 field models as the game draws them: the real files lit with the real FIELD.BIN (one
//! real corner worked by hand below), the faces from FIELD.BIN's tables against the real
//! FIELD.TDB, and a FIELD.BIN that is missing, cut short, of another size or misnamed leaving
//! the models in their stored colours with the reason said (docs/formats/bsx.md).

use relicview::archive::{open_file, MemorySource, Opened};
use relicview::formats::ff7::bsx::field_bin::{FieldTables, EYES, MOUTHS};
use relicview::formats::ff7::lzs;
use relicview::scene::Scene;
use std::cell::RefCell;
use std::io::Write;
use std::process::Command;

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

/// `data` gzip-compressed by Python's gzip module, as a gzip tool writes it.
fn python_gzip(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("python3")
        .args(["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read(), mtime=0))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(data).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// FIELD.BIN as the disc stores it: the unpacked length, a word, then a gzip stream.
fn disc_field_bin() -> Vec<u8> {
    let module = shared("FIELD.BIN_u");
    let mut out = (module.len() as u32).to_le_bytes().to_vec();
    out.extend(0u32.to_le_bytes());
    out.extend(python_gzip(&module));
    out
}

fn open_among(files: Vec<(&str, Vec<u8>)>, path: &str) -> Opened {
    let source = MemorySource::new(files.into_iter().map(|(p, b)| (p.to_string(), b)));
    let archive = RefCell::new(source.archive());
    pollster::block_on(open_file(&archive, &source, path)).unwrap()
}

/// The listing `relicview inspect --json` prints, as JSON.
fn listing(opened: &Opened) -> serde_json::Value {
    serde_json::to_value(opened.described().inspector().unwrap().listing()).unwrap()
}

fn polygon_at(listing: &serde_json::Value, offset: usize) -> serde_json::Value {
    listing["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["offset"] == offset && r.get("polygon").is_some())
        .unwrap_or_else(|| panic!("a polygon at {offset}"))["polygon"]
        .clone()
}

#[test]
fn a_real_corner_is_lit_as_the_engines_integers_say() {
    let opened = open_among(
        vec![
            ("FIELD/MD1_1.BSX", lzs::encode(&shared("MD1_1_u.BSX"))),
            ("FIELD/FIELD.BIN", disc_field_bin()),
        ],
        "FIELD/MD1_1.BSX",
    );
    let l = listing(&opened);
    // MD1_1's model 5 (a one-bone prop; model 6 draws the same part data) and its first
    // polygon, a flat textured quad at byte 23952: stored (128, 128, 128), normal 44.
    let p = polygon_at(&l, 23952);
    assert_eq!(p["kind"], "quad_mono_tex");
    assert_eq!(
        p["owners"],
        serde_json::json!([[5, 0], [6, 0]]),
        "model 6 draws the block model 5 lit"
    );
    //
    // Its bone: animation 0, frame 0, rotation (rx, ry, rz) = (255, 0, 0). From FIELD.BIN's
    // sine table: sin 255 = −100, cos 255 = 4094; sin 0 = 0, cos 0 = 4096.
    //   col2 = ((cx·sy)>>12, −sx, (cx·cy)>>12) = (0, 100, 4094·4096>>12 = 4094)
    //   T1 = (sx·sy)>>12 = 0, T2 = (sx·cy)>>12 = −100
    //   col0 = ((sz·T1 + cz·cy)>>12, (sz·cx)>>12, (sz·T2 − cz·sy)>>12) = (4096, 0, 0)
    //   col1 = ((cz·T1 − sz·cy)>>12, (cz·cx)>>12, (cz·T2 + sz·sy)>>12) = (0, 4094, −100)
    // The root's world rotation W is that, under the identity.
    // Lights (record 5): l1 (2622, −2374, 2097) colour (109, 150, 104); l2 (800, −2788,
    // −2899); l3 (−3754, −884, 1407); ambient (68, 64, 66). LLM = (L · W) >> 12, row 1:
    //   2622·4096 >> 12 = 2622
    //   (−2374·4094 + 2097·−100) >> 12 = −9928856 >> 12 = −2425
    //   (−2374·100 + 2097·4094) >> 12 = 8347718 >> 12 = 2037
    // Normal 44 = (2676, 2108, 2273):
    //   IR1 = (2622·2676 − 2425·2108 + 2037·2273) >> 12 = 6534673 >> 12 = 1595
    //   IR2 (row 2: 800, −2716, −2966) and IR3 (row 3: −3754, −918, 1384) are negative: 0.
    // Colour: IR_c = (ambient_c·16·4096 + colour1_c·16·1595) >> 12:
    //   R (68·65536 + 109·25520) >> 12 = 7238128 >> 12 = 1767
    //   G (64·65536 + 150·25520) >> 12 = 8022304 >> 12 = 1958
    //   B (66·65536 + 104·25520) >> 12 = 6979456 >> 12 = 1703
    // out = ((128·16·IR_c) >> 12) >> 4: R 883 >> 4 = 55, G 979 >> 4 = 61, B 851 >> 4 = 53.
    assert_eq!(
        p["corners"],
        serde_json::json!([{ "stored": [128, 128, 128], "normal": 44, "lit": [55, 61, 53] }])
    );
    // The scene draws it so: a textured polygon modulates by colour / 128, twice the colour
    // on the 0–255 scale, in model 5's and model 6's meshes alike.
    let scene = opened.scene.as_ref().unwrap();
    let drawn = lit_corner_colours(scene, [110, 122, 106]);
    assert!(
        drawn >= 8,
        "the quad's four corners in both models' meshes: {drawn}"
    );
    // The colour word's field says what its bytes store.
    let field = l["records"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["fields"].as_array().unwrap())
        .find(|f| f["offset"] == 23952 + 4)
        .unwrap();
    assert_eq!(field["value"], "(128, 128, 128), normal 44");
    let info = opened.described().info_rows();
    assert!(
        info.iter().any(|r| r.label == "lighting"
            && r.value.starts_with("lit by FIELD/FIELD.BIN: ")
            && r.links == ["FIELD/FIELD.BIN"]),
        "{info:?}"
    );
}

/// Corners drawn with the lit colour `rgb` (lit colours, not stored ones).
fn lit_corner_colours(scene: &Scene, rgb: [u8; 3]) -> usize {
    scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter_map(|p| p.lit_colors.as_ref())
        .flatten()
        .filter(|c| c[..3] == rgb)
        .count()
}

#[test]
fn every_real_file_is_lit_every_byte_of_it_claimed_and_the_shading_follows_the_normals() {
    let module = shared("FIELD.BIN_u");
    let tables = FieldTables::parse(&module).unwrap();
    for name in REAL {
        let opened = open_among(
            vec![("F/X.BSX", shared(name)), ("F/FIELD.BIN", module.clone())],
            "F/X.BSX",
        );
        let l = listing(&opened);
        // Every byte is a record's: decoded, or (an empty texture section's 12) kept opaque.
        assert_eq!(l["coverage"]["unclaimed"], 0, "{name}: {}", l["coverage"]);
        assert!(l["coverage"]["opaque"].as_u64().unwrap() <= 12, "{name}");
        let polygons: Vec<&serde_json::Value> = l["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r.get("polygon"))
            .collect();
        let f = relicview::formats::ff7::bsx::raw::BsxFile::parse(&shared(name)).unwrap();
        assert_eq!(
            polygons.len(),
            f.parts.values().map(|d| d.polygons.len()).sum::<usize>(),
            "{name}: every polygon a record"
        );
        // Each corner against the notes' formula in floats, worked independently: the bone's
        // world rotation from its chain's angles (Ry·Rx·Rz, 256 steps a turn, true sines),
        // stored · (ambient + Σ colour_i · max(0, l_i · (W·n))) / 256.
        let (mut worst, mut corners, mut dark, mut bright) = (0.0f64, 0, 0, 0);
        for p in &polygons {
            let (m, part) = (
                p["model"].as_u64().unwrap() as usize,
                p["part"].as_u64().unwrap() as usize,
            );
            let record = &f.models[m];
            let world = float_world(&f, m, record.parts[part].bone as usize);
            for c in p["corners"].as_array().unwrap() {
                let stored: Vec<f64> = c["stored"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                let lit: Vec<f64> = c["lit"]
                    .as_array()
                    .expect("every part of these files is lit")
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                let n = glam::DVec3::from(
                    tables
                        .normal(c["normal"].as_u64().unwrap() as u8)
                        .map(|x| x as f64 / 4096.0),
                );
                let wn = world * n;
                for ch in 0..3 {
                    let diffuse: f64 = record
                        .lights
                        .iter()
                        .map(|l| {
                            l.color[ch] as f64
                                * glam::DVec3::from(l.direction.map(|x| x as f64 / 4096.0))
                                    .dot(wn)
                                    .max(0.0)
                        })
                        .sum();
                    let want = (stored[ch] * (record.ambient[ch] as f64 + diffuse).min(2047.9)
                        / 256.0)
                        .min(255.0);
                    worst = worst.max((lit[ch] - want).abs());
                }
                corners += 1;
                // Some corners face away from every light (the ambient alone), some into one.
                let ratio = lit[0] / stored[0].max(1.0);
                dark += usize::from(stored[0] >= 64.0 && ratio < 0.35);
                bright += usize::from(stored[0] >= 64.0 && ratio > 0.8);
            }
        }
        if polygons.is_empty() {
            continue;
        }
        eprintln!("{name}: {corners} corners, the farthest {worst} from the formula");
        assert!(
            worst <= 2.0,
            "{name}: a lit channel {worst} from the notes' formula"
        );
        assert!(
            dark > 0 && bright > 0,
            "{name}: {dark} corners in the ambient alone, {bright} lit brightly, of {corners}"
        );
    }
}

/// The world rotation of bone `b` of model `m` at its first animation's first frame, in
/// floats: its own Ry·Rx·Rz under its parent's.
fn float_world(f: &relicview::formats::ff7::bsx::raw::BsxFile, m: usize, b: usize) -> glam::DMat3 {
    let model = &f.models[m];
    let first = model
        .animations
        .first()
        .and_then(|a| Some((a, f.anims.get(&a.block)?)));
    let angle = |a: u8| a as f64 * std::f64::consts::TAU / 256.0;
    let local = |b: usize| {
        let (rot, _) = first.map_or(([0; 3], [0; 3]), |(a, d)| {
            relicview::formats::ff7::bsx::scene::frame(a, d, b, 0)
        });
        glam::DMat3::from_rotation_y(angle(rot[1]))
            * glam::DMat3::from_rotation_x(angle(rot[0]))
            * glam::DMat3::from_rotation_z(angle(rot[2]))
    };
    let parent = model.bones[b].parent;
    if parent < 0 || parent as usize >= b {
        local(b)
    } else {
        float_world(f, m, parent as usize) * local(b)
    }
}

#[test]
fn the_face_tables_name_real_field_tdb_images_and_info_says_what_each_model_shows() {
    let tdb_bytes = shared("FIELD.TDB_u");
    let tdb = relicview::formats::ff7::bsx::tdb::TdbFile::parse(&tdb_bytes).unwrap();
    let tables = FieldTables::parse(&shared("FIELD.BIN_u")).unwrap();
    assert_eq!(
        (tables.eyes.len(), tables.mouths.len()),
        (EYES.entries, MOUTHS.entries)
    );
    for (f, (eyes, mouths)) in tables.eyes.iter().zip(&tables.mouths).enumerate() {
        for &i in eyes.iter().chain(mouths) {
            assert!(
                (i as u16) < tdb.image_count,
                "face {f} names image {i} of {}",
                tdb.image_count
            );
        }
        // Faces 0–9, the playable characters: their images in their own block of eight.
        if f < 10 {
            let own: std::collections::BTreeSet<u8> = eyes
                .iter()
                .chain(mouths)
                .copied()
                .filter(|&i| i != 126)
                .collect();
            assert!(
                own.iter()
                    .all(|&i| (8 * f as u8..8 * f as u8 + 8).contains(&i)),
                "face {f}: {own:?}"
            );
            assert!(
                own.len() >= 7,
                "face {f} shows most of its eight images: {own:?}"
            );
        }
    }
    // MD1_1's records: Cloud (face 0), Barret (2), then faces 13, 12, 18 and two props (33).
    let opened = open_among(
        vec![
            ("F/MD1_1.BSX", shared("MD1_1_u.BSX")),
            ("F/FIELD.BIN", shared("FIELD.BIN_u")),
            ("F/FIELD.TDB", lzs::encode(&tdb_bytes)),
        ],
        "F/MD1_1.BSX",
    );
    let info: serde_json::Value = serde_json::from_str(&opened.described().info_json()).unwrap();
    let faces: Vec<serde_json::Value> = info["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["face"].clone())
        .collect();
    let want = |id: usize| serde_json::json!({ "id": id, "eyes": [tables.eyes[id][1], tables.eyes[id][1]], "mouth": tables.mouths[id][0], "source": "FIELD.BIN" });
    assert_eq!(faces, [0, 2, 13, 12, 18, 33, 33].map(want).to_vec());
    assert_eq!(
        faces[0]["eyes"],
        serde_json::json!([0, 0]),
        "Cloud's open eye is his first image"
    );
    // Jessie (model 2, face 13, slot 2): her open eye is the table's image in her palette
    // row; shut, the table's slot 2.
    let scene = opened.scene.as_ref().unwrap();
    let page = scene
        .materials
        .iter()
        .find(|m| m.name.as_deref() == Some("page (768, 256) clut (320, 482) Four"))
        .expect("her face page");
    let texels = &scene.textures[page.texture.unwrap() as usize].texels;
    assert_eq!(
        (texels.width, texels.height),
        (256, 512),
        "open eyes above, shut below"
    );
    let texel = |u: usize, v: usize| -> [u8; 4] {
        texels.rgba[(v * 256 + u) * 4..(v * 256 + u) * 4 + 4]
            .try_into()
            .unwrap()
    };
    let tdb_texel = |image: usize, x: usize, y: usize| {
        let c = tdb.palette(&tdb_bytes, 13);
        let byte = tdb.image(&tdb_bytes, image).unwrap()[y * 16 + x / 2];
        let k = if x % 2 == 0 { byte & 15 } else { byte >> 4 } as usize;
        relicview::formats::ff7::psx::rgba(u16::from_le_bytes([c[2 * k], c[2 * k + 1]]))
    };
    let (open, shut) = (tables.eyes[13][1] as usize, tables.eyes[13][2] as usize);
    for (x, y) in [(16, 16), (10, 12), (22, 20)] {
        assert_eq!(
            texel(128 + x, y),
            tdb_texel(open, x, y),
            "open eye at ({x}, {y})"
        );
        assert_eq!(
            texel(128 + x, 256 + y),
            tdb_texel(shut, x, y),
            "shut eye at ({x}, {y})"
        );
    }
    // The blink: open at a still frame, shut for the last frames of each cycle.
    let blink = scene.ff7.blinks[0] as usize;
    let clip = &scene.clips[blink];
    let material = scene
        .materials
        .iter()
        .position(|m| std::ptr::eq(m, page))
        .unwrap();
    let v = |seconds: f64| {
        let mut s = scene.clone();
        s.stopped.retain(|&c| c as usize != blink);
        s.uv_offsets(seconds)[material][1]
    };
    assert_eq!(
        (v(0.0), v(2.8), v(2.95), v(3.05)),
        (0.0, 0.0, 0.5, 0.0),
        "{clip:?}"
    );
    assert!(
        relicview::view::layers::loop_duration(scene) < clip.duration,
        "the blink is not the timeline's loop"
    );
}

#[test]
fn a_missing_cut_short_wrong_sized_or_misnamed_field_bin_leaves_stored_colours_and_says_why() {
    let module = shared("FIELD.BIN_u");
    let gz = python_gzip(&module);
    let text = b"FIELD.BIN is the field module; this is a note about it.\r\n".to_vec();
    let cases: Vec<(&str, Option<Vec<u8>>, &str)> = vec![
        ("missing", None, "FIELD.BIN is not in the archive"),
        ("cut short", Some(gz[..gz.len() / 3].to_vec()), "cut short"),
        (
            "another size",
            Some(python_gzip(&module[..200_000])),
            "unpacks to only 200000 bytes",
        ),
        (
            "unpacked, another size",
            Some(module[..100_000].to_vec()),
            "expected the field module",
        ),
        ("misnamed", Some(text), "expected the field module"),
    ];
    for (what, field_bin, why) in cases {
        let mut files = vec![("FIELD/MD1_1.BSX", shared("MD1_1_u.BSX"))];
        files.extend(field_bin.clone().map(|b| ("FIELD/FIELD.BIN", b)));
        let opened = open_among(files.clone(), "FIELD/MD1_1.BSX");
        let scene = opened.scene.as_ref().unwrap();
        assert!(
            !scene.has_lit_colours(),
            "{what}: drawn with stored colours"
        );
        assert!(scene.triangle_count(0) > 0, "{what}: still drawn");
        let info = opened.described().info_rows();
        let row = info
            .iter()
            .find(|r| r.label == "lighting")
            .unwrap_or_else(|| panic!("{what}: {info:?}"));
        assert!(
            row.value.contains(why) && row.value.contains("stored colours"),
            "{what}: {}",
            row.value
        );
        // The file itself, opened: its error with an offset.
        if field_bin.is_some() {
            let own = open_among(files, "FIELD/FIELD.BIN");
            let e = own
                .described()
                .error()
                .unwrap_or_else(|| panic!("{what}: an error"));
            assert!(e.to_string().contains(why), "{what}: {e}");
        }
    }
    // Gzip alone (as Python's gzip writes it) and behind the disc's header both light.
    for (what, file) in [("gzip alone", gz), ("the disc's form", disc_field_bin())] {
        let opened = open_among(
            vec![
                ("FIELD/MD1_1.BSX", shared("MD1_1_u.BSX")),
                ("FIELD/FIELD.BIN", file),
            ],
            "FIELD/MD1_1.BSX",
        );
        assert!(opened.scene.unwrap().has_lit_colours(), "{what}");
    }
}

#[test]
fn field_bin_opened_lists_its_tables_and_draws_its_normals_on_a_sphere() {
    let opened = open_among(
        vec![
            ("FIELD/FIELD.BIN", disc_field_bin()),
            ("FIELD/MD1_1.BSX", shared("MD1_1_u.BSX")),
        ],
        "FIELD/FIELD.BIN",
    );
    assert_eq!(opened.document.kind().as_str(), "field-bin");
    let l = listing(&opened);
    let records = l["records"].as_array().unwrap();
    let normals: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["name"] == "normal").collect();
    assert_eq!(normals.len(), 240);
    assert_eq!(normals[44]["offset"], 0x3F520 + 8 * 44);
    assert_eq!(normals[44]["fields"][0]["value"], "2676");
    assert_eq!(
        records.iter().filter(|r| r["name"] == "face").count(),
        68,
        "34 rows of eyes and 34 of mouths"
    );
    assert_eq!(l["coverage"]["unclaimed"], 0);
    assert_eq!(
        l["views"][1]["label"], "as stored",
        "the disc's bytes one view away"
    );
    // Each normal a point at its direction, picking its record.
    let scene = opened.scene.as_ref().unwrap();
    assert_eq!(scene.triangle_count(0), 240 * 8);
    let prim = &scene.meshes[0].primitives[0];
    let run = prim
        .sources
        .iter()
        .find(|r| {
            // Its record, by its bytes: normal 44's row.
            let (at, len) = (&normals[44]["offset"], &normals[44]["length"]);
            let at = at.as_u64().unwrap() as usize;
            r.record == [at, at + len.as_u64().unwrap() as usize]
        })
        .unwrap();
    let corner = prim.positions[prim.indices[run.first as usize * 3] as usize];
    let n = [2676.0f32, 2108.0, 2273.0].map(|c| c / 4096.0);
    assert!(
        (0..3)
            .map(|k| (corner[k] - n[k]).powi(2))
            .sum::<f32>()
            .sqrt()
            < 0.05,
        "{corner:?} by {n:?}"
    );
    // Who uses normal 44: MD1_1's polygons, counted from the bytes.
    let source = MemorySource::new([
        ("FIELD/FIELD.BIN".to_string(), disc_field_bin()),
        ("FIELD/MD1_1.BSX".to_string(), shared("MD1_1_u.BSX")),
        ("OTHER/README.TXT".to_string(), b"hi".to_vec()),
    ]);
    let archive = RefCell::new(source.archive());
    let rows = pollster::block_on(relicview::archive::table_user_rows(
        &archive,
        &source,
        "FIELD/FIELD.BIN",
        "normal",
        44,
    ));
    let f = relicview::formats::ff7::bsx::raw::BsxFile::parse(&shared("MD1_1_u.BSX")).unwrap();
    let uses = f
        .parts
        .values()
        .flat_map(|d| &d.polygons)
        .filter(|p| {
            p.colors[..if p.kind.gouraud() {
                p.kind.corners()
            } else {
                1
            }]
                .iter()
                .any(|c| c[3] == 44)
        })
        .count();
    assert!(uses > 0);
    assert_eq!(
        rows[0].value,
        format!("{uses} polygons in 1 file: FIELD/MD1_1.BSX ({uses})")
    );
    assert_eq!(rows[0].links, ["FIELD/MD1_1.BSX"]);
}

#[test]
fn a_characters_parts_are_lit_with_its_bcx_bones_and_without_the_bcx_say_why() {
    let module = shared("FIELD.BIN_u");
    let demo: Vec<(String, Vec<u8>)> = relicview::demo::demo_files()
        .into_iter()
        .filter(|(p, _)| p.starts_with("DEMO/FIELD/"))
        .collect();
    let file = |name: &str| {
        demo.iter()
            .find(|(p, _)| p.ends_with(name))
            .unwrap()
            .1
            .clone()
    };
    // PARTY.BSX: character 1 (its figure in CLOUD.BCX) with a sword of its own on the BCX's
    // right arm.
    let with = open_among(
        vec![
            ("F/PARTY.BSX", file("PARTY.BSX")),
            ("F/CLOUD.BCX", file("CLOUD.BCX")),
            ("F/FIELD.BIN", module.clone()),
        ],
        "F/PARTY.BSX",
    );
    let scene = with.scene.as_ref().unwrap();
    let model0 = scene
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some("model 0"))
        .unwrap() as u32;
    let under = |mut n: usize| loop {
        match scene.nodes[n].parent {
            Some(p) if p == model0 => return true,
            Some(p) => n = p as usize,
            None => return false,
        }
    };
    let lit_meshes = scene
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| n.mesh.is_some() && under(*i))
        .filter(|(_, n)| {
            scene.meshes[n.mesh.unwrap() as usize]
                .primitives
                .iter()
                .all(|p| p.lit_colors.is_some())
        })
        .count();
    assert_eq!(lit_meshes, 6, "the BCX's five parts and the sword, all lit");
    let info = with.described().info_rows();
    let row = info.iter().find(|r| r.label == "lighting").unwrap();
    assert!(
        row.value.starts_with("lit by F/FIELD.BIN:") && !row.value.contains("stored colours"),
        "{}",
        row.value
    );
    // Without the BCX, the sword has no bone to be lit on: stored colours, and why.
    let without = open_among(
        vec![("F/PARTY.BSX", file("PARTY.BSX")), ("F/FIELD.BIN", module)],
        "F/PARTY.BSX",
    );
    let info = without.described().info_rows();
    let row = info.iter().find(|r| r.label == "lighting").unwrap();
    assert!(row.value.contains("model 0: 1 part on CLOUD.BCX's skeleton drawn with stored colours: CLOUD.BCX is not in this archive"), "{}", row.value);
    // A BCX alone has no lights of its own: its colours are stored, and the panel says so.
    let alone = open_among(
        vec![
            ("F/CLOUD.BCX", file("CLOUD.BCX")),
            ("F/FIELD.BIN", shared("FIELD.BIN_u")),
        ],
        "F/CLOUD.BCX",
    );
    assert!(!alone.scene.as_ref().unwrap().has_lit_colours());
    assert!(alone
        .described()
        .info_rows()
        .iter()
        .any(|r| r.label == "lighting"
            && r.value.starts_with(
                "stored colours: a character's lights are in the field files that place it"
            )));
}

#[test]
fn a_characters_animation_blocks_say_whose_skeleton_they_are_for() {
    let bsx = shared("MD1_1_u.BSX");
    let opened = open_among(vec![("F/MD1_1.BSX", bsx)], "F/MD1_1.BSX");
    let l = listing(&opened);
    let labels: Vec<&str> = l["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"] == "animation data")
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    // Model 0 is Cloud: his record adds animations 3–5 after the BCX's three.
    assert!(
        labels.contains(
            &"animation 3 of model 0, for CLOUD.BCX's skeleton (CLOUD.BCX not in this archive)"
        ),
        "{labels:?}"
    );
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with("animation 0 of model 2")),
        "{labels:?}"
    );
    // Their frame tables are records, decoded: no byte of the file is left unclaimed.
    assert_eq!(l["coverage"]["unclaimed"], 0);
}
