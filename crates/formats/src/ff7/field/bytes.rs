//! Reading a .DAT's bytes: little-endian numbers at an offset (the caller has checked the
//! range), and the errors of a section that does not hold what it must.

use crate::findings::ParseError;
use std::ops::Range;

pub const SECTION_NAMES: [&str; 7] = [
    "script",
    "walkmesh",
    "tile map",
    "camera",
    "triggers",
    "encounters",
    "model loader",
];

pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub(super) fn s16_at(b: &[u8], at: usize) -> i16 {
    i16::from_le_bytes([b[at], b[at + 1]])
}

pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub(super) fn s32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// An error inside section `k` at file offset `at`.
pub(super) fn section_error(k: usize, at: usize, message: String) -> ParseError {
    ParseError::new(at, SECTION_NAMES[k], message)
}

/// Section `k` must hold `need` bytes from its start.
pub(super) fn need(
    k: usize,
    range: &Range<usize>,
    need: usize,
    what: &str,
) -> Result<(), ParseError> {
    if range.len() < need {
        return Err(section_error(
            k,
            range.start,
            format!(
                "expected {need} bytes for {what}; the section has {}",
                range.len()
            ),
        ));
    }
    Ok(())
}
