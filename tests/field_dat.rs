//! FF7 field .DAT files: the three real fields as the disc stores them, checked against what
//! docs/formats/field-dat.md says must hold (worked out here from the bytes and the numbers,
//! not from the reader's own summaries), the models their BSX holds, and clear errors for a
//! cut or broken file.

use relicview::formats::ff7::field::init;
use relicview::formats::ff7::field::raw::{DatFile, BASE};
use relicview::formats::ff7::lzs;
use relicview::formats::registry::{self, Purpose};

const FIELDS: [&str; 3] = ["MD1_1", "NMKIN_1", "ELEVTR1"];

fn shared(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata")
            .join(path),
    )
    .expect("the shared FF7 test data sits beside the repo")
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn unpacked(name: &str) -> Vec<u8> {
    let disc = shared(&format!("ff7-disc/{name}.DAT"));
    assert_eq!(u32_at(&disc, 0), disc.len() - 4, "{name}: LZS length word");
    lzs::decode(&disc, lzs::MAX_OUTPUT).unwrap()
}

#[test]
fn the_sections_follow_each_other_to_the_end_of_the_file() {
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        assert_eq!(
            u32_at(&b, 0) as u32,
            BASE + 28,
            "{name}: the script section follows the table"
        );
        for k in 0..7 {
            assert_eq!(d.sections[k].start, u32_at(&b, 4 * k) - BASE as usize);
            assert_eq!(d.sections[k].len() % 4, 0, "{name}: section {k}");
        }
        assert_eq!(d.sections[6].end, b.len());
        assert!(d.first_error().is_none(), "{name}: {:?}", d.first_error());
        let s = d.script.as_ref().unwrap();
        assert_eq!((s.version, s.creator.as_str()), ([2, 5], "kita"));
        assert_eq!(
            s.name,
            name.to_ascii_lowercase(),
            "the script's name is the file's"
        );
        assert_eq!(d.triggers.as_ref().unwrap().name, name.to_ascii_lowercase());
        assert_eq!(d.sections[4].len(), 740, "{name}: triggers");
    }
}

#[test]
fn every_script_walks_opcode_by_opcode_exactly_to_the_next() {
    // The opcode lengths are right where every walk from an entry point ends exactly on the
    // next entry point (the last on the dialogue): no opcode straddles a boundary.
    let mut regions = 0;
    let mut ops = 0;
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let s = d.script.as_ref().unwrap();
        for c in &s.scripts {
            assert!(
                c.overrun.is_none(),
                "{name}: script at {} overruns at {:?}",
                c.range.start,
                c.overrun
            );
            let walked: usize = c.ops.iter().map(|o| o.len).sum();
            assert_eq!(walked, c.range.len(), "{name}: script at {}", c.range.start);
            // Each opcode starts where the one before ended.
            for w in c.ops.windows(2) {
                assert_eq!(w[0].at + w[0].len, w[1].at);
            }
            regions += 1;
            ops += c.ops.len();
        }
        // Every actor's script 0 holds init: it reaches a RET.
        for a in 0..s.table.len() {
            let init = s.code_of(a, 0).unwrap();
            assert!(
                init.ops.iter().any(|o| o.code == 0),
                "{name}: actor {a}'s init has no RET"
            );
        }
    }
    assert!(
        regions > 50 && ops > 500,
        "{regions} regions, {ops} opcodes"
    );
}

#[test]
fn the_walkmesh_neighbours_agree_both_ways_over_one_shared_edge() {
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let w = d.walkmesh.as_ref().unwrap();
        let n = w.triangles.len();
        // The size is the count's: 4 + 30 n (+ 2 where n is odd).
        assert_eq!(d.sections[1].len(), 4 + 30 * n + 2 * (n % 2), "{name}");
        let mut winding = Vec::new();
        for (t, tri) in w.triangles.iter().enumerate() {
            let [a, bv, c] = tri.map(|v| [v[0] as i64, v[1] as i64]);
            winding
                .push(((bv[0] - a[0]) * (c[1] - a[1]) - (bv[1] - a[1]) * (c[0] - a[0])).signum());
            for e in 0..3 {
                let across = w.access[t][e];
                if across < 0 {
                    continue;
                }
                let u = across as usize;
                assert!(u < n, "{name}: triangle {t} edge {e} names {u}");
                let back = w.access[u].iter().position(|&x| x as usize == t);
                let back = back.unwrap_or_else(|| panic!("{name}: {u} does not name {t} back"));
                let edge = |tri: &[[i16; 3]; 3], k: usize| {
                    let mut e = [tri[k], tri[(k + 1) % 3]];
                    e.sort();
                    e
                };
                assert_eq!(
                    edge(tri, e),
                    edge(&w.triangles[u], back),
                    "{name}: the edge {t}/{u}"
                );
            }
        }
        winding.dedup();
        assert_eq!(winding, [-1], "{name}: every triangle winds one way");
    }
}

