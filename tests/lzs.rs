//! LZS: the encoder's output decodes to its input, and arbitrary streams decode within the
//! bound without panicking.

use proptest::prelude::*;
use relicview::formats::ff7::lzs::{decode, decode_stream, encode, MAX_OUTPUT, MAX_RATIO};

/// Bytes with runs and repeats, so that the encoder finds matches near and far.
fn arb_data() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::collection::vec(any::<u8>(), 1..40),
            (any::<u8>(), 1usize..60).prop_map(|(b, n)| vec![b; n]),
            Just(b"ABCDEFGHABCDEFGH".to_vec()),
            Just(vec![0; 30]),
        ],
        0..200,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #[test]
    fn encode_then_decode_is_identity(data in arb_data()) {
        let packed = encode(&data);
        prop_assert_eq!(u32::from_le_bytes(packed[..4].try_into().unwrap()) as usize, packed.len() - 4);
        prop_assert_eq!(decode(&packed, MAX_OUTPUT).unwrap(), data);
    }

    #[test]
    fn any_stream_decodes_within_its_bound(stream in prop::collection::vec(any::<u8>(), 0..2000), cap in 0usize..5000) {
        match decode_stream(&stream, cap) {
            Ok(out) => prop_assert!(out.len() <= cap && out.len() <= stream.len() * MAX_RATIO),
            Err(e) => prop_assert!(e.offset <= stream.len()),
        }
    }
}
