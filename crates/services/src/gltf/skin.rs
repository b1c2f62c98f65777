//! Skeletons out as glTF skins (`Rig::Skin`): each of the scene's [`Skin`]s becomes one mesh
//! whose vertices are weighted 1.0 to their bone, a primitive per material, and a glTF skin
//! whose joints are the bone nodes. The parts were rigid meshes on the bones; weighted to
//! one bone each they move exactly as they did (docs/formats/bsx.md, "Rig").
//!
//! The mesh is in the space of the skin's root (the model's node) at the bind pose, the
//! bones as the scene places them at rest; each joint's inverse bind matrix undoes its bone's
//! place there. glTF ignores a skinned mesh node's own place, so its node is a root of every
//! glTF scene that shows the skeleton (a validator warns of one that is not).

use super::{bounds, Builder, Data, Materials};
use crate::scene::{ColourSet, NodeId, Primitive, Scene, Skin};
use glam::{Affine3A, Mat3, Mat4, Vec3};
use gltf_json as json;
use json::validation::Checked::Valid;
use json::Index;
use std::collections::BTreeMap;

/// A skin that goes out: the scene's skin, the part nodes whose meshes it merges, and once
/// written its mesh and inverse bind matrices.
pub(super) struct SkinOut {
    pub skin: usize,
    pub mesh: Option<Index<json::Mesh>>,
    pub inverse_binds: Option<Index<json::Accessor>>,
}

/// Which skins go out (those whose root some exported view shows) and, per scene node,
/// whether a skin takes its mesh (a part on one of its bones): such a node is no node of
/// the export, its triangles are the skin's.
pub(super) fn plan(scene: &Scene, visible: &[Vec<bool>]) -> (Vec<SkinOut>, Vec<bool>) {
    let mut absorbed = vec![false; scene.nodes.len()];
    let mut out = Vec::new();
    for (k, skin) in scene.skins.iter().enumerate() {
        let shown = |n: NodeId| {
            visible
                .iter()
                .any(|v| v.get(n as usize).copied().unwrap_or(false))
        };
        if !shown(skin.root) {
            continue;
        }
        let joints: Vec<bool> = joint_mask(scene, &skin.joints);
        for (i, n) in scene.nodes.iter().enumerate() {
            if n.mesh.is_some()
                && n.parent
                    .is_some_and(|p| joints.get(p as usize).copied().unwrap_or(false))
                && shown(i as NodeId)
            {
                absorbed[i] = true;
            }
        }
        out.push(SkinOut {
            skin: k,
            mesh: None,
            inverse_binds: None,
        });
    }
    (out, absorbed)
}

fn joint_mask(scene: &Scene, joints: &[NodeId]) -> Vec<bool> {
    let mut mask = vec![false; scene.nodes.len()];
    for &j in joints {
        if let Some(m) = mask.get_mut(j as usize) {
            *m = true;
        }
    }
    mask
}

/// Each joint's place in the skin root's space at rest: its transform times its parent's,
/// up to the root.
fn binds(scene: &Scene, root: NodeId, joints: &[NodeId]) -> BTreeMap<NodeId, Mat4> {
    let mut placed: BTreeMap<NodeId, Mat4> = BTreeMap::new();
    for &j in joints {
        let Some(node) = scene.nodes.get(j as usize) else {
            continue;
        };
        let above = match node.parent {
            Some(p) if p == root => Mat4::IDENTITY,
            Some(p) => match placed.get(&p) {
                Some(m) => *m,
                // A parent that is neither the root nor an earlier joint: from the root, up.
                None => up_to(scene, p, root),
            },
            None => Mat4::IDENTITY,
        };
        placed.insert(j, above * node.transform.matrix());
    }
    placed
}

