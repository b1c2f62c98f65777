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

use crate::texture::Texels;
use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

pub type NodeId = u32;
pub type MeshId = u32;
pub type MaterialId = u32;
pub type TextureId = u32;

/// Triangles `first..` (up to the next run) came from inspector record `record`. Face `k`
/// of the run (`tris_per_face` triangles each) is the bytes `start + k·face_len ..` of
/// length `face_len`; `tris_per_face == 0` means every triangle of the run came from the
/// whole record (strips and fans).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRun {
    pub first: u32,
    pub record: u32,
    pub start: usize,
    pub face_len: u32,
    pub tris_per_face: u32,
}

impl SourceRun {
    /// The bytes of triangle `t` (an index into the primitive), given the record's own range
    /// for runs that have no faces.
    pub fn face_bytes(&self, t: u32, record_range: (usize, usize)) -> (usize, usize) {
        if self.tris_per_face == 0 {
            return record_range;
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
    // The vertex arrays go into the wire form (crate::wire) as raw bytes (crate::pod_serde).
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
    /// The inspector record (chunk) the primitive came from.
    pub record: Option<u32>,
    pub sources: Vec<SourceRun>,
}

/// Which vertex colours a scene is drawn or exported with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ColourSet {
    /// As the file stores them.
    #[default]
    Stored,
    /// As the game's own lighting gave them, where the format reproduces it (else stored).
    Lit,
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
        self.uvs.as_ref().is_some_and(|uv| uv.len() == self.positions.len())
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
        Transform { translation: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0], scale: [1.0; 3] }
    }
}

impl Transform {
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(Vec3::from(self.scale), Quat::from_array(self.rotation).normalize(), Vec3::from(self.translation))
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
    /// The inspector record (chunk) the node came from.
    pub record: Option<u32>,
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
        Material { name: None, base_color: [1.0; 4], texture: None, untextured_color: None, double_sided: true, alpha_cutoff: None, blend: None, surface: Surface::Filled }
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

impl Track {
    /// The value at `t` seconds into the clip (already wrapped for looping clips).
    pub fn sample(&self, t: f64, repeat: Repeat) -> Vec<f32> {
        let w = self.target.width();
        let n = self.times.len().min(self.values.len() / w);
        if n == 0 {
            return vec![0.0; w];
        }
        let key = |i: usize| &self.values[i * w..i * w + w];
        if n == 1 {
            return key(0).to_vec();
        }
        if let Target::Visibility(_) = self.target {
            return key(self.times[..n].partition_point(|&k| (k as f64) <= t).max(1) - 1).to_vec();
        }
        // The segment holding t (or the last one, to extrapolate past it).
        let i = self.times[..n].partition_point(|&k| (k as f64) <= t).clamp(1, n - 1) - 1;
        let (t0, t1) = (self.times[i] as f64, self.times[i + 1] as f64);
        let span = (t1 - t0).max(1e-9);
        let mut s = (t - t0) / span;
        if repeat == Repeat::Loop || t < t0 {
            s = s.clamp(0.0, 1.0);
        }
        let (a, b) = (key(i), key(i + 1));
        if let Target::Rotation(_) = self.target {
            let q = Quat::from_slice(a).normalize().slerp(Quat::from_slice(b).normalize(), s.clamp(0.0, 1.0) as f32);
            return q.to_array().to_vec();
        }
        a.iter().zip(b).map(|(&x, &y)| (x as f64 + (y as f64 - x as f64) * s) as f32).collect()
    }
}

impl Clip {
    /// Clip time for the animation clock `seconds`.
    pub fn local_time(&self, seconds: f64) -> f64 {
        match self.repeat {
            Repeat::Loop if self.duration > 0.0 => seconds.rem_euclid(self.duration as f64),
            _ => seconds,
        }
    }
}

/// What a primitive is drawn with: the texture it samples, and the sRGB factor its vertex
/// colours (and texels) are multiplied by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shading {
    pub texture: Option<TextureId>,
    pub base_color: [f32; 4],
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
    /// Clips that blink a face's eyes: each plays beside the choice's clip on a cadence of
    /// its own (not part of the timeline's loop), unless the view's blink switch stops it.
    #[serde(default)]
    pub blinks: Vec<u32>,
    /// The blink switch is off: the blinks stop with the choice's other clips.
    #[serde(default)]
    pub blinks_stopped: bool,
    /// The layers that are damage zones (a node is on them by [`PartWords::zones`]).
    #[serde(default)]
    pub zones: Vec<u32>,
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
        let shown = self.options.get(k).map(|o| o.layers.as_slice()).unwrap_or_default();
        let mut out: Vec<u32> = self.options.iter().flat_map(|o| o.layers.iter().copied()).filter(|l| !shown.contains(l)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
    /// Clips of the choice that option `k` stops.
    pub fn stopped_clips(&self, k: usize) -> Vec<u32> {
        let playing = self.options.get(k).and_then(|o| o.clip);
        let mut out: Vec<u32> = self.options.iter().filter_map(|o| o.clip).filter(|&c| Some(c) != playing).collect();
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
            None => *b = Some(Bounds { min: p.into(), max: p.into() }),
            Some(b) => {
                b.min = Vec3::from(b.min).min(p).into();
                b.max = Vec3::from(b.max).max(p).into();
            }
        }
    }
}

