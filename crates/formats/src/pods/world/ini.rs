//! The raw layer of the pods' INI-style files (.MAP, .MOD, .SUB): every section and every
//! `key=value` line with the byte ranges of its parts, borrowed from the file's bytes, so
//! the inspector can link each value to its bytes (docs/formats/worlds.md, "Text").
//!
//! Lines end in LF or CRLF. Comments run from `//` or `;` to the end of the line. Text is
//! read as Latin-1, as the DOS-era files were written. A line that starts with `[LAB_ONLY]`
//! marks what follows on it as unreleased content; a `[LAB_ONLY]` line of its own marks the
//! lines after it, up to the next section, the same way.

use std::borrow::Cow;
use std::ops::Range;

/// Larger text files are refused: the pods' biggest MAP is a few hundred KB.
pub const MAX_BYTES: usize = 16 << 20;

/// The marker of unreleased content.
pub const LAB_ONLY: &str = "[LAB_ONLY]";

/// A run of bytes in the file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    pub fn end(&self) -> usize {
        (self.start + self.len) as usize
    }
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end()
    }
}

/// `[name]` and the lines up to the next section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: Span,
    /// 1-based line of the header.
    pub line: u32,
    /// Offset of the header line and of the line after it.
    pub start: u32,
    pub header_end: u32,
    /// Where the next section starts (or the file ends).
    pub end: u32,
    /// Its entries, as indices into [`IniFile::entries`].
    pub entries: Range<u32>,
    pub lab_only: bool,
}

/// One `key=value` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub section: u32,
    pub line: u32,
    /// The whole line, without its line break.
    pub start: u32,
    pub end: u32,
    /// Key and value, trimmed (the value stops at a comment).
    pub key: Span,
    pub value: Span,
    pub lab_only: bool,
}

/// A line that is neither a section, a `key=value`, a comment nor blank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrayLine {
    pub line: u32,
    pub start: u32,
    pub end: u32,
    /// It is a `key=value` line before the first section.
    pub before_sections: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IniFile<'a> {
    pub bytes: &'a [u8],
    pub sections: Vec<Section>,
    pub entries: Vec<Entry>,
    /// The first [`crate::inspect::MAX_DIAGNOSTICS`] stray lines; `stray_dropped` counts the rest.
    pub stray: Vec<StrayLine>,
    pub stray_dropped: usize,
    pub lines: u32,
}

