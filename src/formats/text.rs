//! Text files shown as text: the DIV-VIZ2 / DIV-VMF2 text twins of DIV-BIZ2, and the pods'
//! INI-style MAP / MOD / SUB files (docs/formats/text.md). For the INI kinds the inspector
//! lists sections and keys with their byte ranges, and the files they refer to join the
//! archive's reference graph.

use super::ini::IniFile;
use super::registry::{Head, Kind, Purpose};
use super::{Diagnostic, Document, InfoRow, ParseError, Reference};
use crate::inspect::{ByteClass, Field, InspectorView, Row, MAX_ROWS};

pub fn sniff_viz2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VIZ2")
}
pub fn sniff_vmf2(h: &Head) -> bool {
    h.bytes.starts_with(b"DIV-VMF2")
}

/// Whether the first bytes look like DOS-era text: printable ASCII, tabs and line breaks.
pub fn looks_like_text(head: &[u8]) -> bool {
    !head.is_empty() && head.iter().all(|&b| b == b'\t' || b == b'\r' || b == b'\n' || (0x20..0x7f).contains(&b))
}

pub fn sniff_map(h: &Head) -> bool {
    h.ext == "map" && looks_like_text(h.bytes)
}
pub fn sniff_mod(h: &Head) -> bool {
    h.ext == "mod" && looks_like_text(h.bytes)
}
pub fn sniff_sub(h: &Head) -> bool {
    h.ext == "sub" && looks_like_text(h.bytes)
}

/// Text as the page shows it: UTF-8 when it is, else Latin-1 (DOS-era files).
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

/// Byte offset of the start of every line (1-based line n starts at `starts[n - 1]`).
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    std::iter::once(0).chain(bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1)).filter(|&s| s < bytes.len()).collect()
}

pub struct TextDocument {
    kind: Kind,
    bytes: Vec<u8>,
    text: String,
    ini: Option<IniFile>,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
    lines: usize,
}

