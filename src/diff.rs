//! Two versions of a file compared by structure: their records (the leaves of each file's
//! record tree: a format's inspector rows, or the lines of a text file) aligned sibling list
//! by sibling list with Myers' diff, then what is left between two matches paired by tag as
//! changed. The rule is docs/diff.md's; the CLI's `diff --json` prints [`Comparison`].
//!
//! Names no format: it reads what every document gives (its inspector view and its bytes).

use crate::formats::{Document, Placement};
use crate::inspect::{ByteClass, InspectorView};
use crate::scene::Scene;
use std::collections::HashMap;
use serde::Serialize;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};

/// Records listed at most in each of `changed`, `added` and `removed` (the counts go on).
pub const MAX_LISTED: usize = 1_000;

/// How long the alignment may search for the shortest edit: Myers' diff is quick when the
/// files are alike and quadratic when they are not (two unrelated files of 100,000 lines);
/// past this, what is left is aligned roughly and a note says so.
pub const ALIGN_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub same: usize,
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    pub name: String,
    pub a: String,
    pub b: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed {
    pub path_a: String,
    pub path_b: String,
    pub offset_a: usize,
    pub offset_b: usize,
    pub fields: Vec<FieldChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Added {
    pub path: String,
    pub offset_b: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Removed {
    pub path: String,
    pub offset_a: usize,
}

/// What `relicview diff --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub same: bool,
    pub kind_a: String,
    pub kind_b: String,
    pub records: Counts,
    pub changed: Vec<Changed>,
    pub added: Vec<Added>,
    pub removed: Vec<Removed>,
    /// How the files were compared where records could not be: different kinds, a part
    /// past what parsed, a file with no records.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// For two models: their triangles, and the vertices the changed records moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geometry: Option<Geometry>,
    /// For two worlds: their placements paired by their place in the tree of placements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placements: Option<Placements>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlacementCounts {
    pub same: usize,
    pub moved: usize,
    pub added: usize,
    pub removed: usize,
}

/// A placement of one world or both: where it is in each (absent on the side without it).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementChange {
    pub path: String,
    pub section: String,
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_a: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position_b: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_a: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_b: Option<[f32; 3]>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Placements {
    pub counts: PlacementCounts,
    pub moved: Vec<PlacementChange>,
    pub added: Vec<PlacementChange>,
    pub removed: Vec<PlacementChange>,
}

/// Two worlds' placements paired by path (`block[1]/crate[0]`): the same section placed
/// again in the same order is the same placement, wherever it went.
pub fn placements(a: &[Placement], b: &[Placement]) -> Placements {
    let change = |p: &Placement| PlacementChange { path: p.path.clone(), section: p.section.clone(), model: p.model.clone(), position_a: None, position_b: None, rotation_a: None, rotation_b: None };
    let of_b: HashMap<&str, &Placement> = b.iter().map(|p| (p.path.as_str(), p)).collect();
    let mut out = Placements::default();
    let mut paired = std::collections::HashSet::new();
    for pa in a {
        match of_b.get(pa.path.as_str()) {
            Some(pb) => {
                paired.insert(pb.path.as_str());
                // Positions written with three decimals: closer than that is the same place.
                let near = |x: [f32; 3], y: [f32; 3]| x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-3);
                if near(pa.position, pb.position) && near(pa.rotation, pb.rotation) {
                    out.counts.same += 1;
                } else {
                    out.counts.moved += 1;
                    if out.moved.len() < MAX_LISTED {
                        out.moved.push(PlacementChange { position_a: Some(pa.position), position_b: Some(pb.position), rotation_a: Some(pa.rotation), rotation_b: Some(pb.rotation), ..change(pa) });
                    }
                }
            }
            None => {
                out.counts.removed += 1;
                if out.removed.len() < MAX_LISTED {
                    out.removed.push(PlacementChange { position_a: Some(pa.position), rotation_a: Some(pa.rotation), ..change(pa) });
                }
            }
        }
    }
    for pb in b.iter().filter(|p| !paired.contains(p.path.as_str())) {
        out.counts.added += 1;
        if out.added.len() < MAX_LISTED {
            out.added.push(PlacementChange { position_b: Some(pb.position), rotation_b: Some(pb.rotation), ..change(pb) });
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Geometry {
    pub triangles_a: usize,
    pub triangles_b: usize,
    /// Vertices of paired primitives (from records matched or changed, with as many
    /// vertices on both sides) whose positions differ.
    pub vertices_moved: usize,
    /// The farthest any of them moved, in model units.
    pub max_displacement: f32,
    /// Vertices of primitives with no partner, or a partner with another vertex count.
    pub vertices_unmatched: usize,
}

/// One record of a file as the diff sees it.
#[derive(Debug, Clone)]
struct Record {
    tag: String,
    offset: usize,
    end: usize,
    container: bool,
    parent: Option<u32>,
    /// The inspector row it came from (for its decoded fields), if any.
    row: Option<u32>,
}

/// A file's records with each one's children, in file order.
struct Records<'a> {
    bytes: &'a [u8],
    list: Vec<Record>,
    roots: Vec<u32>,
    children: Vec<Vec<u32>>,
    /// Where the records stop explaining the file: bytes from here on compare as bytes.
    parsed_to: usize,
    /// Lines, not rows: paths are "line N".
    lines: bool,
}

impl<'a> Records<'a> {
    fn new(bytes: &'a [u8], list: Vec<Record>, parsed_to: usize, lines: bool) -> Records<'a> {
        let mut children = vec![Vec::new(); list.len()];
        let mut roots = Vec::new();
        for (i, r) in list.iter().enumerate() {
            match r.parent.filter(|&p| (p as usize) < i) {
                Some(p) => children[p as usize].push(i as u32),
                None => roots.push(i as u32),
            }
        }
        Records { bytes, list, roots, children, parsed_to, lines }
    }

    /// A text file's lines, each without its line ending, all of one tag.
    fn of_lines(bytes: &'a [u8]) -> Records<'a> {
        let mut list = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |n| start + n);
            let text_end = if end > start && bytes[end - 1] == b'\r' { end - 1 } else { end };
            list.push(Record { tag: "line".into(), offset: start, end: text_end, container: false, parent: None, row: None });
            start = end + 1;
        }
        Records::new(bytes, list, bytes.len(), true)
    }

    /// A format's inspector rows. Rows past the view's limit are not listed: the bytes
    /// after the last listed one compare as bytes.
    fn of_view(bytes: &'a [u8], view: &InspectorView) -> Records<'a> {
        let list: Vec<Record> = view
            .chunks
            .iter()
            .map(|r| Record { tag: r.name.clone(), offset: r.offset, end: r.end.min(bytes.len()), container: r.container, parent: r.parent, row: Some(r.index) })
            .collect();
        let complete = view.chunks.len() >= view.rows_total && view.error.is_none();
        let parsed_to = if complete { bytes.len() } else { list.iter().filter(|r| r.parent.is_none()).map(|r| r.end).max().unwrap_or(0) };
        Records::new(bytes, list, parsed_to, false)
    }

    fn content(&self, i: u32) -> &'a [u8] {
        let r = &self.list[i as usize];
        &self.bytes[r.offset.min(r.end)..r.end]
    }

    /// `OBJECT[0]/PATCH[1]/SV_FACETED[0]`: each step its tag and its place among the
    /// siblings of that tag; for lines, `line N`.
    fn path(&self, i: u32) -> String {
        if self.lines {
            return format!("line {}", i + 1);
        }
        let mut steps = Vec::new();
        let mut at = Some(i);
        while let Some(i) = at {
            let r = &self.list[i as usize];
            let siblings = match r.parent {
                Some(p) => &self.children[p as usize],
                None => &self.roots,
            };
            let ordinal = siblings.iter().take_while(|&&s| s != i).filter(|&&s| self.list[s as usize].tag == r.tag).count();
            steps.push(format!("{}[{ordinal}]", r.tag));
            at = r.parent;
        }
        steps.reverse();
        steps.join("/")
    }

    /// Every leaf at or under `i`.
    fn leaves(&self, i: u32, out: &mut Vec<u32>) {
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            let kids = &self.children[i as usize];
            if kids.is_empty() {
                out.push(i);
            } else {
                stack.extend(kids.iter().rev());
            }
        }
    }
}

/// What a sibling is matched by: its tag, and a leaf's bytes.
#[derive(Hash, PartialEq, Eq, PartialOrd, Ord)]
struct Key<'a> {
    tag: &'a str,
    content: Option<&'a [u8]>,
}

