//! PSX VRAM, emulated: the texture section's rectangles uploaded into a 1024 × 512 array of
//! 16-bit pixels, and 256 × 256 texture pages decoded from it per (page, CLUT, depth) the way
//! the GPU samples them (docs/formats/bsx.md, "Textures").

use super::raw::{rgba, BsxFile, Reader};
use super::tdb::{Feature, TdbFile};
use crate::texture::Texels;

pub const WIDTH: usize = 1024;
pub const HEIGHT: usize = 512;

/// Alpha of a texel with its semi-transparency (STP) bit set, in a page sampled by a
/// semi-transparent polygon: such texels blend (at one half, for the average rule).
pub const SEMI_ALPHA: u8 = 128;

/// Model slots whose eyes and mouths fit the face area of VRAM: eyes fill four columns of
/// 32-line rows from y 256 up to the mouths' rows at y 416.
pub const MAX_FACE_SLOTS: usize = 20;

#[derive(Clone)]
pub struct Vram {
    pub pixels: Vec<u16>,
}

/// Colour depth of a texture page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Depth {
    Four,
    Eight,
    Fifteen,
}

/// What a textured polygon samples: a texture page, a CLUT, a depth. Decoded once per
/// distinct key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageKey {
    pub page_x: u16,
    pub page_y: u16,
    pub clut_x: u16,
    pub clut_y: u16,
    pub depth: Depth,
}

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
            key: PageKey { page_x: ((word >> 8) & 0xF) as u16 * 64, page_y: ((word >> 12) & 1) as u16 * 256, clut_x: ((word >> 16) & 0x3F) as u16 * 16, clut_y: ((word >> 22) & 0x1FF) as u16, depth },
        }
    }
}

impl Vram {
    pub fn new() -> Vram {
        Vram { pixels: vec![0; WIDTH * HEIGHT] }
    }

    /// Upload every rectangle of the file's texture section.
    pub fn load(file: &BsxFile, bytes: &[u8]) -> Vram {
        let mut v = Vram::new();
        let r = Reader { bytes };
        for rect in file.textures.iter().flat_map(|t| &t.rects) {
            let Ok(data) = r.slice(rect.data, rect.width as usize * rect.height as usize * 2, "", "") else { continue };
            v.upload(rect.x as usize, rect.y as usize, rect.width as usize, data);
        }
        v
    }

    /// Write halfwords (little-endian) into the rectangle at (x, y), `width` wide.
    pub fn upload(&mut self, x: usize, y: usize, width: usize, data: &[u8]) {
        for (k, h) in data.chunks_exact(2).enumerate() {
            let (px, py) = (x + k % width.max(1), y + k / width.max(1));
            if px < WIDTH && py < HEIGHT {
                self.pixels[py * WIDTH + px] = u16::from_le_bytes([h[0], h[1]]);
            }
        }
    }

    fn at(&self, x: usize, y: usize) -> u16 {
        self.pixels[(y % HEIGHT) * WIDTH + x % WIDTH]
    }

    /// Copy a model slot's eyes, mouth and palette from FIELD.TDB where the engine puts
    /// them: the palette at (320, 480 + slot), the left and right eye images at
    /// (768 + (slot % 4)·16, 256 + (slot / 4)·32) and 8 halfwords to the right, the mouth at
    /// (768 + (slot % 8)·8, 416 + (slot / 8)·32). `images` are the TDB images of the left
    /// eye, the right eye and the mouth. False when the face has none (0x21 and up), the
    /// slot does not fit, or an image is past the file's.
    pub fn load_face(&mut self, tdb: &TdbFile, bytes: &[u8], slot: usize, face: u8, images: [u8; 3]) -> bool {
        if face >= 0x21 || slot >= MAX_FACE_SLOTS {
            return false;
        }
        let [Some(left), Some(right), Some(mouth)] = images.map(|i| tdb.image(bytes, i as usize)) else { return false };
        self.upload(320, 480 + slot, 16, tdb.palette(bytes, face));
        self.upload_eyes(slot, left, right);
        self.upload(768 + (slot % 8) * 8, 416 + (slot / 8) * 32, 8, mouth);
        true
    }

    /// Where a slot's left eye sits (its right eye 8 halfwords on): 32 rows from there.
    fn eyes_at(slot: usize) -> (usize, usize) {
        (768 + (slot % 4) * 16, 256 + (slot / 4) * 32)
    }

    fn upload_eyes(&mut self, slot: usize, left: &[u8], right: &[u8]) {
        let (ex, ey) = Vram::eyes_at(slot);
        // 32 texels at 4 bits: 8 halfwords a row.
        self.upload(ex, ey, 8, left);
        self.upload(ex + 8, ey, 8, right);
    }

    /// Run `f` with other images (a blink's shut eyes) over a slot's eyes, then put back
    /// what was there.
    pub fn with_eyes<R>(&mut self, slot: usize, left: &[u8], right: &[u8], f: impl FnOnce(&Vram) -> R) -> R {
        let rows = Vram::eyes_at(slot).1 * WIDTH..(Vram::eyes_at(slot).1 + 32).min(HEIGHT) * WIDTH;
        let kept = self.pixels[rows.clone()].to_vec();
        self.upload_eyes(slot, left, right);
        let out = f(self);
        self.pixels[rows].copy_from_slice(&kept);
        out
    }

    /// The rows of a page (from its top) that a slot's eyes lie in.
    pub fn eye_rows(key: PageKey, slot: usize) -> impl Iterator<Item = usize> {
        let first = Vram::eyes_at(slot).1;
        (first..first + 32).filter_map(move |y| (y + HEIGHT - key.page_y as usize).checked_rem(HEIGHT).filter(|&v| v < 256))
    }

