//! The inspector's view of a DIV-BIZ2 file: a row per chunk with what its payload was
//! decoded as, and every byte classified (framing, decoded, opaque, unclaimed).

use super::raw::{Chunk, ChunkTree, Field};
use super::Biz2File;
#[cfg(test)]
use crate::inspect::coverage_of;
use crate::inspect::{
    runs_from_spans, ByteClass, ByteView, CoverageRun, InspectorView, Row, MAX_ROWS,
};

fn summary(tree: &ChunkTree<'_>, c: &Chunk, fields: &[Field]) -> String {
    if c.container {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for k in tree.children(Some(c.index)) {
            let name = k.name();
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, n)) => *n += 1,
                None => counts.push((name, 1)),
            }
        }
        return counts
            .iter()
            .map(|(n, k)| {
                if *k == 1 {
                    n.to_string()
                } else {
                    format!("{k} × {n}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
    }
    if !c.known || c.misplaced {
        return format!("opaque, {} bytes", c.payload_len());
    }
    // Fields are sorted by offset and lie inside their chunk's payload: find them by search,
    // not by a scan per chunk (files have tens of thousands of both).
    let from = fields.partition_point(|f| f.offset < c.payload_offset);
    let to = fields.partition_point(|f| f.offset < c.payload_end());
    let mine: Vec<&Field> = fields[from..to]
        .iter()
        .filter(|f| f.chunk == c.index)
        .collect();
    if mine.is_empty() {
        return if c.payload_len() == 0 {
            String::new()
        } else {
            format!("{} bytes not decoded", c.payload_len())
        };
    }
    mine.iter()
        .map(|f| {
            if f.value.is_empty() {
                f.what.clone()
            } else {
                format!("{} = {}", f.what, f.value)
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Classify every byte of the file up to the first record past [`MAX_ROWS`], as runs in
/// file order; the rest is one unlisted run.
pub fn coverage_runs(tree: &ChunkTree<'_>) -> Vec<CoverageRun> {
    let mut spans: Vec<(usize, usize, ByteClass)> =
        vec![(0, tree.bytes.len().min(8), ByteClass::Framing)];
    if let Some(first_unlisted) = tree.chunk(MAX_ROWS as u32) {
        spans.push((first_unlisted.offset, tree.bytes.len(), ByteClass::Unlisted));
    }
    let mut field_at = 0;
    for c in tree.iter().take(MAX_ROWS) {
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
            if f.chunk == c.index {
                spans.push((
                    f.offset,
                    (f.offset + f.len).min(c.payload_end()),
                    ByteClass::Decoded,
                ));
            }
            field_at += 1;
        }
    }
    runs_from_spans(tree.bytes.len(), spans)
}

fn row(tree: &ChunkTree<'_>, c: &Chunk) -> Row {
    let mut flags = Vec::new();
    if !c.known {
        flags.push("unknown");
    }
    if c.misplaced {
        flags.push("misplaced");
    }
    if c.truncated {
        flags.push("truncated");
    }
    let cut = c
        .truncated
        .then(|| format!("cut short: {} of {} bytes", c.payload_len(), c.len));
    let notes = [
        c.namespace_inferred.then_some("id by context"),
        c.bit_0x1000().then_some("bit 0x1000"),
        cut.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ");
    let notes = if notes.is_empty() {
        notes
    } else {
        format!(" ({notes})")
    };
    Row {
        index: c.index,
        offset: c.offset,
        payload_offset: c.payload_offset,
        end: c.payload_end(),
        depth: c.depth,
        parent: c.parent,
        container: c.container,
        name: c.name().to_string(),
        label: format!(
            "{:04X} {} w{} {}{notes}",
            c.tag_word,
            c.name(),
            c.len_width,
            c.len
        ),
        detail: format!(
            "tag word 0x{:04X}, {}-byte length {}, payload {}–{}",
            c.tag_word,
            c.len_width,
            c.len,
            c.payload_offset,
            c.payload_end()
        ),
        summary: summary(tree, c, &tree.fields),
        flags,
        ff7_polygon: None,
        entry: None,
    }
}

/// The view of a tree the model has been built from (fields recorded), whether or not the
/// walk reached the end of the file.
pub fn view(tree: &ChunkTree<'_>, file: &Biz2File) -> InspectorView {
    let runs = coverage_runs(tree);
    InspectorView {
        format: "biz2",
        bytes: tree.bytes.len(),
        chunks: tree.iter().take(MAX_ROWS).map(|c| row(tree, &c)).collect(),
        rows_total: tree.len(),
        coverage: tree.coverage(),
        runs,
        fields: tree.fields.clone(),
        diagnostics: file.diagnostics.clone(),
        diagnostics_dropped: file.diagnostics_dropped,
        error: tree.error.clone(),
        views: vec![ByteView {
            label: "file".into(),
            len: tree.bytes.len(),
        }],
    }
}

/// The inspector's view of DIV-BIZ2 bytes.
pub fn inspect(bytes: &[u8]) -> InspectorView {
    let mut tree = ChunkTree::parse(bytes);
    let file = Biz2File::build(&mut tree);
    view(&tree, &file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pods::biz2::tags;
    use crate::pods::biz2::writer::{write_nodes, Node, WriteOptions};

    fn demo(name: &str) -> Vec<u8> {
        crate::demo::demo_files()
            .into_iter()
            .find(|(p, _)| p.ends_with(name))
            .unwrap()
            .1
    }

    #[test]
    fn runs_tile_the_file_and_agree_with_coverage() {
        for (path, bytes) in crate::demo::demo_files()
            .into_iter()
            .filter(|(p, _)| p.ends_with(".BGF") || p.ends_with(".BMF"))
        {
            let view = inspect(&bytes);
            let mut pos = 0;
            for r in &view.runs {
                assert_eq!(r.start, pos, "{path}");
                pos += r.len;
            }
            assert_eq!(pos, bytes.len(), "{path}");
            let tree = {
                let mut t = ChunkTree::parse(&bytes);
                Biz2File::build(&mut t);
                t.coverage()
            };
            assert_eq!(
                coverage_of(&view.runs),
                tree,
                "{path}: runs and the tree's own totals agree"
            );
            assert_eq!(view.coverage, tree);
            assert_eq!(view.coverage.unclaimed, 0, "{path}");
        }
    }

    #[test]
    fn rows_say_what_each_chunk_holds() {
        let mut name = b"crate\0".to_vec();
        name.push(0xEE);
        let object = Node::container(
            tags::OBJECT,
            vec![
                Node::leaf(tags::NAME, name),
                Node::leaf(0x0777, vec![1, 2]),
                Node::floats(tags::SV_SPECIAL, &[]),
            ],
        );
        let bytes = write_nodes(b"DIV-BIZ2", &[object], WriteOptions::default());
        let view = inspect(&bytes);
        assert_eq!(view.chunks[0].summary, "NAME, UNKNOWN, SV_SPECIAL");
        assert_eq!(view.chunks[1].summary, "string = \"crate\"");
        assert_eq!(view.chunks[2].summary, "opaque, 2 bytes");
        assert_eq!(view.chunks[2].flags, vec!["unknown"]);
        assert_eq!(
            view.chunks[0].label,
            format!(
                "0040 OBJECT w1 {}",
                view.chunks[0].end - view.chunks[0].payload_offset
            )
        );
        // The byte after NAME's NUL is unclaimed, the unknown payload opaque.
        let class_at = |b: usize| {
            view.runs
                .iter()
                .find(|r| b >= r.start && b < r.start + r.len)
                .unwrap()
                .class
        };
        assert_eq!(
            class_at(view.chunks[1].payload_offset + 6),
            ByteClass::Unclaimed
        );
        assert_eq!(class_at(view.chunks[2].payload_offset), ByteClass::Opaque);
        assert_eq!(class_at(view.chunks[1].payload_offset), ByteClass::Decoded);
        assert_eq!(class_at(0), ByteClass::Framing);
    }

    #[test]
    fn a_file_of_more_records_than_a_view_lists_lists_the_first_and_counts_all() {
        let n = MAX_ROWS + 1000;
        let leaves: Vec<Node> = (0..n)
            .map(|k| Node::leaf(tags::SV_FACETED, vec![(k % 2) as u8]))
            .collect();
        let bytes = write_nodes(
            b"DIV-BIZ2",
            &[Node::container(
                tags::OBJECT,
                vec![Node::container(tags::PATCH, leaves)],
            )],
            WriteOptions::default(),
        );
        let view = inspect(&bytes);
        assert_eq!(view.chunks.len(), MAX_ROWS);
        assert_eq!(
            view.rows_total,
            n + 3,
            "OBJECT, PATCH, the leaves and BIZ_DONE"
        );
        assert!(view
            .chunks
            .iter()
            .enumerate()
            .all(|(i, r)| r.index as usize == i));
        assert!(view.fields.iter().all(|f| (f.chunk as usize) < MAX_ROWS));
        assert_eq!(
            view.runs.iter().map(|r| r.len).sum::<usize>(),
            bytes.len(),
            "runs still tile the file"
        );
        let last = view.runs.last().unwrap();
        assert_eq!(last.class, ByteClass::Unlisted);
        assert_eq!(
            last.start,
            view.chunks[MAX_ROWS - 1].end,
            "unlisted from the first record not listed"
        );
        // The totals count every byte, listed or not.
        let c = view.coverage;
        assert_eq!(c.framing + c.decoded + c.opaque + c.unclaimed, bytes.len());
        assert_eq!(c.decoded, n);
    }

    #[test]
    fn a_broken_file_shows_what_came_before_the_error() {
        let good = demo("HEXPOD.BGF");
        let cut = &good[..good.len() - 40];
        let view = inspect(cut);
        let e = view.error.as_ref().expect("cut file fails");
        assert!(!view.chunks.is_empty());
        assert!(view.chunks.iter().all(|c| c.end <= cut.len()));
        assert!(
            view.fields.iter().any(|f| f.what == "string"),
            "fields decoded before the error"
        );
        assert!(e.offset < cut.len());
        assert_eq!(view.runs.iter().map(|r| r.len).sum::<usize>(), cut.len());
    }
}
