//! The TIM layout read from borrowed bytes, every part with its offset (docs/formats/tim.md),
//! and the picture decoded from it.

use crate::ff7::psx::{self, rgba};
use crate::findings::{Diagnostics, ParseError};
use crate::gallery::TexelPlane;
use crate::texture::Texels;
use std::ops::Range;

/// The first word: tag 0x10, version 0.
pub const TAG: u32 = 0x10;
/// The flags' depth bits (0–1) and CLUT bit (3): no other bit is known.
pub const KNOWN_FLAGS: u32 = 0b1011;
const CLUT_FLAG: u32 = 0b1000;
/// Tag and flags.
pub const HEADER: usize = 8;
/// A block's length word and its rectangle (x, y, width, height: u16 each).
pub const BLOCK_HEADER: usize = 12;
/// A block is a rectangle of VRAM, which is 1024 × 512 halfwords: none can be larger.
const MAX_WIDTH: u16 = psx::WIDTH as u16;
const MAX_HEIGHT: u16 = psx::HEIGHT as u16;

/// Bits a texel, from the flags' low two bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    Four,
    Eight,
    Sixteen,
    TwentyFour,
}

impl Depth {
    pub fn bits(self) -> u32 {
        match self {
            Depth::Four => 4,
            Depth::Eight => 8,
            Depth::Sixteen => 16,
            Depth::TwentyFour => 24,
        }
    }
    /// Texels in a row of `halfwords`: 4 a halfword at 4 bits, 2 at 8, 1 at 16, and at 24
    /// bits a texel every three bytes (a row's last bytes may hold no whole texel).
    pub fn texels_in(self, halfwords: u32) -> u32 {
        match self {
            Depth::Four => halfwords * 4,
            Depth::Eight => halfwords * 2,
            Depth::Sixteen => halfwords,
            Depth::TwentyFour => halfwords * 2 / 3,
        }
    }
    /// The GPU's word for an indexed depth: how a halfword splits into CLUT indices.
    fn indexed(self) -> Option<psx::Depth> {
        match self {
            Depth::Four => Some(psx::Depth::Four),
            Depth::Eight => Some(psx::Depth::Eight),
            _ => None,
        }
    }
}

/// A block: a rectangle of VRAM halfwords and where it lies in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Where the block starts (its length word).
    pub offset: usize,
    /// The length word: the block's bytes, its 12-byte header included.
    pub length: u32,
    /// Where in VRAM it is loaded (halfwords, lines).
    pub x: u16,
    pub y: u16,
    /// Its size in halfwords and lines.
    pub width: u16,
    pub height: u16,
}

impl Block {
    /// The halfwords' bytes in the file.
    pub fn data(&self) -> Range<usize> {
        self.offset + BLOCK_HEADER..self.end()
    }
    pub fn end(&self) -> usize {
        self.offset + BLOCK_HEADER + 2 * self.width as usize * self.height as usize
    }
    /// Halfword `i` of the rectangle (row by row).
    fn halfword(&self, bytes: &[u8], i: usize) -> u16 {
        let at = self.offset + BLOCK_HEADER + 2 * i;
        u16::from_le_bytes([bytes[at], bytes[at + 1]])
    }
}

/// A TIM read: its depth, its CLUT block if it has one, its image block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimFile {
    pub flags: u32,
    pub depth: Depth,
    pub clut: Option<Block>,
    pub image: Block,
}

