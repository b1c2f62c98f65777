//! A zip found by its end record, whatever comes before it (a self-extracting program): the
//! search of a file's last bytes for the record, then the zip reader on what it found. The
//! first byte says how many bytes of something else come first.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::{self, ContainerKind};

fuzz_target!(|data: &[u8]| {
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    let Some((&prefix, zip)) = rest.split_first() else {
        return;
    };
    let mut bytes = vec![0x4D; prefix as usize * 37];
    bytes.extend_from_slice(zip);
    let tail = &bytes[bytes.len().saturating_sub(containers::TAIL)..];
    if let Some(at) = containers::zip_end_record(tail) {
        assert!(tail[at..].starts_with(b"PK\x05\x06"));
    }
    if containers::sniff_source("SETUP.EXE", &bytes) == Some(ContainerKind::Zip) {
        common::exercise(ContainerKind::Zip, bytes, range);
    }
});
