//! relicview's neutral types, the layer every other stands on: findings, the scene graph,
//! pictures, the inspector's rows, a library's cards. They name no format, no container, no
//! browser and no GPU (docs/architecture.md).

pub mod findings;
pub mod gallery;
pub mod inspect;
pub mod placement;
pub mod pod_serde;
pub mod scene;
pub mod texture;
pub mod words;
