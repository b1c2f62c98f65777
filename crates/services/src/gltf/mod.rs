//! glTF 2.0 export of a neutral [`Scene`], as one binary .glb: meshes with positions,
//! normals, vertex colours and UVs; materials as a base colour factor with the texture
//! embedded as PNG (a scroll's start as a `KHR_texture_transform` offset); the node tree with
//! its names; light points as empty nodes; node TRS clips as animations.
//!
//! Levels of detail: glTF has no switch node. By default the export holds the LOD chosen (what
//! the viewer shows): importers such as Blender bring the nodes of *every* glTF scene into
//! one, which would stack the LODs. With `all_lods`, each LOD is its own glTF scene holding
//! the node tree as drawn at that LOD (the LOD's own node included), the default scene the
//! LOD chosen, for tools that read glTF scenes.
//!
//! Parts: a node that is part of damage zones (its file's words) sits under a node named by
//! its first zone (`dz_larm`), itself under the node of the object the zone belongs to (the
//! nearest node above that is not a level of detail); extras list all its zones and words. A
//! blinking node's visibility is a stepped scale animation (0 hidden, 1 shown).
//!
//! Colours: glTF's vertex colours and factors are linear, the files' are sRGB bytes, so both
//! are converted; PNG texels stay sRGB as glTF expects.
//!
//! Skeletons: a scene's skins (an FF7 model's bones) go out as glTF skins by default
//! ([`Rig::Skin`], the `skin` module), or as today's tree of bone nodes with a mesh on each
//! ([`Rig::Nodes`]). An export holds only what it places: the textures its materials sample,
//! the meshes its nodes place and the animation channels that reach its nodes.

mod skin;

pub use crate::scene::Rig;
use crate::scene::{ColourSet, NodeId, Scene, Target, Track, Transform};
use crate::texture::srgb_to_linear;
use glam::Mat4;
use gltf_json as json;
use json::validation::{Checked::Valid, USize64};
use json::Index;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which LOD the default glTF scene shows, and which layers are left out (what the viewer
/// hides: a file's other models, say). With `every_choice`, each option of the scene's
/// choice that shows other layers (each model of a file of several) is a glTF scene of its
/// own, the default the first. `colours`: the vertex colours written as COLOR_0; the
/// colours the game's lighting gave (where the scene has them) come with unlit materials
/// (KHR_materials_unlit), as the game drew them with no light on top. The page's core says
/// what is on show (`Viewer.glbOptions`) and its tools module exports with it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ExportOptions {
    pub lod: usize,
    pub hidden_layers: Vec<u32>,
    pub every_choice: bool,
    pub colours: ColourSet,
    /// Every LOD as a glTF scene of its own, not only `lod`.
    pub all_lods: bool,
    /// How a skeleton goes out.
    #[serde(default)]
    pub rig: Rig,
}

/// The glTF scenes of one LOD: each a name and the layers it leaves out.
fn views(scene: &Scene, options: &ExportOptions) -> Vec<(Option<String>, Vec<u32>)> {
    let Some(choice) = scene.choice.as_ref().filter(|_| options.every_choice) else {
        return vec![(None, options.hidden_layers.clone())];
    };
    let mut out: Vec<(Option<String>, Vec<u32>)> = Vec::new();
    for (k, option) in choice.options.iter().enumerate() {
        let mut hidden: Vec<u32> = options
            .hidden_layers
            .iter()
            .copied()
            .chain(choice.hidden_layers(k))
            .collect();
        hidden.sort_unstable();
        hidden.dedup();
        if !out.iter().any(|(_, h)| *h == hidden) {
            out.push((Some(option.label.clone()), hidden));
        }
    }
    if out.is_empty() {
        out.push((None, options.hidden_layers.clone()));
    }
    out
}

