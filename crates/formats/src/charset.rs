//! What text looks like in these old files, and how it is decoded for the page: shared by
//! every format that reads text or tells text from bytes.

/// Whether bytes look like DOS-era text as the pods' INI files are: printable ASCII and
/// Latin-1 letters, tabs, line breaks, form feeds and the DOS end-of-file mark (0x1A).
pub fn looks_like_dos_text(head: &[u8]) -> bool {
    !head.is_empty()
        && head.iter().all(|&b| {
            matches!(b, b'\t' | b'\r' | b'\n' | 0x0C | 0x1A)
                || (0x20..0x7f).contains(&b)
                || b >= 0xA0
        })
}

/// Whether the first bytes look like DOS-era text: printable ASCII, tabs and line breaks.
pub fn looks_like_text(head: &[u8]) -> bool {
    !head.is_empty()
        && head
            .iter()
            .all(|&b| b == b'\t' || b == b'\r' || b == b'\n' || (0x20..0x7f).contains(&b))
}

/// Text as the page shows it: UTF-8 when it is, else Latin-1 (DOS-era files).
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}
