//! A BSX as a neutral scene: per model a node (its scale, and the turn from the console's
//! Y-down space to Y-up), a node per bone posed as the engine poses it, the rigid parts as
//! meshes on their bones, textures sampled from the emulated VRAM, and every animation a
//! looping clip of rotation (and translation) tracks (docs/formats/bsx.md, "Pose").

use super::raw::{Animation, AnimationData, BsxFile, ModelRecord, PolyKind};
use super::vram::{PageKey, TextureFlag, Vram};
use crate::scene::{Choice, ChoiceOption, Clip, Material, Mesh, Node, Primitive, Repeat, Scene, SourceRun, Target, Texture, Track, Transform};
use glam::{EulerRot, Quat};
use std::collections::HashMap;

/// Frames a second: the field engine steps animations once a frame at 30 fps.
pub const FPS: f32 = 30.0;

/// A bone angle: 256 steps a turn.
pub fn angle(a: u8) -> f32 {
    a as f32 * std::f32::consts::TAU / 256.0
}

/// The local transform of a bone: rotation Ry·Rx·Rz (Z first), translation (tx, ty,
/// length + tz) in the parent's frame.
pub fn bone_transform(rotation: [u8; 3], translation: [i16; 3], length: i16) -> Transform {
    let [rx, ry, rz] = rotation.map(angle);
    let q = Quat::from_euler(EulerRot::YXZ, ry, rx, rz);
    Transform { translation: [translation[0] as f32, translation[1] as f32, length as f32 + translation[2] as f32], rotation: q.to_array(), scale: [1.0; 3] }
}

/// Rotation and translation of bone `b` at frame `f` of an animation.
pub fn frame(a: &Animation, d: &AnimationData, b: usize, f: usize) -> ([u8; 3], [i16; 3]) {
    let Some(ch) = d.channels.get(b) else { return ([0; 3], [0; 3]) };
    let n = a.frames as usize;
    let mut rot = [0u8; 3];
    let mut tr = [0i16; 3];
    for axis in 0..3 {
        rot[axis] = if ch.mask >> axis & 1 == 1 { d.rotations.get(ch.rotation[axis] as usize * n + f).copied().unwrap_or(0) } else { ch.rotation[axis] };
        let t = ch.translation[axis];
        tr[axis] = if ch.mask >> (axis + 4) & 1 == 1 {
            d.translations.get(t as usize * n + f).copied().unwrap_or(0)
        } else if t != 0xFF {
            d.statics.get(t as usize).copied().unwrap_or(0)
        } else {
            0
        };
    }
    (rot, tr)
}

/// Inspector rows the scene's records point at.
#[derive(Debug, Default, Clone)]
pub struct Records {
    /// The row of each polygon group, by (part data offset, kind).
    pub polygons: HashMap<(usize, PolyKind), u32>,
    /// The row of each model record, of each bone list and of each part header.
    pub models: Vec<u32>,
    pub bones: HashMap<usize, u32>,
    pub parts: HashMap<usize, u32>,
}

/// One vertex of a polygon as drawn.
struct Corner {
    position: [f32; 3],
    color: [u8; 4],
    uv: [f32; 2],
}

/// A material key: untextured, or a texture page as sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Look {
    Plain,
    Page(PageKey),
    /// An eye or mouth from FIELD.TDB, which this file does not hold.
    Face(u8),
}

/// What a file's scene may allocate: twice its decompressed bytes plus 4 MiB, room for
/// sixteen 256×256 texture pages. A real model's scene takes a fraction of that; a hostile
/// one, whose 48-byte model records all reuse the same parts or whose animations claim
/// 65,535 frames of nothing, would take thousands of times its size (docs/formats/bsx.md,
/// "Memory").
pub fn scene_budget(decoded_len: usize) -> usize {
    decoded_len.saturating_mul(2).saturating_add(4 << 20)
}

/// Bytes of the scene left to allocate, and what was not built for want of them.
struct Budget {
    left: usize,
    refused: [usize; 3],
}

