//! A TIM through the document interface: the header, the CLUT block with its palette rows
//! and the image block as inspector records, the picture for the flat view, the texture
//! gallery and `export --all`, and what each texel is stored as for the read-out.

use super::raw::{Block, TimFile, BLOCK_HEADER, HEADER};
use crate::findings::Diagnostics;
use crate::gallery::TexelPlane;
use crate::inspect::{coverage_of, runs_from_spans, ByteClass, Field, InspectorView, Row};
use crate::kind::{Kind, Purpose};
use crate::texture::Texels;
use crate::words::count;
use crate::{DocStats, Document, InfoRow, ParseError};

/// Most colour fields the inspector lists (the first palette rows'); the rest of a CLUT is
/// one record a row.
const MAX_COLOUR_FIELDS: usize = 4096;

pub struct TimDocument {
    kind: Kind,
    bytes: Vec<u8>,
    parsed: Option<TimFile>,
    error: Option<ParseError>,
    diagnostics: Vec<crate::Diagnostic>,
    diagnostics_dropped: usize,
    inspector: Option<InspectorView>,
    picture: Option<(Texels, Vec<TexelPlane>)>,
}

pub fn open(_path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let mut found = Diagnostics::default();
    let (parsed, error) = match TimFile::parse(&bytes, &mut found) {
        Ok(t) => (Some(t), None),
        Err(e) => (None, Some(e)),
    };
    let picture = parsed.as_ref().map(|t| t.decode(&bytes));
    let mut doc = TimDocument {
        kind,
        bytes,
        parsed,
        error,
        diagnostics: found.kept,
        diagnostics_dropped: found.dropped,
        inspector: None,
        picture,
    };
    if purpose.describes() {
        doc.inspector = Some(doc.view());
    }
    Box::new(doc)
}

/// Rows in file order, each with its fields, and the byte spans they classify.
#[derive(Default)]
struct Records {
    rows: Vec<Row>,
    fields: Vec<Field>,
    spans: Vec<(usize, usize, ByteClass)>,
}

impl Records {
    fn push(
        &mut self,
        offset: usize,
        end: usize,
        parent: Option<u32>,
        name: &str,
        label: String,
        summary: String,
    ) -> u32 {
        let index = self.rows.len() as u32;
        let depth = parent.map_or(0, |p| self.rows[p as usize].depth + 1);
        if let Some(p) = parent {
            self.rows[p as usize].container = true;
        }
        self.rows.push(Row {
            index,
            offset,
            payload_offset: offset,
            end,
            depth,
            parent,
            container: false,
            name: name.to_string(),
            label,
            detail: String::new(),
            summary,
            flags: Vec::new(),
            ff7_polygon: None,
            entry: None,
        });
        index
    }
    fn field(&mut self, chunk: u32, offset: usize, len: usize, what: &str, value: String) {
        self.fields.push(Field {
            chunk,
            offset,
            len,
            what: what.to_string(),
            value,
        });
    }

    /// The file's header: its record and fields.
    fn header(&mut self, t: &TimFile) {
        let header = self.push(
            0,
            HEADER,
            None,
            "header",
            "TIM header".into(),
            format!(
                "{} bits a texel{}",
                t.depth.bits(),
                if t.clut.is_some() {
                    ", with a CLUT"
                } else {
                    ""
                }
            ),
        );
        self.field(header, 0, 4, "u32 tag (0x10, version 0)", "0x10".into());
        self.field(
            header,
            4,
            4,
            "u32 flags: bits 0–1 depth, bit 3 CLUT",
            format!(
                "{:#x}: {} bits{}",
                t.flags,
                t.depth.bits(),
                if t.clut.is_some() { ", CLUT" } else { "" }
            ),
        );
        self.spans.push((0, HEADER, ByteClass::Framing));
    }

    /// The CLUT's block and a record of each palette row, with its first colour words.
    fn clut(&mut self, c: &Block, bytes: &[u8]) {
        let block = self.block(
            c,
            "CLUT",
            format!(
                "{} of {}",
                count(c.height, "palette row"),
                count(c.width, "colour")
            ),
        );
        let mut listed = 0;
        for row in 0..c.height as usize {
            let at = c.offset + BLOCK_HEADER + row * 2 * c.width as usize;
            let record = self.push(
                at,
                at + 2 * c.width as usize,
                Some(block),
                "palette",
                format!("palette row {row}"),
                if row == 0 {
                    "the one the picture is drawn with".into()
                } else {
                    String::new()
                },
            );
            for k in 0..c.width as usize {
                if listed == MAX_COLOUR_FIELDS {
                    break;
                }
                let word = u16::from_le_bytes([bytes[at + 2 * k], bytes[at + 2 * k + 1]]);
                self.field(
                    record,
                    at + 2 * k,
                    2,
                    "colour word (5 bits a channel, bit 15 STP)",
                    format!("{k}: {word:#06x}"),
                );
                listed += 1;
            }
        }
    }

