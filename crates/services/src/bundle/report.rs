//! `report.json`: what an export of a whole archive wrote, skipped and failed, and every
//! name it gave that is not the one asked for.

use super::names::Renamed;
use serde::Serialize;

/// The report's own name in the output.
pub const REPORT_NAME: &str = "report.json";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Written {
    /// The archive file it came from.
    pub path: String,
    /// Its name in the output.
    pub file: String,
    pub bytes: usize,
    /// Exported despite damage where the file ends: what comes before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failed {
    pub path: String,
    pub error: String,
    /// Where in the file it went wrong, when it did not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// The archive exported.
    pub source: String,
    /// Files of the archive looked at.
    pub files: usize,
    /// Bytes written (the report aside).
    pub bytes: u64,
    pub written: Vec<Written>,
    pub skipped: Vec<Skipped>,
    pub failed: Vec<Failed>,
    pub renamed: Vec<Renamed>,
}
