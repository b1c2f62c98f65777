//! index.json as a host might serve it (docs/publishing.md): the page's reader
//! (containers::hosted::read_index) never panics, keeps at most what it is told to, and what
//! it keeps, written again as publish writes an index, reads back whole and the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::containers::hosted::read_index;

const MOST: usize = 1000;

fuzz_target!(|data: &[u8]| {
    let Some(read) = read_index(data, MOST) else {
        return;
    };
    let kept = read.index.files.len()
        + read
            .index
            .containers
            .iter()
            .map(|c| c.entries.len())
            .sum::<usize>();
    assert!(kept <= MOST);
    let written = serde_json::to_vec(&read.index).unwrap();
    let again = read_index(&written, MOST).expect("a written index is a listing");
    assert!(again.problems.is_empty(), "{:?}", again.problems);
    assert_eq!(again.index, read.index);
});
