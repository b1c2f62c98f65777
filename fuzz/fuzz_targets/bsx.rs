//! The BSX reader on arbitrary bytes, LZS-wrapped or not, opened as the viewer opens it:
//! no panic, no hang; the scene stays within its budget, keeps parents before children,
//! poses at any time and exports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::Archive;
use relicview::formats::bsx::scene::scene_budget;
use relicview::formats::registry::{self, Purpose};

fuzz_target!(|data: &[u8]| {
    let mut doc = registry::open("F/X.BSX", data.to_vec(), Purpose::Show);
    let _ = (doc.info_json(), doc.info_rows(), doc.stats(), doc.inspector().map(|v| v.chunks.len()));
    let decoded = doc.bytes(0).map_or(0, |b| b.len());
    let Some(scene) = doc.build_scene(&Archive::detached()) else { return };
    assert!(scene.nodes.iter().enumerate().all(|(i, n)| n.parent.is_none_or(|p| (p as usize) < i)));
    let geometry: usize = scene.meshes.iter().flat_map(|m| &m.primitives).map(|p| p.positions.len() * 24 + p.indices.len() * 4).sum();
    let textures: usize = scene.textures.iter().map(|t| t.texels.rgba.len()).sum();
    let keys: usize = scene.clips.iter().flat_map(|c| &c.tracks).map(|t| (t.times.len() + t.values.len()) * 4).sum();
    assert!(geometry + textures + keys <= scene_budget(decoded), "{geometry} + {textures} + {keys} bytes from {decoded}");
    let world = scene.world(&scene.pose(0.37));
    assert_eq!(world.len(), scene.nodes.len());
    let glb = relicview::gltf::export_glb(&scene, Default::default()).expect("every scene exports");
    assert_eq!(&glb[..4], b"glTF");
});