impl TimFile {
    /// Read the header and both blocks. An error names the byte where what was expected is
    /// not; findings that do not stop the picture go to `diagnostics`.
    pub fn parse(bytes: &[u8], diagnostics: &mut Diagnostics) -> Result<TimFile, ParseError> {
        let word = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let Some(tag) = word(0) else {
            return Err(ParseError::new(
                0,
                "",
                format!("the TIM header needs 8 bytes; the file has {}", bytes.len()),
            ));
        };
        if tag != TAG {
            return Err(ParseError::new(
                0,
                "",
                format!(
                    "the TIM tag is 10 00 00 00 (tag 0x10, version 0); the file starts {tag:08x}"
                ),
            ));
        }
        let Some(flags) = word(4) else {
            return Err(ParseError::new(
                4,
                "",
                format!("the TIM header needs 8 bytes; the file has {}", bytes.len()),
            ));
        };
        if flags & !KNOWN_FLAGS != 0 {
            return Err(ParseError::new(4, "", format!("flags {flags:#x}: only bits 0–1 (the depth) and bit 3 (a CLUT follows) are known")));
        }
        let depth =
            [Depth::Four, Depth::Eight, Depth::Sixteen, Depth::TwentyFour][(flags & 3) as usize];
        let clut = if flags & CLUT_FLAG != 0 {
            Some(block(bytes, HEADER, "CLUT")?)
        } else {
            None
        };
        let image = block(bytes, clut.as_ref().map_or(HEADER, Block::end), "image")?;
        if depth.texels_in(image.width as u32) == 0 {
            return Err(ParseError::new(image.offset + 8, "", format!("the image block is {} halfword wide: at 24 bits a texel takes three bytes, so a row holds none", image.width)));
        }
        if let Some(c) = &clut {
            let colours = c.width as usize * c.height as usize;
            match depth.indexed() {
                None => diagnostics.add(c.offset, String::new, || format!("a CLUT of {colours} colours, which a {}-bit image does not use", depth.bits())),
                Some(d) if Some(c.width) < d.clut_colours() => {
                    diagnostics.add(c.offset, String::new, || format!("CLUT rows of {} colours: a {}-bit texel can index {}; texels past the row are drawn transparent", c.width, depth.bits(), d.clut_colours().unwrap_or(0)))
                }
                Some(_) => {}
            }
        } else if depth.indexed().is_some() {
            diagnostics.add(4, String::new, || {
                format!(
                    "{} bits a texel but no CLUT: the indices are drawn as greys",
                    depth.bits()
                )
            });
        }
        if image.end() < bytes.len() {
            diagnostics.add(image.end(), String::new, || {
                format!(
                    "{} bytes after the image block, not read",
                    bytes.len() - image.end()
                )
            });
        }
        Ok(TimFile {
            flags,
            depth,
            clut,
            image,
        })
    }

    pub fn width(&self) -> u32 {
        self.depth.texels_in(self.image.width as u32)
    }
    pub fn height(&self) -> u32 {
        self.image.height as u32
    }
    /// The CLUT's palette rows (0 without a CLUT).
    pub fn cluts(&self) -> u32 {
        self.clut.as_ref().map_or(0, |c| c.height as u32)
    }

    /// The picture as the GPU draws it with the first CLUT row (0x0000 transparent), and
    /// what each texel is stored as: its CLUT index and colour word, or its colour word.
    pub fn decode(&self, bytes: &[u8]) -> (Texels, Vec<TexelPlane>) {
        let (w, h) = (self.width() as usize, self.height() as usize);
        let stride = self.image.width as usize;
        let mut out = vec![0u8; w * h * 4];
        let mut planes = Vec::new();
        match self.depth.indexed() {
            Some(gpu) => planes = self.decode_indexed(bytes, gpu, &mut out),
            None if self.depth == Depth::Sixteen => {
                let words: Vec<u16> = (0..w * h).map(|i| self.image.halfword(bytes, i)).collect();
                for (texel, &word) in out.chunks_exact_mut(4).zip(&words) {
                    texel.copy_from_slice(&rgba(word));
                }
                planes.push(TexelPlane {
                    name: "colour word",
                    hex: true,
                    values: words,
                });
            }
            None => {
                // 24 bits: R, G, B bytes, each row `stride` halfwords long.
                let data = &bytes[self.image.data()];
                for y in 0..h {
                    for u in 0..w {
                        let at = y * stride * 2 + u * 3;
                        let o = (y * w + u) * 4;
                        out[o..o + 4].copy_from_slice(&[data[at], data[at + 1], data[at + 2], 255]);
                    }
                }
            }
        }
        (
            Texels {
                width: w as u32,
                height: h as u32,
                rgba: std::sync::Arc::new(out),
            },
            planes,
        )
    }

    /// An indexed picture's texels drawn into `out` with the first CLUT row (grey where the
    /// file has no CLUT). → the planes of its CLUT indices and colour words.
    fn decode_indexed(&self, bytes: &[u8], gpu: psx::Depth, out: &mut [u8]) -> Vec<TexelPlane> {
        let (w, h) = (self.width() as usize, self.height() as usize);
        let stride = self.image.width as usize;
        let (mut indices, mut words) = (vec![0u16; w * h], vec![0u16; w * h]);
        let per = gpu.per_halfword();
        for y in 0..h {
            for u in 0..w {
                let index = gpu
                    .index(self.image.halfword(bytes, y * stride + u / per), u)
                    .unwrap_or(0);
                let at = y * w + u;
                indices[at] = index;
                let texel = match &self.clut {
                    Some(c) if index < c.width => {
                        words[at] = c.halfword(bytes, index as usize);
                        rgba(words[at])
                    }
                    Some(_) => [0; 4],
                    None => {
                        let grey = (index as u32 * 255
                            / (gpu.clut_colours().unwrap_or(256) as u32 - 1))
                            as u8;
                        [grey, grey, grey, 255]
                    }
                };
                out[at * 4..at * 4 + 4].copy_from_slice(&texel);
            }
        }
        let mut planes = vec![TexelPlane {
            name: "CLUT index",
            hex: false,
            values: indices,
        }];
        if self.clut.is_some() {
            planes.push(TexelPlane {
                name: "colour word",
                hex: true,
                values: words,
            });
        }
        planes
    }
}

