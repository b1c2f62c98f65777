//! What every container target checks of an opened container: nothing panics, hangs or
//! allocates beyond the limits; the listing stays within them; every entry read gives its
//! listed size or an error naming the container; a range streamed from an entry is the same
//! bytes as that range of the whole read; every entry read at once (`read_each`, a solid 7z's
//! blocks decoded once) comes once, as it reads alone.

// Each target uses the part of this module it needs.
#![allow(dead_code)]

use relicview::containers::{self, ContainerKind, Limits};
use std::rc::Rc;

/// Every container target runs under the allocator the CLI and the page install, so that a
/// 7z header's tables are read under its ceiling (crates/containers/src/ceiling.rs).
#[global_allocator]
static ALLOCATOR: containers::ceiling::CeilingAllocator = containers::ceiling::CeilingAllocator;

pub const LIMITS: Limits = Limits {
    max_entries: 2_000,
    max_entry_bytes: 8 << 20,
    max_ratio: 100,
    max_depth: 16,
};

pub fn exercise(kind: ContainerKind, bytes: Vec<u8>, range: (u64, u64)) {
    let _ = containers::sniff("fuzz.bin", &bytes);
    let Ok(c) = containers::open("fuzz", kind, Rc::new(bytes), LIMITS) else {
        return;
    };
    assert!(c.entries().len() <= LIMITS.max_entries);
    for (i, e) in c.entries().iter().enumerate().take(64) {
        match c.read(i) {
            Ok(whole) => {
                assert_eq!(whole.len() as u64, e.size);
                let skip = range.0 % (e.size + 1);
                let take = range.1 % (e.size - skip + 1);
                let mut streamed = Vec::new();
                let mut chunks = 0;
                c.stream(i, skip, take, &mut |chunk| {
                    chunks += 1;
                    streamed.extend_from_slice(chunk);
                    Ok(())
                })
                .expect("an entry that reads whole streams too");
                assert_eq!(streamed, whole[skip as usize..(skip + take) as usize]);
                assert!(chunks <= take.div_ceil(containers::CHUNK as u64) + 1);
            }
            Err(err) => assert!(err.to_string().starts_with("fuzz"), "{err}"),
        }
    }
    let wanted: Vec<usize> = (0..c.entries().len().min(64)).rev().collect();
    let mut handed: Vec<Option<Result<Vec<u8>, String>>> = vec![None; wanted.len()];
    c.read_each(&wanted, &mut |i, read| {
        assert!(
            handed[i].replace(read.map_err(|e| e.to_string())).is_none(),
            "entry {i} handed twice"
        );
        true
    });
    // Each entry read at once is as read alone (the container is not read from inside
    // read_each's callback: a decode may be under way).
    for (i, got) in handed.into_iter().enumerate() {
        match (got.expect("every entry asked for is handed"), c.read(i)) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "entry {i} read at once as alone"),
            (Ok(_), Err(e)) => panic!("entry {i} read at once but not alone: {e}"),
            (Err(e), _) => assert!(e.starts_with("fuzz"), "{e}"),
        }
    }
}

/// The two range words the targets take from the front of their input.
pub fn split_range(data: &[u8]) -> Option<((u64, u64), &[u8])> {
    if data.len() < 8 {
        return None;
    }
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap()) as u64;
    Some(((word(&data[..4]), word(&data[4..8])), &data[8..]))
}

/// A panic inside the chd crate is caught by the reader and becomes the image's error (its
/// decoders index by what the file says); libFuzzer's hook would abort on it first. Any
/// other panic still aborts: those are ours.
#[allow(dead_code)]
pub fn let_the_chd_crates_panics_be_caught() {
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
