//! Containers on a static host (crates/containers/src/hosted.rs) on arbitrary bytes: an entry read
//! from pieces a hostile index names (anywhere, any size, any CRC) gives bytes or an error
//! naming the container, never a panic or an allocation the fetched bytes do not bound; and
//! every entry that publishing planned reads back from its ranges alone as the whole
//! container reads it.
#![no_main]

#[path = "common/container.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use relicview::containers::hosted::{self, Fetched, Layout, Wanted};
use std::rc::Rc;

fn word(b: &[u8]) -> u64 {
    b.iter().rev().fold(0, |n, &x| n << 8 | x as u64)
}

fuzz_target!(|data: &[u8]| {
    common::let_the_chd_crates_panics_be_caught();
    if data.len() < 20 {
        return;
    }
    let (head, rest) = data.split_at(20);
    let disc = |mode: &str| Layout::Disc {
        mode: mode.into(),
        start: head[1] as u64 % 4,
    };
    let layout = match head[0] % 5 {
        0 => Layout::Zip,
        1 => disc("COOKED"),
        2 => disc("MODE1"),
        3 => disc("MODE2"),
        _ => Layout::Chd,
    };
    let bytes = rest.to_vec();
    let len = bytes.len() as u64;
    // A hostile row: one piece of the bytes, an entry anywhere of any size.
    let from = word(&head[2..6]) % (len + 1);
    let to = from + word(&head[6..10]) % (len - from + 1);
    let (at, size) = (word(&head[10..14]), word(&head[14..18]) % (64 << 20));
    // Some rows name a disc file's extents: two, the second anywhere.
    let pieces =
        (head[1] & 0x10 != 0).then(|| vec![[at, size / 3], [word(&head[6..10]), size - size / 3]]);
    let wanted = Wanted {
        at,
        size,
        crc32: word(&head[16..20]) as u32,
        pieces,
    };
    if let Ok(fetched) = Fetched::new(
        len,
        vec![(from, bytes[from as usize..to as usize].to_vec())],
    ) {
        if let Err(e) =
            hosted::read_hosted("fuzz", "entry", &layout, fetched, wanted, common::LIMITS)
        {
            assert!(e.to_string().starts_with("fuzz: entry"), "{e}");
        }
    }
    // What publishing plans reads back from its ranges alone.
    let Ok(plan) = hosted::plan(
        "fuzz",
        &layout,
        Rc::new(bytes.clone()),
        common::LIMITS,
        &mut |_, _| {},
    ) else {
        return;
    };
    for e in plan.entries.iter().take(32) {
        let pieces = plan
            .meta
            .iter()
            .chain(&e.ranges)
            .map(|&[at, n]| (at, bytes[at as usize..(at + n) as usize].to_vec()))
            .collect();
        let size = plan.container.entries()[e.index].size;
        let wanted = Wanted {
            at: e.at,
            size,
            crc32: e.crc32,
            pieces: e.pieces.clone(),
        };
        let got = hosted::read_hosted(
            "fuzz",
            "entry",
            &layout,
            Fetched::new(len, pieces).expect("planned ranges lie within the container"),
            wanted,
            common::LIMITS,
        );
        match (&layout, got) {
            (_, Ok(got)) => assert_eq!(
                got,
                plan.container
                    .read(e.index)
                    .expect("a planned entry was read"),
                "entry {}",
                e.index
            ),
            // A zip's local header may disagree with its central directory, which the plan read.
            (Layout::Zip, Err(_)) => {}
            (_, Err(err)) => panic!(
                "entry {} does not read back from its ranges: {err}",
                e.index
            ),
        }
    }
});