fn keys<'a>(r: &'a Records<'_>, ids: &[u32]) -> Vec<Key<'a>> {
    ids.iter()
        .map(|&i| {
            let rec = &r.list[i as usize];
            Key { tag: &rec.tag, content: (!rec.container).then(|| r.content(i)) }
        })
        .collect()
}

struct Differ<'x, 'a> {
    a: &'x Records<'a>,
    b: &'x Records<'a>,
    view_a: Option<&'x InspectorView>,
    view_b: Option<&'x InspectorView>,
    out: Comparison,
    /// Inspector rows of A and the rows of B they were matched or changed to.
    pairs: HashMap<u32, u32>,
    /// Containers entered: deeper than [`MAX_DEPTH`], a container compares as one record.
    depth: usize,
    deadline: Option<similar::Instant>,
    /// The fields of each inspector row of A and of B, made when first asked.
    fields: Option<(HashMap<u32, Vec<usize>>, HashMap<u32, Vec<usize>>)>,
}

/// Levels of containers compared inside (the formats nest far less; this bounds the
/// recursion whatever a view holds).
const MAX_DEPTH: usize = 64;

impl Differ<'_, '_> {
    fn align(&mut self, ids_a: &[u32], ids_b: &[u32]) {
        let (ka, kb) = (keys(self.a, ids_a), keys(self.b, ids_b));
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for op in capture_diff_slices_deadline(Algorithm::Myers, &ka, &kb, self.deadline) {
            match op {
                DiffOp::Equal { old_index, new_index, len } => {
                    self.settle(&mut removed, &mut added);
                    for k in 0..len {
                        self.matched(ids_a[old_index + k], ids_b[new_index + k]);
                    }
                }
                DiffOp::Delete { old_index, old_len, .. } => removed.extend_from_slice(&ids_a[old_index..old_index + old_len]),
                DiffOp::Insert { new_index, new_len, .. } => added.extend_from_slice(&ids_b[new_index..new_index + new_len]),
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    removed.extend_from_slice(&ids_a[old_index..old_index + old_len]);
                    added.extend_from_slice(&ids_b[new_index..new_index + new_len]);
                }
            }
        }
        self.settle(&mut removed, &mut added);
    }

    /// Two records matched by the alignment: containers are compared inside.
    fn matched(&mut self, a: u32, b: u32) {
        self.pair(a, b);
        let (ca, cb) = (self.a.children[a as usize].clone(), self.b.children[b as usize].clone());
        if self.a.list[a as usize].container && !(ca.is_empty() && cb.is_empty()) && self.depth < MAX_DEPTH {
            self.depth += 1;
            self.align(&ca, &cb);
            self.depth -= 1;
        } else if self.a.content(a) == self.b.content(b) || !self.a.list[a as usize].container {
            self.out.records.same += 1;
        } else {
            self.changed(a, b);
        }
    }

    /// The records between two matches: removed and added ones of the same tag pair up in
    /// order as changed; the rest stay removed or added.
    fn settle(&mut self, removed: &mut Vec<u32>, added: &mut Vec<u32>) {
        let mut used = vec![false; added.len()];
        // The added records of each tag, first first: pairing is linear in the run.
        let mut by_tag: std::collections::HashMap<&str, std::collections::VecDeque<usize>> = std::collections::HashMap::new();
        for (k, &b) in added.iter().enumerate() {
            by_tag.entry(self.b.list[b as usize].tag.as_str()).or_default().push_back(k);
        }
        for &r in removed.iter() {
            let tag = self.a.list[r as usize].tag.as_str();
            let partner = by_tag.get_mut(tag).and_then(|q| q.pop_front());
            match partner {
                Some(k) => {
                    used[k] = true;
                    let b = added[k];
                    if self.a.list[r as usize].container {
                        self.matched(r, b);
                    } else {
                        self.changed(r, b);
                    }
                }
                None => {
                    let mut leaves = Vec::new();
                    self.a.leaves(r, &mut leaves);
                    for l in leaves {
                        self.out.records.removed += 1;
                        if self.out.removed.len() < MAX_LISTED {
                            self.out.removed.push(Removed { path: self.a.path(l), offset_a: self.a.list[l as usize].offset });
                        }
                    }
                }
            }
        }
        for (k, &b) in added.iter().enumerate() {
            if !used[k] {
                let mut leaves = Vec::new();
                self.b.leaves(b, &mut leaves);
                for l in leaves {
                    self.out.records.added += 1;
                    if self.out.added.len() < MAX_LISTED {
                        self.out.added.push(Added { path: self.b.path(l), offset_b: self.b.list[l as usize].offset });
                    }
                }
            }
        }
        removed.clear();
        added.clear();
    }

    fn pair(&mut self, a: u32, b: u32) {
        if let (Some(ra), Some(rb)) = (self.a.list[a as usize].row, self.b.list[b as usize].row) {
            self.pairs.insert(ra, rb);
        }
    }

    fn changed(&mut self, a: u32, b: u32) {
        self.pair(a, b);
        self.out.records.changed += 1;
        if self.out.changed.len() >= MAX_LISTED {
            return;
        }
        let fields = if self.a.lines {
            let text = |r: &Records<'_>, i: u32| String::from_utf8_lossy(r.content(i)).into_owned();
            vec![FieldChange { name: "text".into(), a: text(self.a, a), b: text(self.b, b) }]
        } else {
            let by_row = |v: Option<&InspectorView>| {
                let mut m: HashMap<u32, Vec<usize>> = HashMap::new();
                for (i, f) in v.map_or(&[][..], |v| &v.fields).iter().enumerate() {
                    m.entry(f.chunk).or_default().push(i);
                }
                m
            };
            let (va, vb) = (self.view_a, self.view_b);
            let (fa, fb) = self.fields.get_or_insert_with(|| (by_row(va), by_row(vb)));
            let of = |v: Option<&InspectorView>, index: &HashMap<u32, Vec<usize>>, row: Option<u32>| -> Vec<(String, String)> {
                match (v, row.and_then(|r| index.get(&r))) {
                    (Some(v), Some(at)) => at.iter().map(|&i| (v.fields[i].what.clone(), v.fields[i].value.clone())).collect(),
                    _ => Vec::new(),
                }
            };
            field_changes(of(va, fa, self.a.list[a as usize].row), of(vb, fb, self.b.list[b as usize].row))
        };
        self.out.changed.push(Changed { path_a: self.a.path(a), path_b: self.b.path(b), offset_a: self.a.list[a as usize].offset, offset_b: self.b.list[b as usize].offset, fields });
    }
}

