//! The LZS decoder on arbitrary streams: bounded output, no panic; and the encoder's output
//! of the same bytes decodes back to them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use relicview::formats::ff7::lzs::{decode, decode_stream, encode, MAX_OUTPUT, MAX_RATIO};

fuzz_target!(|data: &[u8]| {
    if let Ok(out) = decode_stream(data, 1 << 20) {
        assert!(out.len() <= data.len() * MAX_RATIO);
    }
    let packed = encode(data);
    assert_eq!(
        decode(&packed, MAX_OUTPUT).expect("the encoder's output decodes"),
        data
    );
});