    /// A block: its record, its header's record and fields, and a record for its halfwords.
    fn block(&mut self, b: &Block, what: &str, summary: String) -> u32 {
        let block = self.push(
            b.offset,
            b.end(),
            None,
            what,
            format!("{what} block, {} bytes", b.length),
            summary,
        );
        let header = self.push(
            b.offset,
            b.offset + BLOCK_HEADER,
            Some(block),
            "block header",
            format!(
                "at VRAM ({}, {}), {} × {} halfwords",
                b.x, b.y, b.width, b.height
            ),
            String::new(),
        );
        self.field(
            header,
            b.offset,
            4,
            "u32 length (header included)",
            b.length.to_string(),
        );
        for (k, (name, value)) in [
            ("u16 VRAM x (halfwords)", b.x),
            ("u16 VRAM y (lines)", b.y),
            ("u16 width (halfwords)", b.width),
            ("u16 height (lines)", b.height),
        ]
        .into_iter()
        .enumerate()
        {
            self.field(header, b.offset + 4 + 2 * k, 2, name, value.to_string());
        }
        self.spans
            .push((b.offset, b.offset + BLOCK_HEADER, ByteClass::Framing));
        self.spans
            .push((b.offset + BLOCK_HEADER, b.end(), ByteClass::Decoded));
        block
    }
}

impl TimDocument {
    fn view(&self) -> InspectorView {
        let mut view = InspectorView::flat("tim", self.bytes.len(), ByteClass::Unclaimed);
        view.error = self.error.clone();
        view.diagnostics = self.diagnostics.clone();
        view.diagnostics_dropped = self.diagnostics_dropped;
        let Some(t) = &self.parsed else { return view };
        let mut r = Records::default();
        r.header(t);
        if let Some(c) = &t.clut {
            r.clut(c, &self.bytes);
        }
        let image = r.block(
            &t.image,
            "image",
            format!(
                "{} × {} texels at {} bits",
                t.width(),
                t.height(),
                t.depth.bits()
            ),
        );
        r.push(
            t.image.offset + BLOCK_HEADER,
            t.image.end(),
            Some(image),
            "texels",
            format!(
                "{} of {}",
                count(t.image.height, "row"),
                count(t.image.width, "halfword")
            ),
            String::new(),
        );
        view.rows_total = r.rows.len();
        view.runs = runs_from_spans(self.bytes.len(), r.spans);
        view.coverage = coverage_of(&view.runs);
        view.chunks = r.rows;
        view.fields = r.fields;
        view
    }
}

impl Document for TimDocument {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn image(&self) -> Option<&Texels> {
        self.picture.as_ref().map(|p| &p.0)
    }
    fn image_format(&self) -> String {
        self.parsed
            .as_ref()
            .map_or_else(|| "TIM".into(), |t| format!("TIM, {} bits", t.depth.bits()))
    }
}

impl crate::Describe for TimDocument {
    crate::stored_inspector!();
    fn image_planes(&self) -> Vec<TexelPlane> {
        self.picture.as_ref().map_or(Vec::new(), |p| p.1.clone())
    }
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        let t = self.parsed.as_ref();
        Box::new(TimInfo {
            format: "tim",
            kind: self.kind,
            bytes: self.bytes.len(),
            width: t.map(TimFile::width),
            height: t.map(TimFile::height),
            bpp: t.map(|t| t.depth.bits()),
            cluts: t.map(TimFile::cluts),
            image: t.map(|t| &t.image),
            clut: t.and_then(|t| t.clut.as_ref()),
        })
    }
    fn stats(&self, _found: &crate::Found) -> DocStats {
        let Some(t) = &self.parsed else {
            return DocStats::default();
        };
        let mut records = vec![
            ("TIM header".to_string(), 1),
            ("image block".to_string(), 1),
        ];
        if t.clut.is_some() {
            records.push(("CLUT block".to_string(), 1));
        }
        DocStats {
            records,
            records_read: true,
            closes_exactly: t.image.end() == self.bytes.len(),
            diagnostics: self.diagnostics.len() + self.diagnostics_dropped,
            ..Default::default()
        }
    }
}

/// What `info` says of a TIM: its size and depth, and where its blocks load in VRAM.
#[derive(serde::Serialize)]
struct TimInfo<'a> {
    format: &'static str,
    kind: Kind,
    bytes: usize,
    width: Option<u32>,
    height: Option<u32>,
    bpp: Option<u32>,
    cluts: Option<u32>,
    #[serde(skip)]
    image: Option<&'a Block>,
    #[serde(skip)]
    clut: Option<&'a Block>,
}

impl crate::Summary for TimInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", self.bytes.to_string()),
        ];
        let (Some(image), Some(w), Some(h), Some(bits)) =
            (self.image, self.width, self.height, self.bpp)
        else {
            return rows;
        };
        rows.push(InfoRow::new(
            "size",
            format!("{w} × {h} texels at {bits} bits"),
        ));
        rows.push(InfoRow::new(
            "in VRAM",
            format!(
                "({}, {}), {} × {} halfwords",
                image.x, image.y, image.width, image.height
            ),
        ));
        match self.clut {
            Some(c) => rows.push(InfoRow::new(
                "CLUT",
                format!(
                    "{} of {} at VRAM ({}, {}); drawn with the first",
                    count(c.height, "palette row"),
                    count(c.width, "colour"),
                    c.x,
                    c.y
                ),
            )),
            None if bits <= 8 => rows.push(InfoRow::warning(
                "CLUT",
                "none: the indices are drawn as greys",
            )),
            None => {}
        }
        rows
    }
}
