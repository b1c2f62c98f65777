//! What the inspector shows of any file, in neutral terms: records as rows (offset, length,
//! depth, name, decoded summary), what each payload byte was decoded as (fields), every byte
//! classified for coverage shading, the diagnostics, and the bytes the hex view shows. Each
//! format builds its view from the same parse that builds its scene.

use crate::findings::{Diagnostic, ParseError};
pub use crate::findings::{Diagnostics, MAX_DIAGNOSTICS};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum ByteClass {
    /// Magic, tag words, length fields: the bytes that frame records.
    Framing,
    /// Read by a field of the model.
    Decoded,
    /// The payload of an unknown or misplaced record, kept as it is.
    Opaque,
    /// Nothing explains these bytes.
    Unclaimed,
    /// Text, shown as text.
    Text,
    /// Past the last record the view lists ([`MAX_ROWS`]): counted in the totals, not
    /// classified byte by byte.
    Unlisted,
}

/// `len` bytes from `start` share one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct CoverageRun {
    pub start: usize,
    pub len: usize,
    pub class: ByteClass,
}

/// Byte totals per class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Coverage {
    pub framing: usize,
    pub decoded: usize,
    pub opaque: usize,
    pub unclaimed: usize,
}

/// What a run of payload bytes was decoded as: a format records one for every value it
/// reads, so the inspector can say what each byte means and shade what nothing read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Field {
    /// The row (record) the bytes belong to.
    pub chunk: u32,
    /// Absolute offset in the shown bytes.
    pub offset: usize,
    pub len: usize,
    /// The type read ("string", "u8", "3 × f32", "13 vertices × 20 B" …).
    pub what: String,
    /// The value, as shown to a person.
    pub value: String,
}

/// One record of the file: a chunk, a section, a header.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Row {
    pub index: u32,
    pub offset: usize,
    /// Where the record's payload starts (after its framing).
    pub payload_offset: usize,
    /// One past the record's last byte.
    pub end: usize,
    pub depth: u16,
    pub parent: Option<u32>,
    pub container: bool,
    pub name: String,
    /// What follows the offset in the tree: the record's own header, e.g. `4003 HEADER w2 14`.
    pub label: String,
    /// The detail line when the record is picked.
    pub detail: String,
    /// What the payload says, in a line: decoded values, child counts, or "opaque".
    pub summary: String,
    /// `unknown`, `misplaced`: for styling.
    pub flags: Vec<&'static str>,
    /// What a polygon record of an FF7 model is (`"polygon"` in the JSON).
    #[serde(rename = "polygon", skip_serializing_if = "Option::is_none")]
    pub ff7_polygon: Option<Box<ff7::PolygonRecord>>,
    /// The record is an entry of a table other files index by number (a normal of a table
    /// polygons name): which table, and its number there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<TableEntry>,
}

/// An entry of a table other files index by number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct TableEntry {
    pub table: &'static str,
    pub index: u32,
}

/// What only FF7's records carry in the neutral view: a field model's polygon, whose
/// colours are lit through the engine's normal table (docs/formats/bsx.md, "The game's lighting").
/// Named as FF7's so that no other family fills it by accident.
pub mod ff7 {
    use serde::Serialize;

    /// A polygon of a model's part listed as a record: the model and part that own its data (the
    /// first to draw it), every (model, part) that draws it, the format's word for its kind, its
    /// place among the polygons of that kind in its part's data, and one entry per colour it
    /// stores (a corner each, or one for the whole polygon).
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
    pub struct PolygonRecord {
        pub model: u32,
        pub part: u32,
        pub owners: Vec<[u32; 2]>,
        pub kind: &'static str,
        pub index: u32,
        pub corners: Vec<CornerColour>,
    }

    /// One colour of a polygon: as the file stores it, the normal it is lit by (an index into the
    /// lighting's normal table), and the colour the game's lighting gives it where that applies.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
    pub struct CornerColour {
        pub stored: [u8; 3],
        pub normal: u8,
        #[serde(skip_serializing_if = "Option::is_none")]
        pub lit: Option<[u8; 3]>,
    }
}

