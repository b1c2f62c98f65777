//! Pod worlds opened through the archive's one open sequence: includes, nested maps, models
//! found in the map's own tree first, and a world opened without its archive.

use crate::archive::{open_file, MemorySource, Opened};
use crate::demo::demo_files;
use crate::formats::kind::Purpose;
use crate::formats::pods::world;
use crate::formats::{NoAssets, Severity};
use std::cell::RefCell;

fn open_in(files: Vec<(String, Vec<u8>)>, path: &str) -> Opened {
    let source = MemorySource::new(files);
    let archive = RefCell::new(source.archive());
    pollster::block_on(open_file(&archive, &source, path)).unwrap()
}

/// A world opened without its archive draws nothing, and its info says why.
#[test]
fn a_world_opened_alone_says_its_models_were_not_looked_for() {
    let text = b"[box]\ntype=model\nmodelfile=box.mod\n[w]\ntype=map\ninstance=box 0 0 0 0 0 0\ninstance=box 9 0 0 0 0 0\n".to_vec();
    let doc = world::open("W.MAP", text.clone(), world::MAP, Purpose::Show);
    let built = doc.build_scene(&NoAssets);
    assert_eq!(built.scene.map_or(0, |s| s.triangle_count(0)), 0);
    let rows = doc.info(&built.found).rows();
    let models = rows
        .iter()
        .find(|r| r.label == "models")
        .expect("a row saying why nothing is drawn");
    assert_eq!(models.severity, Severity::Warning);
    assert!(models.value.contains("2 models"), "{}", models.value);
    // In its archive the same world looks its models up, and says nothing of the kind.
    let o = open_in(
        vec![
            ("A/MAPS/W.MAP".into(), text),
            (
                "A/MODELS/BOX.MOD".into(),
                b"[video]\nobject=cube.bgf\n".to_vec(),
            ),
            ("A/VIDEO/CUBE.BGF".into(), cube()),
        ],
        "A/MAPS/W.MAP",
    );
    assert!(o
        .described()
        .info_rows()
        .iter()
        .all(|r| r.label != "models"));
}

fn cube() -> Vec<u8> {
    demo_files()
        .into_iter()
        .find(|(p, _)| p.ends_with("CUBE.BGF"))
        .unwrap()
        .1
}

#[test]
fn include_cycles_and_self_nesting_are_errors_with_the_line_and_offset() {
    let a = b"[a]\ntype=map\ninstance=box 0 0 0 0 0 0\n[inc]\ntype=include\nfile=b.map\n".to_vec();
    let b = b"[inc2]\ntype=include\nfile=a.map\n".to_vec();
    let o = open_in(
        vec![("W/A.MAP".into(), a.clone()), ("W/B.MAP".into(), b)],
        "W/A.MAP",
    );
    let e = o.described().error().expect("a cycle is an error");
    assert_eq!(
        e.offset,
        a.windows(10).position(|w| w == b"file=b.map").unwrap(),
        "{e}"
    );
    assert!(
        e.message.contains("include cycle") && e.message.contains("B.MAP line 3 includes a.map"),
        "{e}"
    );
    assert_eq!(e.path, "line 6");

    let nest = b"[outer]\ntype=map\ninstance=inner 1 0 0 0 0 0\n[inner]\ntype=map\ninstance=outer 0 0 0 0 0 0\n".to_vec();
    let o = open_in(vec![("W/OUTER.MAP".into(), nest.clone())], "W/OUTER.MAP");
    let e = o
        .described()
        .error()
        .expect("nesting into itself is an error");
    assert_eq!(e.offset, 17, "the root line that starts the chain");
    assert_eq!(e.path, "line 3");
    assert!(
        e.message.contains("[outer] places a map that places it"),
        "{e}"
    );
    let own = b"[me]\ntype=map\ninstance=me 0 0 0 0 0 0\n".to_vec();
    let o = open_in(vec![("W/ME.MAP".into(), own)], "W/ME.MAP");
    assert!(o
        .described()
        .error()
        .unwrap()
        .message
        .contains("[me] places itself"));
}

#[test]
fn includes_seven_deep_are_all_read_before_the_world_is_built() {
    let mut files: Vec<(String, Vec<u8>)> = (0..7)
        .map(|k| {
            (
                format!("A/MAPS/M{k}.MAP"),
                format!("[inc{k}]\ntype=include\nfile=m{}.map\n", k + 1).into_bytes(),
            )
        })
        .collect();
    files[0]
        .1
        .extend(b"[m0]\ntype=map\ninstance=box 0 0 0 0 0 0\n");
    files.push((
        "A/MAPS/M7.MAP".into(),
        b"[box]\ntype=model\nmodelfile=box.mod\n".to_vec(),
    ));
    files.push((
        "A/MODELS/BOX.MOD".into(),
        b"[video]\nobject=cube.bgf\n".to_vec(),
    ));
    files.push(("A/VIDEO/CUBE.BGF".into(), cube()));
    let o = open_in(files, "A/MAPS/M0.MAP");
    let j: serde_json::Value = serde_json::from_str(&o.described().info_json()).unwrap();
    assert_eq!(j["includes"].as_array().unwrap().len(), 7);
    assert_eq!(
        (j["placements"].as_u64(), j["triangles"].as_u64()),
        (Some(1), Some(12)),
        "{j}"
    );
}

