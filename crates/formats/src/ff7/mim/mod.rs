//! A Final Fantasy VII PlayStation field's .MIM (LZS-wrapped on the disc): the pixels of its
//! pre-rendered background as VRAM rectangles: the palettes, then one or two 8-bit image
//! blocks. Where each 16 × 16 tile of the picture comes from is the field's .DAT's tile map
//! (docs/formats/mim.md).

pub mod document;
pub mod raw;

pub use document::{open, MimDocument};
pub use raw::MimFile;

use crate::kind::{Capabilities, Format, Head, Kind, Sniffed};

pub const MIM: Kind = Kind::new("mim");

pub const FORMATS: &[Format] = &[Format {
    kind: MIM,
    label: "MIM",
    title: "FF7 field background pixels",
    caps: Capabilities {
        image: true,
        used_by: true,
        ..Capabilities::NONE
    },
    sniffs: &[(Sniffed::Name, sniff)],
    named: &["mim"],
    claims: &[],
    refers_to: &[],
    open,
}];

/// By its name: its first bytes (an LZS length, then a block size) are too common to claim a
/// file by.
pub fn sniff(h: &Head) -> bool {
    h.ext == "mim"
}