#[test]
fn the_camera_is_a_rotation_and_the_gateways_repeat_their_direction() {
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let c = d.camera.as_ref().unwrap();
        let r = c.rotation.map(|row| row.map(|v| v as f64 / 4096.0));
        for i in 0..3 {
            for j in 0..3 {
                let dot: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((dot - want).abs() < 0.001, "{name}: rows {i}·{j} = {dot}");
            }
        }
        let at = d.sections[3].start;
        assert_eq!(
            i16::from_le_bytes([b[at + 0x12], b[at + 0x13]]),
            c.rotation[2][2],
            "R33's copy"
        );
        // The camera sits where R·p/4096 + T is zero (up to R's rounding to 4.12 fixed
        // point: a thousandth of T's length).
        let p = c.position();
        let t_len = c
            .translation
            .iter()
            .map(|&t| (t as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        for (row, t) in r.iter().zip(c.translation) {
            let v: f64 = (0..3).map(|i| row[i] * p[i]).sum::<f64>() + t as f64;
            assert!(v.abs() < 1e-3 * t_len, "{name}: {v} of {t_len}");
        }
        for g in &d.triggers.as_ref().unwrap().gateways {
            assert_eq!(
                b[g.at + 20..g.at + 24],
                [g.direction; 4],
                "{name}: gateway at {}",
                g.at
            );
        }
    }
    let projections: Vec<u16> = FIELDS
        .iter()
        .map(|n| {
            DatFile::parse(&unpacked(n))
                .unwrap()
                .camera
                .unwrap()
                .projection
        })
        .collect();
    assert_eq!(projections, [703, 1769, 548]);
}

#[test]
fn the_model_slots_are_the_bsx_models_and_each_is_bound_by_one_char() {
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let s = d.script.as_ref().unwrap();
        let loader = d.loader.as_ref().unwrap();
        let bsx = shared(&format!("ff7/{name}_u.BSX"));
        let om = u32_at(&bsx, 4);
        let models = u32_at(&bsx, om + 4);
        assert_eq!(
            (loader.len(), s.model_count as usize),
            (models, models),
            "{name}"
        );
        for (k, r) in loader.iter().enumerate() {
            let rec = om + 16 + 48 * k;
            assert_eq!(
                (r.face, r.global),
                (bsx[rec], bsx[rec + 1]),
                "{name}: slot {k}"
            );
        }
        let pass = init::run(s, &b, &mut init::Memory::default());
        assert!(pass.stopped.is_empty(), "{name}: {:?}", pass.stopped);
        let mut bound: Vec<usize> = pass.entities.iter().filter_map(|e| e.model).collect();
        assert_eq!(
            bound,
            (0..models).collect::<Vec<_>>(),
            "{name}: slots in CHAR order"
        );
        bound.dedup();
        assert_eq!(bound.len(), models, "{name}: one actor a slot");
    }
}

/// Whether (x, y) is inside triangle `t` (edges tested as docs/formats/field-dat.md says:
/// all on one side, the side every triangle winds), and the plane's height there.
fn inside_and_height(t: &[[i16; 3]; 3], x: f64, y: f64) -> (bool, f64) {
    let p = t.map(|v| v.map(|c| c as f64));
    let side = |a: [f64; 3], b: [f64; 3]| (x - a[0]) * (b[1] - a[1]) - (y - a[1]) * (b[0] - a[0]);
    let sides = [side(p[0], p[1]), side(p[1], p[2]), side(p[2], p[0])];
    let inside = sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0);
    let (u, v) = (
        [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]],
        [p[2][0] - p[1][0], p[2][1] - p[1][1], p[2][2] - p[1][2]],
    );
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let d = n[0] * p[0][0] + n[1] * p[0][1] + n[2] * p[0][2];
    (inside, (d - n[0] * x - n[1] * y) / n[2])
}

