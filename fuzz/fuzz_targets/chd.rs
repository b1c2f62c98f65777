//! The CHD reader on arbitrary bytes: the header checked against the file, the hunk map,
//! the track metadata, and each hunk's codec (through the chd crate) as the ISO 9660 reader
//! reads the sectors inside. Seeded with chdman's own images.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::ContainerKind;

fuzz_target!(|data: &[u8]| {
    common::let_the_chd_crates_panics_be_caught();
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    common::exercise(ContainerKind::Chd, rest.to_vec(), range);
});