#[test]
fn nested_placements_compose_child_under_parent() {
    // [outer] turns [inner] 90° about Y and moves it to z 100; [inner] puts the box at x 5.
    let map = format!("[box]\ntype=model\nmodelfile=box.mod\n[inner]\ntype=map\ninstance=box 5 0 0 0 0 0\n[outer]\ntype=map\ninstance=inner 0 0 100 0 {} 0\n", std::f32::consts::FRAC_PI_2);
    let files = vec![
        ("A/MAPS/OUTER.MAP".to_string(), map.into_bytes()),
        (
            "A/MODELS/BOX.MOD".to_string(),
            b"[video]\nobject=cube.bgf\n".to_vec(),
        ),
        ("A/VIDEO/CUBE.BGF".to_string(), cube()),
    ];
    let scene = open_in(files, "A/MAPS/OUTER.MAP").scene.unwrap();
    let world = scene.world(&scene.pose(0.0));
    let at = |name: &str| {
        world[scene
            .nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
            .unwrap()]
        .transform_point3(glam::Vec3::ZERO)
    };
    // Worked by hand: Ry(90°) takes (5, 0, 0) to (0, 0, -5); then + (0, 0, 100).
    assert!(
        (at("box") - glam::Vec3::new(0.0, 0.0, 95.0)).length() < 1e-4,
        "{}",
        at("box")
    );
    assert!((at("inner") - glam::Vec3::new(0.0, 0.0, 100.0)).length() < 1e-4);
}

#[test]
fn a_map_places_its_models_through_nested_maps_and_finds_them_in_its_own_tree_first() {
    let map = b"[box]\ntype=model\nmodelfile=box.mod\n[row]\ntype=map\ninstance=box 0 0 0 0 0 0\ninstance=box 10 0 0 0 0 0\n[w]\ntype=map\ninstance=row 0 0 100 0 0 0\ninstance=row 0 0 200 0 0 0\ninstance=ghost 0 0 0 0 0 0\n".to_vec();
    let modfile = b"[video]\nobject=cube.bgf\n".to_vec();
    let files = vec![
        ("A/MAPS/W.MAP".to_string(), map),
        ("A/MODELS/BOX.MOD".to_string(), modfile.clone()),
        ("A/VIDEO/CUBE.BGF".to_string(), cube()),
        ("B/VIDEO/CUBE.BGF".to_string(), cube()),
    ];
    let mut o = open_in(files, "A/MAPS/W.MAP");
    assert!(
        o.described().error().is_none(),
        "{:?}",
        o.described().error()
    );
    let scene = o.scene.take().unwrap();
    let j: serde_json::Value = serde_json::from_str(&o.described().info_json()).unwrap();
    assert_eq!(j["format"], "map");
    assert_eq!(j["root_section"], "w");
    assert_eq!(j["placements"], 4);
    assert_eq!(j["triangles"], 4 * 12);
    assert_eq!(j["missing"], serde_json::json!(["ghost"]));
    assert_eq!(
        j["ambiguous"][0]["taken"], "A/VIDEO/CUBE.BGF",
        "the map's own tree first"
    );
    assert_eq!(
        j["ambiguous"][0]["candidates"],
        serde_json::json!(["B/VIDEO/CUBE.BGF"])
    );
    // The cube spans ±1; the farthest box sits at x 10, z 200.
    let b = &j["bounds"];
    assert_eq!(
        (
            b["min"][0].as_f64(),
            b["max"][0].as_f64(),
            b["max"][2].as_f64()
        ),
        (Some(-1.0), Some(11.0), Some(201.0))
    );
    // Each instance line of the map says what it led to.
    let view = o.described().inspector().unwrap();
    let row = |k: usize| {
        view.chunks
            .iter()
            .filter(|r| r.name == "instance")
            .nth(k)
            .unwrap()
            .summary
            .clone()
    };
    assert_eq!(row(0), "box 0 0 0 0 0 0 → A/MODELS/BOX.MOD: cube.bgf");
    assert_eq!(row(2), "row 0 0 100 0 0 0 → map [row], 2 placements");
    assert_eq!(
        row(4),
        "ghost 0 0 0 0 0 0 → no section [ghost] in the map or its includes"
    );
    assert!(o
        .described()
        .info_rows()
        .iter()
        .any(|r| r.label == "uses" && r.value == "A/MODELS/BOX.MOD, A/VIDEO/CUBE.BGF"));
    // One mesh set for the cube, drawn by four placements.
    assert_eq!(scene.meshes.len(), 1);
    assert_eq!(scene.instance_count(0), 4);
    assert_eq!(scene.draw_plan(0).draw_calls(), 1);
}
