//! The neutral scene graph: what every format builds and what the renderer and the glTF
//! exporter read. It knows no format, no GPU and no browser.
//!
//! - **Meshes** hold indexed triangle primitives (positions; optional normals, sRGB vertex
//!   colours and UVs) with a material each. Every triangle keeps the bytes it came from
//!   ([`SourceRun`]), so a pick in 3D finds its record in the inspector.
//! - **Nodes** form a tree (parents before children) with a local TRS transform, an optional
//!   mesh, an optional marker (a light point), the inspector record they came from, and an
//!   optional level of detail: a node with `lod: Some(i)` and everything under it is shown
//!   only while LOD `i` is on show.
//! - **Instances**: a mesh referenced by many nodes is one mesh drawn at many transforms; the
//!   renderer issues one draw per (mesh, material) for all of them.
//! - **Clips** animate node translation/rotation/scale, material UV offsets and a material
//!   glow over time.
//! - **Layers** name groups of nodes a viewer can hide (dropzones, doors, effects …); a node
//!   on a layer hides with everything under it. Some layers are **damage zones**: a node
//!   whose [`PartWords`] name one hides with any of them, as a destroyed zone's parts do.
//!   **Viewpoints** are nodes to look from.
//!
//! How the formats map onto it:
//! - *DIV-BIZ2 models*: file → OBJECT nodes → LOD nodes (`lod: Some(i)`) → PATCH nodes, each
//!   with a mesh whose primitives are the patch's PMESH/TRISTRIP/… chunks. Light points are
//!   marker nodes under their object. A scrolling texture is a clip with one UV-offset track
//!   on its material that extrapolates linearly (`Repeat::Extrapolate`). A patch's SPECIAL
//!   words ride on its node ([`PartWords`]: damage zones as zone layers), on its material
//!   ([`Surface`]: WIREFRAME as lines, ADDITIVE added) and as a clip (BLINK: a stepped
//!   visibility track).
//! - *Pod worlds (MAP/MOD/SUB)*: a node per placement (translation and rotation from the
//!   instance line, composed child · parent for nested maps), pointing at one mesh per unique
//!   BGF object: placements become instances. A sliding door is a looping clip with a
//!   translation track on its node (slide over TravelTime, dwell DeadTime, slide back);
//!   drifting smoke is a UV-offset track like any BIZ2 scroll.
//! - *FF7 BSX field models*: a node per bone (parent bone, translation along the parent's
//!   +Z by the bone length), the rigid parts as meshes on their bone's node, and each
//!   animation as a looping clip with a rotation track per bone.

mod animation;
mod draw_plan;
mod instancing;
mod picking;
mod shading;

pub use draw_plan::{DrawPlan, InstancedBatch, MergedBatch, BAKED_VERTICES};
pub use instancing::Absorbed;
pub use picking::SceneHit;
pub use shading::Shading;

use crate::texture::Texels;
use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

pub type NodeId = u32;
pub type MeshId = u32;
pub type MaterialId = u32;
pub type TextureId = u32;

/// A record of the file by where it lies: bytes `[start, end)` of the bytes the inspector's
/// rows refer to (the decompressed bytes of a container). Scenes and pictures point at their
/// records so, and build without an inspector; where one exists, the record's row is the
/// first (outermost) of that range ([`row_of`]).
pub type RecordBytes = [usize; 2];

/// The inspector row of the record at `bytes`, given each row's `[offset, end)` in order
/// (`rows[i]`: row `i`'s): the first (outermost) whose range it is; for a record the view
/// does not list (past its last listed row), the innermost listed row that holds it.
pub fn row_of(rows: &[(usize, usize)], [start, end]: RecordBytes) -> Option<u32> {
    let exact = rows.iter().position(|&r| r == (start, end));
    exact
        .or_else(|| {
            rows.iter()
                .rposition(|&(s, e)| s <= start && end <= e && s < e)
        })
        .map(|i| i as u32)
}

/// Triangles `first..` (up to the next run) came from the record at `record`. Face `k` of
/// the run (`tris_per_face` triangles each) is the bytes `start + k·face_len ..` of length
/// `face_len`; `tris_per_face == 0` means every triangle of the run came from the whole
/// record (strips and fans).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRun {
    pub first: u32,
    pub record: RecordBytes,
    pub start: usize,
    pub face_len: u32,
    pub tris_per_face: u32,
}

impl SourceRun {
    /// The bytes of triangle `t` (an index into the primitive): its face's, or for runs that
    /// have no faces the whole record's.
    pub fn face_bytes(&self, t: u32) -> (usize, usize) {
        if self.tris_per_face == 0 {
            return (self.record[0], self.record[1]);
        }
        let face = ((t - self.first) / self.tris_per_face) as usize;
        let start = self.start + face * self.face_len as usize;
        (start, start + self.face_len as usize)
    }
}

/// The run that holds triangle `t`, from runs sorted by `first`.
pub fn source_of(runs: &[SourceRun], t: u32) -> Option<&SourceRun> {
    let i = runs.partition_point(|r| r.first <= t);
    i.checked_sub(1).map(|i| &runs[i])
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Primitive {
    // The vertex arrays go into the wire form (the services crate's wire.rs) as raw bytes (crate::pod_serde).
    #[serde(with = "crate::pod_serde::pod_vec")]
    pub positions: Vec<[f32; 3]>,
    /// Per vertex, when the file has them; otherwise faces shade flat.
    #[serde(with = "crate::pod_serde::pod_vec_option")]
    pub normals: Option<Vec<[f32; 3]>>,
    /// sRGB bytes per vertex, multiplied with the material's base colour.
    #[serde(with = "crate::pod_serde::pod_vec_option")]
    pub colors: Option<Vec<[u8; 4]>>,
    /// The colours the game's own lighting gave the vertices (sRGB bytes, one per vertex, as
    /// `colors`), where the format reproduces that lighting: drawn in place of `colors`, with
    /// no viewer light on top, when the view asks for the game's lighting.
    #[serde(with = "crate::pod_serde::pod_vec_option")]
    pub lit_colors: Option<Vec<[u8; 4]>>,
    #[serde(with = "crate::pod_serde::pod_vec_option")]
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Three per triangle.
    #[serde(with = "crate::pod_serde::pod_vec")]
    pub indices: Vec<u32>,
    pub material: Option<MaterialId>,
    /// The record (a chunk) the primitive came from.
    pub record: Option<RecordBytes>,
    pub sources: Vec<SourceRun>,
}

/// Which vertex colours a scene is drawn or exported with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum ColourSet {
    /// As the file stores them.
    #[default]
    Stored,
    /// As the game's own lighting gave them, where the format reproduces it (else stored).
    Lit,
}

