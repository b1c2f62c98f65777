//! What the inspector shows of a file: every chunk as a row (with what its payload was
//! decoded as), every byte classified for coverage shading, and the diagnostics. Built from
//! the same parse as the model, and for broken files too: everything before the error.

use crate::formats::biz2::raw::{Coverage, Field};
use crate::formats::biz2::{Biz2File, ChunkTree};
use crate::formats::{Diagnostic, ParseError};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ByteClass {
    /// Magic, tag words and length fields.
    Framing,
    /// Read by a field of the model.
    Decoded,
    /// The payload of an unknown or misplaced chunk, kept as it is.
    Opaque,
    /// Nothing explains these bytes.
    Unclaimed,
}

/// `len` bytes from `start` share one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CoverageRun {
    pub start: usize,
    pub len: usize,
    pub class: ByteClass,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkRow {
    pub index: u32,
    pub offset: usize,
    pub tag_word: u16,
    pub id: u16,
    pub name: &'static str,
    pub len_width: u8,
    pub len: u32,
    pub payload_offset: usize,
    /// One past the chunk's last byte.
    pub end: usize,
    pub depth: u16,
    pub parent: Option<u32>,
    pub container: bool,
    pub known: bool,
    pub misplaced: bool,
    pub namespace_inferred: bool,
    pub bit_0x1000: bool,
    /// What the payload says, in a line: decoded values, child counts, or "opaque".
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InspectorView {
    pub format: &'static str,
    pub bytes: usize,
    pub chunks: Vec<ChunkRow>,
    pub fields: Vec<Field>,
    pub coverage: Coverage,
    pub runs: Vec<CoverageRun>,
    pub diagnostics: Vec<Diagnostic>,
    /// The framing error that ended the walk, if one did.
    pub error: Option<ParseError>,
}

impl InspectorView {
    /// The bytes of the face that made triangle `t` of index-list chunk `source`: a
    /// CONNECTION_LIST entry (12 bytes) or a PCONN_LIST face; the whole chunk otherwise
    /// (strips and fans). Assumes no earlier face of the list was skipped as invalid, which
    /// holds for every file that loads without diagnostics.
    pub fn face_bytes(&self, source: u32, t: u32) -> (usize, usize) {
        let Some(c) = self.chunks.get(source as usize) else { return (0, 0) };
        let t = t as usize;
        match c.name {
            "CONNECTION_LIST" => (c.payload_offset + t * 12, (c.payload_offset + t * 12 + 12).min(c.end)),
            "PCONN_LIST" => {
                let ppf = self.fields.iter().find(|f| f.chunk == source && f.offset == c.payload_offset).and_then(|f| f.value.parse::<usize>().ok());
                match ppf {
                    Some(ppf) if ppf >= 3 => {
                        let start = c.payload_offset + 1 + t / (ppf - 2) * ppf * 4;
                        (start.min(c.end), (start + ppf * 4).min(c.end))
                    }
                    _ => (c.offset, c.end),
                }
            }
            _ => (c.offset, c.end),
        }
    }
}

fn summary(tree: &ChunkTree<'_>, index: usize, fields: &[Field]) -> String {
    let c = &tree.chunks[index];
    if c.container {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for k in tree.children(Some(index as u32)) {
            let name = tree.chunks[k as usize].name();
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, n)) => *n += 1,
                None => counts.push((name, 1)),
            }
        }
        return counts.iter().map(|(n, k)| if *k == 1 { n.to_string() } else { format!("{k} × {n}") }).collect::<Vec<_>>().join(", ");
    }
    if !c.known || c.misplaced {
        return format!("opaque, {} bytes", c.len);
    }
    // Fields are sorted by offset and lie inside their chunk's payload: find them by search,
    // not by a scan per chunk (files have tens of thousands of both).
    let from = fields.partition_point(|f| f.offset < c.payload_offset);
    let to = fields.partition_point(|f| f.offset < c.payload_end());
    let mine: Vec<&Field> = fields[from..to].iter().filter(|f| f.chunk == index as u32).collect();
    if mine.is_empty() {
        return if c.len == 0 { String::new() } else { format!("{} bytes not decoded", c.len) };
    }
    mine.iter().map(|f| if f.value.is_empty() { f.what.clone() } else { format!("{} = {}", f.what, f.value) }).collect::<Vec<_>>().join(" · ")
}

