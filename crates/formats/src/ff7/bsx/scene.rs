//! A BSX as a neutral scene: per model a node (its scale, and the turn from the console's
//! Y-down space to Y-up), a node per bone posed as the engine poses it, the rigid parts as
//! meshes on their bones, textures sampled from the emulated VRAM, and every animation a
//! looping clip of rotation (and translation) tracks (docs/formats/bsx.md, "Pose").

use super::field_bin::{FieldTables, CLOSED_EYES, OPEN_EYES};
use super::lighting::{bone_worlds, PartLight};
use super::raw::{Animation, AnimationData, Bone, BsxFile, ModelRecord, Part, PartData, Polygon};
use super::tdb::{Feature, TdbFile};
use super::vram::{self, TextureFlag, TextureKind};
use crate::ff7::psx::{PageKey, Vram};
use crate::scene::{
    Blend, Choice, ChoiceOption, Clip, Material, Mesh, Node, Primitive, Repeat, Scene, Skin,
    SourceRun, Target, Texture, Track, Transform,
};
use crate::texture::Texels;
use crate::words::count;
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
    Transform {
        translation: [
            translation[0] as f32,
            translation[1] as f32,
            length as f32 + translation[2] as f32,
        ],
        rotation: q.to_array(),
        scale: [1.0; 3],
    }
}

/// Rotation and translation of bone `b` at frame `f` of an animation.
pub fn frame(a: &Animation, d: &AnimationData, b: usize, f: usize) -> ([u8; 3], [i16; 3]) {
    let Some(ch) = d.channels.get(b) else {
        return ([0; 3], [0; 3]);
    };
    let n = a.frames as usize;
    let mut rot = [0u8; 3];
    let mut tr = [0i16; 3];
    for axis in 0..3 {
        rot[axis] = if ch.mask >> axis & 1 == 1 {
            d.rotations
                .get(ch.rotation[axis] as usize * n + f)
                .copied()
                .unwrap_or(0)
        } else {
            ch.rotation[axis]
        };
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

/// What a file's scene may allocate: 64 times its decompressed bytes plus 8 MiB (32
/// texture pages of 256×256). What a legitimate file builds grows with its bytes by less
/// than that: a moving bone's key a frame is paid for by its bytes of that frame, a texture
/// page by its flag word, a part by its polygons. A hostile file, whose 48-byte model
/// records all reuse the same parts or whose animations claim 65,535 frames of data it does
/// not have, would take thousands of times its size (docs/formats/bsx.md, "Memory").
pub fn scene_budget(decoded_len: usize) -> usize {
    decoded_len.saturating_mul(64).saturating_add(8 << 20)
}

/// Whether bone `b` moves in the animation: some channel of it changes per frame, from data
/// the file has for every frame. A bone that does not is one key, however long the clip.
fn moves(a: &Animation, d: &AnimationData, b: usize) -> bool {
    let Some(ch) = d.channels.get(b) else {
        return false;
    };
    let n = a.frames as usize;
    let backed = |index: u8, len: usize| (index as usize + 1).saturating_mul(n) <= len;
    (0..3).any(|axis| {
        (ch.mask >> axis & 1 == 1 && backed(ch.rotation[axis], d.rotations.len()))
            || (ch.mask >> (axis + 4) & 1 == 1
                && backed(ch.translation[axis], d.translations.len()))
    })
}

/// Keys the clip of an animation holds, rotation and translation together: a key a frame
/// (and one to close the loop) for each bone that moves, two for each that does not.
fn animation_keys(a: &Animation, d: &AnimationData, bones: usize) -> usize {
    (0..bones.min(a.bones as usize))
        .map(|b| {
            if moves(a, d, b) {
                2 * (a.frames.max(1) as usize + 1)
            } else {
                4
            }
        })
        .sum()
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

/// Bytes a part's mesh takes: per corner a position, a colour, a lit colour and a
/// texcoord, per triangle three indices.
fn part_cost(data: &super::raw::PartData) -> usize {
    data.polygons
        .iter()
        .map(|p| p.kind.corners() * 28 + (p.kind.corners() - 2) * 12 + 16)
        .sum::<usize>()
        + 64
}

/// A scene, and the warning that says what the budget left out (if it left anything out).
pub struct Built {
    pub scene: Scene,
    pub refused: Option<String>,
    /// The VRAM the scene's textures were sampled from, and each texture's page key (by
    /// the scene's texture index) with, for a face page that blinks, its model slot.
    pub vram: Vram,
    pub pages: Vec<(PageKey, Option<usize>)>,
    /// The shut eyes of each slot that blinks (left and right image, 512 bytes each): what
    /// the lower half of its face page shows.
    pub shut_eyes: Vec<ShutEyes>,
    /// What the game's lighting gave the file (None without FIELD.BIN's tables, or for a
    /// character's BCX alone, whose lights are in the field files that place it).
    pub lit: Option<Lit>,
    /// The face each model shows, where it shows one.
    pub faces: Vec<Option<Face>>,
}

/// What a file's scene takes from the rest of the archive.
#[derive(Default)]
pub struct Extras<'a> {
    /// FIELD.TDB and its bytes: the eyes and mouths.
    pub faces: Option<(&'a TdbFile, &'a [u8])>,
    /// The BCX of each character (global model id − 1) the archive has.
    pub characters: [Option<&'a BsxFile>; 9],
    /// FIELD.BIN's tables: the game's lighting, and which images a face shows.
    pub tables: Option<&'a FieldTables>,
}

/// Per polygon of a part data block, the lit colour of each colour word it stores (every
/// corner of a gouraud kind; the first only of a flat one).
pub type LitBlock = Vec<[[u8; 3]; 4]>;

/// What the game's lighting gave one file's scene.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Lit {
    /// The file's own part data blocks that were lit, by offset.
    pub blocks: HashMap<usize, LitBlock>,
    /// Parts drawn with lit colours (a block drawn by several counts for each).
    pub parts: usize,
    /// Parts drawn with their stored colours, and why.
    pub unlit: Vec<String>,
    /// Colours whose normal index is past the table's 240 entries (lit with the bytes after
    /// the table, as the engine would read them).
    pub past_table: usize,
}

/// The images a model's face shows, and who chose them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Face {
    pub id: u8,
    /// FIELD.TDB images of the left eye, the right eye and the mouth as the model loads (its
    /// eyes open).
    pub open: [u8; 3],
    /// The same with the eyes shut, for a blink (FIELD.BIN's tables only).
    pub closed: Option<[u8; 3]>,
    /// FIELD.BIN's face tables chose them; else relicview's guess from FIELD.TDB's layout.
    pub from_tables: bool,
}

impl Face {
    /// The face a record's byte 0 names: from FIELD.BIN's tables where it is one of their
    /// rows, else (faces below 0x21, the ones the engine shows) relicview's guess.
    pub fn of(id: u8, tables: Option<&FieldTables>) -> Option<Face> {
        match tables {
            Some(t) => {
                let open = t.face_images(id, OPEN_EYES.0, OPEN_EYES.1)?;
                Some(Face {
                    id,
                    open,
                    closed: t
                        .face_images(id, CLOSED_EYES.0, CLOSED_EYES.1)
                        .filter(|c| *c != open),
                    from_tables: true,
                })
            }
            None => {
                let eye = super::tdb::guessed_image(id, Feature::Eye)?;
                Some(Face {
                    id,
                    open: [eye, eye, super::tdb::guessed_image(id, Feature::Mouth)?],
                    closed: None,
                    from_tables: false,
                })
            }
        }
    }
}

/// A model slot's eyes shut: the left and right FIELD.TDB images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShutEyes {
    pub slot: usize,
    pub left: Vec<u8>,
    pub right: Vec<u8>,
}

