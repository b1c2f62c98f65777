//! What `info` says of a file: each format gathers its facts once into one typed value
//! (its summary), which is shown two ways: as the info pane's rows and as the JSON
//! `relicview info --json` prints (docs/adding-a-format.md, step 1).

use crate::findings::{ParseError, Severity};
use serde::Serialize;

/// A file's info, as the describe stage hands it out: the rows and the JSON of one value.
pub trait Info {
    /// The info pane's rows.
    fn rows(&self) -> Vec<InfoRow>;
    /// `info --json`'s text, with the file's `error` added where there is one.
    fn json(&self, error: Option<&ParseError>) -> String;
}

/// A format's summary: its facts as typed fields. What serialises is `info --json`'s
/// object (printed with its keys sorted, so the fields' order does not matter; fields only
/// the rows show are `#[serde(skip)]`); `rows` renders the same value for the info pane.
pub trait Summary: Serialize {
    fn rows(&self) -> Vec<InfoRow>;
}

impl<T: Summary> Info for T {
    fn rows(&self) -> Vec<InfoRow> {
        Summary::rows(self)
    }
    fn json(&self, error: Option<&ParseError>) -> String {
        // Our own structs have string keys, so this cannot fail; if it did, the file's
        // JSON still says so rather than the command failing.
        let fields = serde_json::to_value(self)
            .unwrap_or_else(|e| serde_json::json!({ "summary_error": e.to_string() }));
        summary_json(fields, error)
    }
}

/// The summary `relicview info --json` prints: `fields`, with `"error"` added only when
/// there is one (scripts test `"error" in result`; a successful file has no such key).
pub(crate) fn summary_json(mut fields: serde_json::Value, error: Option<&ParseError>) -> String {
    if let (Some(e), Some(map)) = (error, fields.as_object_mut()) {
        map.insert(
            "error".into(),
            serde_json::json!({ "message": e.to_string(), "offset": e.offset, "path": e.path }),
        );
    }
    fields.to_string()
}

/// One line of the info panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct InfoRow {
    pub label: String,
    pub value: String,
    pub severity: Severity,
    /// A colour the value describes, as CSS `#rrggbb` (the page shows a swatch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swatch: Option<String>,
    /// Archive paths named in the value, in order (the page makes each a link that opens it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub links: Vec<String>,
    /// Pairs of those paths the page offers to compare: where several files answer to one
    /// name, the one taken and each other candidate.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub compare: Vec<[String; 2]>,
}

impl InfoRow {
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> InfoRow {
        InfoRow {
            label: label.into(),
            value: value.into(),
            severity: Severity::Normal,
            swatch: None,
            links: Vec::new(),
            compare: Vec::new(),
        }
    }
    pub fn warning(label: impl Into<String>, value: impl Into<String>) -> InfoRow {
        InfoRow {
            severity: Severity::Warning,
            ..InfoRow::new(label, value)
        }
    }
    /// With a swatch of an RGB colour (0–1 each, as the file stores it; clamped).
    pub fn with_swatch(mut self, rgb: [f32; 3]) -> InfoRow {
        self.swatch = Some(crate::gallery::css_color(rgb));
        self
    }
    pub fn with_links(mut self, links: Vec<String>) -> InfoRow {
        self.links = links;
        self
    }
    /// Where several files answer to one name: `taken` and the `others` are links (in that
    /// order, as the value names them), and each other one can be compared with `taken`.
    pub fn with_candidates(mut self, taken: &str, others: &[String]) -> InfoRow {
        self.links.push(taken.to_string());
        self.links.extend(others.iter().cloned());
        self.compare
            .extend(others.iter().map(|o| [taken.to_string(), o.clone()]));
        self
    }
}
