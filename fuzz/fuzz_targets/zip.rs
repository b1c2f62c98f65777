//! The zip reader on arbitrary bytes (after 8 bytes that pick a range to stream): central
//! directories, ZIP64 records, local headers, data descriptors, stored and deflated data.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::ContainerKind;

fuzz_target!(|data: &[u8]| {
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    common::exercise(ContainerKind::Zip, rest.to_vec(), range);
});