/// What the budget pays for.
#[derive(Clone, Copy)]
enum Cost {
    Part = 0,
    Texture = 1,
    Animation = 2,
}

impl Budget {
    fn afford(&mut self, what: Cost, bytes: usize) -> bool {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                true
            }
            None => {
                self.refused[what as usize] += 1;
                false
            }
        }
    }
}

/// Bytes a part's mesh takes: per corner a position, a colour and a texcoord, per
/// triangle three indices.
fn part_cost(data: &super::raw::PartData) -> usize {
    data.polygons.iter().map(|p| p.kind.corners() * 24 + (p.kind.corners() - 2) * 12 + 16).sum::<usize>() + 64
}

/// A scene, and the warning that says what the budget left out (if it left anything out).
pub struct Built {
    pub scene: Scene,
    pub refused: Option<String>,
}

pub fn build(name: &str, file: &BsxFile, bytes: &[u8], records: &Records) -> Built {
    let mut budget = Budget { left: scene_budget(bytes.len()), refused: [0; 3] };
    let mut scene = Scene { name: name.to_string(), frame_time: Some(1.0 / FPS), ..Default::default() };
    let vram = Vram::load(file, bytes);
    let mut looks: HashMap<Look, u32> = HashMap::new();
    let root = scene.add_node(None, Node { name: Some(name.to_string()), ..Default::default() });
    let mut options: Vec<ChoiceOption> = Vec::new();
    let mut first_drawn = None;
    for (k, m) in file.models.iter().enumerate() {
        let layer = scene.layer(&format!("model {k}"));
        // The console's +Y is down: half a turn about X, and the model's own scale.
        let s = m.scale as f32 / 4096.0;
        let turn = Quat::from_rotation_x(std::f32::consts::PI);
        let transform = Transform { rotation: turn.to_array(), scale: [s; 3], ..Default::default() };
        let model = scene.add_node(Some(root), Node { name: Some(format!("model {k}")), transform, layer: Some(layer), record: records.models.get(k).copied(), ..Default::default() });
        let bones = bone_nodes(&mut scene, model, m, file, records);
        for (j, part) in m.parts.iter().enumerate() {
            let Some(data) = file.parts.get(&part.block) else { continue };
            // A character's extra part hangs from its BCX skeleton: without the BCX, at the model.
            let parent = bones.get(part.bone as usize).copied().unwrap_or(model);
            if !budget.afford(Cost::Part, part_cost(data)) {
                continue;
            }
            let mesh = part_mesh(&mut scene, &mut looks, &mut budget, &vram, data, records);
            let node = Node { name: Some(format!("part {j}")), mesh: Some(mesh), record: records.parts.get(&part.header).copied(), ..Default::default() };
            scene.add_node(Some(parent), node);
        }
        if !m.parts.is_empty() && first_drawn.is_none() {
            first_drawn = Some(options.len());
        }
        options.push(ChoiceOption { label: format!("model {k}{}", if m.parts.is_empty() { " (from its BCX: nothing of its own)" } else { "" }), layers: vec![layer], clip: None });
        // Animations play on the model's own skeleton; a character's play on its BCX one.
        if bones.is_empty() {
            continue;
        }
        for (a, anim) in m.animations.iter().enumerate() {
            let Some(data) = file.anims.get(&anim.block) else { continue };
            // Per bone a key a frame: a time, a rotation and perhaps a translation.
            let keys = (anim.frames as usize + 1) * m.bones.len().min(anim.bones as usize);
            if !budget.afford(Cost::Animation, keys * 36 + 64) {
                continue;
            }
            let clip = scene.clips.len() as u32;
            scene.clips.push(animation_clip(&format!("model {k} animation {a}"), anim, data, m, &bones));
            options.push(ChoiceOption { label: format!("model {k}: animation {a} ({} frames)", anim.frames), layers: vec![layer], clip: Some(clip) });
        }
    }
    if !options.is_empty() {
        let default = first_drawn.map_or(0, |i| if options.get(i + 1).is_some_and(|o| o.clip.is_some() && o.layers == options[i].layers) { i + 1 } else { i });
        scene.choice = Some(Choice { name: "model".into(), options, default });
        scene.choose(default);
    }
    let [parts, textures, animations] = budget.refused;
    let refused = (budget.refused != [0; 3]).then(|| {
        let limit = scene_budget(bytes.len());
        format!("the scene would take more than {limit} bytes of memory (twice the file, plus 4 MiB): {parts} parts, {textures} texture pages (drawn untextured) and {animations} animations are not built")
    });
    Built { scene, refused }
}

