//! What any archive holds, whatever its game: pictures in the common formats ([`image`]),
//! text ([`text`]), and every other file as bytes ([`bytes`], the registry's last word).

pub mod bytes;
pub mod image;
pub mod text;

/// The family's rows (bytes has none: it is what no row recognises).
pub const FORMATS: &[&[crate::kind::Format]] = &[image::FORMATS, text::FORMATS];