/// Node `n`'s place in `root`'s space, through the nodes between them.
fn up_to(scene: &Scene, mut n: NodeId, root: NodeId) -> Mat4 {
    let mut m = Mat4::IDENTITY;
    let mut steps = 0;
    while n != root && steps < scene.nodes.len() {
        let Some(node) = scene.nodes.get(n as usize) else {
            break;
        };
        m = node.transform.matrix() * m;
        let Some(p) = node.parent else { break };
        n = p;
        steps += 1;
    }
    m
}

/// A merged primitive under way: the parts' primitives of one material, moved into the
/// root's space, each vertex carrying its joint.
#[derive(Default)]
struct Merged<'s> {
    first: Option<&'s Primitive>,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    colours: Vec<[u8; 4]>,
    uvs: Vec<[f32; 2]>,
    joints: Vec<u16>,
    indices: Vec<u32>,
}

/// Each skin's mesh (a primitive per material and set of attributes) and inverse bind
/// matrices, written into `b`.
pub(super) fn add_skin_meshes<'a>(
    b: &mut Builder<'a>,
    scene: &'a Scene,
    skins: &mut [SkinOut],
    absorbed: &[bool],
    colours: ColourSet,
    materials: &mut Materials,
) -> std::io::Result<()> {
    for out in skins.iter_mut() {
        let skin = &scene.skins[out.skin];
        let placed = binds(scene, skin.root, &skin.joints);
        let groups = merged_parts(scene, skin, &placed, absorbed, colours);
        let mut primitives = Vec::new();
        for g in groups.into_values() {
            if let Some(first) = g.first {
                let attributes = g.attributes(b, skin.joints.len());
                let indices = index_accessor(b, &g.indices, g.positions.len());
                // The material as the first part drew it: every part of the group shares it
                // and its attributes, so its shading is theirs.
                let material = materials.of(b, first)?;
                primitives.push(json::mesh::Primitive {
                    attributes,
                    extensions: None,
                    extras: Default::default(),
                    indices: Some(indices),
                    material,
                    mode: Valid(json::mesh::Mode::Triangles),
                    targets: None,
                });
            }
        }
        if primitives.is_empty() {
            continue;
        }
        out.mesh = Some(b.root.push(json::Mesh {
            extensions: None,
            extras: Default::default(),
            name: Some(skin.name.clone()),
            primitives,
            weights: None,
        }));
        out.inverse_binds = Some(inverse_binds(b, &skin.joints, &placed));
    }
    Ok(())
}

/// The parts of `skin` (its bones' meshes that the plan `absorbed`) merged into one set of
/// arrays per material and set of attributes, keyed by them (merged ones must agree), each
/// vertex in the root's space with its joint.
fn merged_parts<'a>(
    scene: &'a Scene,
    skin: &Skin,
    placed: &BTreeMap<NodeId, Mat4>,
    absorbed: &[bool],
    colours: ColourSet,
) -> BTreeMap<(Option<u32>, bool, bool, bool), Merged<'a>> {
    let slot: BTreeMap<NodeId, u16> = skin
        .joints
        .iter()
        .enumerate()
        .map(|(k, &j)| (j, k as u16))
        .collect();
    let mut groups: BTreeMap<(Option<u32>, bool, bool, bool), Merged<'a>> = BTreeMap::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        let (Some(mesh), Some(parent)) = (n.mesh, n.parent) else {
            continue;
        };
        let (Some(&joint), Some(bone)) = (slot.get(&parent), placed.get(&parent)) else {
            continue;
        };
        if !absorbed[i] {
            continue;
        }
        let Some(mesh) = scene.meshes.get(mesh as usize) else {
            continue;
        };
        let m = *bone * n.transform.matrix();
        for p in mesh.primitives.iter().filter(|p| !p.indices.is_empty()) {
            let count = p.positions.len();
            let normals = p.normals.as_ref().filter(|v| v.len() == count);
            let cols = p.colours(colours).filter(|v| v.len() == count);
            let uvs = p.uvs.as_ref().filter(|v| v.len() == count);
            groups
                .entry((p.material, normals.is_some(), cols.is_some(), uvs.is_some()))
                .or_default()
                .add(p, m, joint, (normals, cols, uvs));
        }
    }
    groups
}

