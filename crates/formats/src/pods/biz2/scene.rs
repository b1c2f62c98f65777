//! A DIV-BIZ2 model as a neutral scene: OBJECT → LOD → PATCH nodes, a mesh per patch with a
//! primitive per PMESH/TRISTRIP/…, light points as marker nodes, and materials resolved the
//! way the pods resolved them (materials.rs).

use super::materials::{find, resolve_map, Libraries, TextureStatus};
use super::special::{Behaviour, Words};
use super::{Biz2File, MaterialRef, Primitive};
use crate::scene::{
    Clip, LodLevel, Marker, Material, Mesh, Node, PartWords, Repeat, Scene, Surface, Target,
    Texture, Track, Transform,
};
use std::collections::HashMap;

/// The grey of a patch whose material is not found.
const GREY: [f32; 3] = [0.72, 0.72, 0.70];

/// What a patch's front material resolved to.
#[derive(Clone, Copy, Default)]
struct Resolved {
    diffuse: Option<[f32; 3]>,
    /// The material's own diffuse, where `diffuse` is white for texels that carry the colour.
    untextured: Option<[f32; 3]>,
    texture: Option<u32>,
    /// The scroll clip's material needs the texture's drift.
    scroll: Option<[f32; 4]>,
}

/// BLINK's cadence, which is ours (the files say only the word): shown for the first half
/// of each period, hidden for the second (docs/formats/biz2.md, "SPECIAL words").
pub const BLINK_PERIOD: f32 = 1.0;

/// The name of the clip that blinks a model's BLINK patches.
pub const BLINK_CLIP: &str = "BLINK (cadence: relicview's own)";

/// How a patch's words ask its triangles to be drawn.
fn surface_of(words: &Words) -> Surface {
    if words.has(Behaviour::Wireframe.word()) {
        Surface::Lines
    } else if words.behaviours.iter().any(Behaviour::is_additive) {
        Surface::Additive
    } else {
        Surface::Filled
    }
}

/// UNIT as the two sources read it (docs/formats/biz2.md, "Units"): code 1 is a metre by the
/// bgf notes, an inch by the b2z notes; other codes neither says.
fn unit_readings(unit: Option<u8>) -> Vec<crate::scene::UnitReading> {
    let reading = |source: &str, unit: &str, metres: f32| crate::scene::UnitReading {
        source: source.into(),
        unit: unit.into(),
        metres,
    };
    match unit {
        Some(1) => vec![
            reading("bgf notes", "metre", 1.0),
            reading("b2z notes", "inch", 0.0254),
        ],
        _ => Vec::new(),
    }
}

/// The model as a scene, with every material resolved as far as `assets` allows, and what
/// each textured material's map resolved to (for the info panel). `arrays`: each patch's
/// primitives in the model's order, moved into the scene (`file`'s own are not read).
pub fn build(
    model: &str,
    file: &Biz2File,
    arrays: Vec<Vec<Primitive>>,
    libraries: &Libraries<'_>,
) -> (Scene, Vec<TextureStatus>) {
    let mut builder = Builder {
        scene: Scene {
            name: crate::file_name(model).to_string(),
            units: unit_readings(file.header.unit),
            ..Default::default()
        },
        model,
        libraries,
        statuses: Vec::new(),
        resolved: HashMap::new(),
        shared_maps: HashMap::new(),
        materials: HashMap::new(),
        arrays: arrays.into_iter(),
        blinking: Vec::new(),
        layers: HashMap::new(),
        zones: Vec::new(),
    };
    // Every distinct front reference as drawn (the patch's own, else its object's): resolved once.
    let drawn = file.objects.iter().flat_map(|o| {
        o.lods
            .iter()
            .flat_map(|l| &l.patches)
            .map(move |p| p.front.as_ref().or(o.front.as_ref()))
    });
    for m in drawn {
        if let Some(MaterialRef::Named(r)) = m {
            if !builder.resolved.contains_key(r) {
                let front = builder.resolve_front(r);
                builder.resolved.insert(r.clone(), front);
            }
        }
    }
    let root = builder.scene.add_node(
        None,
        Node {
            name: Some(builder.scene.name.clone()),
            ..Default::default()
        },
    );
    (builder.layers, builder.zones) = builder.scene.layers_by_name();
    for object in &file.objects {
        builder.add_object(root, object);
    }
    builder.add_blink_clip();
    (builder.scene, builder.statuses)
}

/// A model's scene as it is built.
struct Builder<'a, 'l> {
    scene: Scene,
    model: &'a str,
    libraries: &'a Libraries<'l>,
    /// What each textured material's map resolved to.
    statuses: Vec<TextureStatus>,
    /// Each front reference drawn, as resolved.
    resolved: HashMap<String, Resolved>,
    /// One scene texture per decoded map file.
    shared_maps: HashMap<String, u32>,
    /// One scene material per (reference, whether the primitive brings its own colours, how
    /// the patch's words draw it).
    materials: HashMap<(Option<String>, bool, Surface), u32>,
    /// The patches' primitives, in the model's order.
    arrays: std::vec::IntoIter<Vec<Primitive>>,
    /// The nodes of patches that BLINK.
    blinking: Vec<u32>,
    /// The scene's layers by name, and which are damage zones.
    layers: HashMap<String, u32>,
    zones: Vec<bool>,
}

