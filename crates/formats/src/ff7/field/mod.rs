//! A Final Fantasy VII PlayStation field's .DAT (LZS-wrapped on the disc): its script and
//! dialogue, walkmesh, background tile map, camera, triggers, encounters and model loader
//! (docs/formats/field-dat.md).

pub mod backdrop;
pub mod background;
pub mod bytes;
pub mod document;
pub mod entrances;
pub mod init;
pub mod opcodes;
pub mod raw;
pub mod scene;
pub mod tiles;

pub use document::{open, sniff, DatDocument};
pub use raw::DatFile;

use crate::kind::{Capabilities, Format, Kind, Sniffed};

/// A field's .DAT.
pub const FIELD_DAT: Kind = Kind::new("field-dat");

pub const FORMATS: &[Format] = &[Format {
    kind: FIELD_DAT,
    label: "DAT",
    title: "FF7 field (script, walkmesh, camera)",
    caps: Capabilities {
        scene: true,
        ..Capabilities::NONE
    },
    // By content: .DAT names a thousand other things.
    sniffs: &[(Sniffed::Content, sniff)],
    named: &["dat"],
    claims: &[],
    refers_to: &[crate::ff7::bsx::BSX, crate::ff7::mim::MIM],
    open,
}];
