//! A field as a scene (docs/formats/field-dat.md, "The field scene"): the walkmesh filled
//! and outlined, the triangles the init pass locked marked, each gateway as its exit line
//! with an arrow pointing out of the field, and the field's models (its .BSX's scene) each
//! where the init pass put it, facing its way, playing its idle animation; the models the
//! engine hides on a layer hidden when the scene opens. In the field's units, turned so that
//! its z (up) is the viewer's y.

use super::entrances::Entrance;
use super::init::{self, Entity, InitPass};
use super::raw::{DatFile, Gateway, LoaderRecord, Walkmesh, TRIANGLE};
use crate::scene::{
    Choice, ChoiceOption, Clip, Material, MaterialId, Mesh, Node, NodeId, Primitive, RecordBytes,
    Scene, SourceRun, Surface, Target, Track, Transform,
};

/// The layer of the models the engine hides (party members other than the leader, and
/// those the init hides).
pub const HIDDEN: &str = "hidden by the game";
/// The engine draws a model's root this far below its entity.
const ROOT_BELOW: f32 = 10.0;

/// The layers a field scene's parts are on, so each can be hidden.
pub const LAYERS: [&str; 3] = ["walkmesh", "walkmesh outline", "gateways"];

const FLOOR: [f32; 4] = [0.55, 0.62, 0.72, 1.0];
const LOCKED: [f32; 4] = [0.85, 0.3, 0.25, 1.0];
const OUTLINE: [f32; 4] = [0.12, 0.14, 0.18, 1.0];
const GATEWAY: [f32; 4] = [0.2, 0.85, 0.35, 1.0];
/// How far above the floor the lines are drawn, so they do not fight it for depth.
const LIFT: f32 = 2.0;

/// The scene of a field; `models` the scene of its .BSX, whose model `k` is slot `k`;
/// `names[a]` actor `a`'s name; `entrances` the ways in the party leader may come by.
pub fn build(
    name: &str,
    d: &DatFile,
    pass: Option<&InitPass>,
    names: &[String],
    models: Option<Scene>,
    entrances: &[Entrance],
) -> Option<Scene> {
    let w = d.walkmesh.as_ref().ok()?;
    let placed = models.is_some();
    let mut scene = models.unwrap_or_default();
    // Its records are the .BSX's bytes, not this file's: a model stands for its slot.
    scene.forget_records();
    scene.name = format!("{name} field");
    // The models' scene has a root holding each model: it becomes the field's.
    if scene.nodes.is_empty() {
        scene.add_node(None, Node::default());
    }
    let layers: Vec<u32> = LAYERS.iter().map(|l| scene.layer(l)).collect();
    let material = |scene: &mut Scene, name: &str, colour: [f32; 4], surface: Surface| {
        scene.materials.push(Material {
            name: Some(name.into()),
            base_color: colour,
            double_sided: true,
            surface,
            ..Default::default()
        });
        Some(scene.materials.len() as u32 - 1)
    };
    let floor = material(&mut scene, "walkmesh", [1.0; 4], Surface::Filled);
    let outline = material(&mut scene, "walkmesh outline", OUTLINE, Surface::Lines);
    let gateway = material(&mut scene, "gateways", GATEWAY, Surface::Lines);
    let locked: Vec<u16> = pass.map_or(Vec::new(), |p| p.locked_triangles.clone());
    let turn = Transform {
        // The field's z is up: a quarter turn about x makes it the viewer's y.
        rotation: glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2).to_array(),
        ..Default::default()
    };
    let root = scene.roots().next().unwrap_or(0);
    scene.nodes[root as usize].name = Some(name.into());
    scene.nodes[root as usize].transform = turn;
    if placed {
        // A pick on a model goes to its slot's record.
        let slots: Vec<RecordBytes> = d
            .loader
            .as_ref()
            .map_or(Vec::new(), |l| l.iter().map(LoaderRecord::bytes).collect());
        place_models(&mut scene, root, w, pass, &slots, names, entrances);
    }
    add_walkmesh(
        &mut scene,
        root,
        &layers,
        [
            floor_primitive(w, &locked, floor),
            outline_primitive(w, outline),
        ],
    );
    if let Ok(t) = &d.triggers {
        add_gateways(
            &mut scene,
            root,
            layers[2],
            &t.gateways,
            centre_of(w),
            gateway,
        );
    }
    Some(scene)
}

