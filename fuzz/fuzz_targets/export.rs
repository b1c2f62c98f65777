//! The whole archive out, on hostile input: a file of any kind exported as `export --all`
//! exports it (no panic, every output a .glb or a .png that decodes), and names of any
//! bytes given by the safe namer (inside the output, none alike but for case); skeletons
//! as skins and as nodes.
//! Input: the file's name (common/named.rs), then a line of names to claim, then the file.
#![no_main]

#[path = "common/named.rs"]
mod named;

use libfuzzer_sys::fuzz_target;
use relicview::archive::MemorySource;
use relicview::bundle::{self, names::SafeNames, Outcome};
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Some((path, rest)) = named::split_name(data) else {
        return;
    };
    let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (names, file) = (&rest[..split], rest.get(split + 1..).unwrap_or(&[]));
    // Names: whatever they hold, they stay inside and apart.
    let mut safe = SafeNames::default();
    let mut given = HashSet::new();
    for wanted in String::from_utf8_lossy(names).split('\n') {
        let name = safe.claim(wanted);
        assert!(
            !name.is_empty() && !name.starts_with('/'),
            "{wanted:?} → {name:?}"
        );
        assert!(
            name.split('/').all(|s| !s.is_empty()
                && s != "."
                && s != ".."
                && !s.contains(['\\', ':', '<', '>', '|', '?', '*', '"'])),
            "{wanted:?} → {name:?}"
        );
        assert!(given.insert(name.to_lowercase()), "{name:?} given twice");
    }
    // The file: exported, or skipped or failed with a reason.
    let source = MemorySource::new([(path.clone(), file.to_vec())]);
    let archive = std::cell::RefCell::new(source.archive());
    let Ok(opened) = pollster::block_on(bundle::open_for_export(&archive, &source, &path)) else {
        return;
    };
    // Either rig, by the file's length: a skeleton as a skin or as nodes.
    let rig = if file.len() % 2 == 0 {
        relicview::gltf::Rig::Skin
    } else {
        relicview::gltf::Rig::Nodes
    };
    match bundle::outcome_of(&opened, true, rig) {
        Outcome::Written { outputs, .. } => {
            for o in outputs {
                if o.suffix.ends_with(".glb") {
                    assert_eq!(&o.bytes[..4], b"glTF");
                } else {
                    let img =
                        image::load_from_memory_with_format(&o.bytes, image::ImageFormat::Png)
                            .expect("a PNG that decodes");
                    assert!(img.width() > 0 && img.height() > 0);
                }
            }
        }
        Outcome::Skipped(why) => assert!(!why.is_empty()),
        Outcome::Failed { error, .. } => assert!(!error.is_empty()),
    }
});
