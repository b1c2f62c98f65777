//! The 7z reader on arbitrary bytes (after 8 bytes that pick a range to stream): signature
//! and start headers, the (possibly packed) header, blocks and their coders, solid blocks
//! decoded from their start, each entry to the size its header declares. Then the same
//! archive opened again with a store of what the first reader decoded (as the page keeps it),
//! some of it mangled: every entry reads the same bytes as without the store, or fails alike.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::{self, ContainerKind, DecodedStore};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A store in memory, an entry kept once its last piece came; it flips a byte of every
/// third entry, cuts every fifth.
#[derive(Clone, Default)]
struct Store(
    Rc<RefCell<HashMap<usize, Vec<u8>>>>,
    Rc<RefCell<HashMap<usize, Vec<u8>>>>,
);

impl DecodedStore for Store {
    fn has(&self, index: usize) -> bool {
        self.0.borrow().contains_key(&index)
    }
    fn get(&self, index: usize) -> Option<Vec<u8>> {
        self.0.borrow().get(&index).cloned()
    }
    fn put(&self, index: usize, offset: u64, bytes: &[u8], last: bool) {
        let mut pending = self.1.borrow_mut();
        let piece = pending.entry(index).or_default();
        assert_eq!(piece.len() as u64, offset, "pieces come in order");
        piece.extend_from_slice(bytes);
        if !last {
            return;
        }
        let mut kept = pending.remove(&index).unwrap_or_default();
        if index % 3 == 1 && !kept.is_empty() {
            kept[0] ^= 0x40;
        } else if index % 5 == 2 {
            kept.pop();
        }
        self.0.borrow_mut().insert(index, kept);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((range, rest)) = common::split_range(data) else {
        return;
    };
    common::exercise(ContainerKind::SevenZ, rest.to_vec(), range);
    let Ok(plain) = containers::open(
        "fuzz",
        ContainerKind::SevenZ,
        Rc::new(rest.to_vec()),
        common::LIMITS,
    ) else {
        return;
    };
    let store = Store::default();
    let Ok(mut stored) = containers::open(
        "fuzz",
        ContainerKind::SevenZ,
        Rc::new(rest.to_vec()),
        common::LIMITS,
    ) else {
        return;
    };
    stored.keep_decoded_in(Box::new(store.clone()));
    let n = plain.entries().len().min(32);
    // Twice: the first pass fills the store, the second reads from it where it can.
    for _ in 0..2 {
        for i in (0..n).rev() {
            let (a, b) = (plain.read(i), stored.read(i));
            assert_eq!(
                a.as_ref().ok(),
                b.as_ref().ok(),
                "entry {i}: the store changed what it reads"
            );
        }
    }
});
