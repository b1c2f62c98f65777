//! The PlayStation's video memory and how its GPU reads colours, shared by every format that
//! stores PlayStation pictures: a 1024 × 512 array of 16-bit pixels, 16-bit colours (5 bits a
//! channel, bit 15 the STP bit), and texels of 4 or 8 bits that index a CLUT (a row of 16 or
//! 256 colours) or of 15 bits that are colours (docs/formats/psx.md).

use crate::texture::Texels;

pub const WIDTH: usize = 1024;
pub const HEIGHT: usize = 512;

/// Alpha of a texel with its semi-transparency (STP) bit set, in a page sampled by a
/// semi-transparent polygon: such texels blend (at one half, for the average rule).
pub const SEMI_ALPHA: u8 = 128;

/// RGBA of a 16-bit colour: 5 bits a channel widened to 8 by repeating its top bits, bit 15
/// the STP bit (opaque here; see [`Vram::page`]); 0x0000 is transparent.
pub fn rgba(c: u16) -> [u8; 4] {
    if c == 0 {
        return [0, 0, 0, 0];
    }
    let ch = |s: u16| {
        let v = ((c >> s) & 31) as u8;
        (v << 3) | (v >> 2)
    };
    [ch(0), ch(5), ch(10), 255]
}

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

impl Depth {
    /// Texels a halfword holds.
    pub fn per_halfword(self) -> usize {
        match self {
            Depth::Four => 4,
            Depth::Eight => 2,
            Depth::Fifteen => 1,
        }
    }
    /// The colours a texel can index: 16 at 4 bits, 256 at 8; None at 15 bits.
    pub fn clut_colours(self) -> Option<u16> {
        match self {
            Depth::Four => Some(16),
            Depth::Eight => Some(256),
            Depth::Fifteen => None,
        }
    }
    /// The CLUT index of texel `u` of a row from the halfword that holds it (low bits first),
    /// or None at 15 bits, where the halfword is the colour.
    pub fn index(self, word: u16, u: usize) -> Option<u16> {
        match self {
            Depth::Four => Some((word >> (4 * (u % 4))) & 0xF),
            Depth::Eight => Some((word >> (8 * (u % 2))) & 0xFF),
            Depth::Fifteen => None,
        }
    }
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

impl Vram {
    pub fn new() -> Vram {
        Vram {
            pixels: vec![0; WIDTH * HEIGHT],
        }
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

    /// What texel (u, v) of a page is made of: the halfword of VRAM that holds it, its index
    /// into the CLUT (4- and 8-bit pages) and the colour word the GPU draws.
    pub fn texel(&self, key: PageKey, u: usize, v: usize) -> PageTexel {
        let (px, py, cx, cy) = (
            key.page_x as usize,
            key.page_y as usize,
            key.clut_x as usize,
            key.clut_y as usize,
        );
        let (u, v) = (u % 256, v % 256);
        let (x, y) = (
            (px + u / key.depth.per_halfword()) % WIDTH,
            (py + v) % HEIGHT,
        );
        let word = self.at(x, y);
        let index = key.depth.index(word, u);
        let colour = index.map_or(word, |i| self.at(cx + i as usize, cy));
        PageTexel {
            word,
            at: (x as u16, y as u16),
            index,
            colour,
        }
    }

    /// The 256 × 256 texels a polygon with this key sees, as the GPU samples them. For a
    /// semi-transparent polygon the texels with their STP bit set are half transparent.
    pub fn page(&self, key: PageKey, semi: bool) -> Texels {
        let mut rgba_out = vec![0; 256 * 256 * 4];
        self.page_rows(key, semi, 0..256, &mut rgba_out);
        Texels {
            width: 256,
            height: 256,
            rgba: std::sync::Arc::new(rgba_out),
        }
    }

    /// Rows `rows` of a page's texels into `out` (256 RGBA a row, row v at v · 1024), as
    /// [`Self::texel`] samples them: a row of VRAM read once, the CLUT once.
    pub fn page_rows(
        &self,
        key: PageKey,
        semi: bool,
        rows: impl IntoIterator<Item = usize>,
        out: &mut [u8],
    ) {
        let (px, cx, cy) = (
            key.page_x as usize,
            key.clut_x as usize,
            key.clut_y as usize,
        );
        let clut: Vec<u16> = (0..256).map(|i| self.at(cx + i, cy)).collect();
        for v in rows {
            let y = (key.page_y as usize + v) % HEIGHT;
            let line = &self.pixels[y * WIDTH..(y + 1) * WIDTH];
            let word = |x: usize| line[x % WIDTH];
            for (u, texel) in out[v * 1024..(v + 1) * 1024]
                .chunks_exact_mut(4)
                .enumerate()
            {
                let halfword = word(px + u / key.depth.per_halfword());
                let c = key
                    .depth
                    .index(halfword, u)
                    .map_or(halfword, |i| clut[i as usize]);
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

    /// Page (640, 256) at 4 bits, its CLUT at (0, 500).
    const PAGE: PageKey = PageKey {
        page_x: 640,
        page_y: 256,
        clut_x: 0,
        clut_y: 500,
        depth: Depth::Four,
    };

    #[test]
    fn colours_widen_five_bits_to_eight_and_only_zero_is_transparent() {
        assert_eq!(rgba(0x0000), [0, 0, 0, 0]);
        assert_eq!(
            rgba(0x8000),
            [0, 0, 0, 255],
            "black with its STP bit is opaque black"
        );
        assert_eq!(rgba(0x7FFF), [255, 255, 255, 255]);
        // 3 = 0b00011 → 0b00011000 | 0b000 = 24; 17 = 0b10001 → 0b10001000 | 0b100 = 140.
        assert_eq!(rgba(3 | 17 << 5 | 31 << 10), [24, 140, 255, 255]);
    }

    #[test]
    fn indices_come_low_bits_first() {
        assert_eq!(
            (0..4)
                .map(|u| Depth::Four.index(0x1021, u))
                .collect::<Vec<_>>(),
            [Some(1), Some(2), Some(0), Some(1)]
        );
        assert_eq!(
            (0..2)
                .map(|u| Depth::Eight.index(0xAB12, u))
                .collect::<Vec<_>>(),
            [Some(0x12), Some(0xAB)]
        );
        assert_eq!(Depth::Fifteen.index(0x1234, 0), None);
    }

    #[test]
    fn four_bit_texels_read_low_nibble_first_through_the_clut() {
        let mut v = Vram::new();
        // CLUT at (0, 500): entry 1 red, entry 2 green (with STP), entry 0 is 0x0000.
        v.upload(
            0,
            500,
            16,
            &[0, 0, 0x1F, 0, 0xE0, 0x83]
                .iter()
                .chain([0u8; 26].iter())
                .copied()
                .collect::<Vec<_>>(),
        );
        // Page (640, 256): first halfword holds nibbles 1, 2, 0, 1 (low first).
        v.upload(640, 256, 1, &0x1021u16.to_le_bytes());
        let t = v.page(PAGE, false);
        let px = |u: usize| t.rgba[u * 4..u * 4 + 4].to_vec();
        assert_eq!(px(0), [255, 0, 0, 255]);
        assert_eq!(
            px(1),
            [0, 255, 0, 255],
            "STP texels are opaque on an opaque polygon"
        );
        assert_eq!(px(2), [0, 0, 0, 0], "0x0000 is transparent");
        assert_eq!(px(3), [255, 0, 0, 255]);
        // What the texel under the pointer is made of: the halfword, the nibble, the colour.
        let key = PAGE;
        assert_eq!(
            v.texel(key, 1, 0),
            PageTexel {
                word: 0x1021,
                at: (640, 256),
                index: Some(2),
                colour: 0x83E0
            }
        );
        // On a semi-transparent polygon only the STP texel blends.
        let semi = v.page(PAGE, true);
        assert_eq!(semi.rgba[4..8], [0, 255, 0, SEMI_ALPHA]);
        assert_eq!(semi.rgba[0..4], [255, 0, 0, 255]);
    }
}
