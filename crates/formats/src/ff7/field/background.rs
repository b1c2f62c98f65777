//! The background the player saw: a field's tile map drawn from its .MIM's pixels as the
//! engine draws it (docs/formats/field-dat.md, "Composing the background"): every tile of
//! every layer sampled from its texture page with its palette and colour depth, layer 3 at
//! the back, then layer 1, layer 2 from far to near by its depth, layer 4 in front, the
//! semi-transparent ones blended by their page's rule, on a canvas of the field's scroll
//! range (the picture's frame on the projection plane, the projection centre at its origin).

use super::tiles::{Tile, TileMap, LAYERS};
use crate::ff7::psx::{Depth, PageKey, Vram};
use crate::scene::Card;
use crate::texture::Texels;
use std::collections::BTreeMap;

/// The widest and tallest canvas composed: a frame larger than this (or inside out) is
/// replaced by the tiles' own extent, cut to it.
pub const MAX_SIDE: i32 = 2048;

/// A composed background.
#[derive(Debug, Clone)]
pub struct Composed {
    pub picture: Texels,
    /// The canvas on the projection plane: min x, min y, max x, max y, in pixels from the
    /// projection centre (y down).
    pub frame: [i32; 4],
    /// Tiles drawn, by layer.
    pub drawn: [usize; LAYERS],
    /// The optional tiles' groups and the state drawn of each (its lowest): which one a
    /// field starts with is its scripts' business.
    pub states: BTreeMap<u8, u8>,
    /// Tiles not drawn: another state of their group, or no texture page.
    pub left_out: usize,
    /// The picture as it was once layers 3 and 1 were drawn (before layer 2): what lies
    /// behind every model.
    pub behind: Texels,
    /// Each layer behind every model (1 and 3) on its own, transparent where it draws
    /// nothing, where both draw something: what is shown of the picture when the person
    /// hides one of them. (A semi-transparent texel is blended over its own layer only.)
    pub alone: [Option<Texels>; LAYERS],
}

/// The layers drawn behind every model, in the order drawn: 3, then 1 (indices 2 and 0).
pub const BEHIND_MODELS: [usize; 2] = [2, 0];
/// A texel of a layer's own canvas that the layer draws (the console's colour words have 15
/// bits of colour; the 16th marks it).
const DRAWN: u16 = 0x8000;

/// The frame the picture is composed in: the scroll range (min x, min y, max x, max y) the
/// triggers give, or, where that is empty or too large, the tiles' extent (cut to
/// [`MAX_SIDE`]).
pub fn frame(scroll: Option<[i16; 4]>, map: &TileMap) -> [i32; 4] {
    let fits = |f: [i32; 4]| {
        f[2] > f[0] && f[3] > f[1] && f[2] - f[0] <= MAX_SIDE && f[3] - f[1] <= MAX_SIDE
    };
    if let Some(f) = scroll.map(|s| s.map(i32::from)).filter(|&f| fits(f)) {
        return f;
    }
    let mut f = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
    for t in &map.tiles {
        let side = t.side() as i32;
        let (x, y) = (t.dst[0] as i32, t.dst[1] as i32);
        f = [
            f[0].min(x),
            f[1].min(y),
            f[2].max(x + side),
            f[3].max(y + side),
        ];
    }
    if f[0] > f[2] {
        return [-160, -120, 160, 120];
    }
    [
        f[0],
        f[1],
        f[2].min(f[0] + MAX_SIDE),
        f[3].min(f[1] + MAX_SIDE),
    ]
}

/// The state drawn of each optional tile group: the lowest bit its tiles are drawn under.
pub fn group_states(map: &TileMap) -> BTreeMap<u8, u8> {
    let mut states: BTreeMap<u8, u8> = BTreeMap::new();
    for t in map.tiles.iter().filter(|t| t.group() != 0 && t.state != 0) {
        let lowest = 1u8 << t.state.trailing_zeros();
        states
            .entry(t.group())
            .and_modify(|s| *s = (*s).min(lowest))
            .or_insert(lowest);
    }
    states
}