/// The decoded values (type read, value) of two records, paired in order, that differ.
fn field_changes(fa: Vec<(String, String)>, fb: Vec<(String, String)>) -> Vec<FieldChange> {
    let mut out: Vec<FieldChange> = fa.iter().zip(&fb).filter(|(x, y)| x != y).map(|((name, a), (_, b))| FieldChange { name: name.clone(), a: a.clone(), b: b.clone() }).collect();
    for (name, a) in fa.iter().skip(fb.len()) {
        out.push(FieldChange { name: name.clone(), a: a.clone(), b: String::new() });
    }
    for (name, b) in fb.iter().skip(fa.len()) {
        out.push(FieldChange { name: name.clone(), a: String::new(), b: b.clone() });
    }
    out
}

/// The word a comparison calls a document's kind: its summary's `kind` ("geometry"), or
/// the listing's word for it ("map").
fn kind_word(doc: &dyn Document) -> String {
    serde_json::from_str::<serde_json::Value>(&doc.info_json()).ok().and_then(|j| j["kind"].as_str().map(String::from)).unwrap_or_else(|| doc.kind().as_str().to_string())
}

fn is_text(view: &InspectorView) -> bool {
    view.format == "text" || (!view.runs.is_empty() && view.runs.iter().all(|r| r.class == ByteClass::Text))
}

