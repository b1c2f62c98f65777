//! FIELD.TDB through the document interface, LZS-wrapped or not: the header, every image and
//! palette as an inspector row, and the overview of every image as the document's picture.

use super::inspect::{fields, row, tree, Pending};
use super::tdb::{TdbFile, HEADER, IMAGE_BYTES, PALETTE_BYTES};
use crate::ff7::lzs::Stored;
use crate::findings::Diagnostics;
use crate::gallery::{ImageRegion, TexelPlane};
use crate::inspect::InspectorView;
use crate::kind::{Head, Kind, Purpose};
use crate::texture::Texels;
use crate::{Document, InfoRow, ParseError};

pub fn sniff_tdb(h: &Head) -> bool {
    h.ext == "tdb"
}

pub struct TdbDocument {
    kind: Kind,
    stored: Stored,
    pub parsed: Option<TdbFile>,
    error: Option<ParseError>,
    diagnostics: Diagnostics,
    inspector: Option<InspectorView>,
    overview: Option<(Texels, Vec<TexelPlane>)>,
}

impl TdbDocument {
    /// The decompressed bytes the header's offsets refer to.
    pub fn bytes(&self) -> &[u8] {
        self.stored.bytes()
    }
}

pub fn open_tdb(path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let stored = Stored::read(path, "tdb", file, super::tdb::starts_like_faces);
    let (parsed, mut error) = stored.parse(TdbFile::parse);
    // A container whose header disagrees with the file: damaged, said at byte 0.
    if parsed.is_some() && error.is_none() {
        error = stored.header_damage();
    }
    let mut diagnostics = Diagnostics::default();
    diagnostics.merge(stored.header_finding(), 0);
    let inspector = purpose.describes().then(|| match &parsed {
        Some(t) => InspectorView {
            diagnostics: diagnostics.kept.clone(),
            ..view(t, &stored)
        },
        None => stored.failed_view("tdb", error.clone()),
    });
    let overview = parsed
        .as_ref()
        .filter(|_| purpose.pictures())
        .map(|t| t.overview(stored.bytes()));
    Box::new(TdbDocument {
        kind,
        stored,
        parsed,
        error,
        diagnostics,
        inspector,
        overview,
    })
}

/// Palette `k`'s row, at `at`: its 16 colour words.
fn palette_row(at: usize, k: usize, bytes: &[u8]) -> Pending {
    let mut p = row(
        at,
        at + PALETTE_BYTES,
        "palette",
        format!("palette {k}"),
        format!("face {k}"),
    );
    p.fields = (0..16)
        .map(|c| {
            let at = at + 2 * c;
            (
                at,
                2,
                format!("colour {c}"),
                format!("{:#06x}", u16::from_le_bytes([bytes[at], bytes[at + 1]])),
            )
        })
        .collect();
    p
}

fn view(t: &TdbFile, stored: &Stored) -> InspectorView {
    let (io, po) = (t.image_offset as usize, t.palette_offset as usize);
    let mut header = row(
        0,
        16,
        "header",
        "FIELD.TDB header".into(),
        format!("{} images, {} palettes", t.image_count, t.palette_count),
    );
    header.fields = fields(
        0,
        &HEADER,
        [
            t.size.to_string(),
            t.image_count.to_string(),
            t.palette_count.to_string(),
            io.to_string(),
            po.to_string(),
        ],
    );
    let mut rows = vec![header];
    rows.push(row(
        io,
        io + t.image_count as usize * IMAGE_BYTES,
        "images",
        format!("{} images, 32 × 32 at 4 bits", t.image_count),
        String::new(),
    ));
    for i in 0..t.image_count as usize {
        rows.push(row(
            io + i * IMAGE_BYTES,
            io + (i + 1) * IMAGE_BYTES,
            "image",
            format!("image {i}"),
            format!(
                "drawn with face {}'s palette in the overview",
                TdbFile::face_of_image(i)
            ),
        ));
    }
    rows.push(row(
        po,
        po + t.palette_count as usize * PALETTE_BYTES,
        "palettes",
        format!("{} palettes of 16 colours", t.palette_count),
        String::new(),
    ));
    for k in 0..t.palette_count as usize {
        rows.push(palette_row(po + k * PALETTE_BYTES, k, stored.bytes()));
    }
    let mut v = tree(
        rows,
        stored.bytes().len(),
        stored.bytes().len(),
        stored.container(),
    )
    .0;
    v.format = "tdb";
    v
}

impl Document for TdbDocument {
    crate::common_accessors!();
    fn damaged(&self) -> bool {
        self.stored.is_header_damage(self.error.as_ref())
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        self.stored.view(view)
    }
    fn image(&self) -> Option<&Texels> {
        self.overview.as_ref().map(|o| &o.0)
    }
    fn image_regions(&self) -> Vec<ImageRegion> {
        let Some(t) = &self.parsed else {
            return Vec::new();
        };
        (0..t.image_count as usize)
            .map(|i| {
                let (x, y) = TdbFile::overview_cell(i);
                let face = TdbFile::face_of_image(i);
                ImageRegion {
                    x,
                    y,
                    width: 32,
                    height: 32,
                    label: format!("image {i} · palette {face}"),
                    number: Some(i as u32),
                    bytes: Some({
                        let start = t.image_offset as usize + i * IMAGE_BYTES;
                        [start, start + IMAGE_BYTES]
                    }),
                }
            })
            .collect()
    }
}

impl crate::Describe for TdbDocument {
    crate::stored_inspector!();
    fn image_planes(&self) -> Vec<TexelPlane> {
        self.overview.as_ref().map_or(Vec::new(), |o| o.1.clone())
    }
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(TdbInfo {
            format: "tdb",
            kind: self.kind,
            compressed: self.stored.compressed,
            read: self.parsed.is_some(),
            images: self.parsed.as_ref().map_or(0, |t| t.image_count),
            palettes: self.parsed.as_ref().map_or(0, |t| t.palette_count),
            bytes: self.stored.file.len(),
            decompressed_bytes: self.stored.bytes().len(),
            stored: &self.stored,
        })
    }
}

/// What `info` says of FIELD.TDB: its container and how many face images and palettes.
#[derive(serde::Serialize)]
struct TdbInfo<'a> {
    format: &'static str,
    #[serde(skip)]
    kind: Kind,
    compressed: bool,
    /// Whether the table was read (the counts are 0 when not).
    #[serde(skip)]
    read: bool,
    images: u16,
    palettes: u16,
    bytes: usize,
    decompressed_bytes: usize,
    #[serde(skip)]
    stored: &'a Stored,
}

impl crate::Summary for TdbInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            self.stored.bytes_row(),
        ];
        rows.extend(self.stored.header_rows());
        if self.read {
            rows.push(InfoRow::new(
                "images",
                format!("{} eyes and mouths, 32 × 32 at 4 bits", self.images),
            ));
            rows.push(InfoRow::new(
                "palettes",
                format!("{}, one per face", self.palettes),
            ));
        }
        rows
    }
}
