//! What moved between two scenes: each primitive of A paired with B's primitive built from
//! the record A's was aligned to, vertex by vertex; and the difference view, a scene whose
//! vertices are coloured by how far they moved (docs/diff.md, "Geometry").

use super::placements::{PlacementStatus, PlacementStatuses};
use crate::placement::Placement;
use crate::scene::{
    Material, Mesh, MeshId, Node, NodeId, Primitive, RecordBytes, Scene, Target, Transform,
};
use glam::{Mat4, Vec3};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Geometry {
    pub triangles_a: usize,
    pub triangles_b: usize,
    /// Vertices of paired primitives (from records matched or changed, with as many
    /// vertices on both sides) whose positions differ.
    pub vertices_moved: usize,
    /// The farthest any of them moved, in model units.
    pub max_displacement: f32,
    /// Vertices of primitives with no partner, or a partner with another vertex count.
    pub vertices_unmatched: usize,
}

/// The difference view's colours (sRGB): geometry that did not move, what only A has, what
/// only B has, and the two ends of the scale of how far a vertex moved (the least above
/// nothing, the most of the file). A world's moved placement shows at both its places.
pub const UNCHANGED: [u8; 4] = [150, 150, 150, 255];
pub const ONLY_IN_A: [u8; 4] = [220, 60, 200, 255];
pub const ONLY_IN_B: [u8; 4] = [60, 200, 90, 255];
pub const MOVED_LEAST: [u8; 4] = [255, 225, 40, 255];
pub const MOVED_MOST: [u8; 4] = [255, 40, 20, 255];
pub const MOVED_FROM: [u8; 4] = [150, 100, 60, 255];

/// The layers of a difference view that hold B's geometry: what only B has, and where B put
/// the placements that moved.
pub const LAYER_ONLY_IN_B: &str = "only in B";
pub const LAYER_MOVED_IN_B: &str = "moved, in B";

/// A moved vertex's colour: `t` its move over the largest move (0 to 1).
pub fn moved_colour(t: f32) -> [u8; 4] {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let mix = |a: u8, b: u8| (a as f32 + (b as f32 - a as f32) * t).round() as u8;
    [
        mix(MOVED_LEAST[0], MOVED_MOST[0]),
        mix(MOVED_LEAST[1], MOVED_MOST[1]),
        mix(MOVED_LEAST[2], MOVED_MOST[2]),
        255,
    ]
}

/// A primitive: its mesh and its place in the mesh.
type PrimRef = (MeshId, usize);

/// Each primitive of A with its partner in B: B's primitive of the record A's own record
/// was matched or changed to, when both have as many vertices (the first such, once).
struct Pairing {
    partner: HashMap<PrimRef, PrimRef>,
    /// B's records whose primitives found a partner: the rest of B is unmatched.
    b_used: HashSet<RecordBytes>,
}

fn primitives(scene: &Scene) -> impl Iterator<Item = (PrimRef, &Primitive)> {
    scene.meshes.iter().enumerate().flat_map(|(m, mesh)| {
        mesh.primitives
            .iter()
            .enumerate()
            .map(move |(k, p)| ((m as MeshId, k), p))
    })
}

fn pair_primitives(a: &Scene, b: &Scene, pairs: &HashMap<RecordBytes, RecordBytes>) -> Pairing {
    let mut of_b: HashMap<RecordBytes, (PrimRef, &Primitive)> = HashMap::new();
    for (at, p) in primitives(b) {
        if let Some(r) = p.record {
            of_b.entry(r).or_insert((at, p));
        }
    }
    let mut out = Pairing {
        partner: HashMap::new(),
        b_used: HashSet::new(),
    };
    for (at, pa) in primitives(a) {
        let partner = pa
            .record
            .and_then(|r| pairs.get(&r))
            .and_then(|rb| of_b.get(rb).map(|x| (*rb, *x)));
        if let Some((rb, (bt, pb))) = partner {
            if pb.positions.len() == pa.positions.len() && out.b_used.insert(rb) {
                out.partner.insert(at, bt);
            }
        }
    }
    out
}

