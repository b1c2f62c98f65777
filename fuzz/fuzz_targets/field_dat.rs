//! A field's .DAT (docs/formats/field-dat.md), packed as the disc stores it or not: the
//! reader, the inspector, the init pass, `info` and the scene never panic, hang or allocate
//! past what the bytes bound, however the sections, counts, scripts and jumps lie.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::field::{self, FIELD_DAT};
use relicview::formats::registry::Purpose;
use relicview::formats::NoAssets;

fuzz_target!(|data: &[u8]| {
    let mut doc = field::open("FIELD/A.DAT", data.to_vec(), FIELD_DAT, Purpose::Show);
    let _ = doc.info_json();
    let _ = doc.info_rows();
    let _ = doc.build_scene(&NoAssets);
});
