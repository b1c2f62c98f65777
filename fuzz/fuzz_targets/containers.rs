//! The container readers on arbitrary bytes: a zip, an ISO 9660 image, a raw MODE1 / MODE2
//! rip and a cue sheet. Nothing may panic, hang or allocate beyond the limits: listing ends,
//! every entry read either gives its declared size or an error naming the container.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::containers::{self, ContainerKind, Limits, SectorMode};
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let limits = Limits { max_entries: 2_000, max_entry_bytes: 8 << 20, max_ratio: 100, max_depth: 16 };
    let kind = match pick % 4 {
        0 => ContainerKind::Zip,
        1 => ContainerKind::Iso,
        2 => ContainerKind::RawDisc(SectorMode::Mode2),
        _ => {
            let _ = containers::cue_data_track(&String::from_utf8_lossy(rest));
            return;
        }
    };
    // ISO inputs start at the volume descriptors: the sixteen system sectors come free.
    let bytes = if kind == ContainerKind::Iso { [vec![0u8; 16 * 2048], rest.to_vec()].concat() } else { rest.to_vec() };
    let _ = containers::sniff("fuzz.bin", &bytes);
    let Ok(c) = containers::open("fuzz", kind, Arc::new(bytes), limits) else { return };
    assert!(c.entries().len() <= limits.max_entries);
    for (i, e) in c.entries().iter().enumerate().take(64) {
        match c.read(i) {
            Ok(b) => assert_eq!(b.len() as u64, e.size),
            Err(err) => assert!(err.to_string().starts_with("fuzz")),
        }
    }
});