fn primitive(scene: &Scene, (m, k): PrimRef) -> &Primitive {
    &scene.meshes[m as usize].primitives[k]
}

fn distance(x: &[f32; 3], y: &[f32; 3]) -> f32 {
    Vec3::from(*x).distance(Vec3::from(*y))
}

/// Vertices moved between two scenes: each primitive of A paired with B's primitive of the
/// record its own record was aligned to, vertex by vertex when the counts agree.
pub(super) fn geometry(
    a: &Scene,
    b: &Scene,
    pairs: &HashMap<RecordBytes, RecordBytes>,
) -> Geometry {
    let pairing = pair_primitives(a, b, pairs);
    let mut g = Geometry {
        triangles_a: a.triangle_count(0),
        triangles_b: b.triangle_count(0),
        vertices_moved: 0,
        max_displacement: 0.0,
        vertices_unmatched: 0,
    };
    for (at, pa) in primitives(a) {
        match pairing.partner.get(&at) {
            Some(&bt) => {
                for (x, y) in pa.positions.iter().zip(&primitive(b, bt).positions) {
                    if x != y {
                        g.vertices_moved += 1;
                        g.max_displacement = g.max_displacement.max(distance(x, y));
                    }
                }
            }
            None => g.vertices_unmatched += pa.positions.len(),
        }
    }
    for (_, pb) in primitives(b) {
        if !pb.record.is_some_and(|r| pairing.b_used.contains(&r)) {
            g.vertices_unmatched += pb.positions.len();
        }
    }
    g
}

/// A's scene as the difference view starts it: its nodes, levels of detail, choice and
/// node clips, no meshes yet, one plain material (the vertex colours say everything).
fn plain_copy(a: &Scene) -> Scene {
    let mut clips = a.clips.clone();
    // Materials are replaced: what animated them has nothing to animate.
    for c in &mut clips {
        c.tracks
            .retain(|t| !matches!(t.target, Target::UvOffset(_) | Target::Glow(_)));
    }
    Scene {
        name: format!("{} (difference)", a.name),
        nodes: a.nodes.clone(),
        meshes: Vec::new(),
        materials: vec![Material::default()],
        textures: Vec::new(),
        clips,
        lods: a.lods.clone(),
        layers: a.layers.clone(),
        viewpoints: a.viewpoints.clone(),
        choice: a.choice.clone(),
        skeleton: a.skeleton.clone(),
        stopped: a.stopped.clone(),
        frame_time: a.frame_time,
        units: a.units.clone(),
        zones: a.zones.clone(),
        hidden: a.hidden.clone(),
        // The difference's meshes are its own: no skeleton's parts to merge.
        skins: Vec::new(),
        ff7: crate::scene::Ff7Scene {
            blinks: a.ff7.blinks.clone(),
            blinks_stopped: a.ff7.blinks_stopped,
            // The cameras without their pictures (the textures are not copied).
            cameras: a
                .ff7
                .cameras
                .iter()
                .map(|c| crate::scene::GameCamera {
                    backdrop: None,
                    behind: None,
                    cards: Vec::new(),
                    card_texels: None,
                    layers: Vec::new(),
                    ..c.clone()
                })
                .collect(),
        },
    }
}

/// A primitive's triangles in the plain material with one colour per vertex.
fn coloured(p: &Primitive, colors: Vec<[u8; 4]>) -> Primitive {
    Primitive {
        positions: p.positions.clone(),
        normals: p.normals.clone(),
        colors: Some(colors),
        lit_colors: None,
        uvs: None,
        indices: p.indices.clone(),
        material: Some(0),
        record: p.record,
        sources: p.sources.clone(),
    }
}

/// The level of detail node `n` shows in: its own or its nearest ancestor's.
fn lod_above(scene: &Scene, n: NodeId) -> Option<u32> {
    let mut at = Some(n);
    while let Some(i) = at {
        let node = scene.nodes.get(i as usize)?;
        if node.lod.is_some() {
            return node.lod;
        }
        at = node.parent.filter(|&p| p < i);
    }
    None
}