fn records_of<'a>(doc: &'a dyn Document) -> Option<Records<'a>> {
    let view = doc.inspector()?;
    let bytes = doc.bytes(0)?;
    if is_text(view) {
        Some(Records::of_lines(bytes))
    } else if view.chunks.is_empty() {
        None
    } else {
        Some(Records::of_view(bytes, view))
    }
}

/// The first byte at which two byte strings differ (or where the shorter ends).
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y).or_else(|| (a.len() != b.len()).then(|| a.len().min(b.len())))
}

/// Vertices moved between two scenes: each primitive of A paired with B's primitive of the
/// record its own record was aligned to, vertex by vertex when the counts agree.
fn geometry(a: &Scene, b: &Scene, pairs: &HashMap<u32, u32>) -> Geometry {
    let mut of_b: HashMap<u32, &crate::scene::Primitive> = HashMap::new();
    for p in b.meshes.iter().flat_map(|m| &m.primitives) {
        if let Some(r) = p.record {
            of_b.entry(r).or_insert(p);
        }
    }
    let mut g = Geometry { triangles_a: a.triangle_count(0), triangles_b: b.triangle_count(0), vertices_moved: 0, max_displacement: 0.0, vertices_unmatched: 0 };
    let mut used = std::collections::HashSet::new();
    for pa in a.meshes.iter().flat_map(|m| &m.primitives) {
        let partner = pa.record.and_then(|r| pairs.get(&r)).and_then(|rb| of_b.get(rb).map(|p| (*rb, *p)));
        match partner {
            Some((rb, pb)) if pb.positions.len() == pa.positions.len() && used.insert(rb) => {
                for (x, y) in pa.positions.iter().zip(&pb.positions) {
                    if x != y {
                        g.vertices_moved += 1;
                        let d = glam::Vec3::from(*x).distance(glam::Vec3::from(*y));
                        g.max_displacement = g.max_displacement.max(d);
                    }
                }
            }
            _ => g.vertices_unmatched += pa.positions.len(),
        }
    }
    for pb in b.meshes.iter().flat_map(|m| &m.primitives) {
        if !pb.record.is_some_and(|r| used.contains(&r)) {
            g.vertices_unmatched += pb.positions.len();
        }
    }
    g
}

