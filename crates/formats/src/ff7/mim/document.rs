//! A .MIM through the document interface, LZS-wrapped (as on the disc) or not: each block as
//! an inspector row, and as the picture its palettes (one colour a texel, a line a palette)
//! over its images (8 bits a texel, drawn with the first palette: which palette each tile
//! takes is the .DAT's to say). The field's .DAT composes the background from it
//! (docs/formats/mim.md).

use super::raw::{Block, MimFile, BLOCK_NAMES, PALETTE_WIDTH};
use crate::ff7::lzs::Stored;
use crate::ff7::psx::{rgba, Vram};
use crate::findings::Diagnostics;
use crate::gallery::{ImageRegion, TexelPlane};
use crate::inspect::InspectorView;
use crate::kind::{Kind, Purpose};
use crate::records::{row, tree, Pending};
use crate::texture::Texels;
use crate::{Diagnostic, Document, InfoRow, ParseError};

pub struct MimDocument {
    kind: Kind,
    stored: Stored,
    pub parsed: Option<MimFile>,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
    overview: Option<Overview>,
}

struct Overview {
    picture: Texels,
    planes: Vec<TexelPlane>,
    regions: Vec<ImageRegion>,
}

pub fn open(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let stored = Stored::read(path, "mim", file, super::raw::starts_like_a_mim);
    let (parsed, mut error) = stored.parse(MimFile::parse);
    // A container whose header disagrees with the file: damaged, said at byte 0.
    if parsed.is_some() && error.is_none() {
        error = stored.header_damage();
    }
    let mut found = Diagnostics::default();
    found.merge(stored.header_finding(), 0);
    if let Some(m) = &parsed {
        // A block size larger than its rectangle (smaller is an error): the bytes between
        // are not read, and the next block is looked for past them.
        for (k, b) in m.blocks.iter().enumerate() {
            let need = b.data.end - b.at;
            if b.size as usize != need {
                found.add(b.at, || BLOCK_NAMES[k].into(), || format!("block size {}: its 12-byte header and {} × {} halfwords are {need} bytes; the next block is looked for at byte {}", b.size, b.width, b.height, b.at + (b.size as usize & !3)));
            }
        }
        let len = stored.bytes().len();
        if m.end < len {
            found.add(
                m.end,
                || "mim".into(),
                || format!("{} bytes after the last block are not read", len - m.end),
            );
        }
    }
    let inspector = purpose.describes().then(|| match &parsed {
        Some(m) => {
            let mut v = view(m, &stored, error.clone());
            v.diagnostics = found.kept.clone();
            v
        }
        None => stored.failed_view("mim", error.clone()),
    });
    let overview = parsed
        .as_ref()
        .filter(|_| purpose.pictures())
        .map(|m| overview(m, stored.bytes()));
    Box::new(MimDocument {
        kind,
        stored,
        parsed,
        error,
        diagnostics: found.kept,
        inspector,
        overview,
    })
}

impl MimDocument {
    /// Video memory as the engine leaves it once the file is loaded.
    pub fn vram(&self) -> Option<Vram> {
        self.parsed.as_ref().map(|m| m.vram(self.stored.bytes()))
    }
}

