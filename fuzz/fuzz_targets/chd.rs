//! The CHD reader on arbitrary bytes: the header checked against the file, the hunk map,
//! the track metadata, and each hunk's codec (through the chd crate) as the ISO 9660 reader
//! reads the sectors inside. Seeded with chdman's own images.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::ContainerKind;

/// A panic inside the chd crate is caught by the reader and becomes the image's error (its
/// decoders index by what the file says); libFuzzer's hook would abort on it first. Any
/// other panic still aborts: those are ours.
fn let_the_crates_panics_be_caught() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.location().is_some_and(|l| l.file().contains("/chd-")) {
                abort(info);
            }
        }));
    });
}

fuzz_target!(|data: &[u8]| {
    let_the_crates_panics_be_caught();
    let Some((range, rest)) = common::split_range(data) else { return };
    common::exercise(ContainerKind::Chd, rest.to_vec(), range);
});
