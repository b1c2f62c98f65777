//! FIELD.BIN on arbitrary bytes, and the real module with its tables scrambled, as a field
//! model's archive holds it: opened as the viewer opens it (unpacked, or a gzip stream alone
//! or behind the disc's header), then a real field file lit with whatever tables it gives.
//! The input's first byte picks: even, the rest is the file as stored; odd, the rest is
//! XORed over the tables of the real module (the sine, normal and face tables). Nothing may
//! panic or hang; a lit scene has a lit colour for every vertex that has a stored one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::{open_file, MemorySource};
use relicview::formats::ff7::bsx::field_bin::{MOUTHS, SINES};

/// The real unpacked module and a real field file, read at build time from beside the repo.
const MODULE: &[u8] = include_bytes!("../../../shared/testdata/ff7/FIELD.BIN_u");
const FIELD: &[u8] = include_bytes!("../../../shared/testdata/ff7/MD1_1_u.BSX");
/// The tables' bytes: from the sine table to the end of the mouth table.
const TABLES: std::ops::Range<usize> = SINES.at..MOUTHS.end();

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        let mut module = MODULE.to_vec();
        for (k, b) in rest.iter().enumerate() {
            module[TABLES.start + k % TABLES.len()] ^= b;
        }
        module
    };
    let source = MemorySource::new([
        ("F/FIELD.BIN".to_string(), file),
        ("F/MD1_1.BSX".to_string(), FIELD.to_vec()),
    ]);
    let archive = std::cell::RefCell::new(source.archive());
    if let Ok(opened) = pollster::block_on(open_file(&archive, &source, "F/FIELD.BIN")) {
        let doc = &opened.document;
        let _ = (
            relicview::formats::Described::alone(&**doc).info_json(),
            relicview::formats::Described::alone(&**doc).info_rows(),
            doc.inspector(relicview::formats::Found::NOTHING)
                .map(|v| v.listing().records.len()),
        );
        if let Some(scene) = &opened.scene {
            assert_eq!(scene.triangle_count(0), 240 * 8, "a point per normal");
        }
    }
    let opened = pollster::block_on(open_file(&archive, &source, "F/MD1_1.BSX"))
        .expect("the real file opens");
    let scene = opened.scene.as_ref().expect("the real file draws");
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        if let Some(lit) = &p.lit_colors {
            assert_eq!(Some(lit.len()), p.colors.as_ref().map(Vec::len));
        }
    }
    let _ = opened.described().info_json();
});
