//! One file of two compared, as the diff reads it and nothing more: what it is (in words),
//! its bytes, its records (the inspector's rows and their decoded fields, or a text's lines),
//! its placements and its scene. Made where the formats are ([`Side::of`]: the CLI, the
//! page's core) and sent to the page's tools module in the wire form ([`crate::wire`]), so
//! that comparing needs no format.

use crate::formats::Described;
use crate::inspect::{ByteClass, InspectorView};
use crate::placement::Placement;
use crate::scene::Scene;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// What a file is, in the words a comparison or an export says: no lookup in the registry of
/// formats is needed to read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindWords {
    /// The listing's word ("biz2-geometry").
    pub word: String,
    /// What the info pane calls it ("DIV-BIZ2 geometry").
    pub title: String,
    /// Other files take things from it (a library, a table).
    pub used_by: bool,
    /// It is text.
    pub text: bool,
}

impl KindWords {
    pub fn of(kind: crate::formats::kind::Kind) -> KindWords {
        let caps = kind.capabilities();
        KindWords {
            word: kind.as_str().to_string(),
            title: kind.title().to_string(),
            used_by: caps.used_by,
            text: caps.text,
        }
    }
}

/// One record of a file as the diff sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub tag: String,
    pub offset: usize,
    pub end: usize,
    pub container: bool,
    pub parent: Option<u32>,
    /// The inspector row it came from (for its decoded fields), if any.
    pub row: Option<u32>,
}

/// One file's side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side<'a> {
    pub kind: KindWords,
    /// What `diff --json` calls its kind (`kind_a`): the listing's word, or a finer one
    /// where the format has its own (a DIV-BIZ2 file's "geometry").
    pub kind_word: String,
    /// The file's bytes (its first byte view).
    #[serde(with = "borrowed_bytes")]
    pub bytes: Cow<'a, [u8]>,
    /// Its records; None where it has none (a picture, bytes of no known kind).
    pub records: Option<RecordList>,
    pub placements: Cow<'a, [Placement]>,
    pub scene: Option<Cow<'a, Scene>>,
}

/// A file's records as its inspector lists them (or, for text, only that it is text: its
/// lines are cut from its bytes), with the values each record's bytes were decoded as.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordList {
    /// The records are the text's lines.
    pub lines: bool,
    pub rows: Vec<Record>,
    /// Every record is listed and the parse ended without an error: the records explain the
    /// whole file.
    pub complete: bool,
    /// What each record's bytes were decoded as: (row, type read, value), in the view's order.
    pub fields: Vec<(u32, String, String)>,
}

impl RecordList {
    /// The records of an inspector's view of `len` bytes; None when it lists none.
    pub fn of_view(view: &InspectorView, len: usize) -> Option<RecordList> {
        if is_text(view) {
            return Some(RecordList {
                lines: true,
                ..RecordList::default()
            });
        }
        if view.chunks.is_empty() {
            return None;
        }
        Some(RecordList {
            lines: false,
            rows: view
                .chunks
                .iter()
                .map(|r| Record {
                    tag: r.name.clone(),
                    offset: r.offset,
                    end: r.end.min(len),
                    container: r.container,
                    parent: r.parent,
                    row: Some(r.index),
                })
                .collect(),
            complete: view.chunks.len() >= view.rows_total && view.error.is_none(),
            fields: view
                .fields
                .iter()
                .map(|f| (f.chunk, f.what.clone(), f.value.clone()))
                .collect(),
        })
    }
}

fn is_text(view: &InspectorView) -> bool {
    view.format == "text"
        || (!view.runs.is_empty() && view.runs.iter().all(|r| r.class == ByteClass::Text))
}

impl<'a> Side<'a> {
    /// A document opened to be shown (its inspector view is read) and its scene, if it has
    /// one.
    pub fn of(described: Described<'a>, scene: Option<&'a Scene>) -> Side<'a> {
        let document = described.document;
        let bytes = document.bytes(0).unwrap_or(&[]);
        let records = document
            .bytes(0)
            .and(described.inspector())
            .and_then(|view| RecordList::of_view(&view, bytes.len()));
        Side {
            kind: KindWords::of(document.kind()),
            kind_word: document.kind_word(),
            bytes: Cow::Borrowed(bytes),
            records,
            placements: Cow::Borrowed(described.placements()),
            scene: scene.map(Cow::Borrowed),
        }
    }

    /// Its scene, if it has one.
    pub fn scene(&self) -> Option<&Scene> {
        self.scene.as_deref()
    }
}

/// Bytes as one raw block in the wire form (a copy each way, not a number at a time).
mod borrowed_bytes {
    use serde::{Deserializer, Serializer};
    use std::borrow::Cow;

    // (serde's `with` hands over the field as it is: a `&Cow`.)
    #[allow(clippy::ptr_arg)]
    pub fn serialize<S: Serializer>(v: &Cow<'_, [u8]>, s: S) -> Result<S::Ok, S::Error> {
        relicview_model::pod_serde::pod_vec::serialize(v, s)
    }
    pub fn deserialize<'de, 'a, D: Deserializer<'de>>(d: D) -> Result<Cow<'a, [u8]>, D::Error> {
        relicview_model::pod_serde::pod_vec::deserialize(d).map(Cow::Owned)
    }
}
