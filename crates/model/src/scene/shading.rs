//! How a primitive is drawn and exported: the one place that decides whether it samples
//! its material's texture and in which colour, read by the renderer, the glTF exporter and
//! the info pane.

use super::*;

/// What a primitive is drawn with: the texture it samples, and the sRGB factor its vertex
/// colours (and texels) are multiplied by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shading {
    pub texture: Option<TextureId>,
    pub base_color: [f32; 4],
    /// Its material has a texture this primitive cannot sample (it has no UVs): drawn and
    /// exported in the material's untextured colour instead.
    pub unsampled: bool,
}

impl Scene {
    /// How primitive `p` is drawn and exported. Files put textured materials on vertex
    /// formats without UVs (XYZ_N, XYZ_RGBA …): such a primitive samples no texture and
    /// shows its material's colour. This is the one place that decides; the renderer's
    /// shader variant, its draw batches, its tint and the glTF material all follow it.
    pub fn shading(&self, p: &Primitive) -> Shading {
        let Some(material) = p.material.and_then(|m| self.materials.get(m as usize)) else {
            return Shading {
                texture: None,
                base_color: [1.0; 4],
                unsampled: false,
            };
        };
        match material
            .texture
            .filter(|&t| (t as usize) < self.textures.len())
        {
            Some(t) if p.has_uvs() => Shading {
                texture: Some(t),
                base_color: material.base_color,
                unsampled: false,
            },
            Some(_) => Shading {
                texture: None,
                base_color: material.untextured_color.unwrap_or(material.base_color),
                unsampled: true,
            },
            None => Shading {
                texture: None,
                base_color: material.base_color,
                unsampled: false,
            },
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
            if self.shading(p).unsampled && !p.indices.is_empty() {
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

    /// How primitive `p`'s triangles are put down ([`Material::surface`]).
    pub fn surface_of(&self, p: &Primitive) -> Surface {
        p.material
            .and_then(|m| self.materials.get(m as usize))
            .map_or(Surface::Filled, |m| m.surface)
    }
}
