//! Two versions of a file compared by structure: their records (the leaves of each file's
//! record tree: a format's inspector rows, or the lines of a text file) aligned sibling list
//! by sibling list with Myers' diff, then what is left between two matches paired by tag as
//! changed. The rule is docs/diff.md's; the CLI's `diff --json` prints [`Comparison`], the
//! page also shows the [`Alignment`] (both trees row by row, the bytes that differ) and the
//! difference view ([`difference_scene`]).
//!
//! Names no format: it reads each file's [`Side`] (its kind in words, its bytes, its records,
//! its scene and its placements), which is made where the formats are and can travel in the
//! wire form to where they are not (the page's tools module).
//! side ← records ← bytes ← align; placements ← geometry ← here.

mod align;
mod bytes;
mod geometry;
mod placements;
mod records;
mod side;

pub use geometry::{
    moved_colour, Difference, Geometry, LAYER_MOVED_IN_B, LAYER_ONLY_IN_B, MOVED_FROM, MOVED_LEAST,
    MOVED_MOST, ONLY_IN_A, ONLY_IN_B, UNCHANGED,
};
pub use placements::{placements, PlacementChange, PlacementCounts, Placements};
pub use side::{KindWords, Record, RecordList, Side};

use bytes::first_difference;
use records::Records;
use serde::Serialize;
use std::collections::HashMap;

/// Records listed at most in each of `changed`, `added` and `removed` (the counts go on).
pub const MAX_LISTED: usize = 1_000;

/// Rows of the aligned trees at most (two text files of a million lines each are not shown
/// whole; the counts go on).
pub const MAX_ROWS: usize = 200_000;

