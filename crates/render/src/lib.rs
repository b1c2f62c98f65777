//! The only module that knows three-d: draws neutral `Scene`s into the page's WebGL2
//! canvas, owns the camera, and evaluates the scenes' clips at the animation clock.
//!
//! Draw plan (see `Scene::draw_plan`): meshes not moved by a clip are baked into world
//! space and merged, one draw per texture, up to a bounded number of copies of meshes that
//! several nodes place (a software rasteriser pays for every instance as for a score of
//! vertices); a mesh past that budget, or moved by a clip, is one instanced draw per
//! primitive for all its nodes. Draw calls grow with unique meshes, not with placements.
//! LODs are uploaded the first time they show.
//!
//! A file on show is one `Stage`; two files compared are three (A, B and the
//! difference view) under one camera, drawn as `view::CompareView` says: one of them, B
//! ghosted over A, or A and B either side of a split.
//!
//! WebGL2 only (`webgl`): natively the crate is what can be tested without a GPU, what a
//! draw uploads and how ([`packing`]; the CLI draws nothing).

pub mod packing;
#[cfg(target_arch = "wasm32")]
mod webgl;
#[cfg(target_arch = "wasm32")]
pub use webgl::*;