/// The arrays a part brings beside its positions, where it has them for every vertex.
type PartArrays<'a> = (
    Option<&'a Vec<[f32; 3]>>,
    Option<&'a [[u8; 4]]>,
    Option<&'a Vec<[f32; 2]>>,
);

impl<'s> Merged<'s> {
    /// Part `p`, placed by `m` in the root's space, on `joint`.
    fn add(&mut self, p: &'s Primitive, m: Mat4, joint: u16, (normals, cols, uvs): PartArrays) {
        let turn = Mat3::from_mat4(m).inverse().transpose();
        self.first.get_or_insert(p);
        let base = self.positions.len() as u32;
        self.positions.extend(p.positions.iter().map(|v| {
            if v.iter().all(|x| x.is_finite()) {
                m.transform_point3(Vec3::from(*v)).to_array()
            } else {
                [0.0; 3]
            }
        }));
        if let Some(normals) = normals {
            self.normals.extend(normals.iter().map(|v| {
                (turn * Vec3::from(*v))
                    .try_normalize()
                    .unwrap_or(Vec3::Z)
                    .to_array()
            }));
        }
        if let Some(cols) = cols {
            self.colours.extend_from_slice(cols);
        }
        if let Some(uvs) = uvs {
            self.uvs.extend_from_slice(uvs);
        }
        self.joints
            .extend(std::iter::repeat_n(joint, p.positions.len()));
        self.indices.extend(p.indices.iter().map(|&x| base + x));
    }

    /// The merged arrays as the primitive's attributes, with each vertex's joint (of a skin of
    /// `joint_count`) and its whole weight.
    fn attributes(
        &self,
        b: &mut Builder,
        joint_count: usize,
    ) -> BTreeMap<json::validation::Checked<json::mesh::Semantic>, Index<json::Accessor>> {
        use json::buffer::Target as T;
        let n = self.positions.len();
        let mut attributes = BTreeMap::new();
        let finite = bounds(self.positions.iter().copied());
        attributes.insert(
            Valid(json::mesh::Semantic::Positions),
            b.floats(
                super::float_bytes(&self.positions),
                n,
                Some(T::ArrayBuffer),
                Some(finite),
            ),
        );
        if !self.normals.is_empty() {
            attributes.insert(
                Valid(json::mesh::Semantic::Normals),
                b.floats::<3>(
                    super::float_bytes(&self.normals),
                    n,
                    Some(T::ArrayBuffer),
                    None,
                ),
            );
        }
        if !self.colours.is_empty() {
            let linear: Vec<[f32; 4]> = self.colours.iter().map(super::linear_colour).collect();
            attributes.insert(
                Valid(json::mesh::Semantic::Colors(0)),
                b.floats::<4>(super::float_bytes(&linear), n, Some(T::ArrayBuffer), None),
            );
        }
        if !self.uvs.is_empty() {
            let finite: Vec<[f32; 2]> = self
                .uvs
                .iter()
                .map(|v| {
                    if v.iter().all(|x| x.is_finite()) {
                        *v
                    } else {
                        [0.0; 2]
                    }
                })
                .collect();
            attributes.insert(
                Valid(json::mesh::Semantic::TexCoords(0)),
                b.floats::<2>(super::float_bytes(&finite), n, Some(T::ArrayBuffer), None),
            );
        }
        self.add_joints(b, joint_count, &mut attributes);
        attributes
    }