/// What goes into the binary chunk: derived from the scene's own arrays as it is written,
/// so a large model's data is never held twice.
enum Data<'a> {
    Bytes(Vec<u8>),
    /// Positions, with NaN and infinities (allowed in the files, not in glTF) as zero.
    FinitePositions(&'a [[f32; 3]]),
    /// Normals scaled to unit length (+Z where they have none).
    UnitNormals(&'a [[f32; 3]]),
    /// sRGB bytes as linear floats.
    LinearColors(&'a [[u8; 4]]),
    /// UVs, with NaN and infinities as zero.
    FiniteUvs(&'a [[f32; 2]]),
    ShortIndices(&'a [u32]),
    Indices(&'a [u32]),
}

impl Data<'_> {
    fn len(&self) -> usize {
        match self {
            Data::Bytes(b) => b.len(),
            Data::FinitePositions(v) | Data::UnitNormals(v) => v.len() * 12,
            Data::LinearColors(v) => v.len() * 16,
            Data::FiniteUvs(v) => v.len() * 8,
            Data::ShortIndices(v) => v.len() * 2,
            Data::Indices(v) => v.len() * 4,
        }
    }

    fn write(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        fn finite<const N: usize>(v: &[f32; N]) -> [f32; N] {
            if v.iter().all(|x| x.is_finite()) {
                *v
            } else {
                [0.0; N]
            }
        }
        fn floats<const N: usize>(
            w: &mut impl std::io::Write,
            values: impl Iterator<Item = [f32; N]>,
        ) -> std::io::Result<()> {
            for v in values {
                w.write_all(bytemuck::cast_slice(&v.map(f32::to_le_bytes)))?;
            }
            Ok(())
        }
        match self {
            Data::Bytes(b) => w.write_all(b),
            Data::FinitePositions(v) => floats(w, v.iter().map(finite)),
            Data::UnitNormals(v) => floats(
                w,
                v.iter().map(|n| {
                    glam::Vec3::from(*n)
                        .try_normalize()
                        .unwrap_or(glam::Vec3::Z)
                        .to_array()
                }),
            ),
            Data::LinearColors(v) => floats(w, v.iter().map(linear_colour)),
            Data::FiniteUvs(v) => floats(w, v.iter().map(finite)),
            Data::ShortIndices(v) => v
                .iter()
                .try_for_each(|&i| w.write_all(&(i as u16).to_le_bytes())),
            Data::Indices(v) => v.iter().try_for_each(|&i| w.write_all(&i.to_le_bytes())),
        }
    }
}

/// A vertex colour of sRGB bytes as glTF's linear floats (its alpha as it is).
fn linear_colour(c: &[u8; 4]) -> [f32; 4] {
    [
        srgb_to_linear(c[0] as f32 / 255.0),
        srgb_to_linear(c[1] as f32 / 255.0),
        srgb_to_linear(c[2] as f32 / 255.0),
        c[3] as f32 / 255.0,
    ]
}

/// The JSON, and the views of the binary chunk it points into.
struct Builder<'a> {
    root: json::Root,
    data: Vec<Data<'a>>,
    bin_len: usize,
}

fn aligned(n: usize) -> usize {
    n.div_ceil(4) * 4
}

impl<'a> Builder<'a> {
    fn view(
        &mut self,
        data: Data<'a>,
        target: Option<json::buffer::Target>,
    ) -> Index<json::buffer::View> {
        let (offset, len) = (self.bin_len, data.len());
        self.bin_len = aligned(offset + len);
        self.data.push(data);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(len),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    fn accessor(
        &mut self,
        data: Data<'a>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        target: Option<json::buffer::Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<json::Accessor> {
        let view = self.view(data, target);
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min: bounds.as_ref().map(|(lo, _)| serde_json::json!(lo)),
            max: bounds.as_ref().map(|(_, hi)| serde_json::json!(hi)),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// `count` normalised integer values (weights in bytes: 255 is 1.0).
    fn normalised(
        &mut self,
        data: Data<'a>,
        count: usize,
        component: json::accessor::ComponentType,
        type_: json::accessor::Type,
        target: Option<json::buffer::Target>,
    ) -> Index<json::Accessor> {
        let index = self.accessor(data, count, component, type_, target, None);
        self.root.accessors[index.value()].normalized = true;
        index
    }

    /// `count` float vectors of width `N` (with their bounds, which glTF asks of
    /// positions and animation inputs, when given).
    fn floats<const N: usize>(
        &mut self,
        data: Data<'a>,
        count: usize,
        target: Option<json::buffer::Target>,
        bounds: Option<([f32; N], [f32; N])>,
    ) -> Index<json::Accessor> {
        use json::accessor::Type;
        let type_ = match N {
            1 => Type::Scalar,
            2 => Type::Vec2,
            3 => Type::Vec3,
            _ => Type::Vec4,
        };
        self.accessor(
            data,
            count,
            json::accessor::ComponentType::F32,
            type_,
            target,
            bounds.map(|(lo, hi)| (lo.to_vec(), hi.to_vec())),
        )
    }
}

/// Per-component bounds of vectors.
fn bounds<const N: usize>(values: impl Iterator<Item = [f32; N]>) -> ([f32; N], [f32; N]) {
    let mut lo = [f32::INFINITY; N];
    let mut hi = [f32::NEG_INFINITY; N];
    for v in values {
        for k in 0..N {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (lo, hi)
}

fn float_bytes<const N: usize>(values: &[[f32; N]]) -> Data<'static> {
    Data::Bytes(
        values
            .iter()
            .flat_map(|v| v.iter().flat_map(|x| x.to_le_bytes()))
            .collect(),
    )
}

/// The scene as a .glb file.
pub fn export_glb(scene: &Scene, options: ExportOptions) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    write_glb(scene, options, &mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Write the scene as a .glb to `out`: the JSON first, then the binary chunk straight from
/// the scene's arrays (a large model's data is held once, not twice). Returns the bytes
/// written. Each step below adds one kind of glTF object and hands the next what it made.
pub fn write_glb(
    scene: &Scene,
    options: ExportOptions,
    out: &mut impl std::io::Write,
) -> std::io::Result<usize> {
    let mut b = Builder {
        root: json::Root::default(),
        data: Vec::new(),
        bin_len: 0,
    };
    b.root.asset = json::Asset {
        generator: Some(format!("relicview {}", env!("CARGO_PKG_VERSION"))),
        ..Default::default()
    };
    let mut materials = Materials::new(&mut b, scene, &options);
    let lods = scene.lod_count();
    let exported: Vec<usize> = if options.all_lods {
        (0..lods).collect()
    } else {
        vec![options.lod.min(lods - 1)]
    };
    let views = views(scene, &options);
    let visible: Vec<Vec<bool>> = exported
        .iter()
        .flat_map(|&lod| {
            views
                .iter()
                .map(move |(_, hidden)| scene.visible_in(lod, hidden))
        })
        .collect();
    let (mut skins, absorbed) = if options.rig == Rig::Skin {
        skin::plan(scene, &visible)
    } else {
        (Vec::new(), vec![false; scene.nodes.len()])
    };
    let used = meshes_placed(scene, &visible, &absorbed);
    let meshes = add_meshes(&mut b, scene, &used, options.colours, &mut materials)?;
    skin::add_skin_meshes(
        &mut b,
        scene,
        &mut skins,
        &absorbed,
        options.colours,
        &mut materials,
    )?;
    let copies = add_scenes(&mut b, scene, &exported, &views, &meshes, &absorbed, &skins);
    let chosen = exported
        .iter()
        .position(|&l| l == options.lod.min(lods - 1))
        .unwrap_or(0);
    b.root.scene = Some(Index::new((chosen * views.len()) as u32));
    add_animations(&mut b, scene, &copies);
    if b.bin_len > 0 {
        b.root.push(json::Buffer {
            byte_length: USize64::from(b.bin_len),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    validate(&b.root)?;
    write_framed(&b, out)
}

/// Scene texture `t` embedded as PNG, with a sampler for textures that smooth far away and
/// one for those sampled texel by texel (emulated console VRAM), each sampler written once,
/// when first used. Made when a material first samples it: an export holds only the textures
/// it draws with.
fn add_texture(
    b: &mut Builder,
    samplers: &mut [Option<Index<json::texture::Sampler>>; 2],
    t: &crate::scene::Texture,
) -> std::io::Result<Index<json::Texture>> {
    let sampler = *samplers[t.nearest as usize].get_or_insert_with(|| {
        b.root.push(json::texture::Sampler {
            // Texels are big on screen in these games: kept crisp up close.
            mag_filter: Some(Valid(json::texture::MagFilter::Nearest)),
            min_filter: Some(Valid(if t.nearest {
                json::texture::MinFilter::Nearest
            } else {
                json::texture::MinFilter::LinearMipmapLinear
            })),
            name: None,
            wrap_s: Valid(json::texture::WrappingMode::Repeat),
            wrap_t: Valid(json::texture::WrappingMode::Repeat),
            extensions: None,
            extras: Default::default(),
        })
    });
    let png = crate::texture::encode_png(&t.texels).map_err(|e| {
        std::io::Error::other(format!("texture {}: {e}", t.name.as_deref().unwrap_or("")))
    })?;
    let view = b.view(Data::Bytes(png), None);
    let image = b.root.push(json::Image {
        buffer_view: Some(view),
        mime_type: Some(json::image::MimeType("image/png".into())),
        name: t.name.clone(),
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    Ok(b.root.push(json::Texture {
        name: t.name.clone(),
        sampler: Some(sampler),
        source: image,
        extensions: None,
        extras: Default::default(),
    }))
}

/// Materials, made as primitives ask for them: a material as the file has it, and its
/// untextured twin for primitives that cannot sample its texture (no UVs; see
/// `Scene::texture_of`: glTF forbids a base colour texture without TEXCOORD_0). A scrolling
/// texture starts at its clip's offset at t = 0.
struct Materials<'s> {
    scene: &'s Scene,
    /// The glTF texture of each scene texture, once a material samples it.
    textures: Vec<Option<Index<json::Texture>>>,
    samplers: [Option<Index<json::texture::Sampler>>; 2],
    offsets: Vec<[f32; 2]>,
    scrolling: Vec<u32>,
    /// The lit colours go out with unlit materials (KHR_materials_unlit).
    unlit: bool,
    made: BTreeMap<(u32, bool), Index<json::Material>>,
}

impl<'s> Materials<'s> {
    fn new(b: &mut Builder, scene: &'s Scene, options: &ExportOptions) -> Materials<'s> {
        let unlit = options.colours == ColourSet::Lit && scene.has_lit_colours();
        if unlit {
            b.root.extensions_used.push("KHR_materials_unlit".into());
        }
        Materials {
            scene,
            textures: vec![None; scene.textures.len()],
            samplers: [None, None],
            offsets: scene.uv_offsets(0.0),
            scrolling: scene.scrolling_materials(),
            unlit,
            made: BTreeMap::new(),
        }
    }

    /// The material primitive `p` is drawn with, as its shading says (`Scene::shading`, the
    /// one place that decides): its material with its texture, or its untextured twin. Each
    /// is made once.
    fn of(
        &mut self,
        b: &mut Builder,
        p: &crate::scene::Primitive,
    ) -> std::io::Result<Option<Index<json::Material>>> {
        let Some((id, m)) = p
            .material
            .and_then(|id| Some((id, self.scene.materials.get(id as usize)?)))
        else {
            return Ok(None);
        };
        let shading = self.scene.shading(p);
        let textured = shading.texture.is_some();
        if let Some(&index) = self.made.get(&(id, textured)) {
            return Ok(Some(index));
        }
        let [r, g, bl, a] = shading.base_color;
        let base_color_texture = self.base_color_texture(b, id, shading.texture)?;
        let index = b.root.push(json::Material {
            name: m.name.clone(),
            double_sided: m.double_sided,
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([
                    srgb_to_linear(r),
                    srgb_to_linear(g),
                    srgb_to_linear(bl),
                    a.clamp(0.0, 1.0),
                ]),
                base_color_texture,
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                ..Default::default()
            },
            // glTF blends one way, "over": a semi-transparent material's half-transparent
            // texels come out right for the average rule and as half-transparent for the
            // additive and subtractive ones (docs/formats/bsx.md, "Semi-transparency").
            alpha_mode: Valid(match (m.blend, m.alpha_cutoff) {
                (Some(_), _) => json::material::AlphaMode::Blend,
                (None, Some(_)) => json::material::AlphaMode::Mask,
                (None, None) => json::material::AlphaMode::Opaque,
            }),
            alpha_cutoff: m
                .alpha_cutoff
                .filter(|_| m.blend.is_none())
                .map(json::material::AlphaCutoff),
            extensions: self.unlit.then_some(json::extensions::material::Material {
                unlit: Some(json::extensions::material::Unlit {}),
            }),
            ..Default::default()
        });
        self.made.insert((id, textured), index);
        Ok(Some(index))
    }

    /// The base colour texture of material `id` drawn with the scene's texture `texture`:
    /// that texture, added once, with the material's scroll as KHR_texture_transform.
    fn base_color_texture(
        &mut self,
        b: &mut Builder,
        id: u32,
        texture: Option<u32>,
    ) -> std::io::Result<Option<json::texture::Info>> {
        let texture =
            match texture.and_then(|t| Some((t as usize, self.scene.textures.get(t as usize)?))) {
                Some((t, _)) if self.textures[t].is_some() => self.textures[t],
                Some((t, texture)) => {
                    let made = add_texture(b, &mut self.samplers, texture)?;
                    self.textures[t] = Some(made);
                    Some(made)
                }
                None => None,
            };
        let base_color_texture = texture.map(|index| {
            let transform =
                self.scrolling
                    .contains(&id)
                    .then(|| json::extensions::texture::TextureTransform {
                        offset: json::extensions::texture::TextureTransformOffset(
                            self.offsets[id as usize],
                        ),
                        // Written out: left empty, gltf-json writes `null`, which validators reject.
                        tex_coord: Some(0),
                        ..Default::default()
                    });
            json::texture::Info {
                index,
                tex_coord: 0,
                extensions: transform.map(|t| json::extensions::texture::Info {
                    texture_transform: Some(t),
                }),
                extras: Default::default(),
            }
        });
        if base_color_texture
            .as_ref()
            .is_some_and(|t| t.extensions.is_some())
            && !b
                .root
                .extensions_used
                .iter()
                .any(|e| e == "KHR_texture_transform")
        {
            b.root.extensions_used.push("KHR_texture_transform".into());
        }
        Ok(base_color_texture)
    }
}

/// Which of the scene's meshes some node places in an exported LOD and view (`visible`, a
/// node mask per glTF scene), other than a node whose mesh a skin took (`absorbed`): only
/// those go out.
fn meshes_placed(scene: &Scene, visible: &[Vec<bool>], absorbed: &[bool]) -> Vec<bool> {
    let mut used = vec![false; scene.meshes.len()];
    for shown in visible {
        for ((n, &shown), &taken) in scene.nodes.iter().zip(shown).zip(absorbed) {
            if let Some(u) = n
                .mesh
                .filter(|_| shown && !taken)
                .and_then(|m| used.get_mut(m as usize))
            {
                *u = true;
            }
        }
    }
    used
}

/// One glTF primitive per scene primitive that has triangles, for the meshes `used` marks;
/// the glTF mesh of each scene mesh (None where it does not go out or has no triangles).
fn add_meshes<'a>(
    b: &mut Builder<'a>,
    scene: &'a Scene,
    used: &[bool],
    colours: ColourSet,
    materials: &mut Materials,
) -> std::io::Result<Vec<Option<Index<json::Mesh>>>> {
    let mut meshes = Vec::new();
    for (mesh, &u) in scene.meshes.iter().zip(used) {
        if !u {
            meshes.push(None);
            continue;
        }
        let mut primitives = Vec::new();
        for p in mesh.primitives.iter().filter(|p| !p.indices.is_empty()) {
            primitives.push(add_primitive(b, p, colours, materials)?);
        }
        meshes.push((!primitives.is_empty()).then(|| {
            b.root.push(json::Mesh {
                extensions: None,
                extras: Default::default(),
                name: mesh.name.clone(),
                primitives,
                weights: None,
            })
        }));
    }
    Ok(meshes)
}

/// A scene primitive with triangles as a glTF primitive: its vertex attributes (positions
/// made finite, normals, the `colours` set, UVs), its indices and its material.
fn add_primitive<'a>(
    b: &mut Builder<'a>,
    p: &'a crate::scene::Primitive,
    colours: ColourSet,
    materials: &mut Materials,
) -> std::io::Result<json::mesh::Primitive> {
    use json::buffer::Target as T;
    let n = p.positions.len();
    // Vertices no triangle uses may hold NaN (the file's own): glTF allows no NaN.
    let finite = p.positions.iter().map(|v| {
        if v.iter().all(|x| x.is_finite()) {
            *v
        } else {
            [0.0; 3]
        }
    });
    let mut attributes = BTreeMap::new();
    attributes.insert(
        Valid(json::mesh::Semantic::Positions),
        b.floats(
            Data::FinitePositions(&p.positions),
            n,
            Some(T::ArrayBuffer),
            Some(bounds(finite)),
        ),
    );
    if let Some(normals) = p.normals.as_ref().filter(|v| v.len() == n) {
        attributes.insert(
            Valid(json::mesh::Semantic::Normals),
            b.floats::<3>(Data::UnitNormals(normals), n, Some(T::ArrayBuffer), None),
        );
    }
    if let Some(colors) = p.colours(colours).filter(|v| v.len() == n) {
        attributes.insert(
            Valid(json::mesh::Semantic::Colors(0)),
            b.floats::<4>(Data::LinearColors(colors), n, Some(T::ArrayBuffer), None),
        );
    }
    if let Some(uvs) = p.uvs.as_ref().filter(|v| v.len() == n) {
        attributes.insert(
            Valid(json::mesh::Semantic::TexCoords(0)),
            b.floats::<2>(Data::FiniteUvs(uvs), n, Some(T::ArrayBuffer), None),
        );
    }
    let count = p.indices.len();
    let (data, component) = if n <= u16::MAX as usize {
        (
            Data::ShortIndices(&p.indices),
            json::accessor::ComponentType::U16,
        )
    } else {
        (
            Data::Indices(&p.indices),
            json::accessor::ComponentType::U32,
        )
    };
    let indices = b.accessor(
        data,
        count,
        component,
        json::accessor::Type::Scalar,
        Some(T::ElementArrayBuffer),
        None,
    );
    Ok(json::mesh::Primitive {
        attributes,
        extensions: None,
        extras: Default::default(),
        indices: Some(indices),
        material: materials.of(b, p)?,
        mode: Valid(json::mesh::Mode::Triangles),
        targets: None,
    })
}

/// One glTF scene per LOD exported and view (each option's layers, for every choice): the
/// node tree as drawn there. For each, the glTF node of each scene node (None where hidden).
fn add_scenes(
    b: &mut Builder,
    scene: &Scene,
    exported: &[usize],
    views: &[(Option<String>, Vec<u32>)],
    meshes: &[Option<Index<json::Mesh>>],
    absorbed: &[bool],
    skins: &[skin::SkinOut],
) -> Vec<Vec<Option<Index<json::Node>>>> {
    // Each node's children, in the order they were added (a child always follows its parent).
    let mut children_of: Vec<Vec<NodeId>> = vec![Vec::new(); scene.nodes.len()];
    for (i, n) in scene.nodes.iter().enumerate() {
        if let Some(p) = n.parent.filter(|&p| (p as usize) < i) {
            children_of[p as usize].push(i as NodeId);
        }
    }
    // A zoned node's object (its owner) and its transform from there (the levels of detail
    // between them included).
    let zoned: Vec<Option<(NodeId, u32, Transform)>> = (0..scene.nodes.len())
        .map(|i| zone_placement(scene, i))
        .collect();
    let lods = scene.lod_count();
    let cameras = add_cameras(b, scene);
    let mut copies = Vec::new();
    for &lod in exported {
        for (label, hidden) in views {
            // A part whose mesh a skin took is no node of its own.
            let visible: Vec<bool> = scene
                .visible_in(lod, hidden)
                .into_iter()
                .zip(absorbed)
                .map(|(shown, &taken)| shown && !taken)
                .collect();
            let index = add_node_tree(b, scene, &visible, &children_of, &zoned, meshes);
            let mut roots: Vec<Index<json::Node>> =
                scene.roots().filter_map(|r| index[r as usize]).collect();
            skin::place_skins(b, scene, skins, &index, &mut roots);
            roots.extend(&cameras);
            let mut name = if lods > 1 {
                format!("{} (LOD {lod})", scene.name)
            } else {
                scene.name.clone()
            };
            if let Some(label) = label {
                name = format!("{name}: {label}");
            }
            b.root.push(json::Scene {
                extensions: None,
                extras: Default::default(),
                name: Some(name),
                nodes: roots,
            });
            copies.push(index);
        }
    }
    copies
}

/// The scene's game cameras (an FF7 field's) as glTF perspective cameras on nodes of their
/// own at the scene's root, in every glTF scene: where the camera is, looking along its
/// third row with its picture's up, its frame's height as the vertical field of view (a
/// glTF camera is centred: an uneven frame is widened to its larger side).
fn add_cameras(b: &mut Builder, scene: &Scene) -> Vec<Index<json::Node>> {
    scene
        .ff7
        .cameras
        .iter()
        .map(|c| {
            let row = |i: usize| glam::Vec3::from(c.rotation[i]).normalize_or_zero();
            // glTF's camera looks down its −Z with +Y up: its axes in the scene.
            let axes = glam::Mat3::from_cols(row(0), -row(1), -row(2));
            let [x0, y0, x1, y1] = c.frame.map(|v| v as f32);
            let (half_x, half_y) = (x0.abs().max(x1.abs()).max(1.0), y0.abs().max(y1.abs()).max(1.0));
            let projection = c.projection.max(1.0);
            let camera = b.root.push(json::Camera {
                name: Some(c.name.clone()),
                orthographic: None,
                perspective: Some(json::camera::Perspective {
                    aspect_ratio: Some(half_x / half_y),
                    yfov: 2.0 * (half_y / projection).atan(),
                    zfar: None,
                    znear: 1.0,
                    extensions: None,
                    extras: Default::default(),
                }),
                type_: Valid(json::camera::Type::Perspective),
                extensions: None,
                extras: Default::default(),
            });
            b.root.push(json::Node {
                name: Some(c.name.clone()),
                camera: Some(camera),
                translation: Some(c.eye()),
                rotation: Some(json::scene::UnitQuaternion(glam::Quat::from_mat3(&axes).normalize().to_array())),
                extras: extras(&serde_json::json!({ "projection": c.projection, "frame": c.frame, "notes": c.notes })),
                ..Default::default()
            })
        })
        .collect()
}

/// The nodes `visible` marks, children before parents so that each parent lists them; a
/// zoned node under its first zone's node, which sits under the zone's object. The glTF node
/// of each scene node.
fn add_node_tree(
    b: &mut Builder,
    scene: &Scene,
    visible: &[bool],
    children_of: &[Vec<NodeId>],
    zoned: &[Option<(NodeId, u32, Transform)>],
    meshes: &[Option<Index<json::Mesh>>],
) -> Vec<Option<Index<json::Node>>> {
    let mut index: Vec<Option<Index<json::Node>>> = vec![None; scene.nodes.len()];
    // The zone nodes' children, by (owner, zone), filled as the zoned nodes are made; every
    // zone a shown node names has a node, its parts under its first zone's.
    let mut zone_children: BTreeMap<(NodeId, u32), Vec<Index<json::Node>>> = BTreeMap::new();
    for (i, z) in zoned.iter().enumerate().filter(|(i, _)| visible[*i]) {
        if let (Some((owner, _, _)), Some(part)) = (z, scene.nodes[i].part.as_ref()) {
            for &zone in &part.zones {
                zone_children.entry((*owner, zone)).or_default();
            }
        }
    }
    for i in (0..scene.nodes.len()).rev() {
        if !visible[i] {
            continue;
        }
        let n = &scene.nodes[i];
        let mut children: Vec<Index<json::Node>> = children_of[i]
            .iter()
            .filter(|&&c| zoned[c as usize].is_none())
            .filter_map(|&c| index.get(c as usize).copied().flatten())
            .collect();
        // The zones this node owns, in the order of the scene's layers.
        let owned: Vec<u32> = zone_children
            .range((i as NodeId, 0)..=(i as NodeId, u32::MAX))
            .map(|(&(_, z), _)| z)
            .collect();
        for z in owned {
            let members = zone_children.remove(&(i as NodeId, z)).unwrap_or_default();
            children.push(add_zone_node(b, scene, z, members));
        }
        let t: Transform = zoned[i].map_or(n.transform, |(_, _, t)| t);
        let mesh = n
            .mesh
            .and_then(|m| meshes.get(m as usize).copied().flatten());
        let made = add_node(b, scene, n, t, mesh, children);
        index[i] = Some(made);
        if let Some((owner, zone, _)) = zoned[i] {
            zone_children
                .entry((owner, zone))
                .or_default()
                .insert(0, made);
        }
    }
    index
}

/// Zone `z`'s node, holding its `members` (a zone whose parts all sit under another zone,
/// their first, is an empty node).
fn add_zone_node(
    b: &mut Builder,
    scene: &Scene,
    z: u32,
    members: Vec<Index<json::Node>>,
) -> Index<json::Node> {
    let name = scene.layers.get(z as usize).cloned();
    // A zone whose parts all sit under another zone (their first) is an empty node.
    let members = (!members.is_empty()).then_some(members);
    b.root.push(json::Node {
        name: name.clone(),
        children: members,
        extras: extras(&serde_json::json!({ "zone": name })),
        ..Default::default()
    })
}

/// Scene node `n` as a glTF node, at transform `t`, drawing `mesh`, over `children`; a part
/// says its zones and words in its extras.
fn add_node(
    b: &mut Builder,
    scene: &Scene,
    n: &crate::scene::Node,
    t: Transform,
    mesh: Option<Index<json::Mesh>>,
    children: Vec<Index<json::Node>>,
) -> Index<json::Node> {
    let d = Transform::default();
    let extras = n.part.as_ref().map_or(Default::default(), |p| {
        let zones: Vec<&str> = p
            .zones
            .iter()
            .filter_map(|&z| scene.layers.get(z as usize).map(String::as_str))
            .collect();
        extras(&serde_json::json!({ "zones": zones, "words": p.words }))
    });
    b.root.push(json::Node {
        name: n.name.clone(),
        mesh,
        children: (!children.is_empty()).then_some(children),
        translation: (t.translation != d.translation).then_some(t.translation),
        rotation: (t.rotation != d.rotation).then(|| {
            json::scene::UnitQuaternion(glam::Quat::from_array(t.rotation).normalize().to_array())
        }),
        scale: (t.scale != d.scale).then_some(t.scale),
        extras,
        ..Default::default()
    })
}

/// Node TRS clips as animations, each channel aimed at every copy of its node (one copy per
/// glTF scene); a visibility track is a stepped scale. A track whose node no glTF scene holds
/// (another model's bone) stays out, and a clip left with no channel with it. Tracks with the
/// same key times share one input accessor. UV offset and glow tracks have no core glTF
/// target and stay out.
fn add_animations(b: &mut Builder, scene: &Scene, copies: &[Vec<Option<Index<json::Node>>>]) {
    let mut inputs: BTreeMap<Vec<u32>, Index<json::Accessor>> = BTreeMap::new();
    for clip in &scene.clips {
        let mut channels = Vec::new();
        let mut samplers = Vec::new();
        for track in &clip.tracks {
            let (node, path) = match track.target {
                Target::Translation(n) => (n, json::animation::Property::Translation),
                Target::Rotation(n) => (n, json::animation::Property::Rotation),
                Target::Scale(n) | Target::Visibility(n) => (n, json::animation::Property::Scale),
                Target::UvOffset(_) | Target::Glow(_) => continue,
            };
            let targets: Vec<Index<json::Node>> = copies
                .iter()
                .filter_map(|copy| copy.get(node as usize).copied().flatten())
                .collect();
            let stepped = matches!(track.target, Target::Visibility(_));
            let w = track.target.width();
            let keys = track.times.len().min(track.values.len() / w);
            if keys == 0 || targets.is_empty() {
                continue;
            }
            let times = &track.times[..keys];
            let input = *inputs
                .entry(times.iter().map(|t| t.to_bits()).collect())
                .or_insert_with(|| {
                    let times: Vec<[f32; 1]> = times.iter().map(|&t| [t]).collect();
                    b.floats(
                        float_bytes(&times),
                        keys,
                        None,
                        Some(bounds(times.iter().copied())),
                    )
                });
            let output = add_track_values(b, track, keys);
            let sampler = Index::new(samplers.len() as u32);
            samplers.push(json::animation::Sampler {
                extensions: None,
                extras: Default::default(),
                input,
                interpolation: Valid(if stepped {
                    json::animation::Interpolation::Step
                } else {
                    json::animation::Interpolation::Linear
                }),
                output,
            });
            for target in targets {
                channels.push(json::animation::Channel {
                    sampler,
                    target: json::animation::Target {
                        extensions: None,
                        extras: Default::default(),
                        node: target,
                        path: Valid(path),
                    },
                    extensions: None,
                    extras: Default::default(),
                });
            }
        }
        if !channels.is_empty() {
            b.root.push(json::Animation {
                extensions: None,
                extras: Default::default(),
                channels,
                name: Some(clip.name.clone()),
                samplers,
            });
        }
    }
}

/// A track's first `keys` values as an output accessor: a visibility track as a stepped
/// scale (0 or 1), rotations as unit quaternions, the rest as they are.
fn add_track_values(b: &mut Builder, track: &Track, keys: usize) -> Index<json::Accessor> {
    if matches!(track.target, Target::Visibility(_)) {
        let v: Vec<[f32; 3]> = track.values[..keys]
            .iter()
            .map(|&v| if v < 0.5 { [0.0; 3] } else { [1.0; 3] })
            .collect();
        b.floats::<3>(float_bytes(&v), keys, None, None)
    } else if track.target.width() == 4 {
        let q: Vec<[f32; 4]> = track.values[..keys * 4]
            .chunks_exact(4)
            .map(|v| glam::Quat::from_slice(v).normalize().to_array())
            .collect();
        b.floats::<4>(float_bytes(&q), keys, None, None)
    } else {
        let v: Vec<[f32; 3]> = track.values[..keys * 3]
            .chunks_exact(3)
            .map(|v| [v[0], v[1], v[2]])
            .collect();
        b.floats::<3>(float_bytes(&v), keys, None, None)
    }
}

/// gltf-json's own validation (every index in range, every required field): an export that
/// fails it is our bug, and an error rather than a file a viewer chokes on. Every export the
/// tests make passes through here.
fn validate(root: &json::Root) -> std::io::Result<()> {
    let mut invalid = Vec::new();
    json::validation::Validate::validate(
        root,
        root,
        json::Path::new,
        &mut |path: &dyn Fn() -> json::Path, e| invalid.push(format!("{}: {e}", path())),
    );
    if invalid.is_empty() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "the export fails glTF validation: {}",
            invalid.join("; ")
        )))
    }
}

/// The GLB framing: a 12-byte header, the JSON chunk padded with spaces to 4 bytes, then the
/// binary chunk, each of its views padded with zeros to 4 bytes as the views were laid out.
fn write_framed(b: &Builder, out: &mut impl std::io::Write) -> std::io::Result<usize> {
    let mut text = b.root.to_vec().map_err(std::io::Error::other)?;
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + if b.bin_len == 0 { 0 } else { 8 + b.bin_len };
    let too_big = || {
        std::io::Error::other(format!(
            "a .glb holds at most 4 GiB; this scene needs {total} bytes"
        ))
    };
    out.write_all(b"glTF")?;
    out.write_all(&2u32.to_le_bytes())?;
    out.write_all(&u32::try_from(total).map_err(|_| too_big())?.to_le_bytes())?;
    out.write_all(&(text.len() as u32).to_le_bytes())?;
    out.write_all(b"JSON")?;
    out.write_all(&text)?;
    if b.bin_len > 0 {
        out.write_all(&(b.bin_len as u32).to_le_bytes())?;
        out.write_all(b"BIN\0")?;
        let mut written = 0;
        for d in &b.data {
            d.write(out)?;
            written += d.len();
            let pad = aligned(written) - written;
            out.write_all(&[0; 3][..pad])?;
            written += pad;
        }
        if written != b.bin_len {
            return Err(std::io::Error::other(format!(
                "the binary chunk came to {written} bytes, its header says {}",
                b.bin_len
            )));
        }
    }
    Ok(total)
}

/// Where node `i` goes in an export when it is part of a damage zone: its object (the
/// nearest node above it that is not a level of detail), its first zone, and its transform
/// relative to that object.
fn zone_placement(scene: &Scene, i: usize) -> Option<(NodeId, u32, Transform)> {
    let node = &scene.nodes[i];
    let zone = *node.part.as_ref()?.zones.first()?;
    let mut matrix = node.transform.matrix();
    let mut owner = node.parent.filter(|&p| (p as usize) < i)?;
    while let Some(up) = scene.nodes[owner as usize]
        .parent
        .filter(|_| scene.nodes[owner as usize].lod.is_some())
    {
        matrix = scene.nodes[owner as usize].transform.matrix() * matrix;
        owner = up;
    }
    let transform = if matrix == node.transform.matrix() {
        node.transform
    } else {
        let (scale, rotation, translation) = Mat4::to_scale_rotation_translation(&matrix);
        Transform {
            translation: translation.into(),
            rotation: rotation.to_array(),
            scale: scale.into(),
        }
    };
    Some((owner, zone, transform))
}

/// A node's extras: the JSON of `value`.
fn extras(value: &serde_json::Value) -> json::Extras {
    serde_json::value::to_raw_value(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Clip, Mesh, Node, Primitive, Repeat, Track};

    /// The JSON chunk of a .glb.
    fn json_of(glb: &[u8]) -> serde_json::Value {
        assert_eq!(&glb[..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
            glb.len()
        );
        let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        assert_eq!(&glb[16..20], b"JSON");
        serde_json::from_slice(&glb[20..20 + len]).unwrap()
    }

    #[test]
    fn node_trs_clips_become_animations() {
        let mut s = Scene {
            name: "door".into(),
            ..Default::default()
        };
        let m = s.add_mesh(Mesh {
            name: Some("slab".into()),
            primitives: vec![Primitive {
                positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                indices: vec![0, 1, 2],
                ..Default::default()
            }],
        });
        let door = s.add_node(
            None,
            Node {
                name: Some("dr1".into()),
                mesh: Some(m),
                ..Default::default()
            },
        );
        s.clips.push(Clip {
            name: "slide".into(),
            duration: 4.0,
            repeat: Repeat::Loop,
            tracks: vec![
                Track {
                    target: Target::Translation(door),
                    times: vec![0.0, 2.0, 4.0],
                    values: vec![0., 0., 0., 3., 0., 0., 0., 0., 0.],
                },
                Track {
                    target: Target::Rotation(door),
                    times: vec![0.0, 4.0],
                    values: vec![0., 0., 0., 1., 0., 1., 0., 0.],
                },
            ],
        });
        let j = json_of(&export_glb(&s, ExportOptions::default()).unwrap());
        let a = &j["animations"][0];
        assert_eq!(a["name"], "slide");
        assert_eq!(a["channels"].as_array().unwrap().len(), 2);
        assert_eq!(a["channels"][0]["target"]["path"], "translation");
        assert_eq!(a["channels"][1]["target"]["path"], "rotation");
        let input = a["samplers"][0]["input"].as_u64().unwrap() as usize;
        assert_eq!(j["accessors"][input]["count"], 3);
        assert_eq!(j["accessors"][input]["max"], serde_json::json!([4.0]));
        assert_eq!(j["nodes"][0]["name"], "dr1");
    }

    #[test]
    fn a_primitive_without_uvs_gets_the_materials_untextured_twin() {
        let mut s = Scene {
            name: "tile".into(),
            ..Default::default()
        };
        s.textures.push(crate::scene::Texture {
            name: None,
            texels: crate::texture::checker([1.0; 3]),
            file: None,
            nearest: false,
            stand_in: true,
        });
        s.materials.push(crate::scene::Material {
            name: Some("tex".into()),
            texture: Some(0),
            untextured_color: Some([1.0, 0.0, 0.0, 1.0]),
            ..Default::default()
        });
        let tri = |uvs: Option<Vec<[f32; 2]>>| Primitive {
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            uvs,
            indices: vec![0, 1, 2],
            material: Some(0),
            ..Default::default()
        };
        let m = s.add_mesh(Mesh {
            name: None,
            primitives: vec![tri(None), tri(Some(vec![[0.0; 2]; 3])), tri(None)],
        });
        s.add_node(
            None,
            Node {
                mesh: Some(m),
                ..Default::default()
            },
        );
        let j = json_of(&export_glb(&s, ExportOptions::default()).unwrap());
        assert_eq!(
            j["materials"].as_array().unwrap().len(),
            2,
            "the material and its twin, each once"
        );
        for p in j["meshes"][0]["primitives"].as_array().unwrap() {
            let m = &j["materials"][p["material"].as_u64().unwrap() as usize];
            let textured = !m["pbrMetallicRoughness"]["baseColorTexture"].is_null();
            assert_eq!(textured, p["attributes"]["TEXCOORD_0"].is_u64());
            let factor = &m["pbrMetallicRoughness"]["baseColorFactor"];
            assert_eq!(
                factor[1].as_f64(),
                Some(if textured { 1.0 } else { 0.0 }),
                "the twin is in the untextured colour"
            );
        }
    }

    #[test]
    fn by_default_the_lod_on_show_is_exported_and_with_all_lods_each_lod_is_a_scene() {
        let mut s = Scene {
            name: "pod".into(),
            ..Default::default()
        };
        let tri = |z| Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]],
                indices: vec![0, 1, 2],
                ..Default::default()
            }],
        };
        let (m0, m1) = (s.add_mesh(tri(0.0)), s.add_mesh(tri(1.0)));
        let root = s.add_node(
            None,
            Node {
                name: Some("pod".into()),
                ..Default::default()
            },
        );
        let l0 = s.add_node(
            Some(root),
            Node {
                name: Some("LOD 0".into()),
                lod: Some(0),
                ..Default::default()
            },
        );
        let l1 = s.add_node(
            Some(root),
            Node {
                name: Some("LOD 1".into()),
                lod: Some(1),
                ..Default::default()
            },
        );
        s.add_node(
            Some(l0),
            Node {
                mesh: Some(m0),
                ..Default::default()
            },
        );
        s.add_node(
            Some(l1),
            Node {
                mesh: Some(m1),
                ..Default::default()
            },
        );
        s.add_node(
            Some(root),
            Node {
                name: Some("light point 0".into()),
                transform: Transform {
                    translation: [0.0, 2.0, 0.0],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        s.lods = vec![Default::default(); 2];
        let shown = json_of(
            &export_glb(
                &s,
                ExportOptions {
                    lod: 1,
                    ..Default::default()
                },
            )
            .unwrap(),
        );
        assert_eq!(
            shown["scenes"].as_array().unwrap().len(),
            1,
            "what the viewer shows: one LOD"
        );
        assert_eq!(shown["scene"], 0);
        assert_eq!(shown["scenes"][0]["name"], "pod (LOD 1)");
        assert_eq!(
            shown["meshes"].as_array().unwrap().len(),
            1,
            "only the meshes of the LOD exported"
        );
        let j = json_of(
            &export_glb(
                &s,
                ExportOptions {
                    lod: 1,
                    all_lods: true,
                    ..Default::default()
                },
            )
            .unwrap(),
        );
        assert_eq!(j["scenes"].as_array().unwrap().len(), 2);
        assert_eq!(j["scene"], 1);
        let names = |scene: usize| -> Vec<String> {
            let mut out = Vec::new();
            let mut stack: Vec<usize> = j["scenes"][scene]["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as usize)
                .collect();
            while let Some(n) = stack.pop() {
                out.push(j["nodes"][n]["name"].as_str().unwrap_or("").to_string());
                stack.extend(
                    j["nodes"][n]["children"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|v| v.as_u64().unwrap() as usize),
                );
            }
            out.sort();
            out
        };
        assert_eq!(names(0), vec!["", "LOD 0", "light point 0", "pod"]);
        assert_eq!(names(1), vec!["", "LOD 1", "light point 0", "pod"]);
    }

    #[test]
    fn damage_zones_become_nodes_under_their_object_and_blinks_step_their_scale() {
        use crate::scene::{PartWords, Repeat};
        let mut s = Scene {
            name: "mech".into(),
            ..Default::default()
        };
        let tri = |z| Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]],
                indices: vec![0, 1, 2],
                ..Default::default()
            }],
        };
        let (larm, rgun) = (s.layer("dz_larm"), s.layer("dz_rgun"));
        s.zones = vec![larm, rgun];
        let root = s.add_node(
            None,
            Node {
                name: Some("mech".into()),
                ..Default::default()
            },
        );
        let object = s.add_node(
            Some(root),
            Node {
                name: Some("body".into()),
                ..Default::default()
            },
        );
        let lod = s.add_node(
            Some(object),
            Node {
                name: Some("LOD 0".into()),
                lod: Some(0),
                transform: Transform {
                    translation: [0.0, 5.0, 0.0],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let part = |zones: Vec<u32>, words: &[&str]| {
            Some(Box::new(PartWords {
                zones,
                words: words.iter().map(|w| w.to_string()).collect(),
            }))
        };
        let meshes: Vec<u32> = (0..3).map(|k| s.add_mesh(tri(k as f32))).collect();
        let arm = s.add_node(
            Some(lod),
            Node {
                name: Some("arm".into()),
                mesh: Some(meshes[0]),
                part: part(vec![larm, rgun], &["dz_larm", "dz_rgun", "BLINK"]),
                ..Default::default()
            },
        );
        s.add_node(
            Some(lod),
            Node {
                name: Some("gun".into()),
                mesh: Some(meshes[1]),
                part: part(vec![rgun], &["dz_rgun"]),
                ..Default::default()
            },
        );
        s.add_node(
            Some(lod),
            Node {
                name: Some("hull".into()),
                mesh: Some(meshes[2]),
                ..Default::default()
            },
        );
        s.lods = vec![Default::default()];
        s.clips.push(Clip {
            name: "BLINK".into(),
            duration: 1.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Visibility(arm),
                times: vec![0.0, 0.5, 1.0],
                values: vec![1.0, 0.0, 1.0],
            }],
        });
        let j = json_of(&export_glb(&s, ExportOptions::default()).unwrap());
        let nodes = j["nodes"].as_array().unwrap();
        let find = |name: &str| {
            nodes
                .iter()
                .position(|n| n["name"] == name)
                .unwrap_or_else(|| panic!("{name}"))
        };
        let children = |n: usize| -> Vec<String> {
            nodes[n]["children"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| {
                    nodes[c.as_u64().unwrap() as usize]["name"]
                        .as_str()
                        .unwrap_or("")
                        .to_string()
                })
                .collect()
        };
        let mut under_object = children(find("body"));
        under_object.sort();
        assert_eq!(
            under_object,
            ["LOD 0", "dz_larm", "dz_rgun"],
            "the zones are nodes of the object"
        );
        assert_eq!(
            children(find("dz_larm")),
            ["arm"],
            "a patch of several zones sits under its first"
        );
        assert_eq!(children(find("dz_rgun")), ["gun"]);
        assert_eq!(children(find("LOD 0")), ["hull"]);
        assert_eq!(
            nodes[find("arm")]["extras"]["zones"],
            serde_json::json!(["dz_larm", "dz_rgun"])
        );
        assert_eq!(
            nodes[find("arm")]["extras"]["words"],
            serde_json::json!(["dz_larm", "dz_rgun", "BLINK"])
        );
        assert_eq!(nodes[find("dz_larm")]["extras"]["zone"], "dz_larm");
        // Moved out of the LOD, a part keeps where the LOD put it.
        assert_eq!(
            nodes[find("gun")]["translation"],
            serde_json::json!([0.0, 5.0, 0.0])
        );
        let sampler = &j["animations"][0]["samplers"][0];
        assert_eq!(sampler["interpolation"], "STEP");
        assert_eq!(j["animations"][0]["channels"][0]["target"]["path"], "scale");
        assert_eq!(
            j["animations"][0]["channels"][0]["target"]["node"]
                .as_u64()
                .unwrap() as usize,
            find("arm")
        );
        // Hidden zones are left out with what they hold.
        let hidden = json_of(
            &export_glb(
                &s,
                ExportOptions {
                    hidden_layers: vec![rgun],
                    ..Default::default()
                },
            )
            .unwrap(),
        );
        let names: Vec<&str> = hidden["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n["name"].as_str())
            .collect();
        assert!(
            !names.contains(&"arm")
                && !names.contains(&"gun")
                && !names.contains(&"dz_rgun")
                && names.contains(&"hull"),
            "{names:?}"
        );
    }

    /// The floats of accessor `a` of a .glb (packed, as the exporter writes them).
    fn accessor_floats(glb: &[u8], j: &serde_json::Value, a: usize) -> Vec<f32> {
        let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        let bin = &glb[20 + json_len + 8..];
        let acc = &j["accessors"][a];
        let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let width = match acc["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let n = acc["count"].as_u64().unwrap() as usize * width;
        bin[at..at + 4 * n]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    /// Two models of bones with a part on each (the second on a layer left out), and a clip each.
    fn two_rigged_models() -> Scene {
        use crate::scene::Skin;
        let mut s = Scene {
            name: "npcs".into(),
            ..Default::default()
        };
        s.materials.push(crate::scene::Material {
            name: Some("flat".into()),
            ..Default::default()
        });
        // A texture no material samples: it stays out of every export.
        s.textures.push(texture(true));
        let tri = |x: f32| Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[x, 0.0, 0.0], [x + 1.0, 0.0, 0.0], [x, 1.0, 0.0]],
                indices: vec![0, 1, 2],
                material: Some(0),
                ..Default::default()
            }],
        };
        let top = s.add_node(
            None,
            Node {
                name: Some("npcs".into()),
                ..Default::default()
            },
        );
        let other = s.layer("model 1");
        for (k, layer) in [(0, None), (1, Some(other))] {
            let turn = glam::Quat::from_rotation_x(std::f32::consts::PI).to_array();
            let root = s.add_node(
                Some(top),
                Node {
                    name: Some(format!("model {k}")),
                    transform: Transform {
                        rotation: turn,
                        scale: [0.5; 3],
                        ..Default::default()
                    },
                    layer,
                    ..Default::default()
                },
            );
            let b0 = s.add_node(
                Some(root),
                Node {
                    name: Some("bone 0".into()),
                    transform: Transform {
                        translation: [0.0, -40.0, 2.0],
                        ..Default::default()
                    },
                    ..Default::default()
                },
            );
            let bend = glam::Quat::from_rotation_y(0.7).to_array();
            let b1 = s.add_node(
                Some(b0),
                Node {
                    name: Some("bone 1".into()),
                    transform: Transform {
                        translation: [0.0, 0.0, -30.0],
                        rotation: bend,
                        ..Default::default()
                    },
                    ..Default::default()
                },
            );
            for (b, x) in [(b0, 0.0), (b1, 5.0)] {
                let m = s.add_mesh(tri(x));
                s.add_node(
                    Some(b),
                    Node {
                        mesh: Some(m),
                        ..Default::default()
                    },
                );
            }
            s.skins.push(Skin {
                name: format!("model {k}"),
                root,
                joints: vec![b0, b1],
            });
            let key = [
                Track {
                    target: Target::Rotation(b1),
                    times: vec![0.0, 0.5],
                    values: [bend, [0.0, 0.0, 0.0, 1.0]].concat(),
                },
                Track {
                    target: Target::Translation(b0),
                    times: vec![0.0, 0.5],
                    values: vec![0.0, -40.0, 2.0, 0.0, -20.0, 2.0],
                },
            ];
            s.clips.push(Clip {
                name: format!("model {k} animation 0"),
                duration: 0.5,
                repeat: Repeat::Loop,
                tracks: key.to_vec(),
            });
        }
        s
    }

    #[test]
    fn a_skin_is_one_mesh_weighted_to_the_bone_nodes_each_vertex_where_its_part_was() {
        let s = two_rigged_models();
        let hidden = vec![s.layers.iter().position(|l| l == "model 1").unwrap() as u32];
        let glb = export_glb(
            &s,
            ExportOptions {
                hidden_layers: hidden.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        let j = json_of(&glb);
        let nodes = j["nodes"].as_array().unwrap();
        let skin = &j["skins"][0];
        assert_eq!(
            j["skins"].as_array().unwrap().len(),
            1,
            "the model on show only"
        );
        let joints: Vec<usize> = skin["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(
            joints
                .iter()
                .map(|&n| nodes[n]["name"].as_str().unwrap())
                .collect::<Vec<_>>(),
            ["bone 0", "bone 1"]
        );
        assert_eq!(
            j["meshes"].as_array().unwrap().len(),
            1,
            "the parts merged into one mesh"
        );
        assert_eq!(
            j["meshes"][0]["primitives"].as_array().unwrap().len(),
            1,
            "one primitive for their one material"
        );
        assert!(
            j["images"].is_null() && j["textures"].is_null(),
            "a texture nothing samples stays out"
        );
        // The skinned mesh's node is a root of the scene (glTF ignores its place).
        let mesh_node = nodes.iter().position(|n| n["skin"].is_u64()).unwrap();
        assert!(j["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_u64() == Some(mesh_node as u64)));
        // Each vertex, through its joint's place at rest and inverse bind matrix, lands where
        // the scene draws the part's vertex.
        let world = s.world(&s.nodes.iter().map(|n| n.transform).collect::<Vec<_>>());
        let p = &j["meshes"][0]["primitives"][0];
        let positions = accessor_floats(
            &glb,
            &j,
            p["attributes"]["POSITION"].as_u64().unwrap() as usize,
        );
        let ibm = accessor_floats(
            &glb,
            &j,
            skin["inverseBindMatrices"].as_u64().unwrap() as usize,
        );
        let scene_joints = [s.skins[0].joints[0] as usize, s.skins[0].joints[1] as usize];
        let mut expected = Vec::new();
        for &b in &scene_joints {
            for v in [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                let x = if b == scene_joints[0] { 0.0 } else { 5.0 };
                expected.push((
                    b,
                    world[b].transform_point3(glam::Vec3::new(v[0] + x, v[1], v[2])),
                ));
            }
        }
        for (k, (b, want)) in expected.iter().enumerate() {
            let slot = scene_joints.iter().position(|x| x == b).unwrap();
            let inverse = glam::Mat4::from_cols_slice(&ibm[16 * slot..16 * slot + 16]);
            let got = world[*b]
                * inverse
                * glam::Vec3::from_slice(&positions[3 * k..3 * k + 3]).extend(1.0);
            assert!(
                (got.truncate() - *want).length() < 1e-4,
                "vertex {k}: {got} against {want}"
            );
        }
        // Only this model's clip, its two tracks sharing one input.
        let animations = j["animations"].as_array().unwrap();
        assert_eq!(
            animations
                .iter()
                .map(|a| a["name"].as_str().unwrap())
                .collect::<Vec<_>>(),
            ["model 0 animation 0"]
        );
        let inputs: Vec<u64> = animations[0]["samplers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["input"].as_u64().unwrap())
            .collect();
        assert_eq!((inputs.len(), inputs[0] == inputs[1]), (2, true));
        // As nodes: a mesh per part on its bone, no skin.
        let nodes = json_of(
            &export_glb(
                &s,
                ExportOptions {
                    hidden_layers: hidden,
                    rig: Rig::Nodes,
                    ..Default::default()
                },
            )
            .unwrap(),
        );
        assert!(nodes["skins"].is_null());
        assert_eq!(nodes["meshes"].as_array().unwrap().len(), 2);
        assert_eq!(nodes["animations"].as_array().unwrap().len(), 1);
    }

    fn builder<'a>() -> Builder<'a> {
        Builder {
            root: json::Root::default(),
            data: Vec::new(),
            bin_len: 0,
        }
    }

    fn texture(nearest: bool) -> crate::scene::Texture {
        crate::scene::Texture {
            name: None,
            texels: crate::texture::checker([1.0; 3]),
            file: None,
            nearest,
            stand_in: false,
        }
    }

    #[test]
    fn textures_share_one_sampler_per_filtering_and_each_is_a_png() {
        let s = Scene {
            textures: vec![texture(true), texture(false), texture(true)],
            ..Default::default()
        };
        let mut b = builder();
        let mut samplers = [None, None];
        let t: Vec<_> = s
            .textures
            .iter()
            .map(|x| add_texture(&mut b, &mut samplers, x).unwrap())
            .collect();
        assert_eq!(
            (t.len(), b.root.samplers.len(), b.root.images.len()),
            (3, 2, 3)
        );
        let sampler = |i: usize| b.root.textures[t[i].value()].sampler;
        assert_eq!(sampler(0), sampler(2));
        assert_ne!(sampler(0), sampler(1));
        let Data::Bytes(png) = &b.data[0] else {
            panic!("a PNG's bytes")
        };
        assert_eq!(&png[1..4], b"PNG");
    }

    #[test]
    fn each_material_and_its_twin_are_made_once_and_a_scroll_names_its_extension_once() {
        let mut s = Scene {
            textures: vec![texture(false)],
            ..Default::default()
        };
        for _ in 0..2 {
            s.materials.push(crate::scene::Material {
                texture: Some(0),
                ..Default::default()
            });
        }
        for m in 0..2 {
            s.clips.push(Clip {
                name: "scroll".into(),
                duration: 1.0,
                repeat: Repeat::Loop,
                tracks: vec![Track {
                    target: Target::UvOffset(m),
                    times: vec![0.0, 1.0],
                    values: vec![0.25, 0.0, 1.25, 0.0],
                }],
            });
        }
        let mut b = builder();
        let mut m = Materials::new(&mut b, &s, &ExportOptions::default());
        let prim = |material: u32, uvs: bool| Primitive {
            positions: vec![[0.0; 3]; 3],
            uvs: uvs.then(|| vec![[0.0; 2]; 3]),
            indices: vec![0, 1, 2],
            material: Some(material),
            ..Default::default()
        };
        let mut of = |b: &mut Builder, p: &Primitive| m.of(b, p).unwrap();
        let (a, a_again, twin) = (
            of(&mut b, &prim(0, true)),
            of(&mut b, &prim(0, true)),
            of(&mut b, &prim(0, false)),
        );
        assert_eq!(a, a_again);
        assert_ne!(a, twin, "without UVs, the untextured twin");
        of(&mut b, &prim(1, true));
        assert_eq!(
            of(&mut b, &prim(7, true)),
            None,
            "a material the scene does not have"
        );
        assert_eq!(b.root.materials.len(), 3);
        assert_eq!(b.root.images.len(), 1, "the texture both sample, made once");
        assert_eq!(b.root.extensions_used, ["KHR_texture_transform"]);
        assert!(b.root.materials[twin.unwrap().value()]
            .pbr_metallic_roughness
            .base_color_texture
            .is_none());
    }

    #[test]
    fn only_meshes_some_exported_lod_places_go_out() {
        let mut s = Scene::default();
        let tri = || Mesh {
            name: None,
            primitives: vec![Primitive {
                positions: vec![[0.0; 3]; 3],
                indices: vec![0, 1, 2],
                ..Default::default()
            }],
        };
        let (m0, m1, _unplaced) = (s.add_mesh(tri()), s.add_mesh(tri()), s.add_mesh(tri()));
        let root = s.add_node(None, Node::default());
        for (lod, mesh) in [(0, m0), (1, m1)] {
            let l = s.add_node(
                Some(root),
                Node {
                    lod: Some(lod),
                    ..Default::default()
                },
            );
            s.add_node(
                Some(l),
                Node {
                    mesh: Some(mesh),
                    ..Default::default()
                },
            );
        }
        s.lods = vec![Default::default(); 2];
        let at = |lod: usize| s.visible_in(lod, &[]);
        let none = vec![false; s.nodes.len()];
        assert_eq!(meshes_placed(&s, &[at(0)], &none), [true, false, false]);
        assert_eq!(meshes_placed(&s, &[at(1)], &none), [false, true, false]);
        assert_eq!(
            meshes_placed(&s, &[at(0), at(1)], &none),
            [true, true, false]
        );
        let mut taken = none.clone();
        taken[s.nodes.iter().position(|n| n.mesh == Some(m0)).unwrap()] = true;
        assert_eq!(
            meshes_placed(&s, &[at(0), at(1)], &taken),
            [false, true, false],
            "a mesh a skin took is not placed again"
        );
    }

    #[test]
    fn a_channel_reaches_every_copy_of_its_node_and_a_visibility_steps() {
        let mut s = Scene::default();
        let node = s.add_node(None, Node::default());
        s.clips.push(Clip {
            name: "blink".into(),
            duration: 1.0,
            repeat: Repeat::Loop,
            tracks: vec![Track {
                target: Target::Visibility(node),
                times: vec![0.0, 0.5],
                values: vec![0.2, 0.9],
            }],
        });
        let mut b = builder();
        let copies = vec![
            vec![Some(Index::new(4))],
            vec![None],
            vec![Some(Index::new(9))],
        ];
        add_animations(&mut b, &s, &copies);
        let a = &b.root.animations[0];
        assert_eq!(
            a.channels
                .iter()
                .map(|c| c.target.node.value())
                .collect::<Vec<_>>(),
            [4, 9],
            "the copies that show it"
        );
        assert_eq!(
            a.samplers[0].interpolation,
            Valid(json::animation::Interpolation::Step)
        );
        let Data::Bytes(scales) = &b.data[1] else {
            panic!()
        };
        let floats: Vec<f32> = scales
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(
            floats,
            [0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            "hidden under one half, shown above"
        );
    }

    #[test]
    fn validation_names_what_points_nowhere() {
        let mut b = builder();
        b.root.push(json::Node {
            mesh: Some(Index::new(3)),
            ..Default::default()
        });
        let e = validate(&b.root).unwrap_err().to_string();
        assert!(e.contains("nodes[0].mesh"), "{e}");
        assert!(validate(&builder().root).is_ok());
    }

    #[test]
    fn the_framing_counts_every_byte_and_pads_each_chunk_to_four() {
        let mut b = builder();
        b.view(Data::Bytes(vec![1, 2, 3, 4, 5]), None);
        b.view(Data::ShortIndices(&[7]), None);
        b.root.push(json::Buffer {
            byte_length: USize64::from(b.bin_len),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        let mut out = Vec::new();
        let total = write_framed(&b, &mut out).unwrap();
        assert_eq!(total, out.len());
        json_of(&out); // the header's length is the file's, the JSON chunk parses
        let json_len = u32::from_le_bytes(out[12..16].try_into().unwrap()) as usize;
        assert_eq!(json_len % 4, 0);
        let bin = 20 + json_len;
        assert_eq!(&out[bin + 4..bin + 8], b"BIN\0");
        assert_eq!(
            u32::from_le_bytes(out[bin..bin + 4].try_into().unwrap()),
            12,
            "5 bytes padded to 8, then 2 padded to 4"
        );
        assert_eq!(&out[bin + 8..], [1, 2, 3, 4, 5, 0, 0, 0, 7, 0, 0, 0]);
    }
}
