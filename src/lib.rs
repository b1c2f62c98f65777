//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! The modules are layers, each using only those below it: docs/architecture.md draws them
//! with a line on each, and tests/layers.rs checks them on the source.

pub mod archive;
pub mod bundle;
pub mod census;
pub mod containers;
pub mod demo;
pub mod diff;
pub mod findings;
pub mod formats;
pub mod gallery;
pub mod gltf;
pub mod inspect;
pub mod pod_serde;
pub mod scene;
pub mod texture;
pub mod view;
pub mod wire;
pub mod words;

#[cfg(not(target_arch = "wasm32"))]
pub mod disk;
#[cfg(not(target_arch = "wasm32"))]
pub mod publish;
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

/// Every allocation goes to the system's allocator; a container reader can set a ceiling on
/// one allocation for a stretch (a 7z header's tables: containers::ceiling says why).
#[global_allocator]
static ALLOCATOR: containers::ceiling::CeilingAllocator = containers::ceiling::CeilingAllocator;

#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
mod web;