/// Which file a part data block belongs to: this one, or a character's BCX (by global id).
type BlockKey = (Option<u8>, usize);

/// The blink's cadence (relicview's, not the game's, which a script drives): every
/// `BLINK_EVERY` frames the eyes shut for `BLINK_FRAMES`, ending the cycle.
pub const BLINK_EVERY: u32 = 90;
pub const BLINK_FRAMES: u32 = 3;

/// A material key: untextured, a texture page as sampled (semi-transparent or not), the
/// page of a model slot's eyes and mouth, or an eye or mouth that FIELD.TDB would supply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Look {
    Plain,
    Page(PageKey, Option<Blend>),
    /// The face page of a slot (the last field) with its eyes and mouth in it (and the page
    /// with its eyes shut below it, where the face blinks).
    FacePage(PageKey, Option<Blend>, usize),
    /// A texture FIELD.TDB would supply (or one of a type not known), drawn grey.
    Face(TextureKind),
}

/// A model's bones, parts and animations as the engine assembles them: a character's from
/// its BCX in the first slots, then the record's own at its ranges' start indices; slots
/// that neither fills stay empty (docs/formats/bsx.md, "Characters"). `true` marks what
/// this file holds (its inspector has rows for it).
#[derive(Default)]
struct Rig<'a> {
    bones: Vec<Option<(Bone, bool)>>,
    parts: Vec<Option<(&'a Part, &'a PartData, bool)>>,
    animations: Vec<Option<(&'a Animation, &'a AnimationData)>>,
    /// Where the character's skeleton came from, if it has one.
    character: Option<&'static str>,
}

fn place<T>(slots: &mut Vec<Option<T>>, at: usize, item: T) {
    if slots.len() <= at {
        slots.resize_with(at + 1, || None);
    }
    slots[at] = Some(item);
}

fn rig<'a>(m: &'a ModelRecord, file: &'a BsxFile, extras: &Extras<'a>) -> Rig<'a> {
    let mut r = Rig::default();
    // A model of its own lists its items from slot 0; a character's record adds to its BCX's.
    let mut starts = [0usize; 3];
    if let Some(bcx) = super::character_file(m.global_id) {
        starts = [
            m.bones_range.start,
            m.parts_range.start,
            m.anims_range.start,
        ]
        .map(usize::from);
        if let Some(c) = extras.characters[m.global_id as usize - 1] {
            let cm = &c.models[0];
            r.character = Some(bcx);
            r.bones = cm.bones.iter().map(|b| Some((*b, false))).collect();
            r.parts = cm
                .parts
                .iter()
                .map(|p| c.parts.get(&p.block).map(|d| (p, d, false)))
                .collect();
            r.animations = cm
                .animations
                .iter()
                .map(|a| c.anims.get(&a.block).map(|d| (a, d)))
                .collect();
        }
    }
    for (k, b) in m.bones.iter().enumerate() {
        place(&mut r.bones, starts[0] + k, (*b, true));
    }
    for (k, p) in m.parts.iter().enumerate() {
        if let Some(d) = file.parts.get(&p.block) {
            place(&mut r.parts, starts[1] + k, (p, d, true));
        }
    }
    for (k, a) in m.animations.iter().enumerate() {
        if let Some(d) = file.anims.get(&a.block) {
            place(&mut r.animations, starts[2] + k, (a, d));
        }
    }
    r
}

