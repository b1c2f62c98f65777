//! DIV-BIZ2 files opened through the archive's one open sequence: what a face's bytes are,
//! where a library is found, what one map file shared by many materials costs.

use crate::archive::{open_file, MemorySource, Opened};
use crate::demo::demo_files;
use crate::formats::pods::biz2::tags;
use crate::formats::pods::biz2::writer::{write_file, write_nodes, Node, WriteOptions};
use crate::formats::pods::biz2::{
    Biz2File, FileKind, Header, MaterialDef, MaterialRef, TextureDef, TextureRef,
};
use crate::scene::source_of;
use std::cell::RefCell;

fn opened(path: &str) -> (Opened, Vec<u8>) {
    let source = MemorySource::new(demo_files());
    let archive = RefCell::new(source.archive());
    let o = pollster::block_on(open_file(&archive, &source, path)).unwrap();
    (o, source.files[&path.to_ascii_lowercase()].clone())
}

#[test]
fn every_triangle_maps_to_the_bytes_of_its_face() {
    let (mut o, bytes) = opened("DEMO/VIDEO/HEXPOD.BGF");
    let scene = o.scene.take().unwrap();
    let view = o.described().inspector().unwrap();
    let i32_at = |o: usize| i32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    // LOD 0's PMESH: hexagons (ppf 6), quads (ppf 4), then the roof triangles (CONN).
    let prim = &scene.meshes[0].primitives[0];
    let lists: Vec<_> = view
        .chunks
        .iter()
        .filter(|c| c.name == "PCONN_LIST" || c.name == "CONNECTION_LIST")
        .take(3)
        .collect();
    let bytes_of = |t: u32| source_of(&prim.sources, t).unwrap().face_bytes(t);
    // Triangle 5 is the second hexagon's second triangle (4 per face).
    assert_eq!(
        bytes_of(5),
        (
            lists[0].payload_offset + 1 + 24,
            lists[0].payload_offset + 1 + 48
        )
    );
    assert_eq!(
        i32_at(bytes_of(5).0),
        6,
        "the top hexagon starts at vertex 6"
    );
    // Triangle 8 + 3 is the second quad.
    assert_eq!(
        bytes_of(11),
        (
            lists[1].payload_offset + 1 + 16,
            lists[1].payload_offset + 1 + 32
        )
    );
    assert_eq!(i32_at(bytes_of(11).0), 1);
    // Roof triangle 2 (after 8 + 12) is the third 12-byte entry: (8, 12, 9).
    let (s, e) = bytes_of(22);
    assert_eq!((s, e - s), (lists[2].payload_offset + 24, 12));
    assert_eq!([i32_at(s), i32_at(s + 4), i32_at(s + 8)], [8, 12, 9]);
}

#[test]
fn face_bytes_stay_right_after_skipped_faces() {
    // Four quads; the second indexes a vertex that does not exist and is skipped.
    let positions: Vec<f32> = (0..8)
        .flat_map(|i| [i as f32, (i % 2) as f32, 0.0])
        .collect();
    let quads: Vec<i32> = vec![0, 1, 3, 2, 2, 3, 99, 4, 4, 5, 7, 6, 0, 2, 4, 6];
    let mut pconn = vec![4u8];
    pconn.extend(quads.iter().flat_map(|i| i.to_le_bytes()));
    let pmesh = Node::container(
        tags::PMESH,
        vec![
            Node::floats(0x0080, &positions),
            Node::leaf(tags::PCONN_LIST, pconn),
        ],
    );
    let patch = Node::container(tags::PATCH, vec![pmesh]);
    let bytes = write_nodes(
        b"DIV-BIZ2",
        &[Node::container(tags::OBJECT, vec![patch])],
        WriteOptions::default(),
    );
    let source = MemorySource::new([("A.BGF".to_string(), bytes.clone())]);
    let archive = RefCell::new(source.archive());
    let o = pollster::block_on(open_file(&archive, &source, "A.BGF")).unwrap();
    assert_eq!(
        o.described().diagnostics().len(),
        1,
        "the bad face is reported"
    );
    let prim = &o.scene.as_ref().unwrap().meshes[0].primitives[0];
    assert_eq!(prim.triangle_count(), 6);
    let list = o
        .described()
        .inspector()
        .unwrap()
        .chunks
        .iter()
        .find(|c| c.name == "PCONN_LIST")
        .unwrap()
        .clone();
    // Triangles 2 and 3 are the third quad (the second was skipped): bytes of face 2.
    for t in [2, 3] {
        let (s, e) = source_of(&prim.sources, t).unwrap().face_bytes(t);
        assert_eq!(
            (s, e),
            (list.payload_offset + 1 + 32, list.payload_offset + 1 + 48),
            "triangle {t}"
        );
        assert_eq!(i32::from_le_bytes(bytes[s..s + 4].try_into().unwrap()), 4);
    }
}