/// Nodes of a model's own bones, posed at its first animation's first frame (or at rest),
/// and the bone pairs of the skeleton overlay.
fn bone_nodes(scene: &mut Scene, model: u32, m: &ModelRecord, file: &BsxFile, records: &Records) -> Vec<u32> {
    let first = m.animations.first().and_then(|a| Some((a, file.anims.get(&a.block)?)));
    let mut nodes: Vec<u32> = Vec::with_capacity(m.bones.len());
    for (b, bone) in m.bones.iter().enumerate() {
        let (rot, tr) = first.map_or(([0; 3], [0; 3]), |(a, d)| frame(a, d, b, 0));
        let parent = usize::try_from(bone.parent).ok().and_then(|p| nodes.get(p).copied());
        let node = Node { name: Some(format!("bone {b}")), transform: bone_transform(rot, tr, bone.length), record: records.bones.get(&bone.offset).copied(), ..Default::default() };
        let id = scene.add_node(Some(parent.unwrap_or(model)), node);
        if let Some(p) = parent {
            scene.skeleton.push((p, id));
        }
        nodes.push(id);
    }
    nodes
}

fn animation_clip(name: &str, a: &Animation, d: &AnimationData, m: &ModelRecord, bones: &[u32]) -> Clip {
    let frames = a.frames.max(1) as usize;
    // One more key than frames, back at the first, so the loop closes.
    let times: Vec<f32> = (0..=frames).map(|f| f as f32 / FPS).collect();
    let mut tracks = Vec::new();
    for (b, bone) in m.bones.iter().enumerate().take(a.bones as usize) {
        let Some(&node) = bones.get(b) else { continue };
        let poses: Vec<Transform> = (0..=frames).map(|f| {
            let (rot, tr) = frame(a, d, b, f % frames);
            bone_transform(rot, tr, bone.length)
        }).collect();
        tracks.push(Track { target: Target::Rotation(node), times: times.clone(), values: poses.iter().flat_map(|p| p.rotation).collect() });
        if poses.iter().any(|p| p.translation != poses[0].translation) {
            tracks.push(Track { target: Target::Translation(node), times: times.clone(), values: poses.iter().flat_map(|p| p.translation).collect() });
        }
    }
    Clip { name: name.to_string(), duration: frames as f32 / FPS, repeat: Repeat::Loop, tracks }
}