/// The nearest triangle a ray hits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SceneHit {
    pub node: NodeId,
    pub mesh: MeshId,
    pub primitive: u32,
    pub triangle: u32,
    pub distance: f32,
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
        self.nodes.iter().enumerate().filter(|(_, n)| n.parent.is_none()).map(|(i, _)| i as NodeId)
    }

    /// How many levels of detail can be chosen (at least one).
    pub fn lod_count(&self) -> usize {
        self.lods.len().max(1)
    }

    /// The clips that play (not [`Self::stopped`]).
    pub fn playing(&self) -> impl Iterator<Item = &Clip> + '_ {
        self.clips.iter().enumerate().filter(|(i, _)| !self.stopped.contains(&(*i as u32))).map(|(_, c)| c)
    }

    /// Show option `k` of the scene's choice: its layers (the returned hidden layers are the
    /// choice's others) and its clip (the choice's other clips stop).
    pub fn choose(&mut self, k: usize) -> Vec<u32> {
        let Some(c) = &self.choice else { return Vec::new() };
        self.stopped = c.stopped_clips(k);
        let hidden = c.hidden_layers(k);
        self.set_blinking(!self.blinks_stopped);
        hidden
    }

    /// Whether some primitive has the colours the game's lighting gave it.
    pub fn has_lit_colours(&self) -> bool {
        self.meshes.iter().flat_map(|m| &m.primitives).any(|p| p.lit_colors.is_some())
    }

    /// Let the blinks play (`on`) or stop them, whatever the choice plays.
    pub fn set_blinking(&mut self, on: bool) {
        self.blinks_stopped = !on;
        let blinks = &self.blinks;
        self.stopped.retain(|c| !blinks.contains(c));
        if !on {
            self.stopped.extend(blinks.iter().copied());
        }
    }

    /// The clips that play and loop with the timeline: those that play, less the blinks.
    pub fn timeline_clips(&self) -> impl Iterator<Item = &Clip> + '_ {
        self.clips.iter().enumerate().filter(|(i, _)| !self.stopped.contains(&(*i as u32)) && !self.blinks.contains(&(*i as u32))).map(|(_, c)| c)
    }

    /// The transforms of nodes as animated at `seconds`, for nodes that clips move.
    pub fn pose(&self, seconds: f64) -> Vec<Transform> {
        let mut pose: Vec<Transform> = self.nodes.iter().map(|n| n.transform).collect();
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                let v = track.sample(t, clip.repeat);
                match track.target {
                    Target::Translation(n) => pose[n as usize].translation = [v[0], v[1], v[2]],
                    Target::Rotation(n) => pose[n as usize].rotation = [v[0], v[1], v[2], v[3]],
                    Target::Scale(n) => pose[n as usize].scale = [v[0], v[1], v[2]],
                    // A hidden node is drawn at no size: it and everything under it vanish.
                    Target::Visibility(n) if v[0] < 0.5 => pose[n as usize].scale = [0.0; 3],
                    Target::Visibility(_) | Target::UvOffset(_) | Target::Glow(_) => {}
                }
            }
        }
        pose
    }

    /// The UV offset of every material at `seconds` (wrapped into [0, 1)).
    pub fn uv_offsets(&self, seconds: f64) -> Vec<[f32; 2]> {
        let mut out = vec![[0.0f32; 2]; self.materials.len()];
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                if let Target::UvOffset(m) = track.target {
                    let v = track.sample(t, clip.repeat);
                    if let Some(o) = out.get_mut(m as usize) {
                        *o = [v[0].rem_euclid(1.0), v[1].rem_euclid(1.0)];
                    }
                }
            }
        }
        out
    }

    /// The glow of every material at `seconds` (0 where nothing animates it).
    pub fn glows(&self, seconds: f64) -> Vec<f32> {
        let mut out = vec![0.0f32; self.materials.len()];
        for clip in self.playing() {
            let t = clip.local_time(seconds);
            for track in &clip.tracks {
                if let Target::Glow(m) = track.target {
                    if let Some(g) = out.get_mut(m as usize) {
                        *g = track.sample(t, clip.repeat)[0].clamp(0.0, 1.0);
                    }
                }
            }
        }
        out
    }

    /// Materials a clip changes the look of: a UV drift or a glow.
    pub fn animated_materials(&self) -> Vec<MaterialId> {
        let mut out: Vec<MaterialId> = self
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .filter_map(|t| match t.target {
                Target::UvOffset(m) | Target::Glow(m) => Some(m),
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
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
        let moved = self.playing().flat_map(|c| &c.tracks).any(|t| matches!(t.target, Target::Translation(_) | Target::Rotation(_) | Target::Scale(_) | Target::Visibility(_)));
        if moved { self.world(&self.pose(0.0)) } else { self.world(&[]) }
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
            let parent = n.parent.filter(|&p| (p as usize) < i).is_none_or(|p| out[p as usize]);
            let zone_hidden = n.part.as_ref().is_some_and(|p| p.zones.iter().any(off));
            out.push(parent && n.lod.is_none_or(|l| l as usize == lod) && !n.layer.as_ref().is_some_and(off) && !zone_hidden);
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
    pub fn zone_layer(&mut self, name: &str, layers: &mut HashMap<String, u32>, zones: &mut Vec<bool>) -> u32 {
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
        (self.layers.iter().enumerate().map(|(i, l)| (l.clone(), i as u32)).collect(), self.layer_mask(&self.zones))
    }

    /// The nearest node at or above `node` that came from an inspector record.
    pub fn record_of(&self, node: NodeId) -> Option<u32> {
        let mut n = Some(node);
        while let Some(i) = n {
            let node = self.nodes.get(i as usize)?;
            if node.record.is_some() {
                return node.record;
            }
            n = node.parent.filter(|&p| p < i);
        }
        None
    }

    /// Nodes whose transform some clip changes, or that sit under one.
    pub fn animated_nodes(&self) -> Vec<bool> {
        let mut moved = vec![false; self.nodes.len()];
        for t in self.clips.iter().flat_map(|c| &c.tracks) {
            match t.target {
                Target::Translation(n) | Target::Rotation(n) | Target::Scale(n) | Target::Visibility(n) => {
                    if let Some(m) = moved.get_mut(n as usize) {
                        *m = true;
                    }
                }
                Target::UvOffset(_) | Target::Glow(_) => {}
            }
        }
        for i in 0..self.nodes.len() {
            if let Some(p) = self.nodes[i].parent {
                if (p as usize) < i && moved[p as usize] {
                    moved[i] = true;
                }
            }
        }
        moved
    }

    /// How primitive `p` is drawn and exported. Files put textured materials on vertex
    /// formats without UVs (XYZ_N, XYZ_RGBA …): such a primitive samples no texture and
    /// shows its material's colour. This is the one place that decides; the renderer's
    /// shader variant, its draw batches, its tint and the glTF material all follow it.
    pub fn shading(&self, p: &Primitive) -> Shading {
        let Some(material) = p.material.and_then(|m| self.materials.get(m as usize)) else { return Shading { texture: None, base_color: [1.0; 4] } };
        match material.texture.filter(|&t| (t as usize) < self.textures.len()) {
            Some(t) if p.has_uvs() => Shading { texture: Some(t), base_color: material.base_color },
            Some(_) => Shading { texture: None, base_color: material.untextured_color.unwrap_or(material.base_color) },
            None => Shading { texture: None, base_color: material.base_color },
        }
    }

    /// The texture primitive `p` samples ([`Self::shading`]).
    pub fn texture_of(&self, p: &Primitive) -> Option<TextureId> {
        self.shading(p).texture
    }

    /// Why some primitives show no texture although their material has one: a sentence
    /// per material, for the info pane (empty when every textured material is sampled).
    pub fn untextured_notes(&self) -> Vec<String> {
        let mut by_material: BTreeMap<MaterialId, usize> = BTreeMap::new();
        for p in self.meshes.iter().flat_map(|m| &m.primitives) {
            let Some(id) = p.material else { continue };
            let textured = self.materials.get(id as usize).and_then(|m| m.texture).is_some_and(|t| (t as usize) < self.textures.len());
            if textured && !p.has_uvs() && !p.indices.is_empty() {
                *by_material.entry(id).or_default() += 1;
            }
        }
        by_material
            .into_iter()
            .map(|(id, n)| {
                let name = self.materials[id as usize].name.as_deref().unwrap_or("a material");
                let (count, verb) = if n == 1 { ("1 primitive".to_string(), "has") } else { (format!("{n} primitives"), "have") };
                format!("{name} has a texture, but {count} using it {verb} no UVs (its vertex format has none): drawn and exported in the material's colour")
            })
            .collect()
    }

    /// Materials whose UV offset a clip animates.
    pub fn scrolling_materials(&self) -> Vec<MaterialId> {
        let mut out: Vec<MaterialId> = self.clips.iter().flat_map(|c| &c.tracks).filter_map(|t| if let Target::UvOffset(m) = t.target { Some(m) } else { None }).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Triangles drawn at LOD `lod`, counting every instance.
    pub fn triangle_count(&self, lod: usize) -> usize {
        self.triangle_count_in(lod, &[])
    }

    /// [`Self::triangle_count`] with the layers in `hidden` hidden.
    pub fn triangle_count_in(&self, lod: usize, hidden: &[u32]) -> usize {
        let visible = self.visible_in(lod, hidden);
        self.nodes.iter().zip(&visible).filter(|(_, &v)| v).filter_map(|(n, _)| n.mesh).map(|m| self.meshes[m as usize].triangle_count()).sum()
    }

    /// Nodes at LOD `lod` that draw a mesh.
    pub fn instance_count(&self, lod: usize) -> usize {
        let visible = self.visible(lod);
        self.nodes.iter().zip(&visible).filter(|(n, &v)| v && n.mesh.is_some()).count()
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
            let (Some(m), Some(&w)) = (n.mesh.filter(|_| visible[i]), world.get(i)) else { continue };
            let mesh = &self.meshes[m as usize];
            let axis_aligned = w.x_axis.y == 0.0 && w.x_axis.z == 0.0 && w.y_axis.x == 0.0 && w.y_axis.z == 0.0 && w.z_axis.x == 0.0 && w.z_axis.y == 0.0 && w.x_axis.w == 0.0 && w.y_axis.w == 0.0 && w.z_axis.w == 0.0 && w.w_axis.w == 1.0;
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

    /// The nearest triangle (either face: winding is unconfirmed) that the ray from `origin`
    /// along `dir` hits among the nodes shown at `lod` (layers in `hidden` hidden), with
    /// nodes placed by `world`.
    pub fn pick(&self, origin: Vec3, dir: Vec3, lod: usize, hidden: &[u32], world: &[Mat4]) -> Option<SceneHit> {
        let visible = self.visible_in(lod, hidden);
        let mut best: Option<SceneHit> = None;
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(m) = n.mesh.filter(|_| visible[i]) else { continue };
            let inv = world[i].inverse();
            if !inv.is_finite() {
                continue;
            }
            // Intersect in the node's own space; distances along `dir` are kept by scaling
            // the direction, not normalising it.
            let (o, d) = (inv.transform_point3(origin), inv.transform_vector3(dir));
            for (k, prim) in self.meshes[m as usize].primitives.iter().enumerate() {
                for (t, tri) in prim.indices.chunks_exact(3).enumerate() {
                    let v = |j: usize| prim.positions.get(tri[j] as usize).map(|p| Vec3::from(*p));
                    let (Some(a), Some(b), Some(c)) = (v(0), v(1), v(2)) else { continue };
                    if let Some(dist) = ray_triangle(o, d, a, b, c) {
                        if best.is_none_or(|h| dist < h.distance) {
                            best = Some(SceneHit { node: i as NodeId, mesh: m, primitive: k as u32, triangle: t as u32, distance: dist });
                        }
                    }
                }
            }
        }
        best
    }

    /// The node that came from inspector record `record`.
    pub fn node_of_record(&self, record: u32) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.record == Some(record)).map(|i| i as NodeId)
    }

    /// The LOD that shows the node from inspector record `record`, if that node is a LOD.
    pub fn lod_of_record(&self, record: u32) -> Option<usize> {
        let mut n = self.node_of_record(record);
        while let Some(i) = n {
            if let Some(l) = self.nodes[i as usize].lod {
                return Some(l as usize);
            }
            n = self.nodes[i as usize].parent;
        }
        None
    }

    /// Per node: whether it is the node from inspector record `record` or sits under it.
    fn under_record(&self, record: u32) -> Vec<bool> {
        let mut under = vec![false; self.nodes.len()];
        for (i, n) in self.nodes.iter().enumerate() {
            under[i] = n.record == Some(record) || n.parent.is_some_and(|p| (p as usize) < i && under[p as usize]);
        }
        under
    }

    /// Per node: whether it draws something that came from `record` (it is that record's
    /// node or under it, or one of its primitives or runs of triangles came from it): the
    /// bones a picked part hangs on.
    pub fn nodes_drawing_record(&self, record: u32) -> Vec<bool> {
        let under = self.under_record(record);
        let from_record = |m: Option<MeshId>| {
            m.and_then(|m| self.meshes.get(m as usize))
                .is_some_and(|mesh| mesh.primitives.iter().any(|p| p.record == Some(record) || p.sources.iter().any(|r| r.record == record)))
        };
        self.nodes.iter().enumerate().map(|(i, n)| under[i] || from_record(n.mesh)).collect()
    }

    /// World-space corners of the triangles shown at `lod` of the parts of damage zone
    /// `zone` (a layer of [`Self::zones`]).
    pub fn triangles_of_zone(&self, zone: u32, lod: usize, world: &[Mat4]) -> Vec<[f32; 3]> {
        let visible = self.visible(lod);
        let mut out = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let in_zone = n.part.as_ref().is_some_and(|p| p.zones.contains(&zone));
            let Some(m) = n.mesh.filter(|_| visible[i] && in_zone) else { continue };
            for prim in &self.meshes[m as usize].primitives {
                out.extend(prim.indices.iter().filter_map(|&k| prim.positions.get(k as usize)).map(|p| world[i].transform_point3(Vec3::from(*p)).to_array()));
            }
        }
        out
    }

    /// World-space corners of the triangles shown at `lod` that came from `record`: a node
    /// (everything under it), a primitive, or the record a run of triangles came from.
    /// With `face` (the bytes start..end of one face of index record `record`), only the
    /// triangles made from that face; a run whose triangles all come from the whole record
    /// (a strip) counts as one face.
    pub fn triangles_of_record(&self, record: u32, face: Option<(usize, usize)>, lod: usize, world: &[Mat4]) -> Vec<[f32; 3]> {
        let visible = self.visible(lod);
        let under = self.under_record(record);
        let mut out = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            let Some(m) = n.mesh.filter(|_| visible[i]) else { continue };
            for prim in &self.meshes[m as usize].primitives {
                let whole = face.is_none() && (under[i] || prim.record == Some(record));
                let ours = |t: u32| {
                    source_of(&prim.sources, t).is_some_and(|r| r.record == record && face.is_none_or(|f| r.tris_per_face == 0 || r.face_bytes(t, (0, 0)) == f))
                };
                for (t, tri) in prim.indices.chunks_exact(3).enumerate() {
                    if whole || ours(t as u32) {
                        out.extend(tri.iter().filter_map(|&k| prim.positions.get(k as usize)).map(|p| world[i].transform_point3(Vec3::from(*p)).to_array()));
                    }
                }
            }
        }
        out
    }
}

