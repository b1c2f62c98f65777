//! relicview: identifies, parses and triangulates the files of old 3D game archives.
//!
//! Layers (each uses only those below): `formats` (bytes → raw chunk tree → model),
//! `scene` (neutral meshes, no GPU), `render` and `web` (browser only), and the native
//! `serve`/`demo` modules behind the command line.

pub mod archive;
pub mod census;
pub mod demo;
pub mod formats;
pub mod info;
pub mod inspect;
pub mod scene;
pub mod texture;

#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
mod web;
