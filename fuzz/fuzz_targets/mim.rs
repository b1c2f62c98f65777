//! A field's .MIM (docs/formats/mim.md), packed as the disc stores it or not: the reader, the
//! inspector, the picture and the video memory it fills never panic, hang or allocate past
//! what the bytes bound, however the block sizes and rectangles lie.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::ff7::mim::{self, MimDocument, MIM};
use relicview::formats::registry::Purpose;

fuzz_target!(|data: &[u8]| {
    let doc = mim::open("FIELD/A.MIM", data.to_vec(), MIM, Purpose::Show);
    let _ = relicview::formats::Described::alone(&*doc).info_json();
    let _ = doc.image_regions();
    if let Some(m) = doc.as_any().downcast_ref::<MimDocument>() {
        let _ = m.vram();
    }
});