/// What the part meshes of one file share: the VRAM they sample, the materials made so
/// far, the budget.
struct Painter<'a> {
    vram: Vram,
    /// Per model slot, its eyes shut where it blinks.
    shut: Vec<Option<ShutEyes>>,
    looks: HashMap<Look, u32>,
    budget: &'a mut Budget,
    /// Per model: its eyes and mouth are in VRAM (FIELD.TDB is in, its face and slot fit).
    faced: Vec<bool>,
    /// The page key of each scene texture, in the scene's order, and the slot of a face
    /// page that blinks.
    pages: Vec<(PageKey, Option<usize>)>,
    /// Materials of face pages with the shut eyes below the open ones: the blink moves them.
    blinking: Vec<u32>,
}

/// Light every part the way the engine does when the file loads: per model, its bones posed
/// at its first animation's first frame, each lit part's colours from its bone's world
/// rotation and the record's lights; a part data block is lit once, by the first part (in
/// record order) that draws it.
fn light(
    t: &FieldTables,
    file: &BsxFile,
    rigs: &[Rig],
) -> (HashMap<BlockKey, Option<LitBlock>>, Lit) {
    let mut blocks: HashMap<BlockKey, Option<LitBlock>> = HashMap::new();
    let mut lit = Lit::default();
    for (k, (m, rig)) in file.models.iter().zip(rigs).enumerate() {
        let first = rig.animations.first().copied().flatten();
        let parents: Vec<Option<i8>> = rig
            .bones
            .iter()
            .map(|b| b.map(|(bone, _)| bone.parent))
            .collect();
        let worlds = bone_worlds(t, &parents, |b| {
            first.map_or([0; 3], |(a, d)| frame(a, d, b, 0).0)
        });
        let (mut boneless, mut flagged) = (0usize, 0usize);
        for &(part, data, own) in rig.parts.iter().flatten() {
            let key = (if own { None } else { Some(m.global_id) }, data.offset);
            let world = worlds.get(part.bone as usize).copied().flatten();
            let colours = blocks.entry(key).or_insert_with(|| {
                world.filter(|_| part.lighting == 1).map(|w| {
                    let light = PartLight::new(m, &w);
                    data.polygons
                        .iter()
                        .map(|p| lit_polygon(t, &light, p, &mut lit.past_table))
                        .collect()
                })
            });
            // Lit, or not: no bone to light it with, or a lighting flag that is not 1.
            match (colours, world) {
                (Some(_), _) => lit.parts += 1,
                (None, None) => boneless += 1,
                (None, Some(_)) => flagged += 1,
            }
        }
        if boneless > 0 {
            lit.unlit.push(match super::character_file(m.global_id).filter(|_| rig.character.is_none()) {
                Some(bcx) => format!("model {k}: {} on {bcx}'s skeleton drawn with stored colours: {bcx} is not in this archive", count(boneless as u32, "part")),
                None => format!("model {k}: {} on a bone the model does not have drawn with stored colours", count(boneless as u32, "part")),
            });
        }
        if flagged > 0 {
            lit.unlit.push(format!(
                "model {k}: {} whose lighting flag is not 1 drawn with stored colours",
                count(flagged as u32, "part")
            ));
        }
    }
    // This file's own blocks, for its inspector (a character's BCX has none of its rows).
    for (&(from, at), colours) in &blocks {
        if let (None, Some(c)) = (from, colours) {
            lit.blocks.insert(at, c.clone());
        }
    }
    (blocks, lit)
}

/// A polygon's colour words lit (the first only, for a flat kind).
fn lit_polygon(
    t: &FieldTables,
    light: &PartLight,
    p: &Polygon,
    past_table: &mut usize,
) -> [[u8; 3]; 4] {
    let words = if p.kind.gouraud() {
        p.kind.corners()
    } else {
        1
    };
    let mut out = [[0; 3]; 4];
    for (j, c) in p.colors.iter().take(words).enumerate() {
        *past_table += usize::from(c[3] as usize >= super::field_bin::NORMALS.entries);
        out[j] = light.colour(t.normal(c[3]), [c[0], c[1], c[2]]);
    }
    out
}