/// A part's polygons as a mesh: a primitive per look (untextured, or a texture page).
fn part_mesh(scene: &mut Scene, looks: &mut HashMap<Look, u32>, budget: &mut Budget, vram: &Vram, data: &super::raw::PartData, records: &Records) -> u32 {
    let mut groups: Vec<(Look, Primitive)> = Vec::new();
    for poly in &data.polygons {
        let corners = poly.kind.corners();
        let look = match poly.control.and_then(|c| data.control.get(c as usize)).and_then(|&c| data.flags.get((c & 0xF) as usize)) {
            Some(&word) => {
                let flag = TextureFlag::of(word);
                if flag.kind == 2 { Look::Page(flag.key) } else { Look::Face(flag.kind) }
            }
            None => Look::Plain,
        };
        let at = match groups.iter().position(|(l, _)| *l == look) {
            Some(i) => i,
            None => {
                let material = material_for(scene, looks, budget, vram, look);
                groups.push((look, Primitive { material: Some(material), positions: Vec::new(), colors: Some(Vec::new()), uvs: (look != Look::Plain).then(Vec::new), ..Default::default() }));
                groups.len() - 1
            }
        };
        let prim = &mut groups[at].1;
        let first = prim.positions.len() as u32;
        let textured = poly.kind.textured();
        for c in 0..corners {
            let v = data.vertices[poly.vertices[c] as usize];
            let col = poly.colors[if poly.kind.gouraud() { c } else { 0 }];
            // Textured polygons modulate texels by colour / 128 (0x80 leaves them as they are).
            let scale = |x: u8| if textured { (x as u16 * 2).min(255) as u8 } else { x };
            let tc = data.texcoords.get(poly.texcoords[c] as usize).copied().unwrap_or([0, 0]);
            let corner = Corner { position: [v[0] as f32, v[1] as f32, v[2] as f32], color: [scale(col[0]), scale(col[1]), scale(col[2]), 255], uv: [tc[0] as f32 / 256.0, tc[1] as f32 / 256.0] };
            prim.positions.push(corner.position);
            prim.colors.as_mut().expect("made with colours").push(corner.color);
            if let Some(uvs) = prim.uvs.as_mut() {
                uvs.push(corner.uv);
            }
        }
        let tri = prim.indices.len() as u32 / 3;
        // Quads in the console's Z order (v0 v1 / v2 v3): (0,1,2) and (1,3,2).
        prim.indices.extend([first, first + 1, first + 2]);
        if corners == 4 {
            prim.indices.extend([first + 1, first + 3, first + 2]);
        }
        let record = records.polygons.get(&(data.offset, poly.kind)).copied().unwrap_or(0);
        let tris = corners as u32 - 2;
        let continues = prim.sources.last().is_some_and(|r| r.record == record && r.start + ((tri - r.first) / tris) as usize * poly.kind.size() == poly.offset);
        if !continues {
            prim.sources.push(SourceRun { first: tri, record, start: poly.offset, face_len: poly.kind.size() as u32, tris_per_face: tris });
        }
    }
    scene.add_mesh(Mesh { name: None, primitives: groups.into_iter().map(|(_, p)| p).collect() })
}

fn material_for(scene: &mut Scene, looks: &mut HashMap<Look, u32>, budget: &mut Budget, vram: &Vram, look: Look) -> u32 {
    if let Some(&m) = looks.get(&look) {
        return m;
    }
    // A page past the budget: its polygons keep their colours, untextured.
    let look = match look {
        Look::Page(_) if !budget.afford(Cost::Texture, 256 * 256 * 4) => {
            let plain = material_for(scene, looks, budget, vram, Look::Plain);
            looks.insert(look, plain);
            return plain;
        }
        other => other,
    };
    let (name, texture) = match look {
        Look::Plain => ("vertex colours".to_string(), None),
        Look::Page(key) => {
            let t = scene.textures.len() as u32;
            let name = format!("page ({}, {}) clut ({}, {}) {:?}", key.page_x, key.page_y, key.clut_x, key.clut_y, key.depth);
            scene.textures.push(Texture { name: Some(name.clone()), texels: vram.page(key), file: None, nearest: true });
            (name, Some(t))
        }
        // Eyes and mouths come from FIELD.TDB: without it, a grey stand-in.
        Look::Face(kind) => (if kind == 0 { "eye (FIELD.TDB)".to_string() } else { "mouth (FIELD.TDB)".to_string() }, None),
    };
    let base = if matches!(look, Look::Face(_)) { [0.6, 0.6, 0.6, 1.0] } else { [1.0; 4] };
    let id = scene.materials.len() as u32;
    scene.materials.push(Material { name: Some(name), base_color: base, texture, double_sided: true, alpha_cutoff: texture.map(|_| 0.5) });
    looks.insert(look, id);
    id
}
