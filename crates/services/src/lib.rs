//! relicview's services over the formats: the archive (paths to bytes, the one open
//! sequence, the reference graph), two files compared, glTF export, the whole archive out,
//! the archive check, a scene as bytes for the trip between threads, and natively an archive
//! on disk. They name no browser and no GPU.

// The layers below, under the names this code has always used for them.
pub use relicview_containers as containers;
pub use relicview_formats as formats;
pub use relicview_model::{gallery, inspect, placement, scene, texture, words};

pub mod archive;
pub mod bundle;
pub mod census;
pub mod demo;
pub mod diff;
pub mod gltf;
pub mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub mod disk;

#[cfg(test)]
mod tests;