pub fn build(name: &str, file: &BsxFile, bytes: &[u8], extras: &Extras) -> Built {
    let mut budget = Budget {
        left: scene_budget(bytes.len()),
        refused: [0; 3],
    };
    let mut scene = Scene {
        name: name.to_string(),
        frame_time: Some(1.0 / FPS),
        ..Default::default()
    };
    let mut vram = vram::load(file, bytes);
    let (faces, faced, shut) = faces_in_vram(file, extras, &mut vram);
    // A character's BCX alone has no lights: the field files that place it have them.
    let rigs: Vec<Rig> = file.models.iter().map(|m| rig(m, file, extras)).collect();
    let (lit_blocks, lit) = match extras.tables.filter(|_| file.bcx.is_none()) {
        Some(t) => {
            let (blocks, lit) = light(t, file, &rigs);
            (blocks, Some(lit))
        }
        None => (HashMap::new(), None),
    };
    let mut painter = Painter {
        vram,
        shut,
        looks: HashMap::new(),
        budget: &mut budget,
        faced,
        pages: Vec::new(),
        blinking: Vec::new(),
    };
    let root = scene.add_node(
        None,
        Node {
            name: Some(name.to_string()),
            ..Default::default()
        },
    );
    let whole = WholeFile {
        name,
        file,
        lit_blocks: &lit_blocks,
        root,
    };
    let mut options: Vec<ChoiceOption> = Vec::new();
    let mut first_drawn = None;
    for (k, rig) in rigs.iter().enumerate() {
        let drawn = add_model(&mut scene, &mut painter, &whole, k, rig, &mut options);
        first_drawn = first_drawn.or(drawn);
    }
    choose_first_drawn(&mut scene, options, first_drawn);
    let Painter {
        vram,
        pages,
        blinking,
        shut,
        ..
    } = painter;
    if !blinking.is_empty() {
        scene.ff7.blinks.push(scene.clips.len() as u32);
        scene.clips.push(blink_clip(&blinking));
    }
    Built {
        scene,
        refused: refusal(budget.refused, bytes.len()),
        vram,
        pages,
        shut_eyes: shut.into_iter().flatten().collect(),
        lit,
        faces,
    }
}

/// What the budget left out of the scene of a file of `len` bytes, if anything.
fn refusal(refused: [usize; 3], len: usize) -> Option<String> {
    let [parts, textures, animations] = refused;
    (refused != [0; 3]).then(|| {
        let limit = scene_budget(len);
        format!("the scene would take more than {limit} bytes of memory (64 times the file, plus 8 MiB): {parts} parts, {textures} texture pages (drawn untextured) and {animations} animations are not built")
    })
}

/// What every model of a file is placed with: the file, its lighting, and the scene's root.
struct WholeFile<'a> {
    name: &'a str,
    file: &'a BsxFile,
    lit_blocks: &'a HashMap<BlockKey, Option<LitBlock>>,
    root: u32,
}

/// Model `k` placed with its parts and animations, and its options in the scene's choice:
/// → the option that shows it, where any part of it was drawn.
fn add_model(
    scene: &mut Scene,
    painter: &mut Painter,
    whole: &WholeFile,
    k: usize,
    rig: &Rig,
    options: &mut Vec<ChoiceOption>,
) -> Option<usize> {
    let file = whole.file;
    let m = &file.models[k];
    let placed = place_model(scene, whole.root, whole.name, file, k, rig);
    let drawn = add_parts(scene, painter, &placed, m, rig, whole.lit_blocks);
    let label = match (super::character_file(m.global_id), rig.character) {
        (Some(_), Some(bcx)) => format!("model {k} ({bcx})"),
        (Some(bcx), None) if !drawn => {
            format!("model {k} ({bcx} is not here: nothing of its own)")
        }
        _ => format!("model {k}"),
    };
    let shown = options.len();
    options.push(ChoiceOption {
        label,
        layers: vec![placed.layer],
        clip: None,
    });
    if placed.bones.iter().any(Option::is_some) {
        add_animations(scene, painter, &placed, file, m, rig, options);
    }
    drawn.then_some(shown)
}

/// Each model slot's face (from FIELD.BIN's tables), whether its eyes and mouth are in
/// VRAM, and its shut eyes where it blinks.
fn faces_in_vram(
    file: &BsxFile,
    extras: &Extras,
    vram: &mut Vram,
) -> (Vec<Option<Face>>, Vec<bool>, Vec<Option<ShutEyes>>) {
    // The engine copies each model's eyes and mouth to VRAM beside the textures, by slot.
    let faces: Vec<Option<Face>> = file
        .models
        .iter()
        .map(|m| Face::of(m.face_id, extras.tables))
        .collect();
    let load = |vram: &mut Vram, k: usize| {
        let (Some((t, b)), Some(face)) = (extras.faces, faces[k]) else {
            return false;
        };
        vram::load_face(vram, t, b, k, face.id, face.open)
    };
    let faced: Vec<bool> = (0..file.models.len()).map(|k| load(vram, k)).collect();
    // A slot whose face shows in VRAM and has shut eyes in FIELD.BIN's tables blinks.
    let shut: Vec<Option<ShutEyes>> = (0..file.models.len())
        .map(|slot| {
            let ((t, b), [left, right, _]) =
                (extras.faces?, faces[slot]?.closed.filter(|_| faced[slot])?);
            Some(ShutEyes {
                slot,
                left: t.image(b, left as usize)?.to_vec(),
                right: t.image(b, right as usize)?.to_vec(),
            })
        })
        .collect();
    (faces, faced, shut)
}

/// A model's nodes as placed: its layer, its node, its bones' nodes, and its name.
struct Placed {
    k: usize,
    layer: u32,
    node: u32,
    bones: Vec<Option<u32>>,
    name: String,
}

