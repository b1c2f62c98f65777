//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! Layers, each using only those below it (docs/architecture.md draws the same, with a line
//! on each module; tests/layers.rs checks it):
//!
//! ```text
//!  web (wasm glue: session, opened file, viewer) · bin (CLI: info, census, export, serve …)
//!  render (three-d, wasm only) · bundle (the whole archive out) · gltf (export) · census ·
//!  diff · serve · demo
//!  disk         archives on disk (native): folders whose containers are folders too
//!  view         the viewer's state without a browser: camera words, options, clock, fps, layers
//!  archive      paths, nearest-first resolution, assets, reference graph, the open sequence;
//!               implements formats::Assets
//!  wire         a scene as bytes between threads
//!  containers   ZIP, ISO 9660, raw disc rips and cue sheets, listed and read in place
//!               (names no format)
//!  formats      registry (the table of kinds) · Document interface · Assets seam and path
//!               helpers · kind (what a format needs of the seam) · biz2, world, bsx, lzs,
//!               text, image, misnamed, bytes
//!  inspect      neutral inspector view (rows, fields, coverage runs)
//!  scene        neutral scene graph (meshes, materials, nodes, instances, clips)
//!  gallery      a file's items as cards (a library's materials with thumbnails)
//!  texture      decoded pictures
//!  findings · pod_serde · words   leaves: ParseError, Diagnostic(s), Severity; serde for
//!               number arrays; counts in words ("1 frame")
//! ```

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
