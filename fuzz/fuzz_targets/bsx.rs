//! The FF7 field readers on arbitrary bytes, opened as the viewer opens them: a BSX, the
//! character BCX its record may name and FIELD.TDB, side by side in one folder with the real
//! FIELD.BIN, so that every model is lit as the game lights it (the input is `u16 bsx
//! length, u16 bcx length, bsx, bcx, tdb`; each LZS-wrapped or not). Nothing may panic or
//! hang; the scene stays within its budget, keeps parents before children, poses at any
//! time and exports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::{open_file, MemorySource};
use relicview::formats::ff7::bsx::scene::scene_budget;

fuzz_target!(|data: &[u8]| {
    let len = |at: usize| {
        data.get(at..at + 2)
            .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as usize)
    };
    let (a, b) = (len(0), len(2));
    let rest = data.get(4..).unwrap_or_default();
    let bsx = &rest[..a.min(rest.len())];
    let bcx = &rest[bsx.len()..(bsx.len() + b).min(rest.len())];
    let tdb = &rest[bsx.len() + bcx.len()..];
    let files = vec![
        ("F/X.BSX".to_string(), bsx.to_vec()),
        ("F/CLOUD.BCX".to_string(), bcx.to_vec()),
        ("F/FIELD.TDB".to_string(), tdb.to_vec()),
        (
            "F/FIELD.BIN".to_string(),
            include_bytes!("../../../shared/testdata/ff7/FIELD.BIN_u").to_vec(),
        ),
    ];
    let source = MemorySource::new(files);
    let archive = std::cell::RefCell::new(source.archive());
    for path in ["F/CLOUD.BCX", "F/FIELD.TDB"] {
        if let Ok(opened) = pollster::block_on(open_file(&archive, &source, path)) {
            let _ = (
                opened.described().info_json(),
                opened.described().info_rows(),
                opened.document.image().map(|t| t.width),
            );
        }
    }
    let Ok(opened) = pollster::block_on(open_file(&archive, &source, "F/X.BSX")) else {
        return;
    };
    let doc = opened.described();
    let _ = (
        doc.info_json(),
        doc.info_rows(),
        doc.stats(),
        doc.inspector().map(|v| v.chunks.len()),
    );
    let decoded = doc.document.bytes(0).map_or(0, |b| b.len());
    let Some(scene) = opened.scene.as_ref() else {
        return;
    };
    assert!(scene
        .nodes
        .iter()
        .enumerate()
        .all(|(i, n)| n.parent.is_none_or(|p| (p as usize) < i)));
    let geometry: usize = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| {
            p.positions.len() * 24
                + p.lit_colors.as_ref().map_or(0, |c| c.len() * 4)
                + p.indices.len() * 4
        })
        .sum();
    let textures: usize = scene.textures.iter().map(|t| t.texels.rgba.len()).sum();
    let keys: usize = scene
        .clips
        .iter()
        .flat_map(|c| &c.tracks)
        .map(|t| (t.times.len() + t.values.len()) * 4)
        .sum();
    // What the character's BCX brings is paid from the field file's budget too.
    assert!(
        geometry + textures + keys <= scene_budget(decoded),
        "{geometry} + {textures} + {keys} bytes from {decoded}"
    );
    let world = scene.world(&scene.pose(0.37));
    assert_eq!(world.len(), scene.nodes.len());
    let glb = relicview::gltf::export_glb(scene, Default::default()).expect("every scene exports");
    assert_eq!(&glb[..4], b"glTF");
});
