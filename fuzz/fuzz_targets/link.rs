//! A permalink's fragment as people type (and mistype) it: every key, values that are not
//! numbers or words, percent escapes, a key given twice. Nothing panics, and a link once
//! written reads back to the same link and the same words (numbers go out to four decimals,
//! so it is the written form that must be stable).
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::view::ViewLink;

fuzz_target!(|data: &[u8]| {
    let written = ViewLink::parse(&String::from_utf8_lossy(data)).fragment();
    let read = ViewLink::parse(&written);
    assert_eq!(read.fragment(), written);
});