    /// JOINTS_0 (a joint index per vertex, the first of four; the others weigh nothing) and
    /// WEIGHTS_0 (all of each vertex on its one joint).
    fn add_joints(
        &self,
        b: &mut Builder,
        joint_count: usize,
        attributes: &mut BTreeMap<
            json::validation::Checked<json::mesh::Semantic>,
            Index<json::Accessor>,
        >,
    ) {
        use json::buffer::Target as T;
        let n = self.positions.len();
        let (joints, component) = if joint_count <= 256 {
            (
                Data::Bytes(
                    self.joints
                        .iter()
                        .flat_map(|&j| [j as u8, 0, 0, 0])
                        .collect(),
                ),
                json::accessor::ComponentType::U8,
            )
        } else {
            (
                Data::Bytes(
                    self.joints
                        .iter()
                        .flat_map(|&j| [j.to_le_bytes(), [0, 0], [0, 0], [0, 0]].concat())
                        .collect(),
                ),
                json::accessor::ComponentType::U16,
            )
        };
        attributes.insert(
            Valid(json::mesh::Semantic::Joints(0)),
            b.accessor(
                joints,
                n,
                component,
                json::accessor::Type::Vec4,
                Some(T::ArrayBuffer),
                None,
            ),
        );
        // 255 of 255, a normalised byte.
        let weights = Data::Bytes([255u8, 0, 0, 0].repeat(n));
        attributes.insert(
            Valid(json::mesh::Semantic::Weights(0)),
            b.normalised(
                weights,
                n,
                json::accessor::ComponentType::U8,
                json::accessor::Type::Vec4,
                Some(T::ArrayBuffer),
            ),
        );
    }
}

/// The triangles' indices into `vertices` vertices, as 16 bits where they fit.
fn index_accessor(b: &mut Builder, indices: &[u32], vertices: usize) -> Index<json::Accessor> {
    let (bytes, component) = if vertices <= u16::MAX as usize {
        (
            Data::Bytes(
                indices
                    .iter()
                    .flat_map(|&i| (i as u16).to_le_bytes())
                    .collect(),
            ),
            json::accessor::ComponentType::U16,
        )
    } else {
        (
            Data::Bytes(indices.iter().flat_map(|&i| i.to_le_bytes()).collect()),
            json::accessor::ComponentType::U32,
        )
    };
    b.accessor(
        bytes,
        indices.len(),
        component,
        json::accessor::Type::Scalar,
        Some(json::buffer::Target::ElementArrayBuffer),
        None,
    )
}

/// The inverse bind matrix of each of `joints` (placed in the root's space by `placed`),
/// inverted as affine maps: glTF asks for a last row of exactly (0, 0, 0, 1).
fn inverse_binds(
    b: &mut Builder,
    joints: &[NodeId],
    placed: &BTreeMap<NodeId, Mat4>,
) -> Index<json::Accessor> {
    let inverse: Vec<[f32; 16]> = joints
        .iter()
        .map(|j| {
            placed
                .get(j)
                .map_or(Mat4::IDENTITY, |m| {
                    Mat4::from(Affine3A::from_mat4(*m).inverse())
                })
                .to_cols_array()
        })
        .collect();
    b.accessor(
        Data::Bytes(
            inverse
                .iter()
                .flatten()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        ),
        inverse.len(),
        json::accessor::ComponentType::F32,
        json::accessor::Type::Mat4,
        None,
        None,
    )
}

/// In one glTF scene (`index`: the glTF node of each scene node it shows), each skin whose
/// bones it shows: the glTF skin and its mesh's node, which joins the scene's roots.
pub(super) fn place_skins(
    b: &mut Builder,
    scene: &Scene,
    skins: &[SkinOut],
    index: &[Option<Index<json::Node>>],
    roots: &mut Vec<Index<json::Node>>,
) {
    for out in skins {
        let (Some(mesh), skin) = (out.mesh, &scene.skins[out.skin]) else {
            continue;
        };
        let Some(joints) = skin
            .joints
            .iter()
            .map(|&j| index.get(j as usize).copied().flatten())
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let made = b.root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: out.inverse_binds,
            joints,
            name: Some(skin.name.clone()),
            skeleton: None,
        });
        roots.push(b.root.push(json::Node {
            name: Some(format!("{} mesh", skin.name)),
            mesh: Some(mesh),
            skin: Some(made),
            ..Default::default()
        }));
    }
}
