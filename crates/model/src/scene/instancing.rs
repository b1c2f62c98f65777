//! One scene taken into another (a model into the world that places it): its meshes,
//! materials, textures and clips taken in once, its node tree placed any number of times.

use super::*;

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
    /// meshes' records are dropped: they are bytes of the other file. The meshes are
    /// moved, not copied: `other` keeps its nodes and clips (a template) and no meshes.
    pub fn absorb(&mut self, other: &mut Scene, own_materials: bool) -> Absorbed {
        let textures = self.absorb_textures(other);
        let materials = self.absorb_materials(other, &textures, own_materials);
        let meshes = self.absorb_meshes(other, &materials);
        self.absorb_material_clips(other, &materials);
        for (i, l) in other.lods.iter().enumerate() {
            if self.lods.len() <= i {
                self.lods.push(*l);
            }
        }
        let zones = self.absorb_zones(other);
        Absorbed {
            meshes,
            materials,
            zones,
        }
    }

    /// `other`'s textures as this scene's: one of the same file (or the same texels) is
    /// shared, the rest added.
    fn absorb_textures(&mut self, other: &Scene) -> Vec<TextureId> {
        other
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
            .collect()
    }

    /// `other`'s materials as this scene's, on `textures` (its textures as this scene's):
    /// an equal one shared unless `own_materials`.
    fn absorb_materials(
        &mut self,
        other: &Scene,
        textures: &[TextureId],
        own_materials: bool,
    ) -> Vec<MaterialId> {
        other
            .materials
            .iter()
            .map(|m| {
                let m = Material {
                    texture: m.texture.and_then(|t| textures.get(t as usize).copied()),
                    ..m.clone()
                };
                match self
                    .materials
                    .iter()
                    .position(|x| !own_materials && *x == m)
                {
                    Some(i) => i as MaterialId,
                    None => {
                        self.materials.push(m);
                        (self.materials.len() - 1) as MaterialId
                    }
                }
            })
            .collect()
    }

    /// `other`'s meshes moved into this scene, on `materials` (its materials as this
    /// scene's), without their records (bytes of the other file).
    fn absorb_meshes(&mut self, other: &mut Scene, materials: &[MaterialId]) -> Vec<MeshId> {
        std::mem::take(&mut other.meshes)
            .into_iter()
            .map(|mesh| {
                let primitives = mesh
                    .primitives
                    .into_iter()
                    .map(|p| Primitive {
                        material: p.material.and_then(|m| materials.get(m as usize).copied()),
                        record: None,
                        sources: Vec::new(),
                        ..p
                    })
                    .collect();
                self.add_mesh(Mesh {
                    name: mesh.name,
                    primitives,
                })
            })
            .collect()
    }

    /// `other`'s material clips (a texture's drift) on `materials`, once per material.
    fn absorb_material_clips(&mut self, other: &Scene, materials: &[MaterialId]) {
        let have: Vec<Target> = self
            .clips
            .iter()
            .flat_map(|c| &c.tracks)
            .map(|t| t.target)
            .collect();
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
                    (!have.contains(&target)).then(|| Track {
                        target,
                        ..t.clone()
                    })
                })
                .collect();
            if !tracks.is_empty() {
                self.clips.push(Clip {
                    tracks,
                    ..clip.clone()
                });
            }
        }
    }

    /// Each of `other`'s layers that is a damage zone, as this scene's zone layer of the same
    /// name.
    fn absorb_zones(&mut self, other: &Scene) -> Vec<Option<u32>> {
        let mut zones = vec![None; other.layers.len()];
        if !other.zones.is_empty() {
            let (mut layers, mut mask) = self.layers_by_name();
            for &l in &other.zones {
                if let Some(name) = other.layers.get(l as usize) {
                    zones[l as usize] = Some(self.zone_layer(name, &mut layers, &mut mask));
                }
            }
        }
        zones
    }

    /// Place a copy of `template`'s node tree under `parent`, its meshes as `absorbed` maps
    /// them; node clips come along, retargeted. Returns the new id of every template node.
    pub fn instantiate(
        &mut self,
        parent: Option<NodeId>,
        template: &Scene,
        absorbed: &Absorbed,
    ) -> Vec<NodeId> {
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
                mesh: n
                    .mesh
                    .and_then(|m| absorbed.meshes.get(m as usize).copied()),
                marker: n.marker,
                lod: n.lod,
                record: None,
                layer: None,
                part: n.part.as_ref().map(|p| {
                    Box::new(PartWords {
                        zones: p
                            .zones
                            .iter()
                            .filter_map(|&z| absorbed.zones.get(z as usize).copied().flatten())
                            .collect(),
                        words: p.words.clone(),
                    })
                }),
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
                    Some(Track {
                        target,
                        ..t.clone()
                    })
                })
                .collect();
            if !tracks.is_empty() {
                self.clips.push(Clip {
                    tracks,
                    ..clip.clone()
                });
            }
        }
        ids
    }
}