/// Classify every byte of the file, as runs in file order.
pub fn coverage_runs(tree: &ChunkTree<'_>) -> Vec<CoverageRun> {
    let mut spans: Vec<(usize, usize, ByteClass)> = vec![(0, tree.bytes.len().min(8), ByteClass::Framing)];
    let mut field_at = 0;
    for (i, c) in tree.chunks.iter().enumerate() {
        spans.push((c.offset, c.payload_offset, ByteClass::Framing));
        if c.container {
            continue;
        }
        if !c.known || c.misplaced {
            spans.push((c.payload_offset, c.payload_end(), ByteClass::Opaque));
            continue;
        }
        // Fields are sorted by offset, and leaves come in file order.
        while field_at < tree.fields.len() && tree.fields[field_at].offset < c.payload_offset {
            field_at += 1;
        }
        while field_at < tree.fields.len() && tree.fields[field_at].offset < c.payload_end() {
            let f = &tree.fields[field_at];
            if f.chunk == i as u32 {
                spans.push((f.offset, (f.offset + f.len).min(c.payload_end()), ByteClass::Decoded));
            }
            field_at += 1;
        }
    }
    spans.sort_by_key(|s| s.0);
    let mut runs: Vec<CoverageRun> = Vec::new();
    let mut push = |start: usize, end: usize, class: ByteClass| {
        if end <= start {
            return;
        }
        match runs.last_mut() {
            Some(last) if last.class == class && last.start + last.len == start => last.len += end - start,
            _ => runs.push(CoverageRun { start, len: end - start, class }),
        }
    };
    let mut pos = 0;
    for (start, end, class) in spans {
        let start = start.max(pos);
        push(pos, start, ByteClass::Unclaimed);
        push(start, end, class);
        pos = pos.max(end);
    }
    push(pos, tree.bytes.len(), ByteClass::Unclaimed);
    runs
}

/// The inspector's view of a DIV-BIZ2 file, whether or not it parses to the end.
pub fn inspect_biz2(bytes: &[u8]) -> InspectorView {
    let mut tree = ChunkTree::parse(bytes);
    let file = Biz2File::build(&mut tree);
    view(&tree, &file)
}