/// A set of bytes the hex view can show: the file as stored, or what a container decoded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct ByteView {
    pub label: String,
    pub len: usize,
}

/// Most records a view lists (with their fields and byte classes); a file of millions of
/// tiny records lists the first ones and says how many there are, so that the view costs a
/// bounded amount whatever the file holds.
pub const MAX_ROWS: usize = 50_000;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct InspectorView {
    /// The format family that built the view ("biz2", "text", "image", "bytes").
    pub format: &'static str,
    /// Length of the bytes the rows, fields and runs refer to (byte view 0).
    pub bytes: usize,
    /// The first [`MAX_ROWS`] records, in file order (row `i` is record `i`).
    pub chunks: Vec<Row>,
    /// Records in all, listed or not.
    pub rows_total: usize,
    pub fields: Vec<Field>,
    pub coverage: Coverage,
    pub runs: Vec<CoverageRun>,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics beyond [`MAX_DIAGNOSTICS`], counted but not kept.
    pub diagnostics_dropped: usize,
    /// The error that ended the parse, if one did.
    pub error: Option<ParseError>,
    /// The byte sets the hex view can switch between; rows refer to the first.
    pub views: Vec<ByteView>,
}

impl InspectorView {
    /// A view with no records: the bytes in one run of `class`.
    pub fn flat(format: &'static str, len: usize, class: ByteClass) -> InspectorView {
        let runs = if len == 0 {
            Vec::new()
        } else {
            vec![CoverageRun {
                start: 0,
                len,
                class,
            }]
        };
        InspectorView {
            format,
            bytes: len,
            chunks: Vec::new(),
            rows_total: 0,
            fields: Vec::new(),
            coverage: coverage_of(&runs),
            runs,
            diagnostics: Vec::new(),
            diagnostics_dropped: 0,
            error: None,
            views: vec![ByteView {
                label: "file".into(),
                len,
            }],
        }
    }
}

/// Each row's path in the tree, `OBJECT[0]/LOD[1]/PATCH[2]`: every step its name and its
/// place among the earlier siblings of that name. Rows come in file order with parents first.
pub fn record_paths(rows: &[Row]) -> Vec<String> {
    let mut seen: std::collections::HashMap<(Option<u32>, &str), usize> =
        std::collections::HashMap::new();
    let mut paths: Vec<String> = Vec::with_capacity(rows.len());
    for r in rows {
        let ordinal = seen.entry((r.parent, r.name.as_str())).or_insert(0);
        let step = format!("{}[{ordinal}]", r.name);
        *ordinal += 1;
        let parent = r.parent.and_then(|p| paths.get(p as usize));
        paths.push(match parent {
            Some(p) => format!("{p}/{step}"),
            None => step,
        });
    }
    paths
}

/// A record as `relicview inspect --json` lists it: the row, its path, and its decoded fields.
#[derive(Debug, Serialize)]
pub struct ListedRecord<'a> {
    pub index: u32,
    pub path: String,
    pub parent: Option<u32>,
    pub depth: u16,
    pub offset: usize,
    pub length: usize,
    pub name: &'a str,
    pub label: &'a str,
    pub summary: &'a str,
    pub container: bool,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub flags: &'a [&'static str],
    pub fields: Vec<ListedField<'a>>,
    #[serde(rename = "polygon", skip_serializing_if = "Option::is_none")]
    pub ff7_polygon: Option<&'a ff7::PolygonRecord>,
}

/// A decoded field of a listed record.
#[derive(Debug, Serialize)]
pub struct ListedField<'a> {
    pub offset: usize,
    pub length: usize,
    #[serde(rename = "type")]
    pub what: &'a str,
    pub value: &'a str,
}

/// What `relicview inspect --json` prints of a file: every record the inspector lists, each
/// with its path and fields, the byte coverage totals, the diagnostics and the error.
#[derive(Debug, Serialize)]
pub struct Listing<'a> {
    pub format: &'static str,
    /// Length of the bytes the records refer to (the decompressed bytes of a container).
    pub bytes: usize,
    pub views: &'a [ByteView],
    pub records: Vec<ListedRecord<'a>>,
    /// Records in all: more than listed past [`MAX_ROWS`].
    pub records_total: usize,
    pub coverage: Coverage,
    pub diagnostics: &'a [Diagnostic],
    pub diagnostics_dropped: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a ParseError>,
}

