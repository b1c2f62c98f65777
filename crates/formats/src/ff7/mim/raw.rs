//! A .MIM read from its unpacked bytes (docs/formats/mim.md): up to three blocks, each a
//! 12-byte header (its size, where it goes in VRAM and how large it is) and its halfwords.

use crate::ff7::psx::Vram;
use crate::findings::ParseError;
use std::ops::Range;

/// A block's header: u32 size (with the header), u16 x, y, width (halfwords), height.
pub const BLOCK_HEADER: usize = 12;
/// The palettes, the first image, the second image.
pub const BLOCKS: usize = 3;
pub const BLOCK_NAMES: [&str; BLOCKS] = ["palettes", "image 1", "image 2"];
/// Where the engine puts the palettes, whatever the block's header says.
pub const PALETTES_AT: (usize, usize) = (0, 480);
/// How wide the engine uploads the palettes (one 256-colour palette a line).
pub const PALETTE_WIDTH: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub at: usize,
    pub size: u32,
    pub x: u16,
    pub y: u16,
    /// In halfwords (two texels of an 8-bit page each).
    pub width: u16,
    pub height: u16,
    /// The halfwords.
    pub data: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MimFile {
    pub blocks: Vec<Block>,
    /// A block size of 0 that ends the file early (no second image): where it is.
    pub end_word: Option<usize>,
    /// Where the last block ends.
    pub end: usize,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// Whether `b` starts as a field's .MIM does, whole or cut short: a first block whose size is
/// its 12-byte header and its rectangle of halfwords, the rectangle within video memory.
/// What tells a .MIM's LZS container whose header disagrees with the file from the .MIM's own
/// bytes (docs/formats/lzs.md, "Lengths").
pub fn starts_like_a_mim(b: &[u8]) -> bool {
    if b.len() < BLOCK_HEADER {
        return false;
    }
    let size = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
    let (x, y, width, height) = (
        u16_at(b, 4) as usize,
        u16_at(b, 6) as usize,
        u16_at(b, 8) as usize,
        u16_at(b, 10) as usize,
    );
    width > 0
        && height > 0
        && x + width <= 1024
        && y + height <= 512
        && size == BLOCK_HEADER + 2 * width * height
}

impl MimFile {
    pub fn parse(b: &[u8]) -> Result<MimFile, ParseError> {
        let mut blocks = Vec::new();
        let mut at = 0;
        let mut end_word = None;
        while blocks.len() < BLOCKS && at < b.len() {
            let what = BLOCK_NAMES[blocks.len()];
            if at + 4 > b.len() {
                return Err(ParseError::new(
                    at,
                    what,
                    format!(
                        "expected a 4-byte block size; the file ends at byte {}",
                        b.len()
                    ),
                ));
            }
            let size = u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            if size == 0 && !blocks.is_empty() {
                end_word = Some(at);
                at += 4;
                break;
            }
            if at + BLOCK_HEADER > b.len() {
                return Err(ParseError::new(
                    at,
                    what,
                    format!(
                        "expected a {BLOCK_HEADER}-byte block header; the file ends at byte {}",
                        b.len()
                    ),
                ));
            }
            let (x, y, width, height) = (
                u16_at(b, at + 4),
                u16_at(b, at + 6),
                u16_at(b, at + 8),
                u16_at(b, at + 10),
            );
            let pixels = 2 * width as usize * height as usize;
            let need = BLOCK_HEADER + pixels;
            if (size as usize) < need {
                return Err(ParseError::new(at, what, format!("block size {size}: expected at least {need} (the header and {width} × {height} halfwords)")));
            }
            let next = at + (size as usize & !3);
            if next > b.len() || at + need > b.len() {
                return Err(ParseError::new(
                    at,
                    what,
                    format!("block of {size} bytes: the file ends at byte {}", b.len()),
                ));
            }
            blocks.push(Block {
                at,
                size,
                x,
                y,
                width,
                height,
                data: at + BLOCK_HEADER..at + need,
            });
            at = next;
        }
        if blocks.is_empty() {
            return Err(ParseError::new(
                0,
                "palettes",
                "expected a palette block; the file is empty",
            ));
        }
        Ok(MimFile {
            blocks,
            end_word,
            end: at,
        })
    }

    /// The video memory once the engine has loaded the file: the palettes at (0, 480), 256
    /// colours a line, and each image at its place.
    pub fn vram(&self, b: &[u8]) -> Vram {
        let mut vram = Vram::new();
        for (k, block) in self.blocks.iter().enumerate() {
            let (x, y, width) = if k == 0 {
                (PALETTES_AT.0, PALETTES_AT.1, PALETTE_WIDTH)
            } else {
                (block.x as usize, block.y as usize, block.width as usize)
            };
            vram.upload(x, y, width, &b[block.data.clone()]);
        }
        vram
    }

    /// The image blocks (not the palettes).
    pub fn images(&self) -> &[Block] {
        self.blocks.get(1..).unwrap_or_default()
    }

    /// The palettes: how many 256-colour lines.
    pub fn palette_count(&self) -> usize {
        self.blocks
            .first()
            .map_or(0, |p| p.data.len() / (2 * PALETTE_WIDTH))
    }
}
