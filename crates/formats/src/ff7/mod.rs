//! Final Fantasy VII's PlayStation files: the LZS compression most of them come in
//! ([`lzs`]), the console's video memory and colours ([`psx`]), TIM pictures ([`tim`]), field
//! models, characters, FIELD.TDB and FIELD.BIN ([`bsx`]), and each field's script, walkmesh
//! and camera ([`field`]) and background ([`mim`]).

pub mod bsx;
pub mod field;
pub mod game_state;
pub mod lzs;
pub mod mim;
pub mod psx;
pub mod tim;

/// The family's rows (psx is the console's, not a format).
pub const FORMATS: &[&[crate::kind::Format]] = &[
    bsx::FORMATS,
    field::FORMATS,
    lzs::FORMATS,
    mim::FORMATS,
    tim::FORMATS,
];
