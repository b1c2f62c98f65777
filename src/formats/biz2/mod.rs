//! DIV-BIZ2: Division's DPL chunk-tree format (.BGF geometry, .BMF material libraries, .B2Z).

pub mod model;
pub mod raw;
pub mod tags;
pub mod writer;

pub use model::{Biz2File, Connectivity, Header, FileKind, Lod, MaterialDef, MaterialRef, Object, Patch, Primitive, PrimitiveKind, VertexBlock};
pub use raw::{Chunk, ChunkTree};