/// The block at `at`: its header whole, a length word that agrees with its rectangle, the
/// rectangle within VRAM and its halfwords within the file.
fn block(bytes: &[u8], at: usize, what: &str) -> Result<Block, ParseError> {
    let Some(h) = bytes.get(at..at + BLOCK_HEADER) else {
        return Err(ParseError::new(
            at,
            "",
            format!(
                "the {what} block's 12-byte header runs past the end of the file ({} bytes)",
                bytes.len()
            ),
        ));
    };
    let half = |k: usize| u16::from_le_bytes([h[k], h[k + 1]]);
    let b = Block {
        offset: at,
        length: u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
        x: half(4),
        y: half(6),
        width: half(8),
        height: half(10),
    };
    if b.width == 0 || b.height == 0 || b.width > MAX_WIDTH || b.height > MAX_HEIGHT {
        return Err(ParseError::new(at + 8, "", format!("the {what} block is {} × {} halfwords; a block is a rectangle of VRAM, 1 × 1 to 1024 × 512", b.width, b.height)));
    }
    let needed = BLOCK_HEADER as u64 + 2 * b.width as u64 * b.height as u64;
    if b.length as u64 != needed {
        return Err(ParseError::new(at, "", format!("the {what} block's length word says {} bytes; its {} × {} halfwords and 12-byte header are {needed}", b.length, b.width, b.height)));
    }
    if b.end() > bytes.len() {
        return Err(ParseError::new(at + BLOCK_HEADER, "", format!("the {what} block's {} × {} halfwords ({} bytes from byte {}) run past the end of the file at {}", b.width, b.height, needed as usize - BLOCK_HEADER, at + BLOCK_HEADER, bytes.len())));
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 16-bit TIM of `w` × `h` halfwords, its halfwords counting up from 1.
    fn sixteen(w: u16, h: u16) -> Vec<u8> {
        let mut out = [TAG.to_le_bytes(), 2u32.to_le_bytes()].concat();
        out.extend((12 + 2 * w as u32 * h as u32).to_le_bytes());
        for v in [0u16, 0, w, h] {
            out.extend(v.to_le_bytes());
        }
        out.extend((1..=w * h).flat_map(u16::to_le_bytes));
        out
    }

    #[test]
    fn rows_hold_texels_by_depth() {
        assert_eq!(
            [Depth::Four, Depth::Eight, Depth::Sixteen, Depth::TwentyFour].map(|d| d.texels_in(3)),
            [12, 6, 3, 2]
        );
        assert_eq!(Depth::TwentyFour.texels_in(1), 0);
    }

    #[test]
    fn a_sixteen_bit_image_reads_its_words_and_a_trailer_is_a_warning() {
        let mut bytes = sixteen(2, 2);
        let mut found = Diagnostics::default();
        let t = TimFile::parse(&bytes, &mut found).unwrap();
        assert_eq!(
            (t.width(), t.height(), t.cluts(), t.image.end()),
            (2, 2, 0, bytes.len())
        );
        assert!(found.is_empty());
        let (picture, planes) = t.decode(&bytes);
        assert_eq!(planes[0].values, [1, 2, 3, 4]);
        assert_eq!(&picture.rgba[..4], &rgba(1));
        bytes.extend([0; 3]);
        TimFile::parse(&bytes, &mut found).unwrap();
        assert_eq!(found.kept[0].offset, bytes.len() - 3);
    }

    #[test]
    fn every_cut_of_a_file_is_an_error_not_a_panic() {
        let bytes = sixteen(3, 2);
        for cut in 0..bytes.len() {
            let e = TimFile::parse(&bytes[..cut], &mut Diagnostics::default()).unwrap_err();
            assert!(e.offset <= cut.max(4), "cut at {cut}: {e}");
        }
    }
}