/// Whether B's default choice shows node `n` (a file of several models shows one).
fn shown_by_default(scene: &Scene, hidden: &[u32], n: NodeId) -> bool {
    let mut at = Some(n);
    while let Some(i) = at {
        let Some(node) = scene.nodes.get(i as usize) else {
            return false;
        };
        if node.layer.is_some_and(|l| hidden.contains(&l)) {
            return false;
        }
        at = node.parent.filter(|&p| p < i);
    }
    true
}

/// A node of `into` placed where `world` puts B's node, drawing `mesh`, on `layer`.
fn placed_copy(
    into: &mut Scene,
    parent: NodeId,
    world: Mat4,
    mesh: MeshId,
    lod: Option<u32>,
    record: Option<RecordBytes>,
) -> NodeId {
    let (scale, rotation, translation) = world.to_scale_rotation_translation();
    let transform = Transform {
        translation: translation.to_array(),
        rotation: rotation.to_array(),
        scale: scale.to_array(),
    };
    into.add_node(
        Some(parent),
        Node {
            name: None,
            transform,
            mesh: Some(mesh),
            lod,
            record,
            ..Default::default()
        },
    )
}

/// A difference view: its scene, and which of its layers hold B's geometry (the rest is
/// A's), so that a pick there names the records of the right file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Difference {
    pub scene: Scene,
    pub layers_from_b: Vec<u32>,
}

/// A root node on a layer of its own, for geometry brought from B.
fn b_layer_root(into: &mut Scene, layers_from_b: &mut Vec<u32>, name: &str) -> NodeId {
    let layer = into.layer(name);
    if !layers_from_b.contains(&layer) {
        layers_from_b.push(layer);
    }
    into.add_node(
        None,
        Node {
            name: Some(name.to_string()),
            layer: Some(layer),
            ..Default::default()
        },
    )
}

/// Two models' difference view: A's geometry with each vertex coloured by how far it moved
/// to B (grey where it did not), A's primitives without a partner in [`ONLY_IN_A`], and B's
/// without one, where B has them, in [`ONLY_IN_B`] on a layer of their own.
pub(super) fn model_difference(
    a: &Scene,
    b: &Scene,
    pairs: &HashMap<RecordBytes, RecordBytes>,
) -> Difference {
    let pairing = pair_primitives(a, b, pairs);
    let moves = |at: &PrimRef| -> Option<Vec<f32>> {
        let bt = pairing.partner.get(at)?;
        Some(
            primitive(a, *at)
                .positions
                .iter()
                .zip(&primitive(b, *bt).positions)
                .map(|(x, y)| if x == y { 0.0 } else { distance(x, y) })
                .collect(),
        )
    };
    let most = primitives(a)
        .filter_map(|(at, _)| moves(&at))
        .flatten()
        .fold(0.0f32, f32::max);
    let mut d = plain_copy(a);
    for (m, mesh) in a.meshes.iter().enumerate() {
        let primitives = mesh
            .primitives
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let colors = match moves(&(m as MeshId, k)) {
                    Some(ds) => ds
                        .iter()
                        .map(|&x| {
                            if x > 0.0 {
                                moved_colour(x / most)
                            } else {
                                UNCHANGED
                            }
                        })
                        .collect(),
                    None => vec![ONLY_IN_A; p.positions.len()],
                };
                coloured(p, colors)
            })
            .collect();
        d.add_mesh(Mesh {
            name: mesh.name.clone(),
            primitives,
        });
    }
    let layers_from_b = add_only_in_b(&mut d, b, &pairing.b_used);
    Difference {
        scene: d,
        layers_from_b,
    }
}