fn view(m: &MimFile, stored: &Stored, error: Option<ParseError>) -> InspectorView {
    let mut rows: Vec<Pending<()>> = Vec::new();
    for (k, b) in m.blocks.iter().enumerate() {
        let mut r = row(
            b.at,
            b.data.end,
            "block",
            BLOCK_NAMES[k].to_string(),
            summary(k, b),
        );
        r.fields = vec![
            (
                b.at,
                4,
                "u32 block size (with its header)".into(),
                b.size.to_string(),
            ),
            (b.at + 4, 2, "u16 VRAM x".into(), b.x.to_string()),
            (b.at + 6, 2, "u16 VRAM y".into(), b.y.to_string()),
            (
                b.at + 8,
                2,
                "u16 width (halfwords)".into(),
                b.width.to_string(),
            ),
            (b.at + 10, 2, "u16 height".into(), b.height.to_string()),
            (
                b.data.start,
                b.data.len(),
                "halfwords".into(),
                if k == 0 {
                    "colours, 256 a palette".into()
                } else {
                    "texels, two a halfword".into()
                },
            ),
        ];
        rows.push(r);
        let next = m
            .blocks
            .get(k + 1)
            .map_or(m.end_word.unwrap_or(m.end), |n| n.at);
        if next > b.data.end {
            rows.push(row(
                b.data.end,
                next,
                "padding",
                "padding".into(),
                "to the next block".into(),
            ));
        }
    }
    if let Some(at) = m.end_word {
        let mut r = row(
            at,
            at + 4,
            "end",
            "no more blocks".into(),
            "a block size of 0".into(),
        );
        r.fields = vec![(at, 4, "u32 block size".into(), "0".into())];
        rows.push(r);
    }
    let len = stored.bytes().len();
    let mut v = tree("mim", rows, len, len, stored.container()).0;
    v.error = error;
    v
}

fn summary(k: usize, b: &Block) -> String {
    if k == 0 {
        format!(
            "{} palettes of 256 colours, loaded at (0, 480)",
            b.width as usize * b.height as usize / PALETTE_WIDTH
        )
    } else {
        format!(
            "{} × {} texels at 8 bits, loaded at ({}, {})",
            2 * b.width as usize,
            b.height,
            b.x,
            b.y
        )
    }
}

/// A part of the overview: its label, width and height, and what texel (x, y) shows (the
/// number the read-out gives, the colour).
type Part<'a> = (
    String,
    usize,
    usize,
    Box<dyn Fn(usize, usize) -> (u16, u16) + 'a>,
);

/// The palettes (a texel a colour) above each image (8 bits a texel, in the first palette).
fn overview(m: &MimFile, bytes: &[u8]) -> Overview {
    let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    let palettes = m.blocks.first().map_or(0..0, |b| b.data.clone());
    let first_palette: Vec<u16> = (0..PALETTE_WIDTH)
        .map(|i| palettes.start + 2 * i)
        .map(|at| if at + 2 <= palettes.end { word(at) } else { 0 })
        .collect();
    let palette_rows = palettes.len() / (2 * PALETTE_WIDTH);
    let mut parts: Vec<Part> = vec![(
        format!("palettes · {palette_rows} of 256 colours"),
        PALETTE_WIDTH,
        palette_rows,
        Box::new(move |x, y| {
            let c = word(palettes.start + 2 * (y * PALETTE_WIDTH + x));
            (c, c)
        }),
    )];
    for (k, b) in m.images().iter().enumerate() {
        let (w, data) = (b.width as usize, b.data.clone());
        let palette = first_palette.clone();
        parts.push((
            format!(
                "image {} · at ({}, {}), drawn with palette 0",
                k + 1,
                b.x,
                b.y
            ),
            2 * w,
            b.height as usize,
            Box::new(move |x, y| {
                let index = (word(data.start + 2 * (y * w + x / 2)) >> (8 * (x % 2))) & 0xFF;
                (index, palette[index as usize])
            }),
        ));
    }
    stacked(&parts)
}

/// `parts` drawn one above the other, each a region of the picture, with the numbers and
/// colour words of their texels.
fn stacked(parts: &[Part]) -> Overview {
    let width = parts.iter().map(|p| p.1).max().unwrap_or(1).max(1);
    let height = parts.iter().map(|p| p.2).sum::<usize>().max(1);
    let mut rgba_out = vec![0u8; width * height * 4];
    let (mut numbers, mut words) = (vec![0u16; width * height], vec![0u16; width * height]);
    let mut regions = Vec::new();
    let mut top = 0;
    for (label, w, h, texel) in parts {
        for y in 0..*h {
            for x in 0..*w {
                let (n, c) = texel(x, y);
                let at = (top + y) * width + x;
                rgba_out[4 * at..4 * at + 4].copy_from_slice(&rgba(c));
                (numbers[at], words[at]) = (n, c);
            }
        }
        regions.push(ImageRegion {
            x: 0,
            y: top as u32,
            width: *w as u32,
            height: *h as u32,
            label: label.clone(),
            number: None,
            bytes: None,
        });
        top += h;
    }
    let planes = vec![
        TexelPlane {
            name: "CLUT index (a palette's colour word)",
            hex: false,
            values: numbers,
        },
        TexelPlane {
            name: "colour word",
            hex: true,
            values: words,
        },
    ];
    Overview {
        picture: Texels {
            width: width as u32,
            height: height as u32,
            rgba: std::sync::Arc::new(rgba_out),
        },
        planes,
        regions,
    }
}