/// How a skeleton's meshes go out: as a glTF skin (one mesh per model weighted to its bones,
/// what Blender imports as an armature), or as a mesh on each bone node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Rig {
    #[default]
    Skin,
    Nodes,
}

impl Rig {
    pub const ALL: [Rig; 2] = [Rig::Skin, Rig::Nodes];

    /// The word the CLI (`--rig`), the page and the options say it with.
    pub fn word(self) -> &'static str {
        match self {
            Rig::Skin => "skin",
            Rig::Nodes => "nodes",
        }
    }

    pub fn from_word(word: &str) -> Option<Rig> {
        Rig::ALL.into_iter().find(|r| r.word() == word)
    }
}

impl Primitive {
    /// The vertex colours of `set`: a primitive without lit colours keeps its stored ones.
    pub fn colours(&self, set: ColourSet) -> Option<&[[u8; 4]]> {
        match set {
            ColourSet::Lit => self.lit_colors.as_deref().or(self.colors.as_deref()),
            ColourSet::Stored => self.colors.as_deref(),
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
    /// A UV for every vertex: what sampling a texture takes.
    pub fn has_uvs(&self) -> bool {
        self.uvs
            .as_ref()
            .is_some_and(|uv| uv.len() == self.positions.len())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
}

impl Mesh {
    /// Each point its triangles use, once (a point no index names is left out, as is an
    /// index past the end).
    pub fn for_each_used_point(&self, mut f: impl FnMut(Vec3)) {
        for p in &self.primitives {
            let mut seen = vec![false; p.positions.len()];
            for &k in &p.indices {
                if let Some(s) = seen.get_mut(k as usize).filter(|s| !**s) {
                    *s = true;
                    f(Vec3::from(p.positions[k as usize]));
                }
            }
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.primitives.iter().map(Primitive::triangle_count).sum()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    pub translation: [f32; 3],
    /// A unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }
}

impl Transform {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::from(self.scale),
            Quat::from_array(self.rotation).normalize(),
            Vec3::from(self.translation),
        )
    }
}

/// Something shown at a node that is not a mesh.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Marker {
    /// A light point (a running light): drawn as a small marker of at least this radius.
    Light { radius: f32 },
    /// Where a pod drops in: drawn as a small red pyramid pointing along the node's +Z.
    Dropzone,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub name: Option<String>,
    pub parent: Option<NodeId>,
    pub transform: Transform,
    pub mesh: Option<MeshId>,
    pub marker: Option<Marker>,
    /// Shown only while this level of detail is on show (with everything below it).
    pub lod: Option<u32>,
    /// The record (a chunk) the node came from.
    pub record: Option<RecordBytes>,
    /// The layer (index into [`Scene::layers`]) it and everything under it belong to.
    pub layer: Option<u32>,
    /// What the file's words say this node is (a DIV-BIZ2 patch's SPECIAL strings).
    #[serde(default)]
    pub part: Option<Box<PartWords>>,
}

/// What a node's part is by its file's words: the damage zones it belongs to and every word
/// as shown (docs/formats/biz2.md, "SPECIAL words").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PartWords {
    /// The damage zones it is part of: layers (each also in [`Scene::zones`]); hiding any
    /// of them hides it, as the game does when that zone is destroyed. The first is where an
    /// export puts it.
    pub zones: Vec<u32>,
    /// Every word as shown: zones, behaviour words with their arguments, unknown words
    /// verbatim.
    pub words: Vec<String>,
}

/// A node to look from: the eye at its origin, looking along its +Z, its +Y up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Viewpoint {
    pub name: String,
    pub node: NodeId,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Material {
    pub name: Option<String>,
    /// sRGB factor (and alpha) that vertex colours and texels are multiplied with.
    pub base_color: [f32; 4],
    pub texture: Option<TextureId>,
    /// The colour a primitive that cannot sample the texture (no UVs) shows instead, where
    /// it is not `base_color` (texels that carry the colour leave the factor white).
    pub untextured_color: Option<[f32; 4]>,
    /// Winding is unconfirmed in the pods' files: both sides are drawn unless culling is on.
    pub double_sided: bool,
    /// Texels with less alpha than this are not drawn (a cut-out: PSX texel 0x0000).
    pub alpha_cutoff: Option<f32>,
    /// How the texels that are neither cut out nor fully opaque (alpha below 1) mix with
    /// what is behind them; without a rule every drawn texel is opaque.
    pub blend: Option<Blend>,
    /// How its triangles are put down as a whole (filled, as lines, added to what is behind).
    #[serde(default)]
    pub surface: Surface,
}

/// How a material's triangles are drawn as a whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Surface {
    #[default]
    Filled,
    /// Lines along the triangles' edges.
    Lines,
    /// Every fragment added to what is behind (B + F), over everything opaque, not hiding
    /// what is behind it.
    Additive,
}

/// The PlayStation's four semi-transparency rules, B what is behind and F the texel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Blend {
    /// B/2 + F/2: plain alpha blending at one half.
    Average,
    /// B + F.
    Add,
    /// B − F.
    Subtract,
    /// B + F/4.
    AddQuarter,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: None,
            base_color: [1.0; 4],
            texture: None,
            untextured_color: None,
            double_sided: true,
            alpha_cutoff: None,
            blend: None,
            surface: Surface::Filled,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Texture {
    pub name: Option<String>,
    pub texels: Texels,
    /// The archive file the texels came from, when they were decoded from one.
    pub file: Option<String>,
    /// Sampled texel by texel, near and far (emulated console VRAM), not smoothed.
    pub nearest: bool,
    /// Drawn in place of a texture that could not be had (a checker in the material's
    /// colour): not the file's, nor any other file's.
    #[serde(default)]
    pub stand_in: bool,
}

impl Texture {
    /// Decoded from the file whose scene this is (a field model's VRAM page with its CLUT),
    /// not from another file, and not a stand-in.
    pub fn is_own(&self) -> bool {
        self.file.is_none() && !self.stand_in
    }
}

/// A level of detail and the camera distances [in, out] it is meant for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LodLevel {
    pub distance: Option<[f32; 2]>,
}