/// Model `k`'s node under `root` (turned to the viewer's +Y up, at its scale), its bones,
/// and its skin.
fn place_model(
    scene: &mut Scene,
    root: u32,
    name: &str,
    file: &BsxFile,
    k: usize,
    rig: &Rig,
) -> Placed {
    let m = &file.models[k];
    let layer = scene.layer(&format!("model {k}"));
    // The console's +Y is down: half a turn about X, and the model's own scale.
    let s = m.scale as f32 / 4096.0;
    let turn = Quat::from_rotation_x(std::f32::consts::PI);
    let transform = Transform {
        rotation: turn.to_array(),
        scale: [s; 3],
        ..Default::default()
    };
    let model = scene.add_node(
        Some(root),
        Node {
            name: Some(format!("model {k}")),
            transform,
            layer: Some(layer),
            record: file.model_bytes(k),
            ..Default::default()
        },
    );
    let bones = bone_nodes(scene, model, rig, m);
    // A character's BCX opened alone is its character (`CLOUD`); a field file's are numbered.
    let model_name = match &file.bcx {
        Some(_) => name
            .rsplit_once('.')
            .map_or(name, |(stem, _)| stem)
            .to_string(),
        None => format!("model {k}"),
    };
    let joints: Vec<u32> = bones.iter().flatten().copied().collect();
    if !joints.is_empty() {
        scene.skins.push(Skin {
            name: model_name.clone(),
            root: model,
            joints,
        });
    }
    Placed {
        k,
        layer,
        node: model,
        bones,
        name: model_name,
    }
}

/// Model `placed`'s parts, each on its bone (or at the model, where its bone is a
/// character's that is not here), as the budget allows: whether any was drawn.
fn add_parts(
    scene: &mut Scene,
    painter: &mut Painter,
    placed: &Placed,
    m: &ModelRecord,
    rig: &Rig,
    lit_blocks: &HashMap<BlockKey, Option<LitBlock>>,
) -> bool {
    let (k, model, bones) = (placed.k, placed.node, &placed.bones);
    let mut drawn = false;
    for (j, slot) in rig.parts.iter().enumerate() {
        let Some((part, data, own)) = *slot else {
            continue;
        };
        // A part on a bone that is not here (a character's, without its BCX) hangs at the model.
        let parent = bones
            .get(part.bone as usize)
            .copied()
            .flatten()
            .unwrap_or(model);
        if !painter.budget.afford(Cost::Part, part_cost(data)) {
            continue;
        }
        let key = (if own { None } else { Some(m.global_id) }, data.offset);
        let lit = lit_blocks.get(&key).and_then(Option::as_deref);
        let mesh = part_mesh(scene, painter, data, own, k, lit);
        let record = own.then(|| part.header_bytes());
        scene.add_node(
            Some(parent),
            Node {
                name: Some(format!("part {j}")),
                mesh: Some(mesh),
                record,
                ..Default::default()
            },
        );
        drawn = true;
    }
    drawn
}

/// Model `placed`'s animations as clips, each an option of the scene's choice, as the
/// budget allows.
fn add_animations(
    scene: &mut Scene,
    painter: &mut Painter,
    placed: &Placed,
    file: &BsxFile,
    m: &ModelRecord,
    rig: &Rig,
    options: &mut Vec<ChoiceOption>,
) {
    let (k, layer, bones, model_name) = (placed.k, placed.layer, &placed.bones, &placed.name);
    for (a, slot) in rig.animations.iter().enumerate() {
        let Some((anim, data)) = *slot else { continue };
        // Per key a time and a rotation (20 bytes) or a translation (16).
        let keys = animation_keys(anim, data, rig.bones.len());
        if !painter.budget.afford(Cost::Animation, keys * 20 + 64) {
            continue;
        }
        let clip = scene.clips.len() as u32;
        // A character's first three clips are its stand, walk and run; the rest keep numbers.
        let known = (file.bcx.is_some() || super::character_file(m.global_id).is_some())
            .then(|| super::CHARACTER_CLIPS.get(a))
            .flatten();
        let clip_name = known.map_or(format!("{model_name} animation {a}"), |n| {
            format!("{model_name} animation {a} ({n})")
        });
        scene
            .clips
            .push(animation_clip(&clip_name, anim, data, rig, bones));
        let what = known.map_or(format!("animation {a}"), |n| format!("animation {a}, {n}"));
        options.push(ChoiceOption {
            label: format!("model {k}: {what} ({})", count(anim.frames, "frame")),
            layers: vec![layer],
            clip: Some(clip),
        });
    }
}

/// The scene's choice of model and animation, opening on the first model drawn (and its
/// first animation, where it has one).
fn choose_first_drawn(scene: &mut Scene, options: Vec<ChoiceOption>, first_drawn: Option<usize>) {
    if !options.is_empty() {
        let default = first_drawn.map_or(0, |i| {
            if options
                .get(i + 1)
                .is_some_and(|o| o.clip.is_some() && o.layers == options[i].layers)
            {
                i + 1
            } else {
                i
            }
        });
        scene.choice = Some(Choice {
            name: "model".into(),
            options,
            default,
        });
        scene.choose(default);
    }
}

