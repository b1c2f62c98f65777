//! A file's records as the diff sees them: the leaves and containers of its inspector rows,
//! or the lines of a text file, each with its byte range and its place in the tree.

use super::side::{Record, Side};

/// A file's records with each one's children, in file order.
pub(super) struct Records<'a> {
    pub bytes: &'a [u8],
    pub list: Vec<Record>,
    pub roots: Vec<u32>,
    pub children: Vec<Vec<u32>>,
    /// Where the records stop explaining the file: bytes from here on compare as bytes.
    pub parsed_to: usize,
    /// Lines, not rows: paths are "line N".
    pub lines: bool,
}

impl<'a> Records<'a> {
    pub fn new(bytes: &'a [u8], list: Vec<Record>, parsed_to: usize, lines: bool) -> Records<'a> {
        let mut children = vec![Vec::new(); list.len()];
        let mut roots = Vec::new();
        for (i, r) in list.iter().enumerate() {
            match r.parent.filter(|&p| (p as usize) < i) {
                Some(p) => children[p as usize].push(i as u32),
                None => roots.push(i as u32),
            }
        }
        Records {
            bytes,
            list,
            roots,
            children,
            parsed_to,
            lines,
        }
    }

    /// A text file's lines, each without its line ending, all of one tag.
    pub fn of_lines(bytes: &'a [u8]) -> Records<'a> {
        let mut list = Vec::new();
        let mut start = 0;
        while start < bytes.len() {
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| start + n);
            let text_end = if end > start && bytes[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            list.push(Record {
                tag: "line".into(),
                offset: start,
                end: text_end,
                container: false,
                parent: None,
                row: None,
            });
            start = end + 1;
        }
        Records::new(bytes, list, bytes.len(), true)
    }

    /// A side's records: its lines when it is text, its inspector rows otherwise; None
    /// when it has neither (an image, bytes of no known kind). Rows past the view's limit
    /// are not listed: the bytes after the last listed one compare as bytes.
    pub fn of_side(side: &'a Side<'_>) -> Option<Records<'a>> {
        let listed = side.records.as_ref()?;
        let bytes: &'a [u8] = &side.bytes;
        if listed.lines {
            return Some(Records::of_lines(bytes));
        }
        let list = listed.rows.clone();
        let parsed_to = if listed.complete {
            bytes.len()
        } else {
            list.iter()
                .filter(|r| r.parent.is_none())
                .map(|r| r.end)
                .max()
                .unwrap_or(0)
        };
        Some(Records::new(bytes, list, parsed_to, false))
    }

    pub fn content(&self, i: u32) -> &'a [u8] {
        let r = &self.list[i as usize];
        &self.bytes[r.offset.min(r.end)..r.end]
    }

    /// What the page calls record `i`: its inspector row, or for text its line (from 0).
    pub fn id(&self, i: u32) -> u32 {
        self.list[i as usize].row.unwrap_or(i)
    }

    /// `OBJECT[0]/PATCH[1]/SV_FACETED[0]`: each step its tag and its place among the
    /// siblings of that tag; for lines, `line N`.
    pub fn path(&self, i: u32) -> String {
        if self.lines {
            return format!("line {}", i + 1);
        }
        let mut steps = Vec::new();
        let mut at = Some(i);
        while let Some(i) = at {
            let r = &self.list[i as usize];
            let siblings = match r.parent {
                Some(p) => &self.children[p as usize],
                None => &self.roots,
            };
            let ordinal = siblings
                .iter()
                .take_while(|&&s| s != i)
                .filter(|&&s| self.list[s as usize].tag == r.tag)
                .count();
            steps.push(format!("{}[{ordinal}]", r.tag));
            at = r.parent;
        }
        steps.reverse();
        steps.join("/")
    }

    /// Every leaf at or under `i`.
    pub fn leaves(&self, i: u32, out: &mut Vec<u32>) {
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            let kids = &self.children[i as usize];
            if kids.is_empty() {
                out.push(i);
            } else {
                stack.extend(kids.iter().rev());
            }
        }
    }

    /// `i` and everything under it, in file order, each with its depth below `i`.
    pub fn subtree(&self, i: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut stack = vec![(i, 0u32)];
        while let Some((i, d)) = stack.pop() {
            out.push((i, d));
            stack.extend(self.children[i as usize].iter().rev().map(|&c| (c, d + 1)));
        }
        out
    }
}

/// What a sibling is matched by: its tag, and a leaf's bytes.
#[derive(Hash, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Key<'a> {
    tag: &'a str,
    content: Option<&'a [u8]>,
}

pub(super) fn keys<'a>(r: &'a Records<'_>, ids: &[u32]) -> Vec<Key<'a>> {
    ids.iter()
        .map(|&i| {
            let rec = &r.list[i as usize];
            Key {
                tag: &rec.tag,
                content: (!rec.container).then(|| r.content(i)),
            }
        })
        .collect()
}
