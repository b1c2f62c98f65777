//! Text files shown as text: the DIV-VIZ2 / DIV-VMF2 text twins of DIV-BIZ2
//! (docs/formats/text.md). The pods' INI-style MAP / MOD / SUB files are text too, read by
//! `formats::world`.

use super::kind::{Head, Kind, Purpose};
use super::{Diagnostic, Document, InfoRow, ParseError};
use crate::inspect::{ByteClass, InspectorView};

pub fn sniff_viz2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VIZ2")
}
pub fn sniff_vmf2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VMF2")
}

/// Whether bytes look like DOS-era text as the pods' INI files are: printable ASCII and
/// Latin-1 letters, tabs, line breaks, form feeds and the DOS end-of-file mark (0x1A).
pub fn looks_like_dos_text(head: &[u8]) -> bool {
    !head.is_empty() && head.iter().all(|&b| matches!(b, b'\t' | b'\r' | b'\n' | 0x0C | 0x1A) || (0x20..0x7f).contains(&b) || b >= 0xA0)
}

/// Whether the first bytes look like DOS-era text: printable ASCII, tabs and line breaks.
pub fn looks_like_text(head: &[u8]) -> bool {
    !head.is_empty() && head.iter().all(|&b| b == b'\t' || b == b'\r' || b == b'\n' || (0x20..0x7f).contains(&b))
}

/// Text as the page shows it: UTF-8 when it is, else Latin-1 (DOS-era files).
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
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
    let inspector = (purpose == Purpose::Show).then(|| InspectorView::flat("text", bytes.len(), ByteClass::Text));
    let lines = text.lines().count();
    Box::new(TextDocument { kind, bytes, text, error: None, diagnostics: Vec::new(), inspector, lines })
}

impl Document for TextDocument {
    crate::formats::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn text(&self) -> Option<&str> {
        self.error.is_none().then_some(&self.text[..])
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![InfoRow::new("format", self.kind.title()), InfoRow::new("bytes", format!("{} · {} lines", self.bytes.len(), self.lines))];
        if self.kind == Kind::Viz2Text || self.kind == Kind::Vmf2Text {
            rows.push(InfoRow::new("reader", "the text twin of DIV-BIZ2: shown as text, not parsed into a model yet"));
        }
        rows
    }
    fn info_json(&self) -> String {
        let fields = serde_json::json!({
            "format": "text",
            "kind": self.kind,
            "bytes": self.bytes.len(),
            "lines": self.lines,
        });
        crate::formats::summary_json(fields, self.error.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_twin_is_text_and_never_an_error() {
        let doc = open("BOX.VGF", b"DIV-VIZ2\nHEADER {\n}\n".to_vec(), Kind::Viz2Text, Purpose::Show);
        assert!(doc.error().is_none());
        assert_eq!(doc.text().unwrap().lines().count(), 3);
        assert_eq!(doc.inspector().unwrap().runs[0].class, ByteClass::Text);
    }
}