#[test]
fn a_library_is_found_nearest_first_and_its_failure_is_kept() {
    let mut files = demo_files();
    let lib = files
        .iter()
        .find(|(p, _)| p.ends_with("DEMO.BMF"))
        .unwrap()
        .1
        .clone();
    let cube = files
        .iter()
        .find(|(p, _)| p.ends_with("CUBE.BGF"))
        .unwrap()
        .1
        .clone();
    files.push(("OTHER/MATERIAL/DEMO.BMF".into(), lib[..100].to_vec()));
    files.push(("OTHER/VIDEO/CUBE.BGF".into(), cube));
    let source = MemorySource::new(files);
    let archive = RefCell::new(source.archive());
    let o = pollster::block_on(open_file(&archive, &source, "other/video/cube.bgf")).unwrap();
    assert_eq!(o.path, "OTHER/VIDEO/CUBE.BGF", "the archive's spelling");
    let info: serde_json::Value = serde_json::from_str(&o.described().info_json()).unwrap();
    let res = &info["material_resolution"][0];
    assert_eq!(res["library"], "OTHER/MATERIAL/DEMO.BMF");
    assert_eq!(res["found"], false);
    assert!(
        res["library_error"].as_str().unwrap().contains("at byte"),
        "{res}"
    );
    assert_eq!(
        o.scene.unwrap().triangle_count(0),
        12,
        "the model still draws"
    );
}

/// Thirty materials on one map file: the map is read and decoded once, and the scene
/// holds its texels once.
#[test]
fn one_map_file_is_one_texture_however_many_materials_use_it() {
    let files = demo_files();
    let mut lib = Biz2File::new(FileKind::Materials, Header::default());
    lib.textures.push(TextureDef {
        map: Some("WATER.TGA".into()),
        ..TextureDef::new("water")
    });
    let mut model = Biz2File::parse(
        &files
            .iter()
            .find(|(p, _)| p.ends_with("CUBE.BGF"))
            .unwrap()
            .1,
    )
    .unwrap()
    .1;
    let patch = model.objects[0].lods[0].patches[0].clone();
    model.objects[0].lods[0].patches.clear();
    for k in 0..30 {
        lib.materials.push(MaterialDef {
            diffuse: Some([0.5, 0.5, 0.5]),
            texture: Some(TextureRef {
                mode: 2,
                name: Some("water".into()),
            }),
            ..MaterialDef::new(&format!("m{k}"))
        });
        let mut p = patch.clone();
        p.front = Some(MaterialRef::Named(format!("lib:m{k}")));
        model.objects[0].lods[0].patches.push(p);
    }
    let water = files
        .iter()
        .find(|(p, _)| p.ends_with("WATER.TGA"))
        .unwrap()
        .1
        .clone();
    let source = MemorySource::new([
        (
            "G/VIDEO/M.BGF".to_string(),
            write_file(&model, WriteOptions::default()),
        ),
        (
            "G/MATERIAL/LIB.BMF".to_string(),
            write_file(&lib, WriteOptions::default()),
        ),
        ("G/TEXTURE/WATER.TGA".to_string(), water),
    ]);
    let archive = RefCell::new(source.archive());
    let scene = pollster::block_on(open_file(&archive, &source, "G/VIDEO/M.BGF"))
        .unwrap()
        .scene
        .unwrap();
    assert_eq!(scene.materials.len(), 30);
    assert_eq!(scene.textures.len(), 1);
    assert!(scene.materials.iter().all(|m| m.texture == Some(0)));
}