impl Builder<'_, '_> {
    /// Front reference `r` resolved: its diffuse, and its texture map decoded (one scene
    /// texture per map file, however many materials use it) or a checker.
    fn resolve_front(&mut self, r: &str) -> Resolved {
        let (model, libraries, assets) = (self.model, self.libraries, self.libraries.assets);
        let (scene, statuses, shared_maps) =
            (&mut self.scene, &mut self.statuses, &mut self.shared_maps);
        let found = find(libraries, model, r);
        let mut front = Resolved {
            diffuse: found.def.and_then(|d| d.diffuse),
            ..Default::default()
        };
        if let (Some(def), Some(library), Some(lib_path)) = (
            found.def,
            found.library,
            found.resolution.library.as_deref(),
        ) {
            if let Some(m) = resolve_map(assets, model, library, lib_path, def) {
                let (name, map, file_path, image, reason) =
                    (m.texture, m.map, m.file, m.image, m.reason);
                front.scroll = m.scroll;
                // One scene texture per decoded map file, however many materials use it (their
                // drift lives on the material); a checker is the material's own colour.
                let shared = file_path
                    .as_deref()
                    .filter(|_| reason.is_none())
                    .and_then(|p| shared_maps.get(p).copied());
                front.texture = Some(shared.unwrap_or_else(|| {
                    let index = scene.textures.len() as u32;
                    let texels = image
                        .cloned()
                        .unwrap_or_else(|| crate::texture::checker(front.diffuse.unwrap_or(GREY)));
                    scene.textures.push(Texture {
                        name: Some(name.to_string()),
                        texels,
                        file: file_path.clone().filter(|_| reason.is_none()),
                        nearest: false,
                        stand_in: reason.is_some(),
                    });
                    if let Some(p) = file_path.as_deref().filter(|_| reason.is_none()) {
                        shared_maps.insert(p.to_string(), index);
                    }
                    index
                }));
                // The texels carry the colour; the diffuse tint would darken them twice.
                if reason.is_none() {
                    front.untextured = Some(front.diffuse.unwrap_or(GREY));
                    front.diffuse = Some([1.0, 1.0, 1.0]);
                }
                statuses.push(TextureStatus {
                    material: r.to_string(),
                    texture: name.to_string(),
                    map: map.map(str::to_string),
                    file: file_path,
                    decoded: reason.is_none(),
                    reason,
                    scroll: front.scroll,
                });
            }
        }
        front
    }

    /// The scene material of a primitive drawn with `reference`, made the first time.
    fn material_for(
        &mut self,
        reference: Option<&String>,
        own_colours: bool,
        surface: Surface,
    ) -> u32 {
        let key = (reference.cloned(), own_colours, surface);
        if let Some(&id) = self.materials.get(&key) {
            return id;
        }
        let (scene, resolved) = (&mut self.scene, &self.resolved);
        let id = {
            let s = reference
                .and_then(|r| resolved.get(r))
                .copied()
                .unwrap_or_default();
            let [r, g, b] = if own_colours {
                [1.0; 3]
            } else {
                s.diffuse.unwrap_or(GREY)
            };
            // Vertex colours win over the material's colour, with a texture or without.
            let untextured_color = s
                .untextured
                .filter(|_| !own_colours)
                .map(|[r, g, b]| [r, g, b, 1.0]);
            let id = scene.materials.len() as u32;
            scene.materials.push(Material {
                name: reference.cloned(),
                base_color: [r, g, b, 1.0],
                texture: s.texture,
                untextured_color,
                double_sided: true,
                alpha_cutoff: None,
                blend: None,
                surface,
            });
            if let Some([u0, v0, du, dv]) = s.scroll {
                scene.clips.push(Clip {
                    name: format!("scroll {}", reference.map_or("", |r| r.as_str())),
                    duration: 1.0,
                    repeat: Repeat::Extrapolate,
                    tracks: vec![Track {
                        target: Target::UvOffset(id),
                        times: vec![0.0, 1.0],
                        values: vec![u0, v0, u0 + du, v0 + dv],
                    }],
                });
            }
            id
        };
        self.materials.insert(key, id);
        id
    }