/// What a track animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    Translation(NodeId),
    /// Quaternions (x, y, z, w), interpolated with slerp.
    Rotation(NodeId),
    Scale(NodeId),
    /// The UV offset of a material's texture (u, v), wrapped into [0, 1) when drawn.
    UvOffset(MaterialId),
    /// How much light a material gives off on its own, 0 (none) to 1 (its full colour added).
    Glow(MaterialId),
    /// Whether a node is shown (1) or not (0), stepped: each key holds until the next.
    Visibility(NodeId),
}

impl Target {
    pub fn width(&self) -> usize {
        match self {
            Target::Rotation(_) => 4,
            Target::UvOffset(_) => 2,
            Target::Glow(_) | Target::Visibility(_) => 1,
            _ => 3,
        }
    }
}

/// Keyframes, linearly interpolated: `values` holds `target.width()` numbers per time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Track {
    pub target: Target,
    pub times: Vec<f32>,
    pub values: Vec<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Repeat {
    /// Time wraps at the clip's duration.
    Loop,
    /// Past the last key the last segment's slope goes on forever (a steady drift).
    Extrapolate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clip {
    pub name: String,
    pub duration: f32,
    pub repeat: Repeat,
    pub tracks: Vec<Track>,
}

/// A whole scene ready to draw or export.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Scene {
    pub name: String,
    pub nodes: Vec<Node>,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    pub clips: Vec<Clip>,
    /// The levels of detail the scene switches between (empty or one: no switching).
    pub lods: Vec<LodLevel>,
    /// Names of the layers nodes can be on.
    pub layers: Vec<String>,
    pub viewpoints: Vec<Viewpoint>,
    /// What the viewer lets a person pick among (one model of a file, one of its animations).
    pub choice: Option<Choice>,
    /// Bones to draw as an overlay: (parent joint, joint) node pairs.
    pub skeleton: Vec<(NodeId, NodeId)>,
    /// Clips that do not play now (the options of [`Self::choice`] not on show).
    pub stopped: Vec<u32>,
    /// When the clips run in whole frames: the time of one (the timeline steps by it).
    pub frame_time: Option<f32>,
    /// What one unit of the scene's coordinates is in metres, by each reading the format's
    /// sources give of the file's own word on it (none: the file does not say).
    #[serde(default)]
    pub units: Vec<UnitReading>,
    /// The layers that are damage zones (a node is on them by [`PartWords::zones`]).
    #[serde(default)]
    pub zones: Vec<u32>,
    /// Layers hidden when the scene opens: what the file itself keeps out of sight (the
    /// party members a field's engine hides). The person may show them.
    #[serde(default)]
    pub hidden: Vec<u32>,
    /// Skeletons whose meshes are rigid parts on their bones: a glTF export may write each as
    /// a skin (one mesh weighted to the bones) rather than a mesh per bone.
    #[serde(default)]
    pub skins: Vec<Skin>,
    /// What FF7's engine adds, which only its views read (the eyes' blinks, a field's own
    /// cameras with their composed backgrounds): the family's next feature goes there, not
    /// into a new field here.
    #[serde(default)]
    pub ff7: Ff7Scene,
}

/// What FF7's engine adds to a scene: one field of [`Scene`] for the family, so that a
/// feature of FF7's crosses the layers that read it and no others.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ff7Scene {
    /// Clips that blink a face's eyes: each plays beside the choice's clip on a cadence of
    /// its own (not part of the timeline's loop), unless the view's blink switch stops it.
    pub blinks: Vec<u32>,
    /// The blink switch is off: the blinks stop with the choice's other clips.
    pub blinks_stopped: bool,
    /// Cameras the file itself sets up (an FF7 field's), each with the picture the game
    /// draws behind the scene through it.
    pub cameras: Vec<GameCamera>,
}

/// A camera a file sets up, as its game projects through it: a point `p` of the scene (world
/// coordinates) is `v = rotation · p + translation` in the camera's frame (x right, y down,
/// z ahead), and lands on the picture at `projection · (v.x, v.y) / v.z` pixels from its
/// centre.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameCamera {
    pub name: String,
    /// Rows of the rotation.
    pub rotation: [[f32; 3]; 3],
    pub translation: [f32; 3],
    /// The projection distance in pixels.
    pub projection: f32,
    /// The picture's frame on the projection plane: min x, min y, max x, max y, in pixels
    /// from its centre (y down).
    pub frame: [i32; 4],
    /// The picture the game draws behind the scene, covering the frame (a field's
    /// pre-rendered background), where the file's archive has it.
    pub backdrop: Option<TextureId>,
    /// What the viewer should say of this view (a part that is not shown, a fit that is
    /// our reading).
    pub notes: Vec<String>,
    /// The part of the picture the scene's models never pass in front of — where some of
    /// the picture lies at depths among the models (`cards`), the rest; drawn first, on the
    /// frame.
    #[serde(default)]
    pub behind: Option<crate::texture::Texels>,
    /// The picture's pieces at depths among the models (a field's layer-2 tiles at their
    /// sort depth, layer 4 in front), drawn after the scene, far to near, each hiding what
    /// is farther; their texels in `card_texels`.
    #[serde(default)]
    pub cards: Vec<Card>,
    #[serde(default)]
    pub card_texels: Option<crate::texture::Texels>,
    /// The picture's layers a person can switch off (a field's background layers), in the
    /// order drawn. With every one shown the picture is `behind` (or `backdrop`) and the
    /// cards, exactly as composed; with some hidden, the shown ones' own pictures over each
    /// other in this order, and the shown ones' cards.
    #[serde(default)]
    pub layers: Vec<PictureLayer>,
}

/// A layer of a game camera's picture the viewer can hide: its scene layer (named, so that
/// a link keeps it hidden), how many of the picture's tiles are on it, and for a layer
/// behind every model its own picture on the frame (transparent where it draws nothing);
/// a layer among the models is its cards (`Card::layer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PictureLayer {
    pub layer: u32,
    pub tiles: usize,
    pub picture: Option<crate::texture::Texels>,
}

/// A piece of a game camera's picture at a depth: a rectangle of the frame (pixels from its
/// centre, y down: min x, min y, max x, max y) as far ahead of the camera as `depth` (its
/// v.z), its texels a rectangle of the camera's card texels (x, y, width, height); texels
/// with alpha 0 are not drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Card {
    pub rect: [i32; 4],
    pub depth: f32,
    pub texels: [u32; 4],
    /// The scene layer it is on (a field's "background layer 2"): hidden with it.
    #[serde(default)]
    pub layer: Option<u32>,
}

