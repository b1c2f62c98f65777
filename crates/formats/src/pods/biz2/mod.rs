//! DIV-BIZ2: Division's DPL chunk-tree format (.BGF geometry, .BMF material libraries, .B2Z).
//! The layout, and the decisions taken where sources disagree: docs/formats/biz2.md.

pub mod document;
pub mod inspect;
pub mod materials;
pub mod model;
pub mod raw;
pub mod scene;
pub mod special;
pub mod summary;
pub mod tags;
pub mod writer;

pub use document::{open, sniff_geometry, sniff_materials, sniff_unreadable, Biz2Document};
pub use model::{
    parse_scroll, Biz2File, Connectivity, DeclaredBounds, FileKind, Header, LightPoint, Lod,
    MaterialDef, MaterialRef, Object, Patch, Primitive, PrimitiveKind, RampDef, SourceRun,
    TextureDef, TextureRef, VertexBlock,
};
pub use raw::{Chunk, ChunkTree};

use crate::kind::{Capabilities, Format, Kind, Sniffed};

/// A .BGF/.B2Z: models.
pub const GEOMETRY: Kind = Kind::new("biz2-geometry");
/// A .BMF: a library of materials, textures and ramps.
pub const MATERIALS: Kind = Kind::new("biz2-materials");
/// A .BGF/.BMF/.B2Z without the magic: opened as DIV-BIZ2 to say why it fails.
pub const UNREADABLE: Kind = Kind::new("biz2-unreadable");

pub const FORMATS: &[Format] = &[
    Format {
        kind: GEOMETRY,
        label: "BGF",
        title: "DIV-BIZ2 geometry",
        caps: Capabilities {
            scene: true,
            used_by: true,
            primary: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Content, sniff_geometry)],
        named: &["bgf", "b2z"],
        claims: &[],
        refers_to: &[MATERIALS],
        open,
    },
    Format {
        kind: MATERIALS,
        label: "BMF",
        title: "DIV-BIZ2 material library",
        caps: Capabilities {
            used_by: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Content, sniff_materials)],
        named: &["bmf"],
        claims: &[],
        refers_to: &[crate::common::image::IMAGE],
        open,
    },
    Format {
        kind: UNREADABLE,
        label: "BIZ?",
        title: "DIV-BIZ2 name without its magic",
        caps: Capabilities::NONE,
        sniffs: &[(Sniffed::Name, sniff_unreadable)],
        named: &[],
        claims: &[],
        refers_to: &[],
        open,
    },
];
