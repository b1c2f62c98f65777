//! What a file places in its scene, in neutral terms (a world's instance lines): what
//! comparing two worlds pairs, made by the formats and read by the diff.

use serde::{Deserialize, Serialize};

/// One thing a file places in its scene (a world's instance line, through every nesting),
/// in neutral terms: what comparing two worlds pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Its place in the tree of placements below the root: each step the section it places
    /// and its place among its siblings of that section (`block[1]/bldg[0]`).
    pub path: String,
    /// The section placed.
    pub section: String,
    /// The model file it draws (a game object's .MOD), or what else it is ("dropzone", "map").
    pub model: Option<String>,
    /// Where it ends up in the world, and its rotation as written (radians about x, y, z).
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    /// The node of the document's scene that stands for it (everything it draws is under it).
    pub node: Option<u32>,
}