/// The walkmesh's floor and outline (`parts`), each a node under `root` on its layer.
fn add_walkmesh(scene: &mut Scene, root: NodeId, layers: &[u32], parts: [Primitive; 2]) {
    for (k, prim) in parts.into_iter().enumerate() {
        let mesh = scene.add_mesh(Mesh {
            name: Some(LAYERS[k].into()),
            primitives: vec![prim],
        });
        scene.add_node(
            Some(root),
            Node {
                name: Some(LAYERS[k].into()),
                mesh: Some(mesh),
                layer: Some(layers[k]),
                ..Default::default()
            },
        );
    }
}

/// Each gateway a node of its own under a "gateways" node on `layer`, named by where it
/// leads (an export lists them), an arrow pointing out from the walkmesh's `centre`.
fn add_gateways(
    scene: &mut Scene,
    root: NodeId,
    layer: u32,
    gateways: &[Gateway],
    centre: [f32; 2],
    gateway: Option<MaterialId>,
) {
    let group = (!gateways.is_empty()).then(|| {
        scene.add_node(
            Some(root),
            Node {
                name: Some("gateways".into()),
                layer: Some(layer),
                ..Default::default()
            },
        )
    });
    for (g, parent) in gateways.iter().zip(std::iter::repeat(group).flatten()) {
        let mut prim = Primitive {
            material: gateway,
            ..Default::default()
        };
        line_with_arrow(&mut prim, g.line.map(|p| p.map(|c| c as f32)), centre);
        let name = format!("gateway to map {}", g.map);
        let mesh = scene.add_mesh(Mesh {
            name: Some(name.clone()),
            primitives: vec![prim],
        });
        scene.add_node(
            Some(parent),
            Node {
                name: Some(name),
                mesh: Some(mesh),
                layer: Some(layer),
                ..Default::default()
            },
        );
    }
}

fn vertex(v: [i16; 3]) -> [f32; 3] {
    v.map(|c| c as f32)
}

/// The floor: each triangle its own three vertices (so a locked one takes its own colour),
/// each picking its record.
fn floor_primitive(w: &Walkmesh, locked: &[u16], material: Option<u32>) -> Primitive {
    let mut prim = Primitive {
        material,
        colors: Some(Vec::new()),
        ..Default::default()
    };
    for (t, tri) in w.triangles.iter().enumerate() {
        let first = prim.positions.len() as u32;
        prim.positions.extend(tri.map(vertex));
        let colour = if locked.contains(&(t as u16)) {
            LOCKED
        } else {
            FLOOR
        };
        let rgba = colour.map(|c| (c * 255.0) as u8);
        prim.colors
            .as_mut()
            .expect("made with colours")
            .extend([rgba; 3]);
        prim.indices.extend([first, first + 1, first + 2]);
        prim.sources.push(SourceRun {
            first: t as u32,
            record: w.triangle_bytes(t),
            start: w.triangle_at(t),
            face_len: TRIANGLE as u32,
            tris_per_face: 1,
        });
    }
    prim
}

/// The triangles' edges, lifted a little above the floor.
fn outline_primitive(w: &Walkmesh, material: Option<u32>) -> Primitive {
    let mut prim = Primitive {
        material,
        ..Default::default()
    };
    for tri in &w.triangles {
        let first = prim.positions.len() as u32;
        prim.positions.extend(tri.map(|v| {
            let mut p = vertex(v);
            p[2] += LIFT;
            p
        }));
        prim.indices.extend([first, first + 1, first + 2]);
    }
    prim
}

