//! PlayStation TIM images (.TIM): a tag, flags that give the depth (4, 8, 16 or 24 bits a
//! texel) and whether a CLUT follows, then the CLUT block and the image block, each a
//! rectangle of VRAM halfwords with its own length and place (docs/formats/tim.md). Decoded
//! as the GPU reads colours (`formats::ff7::psx`).

pub mod document;
pub mod raw;

pub use document::{open, TimDocument};
pub use raw::{Block, Depth, TimFile};

use crate::kind::{Capabilities, Claim, Format, Head, Kind, Sniffed};

pub const TIM: Kind = Kind::new("tim");

pub const FORMATS: &[Format] = &[Format {
    kind: TIM,
    label: "TIM",
    title: "PlayStation TIM image",
    caps: Capabilities {
        image: true,
        ..Capabilities::NONE
    },
    sniffs: &[(Sniffed::Content, sniff)],
    named: &["tim"],
    claims: &[Claim {
        extensions: &["tim"],
        what: "a PlayStation TIM image",
        starts_with: Some("the TIM tag 10 00 00 00"),
    }],
    refers_to: &[],
    open,
}];

/// The tag, and then, under any name but .TIM, flags that name a depth and nothing else: a
/// tag alone (the number 16) is too common to claim a file by. A .TIM with the tag is read
/// as one whatever its flags, so that bad flags are an error naming them.
pub fn sniff(h: &Head) -> bool {
    let word = |at: usize| {
        h.bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    word(0) == Some(raw::TAG)
        && (h.ext == "tim"
            || word(4).is_some_and(|f| f & !raw::KNOWN_FLAGS == 0)
                && h.size >= raw::HEADER as u64 + raw::BLOCK_HEADER as u64)
}
