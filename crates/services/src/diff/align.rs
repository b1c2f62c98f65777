//! docs/diff.md's rule: siblings aligned by Myers' diff, what is left between two matches
//! paired by tag as changed, the rest removed or added. One walk gives the counts and lists
//! the CLI prints, the aligned rows and differing bytes the page shows, and the pairs of
//! records the geometry is compared through.

use super::bytes::ByteRanges;
use super::records::{keys, Records};
use super::side::RecordList;
use super::{
    Added, AlignedRow, Changed, Comparison, FieldChange, Removed, RowStatus, MAX_LISTED, MAX_ROWS,
};
use crate::scene::RecordBytes;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::collections::{HashMap, VecDeque};

/// For each inspector row, the indices of its fields.
type FieldsOfRows = HashMap<u32, Vec<usize>>;

/// Levels of containers compared inside (the formats nest far less; this bounds the
/// recursion whatever a view holds).
pub(super) const MAX_DEPTH: usize = 64;

pub(super) struct Differ<'x, 'a> {
    pub a: &'x Records<'a>,
    pub b: &'x Records<'a>,
    /// Each side's records as listed, for their decoded fields.
    pub listed_a: Option<&'x RecordList>,
    pub listed_b: Option<&'x RecordList>,
    pub out: Comparison,
    /// Records of A (their bytes) and the records of B they were matched or changed to.
    pub pairs: HashMap<RecordBytes, RecordBytes>,
    /// The two trees side by side, row by row (at most [`MAX_ROWS`]).
    pub rows: Vec<AlignedRow>,
    pub rows_dropped: usize,
    pub bytes: ByteRanges,
    /// Containers entered: deeper than [`MAX_DEPTH`], a container compares as one record.
    depth: usize,
    deadline: Option<similar::Instant>,
    /// The fields of each inspector row of A and of B, made when first asked.
    fields: Option<(FieldsOfRows, FieldsOfRows)>,
}

impl<'x, 'a> Differ<'x, 'a> {
    pub fn new(
        a: &'x Records<'a>,
        b: &'x Records<'a>,
        listed: (Option<&'x RecordList>, Option<&'x RecordList>),
        out: Comparison,
        deadline: Option<similar::Instant>,
    ) -> Self {
        Differ {
            a,
            b,
            listed_a: listed.0,
            listed_b: listed.1,
            out,
            pairs: HashMap::new(),
            rows: Vec::new(),
            rows_dropped: 0,
            bytes: ByteRanges::default(),
            depth: 0,
            deadline,
            fields: None,
        }
    }

    /// Align both files from their roots.
    pub fn run(&mut self) {
        let (ra, rb) = (self.a.roots.clone(), self.b.roots.clone());
        self.align(&ra, &rb);
    }