/// The walkmesh's middle in x and y.
fn centre_of(w: &Walkmesh) -> [f32; 2] {
    let n = (w.triangles.len() * 3).max(1) as f32;
    let sum = w
        .triangles
        .iter()
        .flatten()
        .fold([0.0f32; 2], |s, v| [s[0] + v[0] as f32, s[1] + v[1] as f32]);
    [sum[0] / n, sum[1] / n]
}

/// A line (drawn as a flat triangle's edges) and at its middle an arrow pointing away from
/// `centre`: out of the field.
fn line_with_arrow(prim: &mut Primitive, line: [[f32; 3]; 2], centre: [f32; 2]) {
    let [a, b] = line.map(|mut p| {
        p[2] += LIFT;
        p
    });
    let first = prim.positions.len() as u32;
    prim.positions.extend([a, b, b]);
    prim.indices.extend([first, first + 1, first + 2]);
    let mid = [
        (a[0] + b[0]) / 2.0,
        (a[1] + b[1]) / 2.0,
        (a[2] + b[2]) / 2.0,
    ];
    let along = glam::Vec2::new(b[0] - a[0], b[1] - a[1]);
    let length = along.length();
    if length < 1.0 {
        return;
    }
    let mut out = glam::Vec2::new(-along.y, along.x) / length;
    if out.dot(glam::Vec2::new(mid[0] - centre[0], mid[1] - centre[1])) < 0.0 {
        out = -out;
    }
    let size = (length * 0.25).clamp(10.0, 120.0);
    let side = along / length * size * 0.5;
    let tip = [mid[0] + out.x * size, mid[1] + out.y * size, mid[2]];
    let left = [mid[0] - side.x, mid[1] - side.y, mid[2]];
    let right = [mid[0] + side.x, mid[1] + side.y, mid[2]];
    let first = prim.positions.len() as u32;
    prim.positions.extend([left, tip, right]);
    prim.indices.extend([first, first + 1, first + 2]);
}

/// Each model of the .BSX's scene (its node `model k`, under `root`) put where the init pass
/// left the actor bound to slot `k`: at its position (the root 10 units below), turned by
/// its direction (model X to (cos θ, sin θ, 0), Y to −z, Z to (−sin θ, cos θ, 0)), at its
/// own scale, playing its idle animation; the hidden ones on the hidden layer. The party
/// leader (unless the init locked the controls) stands at the first of `entrances`, and the
/// scene's choice puts it at any other (a copy of it at each, one shown at a time); a model
/// no actor places, with no entrance, stands at the middle of the walkmesh's first triangle.
fn place_models(
    scene: &mut Scene,
    root: u32,
    w: &Walkmesh,
    pass: Option<&InitPass>,
    slots: &[RecordBytes],
    names: &[String],
    entrances: &[Entrance],
) {
    let hidden = scene.layer(HIDDEN);
    let nobody = Entity::default();
    let mut playing: Vec<u32> = scene.ff7.blinks.clone();
    let controls_locked = pass.is_some_and(|p| p.control_locked);
    // The leader's node and its idle clip, once placed at the first entrance.
    let mut leader: Option<(u32, Option<u32>)> = None;
    let children: Vec<u32> = (0..scene.nodes.len() as u32)
        .filter(|&n| scene.nodes[n as usize].parent == Some(root))
        .collect();
    for node in children {
        let Some(k) = scene.nodes[node as usize]
            .name
            .as_deref()
            .and_then(|n| n.strip_prefix("model "))
            .and_then(|k| k.parse::<usize>().ok())
        else {
            continue;
        };
        let actor = pass.and_then(|p| p.entities.iter().position(|e| e.model == Some(k)));
        let e = actor.and_then(|a| pass?.entities.get(a)).unwrap_or(&nobody);
        name_by_actor(scene, node, k, actor.and_then(|a| names.get(a)));
        point_at_slot(scene, node, slots.get(k).copied());
        let entrance = entrances
            .first()
            .filter(|_| e.character == Some(init::LEADER) && !controls_locked);
        let at = match (entrance, e.position) {
            (Some(way), _) => way.position.map(|c| c as f32),
            (None, Some(p)) => p.map(|c| c as f32),
            (None, None) => w.triangles.first().map_or([0.0; 3], |t| {
                let c = |i: usize| (t[0][i] as f32 + t[1][i] as f32 + t[2][i] as f32) / 3.0;
                [c(0), c(1), c(2)]
            }),
        };
        let direction = entrance.map_or(e.direction, |way| way.direction);
        let n = &mut scene.nodes[node as usize];
        n.transform = standing(n.transform, at, direction);
        if !e.visible {
            n.layer = Some(hidden);
        }
        let idle = idle_clip(scene, k, e.animation);
        playing.extend(idle);
        // (A leader the init hides is not offered at its entrances.)
        if entrance.is_some() && e.visible {
            leader = Some((node, idle));
        }
    }
    scene.choice = None;
    scene.choice = leader.map(|(node, idle)| entrance_choice(scene, node, idle, entrances));
    scene.stopped = (0..scene.clips.len() as u32)
        .filter(|c| !playing.contains(c))
        .collect();
    scene.hidden = vec![hidden];
}