    /// What texel (u, v) of a page is made of: the halfword of VRAM that holds it, its index
    /// into the CLUT (4- and 8-bit pages) and the colour word the GPU draws.
    pub fn texel(&self, key: PageKey, u: usize, v: usize) -> PageTexel {
        let (px, py, cx, cy) = (key.page_x as usize, key.page_y as usize, key.clut_x as usize, key.clut_y as usize);
        let (u, v) = (u % 256, v % 256);
        match key.depth {
            Depth::Four => {
                let (x, y) = ((px + u / 4) % WIDTH, (py + v) % HEIGHT);
                let word = self.at(x, y);
                let index = (word >> (4 * (u % 4))) & 0xF;
                PageTexel { word, at: (x as u16, y as u16), index: Some(index), colour: self.at(cx + index as usize, cy) }
            }
            Depth::Eight => {
                let (x, y) = ((px + u / 2) % WIDTH, (py + v) % HEIGHT);
                let word = self.at(x, y);
                let index = (word >> (8 * (u % 2))) & 0xFF;
                PageTexel { word, at: (x as u16, y as u16), index: Some(index), colour: self.at(cx + index as usize, cy) }
            }
            Depth::Fifteen => {
                let (x, y) = ((px + u) % WIDTH, (py + v) % HEIGHT);
                let word = self.at(x, y);
                PageTexel { word, at: (x as u16, y as u16), index: None, colour: word }
            }
        }
    }

    /// The 256 × 256 texels a polygon with this key sees, as the GPU samples them. For a
    /// semi-transparent polygon the texels with their STP bit set are half transparent.
    pub fn page(&self, key: PageKey, semi: bool) -> Texels {
        let mut rgba_out = vec![0; 256 * 256 * 4];
        self.page_rows(key, semi, 0..256, &mut rgba_out);
        Texels { width: 256, height: 256, rgba: std::sync::Arc::new(rgba_out) }
    }

    /// Rows `rows` of a page's texels into `out` (256 RGBA a row, row v at v · 1024), as
    /// [`Self::texel`] samples them: a row of VRAM read once, the CLUT once.
    pub fn page_rows(&self, key: PageKey, semi: bool, rows: impl IntoIterator<Item = usize>, out: &mut [u8]) {
        let (px, cx, cy) = (key.page_x as usize, key.clut_x as usize, key.clut_y as usize);
        let clut: Vec<u16> = (0..256).map(|i| self.at(cx + i, cy)).collect();
        for v in rows {
            let y = (key.page_y as usize + v) % HEIGHT;
            let line = &self.pixels[y * WIDTH..(y + 1) * WIDTH];
            let word = |x: usize| line[x % WIDTH];
            for (u, texel) in out[v * 1024..(v + 1) * 1024].chunks_exact_mut(4).enumerate() {
                let c = match key.depth {
                    Depth::Four => clut[((word(px + u / 4) >> (4 * (u % 4))) & 0xF) as usize],
                    Depth::Eight => clut[((word(px + u / 2) >> (8 * (u % 2))) & 0xFF) as usize],
                    Depth::Fifteen => word(px + u),
                };
                texel.copy_from_slice(&rgba(c));
                if semi && c & 0x8000 != 0 {
                    texel[3] = SEMI_ALPHA;
                }
            }
        }
    }
}

/// One texel of a page as VRAM holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageTexel {
    pub word: u16,
    /// Where the word is in VRAM (x in halfwords, y in lines).
    pub at: (u16, u16),
    pub index: Option<u16>,
    pub colour: u16,
}

impl Default for Vram {
    fn default() -> Self {
        Vram::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_words_name_page_clut_and_depth() {
        // By the bit table of docs/formats/bsx.md, "Textures": type 2, 4 bpp, page (640, 256), CLUT (0, 500).
        let f = TextureFlag::of(0x7D00_1A02);
        assert_eq!(f.kind, TextureKind::Own);
        assert_eq!(f.key, PageKey { page_x: 640, page_y: 256, clut_x: 0, clut_y: 500, depth: Depth::Four });
    }

    #[test]
    fn four_bit_texels_read_low_nibble_first_through_the_clut() {
        let mut v = Vram::new();
        // CLUT at (0, 500): entry 1 red, entry 2 green (with STP), entry 0 is 0x0000.
        v.upload(0, 500, 16, &[0, 0, 0x1F, 0, 0xE0, 0x83].iter().chain([0u8; 26].iter()).copied().collect::<Vec<_>>());
        // Page (640, 256): first halfword holds nibbles 1, 2, 0, 1 (low first).
        v.upload(640, 256, 1, &0x1021u16.to_le_bytes());
        let t = v.page(TextureFlag::of(0x7D00_1A02).key, false);
        let px = |u: usize| t.rgba[u * 4..u * 4 + 4].to_vec();
        assert_eq!(px(0), [255, 0, 0, 255]);
        assert_eq!(px(1), [0, 255, 0, 255], "STP texels are opaque on an opaque polygon");
        assert_eq!(px(2), [0, 0, 0, 0], "0x0000 is transparent");
        assert_eq!(px(3), [255, 0, 0, 255]);
        // What the texel under the pointer is made of: the halfword, the nibble, the colour.
        let key = TextureFlag::of(0x7D00_1A02).key;
        assert_eq!(v.texel(key, 1, 0), PageTexel { word: 0x1021, at: (640, 256), index: Some(2), colour: 0x83E0 });
        // On a semi-transparent polygon only the STP texel blends.
        let semi = v.page(TextureFlag::of(0x7D00_1A02).key, true);
        assert_eq!(semi.rgba[4..8], [0, 255, 0, SEMI_ALPHA]);
        assert_eq!(semi.rgba[0..4], [255, 0, 0, 255]);
    }
}