/// How long the alignment may search for the shortest edit: Myers' diff is quick when the
/// files are alike and quadratic when they are not (two unrelated files of 100,000 lines);
/// past this, what is left is aligned roughly and a note says so.
pub const ALIGN_BUDGET: std::time::Duration = std::time::Duration::from_secs(5);

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Counts {
    pub same: usize,
    pub changed: usize,
    pub added: usize,
    pub removed: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct FieldChange {
    pub name: String,
    pub a: String,
    pub b: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Changed {
    pub path_a: String,
    pub path_b: String,
    pub offset_a: usize,
    pub offset_b: usize,
    pub fields: Vec<FieldChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Added {
    pub path: String,
    pub offset_b: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Removed {
    pub path: String,
    pub offset_a: usize,
}

/// What `relicview diff --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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

/// What a row of the aligned trees shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum RowStatus {
    Same,
    Changed,
    /// In B only.
    Added,
    /// In A only.
    Removed,
    /// A container on both sides with a difference somewhere inside.
    Inner,
}

/// One row of the two record trees side by side: the record of each side (an inspector row,
/// or for text a line from 0), absent on the side without it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct AlignedRow {
    pub a: Option<u32>,
    pub b: Option<u32>,
    pub status: RowStatus,
    pub depth: u32,
    /// Each side's record's bytes `[start, end)`.
    pub range: Sides<Option<[usize; 2]>>,
}

/// One value for each side of a comparison: what the page reads as `x.a` and `x.b`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Sides<T> {
    pub a: T,
    pub b: T,
}

/// What the page shows of a comparison beside its [`Comparison`]: both trees row by row, and
/// the bytes of each file that differ. (The page's alone, so in the page's camelCase; the
/// [`Comparison`] is `diff --json`'s, whose keys scripts rely on.)
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Alignment {
    /// The records are lines of text (`a` and `b` count lines), not inspector rows.
    pub lines: bool,
    pub rows: Vec<AlignedRow>,
    /// Rows past [`MAX_ROWS`], not listed.
    pub rows_dropped: usize,
    /// The byte ranges that differ, in each file.
    pub bytes: Sides<Vec<[usize; 2]>>,
    /// Records of A (their bytes) and the records of B they were matched or changed to.
    #[serde(skip)]
    pub pairs: HashMap<crate::scene::RecordBytes, crate::scene::RecordBytes>,
}

/// Compare two files (opened to be shown: their inspector views are read), and their scenes
/// when both have one.
pub fn compare(a: &Side, b: &Side) -> Comparison {
    compare_within(a, b, ALIGN_BUDGET).0
}

/// [`compare`], and what the page shows beside it.
pub fn compare_in_full(a: &Side, b: &Side) -> (Comparison, Alignment) {
    compare_within(a, b, ALIGN_BUDGET)
}

/// [`compare_in_full`], the alignment searching for at most `budget`.
fn compare_within(a: &Side, b: &Side, budget: std::time::Duration) -> (Comparison, Alignment) {
    let mut out = Comparison {
        same: false,
        kind_a: a.kind_word.clone(),
        kind_b: b.kind_word.clone(),
        records: Counts::default(),
        changed: Vec::new(),
        added: Vec::new(),
        removed: Vec::new(),
        notes: Vec::new(),
        geometry: None,
        placements: None,
    };
    let (bytes_a, bytes_b) = (&a.bytes[..], &b.bytes[..]);
    let same_kind = a.kind.word == b.kind.word;
    let records = if same_kind {
        Records::of_side(a).zip(Records::of_side(b))
    } else {
        None
    };
    let Some((ra, rb)) = records else {
        out.notes.push(if !same_kind {
            format!(
                "a {} and a {}: compared by bytes",
                a.kind.title, b.kind.title
            )
        } else {
            "no records: compared by bytes".into()
        });
        return by_bytes(out, bytes_a, bytes_b);
    };
    let deadline = similar::Instant::now().checked_add(budget);
    let mut d = align::Differ::new(
        &ra,
        &rb,
        (a.records.as_ref(), b.records.as_ref()),
        out,
        deadline,
    );
    d.run();
    if deadline.is_some_and(|t| similar::Instant::now() > t) {
        d.out.notes.push(format!("the files are too unlike to align exactly within {} s: past that, records were aligned roughly (the counts may overstate the differences)", budget.as_secs_f32()));
    }
    // A model's primitives name the records they came from; a world's come from the models
    // it places, whose records these are not, so a world is compared by its placements.
    if let Some((sa, sb)) = a
        .scene()
        .zip(b.scene())
        .filter(|(sa, sb)| !ra.lines && (!sa.meshes.is_empty() || !sb.meshes.is_empty()))
    {
        d.out.geometry = Some(geometry::geometry(sa, sb, &d.pairs));
    }
    let (placed_a, placed_b) = (&a.placements[..], &b.placements[..]);
    if !placed_a.is_empty() || !placed_b.is_empty() {
        d.out.placements = Some(placements(placed_a, placed_b));
    }
    let tails_differ = compare_tails(&mut d, (bytes_a, ra.parsed_to), (bytes_b, rb.parsed_to));
    let c = &d.out.records;
    d.out.same = c.changed == 0 && c.added == 0 && c.removed == 0 && !tails_differ;
    let (changed_a, changed_b) = d.bytes.finish();
    let alignment = Alignment {
        lines: ra.lines,
        rows: d.rows,
        rows_dropped: d.rows_dropped,
        bytes: Sides {
            a: changed_a,
            b: changed_b,
        },
        pairs: d.pairs,
    };
    (d.out, alignment)
}

/// Two files compared by their bytes alone (`out` says why): the first byte that differs and
/// the ranges that do.
fn by_bytes(mut out: Comparison, bytes_a: &[u8], bytes_b: &[u8]) -> (Comparison, Alignment) {
    let first = first_difference(bytes_a, bytes_b);
    if let Some(at) = first {
        out.notes.push(format!(
            "the bytes differ from byte {at} ({} and {} bytes)",
            bytes_a.len(),
            bytes_b.len()
        ));
    }
    out.same = first.is_none();
    let mut ranges = bytes::ByteRanges::default();
    ranges.changed(bytes_a, 0, bytes_b, 0);
    let (a, b) = ranges.finish();
    (
        out,
        Alignment {
            bytes: Sides { a, b },
            ..Alignment::default()
        },
    )
}

/// What the records do not reach (past a parse error, past the listed rows: each side's
/// bytes from its `parsed_to` on) compared as bytes, said in a note where either side has
/// any. → whether those bytes differ.
fn compare_tails(
    d: &mut align::Differ<'_, '_>,
    (bytes_a, parsed_a): (&[u8], usize),
    (bytes_b, parsed_b): (&[u8], usize),
) -> bool {
    let (from_a, from_b) = (parsed_a.min(bytes_a.len()), parsed_b.min(bytes_b.len()));
    let (tail_a, tail_b) = (&bytes_a[from_a..], &bytes_b[from_b..]);
    let tails_differ = first_difference(tail_a, tail_b).is_some();
    if parsed_a < bytes_a.len() || parsed_b < bytes_b.len() {
        d.out.notes.push(format!(
            "records reach byte {parsed_a} of A and {parsed_b} of B; the rest ({} and {} bytes) compared by bytes: {}",
            tail_a.len(),
            tail_b.len(),
            if tails_differ { "they differ" } else { "the same" }
        ));
        d.bytes.changed(tail_a, from_a, tail_b, from_b);
    }
    tails_differ
}

/// The difference view of two scenes compared: for two worlds by their placements, for
/// models vertex by vertex through the records the alignment paired (docs/diff.md). None
/// when there is nothing to compare in 3D (text, or a side without a scene).
pub fn difference_scene(a: &Side, b: &Side, alignment: &Alignment) -> Option<Difference> {
    let (sa, sb) = a.scene().zip(b.scene())?;
    let (placed_a, placed_b) = (&a.placements[..], &b.placements[..]);
    if !placed_a.is_empty() || !placed_b.is_empty() {
        let (_, statuses) = placements::placements_with_statuses(placed_a, placed_b);
        return Some(geometry::placement_difference(
            sa,
            sb,
            (placed_a, placed_b),
            &statuses,
        ));
    }
    if alignment.lines || (sa.meshes.is_empty() && sb.meshes.is_empty()) {
        return None;
    }
    Some(geometry::model_difference(sa, sb, &alignment.pairs))
}