    fn align(&mut self, ids_a: &[u32], ids_b: &[u32]) {
        let (ka, kb) = (keys(self.a, ids_a), keys(self.b, ids_b));
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for op in capture_diff_slices_deadline(Algorithm::Myers, &ka, &kb, self.deadline) {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    self.settle(&mut removed, &mut added);
                    for k in 0..len {
                        self.matched(ids_a[old_index + k], ids_b[new_index + k]);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => removed.extend_from_slice(&ids_a[old_index..old_index + old_len]),
                DiffOp::Insert {
                    new_index, new_len, ..
                } => added.extend_from_slice(&ids_b[new_index..new_index + new_len]),
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    removed.extend_from_slice(&ids_a[old_index..old_index + old_len]);
                    added.extend_from_slice(&ids_b[new_index..new_index + new_len]);
                }
            }
        }
        self.settle(&mut removed, &mut added);
    }

    fn row(
        &mut self,
        a: Option<u32>,
        b: Option<u32>,
        status: RowStatus,
        depth: usize,
    ) -> Option<usize> {
        if self.rows.len() >= MAX_ROWS {
            self.rows_dropped += 1;
            return None;
        }
        let range = |r: &Records<'_>, i: u32| {
            let rec = &r.list[i as usize];
            [rec.offset, rec.end]
        };
        self.rows.push(AlignedRow {
            a: a.map(|i| self.a.id(i)),
            b: b.map(|i| self.b.id(i)),
            status,
            depth: depth as u32,
            range: super::Sides {
                a: a.map(|i| range(self.a, i)),
                b: b.map(|i| range(self.b, i)),
            },
        });
        Some(self.rows.len() - 1)
    }

    /// Two records matched by the alignment: containers are compared inside.
    fn matched(&mut self, a: u32, b: u32) {
        self.pair(a, b);
        let (ca, cb) = (
            self.a.children[a as usize].clone(),
            self.b.children[b as usize].clone(),
        );
        if self.a.list[a as usize].container
            && !(ca.is_empty() && cb.is_empty())
            && self.depth < MAX_DEPTH
        {
            let at = self.row(Some(a), Some(b), RowStatus::Same, self.depth);
            let before = (
                self.out.records.changed,
                self.out.records.added,
                self.out.records.removed,
            );
            self.depth += 1;
            self.align(&ca, &cb);
            self.depth -= 1;
            let after = (
                self.out.records.changed,
                self.out.records.added,
                self.out.records.removed,
            );
            if let (Some(at), true) = (at, before != after) {
                self.rows[at].status = RowStatus::Inner;
            }
        } else if self.a.content(a) == self.b.content(b) || !self.a.list[a as usize].container {
            self.out.records.same += 1;
            self.row(Some(a), Some(b), RowStatus::Same, self.depth);
        } else {
            self.changed(a, b);
        }
    }

    /// The records between two matches: removed and added ones of the same tag pair up in
    /// order as changed; the rest stay removed or added.
    fn settle(&mut self, removed: &mut Vec<u32>, added: &mut Vec<u32>) {
        let mut used = vec![false; added.len()];
        // The added records of each tag, first first: pairing is linear in the run.
        let mut by_tag: HashMap<&str, VecDeque<usize>> = HashMap::new();
        let b = self.b;
        for (k, &i) in added.iter().enumerate() {
            by_tag
                .entry(b.list[i as usize].tag.as_str())
                .or_default()
                .push_back(k);
        }
        for &r in removed.iter() {
            let tag = self.a.list[r as usize].tag.as_str();
            match by_tag.get_mut(tag).and_then(|q| q.pop_front()) {
                Some(k) => {
                    used[k] = true;
                    if self.a.list[r as usize].container {
                        self.matched(r, added[k]);
                    } else {
                        self.changed(r, added[k]);
                    }
                }
                None => self.one_side(r, true),
            }
        }
        for (k, &i) in added.iter().enumerate() {
            if !used[k] {
                self.one_side(i, false);
            }
        }
        removed.clear();
        added.clear();
    }

    /// A record (and everything under it) on one side only: removed from A, or added in B.
    fn one_side(&mut self, i: u32, in_a: bool) {
        let r = if in_a { self.a } else { self.b };
        let rec = &r.list[i as usize];
        if in_a {
            self.bytes.only_a(rec.offset, rec.end);
        } else {
            self.bytes.only_b(rec.offset, rec.end);
        }
        let status = if in_a {
            RowStatus::Removed
        } else {
            RowStatus::Added
        };
        for (k, d) in r.subtree(i) {
            let (a, b) = if in_a {
                (Some(k), None)
            } else {
                (None, Some(k))
            };
            self.row(a, b, status, self.depth + d as usize);
        }
        let mut leaves = Vec::new();
        r.leaves(i, &mut leaves);
        for l in leaves {
            let offset = r.list[l as usize].offset;
            if in_a {
                self.out.records.removed += 1;
                if self.out.removed.len() < MAX_LISTED {
                    self.out.removed.push(Removed {
                        path: r.path(l),
                        offset_a: offset,
                    });
                }
            } else {
                self.out.records.added += 1;
                if self.out.added.len() < MAX_LISTED {
                    self.out.added.push(Added {
                        path: r.path(l),
                        offset_b: offset,
                    });
                }
            }
        }
    }

    fn pair(&mut self, a: u32, b: u32) {
        let (ra, rb) = (&self.a.list[a as usize], &self.b.list[b as usize]);
        if ra.row.is_some() && rb.row.is_some() {
            self.pairs.insert([ra.offset, ra.end], [rb.offset, rb.end]);
        }
    }

    fn changed(&mut self, a: u32, b: u32) {
        self.pair(a, b);
        self.row(Some(a), Some(b), RowStatus::Changed, self.depth);
        self.bytes.changed(
            self.a.content(a),
            self.a.list[a as usize].offset,
            self.b.content(b),
            self.b.list[b as usize].offset,
        );
        self.out.records.changed += 1;
        if self.out.changed.len() >= MAX_LISTED {
            return;
        }
        let fields = if self.a.lines {
            let text = |r: &Records<'_>, i: u32| String::from_utf8_lossy(r.content(i)).into_owned();
            vec![FieldChange {
                name: "text".into(),
                a: text(self.a, a),
                b: text(self.b, b),
            }]
        } else {
            let by_row = |v: Option<&RecordList>| {
                let mut m: HashMap<u32, Vec<usize>> = HashMap::new();
                for (i, f) in v.map_or(&[][..], |v| &v.fields).iter().enumerate() {
                    m.entry(f.0).or_default().push(i);
                }
                m
            };
            let (va, vb) = (self.listed_a, self.listed_b);
            let (fa, fb) = self.fields.get_or_insert_with(|| (by_row(va), by_row(vb)));
            let of = |v: Option<&RecordList>,
                      index: &HashMap<u32, Vec<usize>>,
                      row: Option<u32>|
             -> Vec<(String, String)> {
                match (v, row.and_then(|r| index.get(&r))) {
                    (Some(v), Some(at)) => at
                        .iter()
                        .map(|&i| (v.fields[i].1.clone(), v.fields[i].2.clone()))
                        .collect(),
                    _ => Vec::new(),
                }
            };
            field_changes(
                of(va, fa, self.a.list[a as usize].row),
                of(vb, fb, self.b.list[b as usize].row),
            )
        };
        self.out.changed.push(Changed {
            path_a: self.a.path(a),
            path_b: self.b.path(b),
            offset_a: self.a.list[a as usize].offset,
            offset_b: self.b.list[b as usize].offset,
            fields,
        });
    }
}

