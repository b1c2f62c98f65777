//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! Layers, each using only those below it:
//!
//! ```text
//!  web (wasm glue) · bin (CLI: info, census, export, serve, index, demo)
//!  render (three-d, wasm only) · gltf (export) · census · serve · demo
//!  archive      paths, nearest-first resolution, assets, reference graph, the open sequence
//!  formats      registry of kinds · Document interface · biz2, text, image, bytes, ini
//!  inspect      neutral inspector view (rows, fields, coverage runs)
//!  scene        neutral scene graph (meshes, materials, nodes, instances, clips)
//! ```

pub mod archive;
pub mod census;
pub mod demo;
pub mod formats;
pub mod gltf;
pub mod inspect;
pub mod scene;
pub mod texture;
pub mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
mod web;