/// The eyes shut for [`BLINK_FRAMES`] frames at the end of every [`BLINK_EVERY`]: the face
/// pages' texture coordinates step down to the shut eyes and back (a still frame at 0 has
/// them open).
fn blink_clip(materials: &[u32]) -> Clip {
    let [shut, end] = [BLINK_EVERY - BLINK_FRAMES, BLINK_EVERY].map(|f| f as f32 / FPS);
    // Two keys at one time make a step; the loop's end opens the eyes again.
    let times = vec![0.0, shut, shut, end];
    let values: Vec<f32> = [0.0, 0.0, 0.5, 0.5]
        .iter()
        .flat_map(|&v| [0.0, v])
        .collect();
    let tracks = materials
        .iter()
        .map(|&m| Track {
            target: Target::UvOffset(m),
            times: times.clone(),
            values: values.clone(),
        })
        .collect();
    Clip {
        name: "blink".into(),
        duration: end,
        repeat: Repeat::Loop,
        tracks,
    }
}

/// Nodes of a model's bones (None for an empty slot), posed at its first animation's first
/// frame (or at rest), and the bone pairs of the skeleton overlay. A bone whose parent is
/// not an earlier bone hangs at the model: parents stay before children.
fn bone_nodes(scene: &mut Scene, model: u32, rig: &Rig, m: &ModelRecord) -> Vec<Option<u32>> {
    let first = rig.animations.first().copied().flatten();
    // (the model's first bone's offset, its bone list's record)
    let model_bones = m.bones.first().map(|b| b.offset).zip(m.bones_bytes());
    let mut nodes: Vec<Option<u32>> = Vec::with_capacity(rig.bones.len());
    for (b, slot) in rig.bones.iter().enumerate() {
        let Some((bone, own)) = *slot else {
            nodes.push(None);
            continue;
        };
        let (rot, tr) = first.map_or(([0; 3], [0; 3]), |(a, d)| frame(a, d, b, 0));
        let parent = usize::try_from(bone.parent)
            .ok()
            .and_then(|p| nodes.get(p).copied().flatten());
        // The bone list's record stands for the first of its own bones.
        let record = (own && model_bones.is_some_and(|(first, _)| first == bone.offset))
            .then(|| model_bones.map(|(_, bytes)| bytes))
            .flatten();
        let node = Node {
            name: Some(format!("bone {b}")),
            transform: bone_transform(rot, tr, bone.length),
            record,
            ..Default::default()
        };
        let id = scene.add_node(Some(parent.unwrap_or(model)), node);
        if let Some(p) = parent {
            scene.skeleton.push((p, id));
        }
        nodes.push(Some(id));
    }
    nodes
}

/// A clip as the game plays it: every bone's rotation and translation at every frame, each
/// axis animated, held at the clip's own static value, or 0 (docs/formats/bsx.md, "Clips").
/// A channel that changes is a key a frame and one more, back at the first, to close the
/// loop; one that does not is held by two keys, at the start and at the end, so that a still
/// clip lasts its frames. Every bone is keyed, its translation too: a clip may hold the root
/// somewhere other than the first animation puts it, and whatever clip played before, this
/// one says where each bone is.
fn animation_clip(
    name: &str,
    a: &Animation,
    d: &AnimationData,
    rig: &Rig,
    bones: &[Option<u32>],
) -> Clip {
    let frames = a.frames.max(1) as usize;
    let duration = frames as f32 / FPS;
    let times: Vec<f32> = (0..=frames).map(|f| f as f32 / FPS).collect();
    let mut tracks = Vec::new();
    for (b, slot) in rig.bones.iter().enumerate().take(a.bones as usize) {
        let (Some((bone, _)), Some(Some(node))) = (slot, bones.get(b)) else {
            continue;
        };
        let poses: Vec<Transform> = if moves(a, d, b) {
            (0..=frames)
                .map(|f| {
                    let (rot, tr) = frame(a, d, b, f % frames);
                    bone_transform(rot, tr, bone.length)
                })
                .collect()
        } else {
            let (rot, tr) = frame(a, d, b, 0);
            vec![bone_transform(rot, tr, bone.length)]
        };
        let held = |changes: bool| {
            if changes {
                times.clone()
            } else {
                vec![0.0, duration]
            }
        };
        let rotations_change = poses.iter().any(|p| p.rotation != poses[0].rotation);
        let rotations: Vec<f32> = if rotations_change {
            poses.iter().flat_map(|p| p.rotation).collect()
        } else {
            [poses[0].rotation; 2].concat()
        };
        tracks.push(Track {
            target: Target::Rotation(*node),
            times: held(rotations_change),
            values: rotations,
        });
        let translations_change = poses.iter().any(|p| p.translation != poses[0].translation);
        let translations: Vec<f32> = if translations_change {
            poses.iter().flat_map(|p| p.translation).collect()
        } else {
            [poses[0].translation; 2].concat()
        };
        tracks.push(Track {
            target: Target::Translation(*node),
            times: held(translations_change),
            values: translations,
        });
    }
    Clip {
        name: name.to_string(),
        duration,
        repeat: Repeat::Loop,
        tracks,
    }
}

/// The PlayStation's blend rule of a semi-transparent polygon (control byte bit 4 on,
/// bits 5–6 the rule).
fn blend_of(control: u8) -> Option<Blend> {
    (control & 0x10 != 0).then_some(match (control >> 5) & 3 {
        0 => Blend::Average,
        1 => Blend::Add,
        2 => Blend::Subtract,
        _ => Blend::AddQuarter,
    })
}