/// Model `k`'s node named by its actor (its layer, "model k" in the .BSX's view, too).
fn name_by_actor(scene: &mut Scene, node: u32, k: usize, actor: Option<&String>) {
    let Some(name) = actor else { return };
    let named = format!("{name} (model {k})");
    if let Some(l) = scene.nodes[node as usize].layer {
        scene.layers[l as usize] = named.clone();
    }
    scene.nodes[node as usize].name = Some(named);
}

/// A pick on a model goes to its slot's record (the .BSX's own records, forgotten, are the
/// .BSX's, not this file's).
fn point_at_slot(scene: &mut Scene, node: u32, slot: Option<RecordBytes>) {
    scene.nodes[node as usize].record = slot;
    for m in meshes_under(scene, node) {
        for prim in &mut scene.meshes[m as usize].primitives {
            prim.record = slot;
            prim.sources.clear();
        }
    }
}

/// Model `k`'s idle animation: the init's DFANM, else 0 (a player's stand), as the engine
/// falls back to 0 for an animation the model does not have.
fn idle_clip(scene: &Scene, k: usize, animation: u8) -> Option<u32> {
    let clip_of = |a: u8| {
        scene
            .clips
            .iter()
            .position(|c| c.name == format!("model {k} animation {a}"))
    };
    clip_of(animation).or_else(|| clip_of(0)).map(|c| c as u32)
}

/// The choice of entrance: the leader `node` at the first, a copy of it at each other.
fn entrance_choice(
    scene: &mut Scene,
    node: u32,
    idle: Option<u32>,
    entrances: &[Entrance],
) -> Choice {
    let copies = copies_at_entrances(scene, node, idle, &entrances[1..]);
    let layer_of = |scene: &mut Scene, n: u32| match scene.nodes[n as usize].layer {
        Some(l) => l,
        None => {
            let l = scene.layer(&format!(
                "{} {}",
                scene.nodes[n as usize].name.clone().unwrap_or_default(),
                entrances[0].label()
            ));
            scene.nodes[n as usize].layer = Some(l);
            l
        }
    };
    let mut options = vec![ChoiceOption {
        label: entrances[0].label(),
        layers: vec![layer_of(scene, node)],
        clip: idle,
    }];
    for ((copy, clip), way) in copies.into_iter().zip(&entrances[1..]) {
        options.push(ChoiceOption {
            label: way.label(),
            layers: vec![layer_of(scene, copy)],
            clip,
        });
    }
    Choice {
        name: "entrance".into(),
        options,
        default: 0,
    }
}

/// `t` moved to stand at `at` (the root 10 units below it) facing `direction` (256 steps a
/// turn: model X to (cos θ, sin θ, 0), Y to −z, Z to (−sin θ, cos θ, 0)).
fn standing(t: Transform, at: [f32; 3], direction: u8) -> Transform {
    let theta = direction as f32 / 256.0 * std::f32::consts::TAU;
    let (sin, cos) = theta.sin_cos();
    let facing = glam::Mat3::from_cols(
        glam::Vec3::new(cos, sin, 0.0),
        glam::Vec3::new(0.0, 0.0, -1.0),
        glam::Vec3::new(-sin, cos, 0.0),
    );
    Transform {
        translation: [at[0], at[1], at[2] - ROOT_BELOW],
        rotation: glam::Quat::from_mat3(&facing).to_array(),
        ..t
    }
}

