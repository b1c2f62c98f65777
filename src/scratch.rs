//! Scratch folders of the crate's own unit tests (the integration tests have tests/common's).

use std::path::PathBuf;

/// A scratch folder `relicview-NAME-…` and its canonical path, removed when the guard is
/// dropped at the test's end, passed or failed.
pub fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let guard = tempfile::Builder::new()
        .prefix(&format!("relicview-{name}-"))
        .tempdir()
        .unwrap();
    let path = guard.path().canonicalize().unwrap();
    (guard, path)
}