/// The tiles drawn, in the order they are drawn: layer 3, layer 1, layer 2 from its largest
/// depth to its smallest (in file order where two are equal), layer 4; the optional tiles of
/// each group in its drawn state only. `shown` switches layers 1..4.
pub fn draw_order<'a>(
    map: &'a TileMap,
    shown: [bool; LAYERS],
    states: &BTreeMap<u8, u8>,
) -> Vec<&'a Tile> {
    let drawn =
        |t: &&Tile| t.group() == 0 || states.get(&t.group()).is_some_and(|&s| t.state & s != 0);
    let mut order = Vec::with_capacity(map.tiles.len());
    for layer in [2, 0, 1, 3] {
        if !shown[layer] {
            continue;
        }
        let start = order.len();
        order.extend(map.layer(layer).filter(drawn));
        if layer == 1 {
            order[start..].sort_by_key(|t: &&Tile| std::cmp::Reverse(t.id.unwrap_or(0)));
        }
    }
    order
}

/// What a texture-page word says: the page, its depth, its blending rule.
fn page_of(word: u16, clut: u16) -> (PageKey, u16) {
    let depth = match (word >> 7) & 3 {
        0 => Depth::Four,
        1 => Depth::Eight,
        _ => Depth::Fifteen,
    };
    let key = PageKey {
        page_x: (word & 0xF) * 64,
        page_y: ((word >> 4) & 1) * 256,
        clut_x: (clut & 63) * 16,
        clut_y: (clut >> 6) & 511,
        depth,
    };
    (key, (word >> 5) & 3)
}

/// A semi-transparent texel `front` over `back` by the page's rule, channel by channel in
/// the console's five bits: 0 the mean, 1 the sum, 2 the difference, 3 back plus a quarter.
fn blend(back: u16, front: u16, rule: u16) -> u16 {
    let mut out = 0;
    for shift in [0, 5, 10] {
        let (b, f) = (
            ((back >> shift) & 31) as i32,
            ((front >> shift) & 31) as i32,
        );
        let c = match rule {
            0 => (b + f) / 2,
            1 => b + f,
            2 => b - f,
            _ => b + f / 4,
        };
        out |= (c.clamp(0, 31) as u16) << shift;
    }
    out
}

/// The background of `map` from `vram` (the .MIM loaded) in `frame`, layers switched by
/// `shown`, on black (the screen the engine clears).
pub fn compose(map: &TileMap, vram: &Vram, frame: [i32; 4], shown: [bool; LAYERS]) -> Composed {
    let (w, h) = (
        (frame[2] - frame[0]).clamp(1, MAX_SIDE) as usize,
        (frame[3] - frame[1]).clamp(1, MAX_SIDE) as usize,
    );
    // The console's own colour words, blended as it blends them; widened at the end.
    let mut canvas = vec![0u16; w * h];
    let states = group_states(map);
    let order = draw_order(map, shown, &states);
    let mut drawn = [0; LAYERS];
    let mut behind = None;
    // (Only where both layers behind the models draw: with one, the picture behind is it.)
    let both = BEHIND_MODELS
        .iter()
        .all(|&l| shown[l] && map.layer(l).next().is_some());
    let mut own: [Vec<u16>; LAYERS] = std::array::from_fn(|l| {
        if both && BEHIND_MODELS.contains(&l) {
            vec![0u16; w * h]
        } else {
            Vec::new()
        }
    });
    let area = Area { frame, w, h };
    for t in &order {
        if t.layer == 1 || t.layer == 3 {
            behind.get_or_insert_with(|| texels_of(&canvas, w, h, false));
        }
        let Some(word) = t.page else { continue };
        drawn[t.layer] += 1;
        area.draw(t, word, vram, &mut canvas, &mut own[t.layer]);
    }
    let picture = texels_of(&canvas, w, h, false);
    let alone = std::array::from_fn(|l| {
        let mine = &own[l];
        (drawn[l] > 0 && !mine.is_empty()).then(|| texels_of(mine, w, h, true))
    });
    let left_out =
        map.tiles.iter().filter(|t| shown[t.layer]).count() - drawn.iter().sum::<usize>();
    Composed {
        behind: behind.unwrap_or_else(|| picture.clone()),
        picture,
        frame: [frame[0], frame[1], frame[0] + w as i32, frame[1] + h as i32],
        drawn,
        states,
        left_out,
        alone,
    }
}

