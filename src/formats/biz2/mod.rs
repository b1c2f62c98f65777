//! DIV-BIZ2: Division's DPL chunk-tree format (.BGF geometry, .BMF material libraries, .B2Z).

pub mod model;
pub mod raw;
pub mod tags;
pub mod writer;

pub use model::{parse_scroll, source_of, Biz2File, DeclaredBounds, SourceRun, Connectivity, FileKind, Header, LightPoint, Lod, MaterialDef, RampDef, TextureDef, TextureRef, MaterialRef, Object, Patch, Primitive, PrimitiveKind, VertexBlock};
pub use raw::{Chunk, ChunkTree};