    /// An object's node under `root`, its light points, and its levels of detail.
    fn add_object(&mut self, root: u32, object: &super::Object) {
        let scene = &mut self.scene;
        let object_node = scene.add_node(
            Some(root),
            Node {
                name: object.name.clone(),
                record: Some(object.record),
                ..Default::default()
            },
        );
        for (k, p) in object
            .points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.position.iter().all(|x| x.is_finite()))
        {
            let radius = p
                .radius
                .filter(|r| r.is_finite() && *r >= 0.0)
                .unwrap_or(0.0);
            let transform = Transform {
                translation: p.position,
                ..Default::default()
            };
            scene.add_node(
                Some(object_node),
                Node {
                    name: Some(format!("light point {k}")),
                    transform,
                    marker: Some(Marker::Light { radius }),
                    record: Some(p.record),
                    ..Default::default()
                },
            );
        }
        for (i, lod) in object.lods.iter().enumerate() {
            let scene = &mut self.scene;
            if scene.lods.len() <= i {
                scene.lods.push(LodLevel::default());
            }
            if scene.lods[i].distance.is_none() {
                scene.lods[i].distance = lod.distance;
            }
            let name = if lod.record.is_some() {
                format!("LOD {i}")
            } else {
                format!("LOD {i} (patches straight under OBJECT)")
            };
            let lod_node = self.scene.add_node(
                Some(object_node),
                Node {
                    name: Some(name),
                    lod: Some(i as u32),
                    record: lod.record,
                    ..Default::default()
                },
            );
            for patch in &lod.patches {
                self.add_patch(lod_node, object, patch);
            }
        }
    }

    /// A patch's node under `lod_node` with its mesh, its words and its materials.
    fn add_patch(&mut self, lod_node: u32, object: &super::Object, patch: &super::Patch) {
        let prims = self.arrays.next().unwrap_or_default();
        let front = match patch.front.as_ref().or(object.front.as_ref()) {
            Some(MaterialRef::Named(n)) => Some(n.clone()),
            _ => None,
        };
        let words = Words::read(
            object
                .specials
                .iter()
                .chain(&patch.specials)
                .map(String::as_str),
        );
        let surface = surface_of(&words);
        let primitives = prims
            .into_iter()
            .map(|p| {
                primitive(p, &mut |own| {
                    self.material_for(front.as_ref(), own, surface)
                })
            })
            .collect();
        let scene = &mut self.scene;
        let mesh = scene.add_mesh(Mesh {
            name: patch.name.clone(),
            primitives,
        });
        let part = (!words.is_empty()).then(|| {
            Box::new(PartWords {
                zones: words
                    .zones
                    .iter()
                    .map(|z| scene.zone_layer(z, &mut self.layers, &mut self.zones))
                    .collect(),
                words: words.spelled(),
            })
        });
        let node = scene.add_node(
            Some(lod_node),
            Node {
                name: patch.name.clone(),
                mesh: Some(mesh),
                record: Some(patch.record),
                part,
                ..Default::default()
            },
        );
        if words.has(Behaviour::Blink.word()) {
            self.blinking.push(node);
        }
    }

    /// The clip that blinks the BLINK patches, if any.
    fn add_blink_clip(&mut self) {
        if !self.blinking.is_empty() {
            let half = BLINK_PERIOD / 2.0;
            self.scene.clips.push(Clip {
                name: BLINK_CLIP.into(),
                duration: BLINK_PERIOD,
                repeat: Repeat::Loop,
                tracks: self
                    .blinking
                    .iter()
                    .map(|n| Track {
                        target: Target::Visibility(*n),
                        times: vec![0.0, half, BLINK_PERIOD],
                        values: vec![1.0, 0.0, 1.0],
                    })
                    .collect(),
            });
        }
    }
}

/// One primitive chunk as a scene primitive, its arrays moved, not copied.
fn primitive(prim: Primitive, material: &mut dyn FnMut(bool) -> u32) -> crate::scene::Primitive {
    let to_u8 = |c: [f32; 4]| c.map(|x| (x.clamp(0.0, 1.0) * 255.0 + 0.5) as u8);
    let v = prim.vertices;
    let own_colours = v.colors.is_some();
    // Vertex colours win over the material's colour; luminance scales it.
    let colors = match (&v.colors, &v.lum) {
        (Some(c), _) => Some(c.iter().map(|&c| to_u8(c)).collect()),
        (None, Some(l)) => Some(l.iter().map(|l| to_u8([l[0], l[0], l[0], l[1]])).collect()),
        (None, None) => None,
    };
    crate::scene::Primitive {
        positions: v.positions,
        normals: v.normals,
        colors,
        lit_colors: None,
        // A 3D texture coordinate samples the library's 2D maps by its u and v (the w stays
        // in the inspector): docs/formats/biz2.md, "Vertex blocks".
        uvs: v.uvs.or_else(|| {
            v.uvws
                .map(|uvw| uvw.into_iter().map(|[u, v, _]| [u, v]).collect())
        }),
        indices: prim.triangles.into_flattened(),
        material: Some(material(own_colours)),
        record: Some(prim.record),
        sources: prim.triangle_sources,
    }
}