/// A copy of the model under `node` (its nodes, sharing its meshes) standing at each of
/// `entrances`, each on a layer of its own named by its entrance, with a copy of its idle
/// clip `idle` moving the copy's nodes: (the copy's node, its clip), in order.
fn copies_at_entrances(
    scene: &mut Scene,
    node: u32,
    idle: Option<u32>,
    entrances: &[Entrance],
) -> Vec<(u32, Option<u32>)> {
    let inside = subtree(scene, node);
    let name = scene.nodes[node as usize].name.clone().unwrap_or_default();
    let mut out = Vec::with_capacity(entrances.len());
    for way in entrances {
        // Old node → its copy: parents come before their children, so a copy's parent is
        // copied before it.
        let mut copy_of: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for &old in &inside {
            let mut n = scene.nodes[old as usize].clone();
            n.parent = n.parent.map(|p| copy_of.get(&p).copied().unwrap_or(p));
            if old == node {
                n.transform = standing(n.transform, way.position.map(|c| c as f32), way.direction);
                n.layer = Some(scene.layer(&format!("{name} {}", way.label())));
            }
            let new = scene.add_node(n.parent, n);
            copy_of.insert(old, new);
        }
        let clip = idle
            .and_then(|c| scene.clips.get(c as usize).cloned())
            .map(|c| {
                let retarget = |t: Target| match t {
                    Target::Translation(n) => {
                        Target::Translation(copy_of.get(&n).copied().unwrap_or(n))
                    }
                    Target::Rotation(n) => Target::Rotation(copy_of.get(&n).copied().unwrap_or(n)),
                    Target::Scale(n) => Target::Scale(copy_of.get(&n).copied().unwrap_or(n)),
                    Target::Visibility(n) => {
                        Target::Visibility(copy_of.get(&n).copied().unwrap_or(n))
                    }
                    other => other,
                };
                scene.clips.push(Clip {
                    name: format!("{} ({})", c.name, way.label()),
                    tracks: c
                        .tracks
                        .into_iter()
                        .map(|t| Track {
                            target: retarget(t.target),
                            ..t
                        })
                        .collect(),
                    ..c
                });
                scene.clips.len() as u32 - 1
            });
        out.push((copy_of[&node], clip));
    }
    out
}

/// `node` and every node under it, parents first.
fn subtree(scene: &Scene, node: u32) -> Vec<u32> {
    let mut inside = vec![false; scene.nodes.len()];
    inside[node as usize] = true;
    let mut out = vec![node];
    for (i, n) in scene.nodes.iter().enumerate().skip(node as usize + 1) {
        if n.parent.is_some_and(|p| inside[p as usize]) {
            inside[i] = true;
            out.push(i as u32);
        }
    }
    out
}

