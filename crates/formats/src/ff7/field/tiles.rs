//! A field's background tile map (section 3 of the .DAT), read record by record
//! (docs/formats/field-dat.md, "Tile map"): the row groups of each of the four layers with
//! the texture-page markers after them, the texture-page words, and every tile: where it goes
//! on the picture, which texels of which page it takes with which palette, and for layer 2
//! its depth among the models.

use super::bytes::{need, s16_at, section_error, u16_at, u32_at};
use crate::findings::ParseError;
use std::ops::Range;

/// The layers, back to front as the engine names them: 1, 2, 3, 4.
pub const LAYERS: usize = 4;
/// A tile record's bytes in each layer's block (layers 3 and 4 share one).
pub const RECORD: [usize; LAYERS] = [8, 14, 10, 10];
/// A tile's side in pixels, by layer.
pub const TILE_SIDE: [usize; LAYERS] = [16, 16, 32, 32];
/// The word that ends a layer's row groups.
const LAYER_END: u16 = 0x7FFF;
/// The word that starts a texture-page marker (6 bytes: the word, the page word's index, 0).
const PAGE_MARKER: u16 = 0x7FFE;

/// A run of tiles listed for one row of the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowGroup {
    pub at: usize,
    /// 0..4 for layers 1..4.
    pub layer: usize,
    pub y: i16,
    /// The first tile, counted across the layers (layer 1's first).
    pub first: u16,
    pub count: u16,
    /// The index of its texture-page word: the marker after it (layers 1, 3 and 4).
    pub page: Option<u16>,
}

/// A texture-page marker: the groups of its layer before it (back to the previous marker)
/// take page word `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageMarker {
    pub at: usize,
    pub layer: usize,
    pub index: u16,
    pub rest: u16,
}

/// One tile as the file places it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    pub at: usize,
    pub layer: usize,
    /// Its top-left corner in pixels from the projection centre.
    pub dst: [i16; 2],
    /// Its top-left texel in the page.
    pub uv: [u8; 2],
    /// The palette: VRAM x = (clut & 63) · 16, y = clut >> 6.
    pub clut: u16,
    /// The texture-page word (the tile's own in layer 2, its marker's in the others); None
    /// where no marker follows its group.
    pub page: Option<u16>,
    /// Layer 2's sort depth (larger is farther).
    pub id: Option<u16>,
    /// Bit 7: semi-transparent; the low bits: the background group that switches it.
    pub param: u8,
    /// The bit of its group's background byte it is drawn under.
    pub state: u8,
}