/// Compare two opened documents (opened to be shown: their inspector views are read), and
/// their scenes when both have one.
pub fn compare(a: &dyn Document, b: &dyn Document, scenes: Option<(&Scene, &Scene)>) -> Comparison {
    compare_within(a, b, scenes, ALIGN_BUDGET)
}

/// [`compare`], the alignment searching for at most `budget`.
fn compare_within(a: &dyn Document, b: &dyn Document, scenes: Option<(&Scene, &Scene)>, budget: std::time::Duration) -> Comparison {
    let mut out = Comparison { same: false, kind_a: kind_word(a), kind_b: kind_word(b), records: Counts::default(), changed: Vec::new(), added: Vec::new(), removed: Vec::new(), notes: Vec::new(), geometry: None, placements: None };
    let (bytes_a, bytes_b) = (a.bytes(0).unwrap_or(&[]), b.bytes(0).unwrap_or(&[]));
    let records = if a.kind() == b.kind() { records_of(a).zip(records_of(b)) } else { None };
    let Some((ra, rb)) = records else {
        out.notes.push(if a.kind() != b.kind() { format!("a {} and a {}: compared by bytes", a.kind().title(), b.kind().title()) } else { "no records: compared by bytes".into() });
        if let Some(at) = first_difference(bytes_a, bytes_b) {
            out.notes.push(format!("the bytes differ from byte {at} ({} and {} bytes)", bytes_a.len(), bytes_b.len()));
        }
        out.same = first_difference(bytes_a, bytes_b).is_none();
        return out;
    };
    let deadline = similar::Instant::now().checked_add(budget);
    let mut d = Differ { a: &ra, b: &rb, view_a: a.inspector(), view_b: b.inspector(), out, pairs: HashMap::new(), depth: 0, deadline, fields: None };
    let (roots_a, roots_b) = (ra.roots.clone(), rb.roots.clone());
    d.align(&roots_a, &roots_b);
    let mut out = d.out;
    if deadline.is_some_and(|t| similar::Instant::now() > t) {
        out.notes.push(format!("the files are too unlike to align exactly within {} s: past that, records were aligned roughly (the counts may overstate the differences)", budget.as_secs_f32()));
    }
    // A model's primitives name the records they came from; a world's come from the models
    // it places, whose records these are not, so a world is compared by its placements.
    if let Some((sa, sb)) = scenes.filter(|(sa, sb)| !ra.lines && (!sa.meshes.is_empty() || !sb.meshes.is_empty())) {
        out.geometry = Some(geometry(sa, sb, &d.pairs));
    }
    if !a.placements().is_empty() || !b.placements().is_empty() {
        out.placements = Some(placements(a.placements(), b.placements()));
    }
    // What the records do not reach (past a parse error, past the listed rows) compares
    // as bytes.
    let (tail_a, tail_b) = (&bytes_a[ra.parsed_to.min(bytes_a.len())..], &bytes_b[rb.parsed_to.min(bytes_b.len())..]);
    let tails_differ = first_difference(tail_a, tail_b).is_some();
    if ra.parsed_to < bytes_a.len() || rb.parsed_to < bytes_b.len() {
        out.notes.push(format!(
            "records reach byte {} of A and {} of B; the rest ({} and {} bytes) compared by bytes: {}",
            ra.parsed_to,
            rb.parsed_to,
            tail_a.len(),
            tail_b.len(),
            if tails_differ { "they differ" } else { "the same" }
        ));
    }
    let c = &out.records;
    out.same = c.changed == 0 && c.added == 0 && c.removed == 0 && !tails_differ;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Records<'_> {
        Records::of_lines(text.as_bytes())
    }

    fn run(a: &str, b: &str) -> Comparison {
        run_within(a, b, None)
    }

    fn run_within(a: &str, b: &str, deadline: Option<similar::Instant>) -> Comparison {
        let (ra, rb) = (lines(a), lines(b));
        let out = Comparison { same: false, kind_a: String::new(), kind_b: String::new(), records: Counts::default(), changed: Vec::new(), added: Vec::new(), removed: Vec::new(), notes: Vec::new(), geometry: None, placements: None };
        let mut d = Differ { a: &ra, b: &rb, view_a: None, view_b: None, out, pairs: HashMap::new(), depth: 0, deadline, fields: None };
        d.align(&ra.roots.clone(), &rb.roots.clone());
        d.out
    }

    #[test]
    fn two_unlike_files_align_roughly_once_the_budget_is_spent() {
        // 60,000 lines each, drawn from two different cycles of a few values: matches
        // everywhere, none lasting, so the exact search takes on the order of N² steps.
        let a: String = (0..60_000).map(|i| format!("x{}\n", i % 97)).collect();
        let b: String = (0..60_000).map(|i| format!("x{}\n", (i * 31) % 89)).collect();
        let started = std::time::Instant::now();
        let c = run_within(&a, &b, similar::Instant::now().checked_add(std::time::Duration::from_millis(200)));
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
        let r = &c.records;
        assert_eq!((r.same + r.changed + r.removed, r.same + r.changed + r.added), (60_000, 60_000), "every line is accounted for on both sides");
        assert!(r.changed > 0);
    }

    #[test]
    fn lines_between_matches_pair_as_changed_and_the_rest_are_added_or_removed() {
        let c = run("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
        assert_eq!(c.records, Counts { same: 3, changed: 1, added: 1, removed: 0 });
        assert_eq!((c.changed[0].offset_a, c.changed[0].offset_b), (2, 2));
        assert_eq!(c.changed[0].fields, vec![FieldChange { name: "text".into(), a: "b".into(), b: "B".into() }]);
        assert_eq!((c.added[0].path.as_str(), c.added[0].offset_b), ("line 5", 8));
        let c = run("x\r\ny\r\n", "y\r\n");
        assert_eq!(c.records, Counts { same: 1, changed: 0, added: 0, removed: 1 });
        assert_eq!(c.removed[0].offset_a, 0);
    }

    #[test]
    fn containers_nested_past_the_limit_compare_as_one_record() {
        // 200 containers, each inside the last, then a leaf that differs.
        let chain = |leaf: u8| {
            let mut bytes = vec![0u8; 201];
            bytes[200] = leaf;
            let mut list: Vec<Record> = (0..200).map(|i| Record { tag: "C".into(), offset: i, end: 201, container: true, parent: i.checked_sub(1).map(|p| p as u32), row: None }).collect();
            list.push(Record { tag: "L".into(), offset: 200, end: 201, container: false, parent: Some(199), row: None });
            (list, bytes)
        };
        let ((la, ba), (lb, bb)) = (chain(1), chain(2));
        let (ra, rb) = (Records::new(&ba, la, 201, false), Records::new(&bb, lb, 201, false));
        let out = Comparison { same: false, kind_a: String::new(), kind_b: String::new(), records: Counts::default(), changed: Vec::new(), added: Vec::new(), removed: Vec::new(), notes: Vec::new(), geometry: None, placements: None };
        let mut d = Differ { a: &ra, b: &rb, view_a: None, view_b: None, out, pairs: HashMap::new(), depth: 0, deadline: None, fields: None };
        d.align(&ra.roots.clone(), &rb.roots.clone());
        assert_eq!(d.out.records, Counts { same: 0, changed: 1, added: 0, removed: 0 });
        assert_eq!(d.out.changed[0].path_a.matches('/').count(), MAX_DEPTH, "the container at the limit is the record");
    }

    #[test]
    fn a_long_file_with_one_difference_aligns_in_one_pass() {
        let a: String = (0..20_000).map(|i| format!("k{i}=v\n")).collect();
        let b = a.replacen("k10000=v", "k10000=w", 1);
        let c = run(&a, &b);
        assert_eq!(c.records, Counts { same: 19_999, changed: 1, added: 0, removed: 0 });
        assert_eq!(c.changed[0].offset_a, a.find("k10000=").unwrap());
    }
}