impl Document for MimDocument {
    crate::common_accessors!();
    fn damaged(&self) -> bool {
        self.stored.is_header_damage(self.error.as_ref())
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        self.stored.view(view)
    }
    fn image(&self) -> Option<&Texels> {
        self.overview.as_ref().map(|o| &o.picture)
    }
    fn image_regions(&self) -> Vec<ImageRegion> {
        // Region k is block k: its record is the block's bytes.
        let blocks: Vec<[usize; 2]> = self.parsed.as_ref().map_or(Vec::new(), |m| {
            m.blocks.iter().map(|b| [b.at, b.data.end]).collect()
        });
        let regions = self
            .overview
            .as_ref()
            .map_or(Vec::new(), |o| o.regions.clone());
        regions
            .into_iter()
            .enumerate()
            .map(|(k, r)| ImageRegion {
                bytes: blocks.get(k).copied(),
                ..r
            })
            .collect()
    }
}

impl crate::Describe for MimDocument {
    crate::stored_inspector!();
    fn image_planes(&self) -> Vec<TexelPlane> {
        self.overview
            .as_ref()
            .map_or(Vec::new(), |o| o.planes.clone())
    }
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        let m = self.parsed.as_ref();
        let images = m.map_or(Vec::new(), |m| {
            m.images()
                .iter()
                .map(|b| MimImage {
                    x: b.x,
                    y: b.y,
                    width: 2 * b.width as usize,
                    height: b.height,
                })
                .collect()
        });
        Box::new(MimInfo {
            format: "mim",
            kind: self.kind,
            compressed: self.stored.compressed,
            read: m.is_some(),
            palettes: m.map_or(0, MimFile::palette_count),
            images,
            bytes: self.stored.file.len(),
            decompressed_bytes: self.stored.bytes().len(),
            stored: &self.stored,
        })
    }
}

/// What `info` says of a .MIM: its container, its palettes and where each image loads.
#[derive(serde::Serialize)]
struct MimInfo<'a> {
    format: &'static str,
    #[serde(skip)]
    kind: Kind,
    compressed: bool,
    /// Whether the blocks were read (no palettes or images when not).
    #[serde(skip)]
    read: bool,
    palettes: usize,
    images: Vec<MimImage>,
    bytes: usize,
    decompressed_bytes: usize,
    #[serde(skip)]
    stored: &'a Stored,
}

/// An image block: where it loads in VRAM (halfwords, lines) and its size in 8-bit texels.
#[derive(serde::Serialize)]
struct MimImage {
    x: u16,
    y: u16,
    width: usize,
    height: u16,
}

impl crate::Summary for MimInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            self.stored.bytes_row(),
        ];
        rows.extend(self.stored.header_rows());
        if !self.read {
            return rows;
        }
        rows.push(InfoRow::new(
            "palettes",
            format!("{} of 256 colours", self.palettes),
        ));
        for (k, i) in self.images.iter().enumerate() {
            rows.push(InfoRow::new(
                format!("image {}", k + 1),
                format!(
                    "{} × {} texels at 8 bits, loaded at ({}, {})",
                    i.width, i.height, i.x, i.y
                ),
            ));
        }
        rows.push(InfoRow::new(
            "placed by",
            "the field's .DAT (its tile map): open it to see the background composed",
        ));
        rows
    }
}
