//! The 7z reader on arbitrary bytes (after 8 bytes that pick a range to stream): signature
//! and start headers, the (possibly packed) header, blocks and their coders, solid blocks
//! decoded from their start, each entry to the size its header declares.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::ContainerKind;

fuzz_target!(|data: &[u8]| {
    let Some((range, rest)) = common::split_range(data) else { return };
    common::exercise(ContainerKind::SevenZ, rest.to_vec(), range);
});