pub fn open(_path: &str, bytes: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let ini_kind = matches!(kind, Kind::Map | Kind::Mod | Kind::Sub);
    let (ini, error) = match IniFile::parse(&bytes) {
        Err(e) => (None, Some(ParseError::new(0, "", e))),
        Ok(f) if ini_kind => (Some(f), None),
        Ok(_) => (None, None),
    };
    let text = if error.is_some() { String::new() } else { decode(&bytes) };
    let starts = line_starts(&bytes);
    let offset_of_line = |line: usize| starts.get(line.saturating_sub(1)).copied().unwrap_or(bytes.len());
    let diagnostics: Vec<Diagnostic> = ini
        .iter()
        .flat_map(|f| &f.stray_lines)
        .take(crate::inspect::MAX_DIAGNOSTICS)
        .map(|(line, _)| Diagnostic { offset: offset_of_line(*line), path: format!("line {line}"), message: "expected a [section], a key=value line or a comment".into() })
        .collect();
    let inspector = (purpose == Purpose::Show).then(|| {
        let mut view = InspectorView::flat("text", bytes.len(), ByteClass::Text);
        if let Some(f) = &ini {
            let line_end = |line: usize| starts.get(line).copied().unwrap_or(bytes.len());
            view.rows_total = f.sections.iter().map(|s| 1 + s.entries.len()).sum();
            for (k, s) in f.sections.iter().enumerate() {
                if view.chunks.len() >= MAX_ROWS {
                    break;
                }
                let section = view.chunks.len() as u32;
                let start = offset_of_line(s.line);
                let end = f.sections.get(k + 1).map_or(bytes.len(), |n| offset_of_line(n.line));
                view.chunks.push(Row {
                    index: section,
                    offset: start,
                    payload_offset: line_end(s.line),
                    end,
                    depth: 0,
                    parent: None,
                    container: true,
                    name: format!("[{}]", s.name),
                    label: format!("[{}] line {}", s.name, s.line),
                    detail: format!("section {} on line {}, {} keys", s.name, s.line, s.entries.len()),
                    summary: format!("{} keys", s.entries.len()),
                    flags: Vec::new(),
                });
                for e in s.entries.iter().take(MAX_ROWS - view.chunks.len()) {
                    let row = view.chunks.len() as u32;
                    let (start, end) = (offset_of_line(e.line), line_end(e.line));
                    let line = &bytes[start..end];
                    // The value's bytes: after the first '=', spaces skipped.
                    let eq = line.iter().position(|&b| b == b'=').map_or(0, |p| p + 1);
                    let skip = line[eq..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
                    let value_at = start + eq + skip;
                    view.fields.push(Field { chunk: row, offset: value_at, len: e.value.len().min(end - value_at), what: format!("value of {}", e.key), value: format!("{:?}", e.value) });
                    view.chunks.push(Row {
                        index: row,
                        offset: start,
                        payload_offset: value_at,
                        end,
                        depth: 1,
                        parent: Some(section),
                        container: false,
                        name: e.key.clone(),
                        label: format!("{} line {}", e.key, e.line),
                        detail: format!("{} = {} (line {})", e.key, e.value, e.line),
                        summary: e.value.clone(),
                        flags: Vec::new(),
                    });
                }
            }
        }
        view.diagnostics = diagnostics.clone();
        view.error = error.clone();
        view
    });
    let lines = text.lines().count();
    Box::new(TextDocument { kind, bytes, text, ini, error, diagnostics, inspector, lines })
}

/// The file name a reference token names (MOD and MAP files write bare names).
fn base(token: &str) -> String {
    token.rsplit(['/', '\\', ':']).next().unwrap_or(token).to_string()
}

impl Document for TextDocument {
    crate::formats::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        (view == 0).then_some(&self.bytes[..])
    }
    fn text(&self) -> Option<&str> {
        self.error.is_none().then_some(&self.text[..])
    }
    fn references(&self) -> Vec<Reference> {
        let Some(ini) = &self.ini else { return Vec::new() };
        let mut out: Vec<Reference> = Vec::new();
        let mut push = |role: &'static str, written: String| {
            if !out.iter().any(|r| r.written.eq_ignore_ascii_case(&written)) {
                out.push(Reference { role, names: vec![base(&written)], written, item: None });
            }
        };
        match self.kind {
            Kind::Mod => ini.mod_video_objects().into_iter().for_each(|(name, _)| push("model", name)),
            Kind::Map => ini.map_model_files().into_iter().for_each(|(name, _)| push("game object", name)),
            _ => {}
        }
        out
    }
    fn info_rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![InfoRow::new("format", self.kind.title()), InfoRow::new("bytes", format!("{} · {} lines", self.bytes.len(), self.lines))];
        if let Some(ini) = &self.ini {
            rows.push(InfoRow::new("sections", ini.sections.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")));
            for r in self.references() {
                rows.push(InfoRow::new(format!("refers to {}", r.role), r.written));
            }
        }
        if self.kind == Kind::Viz2Text || self.kind == Kind::Vmf2Text {
            rows.push(InfoRow::new("reader", "the text twin of DIV-BIZ2: shown as text, not parsed into a model yet"));
        }
        for d in &self.diagnostics {
            rows.push(InfoRow::warning(format!("warning @{}", d.offset), format!("{}: {}", d.path, d.message)));
        }
        rows
    }
    fn info_json(&self) -> String {
        serde_json::json!({
            "format": "text",
            "kind": self.kind,
            "bytes": self.bytes.len(),
            "lines": self.lines,
            "sections": self.ini.as_ref().map(|f| f.sections.iter().map(|s| &s.name).collect::<Vec<_>>()),
            "references": self.references(),
            "diagnostics": self.diagnostics,
            "error": self.error,
        }).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_sections_and_keys_are_rows_with_their_bytes() {
        let bytes = b"; pod\r\n[video]\r\nobject= rb3.bgf rb3l.bgf\r\n\r\n[gamedata]\r\nclass=X\r\nstray\r\n".to_vec();
        let doc = open("RB3.MOD", bytes.clone(), Kind::Mod, Purpose::Show);
        let view = doc.inspector().unwrap();
        let names: Vec<&str> = view.chunks.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["[video]", "object", "[gamedata]", "class"]);
        let video = &view.chunks[0];
        assert_eq!((video.offset, &bytes[video.offset..video.offset + 7]), (7, &b"[video]"[..]));
        let f = &view.fields[0];
        assert_eq!(&bytes[f.offset..f.offset + f.len], b"rb3.bgf rb3l.bgf");
        assert_eq!(view.runs.iter().map(|r| r.len).sum::<usize>(), bytes.len());
        let d = doc.diagnostics();
        assert_eq!((d.len(), &bytes[d[0].offset..d[0].offset + 5]), (1, &b"stray"[..]));
        let refs = doc.references();
        assert_eq!(refs.iter().map(|r| r.written.as_str()).collect::<Vec<_>>(), vec!["rb3.bgf", "rb3l.bgf"]);
        assert_eq!(doc.text().unwrap(), String::from_utf8(bytes).unwrap());
    }

    #[test]
    fn a_text_twin_is_text_and_never_an_error() {
        let doc = open("BOX.VGF", b"DIV-VIZ2\nHEADER {\n}\n".to_vec(), Kind::Viz2Text, Purpose::Show);
        assert!(doc.error().is_none());
        assert_eq!(doc.text().unwrap().lines().count(), 3);
        assert_eq!(doc.inspector().unwrap().runs[0].class, ByteClass::Text);
    }
}