#[test]
fn every_model_the_init_pass_places_stands_inside_its_triangle_on_its_plane() {
    let mut placed = 0;
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let w = d.walkmesh.as_ref().unwrap();
        let pass = init::run(d.script.as_ref().unwrap(), &b, &mut init::Memory::default());
        for (k, e) in pass.entities.iter().enumerate() {
            let (Some(p), Some(t)) = (e.position, e.triangle) else {
                continue;
            };
            let tri = &w.triangles[t as usize];
            let (inside, z) = inside_and_height(tri, p[0] as f64, p[1] as f64);
            assert!(
                inside,
                "{name}: actor {k} at {p:?} is not in triangle {t} {tri:?}"
            );
            assert!(
                (z - p[2] as f64).abs() <= 1.0,
                "{name}: actor {k} at z {} where the plane is {z}",
                p[2]
            );
            placed += 1;
        }
    }
    assert!(placed >= 8, "{placed} placements");
}

#[test]
fn info_names_the_field_its_entities_and_their_models() {
    let disc = shared("ff7-disc/MD1_1.DAT");
    let doc = registry::open("FIELD/MD1_1.DAT", disc, Purpose::Show);
    assert_eq!(doc.kind().as_str(), "field-dat");
    assert!(doc.error().is_none());
    let info: serde_json::Value =
        serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json()).unwrap();
    let field = &info["field"];
    assert_eq!(field["name"], "md1_1");
    let cl = field["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "cl")
        .unwrap();
    assert_eq!(
        (cl["index"].as_u64(), cl["model"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(field["walkmesh"]["triangles"], 100);
    assert_eq!(field["camera"]["projection"], 703);
    assert_eq!(field["gateways"].as_array().unwrap().len(), 2);
    // The inspector shows the sections, the scripts' opcodes and the dialogue's strings.
    let v = doc.inspector(relicview::formats::Found::NOTHING).unwrap();
    for name in [
        "sections",
        "script",
        "op",
        "string",
        "triangle",
        "camera",
        "gateway",
        "model_slot",
    ] {
        assert!(v.chunks.iter().any(|r| r.name == name), "no {name} row");
    }
    assert!(v.chunks.iter().any(|r| r.name == "op" && r.label == "CHAR"));
    // Every byte is some record's.
    for name in FIELDS {
        let doc = registry::open(
            "X.DAT",
            shared(&format!("ff7-disc/{name}.DAT")),
            Purpose::Show,
        );
        assert_eq!(
            doc.inspector(relicview::formats::Found::NOTHING)
                .unwrap()
                .coverage
                .unclaimed,
            0,
            "{name}"
        );
    }
}

#[test]
fn a_cut_or_broken_file_says_where_and_shows_what_it_could_read() {
    let b = unpacked("NMKIN_1");
    // Cut inside the camera: the sections before it read, the camera's error names its byte,
    // and each later section (its address now past the end) says the file is cut short.
    let camera = DatFile::parse(&b).unwrap().sections[3].start;
    let cut = b[..camera + 10].to_vec();
    let d = DatFile::parse(&cut).unwrap();
    assert!(d.script.is_ok() && d.walkmesh.is_ok() && d.tile_map.is_ok());
    let e = d.camera.as_ref().unwrap_err();
    assert_eq!(e.offset, camera);
    assert!(
        e.to_string()
            .contains("expected 38 bytes for the camera record"),
        "{e}"
    );
    let e = d.triggers.as_ref().unwrap_err();
    assert_eq!(e.offset, cut.len(), "{e}");
    assert!(
        e.to_string()
            .contains("section 5 (triggers) starts at byte")
            && e.to_string().contains("cut short"),
        "{e}"
    );
    assert_eq!(d.first_error().unwrap().offset, camera);
    // A version the engine refuses.
    let mut bad = b.clone();
    bad[28] = 3;
    let e = DatFile::parse(&bad).unwrap().script.unwrap_err();
    assert_eq!(e.offset, 28);
    // Through the registry: the error is the document's, the inspector still shows rows.
    let doc = registry::open("X.DAT", bad, Purpose::Show);
    assert!(doc
        .error()
        .is_some_and(|e| e.to_string().contains("version 3.5")));
    assert!(doc
        .inspector(relicview::formats::Found::NOTHING)
        .unwrap()
        .chunks
        .iter()
        .any(|r| r.name == "triangle"));
}

#[test]
fn a_field_opens_as_its_walkmesh_with_its_gateways_and_each_triangle_picks_its_record() {
    for name in FIELDS {
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let n = d.walkmesh.as_ref().unwrap().triangles.len();
        let gateways = d.triggers.as_ref().unwrap().gateways.len();
        let doc = registry::open(
            &format!("FIELD/{name}.DAT"),
            shared(&format!("ff7-disc/{name}.DAT")),
            Purpose::Show,
        );
        let scene = doc
            .build_scene(&relicview::formats::NoAssets)
            .scene
            .expect("a scene");
        assert_eq!(scene.layers, ["walkmesh", "walkmesh outline", "gateways"]);
        let mesh = |layer: u32| {
            let node = scene.nodes.iter().find(|n| n.layer == Some(layer))?;
            Some(&scene.meshes[node.mesh? as usize].primitives[0])
        };
        let floor = mesh(0).unwrap();
        assert_eq!(floor.indices.len(), 3 * n, "{name}");
        assert_eq!(mesh(1).unwrap().indices.len(), 3 * n);
        // A gateway is its line and its arrow, on a node named by the map it leads to.
        let lines: Vec<(&str, usize)> = scene
            .nodes
            .iter()
            .filter(|n| n.layer == Some(2) && n.mesh.is_some())
            .map(|n| {
                (
                    n.name.as_deref().unwrap_or(""),
                    scene.meshes[n.mesh.unwrap() as usize].primitives[0]
                        .indices
                        .len(),
                )
            })
            .collect();
        assert_eq!(lines.len(), gateways, "{name}");
        assert!(
            lines
                .iter()
                .all(|(n, i)| n.starts_with("gateway to map ") && *i == 6),
            "{name}: {lines:?}"
        );
        // The floor's vertices are the walkmesh's, and triangle t picks the record of triangle t.
        let v = doc.inspector(relicview::formats::Found::NOTHING).unwrap();
        for t in [0, n / 2, n - 1] {
            let w = &d.walkmesh.as_ref().unwrap().triangles[t];
            assert_eq!(floor.positions[3 * t], w[0].map(|c| c as f32));
            let run = floor
                .sources
                .iter()
                .rev()
                .find(|s| s.first <= t as u32)
                .unwrap();
            assert_eq!(row_at(&v, run.record).label, format!("triangle {t}"));
        }
    }
}

/// A field with its models, faces, lights and characters beside it, as the disc has them.
fn field_among_its_files(name: &str) -> relicview::archive::Opened {
    let files: Vec<(String, Vec<u8>)> = vec![
        (
            format!("FIELD/{name}.DAT"),
            shared(&format!("ff7-disc/{name}.DAT")),
        ),
        (
            format!("FIELD/{name}.BSX"),
            shared(&format!("ff7/{name}_u.BSX")),
        ),
        ("FIELD/FIELD.TDB".into(), shared("ff7/FIELD.TDB_u")),
        ("FIELD/FIELD.BIN".into(), shared("ff7/FIELD.BIN_u")),
        ("FIELD/CLOUD.BCX".into(), shared("ff7-disc/CLOUD.BCX")),
        ("FIELD/BALLET.BCX".into(), shared("ff7-disc/BALLET.BCX")),
    ];
    let source = relicview::archive::MemorySource::new(files);
    open_path(&source, &format!("FIELD/{name}.DAT"))
}

/// The file at `path` of `source`, opened as the page and the CLI open one.
fn open_path(source: &relicview::archive::MemorySource, path: &str) -> relicview::archive::Opened {
    let archive = std::cell::RefCell::new(source.archive());
    pollster::block_on(relicview::archive::open_file(&archive, source, path)).unwrap()
}

/// The node of model slot `k` in a field scene (named "actor (model k)").
fn model_node(
    scene: &relicview::formats::scene::Scene,
    k: u64,
) -> &relicview::formats::scene::Node {
    scene
        .nodes
        .iter()
        .find(|n| {
            n.name
                .as_deref()
                .is_some_and(|s| s.ends_with(&format!("(model {k})")))
        })
        .unwrap()
}

#[test]
fn each_model_stands_where_the_init_puts_it_facing_its_way_playing_its_idle_animation() {
    for name in FIELDS {
        let opened = field_among_its_files(name);
        assert!(opened.unreadable.is_empty(), "{:?}", opened.unreadable);
        let scene = opened.scene.as_ref().expect("a scene");
        let info: serde_json::Value =
            serde_json::from_str(&opened.described().info_json()).unwrap();
        let models = info["field"]["models"].as_array().unwrap();
        let hidden = scene
            .layers
            .iter()
            .position(|l| l == "hidden by the game")
            .unwrap() as u32;
        assert_eq!(scene.hidden, [hidden]);
        for m in models {
            let k = m["model"].as_u64().unwrap();
            // Named by its actor, and a pick on it goes to its model slot's record.
            let node = model_node(scene, k);
            assert_eq!(
                node.name.as_deref(),
                Some(format!("{} (model {k})", m["entity"].as_str().unwrap()).as_str())
            );
            let slot = node.record.expect("the model's record");
            assert_eq!(
                row_at(&opened.described().inspector().unwrap(), slot).label,
                format!("model slot {k}")
            );
            let t = node.transform;
            if let Some(p) = m["position"].as_array() {
                let p: Vec<f32> = p.iter().map(|c| c.as_f64().unwrap() as f32).collect();
                assert_eq!(
                    t.translation,
                    [p[0], p[1], p[2] - 10.0],
                    "{name}: model {k}"
                );
            }
            // Facing: model +X turns to (cos θ, sin θ, 0) in the field.
            let theta = m["direction"].as_f64().unwrap() / 256.0 * std::f64::consts::TAU;
            let x = glam::Quat::from_array(t.rotation) * glam::Vec3::X;
            assert!(
                (x.x as f64 - theta.cos()).abs() < 1e-4
                    && (x.y as f64 - theta.sin()).abs() < 1e-4
                    && x.z.abs() < 1e-4,
                "{name}: model {k} {x:?}"
            );
            assert_eq!(
                node.layer == Some(hidden),
                !m["visible"].as_bool().unwrap(),
                "{name}: model {k}"
            );
            // Its idle animation plays (the scene has it when the model has that many).
            let anim = m["animation"].as_u64().unwrap();
            if let Some(c) = scene
                .clips
                .iter()
                .position(|c| c.name == format!("model {k} animation {anim}"))
            {
                assert!(
                    !scene.stopped.contains(&(c as u32)),
                    "{name}: model {k} animation {anim} is stopped"
                );
            }
        }
        // One animation a model plays at most (and the blinks).
        let playing = scene.clips.len() - scene.stopped.len() - scene.ff7.blinks.len();
        assert!(playing <= models.len(), "{name}: {playing} clips play");
        let floor = info["field"]["walkmesh"]["triangles"].as_u64().unwrap() as usize;
        assert!(
            scene.triangle_count(0) > 2 * floor + 500,
            "{name}: the models are drawn"
        );
    }
}

/// `relicview info --json --set …` on a real field.
fn info_with(name: &str, set: &[&str]) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../shared/testdata/ff7-disc/{name}.DAT"));
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_relicview"));
    cmd.args(["info", "--json"]).arg(&path);
    for s in set {
        cmd.args(["--set", s]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The init pass reads the story's progress (bank 2, address 0) where the game would: every
/// condition it tested is one on that variable, and whether it held is worked out here from
/// the condition's own bytes (docs/formats/field-dat.md, "Scripts") for each value set.
#[test]
fn a_story_moment_set_by_hand_takes_the_init_s_other_branches() {
    let b = unpacked("MD1_1");
    let mut hidden_by_value = Vec::new();
    for value in [0, 6, 7, 9, 300] {
        let info = info_with("MD1_1", &[&format!("2:0={value}")]);
        let field = &info["field"];
        assert_eq!(
            field["state"],
            serde_json::json!([{"bank": 2, "address": 0, "value": value}])
        );
        let branches = field["branches"].as_array().unwrap();
        assert!(!branches.is_empty());
        for br in branches {
            let at = br["at"].as_u64().unwrap() as usize;
            // IFSW (0x16): banks, a: u16, b: u16, condition; here a is [2:0] and b a number.
            assert_eq!((b[at], b[at + 1] >> 4, b[at + 2]), (0x16, 2, 0), "at {at}");
            let against = i16::from_le_bytes([b[at + 4], b[at + 5]]) as i32;
            let held = match b[at + 6] {
                0 => value == against,
                1 => value != against,
                2 => value > against,
                3 => value < against,
                4 => value >= against,
                5 => value <= against,
                c => panic!("condition {c} at {at}"),
            };
            assert_eq!(br["taken"], held, "{value}: {br}");
        }
        let hidden = field["models"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["visible"] == false)
            .count();
        hidden_by_value.push(hidden);
    }
    // Later in the story the station's people have gone: more of them hidden.
    assert!(
        hidden_by_value[2] > hidden_by_value[0],
        "{hidden_by_value:?}"
    );
    assert_eq!(
        info_with("MD1_1", &[])["field"]["state"],
        serde_json::json!([])
    );
    // A bank the game has not is refused, naming what is expected.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["info", "--set", "9:0=1", "x.DAT"])
        .output()
        .unwrap();
    assert!(
        !out.status.success()
            && String::from_utf8_lossy(&out.stderr).contains("BANK:ADDRESS=VALUE")
    );
}

/// The three fields as the disc stores them (.DAT and .MIM), their models, FIELD.BIN and the
/// two characters, in one archive; `unpacked_dat`: the .DATs unpacked instead.
fn three_fields(unpacked_dat: bool) -> relicview::archive::MemorySource {
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("FIELD/FIELD.TDB".into(), shared("ff7/FIELD.TDB_u")),
        ("FIELD/FIELD.BIN".into(), shared("ff7/FIELD.BIN_u")),
        ("FIELD/CLOUD.BCX".into(), shared("ff7-disc/CLOUD.BCX")),
        ("FIELD/BALLET.BCX".into(), shared("ff7-disc/BALLET.BCX")),
    ];
    for name in FIELDS {
        let dat = match unpacked_dat {
            true => unpacked(name),
            false => shared(&format!("ff7-disc/{name}.DAT")),
        };
        files.push((format!("FIELD/{name}.DAT"), dat));
        files.push((
            format!("FIELD/{name}.MIM"),
            shared(&format!("ff7-disc/{name}.MIM")),
        ));
        files.push((
            format!("FIELD/{name}.BSX"),
            shared(&format!("ff7/{name}_u.BSX")),
        ));
    }
    relicview::archive::MemorySource::new(files)
}

/// FIELD/`name`.DAT of `source`, opened.
fn open_in(source: &relicview::archive::MemorySource, name: &str) -> relicview::archive::Opened {
    open_path(source, &format!("FIELD/{name}.DAT"))
}

/// A way from one field into another, read here from the bytes: (to map, x, y, triangle,
/// direction).
type Way = (u16, i16, i16, u16, u8);

/// The gateways in use of a field (its triggers' twelve records of 24 bytes at +0x38: the
/// line, then where the player arrives, x, y, triangle, map, direction), and every run of
/// bytes in its script section shaped as a MAPJUMP (`60 map x y triangle direction`): a
/// superset of its MAPJUMPs, found without walking the scripts.
fn ways_out(b: &[u8]) -> (Vec<Way>, Vec<Way>) {
    let s16 = |at: usize| i16::from_le_bytes([b[at], b[at + 1]]);
    let u16_ = |at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    // Section pointers are RAM addresses of the file loaded at 0x80114FE4.
    let at = |k: usize| u32_at(b, 4 * k) - 0x8011_4FE4;
    let triggers = at(4);
    let gateways = (0..12)
        .map(|k| triggers + 0x38 + 24 * k)
        .filter(|&g| u16_(g + 18) != 0x7FFF)
        .map(|g| {
            (
                u16_(g + 18),
                s16(g + 12),
                s16(g + 14),
                u16_(g + 16),
                b[g + 20],
            )
        })
        .collect();
    let (script, walkmesh) = (at(0), at(1));
    let jumps = (script..walkmesh - 10)
        .filter(|&at| b[at] == 0x60)
        .map(|at| {
            (
                u16_(at + 1),
                s16(at + 3),
                s16(at + 5),
                u16_(at + 7),
                b[at + 9],
            )
        })
        .collect();
    (gateways, jumps)
}

#[test]
fn the_party_leader_comes_in_where_another_field_s_gateway_or_mapjump_leads() {
    // Each field's map id: the one FIELD.BIN's table (24 bytes an id at 0x3A5B8: sector and
    // size of the .DAT, .MIM and .BSX) gives this .DAT's and .MIM's sizes as stored.
    let bin = shared("ff7/FIELD.BIN_u");
    let id_of = |name: &str| -> u16 {
        let (dat, mim) = (
            shared(&format!("ff7-disc/{name}.DAT")).len(),
            shared(&format!("ff7-disc/{name}.MIM")).len(),
        );
        let ids: Vec<u16> = (0..787u16)
            .filter(|&id| {
                let at = 0x3A5B8 + 24 * id as usize;
                u32_at(&bin, at + 4) == dat && u32_at(&bin, at + 12) == mim
            })
            .collect();
        assert_eq!(ids.len(), 1, "{name}: {ids:?}");
        ids[0]
    };
    let source = three_fields(false);
    let mut seen = 0;
    for name in FIELDS {
        let id = id_of(name);
        let opened = open_in(&source, name);
        let info: serde_json::Value =
            serde_json::from_str(&opened.described().info_json()).unwrap();
        assert_eq!(info["field"]["map"], id, "{name}");
        let b = unpacked(name);
        let d = DatFile::parse(&b).unwrap();
        let triangles = &d.walkmesh.as_ref().unwrap().triangles;
        // The ways here among the other fields' bytes.
        let (mut gateways, mut jumps) = (Vec::new(), Vec::new());
        for other in FIELDS.iter().filter(|&&o| o != name) {
            let (g, j) = ways_out(&unpacked(other));
            gateways.extend(
                g.into_iter()
                    .filter(|w| w.0 == id)
                    .map(|w| (other.to_string(), w)),
            );
            jumps.extend(
                j.into_iter()
                    .filter(|w| w.0 == id)
                    .map(|w| (other.to_string(), w)),
            );
        }
        let entrances = info["field"]["entrances"].as_array().unwrap();
        let way = |e: &serde_json::Value| -> (String, Way) {
            let p = &e["position"];
            (
                e["from"].as_str().unwrap().to_string(),
                (
                    id,
                    p[0].as_i64().unwrap() as i16,
                    p[1].as_i64().unwrap() as i16,
                    e["triangle"].as_u64().unwrap() as u16,
                    e["direction"].as_u64().unwrap() as u8,
                ),
            )
        };
        for g in &gateways {
            assert!(
                entrances.iter().any(|e| way(e) == *g),
                "{name}: gateway {g:?} in {entrances:?}"
            );
        }
        for e in entrances {
            let (from, w) = way(e);
            let by = e["via"].as_str().unwrap();
            let found = match by {
                "gateway" => gateways.contains(&(from.clone(), w)),
                _ => jumps.contains(&(from.clone(), w)),
            };
            assert!(found, "{name}: {e} is not in {from}'s bytes");
            // On its triangle, on the triangle's plane.
            let (inside, z) = inside_and_height(&triangles[w.3 as usize], w.1 as f64, w.2 as f64);
            assert!(inside, "{name}: {e}");
            assert!(
                (e["position"][2].as_f64().unwrap() - z).abs() <= 1.0,
                "{name}: {e} (plane {z})"
            );
            seen += 1;
        }
        // The leader (Cloud, the party's head with every variable 0) stands at the first,
        // facing its way; the scene's choice offers each.
        let scene = opened.scene.as_ref().unwrap();
        let leader = info["field"]["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["character"] == "Cloud" && m["position"].is_null());
        match (entrances.first(), leader) {
            (Some(first), Some(m)) => {
                let k = m["model"].as_u64().unwrap();
                let node = model_node(scene, k);
                let p: Vec<f32> = first["position"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c.as_f64().unwrap() as f32)
                    .collect();
                assert_eq!(
                    node.transform.translation,
                    [p[0], p[1], p[2] - 10.0],
                    "{name}"
                );
                let theta = first["direction"].as_f64().unwrap() / 256.0 * std::f64::consts::TAU;
                let x = glam::Quat::from_array(node.transform.rotation) * glam::Vec3::X;
                assert!(
                    (x.x as f64 - theta.cos()).abs() < 1e-4
                        && (x.y as f64 - theta.sin()).abs() < 1e-4,
                    "{name}: {x:?}"
                );
                let choice = scene.choice.as_ref().expect("the entrances to choose from");
                assert_eq!(choice.name, "entrance");
                let labels: Vec<String> = entrances
                    .iter()
                    .map(|e| {
                        format!(
                            "from {} ({})",
                            e["from"].as_str().unwrap(),
                            e["via"].as_str().unwrap()
                        )
                    })
                    .collect();
                assert_eq!(
                    choice
                        .options
                        .iter()
                        .map(|o| o.label.clone())
                        .collect::<Vec<_>>(),
                    labels
                );
            }
            _ => assert!(scene.choice.is_none(), "{name}"),
        }
    }
    // ELEVTR1 is entered by NMKIN_1's gateway, NMKIN_1 by ELEVTR1's MAPJUMP.
    assert!(seen >= 2, "{seen} entrances");
    // A way in faces into the field: away from the gateway that leads back (the direction d
    // faces (sin, −cos) of its angle).
    let info: serde_json::Value =
        serde_json::from_str(&open_in(&source, "NMKIN_1").described().info_json()).unwrap();
    let e = &info["field"]["entrances"][0];
    let back = info["field"]["gateways"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| {
            g["to"]
                == info["field"]["entrances"][0]["from"]
                    .as_str()
                    .map(|_| id_of("ELEVTR1"))
                    .unwrap()
        })
        .expect("NMKIN_1's gateway to ELEVTR1");
    let mid = |k: usize| {
        (back["line"][0][k].as_f64().unwrap() + back["line"][1][k].as_f64().unwrap()) / 2.0
    };
    let (dx, dy) = (
        e["position"][0].as_f64().unwrap() - mid(0),
        e["position"][1].as_f64().unwrap() - mid(1),
    );
    let a = e["direction"].as_f64().unwrap() / 256.0 * std::f64::consts::TAU;
    assert!(dx * a.sin() - dy * a.cos() > 0.0, "{e} faces the way back");
    // A field whose .DAT is stored unpacked is not in FIELD.BIN's table by its size: said.
    let opened = open_in(&three_fields(true), "ELEVTR1");
    let info: serde_json::Value = serde_json::from_str(&opened.described().info_json()).unwrap();
    assert!(info["field"]["entrances"].as_array().unwrap().is_empty());
    let row = opened
        .described()
        .info_rows()
        .into_iter()
        .find(|r| r.label == "entrances")
        .unwrap();
    assert!(row.value.contains("stored unpacked"), "{}", row.value);
}

#[test]
fn a_field_says_which_of_its_files_is_missing_and_shows_the_rest() {
    let open_with = |skip: &[&str]| {
        let files: Vec<(String, Vec<u8>)> = [
            ("FIELD/MD1_1.DAT", "ff7-disc/MD1_1.DAT"),
            ("FIELD/MD1_1.BSX", "ff7/MD1_1_u.BSX"),
            ("FIELD/FIELD.TDB", "ff7/FIELD.TDB_u"),
            ("FIELD/FIELD.BIN", "ff7/FIELD.BIN_u"),
            ("FIELD/CLOUD.BCX", "ff7-disc/CLOUD.BCX"),
            ("FIELD/BALLET.BCX", "ff7-disc/BALLET.BCX"),
        ]
        .iter()
        .filter(|(p, _)| !skip.iter().any(|s| p.ends_with(s)))
        .map(|(p, s)| (p.to_string(), shared(s)))
        .collect();
        let source = relicview::archive::MemorySource::new(files);
        let opened = open_path(&source, "FIELD/MD1_1.DAT");
        let rows: Vec<(String, String)> = opened
            .described()
            .info_rows()
            .into_iter()
            .map(|r| (r.label, r.value))
            .collect();
        (opened, rows)
    };
    let said = |rows: &[(String, String)], file: &str| {
        rows.iter()
            .any(|(_, v)| v.contains(&format!("{file} is not")))
    };
    // Everything there: nothing said missing; each slot's record names its actor.
    let (opened, rows) = open_with(&[]);
    assert!(
        !said(&rows, "MD1_1.BSX") && !said(&rows, "BALLET.BCX"),
        "{rows:?}"
    );
    let slots: Vec<String> = opened
        .described()
        .inspector()
        .unwrap()
        .chunks
        .iter()
        .filter(|c| c.name == "model_slot")
        .map(|c| c.summary.clone())
        .collect();
    assert!(
        slots[1].starts_with("ba: playable character 3 (Barret)"),
        "{slots:?}"
    );
    assert!(slots[2].starts_with("av_m: field-only model"), "{slots:?}");
    // No .BSX: said, and the walkmesh is still drawn.
    let (opened, rows) = open_with(&["MD1_1.BSX"]);
    assert!(said(&rows, "MD1_1.BSX"), "{rows:?}");
    assert!(opened.scene.as_ref().unwrap().triangle_count(0) >= 100);
    // No Barret: said by name, the other models still drawn.
    let (opened, rows) = open_with(&["BALLET.BCX"]);
    assert!(
        rows.iter()
            .any(|(l, v)| l == "character Barret" && v.contains("BALLET.BCX is not")),
        "{rows:?}"
    );
    assert!(opened.scene.as_ref().unwrap().triangle_count(0) > 700);
}

/// The inspector row whose bytes are a scene's record `bytes` (the scene names its records by
/// their bytes; the inspector lists each as a row).
fn row_at(
    v: &relicview::inspect::InspectorView,
    bytes: relicview::scene::RecordBytes,
) -> &relicview::inspect::Row {
    let rows: Vec<(usize, usize)> = v.chunks.iter().map(|c| (c.offset, c.end)).collect();
    let row = relicview::scene::row_of(&rows, bytes).expect("a row with the record's bytes");
    let r = &v.chunks[row as usize];
    assert_eq!([r.offset, r.end], bytes, "exactly the record's bytes");
    r
}