/// The meshes of `node` and every node under it.
fn meshes_under(scene: &Scene, node: u32) -> Vec<u32> {
    let mut inside = vec![false; scene.nodes.len()];
    inside[node as usize] = true;
    let mut out = Vec::new();
    // Parents come before their children.
    for (i, n) in scene.nodes.iter().enumerate() {
        if i != node as usize && n.parent.is_some_and(|p| inside[p as usize]) {
            inside[i] = true;
        }
        if inside[i] {
            out.extend(n.mesh);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ff7::field::entrances::Via;
    use crate::scene::Repeat;

    /// A scene of one model ("model 0", a bone under it, its idle clip turning the bone).
    fn one_model() -> (Scene, u32, u32) {
        let mut scene = Scene::default();
        let root = scene.add_node(None, Node::default());
        let layer = scene.layer("model 0");
        let model = scene.add_node(
            Some(root),
            Node {
                name: Some("model 0".into()),
                layer: Some(layer),
                ..Default::default()
            },
        );
        let bone = scene.add_node(
            Some(model),
            Node {
                name: Some("bone".into()),
                ..Default::default()
            },
        );
        scene.clips.push(Clip {
            name: "model 0 animation 0".into(),
            duration: 1.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Rotation(bone),
                times: vec![0.0],
                values: vec![0.0, 0.0, 0.0, 1.0],
            }],
        });
        (scene, root, bone)
    }

    #[test]
    fn the_leader_stands_at_each_entrance_one_shown_at_a_time_with_its_own_idle_clip() {
        let (mut scene, root, bone) = one_model();
        let w = Walkmesh {
            range: 0..0,
            triangles: vec![[[0, 0, 0], [100, 0, 0], [0, 100, 0]]],
            access: vec![[-1; 3]],
        };
        let pass = InitPass {
            entities: vec![Entity {
                model: Some(0),
                character: Some(init::LEADER),
                visible: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        let way = |from: &str, position: [i16; 3], direction: u8| Entrance {
            from: from.into(),
            via: Via::Gateway,
            position,
            triangle: 0,
            direction,
        };
        let ways = [way("A", [10, 10, 0], 0), way("B", [20, 30, 5], 64)];
        place_models(
            &mut scene,
            root,
            &w,
            Some(&pass),
            &[],
            &["cl".into()],
            &ways,
        );
        let choice = scene.choice.clone().expect("an entrance to choose");
        assert_eq!(choice.name, "entrance");
        assert_eq!(
            choice
                .options
                .iter()
                .map(|o| o.label.as_str())
                .collect::<Vec<_>>(),
            ["from A (gateway)", "from B (gateway)"]
        );
        // The leader at the first, the copy at the second: each its own bone, its own clip.
        let at = |layer: u32| {
            scene
                .nodes
                .iter()
                .position(|n| n.layer == Some(layer))
                .unwrap() as u32
        };
        let (first, second) = (
            at(choice.options[0].layers[0]),
            at(choice.options[1].layers[0]),
        );
        assert_eq!(
            scene.nodes[first as usize].transform.translation,
            [10.0, 10.0, -10.0]
        );
        assert_eq!(
            scene.nodes[second as usize].transform.translation,
            [20.0, 30.0, -5.0]
        );
        let copied_bone = scene
            .nodes
            .iter()
            .position(|n| n.parent == Some(second))
            .unwrap() as u32;
        assert_ne!(copied_bone, bone);
        let clip = choice.options[1].clip.unwrap() as usize;
        assert_eq!(
            scene.clips[clip].tracks[0].target,
            Target::Rotation(copied_bone)
        );
        // Choosing the second hides the first and plays the copy's clip alone.
        let hidden = scene.choose(1);
        assert_eq!(hidden, choice.options[0].layers);
        assert!(
            !scene.stopped.contains(&(clip as u32))
                && scene.stopped.contains(&choice.options[0].clip.unwrap())
        );
    }

    #[test]
    fn a_leader_whose_init_locked_the_controls_stays_where_it_put_it() {
        let (mut scene, root, _) = one_model();
        let w = Walkmesh {
            range: 0..0,
            triangles: vec![[[0, 0, 0], [100, 0, 0], [0, 100, 0]]],
            access: vec![[-1; 3]],
        };
        let leader = Entity {
            model: Some(0),
            character: Some(init::LEADER),
            visible: true,
            position: Some([40, 40, 0]),
            ..Default::default()
        };
        let pass = InitPass {
            entities: vec![leader],
            control_locked: true,
            ..Default::default()
        };
        let ways = [Entrance {
            from: "A".into(),
            via: Via::MapJump,
            position: [10, 10, 0],
            triangle: 0,
            direction: 0,
        }];
        place_models(
            &mut scene,
            root,
            &w,
            Some(&pass),
            &[],
            &["cl".into()],
            &ways,
        );
        assert!(scene.choice.is_none());
        assert_eq!(scene.nodes[1].transform.translation, [40.0, 40.0, -10.0]);
    }
}