/// Fields of two records compared at most this many together by their values (beyond it,
/// in order): Myers' diff over a list of indices thousands long costs more than it tells.
const MAX_ALIGNED_FIELDS: usize = 512;

/// The decoded values (type read, value) of two records that differ. Fields are aligned by
/// what they say, so a word taken out of a string reads as that word removed, not as every
/// word after it changed; what is left between two matches pairs in order.
fn field_changes(fa: Vec<(String, String)>, fb: Vec<(String, String)>) -> Vec<FieldChange> {
    let mut out = Vec::new();
    let change = |x: Option<&(String, String)>, y: Option<&(String, String)>| {
        let name = x.or(y).map(|f| f.0.clone()).unwrap_or_default();
        FieldChange {
            name,
            a: x.map(|f| f.1.clone()).unwrap_or_default(),
            b: y.map(|f| f.1.clone()).unwrap_or_default(),
        }
    };
    let in_order =
        |xs: &[(String, String)], ys: &[(String, String)], out: &mut Vec<FieldChange>| {
            for k in 0..xs.len().max(ys.len()) {
                let (x, y) = (xs.get(k), ys.get(k));
                if x != y {
                    out.push(change(x, y));
                }
            }
        };
    if fa.len() + fb.len() > MAX_ALIGNED_FIELDS {
        in_order(&fa, &fb, &mut out);
        return out;
    }
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &fa, &fb) {
        let (_, old, new) = op.as_tag_tuple();
        in_order(&fa[old], &fb[new], &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::side::Record;
    use super::super::Counts;
    use super::*;

    fn empty() -> Comparison {
        Comparison {
            same: false,
            kind_a: String::new(),
            kind_b: String::new(),
            records: Counts::default(),
            changed: Vec::new(),
            added: Vec::new(),
            removed: Vec::new(),
            notes: Vec::new(),
            geometry: None,
            placements: None,
        }
    }

    fn run_within(
        a: &str,
        b: &str,
        deadline: Option<similar::Instant>,
    ) -> (
        Comparison,
        Vec<AlignedRow>,
        crate::diff::bytes::ByteRangePair,
    ) {
        let (ra, rb) = (
            Records::of_lines(a.as_bytes()),
            Records::of_lines(b.as_bytes()),
        );
        let mut d = Differ::new(&ra, &rb, (None, None), empty(), deadline);
        d.run();
        (d.out, d.rows, d.bytes.finish())
    }

    fn run(a: &str, b: &str) -> Comparison {
        run_within(a, b, None).0
    }

    #[test]
    fn two_unlike_files_align_roughly_once_the_budget_is_spent() {
        // 60,000 lines each, drawn from two different cycles of a few values: matches
        // everywhere, none lasting, so the exact search takes on the order of N² steps.
        let a: String = (0..60_000).map(|i| format!("x{}\n", i % 97)).collect();
        let b: String = (0..60_000)
            .map(|i| format!("x{}\n", (i * 31) % 89))
            .collect();
        let started = std::time::Instant::now();
        let c = run_within(
            &a,
            &b,
            similar::Instant::now().checked_add(std::time::Duration::from_millis(200)),
        )
        .0;
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
        let r = &c.records;
        assert_eq!(
            (r.same + r.changed + r.removed, r.same + r.changed + r.added),
            (60_000, 60_000),
            "every line is accounted for on both sides"
        );
        assert!(r.changed > 0);
    }

    #[test]
    fn lines_between_matches_pair_as_changed_and_the_rest_are_added_or_removed() {
        let c = run("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
        assert_eq!(
            c.records,
            Counts {
                same: 3,
                changed: 1,
                added: 1,
                removed: 0
            }
        );
        assert_eq!((c.changed[0].offset_a, c.changed[0].offset_b), (2, 2));
        assert_eq!(
            c.changed[0].fields,
            vec![FieldChange {
                name: "text".into(),
                a: "b".into(),
                b: "B".into()
            }]
        );
        assert_eq!(
            (c.added[0].path.as_str(), c.added[0].offset_b),
            ("line 5", 8)
        );
        let c = run("x\r\ny\r\n", "y\r\n");
        assert_eq!(
            c.records,
            Counts {
                same: 1,
                changed: 0,
                added: 0,
                removed: 1
            }
        );
        assert_eq!(c.removed[0].offset_a, 0);
    }

    #[test]
    fn the_rows_put_both_files_side_by_side_and_mark_the_bytes_that_differ() {
        let (_, rows, (bytes_a, bytes_b)) =
            run_within("keep\nold\nsame\ngone\n", "keep\nnew\nsame\n", None);
        let shape: Vec<(Option<u32>, Option<u32>, RowStatus)> =
            rows.iter().map(|r| (r.a, r.b, r.status)).collect();
        assert_eq!(
            shape,
            vec![
                (Some(0), Some(0), RowStatus::Same),
                (Some(1), Some(1), RowStatus::Changed),
                (Some(2), Some(2), RowStatus::Same),
                (Some(3), None, RowStatus::Removed)
            ]
        );
        assert_eq!(
            (rows[1].range.a, rows[1].range.b),
            (Some([5, 8]), Some([5, 8]))
        );
        // "old" → "new": all three bytes; "gone" (bytes 14..18) is A's alone.
        assert_eq!(bytes_a, vec![[5, 8], [14, 18]]);
        assert_eq!(bytes_b, vec![[5, 8]]);
    }

    #[test]
    fn a_container_with_a_difference_inside_is_marked_and_one_added_whole_lists_its_subtree() {
        // A: C(L1, L2); B: C(L1, L2'), D(L3).
        let rec =
            |tag: &str, offset: usize, end: usize, container: bool, parent: Option<u32>| Record {
                tag: tag.into(),
                offset,
                end,
                container,
                parent,
                row: None,
            };
        let a_bytes = b"CC1122";
        let b_bytes = b"CC1133DD44";
        let la = vec![
            rec("C", 0, 6, true, None),
            rec("L", 2, 4, false, Some(0)),
            rec("L", 4, 6, false, Some(0)),
        ];
        let lb = vec![
            rec("C", 0, 6, true, None),
            rec("L", 2, 4, false, Some(0)),
            rec("L", 4, 6, false, Some(0)),
            rec("D", 6, 10, true, None),
            rec("L", 8, 10, false, Some(3)),
        ];
        let (ra, rb) = (
            Records::new(a_bytes, la, 6, false),
            Records::new(b_bytes, lb, 10, false),
        );
        let mut d = Differ::new(&ra, &rb, (None, None), empty(), None);
        d.run();
        let shape: Vec<(Option<u32>, Option<u32>, RowStatus, u32)> = d
            .rows
            .iter()
            .map(|r| (r.a, r.b, r.status, r.depth))
            .collect();
        assert_eq!(
            shape,
            vec![
                (Some(0), Some(0), RowStatus::Inner, 0),
                (Some(1), Some(1), RowStatus::Same, 1),
                (Some(2), Some(2), RowStatus::Changed, 1),
                (None, Some(3), RowStatus::Added, 0),
                (None, Some(4), RowStatus::Added, 1),
            ]
        );
        assert_eq!(
            d.out.records,
            Counts {
                same: 1,
                changed: 1,
                added: 1,
                removed: 0
            }
        );
        assert_eq!(d.bytes.finish(), (vec![[4, 6]], vec![[4, 10]]));
    }

    #[test]
    fn containers_nested_past_the_limit_compare_as_one_record() {
        // 200 containers, each inside the last, then a leaf that differs.
        let chain = |leaf: u8| {
            let mut bytes = vec![0u8; 201];
            bytes[200] = leaf;
            let mut list: Vec<Record> = (0..200)
                .map(|i| Record {
                    tag: "C".into(),
                    offset: i,
                    end: 201,
                    container: true,
                    parent: i.checked_sub(1).map(|p| p as u32),
                    row: None,
                })
                .collect();
            list.push(Record {
                tag: "L".into(),
                offset: 200,
                end: 201,
                container: false,
                parent: Some(199),
                row: None,
            });
            (list, bytes)
        };
        let ((la, ba), (lb, bb)) = (chain(1), chain(2));
        let (ra, rb) = (
            Records::new(&ba, la, 201, false),
            Records::new(&bb, lb, 201, false),
        );
        let mut d = Differ::new(&ra, &rb, (None, None), empty(), None);
        d.run();
        assert_eq!(
            d.out.records,
            Counts {
                same: 0,
                changed: 1,
                added: 0,
                removed: 0
            }
        );
        assert_eq!(
            d.out.changed[0].path_a.matches('/').count(),
            MAX_DEPTH,
            "the container at the limit is the record"
        );
    }

    #[test]
    fn a_long_file_with_one_difference_aligns_in_one_pass() {
        let a: String = (0..20_000).map(|i| format!("k{i}=v\n")).collect();
        let b = a.replacen("k10000=v", "k10000=w", 1);
        let c = run(&a, &b);
        assert_eq!(
            c.records,
            Counts {
                same: 19_999,
                changed: 1,
                added: 0,
                removed: 0
            }
        );
        assert_eq!(c.changed[0].offset_a, a.find("k10000=").unwrap());
    }
}