/// Where a model slot's eye or mouth sits in the face page, in texels: the stored texcoords
/// are slot 0's.
fn face_offset(feature: Feature, slot: usize) -> [u16; 2] {
    if feature == Feature::Eye {
        [(slot % 4) as u16 * 64, (slot / 4) as u16 * 32]
    } else {
        [(slot % 8) as u16 * 32, (slot / 8) as u16 * 32]
    }
}

/// A part's polygons as a mesh: a primitive per look. `own`: the part is this file's (not
/// from another file, a character's BCX, whose bytes no record of this file stands for).
/// `lit` is the part's data as the game's lighting lit it, where it did.
fn part_mesh(
    scene: &mut Scene,
    painter: &mut Painter,
    data: &PartData,
    own: bool,
    slot: usize,
    lit: Option<&[[[u8; 3]; 4]]>,
) -> u32 {
    let mut groups: Vec<(Look, Primitive)> = Vec::new();
    for (p, poly) in data.polygons.iter().enumerate() {
        let (look, offset) = look_of(poly, data, painter, slot);
        let at = match groups.iter().position(|(l, _)| *l == look) {
            Some(i) => i,
            None => {
                let material = material_for(scene, painter, look);
                groups.push((
                    look,
                    Primitive {
                        material: Some(material),
                        positions: Vec::new(),
                        colors: Some(Vec::new()),
                        lit_colors: lit.map(|_| Vec::new()),
                        uvs: (look != Look::Plain).then(Vec::new),
                        ..Default::default()
                    },
                ));
                groups.len() - 1
            }
        };
        // A face page with the shut eyes below the open ones is twice as tall.
        let height = if matches!(look, Look::FacePage(.., s) if painter.blinks(s)) {
            512.0
        } else {
            256.0
        };
        let prim = &mut groups[at].1;
        let tri = push_polygon(prim, poly, data, lit.and_then(|l| l.get(p)), offset, height);
        if own {
            note_source(prim, poly, tri);
        }
    }
    scene.add_mesh(Mesh {
        name: None,
        primitives: groups.into_iter().map(|(_, p)| p).collect(),
    })
}

/// How polygon `poly` of the part in model slot `slot` is drawn (its texture flag through its
/// control byte, the face page of the slot's face where it has one), and the offset of its
/// texcoords on that page.
fn look_of(poly: &Polygon, data: &PartData, painter: &Painter, slot: usize) -> (Look, [u16; 2]) {
    let control = poly
        .control
        .and_then(|c| data.control.get(c as usize))
        .copied();
    let Some(&word) = control.and_then(|c| data.flags.get((c & 0xF) as usize)) else {
        return (Look::Plain, [0, 0]);
    };
    let flag = TextureFlag::of(word);
    let blend = control.and_then(blend_of);
    match flag.kind {
        TextureKind::Own => (Look::Page(flag.key, blend), [0, 0]),
        TextureKind::Face(feature) if painter.faced.get(slot).copied().unwrap_or(false) => {
            // The engine adds the slot to the face CLUT's row, and samples the slot's images.
            let key = PageKey {
                clut_y: flag.key.clut_y + slot as u16,
                ..flag.key
            };
            (Look::FacePage(key, blend, slot), face_offset(feature, slot))
        }
        kind => (Look::Face(kind), [0, 0]),
    }
}

/// Polygon `poly`'s corners into `prim` (positions, colours stored and lit by `lit`, its
/// texcoords at `offset` on a page `height` texels tall) and its triangles → the index of its
/// first triangle.
fn push_polygon(
    prim: &mut Primitive,
    poly: &Polygon,
    data: &PartData,
    lit: Option<&[[u8; 3]; 4]>,
    offset: [u16; 2],
    height: f32,
) -> u32 {
    let corners = poly.kind.corners();
    let first = prim.positions.len() as u32;
    let textured = poly.kind.textured();
    // Textured polygons modulate texels by colour / 128 (0x80 leaves them as they are).
    let scale = |x: u8| {
        if textured {
            (x as u16 * 2).min(255) as u8
        } else {
            x
        }
    };
    for c in 0..corners {
        let v = data.vertices[poly.vertices[c] as usize];
        let word = if poly.kind.gouraud() { c } else { 0 };
        let col = poly.colors[word];
        let tc = data
            .texcoords
            .get(poly.texcoords[c] as usize)
            .copied()
            .unwrap_or([0, 0]);
        prim.positions.push([v[0] as f32, v[1] as f32, v[2] as f32]);
        if let Some(colors) = prim.colors.as_mut() {
            colors.push([scale(col[0]), scale(col[1]), scale(col[2]), 255]);
        }
        if let (Some(colors), Some(l)) = (prim.lit_colors.as_mut(), lit) {
            let [r, g, b] = l[word];
            colors.push([scale(r), scale(g), scale(b), 255]);
        }
        if let Some(uvs) = prim.uvs.as_mut() {
            uvs.push([
                (tc[0] as u16 + offset[0]) as f32 / 256.0,
                (tc[1] as u16 + offset[1]) as f32 / height,
            ]);
        }
    }
    let tri = prim.indices.len() as u32 / 3;
    // Quads in the console's Z order (v0 v1 / v2 v3): (0,1,2) and (1,3,2).
    prim.indices.extend([first, first + 1, first + 2]);
    if corners == 4 {
        prim.indices.extend([first + 1, first + 3, first + 2]);
    }
    tri
}

