//! The ISO 9660 reader on arbitrary bytes: volume descriptors, path table, directory
//! records. The input starts at sector 16 (the system area comes free), after 8 bytes that
//! pick a range to stream.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::ContainerKind;

fuzz_target!(|data: &[u8]| {
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    common::exercise(
        ContainerKind::Iso,
        [vec![0u8; 16 * 2048], rest.to_vec()].concat(),
        range,
    );
});
