//! The world assembler on arbitrary text: a MAP, a MAP it may include, a MOD and a SUB (the
//! input split at 0x00 bytes), beside a real model, opened through the one open sequence.
//! Nothing may panic or hang (include cycles and self-nesting are errors); the scene keeps
//! parents before children, placements stay within their bound, and it exports.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::{open_file, MemorySource};
use relicview::formats::pods::world::assemble::MAX_PLACEMENTS;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(4, |&b| b == 0);
    let mut next = || parts.next().unwrap_or_default().to_vec();
    static CUBE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let cube = CUBE
        .get_or_init(|| {
            relicview::demo::demo_files()
                .into_iter()
                .find(|(p, _)| p.ends_with("CUBE.BGF"))
                .expect("the demo has a cube")
                .1
        })
        .clone();
    let files = vec![
        ("W/MAPS/A.MAP".to_string(), next()),
        ("W/MAPS/B.MAP".to_string(), next()),
        ("W/MODELS/X.MOD".to_string(), next()),
        ("W/MODELS/X.SUB".to_string(), next()),
        ("W/VIDEO/CUBE.BGF".to_string(), cube),
    ];
    let source = MemorySource::new(files);
    let archive = std::cell::RefCell::new(source.archive());
    let Ok(opened) = pollster::block_on(open_file(&archive, &source, "W/MAPS/A.MAP")) else {
        return;
    };
    let _ = (
        opened.described().info_json(),
        opened.described().info_rows(),
        opened.described().stats(),
    );
    if let Some(scene) = &opened.scene {
        assert!(scene
            .nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.parent.is_none_or(|p| (p as usize) < i)));
        assert!(opened.described().stats().placements <= MAX_PLACEMENTS);
        let _ = scene.bounds(0);
        let glb =
            relicview::gltf::export_glb(scene, Default::default()).expect("every scene exports");
        assert_eq!(&glb[..4], b"glTF");
    }
});
