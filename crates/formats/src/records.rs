//! The record-tree kit of the formats whose records are laid out by offsets rather than
//! nested in the bytes (FF7's BSX, FIELD.BIN, .DAT and .MIM): each record is made as a
//! pending row with its byte range and fields, and `tree` places them in file order, each
//! under the nearest row that holds it, with the bytes' coverage. A format keys the rows its
//! describe stage goes back to (a BSX polygon's lit colours) with a key type of its own;
//! scenes point at records by their byte ranges, not by rows. Names no format.

use crate::inspect::ff7::PolygonRecord;
use crate::inspect::{
    runs_from_spans, ByteClass, ByteView, Field, InspectorView, Row, TableEntry, MAX_ROWS,
};

/// A row before it is placed in the tree.
pub struct Pending<K> {
    pub start: usize,
    pub end: usize,
    pub name: String,
    pub label: String,
    pub summary: String,
    pub fields: Vec<(usize, usize, String, String)>,
    /// Bytes kept as they are, not read (a module's code): shaded opaque.
    pub opaque: bool,
    /// An FF7 model's polygon (`Row::ff7_polygon`).
    pub ff7_polygon: Option<Box<PolygonRecord>>,
    pub entry: Option<TableEntry>,
    /// What the format keeps of this row's index (rows its describe stage goes back to), if any.
    pub key: Option<K>,
}

/// A row of `start..end`, with no fields yet.
pub fn row<K>(start: usize, end: usize, name: &str, label: String, summary: String) -> Pending<K> {
    Pending {
        start,
        end,
        name: name.to_string(),
        label,
        summary,
        fields: Vec::new(),
        opaque: false,
        ff7_polygon: None,
        entry: None,
        key: None,
    }
}

/// Place rows in file order, each under the nearest row that holds it.
/// → the view, the format word `format`, and each keyed row's index with its key, in order.
pub fn tree<K>(
    format: &'static str,
    mut pending: Vec<Pending<K>>,
    file_len: usize,
    decoded_len: usize,
    container_len: Option<usize>,
) -> (InspectorView, Vec<(u32, K)>) {
    pending.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    pending.dedup_by(|b, a| a.start == b.start && a.end == b.end && a.name == b.name);
    let mut view = InspectorView::flat(format, decoded_len, ByteClass::Unclaimed);
    view.rows_total = pending.len();
    let mut keyed = Vec::new();
    let mut open: Vec<(u32, usize)> = Vec::new();
    let mut spans: Vec<(usize, usize, ByteClass)> = Vec::new();
    // Rows read whole, with no field of their own (or kept whole, unread: opaque).
    let mut bare: Vec<Option<ByteClass>> = Vec::new();
    for mut p in pending.into_iter().take(MAX_ROWS) {
        while open
            .last()
            .is_some_and(|&(_, end)| p.start >= end || p.end > end)
        {
            open.pop();
        }
        let index = view.chunks.len() as u32;
        let parent = open.last().map(|&(i, _)| i);
        if let Some(key) = p.key.take() {
            keyed.push((index, key));
        }
        bare.push(p.fields.is_empty().then_some(if p.opaque {
            ByteClass::Opaque
        } else {
            ByteClass::Decoded
        }));
        for (offset, len, what, value) in std::mem::take(&mut p.fields) {
            spans.push((offset, offset + len, ByteClass::Decoded));
            view.fields.push(Field {
                chunk: index,
                offset,
                len,
                what,
                value,
            });
        }
        let end = p.end;
        view.chunks
            .push(p.into_row(index, parent, open.len() as u16));
        open.push((index, end));
    }
    // Rows that hold others are containers: their own bytes are what the children leave.
    let parents: Vec<u32> = view.chunks.iter().filter_map(|r| r.parent).collect();
    for p in parents {
        view.chunks[p as usize].container = true;
    }
    // A leaf read whole is decoded; a container's bytes are its children's.
    for (r, &class) in view.chunks.iter().zip(&bare) {
        if let Some(class) = class.filter(|_| !r.container) {
            spans.push((r.offset, r.end, class));
        }
    }
    view.fields.sort_by_key(|f| f.offset);
    view.runs = runs_from_spans(file_len, spans);
    view.coverage = crate::inspect::coverage_of(&view.runs);
    view.views = byte_views(decoded_len, container_len);
    (view, keyed)
}

/// The views of a file's bytes: its own, `decoded_len` long (decompressed, from a container
/// of `container_len` bytes, the second view).
fn byte_views(decoded_len: usize, container_len: Option<usize>) -> Vec<ByteView> {
    let mut views = vec![ByteView {
        label: if container_len.is_some() {
            "decompressed".into()
        } else {
            "file".into()
        },
        len: decoded_len,
    }];
    if let Some(n) = container_len {
        views.push(ByteView {
            label: "container".into(),
            len: n,
        });
    }
    views
}

impl<K> Pending<K> {
    /// The inspector row of this record: row `index`, under `parent`, `depth` deep; its
    /// fields and key go elsewhere.
    fn into_row(self, index: u32, parent: Option<u32>, depth: u16) -> Row {
        Row {
            index,
            offset: self.start,
            payload_offset: self.start,
            end: self.end,
            depth,
            parent,
            container: false,
            name: self.name,
            label: self.label,
            detail: format!("bytes {}–{}", self.start, self.end),
            summary: self.summary,
            flags: if self.opaque {
                vec!["unknown"]
            } else {
                Vec::new()
            },
            ff7_polygon: self.ff7_polygon,
            entry: self.entry,
        }
    }
}