impl InspectorView {
    /// The view as `relicview inspect` lists it.
    pub fn listing(&self) -> Listing<'_> {
        let paths = record_paths(&self.chunks);
        let mut fields: Vec<Vec<ListedField<'_>>> =
            self.chunks.iter().map(|_| Vec::new()).collect();
        for f in &self.fields {
            if let Some(list) = fields.get_mut(f.chunk as usize) {
                list.push(ListedField {
                    offset: f.offset,
                    length: f.len,
                    what: &f.what,
                    value: &f.value,
                });
            }
        }
        let records = self
            .chunks
            .iter()
            .zip(paths)
            .zip(fields)
            .map(|((r, path), fields)| ListedRecord {
                index: r.index,
                path,
                parent: r.parent,
                depth: r.depth,
                offset: r.offset,
                length: r.end.saturating_sub(r.offset),
                name: &r.name,
                label: &r.label,
                summary: &r.summary,
                container: r.container,
                flags: &r.flags,
                fields,
                ff7_polygon: r.ff7_polygon.as_deref(),
            })
            .collect();
        Listing {
            format: self.format,
            bytes: self.bytes,
            views: &self.views,
            records,
            records_total: self.rows_total.max(self.chunks.len()),
            coverage: self.coverage,
            diagnostics: &self.diagnostics,
            diagnostics_dropped: self.diagnostics_dropped,
            error: self.error.as_ref(),
        }
    }
}

/// Byte totals of runs (text counts as decoded, unlisted bytes not at all).
pub fn coverage_of(runs: &[CoverageRun]) -> Coverage {
    let mut c = Coverage::default();
    for r in runs {
        match r.class {
            ByteClass::Framing => c.framing += r.len,
            ByteClass::Decoded | ByteClass::Text => c.decoded += r.len,
            ByteClass::Opaque => c.opaque += r.len,
            ByteClass::Unclaimed => c.unclaimed += r.len,
            ByteClass::Unlisted => {}
        }
    }
    c
}

/// Runs that tile `0..len` from classified spans (start, end, class) in any order: where
/// spans overlap the earlier start wins, and gaps are unclaimed.
pub fn runs_from_spans(len: usize, mut spans: Vec<(usize, usize, ByteClass)>) -> Vec<CoverageRun> {
    spans.sort_by_key(|s| s.0);
    let mut runs: Vec<CoverageRun> = Vec::new();
    let mut push = |start: usize, end: usize, class: ByteClass| {
        let end = end.min(len);
        if end <= start {
            return;
        }
        match runs.last_mut() {
            Some(last) if last.class == class && last.start + last.len == start => {
                last.len += end - start
            }
            _ => runs.push(CoverageRun {
                start,
                len: end - start,
                class,
            }),
        }
    };
    let mut pos = 0;
    for (start, end, class) in spans {
        let start = start.max(pos);
        push(pos, start, ByteClass::Unclaimed);
        push(start, end, class);
        pos = pos.max(end);
    }
    push(pos, len, ByteClass::Unclaimed);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_become_runs_that_tile_the_bytes() {
        let runs = runs_from_spans(
            20,
            vec![
                (10, 14, ByteClass::Decoded),
                (0, 4, ByteClass::Framing),
                (4, 6, ByteClass::Framing),
                (12, 30, ByteClass::Opaque),
            ],
        );
        assert_eq!(
            runs,
            vec![
                CoverageRun {
                    start: 0,
                    len: 6,
                    class: ByteClass::Framing
                },
                CoverageRun {
                    start: 6,
                    len: 4,
                    class: ByteClass::Unclaimed
                },
                CoverageRun {
                    start: 10,
                    len: 4,
                    class: ByteClass::Decoded
                },
                CoverageRun {
                    start: 14,
                    len: 6,
                    class: ByteClass::Opaque
                },
            ]
        );
        assert_eq!(
            coverage_of(&runs),
            Coverage {
                framing: 6,
                decoded: 4,
                opaque: 6,
                unclaimed: 4
            }
        );
    }
}
