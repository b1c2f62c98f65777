//! Findings about a file, the leaf every layer may use: the error that stops a file
//! ([`ParseError`]), the findings that do not ([`Diagnostic`], kept by [`Diagnostics`] up to
//! a cap and counted past it), and how serious an info row is ([`Severity`]).

use serde::Serialize;

/// A fatal error in a file: where it happened and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("at byte {offset}{}: {message}", if path.is_empty() { String::new() } else { format!(" ({path})") })]
pub struct ParseError {
    /// Byte offset in the file.
    pub offset: usize,
    /// Record path such as `OBJECT[0]/LOD[1]/PATCH[3]/PMESH[0]`; empty at the top level.
    pub path: String,
    pub message: String,
}

impl ParseError {
    pub fn new(offset: usize, path: &str, message: impl Into<String>) -> Self {
        ParseError { offset, path: path.to_string(), message: message.into() }
    }
}

/// A non-fatal finding: the file still loads, but this part was skipped or suspicious.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub offset: usize,
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Normal,
    /// Something is missing or drawn as a stand-in.
    Warning,
}

/// Most diagnostics a file keeps; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 500;

/// Collects diagnostics up to [`MAX_DIAGNOSTICS`] and counts the rest, so a hostile file of
/// a million bad records costs a counter, not a million messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics {
    pub kept: Vec<Diagnostic>,
    pub dropped: usize,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(d);
        } else {
            self.dropped += 1;
        }
    }
    /// Whether another diagnostic would still be kept (callers skip building its message).
    pub fn has_room(&self) -> bool {
        self.kept.len() < MAX_DIAGNOSTICS
    }
    pub fn total(&self) -> usize {
        self.kept.len() + self.dropped
    }
}
