//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! Layers, each using only those below it:
//!
//! ```text
//!  web (wasm glue) · bin (CLI: info, census, export, serve, index, demo)
//!  render (three-d, wasm only) · gltf (export) · census · serve · demo
//!  archive      paths, nearest-first resolution, assets, reference graph, the open sequence;
//!               implements formats::Assets
//!  formats      registry of kinds · Document interface · the Assets seam (what a document
//!               asks of the archive) · biz2, world, bsx, lzs, text, image, misnamed, bytes
//!  inspect      neutral inspector view (rows, fields, coverage runs)
//!  scene        neutral scene graph (meshes, materials, nodes, instances, clips)
//!  texture      decoded pictures
//!  findings · pod_serde   leaves: ParseError, Diagnostic(s), Severity; serde for number arrays
//! ```

pub mod archive;
pub mod census;
pub mod demo;
pub mod findings;
pub mod formats;
pub mod gltf;
pub mod inspect;
pub mod pod_serde;
pub mod scene;
pub mod texture;
pub mod view;
pub mod wire;

#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
mod web;
