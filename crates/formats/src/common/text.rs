//! Text files shown as text: the DIV-VIZ2 / DIV-VMF2 text twins of DIV-BIZ2
//! (docs/formats/text.md). The pods' INI-style MAP / MOD / SUB files are text too, read by
//! `formats::pods::world`.

use crate::charset::decode;
use crate::inspect::{ByteClass, InspectorView};
use crate::kind::{Capabilities, Claim, Format, Head, Kind, Purpose, Sniffed};
use crate::{Diagnostic, Document, InfoRow, ParseError};

pub const VIZ2: Kind = Kind::new("viz2-text");
pub const VMF2: Kind = Kind::new("vmf2-text");
/// A note, a readme: a `.txt` whose first bytes are text.
pub const PLAIN: Kind = Kind::new("plain-text");

pub const FORMATS: &[Format] = &[
    Format {
        kind: VIZ2,
        label: "VIZ2",
        title: "DIV-VIZ2 text geometry",
        caps: Capabilities {
            text: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Content, sniff_viz2)],
        named: &["vgf"],
        claims: &[Claim {
            extensions: &["vgf"],
            what: "DIV-VIZ2 text geometry",
            starts_with: Some("DIV-VIZ2"),
        }],
        refers_to: &[],
        open,
    },
    Format {
        kind: VMF2,
        label: "VMF2",
        title: "DIV-VMF2 text materials",
        caps: Capabilities {
            text: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Content, sniff_vmf2)],
        named: &["vmf"],
        claims: &[Claim {
            extensions: &["vmf"],
            what: "DIV-VMF2 text materials",
            starts_with: Some("DIV-VMF2"),
        }],
        refers_to: &[],
        open,
    },
    Format {
        kind: PLAIN,
        label: "TXT",
        title: "text",
        caps: Capabilities {
            text: true,
            ..Capabilities::NONE
        },
        sniffs: &[(Sniffed::Name, sniff_plain)],
        named: &["txt"],
        claims: &[],
        refers_to: &[],
        open,
    },
];

/// Named `.txt`, and its first bytes text (no zero byte): a binary file so named stays
/// unknown and is shown as bytes.
pub fn sniff_plain(h: &Head) -> bool {
    h.ext == "txt" && crate::charset::looks_like_text(h.bytes) && !h.bytes.contains(&0)
}

pub fn sniff_viz2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VIZ2")
}
pub fn sniff_vmf2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VMF2")
}

pub struct TextDocument {
    kind: Kind,
    bytes: Vec<u8>,
    text: String,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
    lines: usize,
}

pub fn open(_path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let text = decode(&bytes);
    let inspector = purpose
        .describes()
        .then(|| InspectorView::flat("text", bytes.len(), ByteClass::Text));
    let lines = text.lines().count();
    Box::new(TextDocument {
        kind,
        bytes,
        text,
        error: None,
        diagnostics: Vec::new(),
        inspector,
        lines,
    })
}

impl Document for TextDocument {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn text(&self) -> Option<&str> {
        self.error.is_none().then_some(&self.text[..])
    }
}

impl crate::Describe for TextDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(TextInfo {
            format: "text",
            kind: self.kind,
            bytes: self.bytes.len(),
            lines: self.lines,
        })
    }
}

/// What `info` says of a text file: its kind, size and lines.
#[derive(serde::Serialize)]
struct TextInfo {
    format: &'static str,
    kind: Kind,
    bytes: usize,
    lines: usize,
}

impl crate::Summary for TextInfo {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new("bytes", format!("{} · {} lines", self.bytes, self.lines)),
        ];
        if self.kind == VIZ2 || self.kind == VMF2 {
            rows.push(InfoRow::new(
                "reader",
                "the text twin of DIV-BIZ2: shown as text, not parsed into a model yet",
            ));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_twin_is_text_and_never_an_error() {
        let doc = open(
            "BOX.VGF",
            b"DIV-VIZ2\nHEADER {\n}\n".to_vec(),
            crate::common::text::VIZ2,
            Purpose::Show,
        );
        assert!(doc.error().is_none());
        assert_eq!(doc.text().unwrap().lines().count(), 3);
        assert_eq!(
            doc.inspector(crate::Found::NOTHING).unwrap().runs[0].class,
            ByteClass::Text
        );
    }
}
