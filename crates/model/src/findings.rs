//! Findings about a file, the leaf every layer may use: the error that stops a file
//! ([`ParseError`]), the findings that do not ([`Diagnostic`], kept by [`Diagnostics`] up to
//! a cap and counted past it), and how serious an info row is ([`Severity`]).

use serde::Serialize;

/// A fatal error in a file: where it happened and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
        ParseError {
            offset,
            path: path.to_string(),
            message: message.into(),
        }
    }
}

/// A non-fatal finding: the file still loads, but this part was skipped or suspicious.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct Diagnostic {
    pub offset: usize,
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// A finding at `offset`, its message built only when it will be kept (it is counted
    /// either way).
    pub fn add(
        &mut self,
        offset: usize,
        path: impl FnOnce() -> String,
        message: impl FnOnce() -> String,
    ) {
        if self.has_room() {
            self.kept.push(Diagnostic {
                offset,
                path: path(),
                message: message(),
            });
        } else {
            self.dropped += 1;
        }
    }
    /// Another collector's findings after these, its dropped ones counted.
    pub fn merge(&mut self, kept: impl IntoIterator<Item = Diagnostic>, dropped: usize) {
        for d in kept {
            self.push(d);
        }
        self.dropped += dropped;
    }
    /// Whether another diagnostic would still be kept (callers skip building its message,
    /// and count it in `dropped` when there is none).
    pub fn has_room(&self) -> bool {
        self.kept.len() < MAX_DIAGNOSTICS
    }
    pub fn total(&self) -> usize {
        self.kept.len() + self.dropped
    }
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }
}

/// The kept findings, as a list.
impl std::ops::Deref for Diagnostics {
    type Target = [Diagnostic];
    fn deref(&self) -> &[Diagnostic] {
        &self.kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_are_capped_and_counted_however_they_arrive() {
        let mut d = Diagnostics::default();
        for k in 0..(MAX_DIAGNOSTICS + 7) {
            d.push(Diagnostic {
                offset: k,
                path: String::new(),
                message: "x".into(),
            });
        }
        assert_eq!(
            (d.kept.len(), d.dropped, d.total()),
            (MAX_DIAGNOSTICS, 7, MAX_DIAGNOSTICS + 7)
        );
        let mut built = 0;
        d.add(1, String::new, || {
            built += 1;
            "y".into()
        });
        assert_eq!(
            (built, d.dropped),
            (0, 8),
            "a message past the cap is counted, not built"
        );
        let mut merged = Diagnostics::default();
        merged.merge(d.kept.iter().take(3).cloned(), 10);
        merged.merge(d.kept.clone(), d.dropped);
        assert_eq!(
            (merged.kept.len(), merged.total()),
            (MAX_DIAGNOSTICS, 3 + 10 + MAX_DIAGNOSTICS + 8)
        );
    }
}