/// The record polygon `poly` (whose triangles start at `tri`) came from, as a run of the
/// primitive's sources: its own bytes; a polygon right after the last of the same record
/// extends its run.
fn note_source(prim: &mut Primitive, poly: &Polygon, tri: u32) {
    let record = poly.bytes();
    let tris = poly.kind.corners() as u32 - 2;
    let continues = prim.sources.last().is_some_and(|r| {
        r.record == record
            && r.start + ((tri - r.first) / tris) as usize * poly.kind.size() == poly.offset
    });
    if !continues {
        prim.sources.push(SourceRun {
            first: tri,
            record,
            start: poly.offset,
            face_len: poly.kind.size() as u32,
            tris_per_face: tris,
        });
    }
}

/// The texture of VRAM page `key` as `look` shows it (a face page that blinks holds its
/// open and shut eyes), added to the scene. → its name and texture.
fn add_page(
    scene: &mut Scene,
    painter: &mut Painter,
    look: Look,
    key: PageKey,
    semi_transparent: bool,
) -> (String, u32) {
    let t = scene.textures.len() as u32;
    let semi = if semi_transparent {
        ", semi-transparent"
    } else {
        ""
    };
    let name = format!(
        "page ({}, {}) clut ({}, {}) {:?}{semi}",
        key.page_x, key.page_y, key.clut_x, key.clut_y, key.depth
    );
    let (texels, blinking) = match look {
        Look::FacePage(.., slot) if painter.blinks(slot) => {
            // The open eyes above, the shut ones below: the blink moves down to them.
            painter.blinking.push(scene.materials.len() as u32);
            (
                painter.blinking_page(key, semi_transparent, slot),
                Some(slot),
            )
        }
        _ => (painter.vram.page(key, semi_transparent), None),
    };
    scene.textures.push(Texture {
        name: Some(name.clone()),
        texels,
        file: None,
        nearest: true,
        stand_in: false,
    });
    painter.pages.push((key, blinking));
    (name, t)
}

fn material_for(scene: &mut Scene, painter: &mut Painter, look: Look) -> u32 {
    if let Some(&m) = painter.looks.get(&look) {
        return m;
    }
    // A page past the budget: its polygons keep their colours, untextured. A face page that
    // blinks holds two pages.
    let pages = match look {
        Look::Page(..) => 1,
        Look::FacePage(.., slot) => 1 + usize::from(painter.blinks(slot)),
        _ => 0,
    };
    if pages > 0 && !painter.budget.afford(Cost::Texture, pages * 256 * 256 * 4) {
        let plain = material_for(scene, painter, Look::Plain);
        painter.looks.insert(look, plain);
        return plain;
    }
    let (name, texture, blend) = match look {
        Look::Plain => ("vertex colours".to_string(), None, None),
        Look::Page(key, blend) | Look::FacePage(key, blend, _) => {
            let (name, t) = add_page(scene, painter, look, key, blend.is_some());
            (name, Some(t), blend)
        }
        // Eyes and mouths come from FIELD.TDB: without it (or for a type no file uses), grey.
        Look::Face(kind) => (
            match kind {
                TextureKind::Face(Feature::Eye) => "eye (FIELD.TDB)".to_string(),
                TextureKind::Face(Feature::Mouth) => "mouth (FIELD.TDB)".to_string(),
                k => format!("texture type {} (not known)", k.bits()),
            },
            None,
            None,
        ),
    };
    let base = if matches!(look, Look::Face(_)) {
        [0.6, 0.6, 0.6, 1.0]
    } else {
        [1.0; 4]
    };
    let id = scene.materials.len() as u32;
    scene.materials.push(Material {
        name: Some(name),
        base_color: base,
        texture,
        untextured_color: None,
        double_sided: true,
        alpha_cutoff: texture.map(|_| if blend.is_some() { 0.25 } else { 0.5 }),
        blend,
        surface: Default::default(),
    });
    painter.looks.insert(look, id);
    id
}

impl Painter<'_> {
    /// Whether model slot `slot`'s face blinks.
    fn blinks(&self, slot: usize) -> bool {
        self.shut.get(slot).is_some_and(Option::is_some)
    }

    /// A blinking slot's face page above the same page with its eyes shut (256 × 512): the
    /// lower half is the upper one with the rows of the slot's eyes sampled again, its shut
    /// eyes put in VRAM for as long as that takes.
    fn blinking_page(&mut self, key: PageKey, semi: bool, slot: usize) -> Texels {
        let mut rgba = vec![0; 256 * 512 * 4];
        let (open, shut) = rgba.split_at_mut(256 * 1024);
        self.vram.page_rows(key, semi, 0..256, open);
        shut.copy_from_slice(open);
        if let Some(eyes) = self.shut.get(slot).cloned().flatten() {
            vram::with_eyes(&mut self.vram, slot, &eyes.left, &eyes.right, |v| {
                v.page_rows(key, semi, vram::eye_rows(key, slot), shut)
            });
        }
        Texels {
            width: 256,
            height: 512,
            rgba: std::sync::Arc::new(rgba),
        }
    }
}