/// The console's colour words as texels, `w` × `h`: each 5-bit channel widened to 8. For a
/// layer's own picture (`own`), a word not marked [`DRAWN`] is transparent: the layer draws
/// nothing there.
fn texels_of(words: &[u16], w: usize, h: usize, own: bool) -> Texels {
    let widen = |v: u16| ((v << 3) | (v >> 2)) as u8;
    Texels {
        width: w as u32,
        height: h as u32,
        rgba: std::sync::Arc::new(
            words
                .iter()
                .flat_map(|&c| {
                    if own && c & DRAWN == 0 {
                        [0; 4]
                    } else {
                        [
                            widen(c & 31),
                            widen((c >> 5) & 31),
                            widen((c >> 10) & 31),
                            255,
                        ]
                    }
                })
                .collect(),
        ),
    }
}

/// The picture's frame on the screen and its size in texels.
struct Area {
    frame: [i32; 4],
    w: usize,
    h: usize,
}

impl Area {
    /// Tile `t` (its page word `word`) drawn from VRAM onto `canvas`, and onto `own` (its
    /// layer's own picture, where one is kept: marked [`DRAWN`] where it draws), blended as
    /// the console blends a semi-transparent texel.
    fn draw(&self, t: &Tile, word: u16, vram: &Vram, canvas: &mut [u16], own: &mut [u16]) {
        let (key, rule) = page_of(word, t.clut);
        let side = t.side();
        for dy in 0..side {
            let y = t.dst[1] as i32 + dy as i32 - self.frame[1];
            if !(0..self.h as i32).contains(&y) {
                continue;
            }
            for dx in 0..side {
                let x = t.dst[0] as i32 + dx as i32 - self.frame[0];
                if !(0..self.w as i32).contains(&x) {
                    continue;
                }
                let c = vram
                    .texel(
                        key,
                        (t.uv[0] as usize + dx) % 256,
                        (t.uv[1] as usize + dy) % 256,
                    )
                    .colour;
                if c == 0 {
                    continue;
                }
                let at = y as usize * self.w + x as usize;
                let over = |under: u16| {
                    if t.semi_transparent() && c & 0x8000 != 0 {
                        blend(under, c, rule)
                    } else {
                        c & 0x7FFF
                    }
                };
                canvas[at] = over(canvas[at]);
                if let Some(mine) = own.get_mut(at) {
                    *mine = DRAWN | over(*mine & !DRAWN);
                }
            }
        }
    }
}

/// How far ahead of the camera the engine sorts a tile of depth `d` among the models: its
/// ordering-table index is a quarter of the screen depth (docs/formats/field-dat.md,
/// "Depth among the models"; our reading of the engine's defaults).
const Z_PER_DEPTH: f32 = 4.0;
/// Layer 4's depth: in front of everything.
const LAYER_4_DEPTH: u16 = 1;
/// The atlas: a cell a tile (16 or 32 texels a side) inside a border of [`PAD`] texels that
/// repeat its edge, so that a texel sampled a little outside the tile, at the edge of its
/// square on the view, is still the tile's; cells left to right in rows [`ATLAS_WIDTH`] wide.
const PAD: usize = 2;
const ATLAS_WIDTH: usize = 1024;
/// The tallest atlas made: the tiles past it are not made.
const ATLAS_HEIGHT: usize = 4096;

/// Where each of the tiles of these sides goes in the atlas (its cell's corner), and the
/// atlas's height; the tiles that fit.
fn shelves(sides: impl Iterator<Item = usize>) -> (Vec<(usize, usize)>, usize) {
    let (mut x, mut y, mut row) = (0, 0, 0);
    let mut at = Vec::new();
    for side in sides {
        let cell = side + 2 * PAD;
        if x + cell > ATLAS_WIDTH {
            (x, y, row) = (0, y + row, 0);
        }
        if y + cell > ATLAS_HEIGHT {
            break;
        }
        at.push((x, y));
        x += cell;
        row = row.max(cell);
    }
    (at, (y + row).max(1))
}