impl GameCamera {
    /// Where the camera is in the scene: the point whose `v` is zero, −Rᵀ·T.
    pub fn eye(&self) -> [f32; 3] {
        let (r, t) = (self.rotation, self.translation);
        std::array::from_fn(|i| -(0..3).map(|k| r[k][i] * t[k]).sum::<f32>())
    }
    /// Where scene point `p` lands on the picture (pixels from its centre, y down), and its
    /// depth; None behind the camera.
    pub fn project(&self, p: [f32; 3]) -> Option<([f32; 2], f32)> {
        let v: [f32; 3] = std::array::from_fn(|i| {
            (0..3).map(|k| self.rotation[i][k] * p[k]).sum::<f32>() + self.translation[i]
        });
        (v[2] > 0.0).then(|| {
            (
                [self.projection * v[0] / v[2], self.projection * v[1] / v[2]],
                v[2],
            )
        })
    }
}

/// A skeleton of bone nodes under one node (a model's), whose meshes hang rigidly on the
/// bones: every node below `root` that places a mesh has a bone of `joints` as its parent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skin {
    /// What the skin is called in an export (the model's name).
    pub name: String,
    /// The node the skeleton hangs from (it is not a bone).
    pub root: NodeId,
    /// The bone nodes, parents before children.
    pub joints: Vec<NodeId>,
}

/// One reading of a file's unit: whose, what it calls the unit, and a unit in metres.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitReading {
    pub source: String,
    pub unit: String,
    pub metres: f32,
}

/// Alternatives a scene holds, of which one is on show: each shows some layers (the others
/// of the choice hidden) and plays at most one of the choice's clips (the others stopped).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub name: String,
    pub options: Vec<ChoiceOption>,
    /// The option on show when the scene opens.
    pub default: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChoiceOption {
    pub label: String,
    pub layers: Vec<u32>,
    pub clip: Option<u32>,
}

