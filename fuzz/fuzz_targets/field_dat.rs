//! A field's .DAT (docs/formats/field-dat.md), packed as the disc stores it or not: the
//! reader, the inspector, the init pass, `info` and the scene never panic, hang or allocate
//! past what the bytes bound, however the sections, counts, scripts and jumps lie; its
//! background composes from any tile map (over video memory of a pattern); and its ways out
//! (gateways, MAPJUMPs) stand the leader on its own walkmesh as entrances, whatever they say.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::ff7::field::{self, backdrop, background, entrances, FIELD_DAT};
use relicview::formats::ff7::psx::Vram;
use relicview::formats::registry::Purpose;
use relicview::formats::NoAssets;

fuzz_target!(|data: &[u8]| {
    let doc = field::open("FIELD/A.DAT", data.to_vec(), FIELD_DAT, Purpose::Show);
    let _ = relicview::formats::Described::alone(&*doc).info_json();
    let _ = relicview::formats::Described::alone(&*doc).info_rows();
    // Described again with what the build found, as the page shows a built field.
    let built = doc.build_scene(&NoAssets);
    let _ = (
        doc.info(&built.found).json(doc.error()),
        doc.info(&built.found).rows(),
    );
    if let Some(d) = doc
        .as_any()
        .downcast_ref::<field::DatDocument>()
        .and_then(|d| d.parsed.as_ref())
    {
        let exits = entrances::exits(d, doc.bytes(0).unwrap_or_default());
        if let Ok(w) = &d.walkmesh {
            for e in &exits {
                let _ = entrances::arrival(w, e);
            }
            let into = exits.first().map_or(0, |e| e.to);
            let _ = entrances::entrances(w, into, [("A", exits.clone())]);
        }
        if let Ok(map) = &d.tile_map {
            let mut vram = Vram::new();
            for (k, p) in vram.pixels.iter_mut().enumerate() {
                *p = (k as u16).wrapping_mul(40503);
            }
            let _ = background::compose(
                map,
                &vram,
                background::frame(backdrop::scroll(d), map),
                [true; 4],
            );
        }
    }
});
