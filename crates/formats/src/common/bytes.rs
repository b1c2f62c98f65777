//! Files relicview has no reader for (yet): shown as bytes, or as text when they are text.
//! Never an error: a file that is not a model is simply not a model.

use crate::charset::{decode, looks_like_text};
use crate::inspect::{ByteClass, InspectorView};
use crate::kind::{Kind, Purpose};
use crate::{Document, InfoRow};
use std::any::Any;

/// Larger files are shown as bytes only, never decoded into text for the page.
const MAX_TEXT: usize = 16 << 20;

pub struct BytesDocument {
    kind: Kind,
    bytes: Vec<u8>,
    text: Option<String>,
    inspector: Option<InspectorView>,
}

pub fn open(_path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let is_text = kind == Kind::UNKNOWN
        && bytes.len() <= MAX_TEXT
        && looks_like_text(&bytes[..bytes.len().min(4096)])
        && !bytes.contains(&0);
    let text = is_text.then(|| decode(&bytes));
    let inspector = purpose.describes().then(|| {
        InspectorView::flat(
            "bytes",
            bytes.len(),
            if is_text {
                ByteClass::Text
            } else {
                ByteClass::Unclaimed
            },
        )
    });
    Box::new(BytesDocument {
        kind,
        bytes,
        text,
        inspector,
    })
}

impl Document for BytesDocument {
    fn kind(&self) -> Kind {
        self.kind
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

impl crate::Describe for BytesDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(BytesInfo {
            format: "bytes",
            kind: self.kind,
            bytes: self.bytes.len(),
            text: self.text.is_some(),
        })
    }
}

/// What `info` says of a file shown as bytes: what it is, how long, whether it reads as text.
#[derive(serde::Serialize)]
struct BytesInfo {
    format: &'static str,
    kind: Kind,
    bytes: usize,
    text: bool,
}

impl crate::Summary for BytesInfo {
    fn rows(&self) -> Vec<InfoRow> {
        let what = match self.kind {
            Kind::UNKNOWN if self.text => "text (not a format relicview reads)".to_string(),
            Kind::UNKNOWN => "unknown (not a format relicview reads): shown as bytes".to_string(),
            k => format!(
                "{}: recognised, its reader is not written yet; shown as bytes",
                k.title()
            ),
        };
        vec![
            InfoRow::new("format", what),
            InfoRow::new("bytes", self.bytes.to_string()),
        ]
    }
}
