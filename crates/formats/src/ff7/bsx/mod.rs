//! Final Fantasy VII PlayStation field models (.BSX, LZS-wrapped on the disc): a skeleton
//! of bones, rigid parts of eight polygon kinds on them, VRAM textures and animations
//! (docs/formats/bsx.md).

pub mod document;
pub mod field_bin;
pub mod field_bin_document;
pub mod inspect;
pub mod lighting;
pub mod raw;
pub mod scene;
pub mod tdb;
pub mod tdb_document;
pub mod vram;
pub mod writer;

pub use document::{open, sniff, sniff_bcx, BsxDocument};
pub use field_bin_document::{open_field_bin, FieldBinDocument};
pub use tdb_document::{open_tdb, sniff_tdb, TdbDocument};

use crate::kind::{Capabilities, Format, Kind, Sniffed};

/// A field model (.BSX).
pub const BSX: Kind = Kind::new("bsx");
/// A playable character's skeleton, parts and first animations (.BCX).
pub const BCX: Kind = Kind::new("bcx");
/// FIELD.TDB: the eyes and mouths.
pub const TDB: Kind = Kind::new("tdb");
/// FF7's field module (FIELD.BIN): the normals, sine and face tables models are drawn with.
pub const FIELD_BIN: Kind = Kind::new("field-bin");

pub const FORMATS: &[Format] = &[
    Format {
        kind: BSX,
        label: "BSX",
        title: "FF7 field model",
        caps: Capabilities {
            scene: true,
            primary: true,
            own_textures: true,
            ..Capabilities::NONE
        },
        // Under its name a BSX is opened as one whatever it holds, to say what is wrong.
        sniffs: &[(Sniffed::Name, sniff)],
        named: &["bsx"],
        claims: &[],
        refers_to: &[BCX, TDB, FIELD_BIN],
        open,
    },
    Format {
        kind: BCX,
        label: "BCX",
        title: "FF7 field character",
        caps: Capabilities {
            scene: true,
            used_by: true,
            own_textures: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_bcx)],
        named: &["bcx"],
        claims: &[],
        refers_to: &[TDB, FIELD_BIN],
        open,
    },
    Format {
        kind: TDB,
        label: "TDB",
        title: "FF7 field eyes and mouths",
        caps: Capabilities {
            image: true,
            used_by: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_tdb)],
        named: &["tdb"],
        claims: &[],
        refers_to: &[],
        open: open_tdb,
    },
    Format {
        kind: FIELD_BIN,
        label: "FBIN",
        title: "FF7 field module (FIELD.BIN: normals, face tables)",
        caps: Capabilities {
            scene: true,
            used_by: true,
            ..Capabilities::NONE
        },
        sniffs: &[
            (Sniffed::Content, field_bin_document::by_content),
            (Sniffed::Name, field_bin_document::by_name),
        ],
        named: &[],
        claims: &[],
        refers_to: &[],
        open: open_field_bin,
    },
];

/// The BCX files of the playable characters, by global model id 1..9.
pub const CHARACTERS: [&str; 9] = [
    "CLOUD.BCX",
    "EARITH.BCX",
    "BALLET.BCX",
    "TIFA.BCX",
    "RED.BCX",
    "CID.BCX",
    "YUFI.BCX",
    "KETCY.BCX",
    "VINCENT.BCX",
];

/// What a playable character's first three clips (its BCX's) are: the field engine plays
/// them to stand, walk and run (docs/formats/bsx.md, "Characters").
pub const CHARACTER_CLIPS: [&str; 3] = ["stand", "walk", "run"];

/// The BCX that holds character `global_id`'s skeleton, parts and first animations.
pub fn character_file(global_id: u8) -> Option<&'static str> {
    CHARACTERS
        .get((global_id as usize).checked_sub(1)?)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::raw::*;

    pub fn shared(name: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../../shared/testdata/ff7")
                .join(name),
        )
        .expect("the shared FF7 test data sits beside the repo")
    }

    #[test]
    fn every_real_file_parses_with_every_invariant_holding() {
        for name in [
            "ELEVTR1_u.BSX",
            "MD1_1_u.BSX",
            "NMKIN_1_u.BSX",
            "STARTMAP_u.BSX",
        ] {
            let bytes = shared(name);
            let f = BsxFile::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(f.diagnostics.is_empty(), "{name}: {:?}", f.diagnostics);
            eprintln!(
                "{name}: {} models, {} part blocks, {} animation blocks, {} rects",
                f.models.len(),
                f.parts.len(),
                f.anims.len(),
                f.textures.as_ref().map_or(0, |t| t.rects.len())
            );
        }
    }
}
