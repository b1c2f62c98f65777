//! One module per file format. Each has a raw layer that borrows the bytes and records every
//! chunk with its offset, and a model layer built from it.

pub mod biz2;
pub mod ini;

use serde::Serialize;

/// A fatal error in a file: where it happened and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("at byte {offset}{}: {message}", if path.is_empty() { String::new() } else { format!(" ({path})") })]
pub struct ParseError {
    /// Byte offset in the file.
    pub offset: usize,
    /// Chunk path such as `OBJECT[0]/LOD[1]/PATCH[3]/PMESH[0]`; empty at the top level.
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
