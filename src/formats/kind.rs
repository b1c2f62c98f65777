//! The words a format module needs to take part, and nothing more: what a file is ([`Kind`]),
//! what a kind can do, what a sniffer sees ([`Head`]) and why a file is opened. The table
//! that ties kinds to formats is the registry, which names every format; this module names
//! none, so formats can depend on it without depending on each other.

use serde::{Deserialize, Serialize};

/// What a file is. Serialised as the words the listing, `census` and the page use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Biz2Geometry,
    Biz2Materials,
    /// A .BGF/.BMF/.B2Z without the magic: opened as DIV-BIZ2 to say why it fails.
    Biz2Unreadable,
    Viz2Text,
    Vmf2Text,
    Map,
    Mod,
    Sub,
    Bsx,
    Bcx,
    Tdb,
    /// FF7's field module (FIELD.BIN): the normals, sine and face tables models are drawn with.
    FieldBin,
    Lzs,
    Image,
    /// Named as a format (.PNG, .MAP …) its content is not: an error that says both.
    Misnamed,
    Unknown,
}

/// What the page can do with a file of a kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    /// Draws a scene in 3D (and exports it as glTF).
    pub scene: bool,
    /// Is shown as text with line numbers.
    pub text: bool,
    /// Is shown as a picture.
    pub image: bool,
    /// Other files refer to it: "used by" has answers.
    pub used_by: bool,
    /// Opened first when an archive is loaded (a model, not an asset).
    pub primary: bool,
    /// Assembled from other files of the archive (a world): `census` assembles it to count
    /// what it places and what it cannot find.
    pub assembles: bool,
    /// Its scene decodes textures from the file itself (a field model's VRAM pages): the
    /// texture gallery opens it to list them.
    pub own_textures: bool,
}

/// The first bytes of a file (16 are enough), its name and its size.
pub struct Head<'a> {
    pub path: &'a str,
    pub ext: String,
    pub bytes: &'a [u8],
    pub size: u64,
}

/// Why a file is opened: to be shown (with its inspector view), or as an asset of another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Show,
    Asset,
}

impl Kind {
    /// The word the listing and `census` use ("biz2-geometry").
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Biz2Geometry => "biz2-geometry",
            Kind::Biz2Materials => "biz2-materials",
            Kind::Biz2Unreadable => "biz2-unreadable",
            Kind::Viz2Text => "viz2-text",
            Kind::Vmf2Text => "vmf2-text",
            Kind::Map => "map",
            Kind::Mod => "mod",
            Kind::Sub => "sub",
            Kind::Bsx => "bsx",
            Kind::Bcx => "bcx",
            Kind::Tdb => "tdb",
            Kind::FieldBin => "field-bin",
            Kind::Lzs => "lzs",
            Kind::Image => "image",
            Kind::Misnamed => "misnamed",
            Kind::Unknown => "unknown",
        }
    }

    /// A short badge ("BGF").
    pub fn label(self) -> &'static str {
        match self {
            Kind::Biz2Geometry => "BGF",
            Kind::Biz2Materials => "BMF",
            Kind::Viz2Text => "VIZ2",
            Kind::Vmf2Text => "VMF2",
            Kind::Bsx => "BSX",
            Kind::Bcx => "BCX",
            Kind::Tdb => "TDB",
            Kind::FieldBin => "FBIN",
            Kind::Lzs => "LZS",
            Kind::Image => "IMG",
            Kind::Map => "MAP",
            Kind::Mod => "MOD",
            Kind::Sub => "SUB",
            Kind::Biz2Unreadable => "BIZ?",
            Kind::Misnamed => "?!",
            Kind::Unknown => "?",
        }
    }
    /// What the info panel calls it ("DIV-BIZ2 geometry").
    pub fn title(self) -> &'static str {
        match self {
            Kind::Biz2Geometry => "DIV-BIZ2 geometry",
            Kind::Biz2Materials => "DIV-BIZ2 material library",
            Kind::Viz2Text => "DIV-VIZ2 text geometry",
            Kind::Vmf2Text => "DIV-VMF2 text materials",
            Kind::Bsx => "FF7 field model",
            Kind::Bcx => "FF7 field character",
            Kind::Tdb => "FF7 field eyes and mouths",
            Kind::FieldBin => "FF7 field module (FIELD.BIN: normals, face tables)",
            Kind::Lzs => "LZS-compressed file",
            Kind::Image => "image (TGA, SGI, PNG, BMP)",
            Kind::Map => "pod world",
            Kind::Mod => "pod game object",
            Kind::Sub => "pod subsystems",
            Kind::Biz2Unreadable => "DIV-BIZ2 name without its magic",
            Kind::Misnamed => "named as a format its content is not",
            Kind::Unknown => "unknown",
        }
    }
}