/// B's primitives without a partner (not in `b_used`), added to `d` baked where B draws
/// them, under a layer of their own. → the layers made for them.
fn add_only_in_b(d: &mut Scene, b: &Scene, b_used: &HashSet<RecordBytes>) -> Vec<u32> {
    let hidden = b
        .choice
        .as_ref()
        .map(|c| c.hidden_layers(c.default))
        .unwrap_or_default();
    let world = b.world(&b.pose(0.0));
    let (mut root, mut layers_from_b) = (None, Vec::new());
    for (n, node) in b.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        if !shown_by_default(b, &hidden, n as NodeId) {
            continue;
        }
        for p in &b.meshes[m as usize].primitives {
            if p.record.is_some_and(|r| b_used.contains(&r)) {
                continue;
            }
            let baked: Vec<[f32; 3]> = p
                .positions
                .iter()
                .map(|v| world[n].transform_point3(Vec3::from(*v)).to_array())
                .collect();
            let colors = vec![ONLY_IN_B; baked.len()];
            let mesh = d.add_mesh(Mesh {
                name: None,
                primitives: vec![Primitive {
                    positions: baked,
                    normals: None,
                    colors: Some(colors),
                    lit_colors: None,
                    uvs: None,
                    indices: p.indices.clone(),
                    material: Some(0),
                    record: p.record,
                    sources: p.sources.clone(),
                }],
            });
            let parent =
                *root.get_or_insert_with(|| b_layer_root(d, &mut layers_from_b, LAYER_ONLY_IN_B));
            placed_copy(
                d,
                parent,
                Mat4::IDENTITY,
                mesh,
                lod_above(b, n as NodeId),
                None,
            );
        }
    }
    layers_from_b
}

/// What became of each node's placement: a placement's own status, inherited by everything
/// under it (the models it draws), `Same` above any placement.
fn node_statuses(
    scene: &Scene,
    placements: &[Placement],
    statuses: &[PlacementStatus],
) -> Vec<PlacementStatus> {
    let own: HashMap<NodeId, PlacementStatus> = placements
        .iter()
        .zip(statuses)
        .filter_map(|(p, s)| Some((p.node?, *s)))
        .collect();
    let mut out = Vec::with_capacity(scene.nodes.len());
    for (i, n) in scene.nodes.iter().enumerate() {
        let inherited = n
            .parent
            .filter(|&p| (p as usize) < i)
            .map_or(PlacementStatus::Same, |p| out[p as usize]);
        out.push(own.get(&(i as NodeId)).copied().unwrap_or(inherited));
    }
    out
}

