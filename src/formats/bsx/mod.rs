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
pub use field_bin_document::{open_field_bin, sniff_field_bin, FieldBinDocument};
pub use tdb_document::{open_tdb, sniff_tdb, TdbDocument};

/// The BCX files of the playable characters, by global model id 1..9.
pub const CHARACTERS: [&str; 9] = ["CLOUD.BCX", "EARITH.BCX", "BALLET.BCX", "TIFA.BCX", "RED.BCX", "CID.BCX", "YUFI.BCX", "KETCY.BCX", "VINCENT.BCX"];

/// The BCX that holds character `global_id`'s skeleton, parts and first animations.
pub fn character_file(global_id: u8) -> Option<&'static str> {
    CHARACTERS.get((global_id as usize).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::raw::*;

    pub fn shared(name: &str) -> Vec<u8> {
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/ff7").join(name)).expect("the shared FF7 test data sits beside the repo")
    }

    #[test]
    fn every_real_file_parses_with_every_invariant_holding() {
        for name in ["ELEVTR1_u.BSX", "MD1_1_u.BSX", "NMKIN_1_u.BSX", "STARTMAP_u.BSX"] {
            let bytes = shared(name);
            let f = BsxFile::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(f.diagnostics.is_empty(), "{name}: {:?}", f.diagnostics);
            eprintln!("{name}: {} models, {} part blocks, {} animation blocks, {} rects", f.models.len(), f.parts.len(), f.anims.len(), f.textures.as_ref().map_or(0, |t| t.rects.len()));
        }
    }
}
