//! A raw rip of 2352-byte sectors on arbitrary bytes: the sector headers and the mapping to
//! 2048-byte user data, in the mode the first input byte picks, then the ISO 9660 reader
//! on what that maps to.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::{ContainerKind, SectorMode};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, data)) = data.split_first() else {
        return;
    };
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    let mode = if mode & 1 == 0 {
        SectorMode::Mode2
    } else {
        SectorMode::Mode1
    };
    common::exercise(ContainerKind::RawDisc(mode), rest.to_vec(), range);
});
