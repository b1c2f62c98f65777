//! relicview's neutral types, the layer every other stands on: they name no format, no
//! container, no browser and no GPU (docs/architecture.md).

pub mod findings;
pub mod gallery;
pub mod inspect;
pub mod pod_serde;
pub mod scene;
pub mod texture;
pub mod view;
pub mod wire;
pub mod words;