/// Two worlds' difference view, by placements: A's world with what stayed in grey, what
/// moved in [`MOVED_FROM`] where A had it and what only A places in [`ONLY_IN_A`]; B's moved
/// placements where B has them (scaled by [`MOVED_MOST`]) and what only B places in
/// [`ONLY_IN_B`], each on a layer of its own. Models stay instanced: one recoloured copy of a
/// mesh per colour it takes.
pub(super) fn placement_difference(
    a: &Scene,
    b: &Scene,
    placements: (&[Placement], &[Placement]),
    statuses: &PlacementStatuses,
) -> Difference {
    let mut d = plain_copy(a);
    let mut copies: HashMap<(bool, MeshId, [u8; 4]), MeshId> = HashMap::new();
    let mut recolour = |d: &mut Scene, from_b: bool, m: MeshId, colour: [u8; 4]| -> MeshId {
        *copies.entry((from_b, m, colour)).or_insert_with(|| {
            let source = if from_b {
                &b.meshes[m as usize]
            } else {
                &a.meshes[m as usize]
            };
            let primitives = source
                .primitives
                .iter()
                .map(|p| coloured(p, vec![colour; p.positions.len()]))
                .collect();
            d.add_mesh(Mesh {
                name: source.name.clone(),
                primitives,
            })
        })
    };
    let status_a = node_statuses(a, placements.0, &statuses.a);
    for (i, n) in a.nodes.iter().enumerate() {
        let Some(m) = n.mesh else { continue };
        let colour = match status_a[i] {
            PlacementStatus::Same | PlacementStatus::Added => UNCHANGED,
            PlacementStatus::Moved => MOVED_FROM,
            PlacementStatus::Removed => ONLY_IN_A,
        };
        d.nodes[i].mesh = Some(recolour(&mut d, false, m, colour));
    }
    let status_b = node_statuses(b, placements.1, &statuses.b);
    let world = b.world(&b.pose(0.0));
    let (mut roots, mut layers_from_b): (HashMap<&str, NodeId>, Vec<u32>) =
        (HashMap::new(), Vec::new());
    for (i, n) in b.nodes.iter().enumerate() {
        let Some(m) = n.mesh else { continue };
        let (layer, colour) = match status_b[i] {
            PlacementStatus::Moved => (LAYER_MOVED_IN_B, MOVED_MOST),
            PlacementStatus::Added => (LAYER_ONLY_IN_B, ONLY_IN_B),
            PlacementStatus::Same | PlacementStatus::Removed => continue,
        };
        let mesh = recolour(&mut d, true, m, colour);
        let parent = *roots
            .entry(layer)
            .or_insert_with(|| b_layer_root(&mut d, &mut layers_from_b, layer));
        placed_copy(
            &mut d,
            parent,
            world[i],
            mesh,
            lod_above(b, i as NodeId),
            b.record_of(i as NodeId),
        );
    }
    Difference {
        scene: d,
        layers_from_b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One triangle on a node, its primitive from record `record` (bytes `[record, record + 1)`).
    fn scene(positions: [[f32; 3]; 3], record: usize) -> Scene {
        let mut s = Scene::default();
        let mesh = s.add_mesh(Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: positions.to_vec(),
                indices: vec![0, 1, 2],
                record: Some([record, record + 1]),
                ..Default::default()
            }],
        });
        s.add_node(
            None,
            Node {
                mesh: Some(mesh),
                ..Default::default()
            },
        );
        s
    }

    #[test]
    fn a_moved_vertex_is_coloured_by_its_move_and_the_rest_stays_grey() {
        let a = scene([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 5);
        let b = scene([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 3.0, 0.0]], 7);
        let pairs = HashMap::from([([5, 6], [7, 8])]);
        let g = geometry(&a, &b, &pairs);
        assert_eq!(
            (g.vertices_moved, g.max_displacement, g.vertices_unmatched),
            (1, 2.0, 0)
        );
        let Difference {
            scene: d,
            layers_from_b,
        } = model_difference(&a, &b, &pairs);
        assert!(layers_from_b.is_empty());
        let colors = d.meshes[0].primitives[0].colors.clone().unwrap();
        assert_eq!(
            colors,
            vec![UNCHANGED, UNCHANGED, MOVED_MOST],
            "the farthest move takes the far end of the scale"
        );
        assert_eq!(d.meshes[0].primitives[0].material, Some(0));
        assert!(d.textures.is_empty() && d.materials.len() == 1);
        assert!(d.layers.is_empty(), "nothing only B has: no layer for it");
    }

    #[test]
    fn primitives_without_a_partner_take_the_colours_of_their_side() {
        let a = scene([[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 5);
        let mut b = scene([[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], 9);
        // B's node stands 10 units up: its copy in the view stands there too.
        b.nodes[0].transform.translation = [0.0, 10.0, 0.0];
        let Difference {
            scene: d,
            layers_from_b,
        } = model_difference(&a, &b, &HashMap::new());
        assert_eq!(
            d.meshes[0].primitives[0].colors.as_ref().unwrap()[0],
            ONLY_IN_A
        );
        assert_eq!(d.layers, vec![LAYER_ONLY_IN_B.to_string()]);
        assert_eq!(layers_from_b, [0], "its layer holds B's geometry");
        let only_b = &d.meshes[1].primitives[0];
        assert_eq!(only_b.colors.as_ref().unwrap()[2], ONLY_IN_B);
        assert_eq!(
            only_b.positions[2],
            [0.0, 11.0, 0.0],
            "baked where B draws it"
        );
        assert_eq!(
            only_b.record,
            Some([9, 10]),
            "a pick on it finds B's record"
        );
        assert_eq!(d.triangle_count(0), 2);
    }

    #[test]
    fn the_scale_runs_from_the_least_move_to_the_most() {
        assert_eq!(moved_colour(0.0), MOVED_LEAST);
        assert_eq!(moved_colour(1.0), MOVED_MOST);
        assert_eq!(moved_colour(f32::NAN), MOVED_MOST);
        let mid = moved_colour(0.5);
        assert!(mid[1] < MOVED_LEAST[1] && mid[1] > MOVED_MOST[1]);
    }
}