/// Latin-1 text of `bytes` (borrowed when it is ASCII).
pub fn latin1(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii() {
        Cow::Borrowed(std::str::from_utf8(bytes).expect("ASCII is UTF-8"))
    } else {
        Cow::Owned(bytes.iter().map(|&b| b as char).collect())
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// The part of `line[from..to]` without surrounding blanks, as a span of the file.
fn trimmed(bytes: &[u8], from: usize, to: usize) -> Span {
    let mut a = from;
    let mut b = to;
    while a < b && is_space(bytes[a]) {
        a += 1;
    }
    while b > a && is_space(bytes[b - 1]) {
        b -= 1;
    }
    Span {
        start: a as u32,
        len: (b - a) as u32,
    }
}

/// Where a comment (`//` or `;`) starts in `line`, if one does.
fn comment_at(line: &[u8]) -> Option<usize> {
    let semi = line.iter().position(|&b| b == b';');
    let slashes = line.windows(2).position(|w| w == b"//");
    match (semi, slashes) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Where a line of the file lies: its number (from 1), its start, its end before any
/// `\r\n`, and where the next line starts.
#[derive(Clone, Copy)]
struct LineAt {
    number: u32,
    start: usize,
    raw_end: usize,
    next: usize,
}

impl<'a> IniFile<'a> {
    /// Read every line. Never fails but for size: anything that is not a section, an entry,
    /// a comment or blank is a stray line.
    pub fn parse(bytes: &'a [u8]) -> Result<IniFile<'a>, String> {
        if bytes.len() > MAX_BYTES {
            return Err(format!(
                "{} bytes is larger than the {MAX_BYTES}-byte limit for text files",
                bytes.len()
            ));
        }
        let mut file = IniFile {
            bytes,
            sections: Vec::new(),
            entries: Vec::new(),
            stray: Vec::new(),
            stray_dropped: 0,
            lines: 0,
        };
        // A bare [LAB_ONLY] line marks the rest of its section.
        let mut lab_section = false;
        let mut start = 0usize;
        let mut line = 0u32;
        while start < bytes.len() {
            line += 1;
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |i| start + i);
            let next = (end + 1).min(bytes.len());
            let raw_end = if end > start && bytes[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            let text = &bytes[start..raw_end];
            let body_end = start + comment_at(text).unwrap_or(text.len());
            let mut body = trimmed(bytes, start, body_end);
            let mut lab = false;
            if bytes[body.range()].len() >= LAB_ONLY.len()
                && bytes[body.range()][..LAB_ONLY.len()].eq_ignore_ascii_case(LAB_ONLY.as_bytes())
            {
                lab = true;
                body = trimmed(bytes, body.start as usize + LAB_ONLY.len(), body.end());
                if body.len == 0 {
                    lab_section = true;
                    start = next;
                    continue;
                }
            }
            file.read_line(
                LineAt {
                    number: line,
                    start,
                    raw_end,
                    next,
                },
                body,
                lab,
                &mut lab_section,
            );
            start = next;
        }
        file.lines = line;
        Ok(file)
    }

    /// A line's body (`body`, its comment and a leading LAB_ONLY left out: `lab`) read as a
    /// section header, an entry or a stray line; `lab_section` says whether a bare
    /// [LAB_ONLY] line marked the rest of the section.
    fn read_line(&mut self, at: LineAt, body: Span, lab: bool, lab_section: &mut bool) {
        let bytes = self.bytes;
        let b = &bytes[body.range()];
        if b.is_empty() {
            return;
        }
        if b[0] == b'[' && b[b.len() - 1] == b']' {
            if let Some(last) = self.sections.last_mut() {
                last.end = at.start as u32;
            }
            *lab_section = false;
            let first = self.entries.len() as u32;
            self.sections.push(Section {
                name: trimmed(self.bytes, body.start as usize + 1, body.end() - 1),
                line: at.number,
                start: at.start as u32,
                header_end: at.next as u32,
                end: self.bytes.len() as u32,
                entries: first..first,
                lab_only: lab,
            });
        } else if let (Some(eq), false) =
            (b.iter().position(|&c| c == b'='), self.sections.is_empty())
        {
            let eq = body.start as usize + eq;
            let section = self.sections.len() as u32 - 1;
            let s = self.sections.last_mut().expect("not empty");
            self.entries.push(Entry {
                section,
                line: at.number,
                start: at.start as u32,
                end: at.raw_end as u32,
                key: trimmed(self.bytes, body.start as usize, eq),
                value: trimmed(self.bytes, eq + 1, body.end()),
                lab_only: lab || *lab_section || s.lab_only,
            });
            s.entries.end = self.entries.len() as u32;
        } else if self.stray.len() < crate::inspect::MAX_DIAGNOSTICS {
            self.stray.push(StrayLine {
                line: at.number,
                start: at.start as u32,
                end: at.raw_end as u32,
                before_sections: b.contains(&b'='),
            });
        } else {
            self.stray_dropped += 1;
        }
    }

    pub fn text(&self, span: Span) -> Cow<'a, str> {
        latin1(&self.bytes[span.range()])
    }

    pub fn name(&self, s: &Section) -> Cow<'a, str> {
        self.text(s.name)
    }

    pub fn entries_of(&self, s: &Section) -> &[Entry] {
        &self.entries[s.entries.start as usize..s.entries.end as usize]
    }

    pub fn key_is(&self, e: &Entry, key: &str) -> bool {
        self.bytes[e.key.range()].eq_ignore_ascii_case(key.as_bytes())
    }

    /// Entries of `s` whose key is `key` (without regard to case), in file order.
    pub fn values<'s>(
        &'s self,
        s: &'s Section,
        key: &'s str,
    ) -> impl Iterator<Item = &'s Entry> + 's {
        self.entries_of(s)
            .iter()
            .filter(move |e| self.key_is(e, key))
    }

    /// The first value of `key` in `s`.
    pub fn value(&self, s: &Section, key: &str) -> Option<(Cow<'a, str>, Entry)> {
        self.values(s, key).next().map(|e| (self.text(e.value), *e))
    }

    pub fn sections_named<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s Section> + 's {
        self.sections
            .iter()
            .filter(move |s| self.bytes[s.name.range()].eq_ignore_ascii_case(name.as_bytes()))
    }

    /// The 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        1 + self.bytes[..offset.min(self.bytes.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keys_values_and_their_bytes() {
        let text = b"; a mech\r\n[video]\r\nobject=rb3.bgf rb3l.bgf  // low twin\r\n\r\n[gamedata]\r\nclass = Unscalable ; trailing\r\nstray\r\n";
        let f = IniFile::parse(text).unwrap();
        assert_eq!(f.sections.len(), 2);
        assert_eq!(f.name(&f.sections[0]), "video");
        assert_eq!(f.sections[0].start, 10);
        assert_eq!(f.sections[0].end, f.sections[1].start);
        let e = f.entries[1];
        assert_eq!(
            (f.text(e.key), f.text(e.value), e.line, e.section),
            ("class".into(), "Unscalable".into(), 6, 1)
        );
        assert_eq!(&text[e.value.range()], b"Unscalable");
        assert_eq!(f.text(f.entries[0].value), "rb3.bgf rb3l.bgf");
        assert_eq!(
            f.stray,
            vec![StrayLine {
                line: 7,
                start: 102,
                end: 107,
                before_sections: false
            }]
        );
        assert_eq!(&text[102..107], b"stray");
        assert_eq!(f.lines, 7);
        assert_eq!(f.line_of(102), 7);
    }

    #[test]
    fn latin1_lf_lab_only_and_oversize() {
        let f = IniFile::parse(b"[caf\xe9]\nk=v\n[LAB_ONLY][secret]\nx=1\n[map]\na=1\n[LAB_ONLY] b=2\n[LAB_ONLY]\nc=3\n[next]\nd=4").unwrap();
        assert_eq!(f.name(&f.sections[0]), "caf\u{e9}");
        assert!(!f.sections[0].lab_only);
        assert_eq!(f.name(&f.sections[1]), "secret");
        assert!(f.sections[1].lab_only && f.entries[1].lab_only);
        let lab: Vec<(String, bool)> = f
            .entries
            .iter()
            .map(|e| (f.text(e.key).into_owned(), e.lab_only))
            .collect();
        assert_eq!(
            lab,
            [
                ("k", false),
                ("x", true),
                ("a", false),
                ("b", true),
                ("c", true),
                ("d", false)
            ]
            .map(|(k, l)| (k.to_string(), l))
        );
        assert!(IniFile::parse(&vec![b' '; MAX_BYTES + 1]).is_err());
    }

    #[test]
    fn entries_before_any_section_are_stray() {
        let f = IniFile::parse(b"type=map\n[a]\n").unwrap();
        assert!(f.stray[0].before_sections);
        assert!(f.entries.is_empty());
    }
}
