//! The field models' side of PlayStation VRAM (the shared emulation is `formats::ff7::psx`): a
//! BSX texture section's rectangles uploaded, FIELD.TDB's eyes and mouths put where the
//! engine puts them, and what a polygon's flag word says it samples (docs/formats/bsx.md,
//! "Textures").

use super::raw::{BsxFile, Reader};
use super::tdb::{Feature, TdbFile};
use crate::ff7::psx::{Depth, PageKey, Vram, HEIGHT, WIDTH};

/// Model slots whose eyes and mouths fit the face area of VRAM: eyes fill four columns of
/// 32-line rows from y 256 up to the mouths' rows at y 416.
pub const MAX_FACE_SLOTS: usize = 20;

/// What a flag word's low six bits say a polygon shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureKind {
    /// 0 and 1: the face's eye or mouth, which FIELD.TDB supplies.
    Face(Feature),
    /// 2: the model's own texture, in its VRAM rectangles.
    Own,
    /// Any other type: not known.
    Unknown(u8),
}

impl TextureKind {
    pub fn of(bits: u8) -> TextureKind {
        match bits {
            0 => TextureKind::Face(Feature::Eye),
            1 => TextureKind::Face(Feature::Mouth),
            2 => TextureKind::Own,
            k => TextureKind::Unknown(k),
        }
    }
    /// The type as the file writes it.
    pub fn bits(self) -> u8 {
        match self {
            TextureKind::Face(Feature::Eye) => 0,
            TextureKind::Face(Feature::Mouth) => 1,
            TextureKind::Own => 2,
            TextureKind::Unknown(k) => k,
        }
    }
}

/// What a flag word says: the texture's type and where it samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextureFlag {
    pub kind: TextureKind,
    pub key: PageKey,
}

impl TextureFlag {
    pub fn of(word: u32) -> TextureFlag {
        let depth = match (word >> 6) & 3 {
            0 => Depth::Four,
            1 => Depth::Eight,
            _ => Depth::Fifteen,
        };
        TextureFlag {
            kind: TextureKind::of((word & 0x3F) as u8),
            key: PageKey {
                page_x: ((word >> 8) & 0xF) as u16 * 64,
                page_y: ((word >> 12) & 1) as u16 * 256,
                clut_x: ((word >> 16) & 0x3F) as u16 * 16,
                clut_y: ((word >> 22) & 0x1FF) as u16,
                depth,
            },
        }
    }
}

/// Upload every rectangle of a BSX's texture section.
pub fn load(file: &BsxFile, bytes: &[u8]) -> Vram {
    let mut v = Vram::new();
    let r = Reader { bytes };
    for rect in file.textures.iter().flat_map(|t| &t.rects) {
        let Ok(data) = r.slice(
            rect.data,
            rect.width as usize * rect.height as usize * 2,
            "",
            "",
        ) else {
            continue;
        };
        v.upload(rect.x as usize, rect.y as usize, rect.width as usize, data);
    }
    v
}

/// Copy a model slot's eyes, mouth and palette from FIELD.TDB where the engine puts
/// them: the palette at (320, 480 + slot), the left and right eye images at
/// (768 + (slot % 4)·16, 256 + (slot / 4)·32) and 8 halfwords to the right, the mouth at
/// (768 + (slot % 8)·8, 416 + (slot / 8)·32). `images` are the TDB images of the left
/// eye, the right eye and the mouth. False when the face has none (0x21 and up), the
/// slot does not fit, or an image is past the file's.
pub fn load_face(
    vram: &mut Vram,
    tdb: &TdbFile,
    bytes: &[u8],
    slot: usize,
    face: u8,
    images: [u8; 3],
) -> bool {
    if face >= 0x21 || slot >= MAX_FACE_SLOTS {
        return false;
    }
    let [Some(left), Some(right), Some(mouth)] = images.map(|i| tdb.image(bytes, i as usize))
    else {
        return false;
    };
    vram.upload(320, 480 + slot, 16, tdb.palette(bytes, face));
    upload_eyes(vram, slot, left, right);
    vram.upload(768 + (slot % 8) * 8, 416 + (slot / 8) * 32, 8, mouth);
    true
}

/// Where a slot's left eye sits (its right eye 8 halfwords on): 32 rows from there.
fn eyes_at(slot: usize) -> (usize, usize) {
    (768 + (slot % 4) * 16, 256 + (slot / 4) * 32)
}

fn upload_eyes(vram: &mut Vram, slot: usize, left: &[u8], right: &[u8]) {
    let (ex, ey) = eyes_at(slot);
    // 32 texels at 4 bits: 8 halfwords a row.
    vram.upload(ex, ey, 8, left);
    vram.upload(ex + 8, ey, 8, right);
}

/// Run `f` with other images (a blink's shut eyes) over a slot's eyes, then put back
/// what was there.
pub fn with_eyes<R>(
    vram: &mut Vram,
    slot: usize,
    left: &[u8],
    right: &[u8],
    f: impl FnOnce(&Vram) -> R,
) -> R {
    let rows = eyes_at(slot).1 * WIDTH..(eyes_at(slot).1 + 32).min(HEIGHT) * WIDTH;
    let kept = vram.pixels[rows.clone()].to_vec();
    upload_eyes(vram, slot, left, right);
    let out = f(vram);
    vram.pixels[rows].copy_from_slice(&kept);
    out
}

/// The rows of a page (from its top) that a slot's eyes lie in.
pub fn eye_rows(key: PageKey, slot: usize) -> impl Iterator<Item = usize> {
    let first = eyes_at(slot).1;
    (first..first + 32).filter_map(move |y| {
        (y + HEIGHT - key.page_y as usize)
            .checked_rem(HEIGHT)
            .filter(|&v| v < 256)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_words_name_page_clut_and_depth() {
        // By the bit table of docs/formats/bsx.md, "Textures": type 2, 4 bpp, page (640, 256), CLUT (0, 500).
        let f = TextureFlag::of(0x7D00_1A02);
        assert_eq!(f.kind, TextureKind::Own);
        assert_eq!(
            f.key,
            PageKey {
                page_x: 640,
                page_y: 256,
                clut_x: 0,
                clut_y: 500,
                depth: Depth::Four
            }
        );
    }
}