impl Choice {
    /// Layers of the choice that option `k` hides.
    pub fn hidden_layers(&self, k: usize) -> Vec<u32> {
        let shown = self
            .options
            .get(k)
            .map(|o| o.layers.as_slice())
            .unwrap_or_default();
        let mut out: Vec<u32> = self
            .options
            .iter()
            .flat_map(|o| o.layers.iter().copied())
            .filter(|l| !shown.contains(l))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
    /// Clips of the choice that option `k` stops.
    pub fn stopped_clips(&self, k: usize) -> Vec<u32> {
        let playing = self.options.get(k).and_then(|o| o.clip);
        let mut out: Vec<u32> = self
            .options
            .iter()
            .filter_map(|o| o.clip)
            .filter(|&c| Some(c) != playing)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Bounds {
    pub fn center(&self) -> Vec3 {
        (Vec3::from(self.min) + Vec3::from(self.max)) * 0.5
    }
    pub fn radius(&self) -> f32 {
        (Vec3::from(self.max) - Vec3::from(self.min)).length() * 0.5
    }
    /// The box around the finite points, None when there are none.
    pub fn of(points: impl IntoIterator<Item = [f32; 3]>) -> Option<Bounds> {
        let mut b = None;
        for p in points {
            Bounds::grow(&mut b, Vec3::from(p));
        }
        b
    }

    fn grow(b: &mut Option<Bounds>, p: Vec3) {
        if !p.is_finite() {
            return;
        }
        match b {
            None => {
                *b = Some(Bounds {
                    min: p.into(),
                    max: p.into(),
                })
            }
            Some(b) => {
                b.min = Vec3::from(b.min).min(p).into();
                b.max = Vec3::from(b.max).max(p).into();
            }
        }
    }
}

impl Scene {
    /// Add a node under `parent` (nodes stay in parents-before-children order).
    pub fn add_node(&mut self, parent: Option<NodeId>, node: Node) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node { parent, ..node });
        id
    }

    pub fn add_mesh(&mut self, mesh: Mesh) -> MeshId {
        self.meshes.push(mesh);
        (self.meshes.len() - 1) as MeshId
    }

    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent.is_none())
            .map(|(i, _)| i as NodeId)
    }

    /// How many levels of detail can be chosen (at least one).
    pub fn lod_count(&self) -> usize {
        self.lods.len().max(1)
    }

    /// Show option `k` of the scene's choice: its layers (the returned hidden layers are the
    /// choice's others) and its clip (the choice's other clips stop; a clip of no option
    /// stays as it was: a field's other models keep playing their own).
    pub fn choose(&mut self, k: usize) -> Vec<u32> {
        let Some(c) = &self.choice else {
            return Vec::new();
        };
        let options: Vec<u32> = c.options.iter().filter_map(|o| o.clip).collect();
        self.stopped.retain(|s| !options.contains(s));
        self.stopped.extend(c.stopped_clips(k));
        self.stopped.sort_unstable();
        self.stopped.dedup();
        let hidden = c.hidden_layers(k);
        self.set_blinking(!self.ff7.blinks_stopped);
        hidden
    }

    /// Whether some primitive has the colours the game's lighting gave it.
    pub fn has_lit_colours(&self) -> bool {
        self.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .any(|p| p.lit_colors.is_some())
    }

    /// The index of layer `name`, added if it is new.
    pub fn layer(&mut self, name: &str) -> u32 {
        match self.layers.iter().position(|l| l == name) {
            Some(i) => i as u32,
            None => {
                self.layers.push(name.to_string());
                (self.layers.len() - 1) as u32
            }
        }
    }

    /// World matrices of every node for local transforms `pose` (see [`Self::pose`]).
    pub fn world(&self, pose: &[Transform]) -> Vec<Mat4> {
        let mut world: Vec<Mat4> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let local = pose.get(i).unwrap_or(&n.transform).matrix();
            let m = match n.parent {
                Some(p) if (p as usize) < i => world[p as usize] * local,
                _ => local,
            };
            world.push(m);
        }
        world
    }

    /// World matrices of every node in the rest pose (clips at time 0). A scene no clip
    /// moves skips the pose: a world of 45,000 nodes copies no transforms to get them.
    pub fn rest_world(&self) -> Vec<Mat4> {
        let moved = self.playing().flat_map(|c| &c.tracks).any(|t| {
            matches!(
                t.target,
                Target::Translation(_)
                    | Target::Rotation(_)
                    | Target::Scale(_)
                    | Target::Visibility(_)
            )
        });
        if moved {
            self.world(&self.pose(0.0))
        } else {
            self.world(&[])
        }
    }

    /// Whether each node is shown at LOD `lod`: its own `lod` and every ancestor's allow it.
    pub fn visible(&self, lod: usize) -> Vec<bool> {
        self.visible_in(lod, &[])
    }

    /// [`Self::visible`] with the layers in `hidden` hidden.
    pub fn visible_in(&self, lod: usize, hidden: &[u32]) -> Vec<bool> {
        // A mask, not a search of `hidden` per node: a model of 50,000 zones all destroyed.
        let hidden = self.layer_mask(hidden);
        let off = |l: &u32| hidden.get(*l as usize).copied().unwrap_or(false);
        let mut out: Vec<bool> = Vec::with_capacity(self.nodes.len());
        for (i, n) in self.nodes.iter().enumerate() {
            let parent = n
                .parent
                .filter(|&p| (p as usize) < i)
                .is_none_or(|p| out[p as usize]);
            let zone_hidden = n.part.as_ref().is_some_and(|p| p.zones.iter().any(off));
            out.push(
                parent
                    && n.lod.is_none_or(|l| l as usize == lod)
                    && !n.layer.as_ref().is_some_and(off)
                    && !zone_hidden,
            );
        }
        out
    }

    /// Per layer: whether it is one of `layers`.
    pub fn layer_mask(&self, layers: &[u32]) -> Vec<bool> {
        let mut mask = vec![false; self.layers.len()];
        for &l in layers {
            if let Some(m) = mask.get_mut(l as usize) {
                *m = true;
            }
        }
        mask
    }

    /// The zone layer called `name`, added (to the layers and to [`Self::zones`]) if it is
    /// new. `layers` maps the name of every layer of the scene (the caller keeps it, from
    /// [`Self::layers_by_name`], so that a file of 50,000 zones does not search the layers
    /// for each); `zones` is [`Self::zones`] as a mask, kept the same way.
    pub fn zone_layer(
        &mut self,
        name: &str,
        layers: &mut HashMap<String, u32>,
        zones: &mut Vec<bool>,
    ) -> u32 {
        let l = *layers.entry(name.to_string()).or_insert_with(|| {
            self.layers.push(name.to_string());
            (self.layers.len() - 1) as u32
        });
        if zones.len() <= l as usize {
            zones.resize(l as usize + 1, false);
        }
        if !zones[l as usize] {
            zones[l as usize] = true;
            self.zones.push(l);
        }
        l
    }

    /// Every layer by its name, and the zone layers as a mask: what [`Self::zone_layer`] keeps.
    pub fn layers_by_name(&self) -> (HashMap<String, u32>, Vec<bool>) {
        (
            self.layers
                .iter()
                .enumerate()
                .map(|(i, l)| (l.clone(), i as u32))
                .collect(),
            self.layer_mask(&self.zones),
        )
    }

    /// Triangles drawn at LOD `lod`, counting every instance.
    pub fn triangle_count(&self, lod: usize) -> usize {
        self.triangle_count_in(lod, &[])
    }

    /// [`Self::triangle_count`] with the layers in `hidden` hidden.
    pub fn triangle_count_in(&self, lod: usize, hidden: &[u32]) -> usize {
        let visible = self.visible_in(lod, hidden);
        self.nodes
            .iter()
            .zip(&visible)
            .filter(|(_, &v)| v)
            .filter_map(|(n, _)| n.mesh)
            .map(|m| self.meshes[m as usize].triangle_count())
            .sum()
    }

    /// Nodes at LOD `lod` that draw a mesh.
    pub fn instance_count(&self, lod: usize) -> usize {
        let visible = self.visible(lod);
        self.nodes
            .iter()
            .zip(&visible)
            .filter(|(n, &v)| v && n.mesh.is_some())
            .count()
    }

    /// Bounds of what is shown at LOD `lod` in its rest pose: the triangles' vertices, or the
    /// markers where there are no triangles.
    pub fn bounds(&self, lod: usize) -> Option<Bounds> {
        self.bounds_in(lod, &[])
    }

    /// [`Self::bounds`] with the layers in `hidden` hidden.
    pub fn bounds_in(&self, lod: usize, hidden: &[u32]) -> Option<Bounds> {
        self.bounds_placed(lod, hidden, &self.rest_world())
    }

    /// [`Self::bounds_in`] with every node placed by `world` (the rest pose's, from
    /// [`Self::rest_world`], for a caller that keeps them).
    pub fn bounds_placed(&self, lod: usize, hidden: &[u32], world: &[Mat4]) -> Option<Bounds> {
        let visible = self.visible_in(lod, hidden);
        let mut b = None;
        // A point is used by some six triangles of a grid, and a mesh may be placed
        // thousands of times: each used point is looked at once per placement, and a
        // placement that only scales and moves takes the box of its mesh's points (exact
        // for such a placement), found once per mesh.
        let mut local: Vec<Option<Option<Bounds>>> = vec![None; self.meshes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            let (Some(m), Some(&w)) = (n.mesh.filter(|_| visible[i]), world.get(i)) else {
                continue;
            };
            let mesh = &self.meshes[m as usize];
            let axis_aligned = w.x_axis.y == 0.0
                && w.x_axis.z == 0.0
                && w.y_axis.x == 0.0
                && w.y_axis.z == 0.0
                && w.z_axis.x == 0.0
                && w.z_axis.y == 0.0
                && w.x_axis.w == 0.0
                && w.y_axis.w == 0.0
                && w.z_axis.w == 0.0
                && w.w_axis.w == 1.0;
            if axis_aligned {
                let own = *local[m as usize].get_or_insert_with(|| {
                    let mut own = None;
                    mesh.for_each_used_point(|p| Bounds::grow(&mut own, p));
                    own
                });
                if let Some(l) = own {
                    Bounds::grow(&mut b, w.transform_point3(Vec3::from(l.min)));
                    Bounds::grow(&mut b, w.transform_point3(Vec3::from(l.max)));
                }
            } else {
                mesh.for_each_used_point(|p| Bounds::grow(&mut b, w.transform_point3(p)));
            }
        }
        if b.is_none() {
            for (i, n) in self.nodes.iter().enumerate() {
                if let (Some(_), true, Some(w)) = (n.marker, visible[i], world.get(i)) {
                    Bounds::grow(&mut b, w.transform_point3(Vec3::ZERO));
                }
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record numbered `n` in these tests: bytes `[n · 1000, n · 1000 + 8)`.
    fn r(n: u32) -> RecordBytes {
        let at = n as usize * 1000;
        [at, at + 8]
    }

    fn quad(z: f32, record: u32) -> Primitive {
        Primitive {
            positions: vec![
                [-1.0, -1.0, z],
                [1.0, -1.0, z],
                [1.0, 1.0, z],
                [-1.0, 1.0, z],
            ],
            indices: vec![0, 1, 2, 0, 2, 3],
            record: Some(r(record)),
            sources: vec![SourceRun {
                first: 0,
                record: r(record),
                start: 100,
                face_len: 16,
                tris_per_face: 2,
            }],
            ..Default::default()
        }
    }

    fn two_quads() -> Scene {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 10), quad(-2.0, 20)],
        });
        s.add_node(
            None,
            Node {
                mesh: Some(m),
                record: Some(r(5)),
                ..Default::default()
            },
        );
        s
    }

    #[test]
    fn the_nodes_drawing_a_record_are_its_node_what_hangs_under_it_and_meshes_made_from_it() {
        let mut s = two_quads();
        let child = s.add_node(
            Some(0),
            Node {
                record: Some(r(7)),
                ..Default::default()
            },
        );
        let other = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(1.0, 30)],
        });
        s.add_node(
            None,
            Node {
                mesh: Some(other),
                ..Default::default()
            },
        );
        assert_eq!(
            s.nodes_drawing_record(r(5)),
            [true, true, false],
            "the node and its child"
        );
        assert_eq!(s.nodes_drawing_record(r(7)), [false, true, false]);
        assert_eq!(
            s.nodes_drawing_record(r(20)),
            [true, false, false],
            "a primitive of node 0's mesh"
        );
        assert_eq!(s.nodes_drawing_record(r(30)), [false, false, true]);
        assert_eq!(s.nodes_drawing_record(r(99)), [false, false, false]);
        assert_eq!(child, 1);
    }

    #[test]
    fn pick_finds_the_nearest_triangle_from_either_side() {
        let s = two_quads();
        let w = s.world(&s.pose(0.0));
        let hit = s
            .pick(Vec3::new(0.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w)
            .unwrap();
        assert_eq!((hit.primitive, hit.triangle, hit.distance), (0, 0, 5.0));
        assert_eq!(
            s.pick(Vec3::new(-0.5, 0.5, 5.0), Vec3::NEG_Z, 0, &[], &w)
                .map(|h| (h.primitive, h.triangle)),
            Some((0, 1))
        );
        assert_eq!(
            s.pick(Vec3::new(0.5, -0.5, -5.0), Vec3::Z, 0, &[], &w)
                .map(|h| h.primitive),
            Some(1)
        );
        assert_eq!(
            s.pick(Vec3::new(3.0, 0.0, 5.0), Vec3::NEG_Z, 0, &[], &w),
            None
        );
        assert_eq!(s.pick(Vec3::new(0.0, 0.0, 5.0), Vec3::Z, 0, &[], &w), None);
    }

    #[test]
    fn picking_and_bounds_follow_node_transforms() {
        let mut s = two_quads();
        s.nodes[0].transform.translation = [10.0, 0.0, 0.0];
        let w = s.world(&s.pose(0.0));
        assert!(s
            .pick(Vec3::new(0.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w)
            .is_none());
        assert!(s
            .pick(Vec3::new(10.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w)
            .is_some());
        let b = s.bounds(0).unwrap();
        assert_eq!((b.min, b.max), ([9.0, -1.0, -2.0], [11.0, 1.0, 0.0]));
    }

    #[test]
    fn bounds_are_those_of_every_indexed_point_placed_whatever_the_placement() {
        // Each placement's every index's point transformed: what bounds_in must equal.
        let brute = |s: &Scene| {
            let w = s.world(&s.pose(0.0));
            let mut b = None;
            for (i, n) in s.nodes.iter().enumerate() {
                let Some(m) = n.mesh else { continue };
                for p in &s.meshes[m as usize].primitives {
                    p.indices
                        .iter()
                        .filter_map(|&k| p.positions.get(k as usize))
                        .for_each(|v| Bounds::grow(&mut b, w[i].transform_point3(Vec3::from(*v))));
                }
            }
            b.unwrap()
        };
        let mut s = two_quads();
        // A point no index names, and an index past the end: neither counts.
        s.meshes[0].primitives[0].positions.push([50.0, 50.0, 50.0]);
        s.meshes[0].primitives[1].indices.extend([0, 1, 99]);
        let turned = glam::Quat::from_rotation_z(0.7) * glam::Quat::from_rotation_x(-0.3);
        let placements = [
            ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]),
            ([5.0, -3.0, 2.0], [0.0, 0.0, 0.0, 1.0], [2.0, 0.5, -1.0]),
            ([-4.0, 1.0, 0.0], turned.to_array(), [1.5, 1.0, 1.0]),
        ];
        for (k, &(translation, rotation, scale)) in placements.iter().enumerate() {
            let node = if k == 0 {
                0
            } else {
                s.add_node(
                    None,
                    Node {
                        mesh: Some(0),
                        ..Default::default()
                    },
                )
            };
            s.nodes[node as usize].transform = Transform {
                translation,
                rotation,
                scale,
            };
            let (want, got) = (brute(&s), s.bounds(0).unwrap());
            for a in 0..3 {
                assert!(
                    (want.min[a] - got.min[a]).abs() < 1e-5
                        && (want.max[a] - got.max[a]).abs() < 1e-5,
                    "placements up to {k}: {want:?} vs {got:?}"
                );
            }
        }
    }

    #[test]
    fn a_primitive_samples_its_texture_only_with_a_uv_per_vertex() {
        let mut s = two_quads();
        s.textures.push(Texture {
            name: None,
            texels: crate::texture::checker([1.0; 3]),
            file: None,
            nearest: false,
            stand_in: true,
        });
        s.materials.push(Material {
            name: Some("tex".into()),
            texture: Some(0),
            untextured_color: Some([0.5, 0.25, 0.125, 1.0]),
            ..Default::default()
        });
        let mut p = quad(0.0, 1);
        p.material = Some(0);
        assert_eq!(
            s.shading(&p),
            Shading {
                texture: None,
                base_color: [0.5, 0.25, 0.125, 1.0],
                unsampled: true
            },
            "no UVs: the material's colour"
        );
        p.uvs = Some(vec![[0.0; 2]; 3]);
        assert_eq!(s.texture_of(&p), None, "a UV short is none");
        p.uvs = Some(vec![[0.0; 2]; 4]);
        assert_eq!(
            s.shading(&p),
            Shading {
                texture: Some(0),
                base_color: [1.0; 4],
                unsampled: false
            }
        );
        s.materials[0].texture = Some(7);
        assert_eq!(s.texture_of(&p), None, "a texture the scene does not have");
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                uvs: None,
                ..p.clone()
            }],
        });
        s.materials[0].texture = Some(0);
        s.add_node(
            None,
            Node {
                mesh: Some(m),
                ..Default::default()
            },
        );
        assert_eq!(s.untextured_notes().len(), 1);
        assert!(
            s.untextured_notes()[0]
                .starts_with("tex has a texture, but 1 primitive using it has no UVs"),
            "{:?}",
            s.untextured_notes()
        );
    }

    #[test]
    fn face_bytes_come_from_the_recorded_run() {
        let q = quad(0.0, 10);
        let run = source_of(&q.sources, 1).unwrap();
        assert_eq!(run.face_bytes(1), (100, 116));
        let strip = SourceRun {
            first: 0,
            record: [40, 90],
            start: 0,
            face_len: 0,
            tris_per_face: 0,
        };
        assert_eq!(
            strip.face_bytes(7),
            (40, 90),
            "a strip's faces are its whole record"
        );
    }

    #[test]
    fn lods_hide_their_subtrees() {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 1)],
        });
        let root = s.add_node(None, Node::default());
        let l0 = s.add_node(
            Some(root),
            Node {
                lod: Some(0),
                record: Some(r(40)),
                ..Default::default()
            },
        );
        let l1 = s.add_node(
            Some(root),
            Node {
                lod: Some(1),
                record: Some(r(41)),
                ..Default::default()
            },
        );
        s.add_node(
            Some(l0),
            Node {
                mesh: Some(m),
                ..Default::default()
            },
        );
        s.add_node(
            Some(l1),
            Node {
                mesh: Some(m),
                ..Default::default()
            },
        );
        s.add_node(
            Some(l1),
            Node {
                mesh: Some(m),
                ..Default::default()
            },
        );
        assert_eq!((s.triangle_count(0), s.triangle_count(1)), (2, 4));
        assert_eq!(s.lod_of_record(r(41)), Some(1));
        assert_eq!(s.visible(1), vec![true, false, true, false, true, true]);
    }

    /// `mesh` placed `n` times along X; → the nodes.
    fn place(s: &mut Scene, mesh: MeshId, n: usize) -> Vec<NodeId> {
        (0..n)
            .map(|k| {
                s.add_node(
                    None,
                    Node {
                        mesh: Some(mesh),
                        transform: Transform {
                            translation: [k as f32 * 3.0, 0.0, 0.0],
                            ..Default::default()
                        },
                        ..Default::default()
                    },
                )
            })
            .collect()
    }

    /// A primitive of `vertices` points (a fan of triangles over them).
    fn fan(vertices: usize) -> Primitive {
        let positions = (0..vertices)
            .map(|k| [k as f32, (k % 2) as f32, 0.0])
            .collect();
        Primitive {
            positions,
            indices: (1..vertices as u32 - 1)
                .flat_map(|k| [0, k, k + 1])
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn draw_calls_grow_with_unique_meshes_not_placements() {
        // One small mesh placed 1,000 times plus two single-use meshes sharing no texture:
        // all baked into one draw.
        let mut s = Scene::default();
        let shared = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 1)],
        });
        place(&mut s, shared, 1000);
        for _ in 0..2 {
            let m = s.add_mesh(Mesh {
                name: None,
                primitives: vec![quad(1.0, 2)],
            });
            s.add_node(
                None,
                Node {
                    mesh: Some(m),
                    ..Default::default()
                },
            );
        }
        let plan = s.draw_plan(0);
        assert!(plan.instanced.is_empty());
        assert_eq!(
            plan.merged.len(),
            1,
            "untextured meshes merge into one draw"
        );
        assert_eq!(plan.merged[0].items.len(), 1002);
        assert_eq!(plan.draw_calls(), 1);
        assert_eq!(s.instance_count(0), 1002);
        assert_eq!(s.triangle_count(0), 2004);
        // A mesh whose placements would pass the budget is one instanced draw, however often
        // it is placed.
        let big = s.add_mesh(Mesh {
            name: None,
            primitives: vec![fan(BAKED_VERTICES / 100)],
        });
        place(&mut s, big, 101);
        let plan = s.draw_plan(0);
        assert_eq!(plan.instanced.len(), 1);
        assert_eq!(
            (plan.instanced[0].mesh, plan.instanced[0].nodes.len()),
            (big, 101)
        );
        assert_eq!(plan.draw_calls(), 2);
    }

    #[test]
    fn the_bake_budget_goes_to_the_smallest_meshes_and_bounds_the_copies() {
        // Three meshes of 4, 1,000 and 3,000 vertices, 200 placements each: 800,000 vertices
        // in all, of which the two smaller ones' 200,800 fit and the largest's 600,000 do not.
        let mut s = Scene::default();
        let meshes: Vec<MeshId> = [3000, 4, 1000]
            .iter()
            .map(|&v| {
                s.add_mesh(Mesh {
                    name: None,
                    primitives: vec![fan(v)],
                })
            })
            .collect();
        for &m in &meshes {
            place(&mut s, m, 200);
        }
        let plan = s.draw_plan(0);
        let instanced: Vec<MeshId> = plan.instanced.iter().map(|b| b.mesh).collect();
        assert_eq!(instanced, [meshes[0]]);
        let baked: usize = plan
            .merged
            .iter()
            .flat_map(|b| &b.items)
            .map(|&(_, m, k)| s.meshes[m as usize].primitives[k as usize].positions.len())
            .sum();
        assert_eq!(baked, 200 * (4 + 1000));
        assert!(baked <= BAKED_VERTICES);
        // Every placement is drawn once, by one batch or the other.
        let mut nodes: Vec<NodeId> = plan
            .merged
            .iter()
            .flat_map(|b| b.items.iter().map(|i| i.0))
            .chain(plan.instanced.iter().flat_map(|b| b.nodes.iter().copied()))
            .collect();
        nodes.sort_unstable();
        assert_eq!(nodes, (0..600).collect::<Vec<NodeId>>());
    }

    #[test]
    fn a_placement_a_clip_moves_stays_instanced_while_its_static_twins_are_baked() {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 1)],
        });
        let nodes = place(&mut s, m, 3);
        s.clips.push(Clip {
            name: "slide".into(),
            duration: 1.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Translation(nodes[1]),
                times: vec![0.0, 1.0],
                values: vec![0.0; 6],
            }],
        });
        let plan = s.draw_plan(0);
        assert_eq!(plan.instanced.len(), 1);
        assert_eq!(plan.instanced[0].nodes, [nodes[1]]);
        assert_eq!(
            plan.merged
                .iter()
                .flat_map(|b| b.items.iter().map(|i| i.0))
                .collect::<Vec<_>>(),
            [nodes[0], nodes[2]]
        );
    }

    #[test]
    fn a_merged_draw_holds_only_primitives_whose_texels_are_drawn_alike() {
        // Four single-use meshes on one texture: plain, cut out, cut out, blended. A merged
        // draw takes its first primitive's material, so three draws.
        let mut s = Scene::default();
        s.textures.push(Texture {
            name: None,
            texels: crate::texture::checker([1.0; 3]),
            file: None,
            nearest: false,
            stand_in: true,
        });
        let rules = [
            (None, None),
            (Some(0.5), None),
            (Some(0.5), None),
            (None, Some(Blend::Add)),
        ];
        for (k, (alpha_cutoff, blend)) in rules.into_iter().enumerate() {
            s.materials.push(Material {
                texture: Some(0),
                alpha_cutoff,
                blend,
                ..Default::default()
            });
            let mut p = quad(k as f32, 1);
            p.uvs = Some(vec![[0.0; 2]; 4]);
            p.material = Some(k as MaterialId);
            let m = s.add_mesh(Mesh {
                name: None,
                primitives: vec![p],
            });
            s.add_node(
                None,
                Node {
                    mesh: Some(m),
                    ..Default::default()
                },
            );
        }
        let plan = s.draw_plan(0);
        let items: Vec<Vec<NodeId>> = plan
            .merged
            .iter()
            .map(|b| b.items.iter().map(|i| i.0).collect())
            .collect();
        assert_eq!(items, [vec![0], vec![1, 2], vec![3]]);
        assert!(plan.merged.iter().all(|b| b.texture == Some(0)));
    }

    #[test]
    fn clips_move_nodes_and_scroll_uvs() {
        let mut s = Scene::default();
        let door = s.add_node(None, Node::default());
        s.materials.push(Material::default());
        s.clips.push(Clip {
            name: "door".into(),
            duration: 4.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Translation(door),
                times: vec![0.0, 1.0, 2.0, 3.0, 4.0],
                values: vec![0., 0., 0., 2., 0., 0., 2., 0., 0., 0., 0., 0., 0., 0., 0.],
            }],
        });
        s.clips.push(Clip {
            name: "scroll".into(),
            duration: 1.0,
            repeat: Repeat::Extrapolate,
            tracks: vec![Track {
                target: Target::UvOffset(0),
                times: vec![0.0, 1.0],
                values: vec![0.1, 0.0, 0.35, 0.5],
            }],
        });
        assert_eq!(s.pose(0.5)[0].translation, [1.0, 0.0, 0.0]);
        assert_eq!(s.pose(1.5)[0].translation, [2.0, 0.0, 0.0]);
        assert_eq!(
            s.pose(6.5)[0].translation,
            [1.0, 0.0, 0.0],
            "loops every 4 s"
        );
        let uv = s.uv_offsets(10.0);
        assert!(
            (uv[0][0] - (0.1f32 + 2.5).rem_euclid(1.0)).abs() < 1e-5
                && (uv[0][1] - 0.0).abs() < 1e-5,
            "{uv:?}"
        );
        assert_eq!(s.animated_nodes(), vec![true]);
        // A moving node is drawn on its own instanced batch, not baked.
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 1)],
        });
        s.nodes[0].mesh = Some(m);
        assert_eq!(s.draw_plan(0).instanced.len(), 1);
    }

    #[test]
    fn the_rest_pose_is_where_playing_clips_start_and_the_nodes_own_transforms_elsewhere() {
        // A door whose clip starts it 3 units up, under a parent 10 along x.
        let mut s = Scene::default();
        let parent = s.add_node(
            None,
            Node {
                transform: Transform {
                    translation: [10.0, 0.0, 0.0],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let door = s.add_node(
            Some(parent),
            Node {
                transform: Transform {
                    translation: [0.0, 1.0, 0.0],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let at = |w: &[Mat4]| w[door as usize].transform_point3(Vec3::ZERO).to_array();
        assert_eq!(
            at(&s.rest_world()),
            [10.0, 1.0, 0.0],
            "no clip: the node's own transform"
        );
        s.clips.push(Clip {
            name: "door".into(),
            duration: 1.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Translation(door),
                times: vec![0.0, 1.0],
                values: vec![0., 3., 0., 0., 5., 0.],
            }],
        });
        assert_eq!(
            at(&s.rest_world()),
            [10.0, 3.0, 0.0],
            "a playing clip: where it is at time 0"
        );
        assert_eq!(s.rest_world(), s.world(&s.pose(0.0)));
        s.stopped = vec![0];
        assert_eq!(
            at(&s.rest_world()),
            [10.0, 1.0, 0.0],
            "a stopped clip moves nothing"
        );
        // The bounds follow the same rest pose.
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![quad(0.0, 1)],
        });
        s.nodes[door as usize].mesh = Some(m);
        assert_eq!(s.bounds(0), s.bounds_placed(0, &[], &s.world(&s.pose(0.0))));
    }

    #[test]
    fn rotation_tracks_slerp() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let t = Track {
            target: Target::Rotation(0),
            times: vec![0.0, 1.0],
            values: vec![0.0, 0.0, 0.0, 1.0, 0.0, half, 0.0, half],
        };
        let q = Quat::from_slice(&t.sample(0.5, Repeat::Loop));
        let (axis, angle) = q.to_axis_angle();
        assert!(
            (angle - std::f32::consts::FRAC_PI_4).abs() < 1e-4 && (axis - Vec3::Y).length() < 1e-4
        );
    }
}