/// The picture's pieces at depths among the models: its tiles of layer 2 (at their depth) and
/// layer 4 (in front), in the order drawn, with their texels in an atlas.
pub struct Cards {
    pub texels: Texels,
    pub cards: Vec<Card>,
    /// Each card's layer of the tile map (1 or 3: layers 2 and 4), as `cards`.
    pub tile_layers: Vec<usize>,
    /// Tiles past what the atlas holds, not made.
    pub left_out: usize,
}

/// Tile `t`'s texels (from page `key` of `vram`): the composed picture's colour where it
/// draws, else transparent.
fn card_texels(t: &Tile, key: PageKey, vram: &Vram, composed: &Composed) -> Vec<[u8; 4]> {
    let picture = &composed.picture;
    let shown = |x: i32, y: i32| -> Option<[u8; 4]> {
        let (px, py) = (x - composed.frame[0], y - composed.frame[1]);
        if px < 0 || py < 0 || px >= picture.width as i32 || py >= picture.height as i32 {
            return None;
        }
        let at = (py as usize * picture.width as usize + px as usize) * 4;
        picture
            .rgba
            .get(at..at + 4)
            .map(|p| [p[0], p[1], p[2], 255])
    };
    let side = t.side();
    (0..side * side)
        .map(|k| {
            let (dx, dy) = (k % side, k / side);
            let c = vram
                .texel(
                    key,
                    (t.uv[0] as usize + dx) % 256,
                    (t.uv[1] as usize + dy) % 256,
                )
                .colour;
            if c == 0 {
                return [0; 4];
            }
            shown(t.dst[0] as i32 + dx as i32, t.dst[1] as i32 + dy as i32).unwrap_or([0; 4])
        })
        .collect()
}

