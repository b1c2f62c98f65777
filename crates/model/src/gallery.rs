//! A file's items as cards, for the page's grid view of a file that is not drawn in 3D: a
//! material library's materials, each with its colour, its texture (a thumbnail, the file
//! it came from) and the inspector record it was read from; and the labelled parts of a
//! picture (a sheet's images). Neutral: formats fill them.

use crate::texture::Texels;
use serde::Serialize;

/// The longest side of a card's thumbnail, in texels.
pub const THUMBNAIL_SIDE: u32 = 64;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
    /// The texture's picture scaled to fit [`THUMBNAIL_SIDE`], texel by texel (the page gets
    /// it beside the card, as a picture: see `OpenedFile.gallery`).
    #[serde(skip)]
    pub thumbnail: Option<Texels>,
    /// The record the material was read from: its bytes, as the format says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "[number, number]"))]
    pub bytes: Option<crate::scene::RecordBytes>,
    /// Its inspector row, where the file on show has an inspector (the page's glue finds it
    /// by `bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<u32>,
}

/// One texture of the archive, as the texture gallery lists it: a picture file, or a texture
/// a file decodes itself (a field model's VRAM page with its CLUT).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
    /// The part the scene's triangles sample, `[x, y, width, height]` in texels (a decoded
    /// page is mostly what other files put in VRAM): the thumbnail shows this part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used: Option<[u32; 4]>,
    /// Scaled to fit [`THUMBNAIL_SIDE`], texel by texel.
    #[serde(skip)]
    pub thumbnail: Texels,
}

/// Who uses a texture: materials (as files name them, `lib:material`) and files.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct TextureUsers {
    pub materials: Vec<String>,
    pub files: Vec<String>,
}

/// A labelled rectangle of a file's picture (one image of a sheet), in texels.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ImageRegion {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    pub label: String,
    /// Its number in the sheet (a FIELD.TDB image's index), which the page writes beside
    /// the sheet's rows; none where the regions are not numbered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    /// The bytes of the record it is, `[start, end)` in the bytes the inspector's rows refer
    /// to: the inspector, where there is one, finds its row by them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(type = "[number, number]"))]
    pub bytes: Option<crate::scene::RecordBytes>,
}

/// One number a texel of a picture, row by row: what each texel is stored as (its CLUT
/// index, its colour word), which the flat view reads out under the pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TexelPlane {
    /// What the numbers are ("CLUT index").
    pub name: &'static str,
    /// Written in hexadecimal (a colour word) rather than in decimal (an index).
    pub hex: bool,
    /// width × height values, the top row first.
    pub values: Vec<u16>,
}

/// `#rrggbb` of a colour in 0..1 (clamped).
pub fn css_color([r, g, b]: [f32; 3]) -> String {
    let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b))
}

/// `texels` shrunk (nearest texel) so that its longer side is at most `side`; a picture
/// that already fits is kept as it is. Old games' textures are small and blocky: nearest
/// keeps them recognisable where smoothing would blur them.
/// The texels of a `width × height` texture that the texture coordinates `uvs` (0..1, from
/// the top left) sample: `[x, y, width, height]`, or None for no coordinates.
pub fn used_bounds(
    uvs: impl Iterator<Item = [f32; 2]>,
    width: u32,
    height: u32,
) -> Option<[u32; 4]> {
    let texel = |t: f32, size: u32| {
        ((t.clamp(0.0, 1.0) * size as f32).floor() as u32).min(size.saturating_sub(1))
    };
    let mut b: Option<[u32; 4]> = None;
    for [u, v] in uvs.filter(|[u, v]| u.is_finite() && v.is_finite()) {
        let (x, y) = (texel(u, width), texel(v, height));
        b = Some(b.map_or([x, y, x, y], |[x0, y0, x1, y1]| {
            [x0.min(x), y0.min(y), x1.max(x), y1.max(y)]
        }));
    }
    b.map(|[x0, y0, x1, y1]| [x0, y0, x1 - x0 + 1, y1 - y0 + 1])
}

pub fn thumbnail(texels: &Texels, side: u32) -> Texels {
    let (w, h) = (texels.width.max(1), texels.height.max(1));
    if (w <= side && h <= side) || texels.rgba.len() != w as usize * h as usize * 4 {
        return texels.clone();
    }
    let scale = side as f64 / w.max(h) as f64;
    let (tw, th) = (
        ((w as f64 * scale).round() as u32).max(1),
        ((h as f64 * scale).round() as u32).max(1),
    );
    let mut rgba = Vec::with_capacity(tw as usize * th as usize * 4);
    for y in 0..th {
        let sy = ((y as f64 + 0.5) / scale) as u32;
        for x in 0..tw {
            let sx = ((x as f64 + 0.5) / scale) as u32;
            let at = (sy.min(h - 1) as usize * w as usize + sx.min(w - 1) as usize) * 4;
            rgba.extend_from_slice(&texels.rgba[at..at + 4]);
        }
    }
    Texels {
        width: tw,
        height: th,
        rgba: std::sync::Arc::new(rgba),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(w: u32, h: u32) -> Texels {
        let rgba = (0..w * h)
            .flat_map(|i| [(i % w) as u8, (i / w) as u8, 0, 255])
            .collect();
        Texels {
            width: w,
            height: h,
            rgba: std::sync::Arc::new(rgba),
        }
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

    #[test]
    fn used_bounds_cover_every_texcoord_sampled() {
        let t = picture(8, 4);
        // Texel centres of (2, 1) and (5, 2); 1.0 is the last texel, not past it.
        let b = used_bounds(
            [[2.5 / 8.0, 1.5 / 4.0], [5.5 / 8.0, 2.5 / 4.0]].into_iter(),
            8,
            4,
        );
        assert_eq!(b, Some([2, 1, 4, 2]));
        assert_eq!(
            used_bounds([[1.0, 1.0], [f32::NAN, 0.0]].into_iter(), 8, 4),
            Some([7, 3, 1, 1])
        );
        assert_eq!(used_bounds(std::iter::empty(), 8, 4), None);
        // What the card shows of it.
        let c = crate::texture::crop(&t, 2, 1, 4, 2);
        assert_eq!((c.width, c.height), (4, 2));
        // The picture's texel (x, y) holds x, y: the crop starts at (2, 1).
        assert_eq!(c.rgba[..4], [2, 1, 0, 255]);
        assert_eq!(c.rgba[c.rgba.len() - 4..], [5, 2, 0, 255]);
    }
}
