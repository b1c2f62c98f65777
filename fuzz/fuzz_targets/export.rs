//! The whole archive out, on hostile input: a file of any kind exported as `export --all`
//! exports it (no panic, every output a .glb or a .png that decodes), and names of any
//! bytes given by the safe namer (inside the output, none alike but for case).
//! Input: a byte picking the file's name, then a line of names to claim, then the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::MemorySource;
use relicview::bundle::{self, names::SafeNames, Outcome};
use std::collections::HashSet;

const NAMES: [&str; 10] = ["A.BGF", "A.BMF", "A.MAP", "A.MOD", "A.TGA", "A.RGB", "A.BSX", "A.BCX", "FIELD.TDB", "A.BIN"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let (names, file) = (&rest[..split], rest.get(split + 1..).unwrap_or(&[]));
    // Names: whatever they hold, they stay inside and apart.
    let mut safe = SafeNames::default();
    let mut given = HashSet::new();
    for wanted in String::from_utf8_lossy(names).split('\n') {
        let name = safe.claim(wanted);
        assert!(!name.is_empty() && !name.starts_with('/'), "{wanted:?} → {name:?}");
        assert!(name.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains(['\\', ':', '<', '>', '|', '?', '*', '"'])), "{wanted:?} → {name:?}");
        assert!(given.insert(name.to_lowercase()), "{name:?} given twice");
    }
    // The file: exported, or skipped or failed with a reason.
    let name = NAMES[pick as usize % NAMES.len()];
    let source = MemorySource::new([(name.to_string(), file.to_vec())]);
    let archive = std::cell::RefCell::new(source.archive());
    let Ok(opened) = pollster::block_on(bundle::open_for_export(&archive, &source, name)) else { return };
    match bundle::outcome_of(&opened) {
        Outcome::Written { outputs, .. } => {
            for o in outputs {
                if o.suffix.ends_with(".glb") {
                    assert_eq!(&o.bytes[..4], b"glTF");
                } else {
                    let img = image::load_from_memory_with_format(&o.bytes, image::ImageFormat::Png).expect("a PNG that decodes");
                    assert!(img.width() > 0 && img.height() > 0);
                }
            }
        }
        Outcome::Skipped(why) => assert!(!why.is_empty()),
        Outcome::Failed { error, .. } => assert!(!error.is_empty()),
    }
});