/// The view of a tree the model has been built from (fields recorded).
pub fn view(tree: &ChunkTree<'_>, file: &Biz2File) -> InspectorView {
    let bytes = tree.bytes;
    let chunks = (0..tree.chunks.len())
        .map(|i| {
            let c = &tree.chunks[i];
            ChunkRow {
                index: i as u32,
                offset: c.offset,
                tag_word: c.tag_word,
                id: c.id,
                name: c.name(),
                len_width: c.len_width,
                len: c.len,
                payload_offset: c.payload_offset,
                end: c.payload_end(),
                depth: c.depth,
                parent: c.parent,
                container: c.container,
                known: c.known,
                misplaced: c.misplaced,
                namespace_inferred: c.namespace_inferred,
                bit_0x1000: c.bit_0x1000(),
                summary: summary(tree, i, &tree.fields),
            }
        })
        .collect();
    InspectorView {
        format: "biz2",
        bytes: bytes.len(),
        chunks,
        coverage: tree.coverage(),
        runs: coverage_runs(tree),
        fields: tree.fields.clone(),
        diagnostics: file.diagnostics.clone(),
        error: tree.error.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::biz2::writer::{write_nodes, Node, WriteOptions};
    use crate::formats::biz2::tags;

    #[test]
    fn runs_tile_the_file_and_agree_with_coverage() {
        for (path, bytes) in crate::demo::demo_files().into_iter().filter(|(p, _)| p.ends_with(".BGF") || p.ends_with(".BMF")) {
            let view = inspect_biz2(&bytes);
            let mut pos = 0;
            for r in &view.runs {
                assert_eq!(r.start, pos, "{path}");
                pos += r.len;
            }
            assert_eq!(pos, bytes.len(), "{path}");
            let total = |c: ByteClass| view.runs.iter().filter(|r| r.class == c).map(|r| r.len).sum::<usize>();
            assert_eq!(total(ByteClass::Framing), view.coverage.framing, "{path}");
            assert_eq!(total(ByteClass::Decoded), view.coverage.decoded, "{path}");
            assert_eq!(total(ByteClass::Unclaimed), 0, "{path}");
        }
    }

    #[test]
    fn rows_say_what_each_chunk_holds() {
        let mut name = b"crate\0".to_vec();
        name.push(0xEE);
        let object = Node::container(tags::OBJECT, vec![Node::leaf(tags::NAME, name), Node::leaf(0x0777, vec![1, 2]), Node::floats(tags::SV_SPECIAL, &[])]);
        let bytes = write_nodes(b"DIV-BIZ2", &[object], WriteOptions::default());
        let view = inspect_biz2(&bytes);
        assert_eq!(view.chunks[0].summary, "NAME, UNKNOWN, SV_SPECIAL");
        assert_eq!(view.chunks[1].summary, "string = \"crate\"");
        assert_eq!(view.chunks[2].summary, "opaque, 2 bytes");
        // The byte after NAME's NUL is unclaimed, the unknown payload opaque.
        let class_at = |b: usize| view.runs.iter().find(|r| b >= r.start && b < r.start + r.len).unwrap().class;
        assert_eq!(class_at(view.chunks[1].payload_offset + 6), ByteClass::Unclaimed);
        assert_eq!(class_at(view.chunks[2].payload_offset), ByteClass::Opaque);
        assert_eq!(class_at(view.chunks[1].payload_offset), ByteClass::Decoded);
        assert_eq!(class_at(0), ByteClass::Framing);
    }

    #[test]
    fn face_bytes_point_at_the_index_entries_of_a_triangle() {
        let (_, hexpod) = crate::demo::demo_files().into_iter().find(|(p, _)| p.ends_with("HEXPOD.BGF")).unwrap();
        let view = inspect_biz2(&hexpod);
        let i32_at = |o: usize| i32::from_le_bytes(hexpod[o..o + 4].try_into().unwrap());
        // LOD 0's PMESH: hexagons (ppf 6), quads (ppf 4), then the roof triangles (CONN).
        let lists: Vec<&ChunkRow> = view.chunks.iter().filter(|c| c.name == "PCONN_LIST" || c.name == "CONNECTION_LIST").take(3).collect();
        // Triangle 5 of the hexagon list is the second hexagon's second triangle (4 per face).
        let (s, e) = view.face_bytes(lists[0].index, 5);
        assert_eq!((s, e - s), (lists[0].payload_offset + 1 + 24, 24));
        assert_eq!(i32_at(s), 6, "the top hexagon starts at vertex 6");
        // Triangle 3 of the quad list is the second quad.
        let (s, e) = view.face_bytes(lists[1].index, 3);
        assert_eq!((s, e - s), (lists[1].payload_offset + 1 + 16, 16));
        assert_eq!(i32_at(s), 1);
        // Roof triangle 2 is the third 12-byte entry: (8, 12, 9).
        let (s, e) = view.face_bytes(lists[2].index, 2);
        assert_eq!((s, e - s), (lists[2].payload_offset + 24, 12));
        assert_eq!([i32_at(s), i32_at(s + 4), i32_at(s + 8)], [8, 12, 9]);
    }

    #[test]
    fn a_broken_file_shows_what_came_before_the_error() {
        let (_, good) = crate::demo::demo_files().into_iter().find(|(p, _)| p.ends_with("HEXPOD.BGF")).unwrap();
        let cut = &good[..good.len() - 40];
        let view = inspect_biz2(cut);
        let e = view.error.as_ref().expect("cut file fails");
        assert!(!view.chunks.is_empty());
        assert!(view.chunks.iter().all(|c| c.end <= cut.len()));
        assert!(view.fields.iter().any(|f| f.what == "string"), "fields decoded before the error");
        assert!(e.offset < cut.len());
        assert_eq!(view.runs.iter().map(|r| r.len).sum::<usize>(), cut.len());
    }
}
