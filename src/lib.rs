//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! The layers are the workspace's crates, each using only those below it (docs/architecture.md
//! draws them): `relicview-model` (the neutral types), `relicview-formats`,
//! `relicview-containers`, `relicview-services`, `relicview-view` and `relicview-render`. This crate is the top:
//! the web glue (wasm) and the CLI's server and publishing (native). It re-exports the layers
//! under their module names, so that the CLI, tests/ and benches/ name `relicview::archive`,
//! `relicview::formats` and the rest.

pub use relicview_containers as containers;
pub use relicview_formats as formats;
pub use relicview_model::{findings, gallery, inspect, pod_serde, scene, texture, words};
pub use relicview_services::{archive, bundle, census, demo, diff, gltf, wire};
pub use relicview_view as view;

#[cfg(not(target_arch = "wasm32"))]
pub use relicview_services::disk;
#[cfg(not(target_arch = "wasm32"))]
pub mod publish;
/// The unit tests' scratch folders.
#[cfg(test)]
mod scratch;
#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

#[cfg(target_arch = "wasm32")]
use relicview_render as render;
#[cfg(target_arch = "wasm32")]
mod web;
