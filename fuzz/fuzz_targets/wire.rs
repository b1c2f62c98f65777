//! The worker-to-page scene bytes (crates/services/src/wire.rs) on arbitrary input: an error or a scene, never
//! a panic or an allocation sized by a claimed length; a decoded scene encodes back to the
//! same bytes, also when written in pieces. Inputs with an odd first byte are byte
//! substitutions in a real encoded scene (a generated terrain patch), so the fuzzer also
//! explores scenes that decode, not only the ways bytes fail to.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::archive::Archive;
use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
use relicview::formats::registry::{self, Purpose};
use relicview::wire::{decode, encode, encode_into, encoded_len, ShownScene};
use std::sync::OnceLock;

fn seed() -> &'static [u8] {
    static SEED: OnceLock<Vec<u8>> = OnceLock::new();
    SEED.get_or_init(|| {
        let bytes = write_file(&relicview::demo::large_model(1), WriteOptions::default());
        let scene = registry::open("T.BGF", bytes, Purpose::Asset)
            .build_scene(&Archive::detached())
            .scene
            .expect("the terrain draws");
        encode(
            ShownScene {
                scene,
                records: vec![(0, 12), (12, 40)],
                placements: 1,
            }
            .lend(),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let input = match data.split_first() {
        Some((k, edits)) if k & 1 == 1 => {
            let mut s = seed().to_vec();
            for e in edits.chunks_exact(3) {
                let at = u16::from_le_bytes([e[0], e[1]]) as usize % s.len();
                s[at] = e[2];
            }
            s
        }
        _ => [b"RVSCENE1".as_slice(), data].concat(),
    };
    if let Ok(shown) = decode(&input) {
        // Compared as bytes: a scene may hold NaNs, which are never equal to themselves.
        let again = encode(shown.lend());
        assert_eq!(
            encode(decode(&again).expect("own bytes decode").lend()),
            again
        );
        assert_eq!(encoded_len(shown.lend()), again.len());
        let mut pieces = vec![0u8; again.len()];
        encode_into(shown.lend(), |at, bytes| {
            pieces[at..at + bytes.len()].copy_from_slice(bytes)
        });
        assert_eq!(pieces, again);
    }
});
