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
pub use model::{parse_scroll, Biz2File, Connectivity, DeclaredBounds, FileKind, Header, LightPoint, Lod, MaterialDef, MaterialRef, Object, Patch, Primitive, PrimitiveKind, RampDef, SourceRun, TextureDef, TextureRef, VertexBlock};
pub use raw::{Chunk, ChunkTree};