impl Tile {
    pub fn side(&self) -> usize {
        TILE_SIDE[self.layer]
    }
    pub fn semi_transparent(&self) -> bool {
        self.param & 0x80 != 0
    }
    /// The background group that switches the tile on and off (0: always drawn).
    pub fn group(&self) -> u8 {
        self.param & 0x7F
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileMap {
    pub range: Range<usize>,
    /// Layer 1 tiles, texture-page words, layer 2 tiles, layers 3 and 4: file offsets.
    pub blocks: [usize; 4],
    pub groups: Vec<RowGroup>,
    pub markers: Vec<PageMarker>,
    /// Where each layer's end word is.
    pub layer_ends: Vec<usize>,
    /// Where the row groups' list ends (the bytes up to the first block are not read).
    pub groups_end: usize,
    /// The texture-page words (block 2).
    pub pages: Vec<u16>,
    pub tiles: Vec<Tile>,
}

impl TileMap {
    pub(super) fn parse(b: &[u8], range: Range<usize>) -> Result<TileMap, ParseError> {
        need(2, &range, 16, "the four block offsets")?;
        let blocks = block_offsets(b, &range)?;
        let (groups, markers, layer_ends, groups_end) = row_groups(b, range.start + 16, blocks[0])?;
        let pages = (blocks[1]..blocks[2] - (blocks[2] - blocks[1]) % 2)
            .step_by(2)
            .map(|at| u16_at(b, at))
            .collect();
        let mut map = TileMap {
            range,
            blocks,
            groups,
            markers,
            layer_ends,
            groups_end,
            pages,
            tiles: Vec::new(),
        };
        map.tiles = map.read_tiles(b)?;
        Ok(map)
    }

    /// Where layer `layer`'s records are.
    pub fn block(&self, layer: usize) -> Range<usize> {
        match layer {
            0 => self.blocks[0]..self.blocks[1],
            1 => self.blocks[2]..self.blocks[3],
            _ => self.blocks[3]..self.range.end,
        }
    }

    /// Tiles of the layers before `layer`'s block (the first tile of a block's records).
    fn counted_before(&self, layer: usize) -> usize {
        let first_of_block = match layer {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        self.groups
            .iter()
            .filter(|g| g.layer < first_of_block)
            .map(|g| g.count as usize)
            .sum()
    }

    fn read_tiles(&self, b: &[u8]) -> Result<Vec<Tile>, ParseError> {
        // Groups that name the same records again cannot make more tiles than the blocks hold.
        let records: usize = (0..3)
            .map(|layer| self.block(layer).len() / RECORD[layer])
            .sum();
        let named: usize = self.groups.iter().map(|g| g.count as usize).sum();
        if named > records {
            return Err(section_error(2, self.range.start + 16, format!("the row groups name {named} tiles: expected at most the {records} records the blocks hold")));
        }
        let mut tiles = Vec::with_capacity(named);
        for g in &self.groups {
            let block = self.block(g.layer);
            let before = self.counted_before(g.layer);
            let record = RECORD[g.layer];
            let first = (g.first as usize).checked_sub(before).ok_or_else(|| {
                section_error(
                    2,
                    g.at,
                    format!(
                        "row group's first tile {}: expected one of layer {} (from {before})",
                        g.first,
                        g.layer + 1
                    ),
                )
            })?;
            let from = block.start + record * first;
            let to = from + record * g.count as usize;
            if to > block.end {
                return Err(section_error(
                    2,
                    g.at,
                    format!(
                        "row group names layer {} tiles {}..{}: its block (bytes {}..{}) holds {}",
                        g.layer + 1,
                        first,
                        first + g.count as usize,
                        block.start,
                        block.end,
                        block.len() / record
                    ),
                ));
            }
            for at in (from..to).step_by(record) {
                tiles.push(self.tile(b, at, g));
            }
        }
        Ok(tiles)
    }

    fn tile(&self, b: &[u8], at: usize, g: &RowGroup) -> Tile {
        let page_of_marker = g.page.and_then(|i| self.pages.get(i as usize).copied());
        let base = Tile {
            at,
            layer: g.layer,
            dst: [s16_at(b, at), s16_at(b, at + 2)],
            uv: [b[at + 4], b[at + 5]],
            clut: u16_at(b, at + 6),
            page: page_of_marker,
            id: None,
            param: 0,
            state: 0,
        };
        match g.layer {
            0 => base,
            1 => Tile {
                page: Some(u16_at(b, at + 8)),
                id: Some(u16_at(b, at + 10)),
                param: b[at + 12],
                state: b[at + 13],
                ..base
            },
            _ => Tile {
                param: b[at + 8],
                state: b[at + 9],
                ..base
            },
        }
    }

    /// The tiles of layer `layer` (0..4).
    pub fn layer(&self, layer: usize) -> impl Iterator<Item = &Tile> {
        self.tiles.iter().filter(move |t| t.layer == layer)
    }
}

fn block_offsets(b: &[u8], range: &Range<usize>) -> Result<[usize; 4], ParseError> {
    let s = range.start;
    let mut blocks = [0usize; 4];
    for k in 0..4 {
        let o = u32_at(b, s + 4 * k) as usize;
        let low = if k == 0 { 16 } else { blocks[k - 1] - s };
        if o < low || o > range.len() {
            return Err(section_error(
                2,
                s + 4 * k,
                format!(
                    "block {} offset {o}: expected one from {low} to the section's {} bytes",
                    k + 1,
                    range.len()
                ),
            ));
        }
        blocks[k] = s + o;
    }
    Ok(blocks)
}

type Groups = (Vec<RowGroup>, Vec<PageMarker>, Vec<usize>, usize);

/// The row groups from `at` to `end`: four layers, each ended by 0x7FFF, with texture-page
/// markers naming the page word of the groups before them.
fn row_groups(b: &[u8], mut at: usize, end: usize) -> Result<Groups, ParseError> {
    let (mut groups, mut markers, mut ends) = (Vec::new(), Vec::new(), Vec::new());
    // Groups of the current layer still waiting for their marker.
    let mut waiting = 0;
    while ends.len() < LAYERS {
        let layer = ends.len();
        if at + 2 > end {
            return Err(section_error(2, at, format!("expected layer {}'s row groups or its end word 0x7FFF before the tiles at byte {end}", layer + 1)));
        }
        match u16_at(b, at) {
            LAYER_END => {
                ends.push(at);
                waiting = groups.len();
                at += 2;
            }
            word => {
                if at + 6 > end {
                    return Err(section_error(
                        2,
                        at,
                        format!(
                            "expected a 6-byte row group or marker before the tiles at byte {end}"
                        ),
                    ));
                }
                if word == PAGE_MARKER {
                    let index = u16_at(b, at + 2);
                    for g in &mut groups[waiting..] {
                        let g: &mut RowGroup = g;
                        g.page = Some(index);
                    }
                    waiting = groups.len();
                    markers.push(PageMarker {
                        at,
                        layer,
                        index,
                        rest: u16_at(b, at + 4),
                    });
                } else {
                    groups.push(RowGroup {
                        at,
                        layer,
                        y: word as i16,
                        first: u16_at(b, at + 2),
                        count: u16_at(b, at + 4),
                        page: None,
                    });
                }
                at += 6;
            }
        }
    }
    Ok((groups, markers, ends, at))
}
