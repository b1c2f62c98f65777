//! A file's items as cards, for the page's grid view of a file that is not drawn in 3D: a
//! material library's materials, each with its colour, its texture (a thumbnail, the file
//! it came from) and the inspector record it was read from; and the labelled parts of a
//! picture (a sheet's images). Neutral: formats fill them.

use crate::texture::Texels;
use serde::Serialize;

/// The longest side of a card's thumbnail, in texels.
pub const THUMBNAIL_SIDE: u32 = 64;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MaterialCard {
    pub name: String,
    /// The material's colour as CSS `#rrggbb`, where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The texture it names, the archive file that texture's map resolved to, and why no
    /// picture came from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The texture's picture scaled to fit [`THUMBNAIL_SIDE`], texel by texel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<Texels>,
    /// The inspector record the material was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
}

/// One texture of the archive, as the texture gallery lists it: a picture file, or a texture
/// a file decodes itself (a field model's VRAM page with its CLUT).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextureCard {
    pub path: String,
    /// Its place among the file's scene textures (a decoded page); none for a picture file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<usize>,
    pub width: u32,
    pub height: u32,
    /// What it is: the picture's kind ("image (TGA)"), or the texture's own name ("page
    /// (640, 256) clut (0, 500) Four").
    pub format: String,
    /// The scene's materials that sample a decoded texture.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<String>,
    /// Scaled to fit [`THUMBNAIL_SIDE`], texel by texel.
    #[serde(skip)]
    pub thumbnail: Texels,
}

/// Who uses a texture: materials (as files name them, `lib:material`) and files.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TextureUsers {
    pub materials: Vec<String>,
    pub files: Vec<String>,
}

/// A labelled rectangle of a file's picture (one image of a sheet), in texels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageRegion {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    pub label: String,
    /// The inspector record its bytes are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
}

/// `#rrggbb` of a colour in 0..1 (clamped).
pub fn css_color([r, g, b]: [f32; 3]) -> String {
    let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// `texels` shrunk (nearest texel) so that its longer side is at most `side`; a picture
/// that already fits is kept as it is. Old games' textures are small and blocky: nearest
/// keeps them recognisable where smoothing would blur them.
pub fn thumbnail(texels: &Texels, side: u32) -> Texels {
    let (w, h) = (texels.width.max(1), texels.height.max(1));
    if (w <= side && h <= side) || texels.rgba.len() != w as usize * h as usize * 4 {
        return texels.clone();
    }
    let scale = side as f64 / w.max(h) as f64;
    let (tw, th) = (((w as f64 * scale).round() as u32).max(1), ((h as f64 * scale).round() as u32).max(1));
    let mut rgba = Vec::with_capacity(tw as usize * th as usize * 4);
    for y in 0..th {
        let sy = ((y as f64 + 0.5) / scale) as u32;
        for x in 0..tw {
            let sx = ((x as f64 + 0.5) / scale) as u32;
            let at = (sy.min(h - 1) as usize * w as usize + sx.min(w - 1) as usize) * 4;
            rgba.extend_from_slice(&texels.rgba[at..at + 4]);
        }
    }
    Texels { width: tw, height: th, rgba: std::sync::Arc::new(rgba) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(w: u32, h: u32) -> Texels {
        let rgba = (0..w * h).flat_map(|i| [(i % w) as u8, (i / w) as u8, 0, 255]).collect();
        Texels { width: w, height: h, rgba: std::sync::Arc::new(rgba) }
    }

    #[test]
    fn a_thumbnail_fits_the_side_keeps_the_aspect_and_samples_texels() {
        let t = thumbnail(&picture(256, 128), 64);
        assert_eq!((t.width, t.height), (64, 32));
        assert_eq!(t.rgba.len(), 64 * 32 * 4);
        // Texel (x, y) of the thumbnail is texel (4x + 2, 4y + 2) of the picture.
        let at = |x: usize, y: usize| [t.rgba[(y * 64 + x) * 4], t.rgba[(y * 64 + x) * 4 + 1]];
        assert_eq!(at(0, 0), [2, 2]);
        assert_eq!(at(63, 31), [254, 126]);
        let small = picture(16, 8);
        assert_eq!(thumbnail(&small, 64), small, "a small picture is kept");
    }

    #[test]
    fn colours_are_css() {
        assert_eq!(css_color([1.0, 0.5, 0.0]), "#ff8000");
        assert_eq!(css_color([2.0, -1.0, f32::NAN]), "#ff0000");
    }
}
