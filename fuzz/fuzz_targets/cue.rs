//! The cue sheet reader on arbitrary text: FILE, TRACK and INDEX lines, their order and
//! their numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::containers;

fuzz_target!(|data: &[u8]| {
    let _ = containers::cue_data_track(&String::from_utf8_lossy(data));
});