/// How a scene appended into another ([`Scene::absorb`]) maps onto it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Absorbed {
    pub meshes: Vec<MeshId>,
    pub materials: Vec<MaterialId>,
    /// Each of the other scene's layers that is a damage zone, as this scene's zone layer
    /// of the same name (a zone hides in every placement of every model that names it).
    pub zones: Vec<Option<u32>>,
}

impl Scene {
    /// Take in `other`'s meshes, materials, textures and material clips, so that its node
    /// tree can then be placed any number of times ([`Self::instantiate`]) with its meshes
    /// shared. Textures of the same file are merged, and so are equal materials unless
    /// `own_materials` (a model whose materials a clip will animate on their own). The
    /// meshes' inspector records are dropped: they belong to the other file. The meshes are
    /// moved, not copied: `other` keeps its nodes and clips (a template) and no meshes.
    pub fn absorb(&mut self, other: &mut Scene, own_materials: bool) -> Absorbed {
        let textures: Vec<TextureId> = other
            .textures
            .iter()
            .map(|t| {
                let same = |u: &Texture| match (&u.file, &t.file) {
                    (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                    _ => std::sync::Arc::ptr_eq(&u.texels.rgba, &t.texels.rgba),
                };
                match self.textures.iter().position(same) {
                    Some(i) => i as TextureId,
                    None => {
                        self.textures.push(t.clone());
                        (self.textures.len() - 1) as TextureId
                    }
                }
            })
            .collect();
        let materials: Vec<MaterialId> = other
            .materials
            .iter()
            .map(|m| {
                let m = Material { texture: m.texture.and_then(|t| textures.get(t as usize).copied()), ..m.clone() };
                match self.materials.iter().position(|x| !own_materials && *x == m) {
                    Some(i) => i as MaterialId,
                    None => {
                        self.materials.push(m);
                        (self.materials.len() - 1) as MaterialId
                    }
                }
            })
            .collect();
        let meshes = std::mem::take(&mut other.meshes)
            .into_iter()
            .map(|mesh| {
                let primitives = mesh
                    .primitives
                    .into_iter()
                    .map(|p| Primitive { material: p.material.and_then(|m| materials.get(m as usize).copied()), record: None, sources: Vec::new(), ..p })
                    .collect();
                self.add_mesh(Mesh { name: mesh.name, primitives })
            })
            .collect();
        // Material clips (a texture's drift) once per material.
        let have: Vec<Target> = self.clips.iter().flat_map(|c| &c.tracks).map(|t| t.target).collect();
        for clip in &other.clips {
            let tracks: Vec<Track> = clip
                .tracks
                .iter()
                .filter_map(|t| {
                    let target = match t.target {
                        Target::UvOffset(m) => Target::UvOffset(*materials.get(m as usize)?),
                        Target::Glow(m) => Target::Glow(*materials.get(m as usize)?),
                        _ => return None,
                    };
                    (!have.contains(&target)).then(|| Track { target, ..t.clone() })
                })
                .collect();
            if !tracks.is_empty() {
                self.clips.push(Clip { tracks, ..clip.clone() });
            }
        }
        for (i, l) in other.lods.iter().enumerate() {
            if self.lods.len() <= i {
                self.lods.push(*l);
            }
        }
        let mut zones = vec![None; other.layers.len()];
        if !other.zones.is_empty() {
            let (mut layers, mut mask) = self.layers_by_name();
            for &l in &other.zones {
                if let Some(name) = other.layers.get(l as usize) {
                    zones[l as usize] = Some(self.zone_layer(name, &mut layers, &mut mask));
                }
            }
        }
        Absorbed { meshes, materials, zones }
    }

    /// Place a copy of `template`'s node tree under `parent`, its meshes as `absorbed` maps
    /// them; node clips come along, retargeted. Returns the new id of every template node.
    pub fn instantiate(&mut self, parent: Option<NodeId>, template: &Scene, absorbed: &Absorbed) -> Vec<NodeId> {
        let mut ids: Vec<NodeId> = Vec::with_capacity(template.nodes.len());
        for n in &template.nodes {
            let up = match n.parent {
                Some(p) => ids.get(p as usize).copied(),
                None => parent,
            };
            let node = Node {
                name: n.name.clone(),
                parent: None,
                transform: n.transform,
                mesh: n.mesh.and_then(|m| absorbed.meshes.get(m as usize).copied()),
                marker: n.marker,
                lod: n.lod,
                record: None,
                layer: None,
                part: n.part.as_ref().map(|p| Box::new(PartWords { zones: p.zones.iter().filter_map(|&z| absorbed.zones.get(z as usize).copied().flatten()).collect(), words: p.words.clone() })),
            };
            ids.push(self.add_node(up, node));
        }
        for clip in &template.clips {
            let tracks: Vec<Track> = clip
                .tracks
                .iter()
                .filter_map(|t| {
                    let target = match t.target {
                        Target::Translation(n) => Target::Translation(*ids.get(n as usize)?),
                        Target::Rotation(n) => Target::Rotation(*ids.get(n as usize)?),
                        Target::Scale(n) => Target::Scale(*ids.get(n as usize)?),
                        Target::Visibility(n) => Target::Visibility(*ids.get(n as usize)?),
                        _ => return None,
                    };
                    Some(Track { target, ..t.clone() })
                })
                .collect();
            if !tracks.is_empty() {
                self.clips.push(Clip { tracks, ..clip.clone() });
            }
        }
        ids
    }
}

/// Möller–Trumbore; the distance along `d` (in units of |d|), both faces.
fn ray_triangle(o: Vec3, d: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let dist = e2.dot(q) / det;
    (dist > 0.0 && dist.is_finite()).then_some(dist)
}

/// Vertices a plan bakes at most from meshes that several nodes place (see
/// [`Scene::draw_plan_in`]): 19 MB at the widest vertex (36 bytes), whatever the world.
pub const BAKED_VERTICES: usize = 1 << 19;

/// How the renderer draws a scene at one LOD: merged static batches (meshes baked into world
/// space, one draw per texture and way of drawing texels) and instanced batches (one draw per
/// (mesh, primitive) for all the nodes placing it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DrawPlan {
    pub merged: Vec<MergedBatch>,
    pub instanced: Vec<InstancedBatch>,
    /// (node, mesh, primitive) drawn as lines along their triangles' edges
    /// ([`Surface::Lines`]), not in the batches.
    pub lines: Vec<(NodeId, MeshId, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MergedBatch {
    pub texture: Option<TextureId>,
    /// The material a clip animates (UV drift, glow) when this batch has one: such a
    /// material gets a batch of its own.
    pub animated_material: Option<MaterialId>,
    /// (node, mesh, primitive) in draw order.
    pub items: Vec<(NodeId, MeshId, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InstancedBatch {
    pub mesh: MeshId,
    pub primitive: u32,
    pub nodes: Vec<NodeId>,
}

impl DrawPlan {
    pub fn draw_calls(&self) -> usize {
        self.merged.len() + self.instanced.len()
    }
}

impl Scene {
    pub fn draw_plan(&self, lod: usize) -> DrawPlan {
        self.draw_plan_in(lod, &[])
    }

    /// [`Self::draw_plan`] with the layers in `hidden` hidden.
    ///
    /// A static node's mesh is baked into a merged batch when one node places it, and also
    /// when several do, as long as all its static placements fit in what is left of
    /// [`BAKED_VERTICES`] (offered to the smallest meshes first). A software rasteriser
    /// (SwiftShader, what a browser without a GPU uses) pays for each instance of an
    /// instanced draw about as much as for twenty vertices: 11,236 boxes drew 1.7–2× slower
    /// instanced than baked. The budget keeps the copies bounded however many placements a
    /// world has. Nodes a clip moves, and meshes past the budget, are instanced.
    pub fn draw_plan_in(&self, lod: usize, hidden: &[u32]) -> DrawPlan {
        let visible = self.visible_in(lod, hidden);
        let animated = self.animated_nodes();
        let animated_materials = self.animated_materials();
        let drawn = |i: usize| self.nodes[i].mesh.filter(|_| visible[i]).map(|m| m as usize);
        let mut users = vec![0usize; self.meshes.len()];
        let mut static_users = vec![0usize; self.meshes.len()];
        for i in 0..self.nodes.len() {
            if let Some(m) = drawn(i) {
                users[m] += 1;
                static_users[m] += usize::from(!animated[i]);
            }
        }
        let vertices = |m: usize| self.meshes[m].primitives.iter().filter(|p| !p.indices.is_empty()).map(|p| p.positions.len()).sum::<usize>();
        let mut shared: Vec<usize> = (0..self.meshes.len()).filter(|&m| users[m] > 1 && static_users[m] > 0).collect();
        shared.sort_by_key(|&m| (vertices(m), m));
        let mut baked = vec![false; self.meshes.len()];
        let mut budget = BAKED_VERTICES;
        for m in shared {
            let Some(left) = budget.checked_sub(vertices(m).saturating_mul(static_users[m])) else { continue };
            budget = left;
            baked[m] = true;
        }
        let mut plan = DrawPlan::default();
        for i in 0..self.nodes.len() {
            let Some(m) = drawn(i) else { continue };
            for (k, prim) in self.meshes[m].primitives.iter().enumerate() {
                if prim.indices.is_empty() {
                    continue;
                }
                if self.surface_of(prim) == Surface::Lines {
                    plan.lines.push((i as NodeId, m as MeshId, k as u32));
                    continue;
                }
                if animated[i] || (users[m] > 1 && !baked[m]) {
                    match plan.instanced.iter_mut().find(|b| b.mesh == m as MeshId && b.primitive == k as u32) {
                        Some(b) => b.nodes.push(i as NodeId),
                        None => plan.instanced.push(InstancedBatch { mesh: m as MeshId, primitive: k as u32, nodes: vec![i as NodeId] }),
                    }
                    continue;
                }
                let texture = self.texture_of(prim);
                let own = prim.material.filter(|&id| (id as usize) < self.materials.len() && animated_materials.contains(&id));
                let texels = self.texel_rule(prim);
                let first = |b: &MergedBatch| b.items.first().map(|&(_, m, k)| &self.meshes[m as usize].primitives[k as usize]);
                match plan.merged.iter_mut().find(|b| b.texture == texture && b.animated_material == own && first(b).is_some_and(|p| self.texel_rule(p) == texels)) {
                    Some(b) => b.items.push((i as NodeId, m as MeshId, k as u32)),
                    None => plan.merged.push(MergedBatch { texture, animated_material: own, items: vec![(i as NodeId, m as MeshId, k as u32)] }),
                }
            }
        }
        plan
    }

    /// How primitive `p`'s texels are drawn, which a merged batch shares (it draws with its
    /// first primitive's material): the alpha cut-off, the blend rule and the surface.
    fn texel_rule(&self, p: &Primitive) -> (Option<u32>, Option<Blend>, Surface) {
        let material = p.material.and_then(|m| self.materials.get(m as usize));
        material.map_or((None, None, Surface::Filled), |m| (m.alpha_cutoff.map(f32::to_bits), m.blend, m.surface))
    }

    /// How primitive `p`'s triangles are put down ([`Material::surface`]).
    pub fn surface_of(&self, p: &Primitive) -> Surface {
        p.material.and_then(|m| self.materials.get(m as usize)).map_or(Surface::Filled, |m| m.surface)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(z: f32, record: u32) -> Primitive {
        Primitive {
            positions: vec![[-1.0, -1.0, z], [1.0, -1.0, z], [1.0, 1.0, z], [-1.0, 1.0, z]],
            indices: vec![0, 1, 2, 0, 2, 3],
            record: Some(record),
            sources: vec![SourceRun { first: 0, record, start: 100, face_len: 16, tris_per_face: 2 }],
            ..Default::default()
        }
    }

    fn two_quads() -> Scene {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 10), quad(-2.0, 20)] });
        s.add_node(None, Node { mesh: Some(m), record: Some(5), ..Default::default() });
        s
    }

    #[test]
    fn the_nodes_drawing_a_record_are_its_node_what_hangs_under_it_and_meshes_made_from_it() {
        let mut s = two_quads();
        let child = s.add_node(Some(0), Node { record: Some(7), ..Default::default() });
        let other = s.add_mesh(Mesh { name: None, primitives: vec![quad(1.0, 30)] });
        s.add_node(None, Node { mesh: Some(other), ..Default::default() });
        assert_eq!(s.nodes_drawing_record(5), [true, true, false], "the node and its child");
        assert_eq!(s.nodes_drawing_record(7), [false, true, false]);
        assert_eq!(s.nodes_drawing_record(20), [true, false, false], "a primitive of node 0's mesh");
        assert_eq!(s.nodes_drawing_record(30), [false, false, true]);
        assert_eq!(s.nodes_drawing_record(99), [false, false, false]);
        assert_eq!(child, 1);
    }

    #[test]
    fn pick_finds_the_nearest_triangle_from_either_side() {
        let s = two_quads();
        let w = s.world(&s.pose(0.0));
        let hit = s.pick(Vec3::new(0.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w).unwrap();
        assert_eq!((hit.primitive, hit.triangle, hit.distance), (0, 0, 5.0));
        assert_eq!(s.pick(Vec3::new(-0.5, 0.5, 5.0), Vec3::NEG_Z, 0, &[], &w).map(|h| (h.primitive, h.triangle)), Some((0, 1)));
        assert_eq!(s.pick(Vec3::new(0.5, -0.5, -5.0), Vec3::Z, 0, &[], &w).map(|h| h.primitive), Some(1));
        assert_eq!(s.pick(Vec3::new(3.0, 0.0, 5.0), Vec3::NEG_Z, 0, &[], &w), None);
        assert_eq!(s.pick(Vec3::new(0.0, 0.0, 5.0), Vec3::Z, 0, &[], &w), None);
    }

    #[test]
    fn picking_and_bounds_follow_node_transforms() {
        let mut s = two_quads();
        s.nodes[0].transform.translation = [10.0, 0.0, 0.0];
        let w = s.world(&s.pose(0.0));
        assert!(s.pick(Vec3::new(0.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w).is_none());
        assert!(s.pick(Vec3::new(10.5, -0.5, 5.0), Vec3::NEG_Z, 0, &[], &w).is_some());
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
                    p.indices.iter().filter_map(|&k| p.positions.get(k as usize)).for_each(|v| Bounds::grow(&mut b, w[i].transform_point3(Vec3::from(*v))));
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
            let node = if k == 0 { 0 } else { s.add_node(None, Node { mesh: Some(0), ..Default::default() }) };
            s.nodes[node as usize].transform = Transform { translation, rotation, scale };
            let (want, got) = (brute(&s), s.bounds(0).unwrap());
            for a in 0..3 {
                assert!((want.min[a] - got.min[a]).abs() < 1e-5 && (want.max[a] - got.max[a]).abs() < 1e-5, "placements up to {k}: {want:?} vs {got:?}");
            }
        }
    }

    #[test]
    fn a_primitive_samples_its_texture_only_with_a_uv_per_vertex() {
        let mut s = two_quads();
        s.textures.push(Texture { name: None, texels: crate::texture::checker([1.0; 3]), file: None, nearest: false, stand_in: true });
        s.materials.push(Material { name: Some("tex".into()), texture: Some(0), untextured_color: Some([0.5, 0.25, 0.125, 1.0]), ..Default::default() });
        let mut p = quad(0.0, 1);
        p.material = Some(0);
        assert_eq!(s.shading(&p), Shading { texture: None, base_color: [0.5, 0.25, 0.125, 1.0] }, "no UVs: the material's colour");
        p.uvs = Some(vec![[0.0; 2]; 3]);
        assert_eq!(s.texture_of(&p), None, "a UV short is none");
        p.uvs = Some(vec![[0.0; 2]; 4]);
        assert_eq!(s.shading(&p), Shading { texture: Some(0), base_color: [1.0; 4] });
        s.materials[0].texture = Some(7);
        assert_eq!(s.texture_of(&p), None, "a texture the scene does not have");
        let m = s.add_mesh(Mesh { name: None, primitives: vec![Primitive { uvs: None, ..p.clone() }] });
        s.materials[0].texture = Some(0);
        s.add_node(None, Node { mesh: Some(m), ..Default::default() });
        assert_eq!(s.untextured_notes().len(), 1);
        assert!(s.untextured_notes()[0].starts_with("tex has a texture, but 1 primitive using it has no UVs"), "{:?}", s.untextured_notes());
    }

    #[test]
    fn face_bytes_come_from_the_recorded_run() {
        let q = quad(0.0, 10);
        let run = source_of(&q.sources, 1).unwrap();
        assert_eq!(run.face_bytes(1, (0, 0)), (100, 116));
        let strip = SourceRun { first: 0, record: 3, start: 0, face_len: 0, tris_per_face: 0 };
        assert_eq!(strip.face_bytes(7, (40, 90)), (40, 90));
    }

    #[test]
    fn lods_hide_their_subtrees() {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 1)] });
        let root = s.add_node(None, Node::default());
        let l0 = s.add_node(Some(root), Node { lod: Some(0), record: Some(40), ..Default::default() });
        let l1 = s.add_node(Some(root), Node { lod: Some(1), record: Some(41), ..Default::default() });
        s.add_node(Some(l0), Node { mesh: Some(m), ..Default::default() });
        s.add_node(Some(l1), Node { mesh: Some(m), ..Default::default() });
        s.add_node(Some(l1), Node { mesh: Some(m), ..Default::default() });
        assert_eq!((s.triangle_count(0), s.triangle_count(1)), (2, 4));
        assert_eq!(s.lod_of_record(41), Some(1));
        assert_eq!(s.visible(1), vec![true, false, true, false, true, true]);
    }

    /// `mesh` placed `n` times along X; → the nodes.
    fn place(s: &mut Scene, mesh: MeshId, n: usize) -> Vec<NodeId> {
        (0..n).map(|k| s.add_node(None, Node { mesh: Some(mesh), transform: Transform { translation: [k as f32 * 3.0, 0.0, 0.0], ..Default::default() }, ..Default::default() })).collect()
    }

    /// A primitive of `vertices` points (a fan of triangles over them).
    fn fan(vertices: usize) -> Primitive {
        let positions = (0..vertices).map(|k| [k as f32, (k % 2) as f32, 0.0]).collect();
        Primitive { positions, indices: (1..vertices as u32 - 1).flat_map(|k| [0, k, k + 1]).collect(), ..Default::default() }
    }

    #[test]
    fn draw_calls_grow_with_unique_meshes_not_placements() {
        // One small mesh placed 1,000 times plus two single-use meshes sharing no texture:
        // all baked into one draw.
        let mut s = Scene::default();
        let shared = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 1)] });
        place(&mut s, shared, 1000);
        for _ in 0..2 {
            let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(1.0, 2)] });
            s.add_node(None, Node { mesh: Some(m), ..Default::default() });
        }
        let plan = s.draw_plan(0);
        assert!(plan.instanced.is_empty());
        assert_eq!(plan.merged.len(), 1, "untextured meshes merge into one draw");
        assert_eq!(plan.merged[0].items.len(), 1002);
        assert_eq!(plan.draw_calls(), 1);
        assert_eq!(s.instance_count(0), 1002);
        assert_eq!(s.triangle_count(0), 2004);
        // A mesh whose placements would pass the budget is one instanced draw, however often
        // it is placed.
        let big = s.add_mesh(Mesh { name: None, primitives: vec![fan(BAKED_VERTICES / 100)] });
        place(&mut s, big, 101);
        let plan = s.draw_plan(0);
        assert_eq!(plan.instanced.len(), 1);
        assert_eq!((plan.instanced[0].mesh, plan.instanced[0].nodes.len()), (big, 101));
        assert_eq!(plan.draw_calls(), 2);
    }

    #[test]
    fn the_bake_budget_goes_to_the_smallest_meshes_and_bounds_the_copies() {
        // Three meshes of 4, 1,000 and 3,000 vertices, 200 placements each: 800,000 vertices
        // in all, of which the two smaller ones' 200,800 fit and the largest's 600,000 do not.
        let mut s = Scene::default();
        let meshes: Vec<MeshId> = [3000, 4, 1000].iter().map(|&v| s.add_mesh(Mesh { name: None, primitives: vec![fan(v)] })).collect();
        for &m in &meshes {
            place(&mut s, m, 200);
        }
        let plan = s.draw_plan(0);
        let instanced: Vec<MeshId> = plan.instanced.iter().map(|b| b.mesh).collect();
        assert_eq!(instanced, [meshes[0]]);
        let baked: usize = plan.merged.iter().flat_map(|b| &b.items).map(|&(_, m, k)| s.meshes[m as usize].primitives[k as usize].positions.len()).sum();
        assert_eq!(baked, 200 * (4 + 1000));
        assert!(baked <= BAKED_VERTICES);
        // Every placement is drawn once, by one batch or the other.
        let mut nodes: Vec<NodeId> = plan.merged.iter().flat_map(|b| b.items.iter().map(|i| i.0)).chain(plan.instanced.iter().flat_map(|b| b.nodes.iter().copied())).collect();
        nodes.sort_unstable();
        assert_eq!(nodes, (0..600).collect::<Vec<NodeId>>());
    }

    #[test]
    fn a_placement_a_clip_moves_stays_instanced_while_its_static_twins_are_baked() {
        let mut s = Scene::default();
        let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 1)] });
        let nodes = place(&mut s, m, 3);
        s.clips.push(Clip { name: "slide".into(), duration: 1.0, repeat: Repeat::Loop, tracks: vec![Track { target: Target::Translation(nodes[1]), times: vec![0.0, 1.0], values: vec![0.0; 6] }] });
        let plan = s.draw_plan(0);
        assert_eq!(plan.instanced.len(), 1);
        assert_eq!(plan.instanced[0].nodes, [nodes[1]]);
        assert_eq!(plan.merged.iter().flat_map(|b| b.items.iter().map(|i| i.0)).collect::<Vec<_>>(), [nodes[0], nodes[2]]);
    }

    #[test]
    fn a_merged_draw_holds_only_primitives_whose_texels_are_drawn_alike() {
        // Four single-use meshes on one texture: plain, cut out, cut out, blended. A merged
        // draw takes its first primitive's material, so three draws.
        let mut s = Scene::default();
        s.textures.push(Texture { name: None, texels: crate::texture::checker([1.0; 3]), file: None, nearest: false, stand_in: true });
        let rules = [(None, None), (Some(0.5), None), (Some(0.5), None), (None, Some(Blend::Add))];
        for (k, (alpha_cutoff, blend)) in rules.into_iter().enumerate() {
            s.materials.push(Material { texture: Some(0), alpha_cutoff, blend, ..Default::default() });
            let mut p = quad(k as f32, 1);
            p.uvs = Some(vec![[0.0; 2]; 4]);
            p.material = Some(k as MaterialId);
            let m = s.add_mesh(Mesh { name: None, primitives: vec![p] });
            s.add_node(None, Node { mesh: Some(m), ..Default::default() });
        }
        let plan = s.draw_plan(0);
        let items: Vec<Vec<NodeId>> = plan.merged.iter().map(|b| b.items.iter().map(|i| i.0).collect()).collect();
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
            tracks: vec![Track { target: Target::Translation(door), times: vec![0.0, 1.0, 2.0, 3.0, 4.0], values: vec![0., 0., 0., 2., 0., 0., 2., 0., 0., 0., 0., 0., 0., 0., 0.] }],
        });
        s.clips.push(Clip {
            name: "scroll".into(),
            duration: 1.0,
            repeat: Repeat::Extrapolate,
            tracks: vec![Track { target: Target::UvOffset(0), times: vec![0.0, 1.0], values: vec![0.1, 0.0, 0.35, 0.5] }],
        });
        assert_eq!(s.pose(0.5)[0].translation, [1.0, 0.0, 0.0]);
        assert_eq!(s.pose(1.5)[0].translation, [2.0, 0.0, 0.0]);
        assert_eq!(s.pose(6.5)[0].translation, [1.0, 0.0, 0.0], "loops every 4 s");
        let uv = s.uv_offsets(10.0);
        assert!((uv[0][0] - (0.1f32 + 2.5).rem_euclid(1.0)).abs() < 1e-5 && (uv[0][1] - 0.0).abs() < 1e-5, "{uv:?}");
        assert_eq!(s.animated_nodes(), vec![true]);
        // A moving node is drawn on its own instanced batch, not baked.
        let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 1)] });
        s.nodes[0].mesh = Some(m);
        assert_eq!(s.draw_plan(0).instanced.len(), 1);
    }

    #[test]
    fn the_rest_pose_is_where_playing_clips_start_and_the_nodes_own_transforms_elsewhere() {
        // A door whose clip starts it 3 units up, under a parent 10 along x.
        let mut s = Scene::default();
        let parent = s.add_node(None, Node { transform: Transform { translation: [10.0, 0.0, 0.0], ..Default::default() }, ..Default::default() });
        let door = s.add_node(Some(parent), Node { transform: Transform { translation: [0.0, 1.0, 0.0], ..Default::default() }, ..Default::default() });
        let at = |w: &[Mat4]| w[door as usize].transform_point3(Vec3::ZERO).to_array();
        assert_eq!(at(&s.rest_world()), [10.0, 1.0, 0.0], "no clip: the node's own transform");
        s.clips.push(Clip { name: "door".into(), duration: 1.0, repeat: Repeat::Loop, tracks: vec![Track { target: Target::Translation(door), times: vec![0.0, 1.0], values: vec![0., 3., 0., 0., 5., 0.] }] });
        assert_eq!(at(&s.rest_world()), [10.0, 3.0, 0.0], "a playing clip: where it is at time 0");
        assert_eq!(s.rest_world(), s.world(&s.pose(0.0)));
        s.stopped = vec![0];
        assert_eq!(at(&s.rest_world()), [10.0, 1.0, 0.0], "a stopped clip moves nothing");
        // The bounds follow the same rest pose.
        let m = s.add_mesh(Mesh { name: None, primitives: vec![quad(0.0, 1)] });
        s.nodes[door as usize].mesh = Some(m);
        assert_eq!(s.bounds(0), s.bounds_placed(0, &[], &s.world(&s.pose(0.0))));
    }

    #[test]
    fn rotation_tracks_slerp() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let t = Track { target: Target::Rotation(0), times: vec![0.0, 1.0], values: vec![0.0, 0.0, 0.0, 1.0, 0.0, half, 0.0, half] };
        let q = Quat::from_slice(&t.sample(0.5, Repeat::Loop));
        let (axis, angle) = q.to_axis_angle();
        assert!((angle - std::f32::consts::FRAC_PI_4).abs() < 1e-4 && (axis - Vec3::Y).length() < 1e-4);
    }
}