/// The cards of `map` from `vram`, the optional groups drawn as `states` says. A card's
/// texels are those of the `composed` picture where its tile draws (so the blending rules
/// are the console's, as composed), transparent elsewhere: the cards over the picture of
/// the layers behind (1 and 3) give the composed picture back, and a model between two
/// cards hides the farther.
pub fn cards(map: &TileMap, vram: &Vram, composed: &Composed) -> Cards {
    let states = &composed.states;
    let order: Vec<&Tile> = draw_order(map, [false, true, false, true], states)
        .into_iter()
        .filter(|t| t.page.is_some())
        .collect();
    let (cells, h) = shelves(order.iter().map(|t| t.side()));
    let (kept, w) = (cells.len(), ATLAS_WIDTH);
    let mut rgba = vec![0u8; w * h * 4];
    let mut cards = Vec::with_capacity(kept);
    let mut tile_layers = Vec::with_capacity(kept);
    for (k, t) in order.iter().take(kept).enumerate() {
        let Some(word) = t.page else { continue };
        let (key, _) = page_of(word, t.clut);
        let (cx, cy) = cells[k];
        let side = t.side();
        // Its cell, each texel of the border the nearest of the tile's.
        let tile = card_texels(t, key, vram, composed);
        let pad = PAD;
        for y in 0..side + 2 * pad {
            let dy = y.clamp(pad, pad + side - 1) - pad;
            for x in 0..side + 2 * pad {
                let dx = x.clamp(pad, pad + side - 1) - pad;
                let at = ((cy + y) * w + cx + x) * 4;
                rgba[at..at + 4].copy_from_slice(&tile[dy * side + dx]);
            }
        }
        let depth = if t.layer == 1 {
            t.id.unwrap_or(0)
        } else {
            LAYER_4_DEPTH
        };
        let (x, y) = (t.dst[0] as i32, t.dst[1] as i32);
        cards.push(Card {
            rect: [x, y, x + side as i32, y + side as i32],
            depth: Z_PER_DEPTH * depth.max(1) as f32,
            texels: [
                (cx + PAD) as u32,
                (cy + PAD) as u32,
                side as u32,
                side as u32,
            ],
            layer: None,
        });
        tile_layers.push(t.layer);
    }
    Cards {
        texels: Texels {
            width: w as u32,
            height: h as u32,
            rgba: std::sync::Arc::new(rgba),
        },
        cards,
        tile_layers,
        left_out: order.len() - kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blending_rules_work_channel_by_channel_and_saturate() {
        let (b, f) = (10 | (20 << 5) | (30 << 10), 6 | (20 << 5) | (8 << 10));
        assert_eq!(blend(b, f, 0), 8 | (20 << 5) | (19 << 10));
        assert_eq!(blend(b, f, 1), 16 | (31 << 5) | (31 << 10));
        assert_eq!(blend(b, f, 2), 4 | (22 << 10), "green: 20 − 20");
        assert_eq!(blend(b, f, 3), 11 | (25 << 5) | (31 << 10));
    }

    /// A tile of `layer` at (x, y) whose texels are page 0's 15-bit texels at `uv`.
    fn tile(layer: usize, x: i16, y: i16, uv: [u8; 2]) -> Tile {
        Tile {
            at: 0,
            layer,
            dst: [x, y],
            uv,
            clut: 0,
            page: Some(0x0100),
            id: None,
            param: 0,
            state: 0,
        }
    }

    #[test]
    fn with_layers_1_and_3_each_has_its_own_picture_and_layer_1_over_layer_3_is_the_picture_behind()
    {
        // Page 0 at 15 bits: texel (u, v) a colour of its own, and u below 8 transparent
        // (colour 0), so that a layer-1 tile lets layer 3 show through its left edge.
        let mut vram = Vram::new();
        for v in 0..64usize {
            for u in 0..64usize {
                vram.pixels[v * 1024 + u] = if u < 8 {
                    0
                } else {
                    1 + (u as u16 * 7 + v as u16 * 131) % 0x7FFE
                };
            }
        }
        let map = TileMap {
            range: 0..0,
            blocks: [0; 4],
            groups: Vec::new(),
            markers: Vec::new(),
            layer_ends: Vec::new(),
            groups_end: 0,
            pages: Vec::new(),
            // Layer 3 (32 px) at the origin, layer 1 (16 px) over part of it and beside it.
            tiles: vec![
                tile(2, 0, 0, [8, 8]),
                tile(0, 8, 8, [0, 0]),
                tile(0, 40, 0, [16, 16]),
            ],
        };
        let frame = [0, 0, 64, 32];
        let c = compose(&map, &vram, frame, [true; LAYERS]);
        let (one, three) = (
            c.alone[0].as_ref().expect("layer 1's own"),
            c.alone[2].as_ref().expect("layer 3's own"),
        );
        let px = |t: &Texels, x: usize, y: usize| -> [u8; 4] {
            t.rgba[(y * 64 + x) * 4..(y * 64 + x) * 4 + 4]
                .try_into()
                .unwrap()
        };
        let mut both = 0;
        for y in 0..32 {
            for x in 0..64 {
                let (a, b, behind) = (px(one, x, y), px(three, x, y), px(&c.behind, x, y));
                // Layer 1 over layer 3, on black: the picture behind.
                let over = if a[3] == 255 {
                    a
                } else if b[3] == 255 {
                    b
                } else {
                    [0, 0, 0, 255]
                };
                assert_eq!(over, behind, "({x}, {y})");
                both += usize::from(a[3] == 255 && b[3] == 255);
            }
        }
        assert!(both > 0, "the layers overlap somewhere");
        // Layer 3 alone: transparent outside its tile.
        assert_eq!(px(three, 50, 5)[3], 0);
        // With one of the two, no picture of its own: the picture behind is it.
        let only_one = TileMap {
            tiles: vec![tile(0, 8, 8, [0, 0])],
            ..map
        };
        assert!(compose(&only_one, &vram, frame, [true; LAYERS])
            .alone
            .iter()
            .all(Option::is_none));
    }

    #[test]
    fn a_page_word_says_where_the_page_is_its_depth_and_rule() {
        let (key, rule) = page_of(0x0098, 0x7800 | 3);
        assert_eq!(
            (key.page_x, key.page_y, key.depth, rule),
            (512, 256, Depth::Eight, 0)
        );
        assert_eq!((key.clut_x, key.clut_y), (48, 480));
        assert_eq!(page_of(0x0086 | (1 << 5), 0).1, 1);
    }
}
