//! The raw layer: every chunk of a DIV-BIZ2 file with its offset, tag word and length,
//! borrowed from the file's bytes. The inspector, hex view and the model layer all read it.
//!
//! Chunks are not stored: they are read again from the bytes when asked for, from a resume
//! mark kept every [`MARK_EVERY`] chunks (its offset and the containers open there). A
//! file of millions of tiny chunks then costs about a byte of index per chunk instead of a
//! record each (docs/formats/biz2.md, "Memory").

use super::tags::{self, Classified};
pub use crate::inspect::{Coverage, Field};
use crate::ParseError;
use serde::Serialize;
use std::collections::HashMap;

/// Magic strings of the binary family. (The text twins DIV-VIZ2 / DIV-VMF2 are not BIZ2.)
pub const MAGIC_GEOMETRY: &[u8; 8] = b"DIV-BIZ2";
pub const MAGIC_MATERIALS: &[u8; 8] = b"DIV-BMF2";

/// Deeper nests than this are refused. The grammar itself nests at most four containers
/// (OBJECT, LOD, PATCH, PMESH) because a structural id its parent cannot hold is kept as a
/// leaf; the bound is a guard that keeps every walk's stack a small fixed array.
pub const MAX_DEPTH: usize = 16;

/// A resume mark is kept before every this many chunks: any chunk is found by reading at
/// most this many chunk headers.
pub const MARK_EVERY: u32 = 32;

/// Offsets are kept in 32 bits; larger files are refused (the CLI's default cap is 512 MB).
pub const MAX_FILE_BYTES: usize = u32::MAX as usize;

/// One chunk, as read from the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// Position in file order (parents before children): the inspector's row number.
    pub index: u32,
    /// Offset of the tag word in the file.
    pub offset: usize,
    pub tag_word: u16,
    /// Resolved id (see [`tags::classify`]).
    pub id: u16,
    /// 1, 2 or 4: the width of the length field.
    pub len_width: u8,
    /// Payload length as stored.
    pub len: u32,
    /// Offset of the first payload byte.
    pub payload_offset: usize,
    pub depth: u16,
    /// Index of the enclosing container.
    pub parent: Option<u32>,
    pub container: bool,
    pub known: bool,
    /// The word lacked the 0x2000 namespace bit and context made it an attribute.
    pub namespace_inferred: bool,
    /// A structural id its parent cannot hold, kept as an opaque leaf.
    pub misplaced: bool,
    /// Its declared payload runs past the end of the file (a file cut short): the payload
    /// is what the file still has.
    pub truncated: bool,
    /// Declared payload bytes the file does not have (0 unless truncated).
    pub missing: u32,
}

impl Chunk {
    /// The chunk's bytes, framing and payload: its inspector row's, and how the scene's
    /// nodes, primitives and runs point at it.
    pub fn bytes(&self) -> crate::scene::RecordBytes {
        [self.offset, self.payload_end()]
    }
    pub fn payload_end(&self) -> usize {
        self.payload_offset + self.payload_len()
    }
    /// Payload bytes the file has: the declared length, or less for a truncated chunk.
    pub fn payload_len(&self) -> usize {
        self.len as usize - self.missing as usize
    }
    pub fn name(&self) -> &'static str {
        tags::name(self.id).unwrap_or("UNKNOWN")
    }
    /// Bit 0x1000 of the tag word, which has no known meaning.
    pub fn bit_0x1000(&self) -> bool {
        self.tag_word & tags::UNKNOWN_BIT != 0
    }
}

/// An open container during a walk.
#[derive(Debug, Clone, Copy, Default)]
struct Open {
    index: u32,
    offset: u32,
    /// One past its payload.
    end: u32,
    id: u16,
}

/// The containers open at a walk's position, innermost last.
#[derive(Debug, Clone, Copy)]
struct Stack {
    items: [Open; MAX_DEPTH],
    len: usize,
}

impl Stack {
    const EMPTY: Stack = Stack {
        items: [Open {
            index: 0,
            offset: 0,
            end: 0,
            id: 0,
        }; MAX_DEPTH],
        len: 0,
    };
    fn top(&self) -> Option<&Open> {
        self.len.checked_sub(1).map(|i| &self.items[i])
    }
    fn push(&mut self, o: Open) {
        self.items[self.len] = o;
        self.len += 1;
    }
    fn pop(&mut self) {
        self.len -= 1;
    }
    fn as_slice(&self) -> &[Open] {
        &self.items[..self.len]
    }
}

/// Where a walk stands: the next chunk's offset and index, and the open containers.
#[derive(Debug, Clone, Copy)]
struct Walk {
    pos: usize,
    index: u32,
    stack: Stack,
}

/// A resume point: the walk before chunk `k · MARK_EVERY`, its open containers stored as
/// (index, offset) pairs in `ChunkTree::mark_stack[stack_at..]`.
#[derive(Debug, Clone, Copy)]
struct Mark {
    pos: u32,
    stack_at: u32,
    depth: u8,
}

/// Figures gathered while walking, so that summaries need no second pass.
#[derive(Debug, Clone)]
pub struct WalkStats {
    /// Chunks per resolved id (ids are below 0x3000).
    per_id: Box<[u32]>,
    /// Chunks by length width: [1-byte, 2-byte, 4-byte].
    pub length_widths: [usize; 3],
    /// Magic, tag words and length fields.
    pub framing: usize,
    /// Payload bytes of known leaves (decoded or unclaimed).
    pub known_payload: usize,
    /// Payload bytes of unknown and misplaced leaves.
    pub opaque_payload: usize,
}

impl Default for WalkStats {
    fn default() -> Self {
        WalkStats {
            per_id: vec![0; 0x3000].into_boxed_slice(),
            length_widths: [0; 3],
            framing: 0,
            known_payload: 0,
            opaque_payload: 0,
        }
    }
}

impl WalkStats {
    /// (id, chunks) for every id that occurs, in id order.
    pub fn ids(&self) -> impl Iterator<Item = (u16, usize)> + '_ {
        self.per_id
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(id, &n)| (id as u16, n as usize))
    }
}

/// Every chunk of one file, in file order (parents before children).
#[derive(Debug, Clone)]
pub struct ChunkTree<'a> {
    pub bytes: &'a [u8],
    pub magic: [u8; 8],
    marks: Vec<Mark>,
    mark_stack: Vec<[u32; 2]>,
    count: u32,
    pub stats: WalkStats,
    /// BIZ_DONE is the last chunk, has no payload and ends at the file's last byte.
    pub closes_exactly: bool,
    /// The framing error that stopped the walk; the chunks before it are kept.
    pub error: Option<ParseError>,
    /// The error is the file's end coming too soon (chunks cut short, the trailer missing or
    /// cut) or bytes after its trailer: everything before it was read, and stands.
    pub damaged_tail: bool,
    /// The first chunk cut short by the end of the file: the error, when there is one.
    truncation: Option<ParseError>,
    /// What the model layer decoded each payload byte as, sorted by offset (empty until
    /// the model is built, and when it was built without them).
    pub fields: Vec<Field>,
    /// Payload bytes the model layer decoded (0 until the model is built).
    pub decoded_bytes: usize,
}

fn width_of(word: u16) -> Option<u8> {
    match word >> 14 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    }
}

fn read_len(bytes: &[u8], at: usize, width: u8) -> u32 {
    match width {
        1 => bytes[at] as u32,
        2 => u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u32,
        _ => u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]),
    }
}

impl<'a> ChunkTree<'a> {
    /// Walk the whole file. Never panics; a framing error ends the walk and is kept in
    /// `error` beside every chunk read before it.
    pub fn parse(bytes: &'a [u8]) -> ChunkTree<'a> {
        let mut tree = ChunkTree {
            bytes,
            magic: [0; 8],
            marks: Vec::new(),
            mark_stack: Vec::new(),
            count: 0,
            stats: WalkStats::default(),
            closes_exactly: false,
            error: None,
            damaged_tail: false,
            truncation: None,
            fields: Vec::new(),
            decoded_bytes: 0,
        };
        if bytes.len() < 8 {
            tree.error = Some(ParseError::new(
                0,
                "",
                format!(
                    "expected the 8-byte magic DIV-BIZ2, file has {} bytes",
                    bytes.len()
                ),
            ));
            return tree;
        }
        tree.magic.copy_from_slice(&bytes[..8]);
        tree.stats.framing = 8;
        if &tree.magic != MAGIC_GEOMETRY && &tree.magic != MAGIC_MATERIALS {
            tree.error = Some(ParseError::new(
                0,
                "",
                format!(
                    "expected magic DIV-BIZ2 or DIV-BMF2, found {:?}",
                    String::from_utf8_lossy(&tree.magic)
                ),
            ));
            return tree;
        }
        if bytes.len() as u64 > MAX_FILE_BYTES as u64 {
            tree.error = Some(ParseError::new(
                MAX_FILE_BYTES,
                "",
                format!(
                    "files over {MAX_FILE_BYTES} bytes are not supported (this one has {})",
                    bytes.len()
                ),
            ));
            return tree;
        }
        if let Err((e, end)) = tree.walk() {
            // Damage at the end only when something before it was read. A file cut short
            // is reported at the first chunk the cut went through (the walk itself ends
            // later, at the missing trailer).
            tree.damaged_tail = end && tree.count > 0;
            // (A malformed chunk inside a cut one is the error: the file is not only cut.)
            tree.error = Some(if end {
                tree.truncation.take().unwrap_or(e)
            } else {
                e
            });
        }
        tree
    }

    /// Err: the error, and whether it is the file ending too soon (or junk after the
    /// trailer) rather than a malformed chunk.
    fn walk(&mut self) -> Result<(), (ParseError, bool)> {
        let bytes = self.bytes;
        let mut w = Walk {
            pos: 8,
            index: 0,
            stack: Stack::EMPTY,
        };
        // For error paths: per open level, the ordinal of its container and the number of
        // container children seen per id (few: only known structural ids are containers).
        let mut ordinals: Vec<(u32, Vec<(u16, u32)>)> = vec![(0, Vec::new())];
        loop {
            while w.stack.top().is_some_and(|o| o.end as usize == w.pos) {
                w.stack.pop();
                ordinals.pop();
            }
            let pos = w.pos;
            let parent = w.stack.top().copied();
            let limit = parent.map_or(bytes.len(), |o| o.end as usize);
            if pos == bytes.len() && parent.is_none() {
                return Err((
                    ParseError::new(
                        pos,
                        "",
                        "expected the BIZ_DONE trailer (0x0005), the file ends here",
                    ),
                    true,
                ));
            }
            // The region being read runs to the end of the file: running out here is the file
            // being cut short, not a chunk that contradicts its parent.
            let at_end = limit == bytes.len();
            let path = || {
                let names = w.stack.as_slice().iter().zip(&ordinals[1..]);
                names
                    .map(|(o, (n, _))| format!("{}[{n}]", tags::name(o.id).unwrap_or("UNKNOWN")))
                    .collect::<Vec<_>>()
                    .join("/")
            };
            let (word, len_width, len) = chunk_header(bytes, pos, limit, at_end, &path)?;
            let len_at = pos + 2;
            let payload_offset = len_at + len_width as usize;
            let remaining = limit - payload_offset;
            let Classified {
                id,
                container,
                known,
                misplaced,
                ..
            } = tags::classify(parent.map(|o| o.id), word);
            let name = tags::name(id).unwrap_or("UNKNOWN");
            if len as usize > remaining && !at_end {
                return Err((ParseError::new(pos, &path(), format!("{name} ({word:#06x}) declares {len} payload bytes but its parent has only {remaining} left")), false));
            }
            if w.stack.len >= MAX_DEPTH && container {
                return Err((
                    ParseError::new(
                        pos,
                        &path(),
                        format!("chunks nest deeper than {MAX_DEPTH} levels"),
                    ),
                    false,
                ));
            }
            // Cut short by the end of the file: read as far as it goes (its children too).
            let len_in_file = if len as usize > remaining {
                self.note_truncation(pos, &path, name, word, len, remaining);
                remaining as u32
            } else {
                len
            };
            let index = self.count_chunk(
                &w,
                pos,
                id,
                len_width,
                payload_offset,
                len_in_file,
                (container, known && !misplaced),
            );
            let end = payload_offset + len_in_file as usize;
            if parent.is_none() && id == tags::BIZ_DONE {
                return self.trailer(pos, len, end);
            }
            if container {
                let level = &mut ordinals
                    .last_mut()
                    .expect("one level per open container, plus the top")
                    .1;
                let ordinal = next_ordinal(level, id);
                ordinals.push((ordinal, Vec::new()));
                w.stack.push(Open {
                    index,
                    offset: pos as u32,
                    end: end as u32,
                    id,
                });
                w.pos = payload_offset;
            } else {
                w.pos = end;
            }
        }
    }

    /// The first chunk that runs past the end of the file says so (`name`, `word` at `pos`
    /// declaring `len` bytes where `remaining` are left), as the file's truncation.
    #[cold]
    fn note_truncation(
        &mut self,
        pos: usize,
        path: &dyn Fn() -> String,
        name: &str,
        word: u16,
        len: u32,
        remaining: usize,
    ) {
        if self.truncation.is_none() {
            self.truncation = Some(ParseError::new(
                pos,
                &path(),
                format!("{name} ({word:#06x}) declares {len} payload bytes but the file has only {remaining} left: the file is cut short, read as far as it goes"),
            ));
        }
    }

    /// Count chunk `id` at `pos` (the walk's marks every [`MARK_EVERY`] chunks, the stats'
    /// framing and payload bytes; `kinds`: it is a container, and it is a known chunk where
    /// it belongs) → its index.
    #[inline]
    #[allow(clippy::too_many_arguments)] // (the walk's own locals, passed as they are)
    fn count_chunk(
        &mut self,
        w: &Walk,
        pos: usize,
        id: u16,
        len_width: u8,
        payload_offset: usize,
        len_in_file: u32,
        (container, known_here): (bool, bool),
    ) -> u32 {
        if self.count % MARK_EVERY == 0 {
            let stack_at = self.mark_stack.len() as u32;
            self.mark_stack
                .extend(w.stack.as_slice().iter().map(|o| [o.index, o.offset]));
            self.marks.push(Mark {
                pos: pos as u32,
                stack_at,
                depth: w.stack.len as u8,
            });
        }
        let index = self.count;
        self.count += 1;
        let s = &mut self.stats;
        s.per_id[id as usize] += 1;
        s.length_widths[match len_width {
            1 => 0,
            2 => 1,
            _ => 2,
        }] += 1;
        s.framing += payload_offset - pos;
        if !container {
            if known_here {
                s.known_payload += len_in_file as usize;
            } else {
                s.opaque_payload += len_in_file as usize;
            }
        }
        index
    }

    /// The BIZ_DONE trailer at `pos` (declaring `len` payload bytes, ending at `end`): empty,
    /// and the file's end.
    fn trailer(&mut self, pos: usize, len: u32, end: usize) -> Result<(), (ParseError, bool)> {
        if len != 0 {
            return Err((
                ParseError::new(
                    pos,
                    "BIZ_DONE",
                    format!("expected an empty BIZ_DONE trailer, it declares {len} payload bytes"),
                ),
                true,
            ));
        }
        if end != self.bytes.len() {
            return Err((
                ParseError::new(
                    end,
                    "BIZ_DONE",
                    format!(
                        "expected the file to end after BIZ_DONE, {} more bytes follow",
                        self.bytes.len() - end
                    ),
                ),
                true,
            ));
        }
        self.closes_exactly = true;
        Ok(())
    }

    /// Number of chunks read.
    pub fn len(&self) -> usize {
        self.count as usize
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The walk at mark `k`, its open containers read again from their headers.
    fn resume(&self, k: usize) -> Walk {
        let m = self.marks[k];
        let mut w = Walk {
            pos: m.pos as usize,
            index: k as u32 * MARK_EVERY,
            stack: Stack::EMPTY,
        };
        for &[index, offset] in
            &self.mark_stack[m.stack_at as usize..m.stack_at as usize + m.depth as usize]
        {
            let c = self.read_at(offset as usize, index, &w.stack);
            w.stack.push(Open {
                index,
                offset,
                end: c.payload_end() as u32,
                id: c.id,
            });
        }
        w
    }

    /// The chunk whose tag word is at `pos` (a position the walk has checked), inside the
    /// containers of `stack`.
    fn read_at(&self, pos: usize, index: u32, stack: &Stack) -> Chunk {
        let bytes = self.bytes;
        let word = u16::from_le_bytes([bytes[pos], bytes[pos + 1]]);
        let len_width = width_of(word).expect("checked by the walk");
        let len = read_len(bytes, pos + 2, len_width);
        let parent = stack.top();
        let c = tags::classify(parent.map(|p| p.id), word);
        // The walk only let a chunk run past its parent where the parent runs to the file's
        // end: then it is cut at the end of the file.
        let payload_offset = pos + 2 + len_width as usize;
        let missing =
            (payload_offset as u64 + len as u64).saturating_sub(bytes.len() as u64) as u32;
        Chunk {
            index,
            offset: pos,
            tag_word: word,
            id: c.id,
            len_width,
            len,
            payload_offset,
            depth: stack.len as u16,
            parent: parent.map(|p| p.index),
            container: c.container,
            known: c.known,
            namespace_inferred: c.namespace_inferred,
            misplaced: c.misplaced,
            truncated: missing > 0,
            missing,
        }
    }

    fn read(&self, w: &Walk) -> Chunk {
        self.read_at(w.pos, w.index, &w.stack)
    }

    /// Step past `c` (the chunk at `w`) into its children, if it has any, closing the
    /// containers that end.
    fn descend(&self, w: &mut Walk, c: &Chunk) {
        w.index += 1;
        if c.container {
            w.stack.push(Open {
                index: c.index,
                offset: c.offset as u32,
                end: c.payload_end() as u32,
                id: c.id,
            });
            w.pos = c.payload_offset;
        } else {
            w.pos = c.payload_end();
        }
        while w.stack.top().is_some_and(|o| o.end as usize == w.pos) {
            w.stack.pop();
        }
    }

    /// Step past `c` (the chunk at `w`) and everything inside it, to its next sibling.
    /// Chunks are not stored, so a container's contents are walked to count them.
    fn skip(&self, w: &mut Walk, c: &Chunk) {
        let depth = w.stack.len;
        self.descend(w, c);
        while w.stack.len > depth && w.index < self.count {
            let inner = self.read(w);
            self.descend(w, &inner);
        }
        // Closing `c` may also have closed its parents (they end where it ends); popping only
        // shortens the stack, so restoring the length reopens them.
        w.stack.len = depth;
        w.pos = c.payload_end();
    }

    /// Every chunk in file order.
    pub fn iter(&self) -> impl Iterator<Item = Chunk> + '_ {
        let mut w = (!self.marks.is_empty()).then(|| self.resume(0));
        std::iter::from_fn(move || {
            let walk = w.as_mut()?;
            if walk.index >= self.count {
                return None;
            }
            let c = self.read(walk);
            self.descend(walk, &c);
            Some(c)
        })
    }

    /// The walk positioned at chunk `index`.
    fn walk_to(&self, index: u32) -> Option<Walk> {
        if index >= self.count {
            return None;
        }
        let mut w = self.resume((index / MARK_EVERY) as usize);
        while w.index < index {
            let c = self.read(&w);
            self.descend(&mut w, &c);
        }
        Some(w)
    }

    /// Chunk `index`, found from the nearest mark.
    pub fn chunk(&self, index: u32) -> Option<Chunk> {
        self.walk_to(index).map(|w| self.read(&w))
    }

    /// A walk at the first child of `parent` (the top level for `None`), and where the
    /// children end.
    fn first_child(&self, parent: Option<&Chunk>) -> Option<(Walk, usize)> {
        let Some(p) = parent else {
            return (!self.marks.is_empty()).then(|| (self.resume(0), self.bytes.len()));
        };
        if !p.container || p.index >= self.count {
            return None;
        }
        // Only the innermost container decides how its children read, and a walk over
        // one level never looks below it: the entries under it stay blank.
        let mut stack = Stack::EMPTY;
        stack.len = p.depth as usize;
        stack.push(Open {
            index: p.index,
            offset: p.offset as u32,
            end: p.payload_end() as u32,
            id: p.id,
        });
        Some((
            Walk {
                pos: p.payload_offset,
                index: p.index + 1,
                stack,
            },
            p.payload_end(),
        ))
    }

    /// The direct children of chunk `parent` (or of the top level for `None`).
    pub fn children(&self, parent: Option<u32>) -> impl Iterator<Item = Chunk> + '_ {
        let parent = parent.map(|p| self.chunk(p));
        self.siblings(match parent {
            None => self.first_child(None),
            Some(p) => p.and_then(|p| self.first_child(Some(&p))),
        })
    }

    /// The direct children of `parent`, read from where it stands.
    pub fn children_of(&self, parent: &Chunk) -> impl Iterator<Item = Chunk> + '_ {
        self.siblings(self.first_child(Some(parent)))
    }

    fn siblings(&self, mut state: Option<(Walk, usize)>) -> impl Iterator<Item = Chunk> + '_ {
        std::iter::from_fn(move || {
            let (w, end) = state.as_mut()?;
            if w.index >= self.count || w.pos >= *end {
                return None;
            }
            let c = self.read(w);
            self.skip(w, &c);
            Some(c)
        })
    }

    pub fn payload(&self, chunk: &Chunk) -> &'a [u8] {
        &self.bytes[chunk.payload_offset..chunk.payload_end()]
    }

    /// `OBJECT[0]/LOD[1]/PATCH[3]/PMESH[0]`: names with the index among same-id siblings.
    pub fn path(&self, index: u32) -> String {
        self.path_with(&mut Ordinals::default(), index)
    }

    /// [`Self::path`], remembering how far each parent's children were counted: paths asked
    /// for in file order cost one pass over the siblings in all, not one pass each.
    pub fn path_with(&self, memo: &mut Ordinals, index: u32) -> String {
        let mut parts = Vec::new();
        let mut cur = self.chunk(index);
        while let Some(c) = cur {
            parts.push(format!("{}[{}]", c.name(), memo.ordinal(self, &c)));
            cur = c.parent.and_then(|p| self.chunk(p));
        }
        parts.reverse();
        parts.join("/")
    }

    /// Account for every byte: framing, decoded by a field, opaque, or unclaimed. Bytes past
    /// a framing error count as unclaimed.
    pub fn coverage(&self) -> Coverage {
        let s = &self.stats;
        let decoded = self.decoded_bytes.min(s.known_payload);
        let claimed = s.framing + s.known_payload + s.opaque_payload;
        Coverage {
            framing: s.framing,
            decoded,
            opaque: s.opaque_payload,
            unclaimed: s.known_payload - decoded + self.bytes.len().saturating_sub(claimed),
        }
    }

    /// Count of chunks by length width: [1-byte, 2-byte, 4-byte].
    pub fn length_widths(&self) -> [usize; 3] {
        self.stats.length_widths
    }

    /// Sorted unique ids of chunks that no table knows.
    pub fn unknown_tags(&self) -> Vec<u16> {
        self.stats
            .ids()
            .map(|(id, _)| id)
            .filter(|&id| tags::name(id).is_none())
            .collect()
    }
}

/// Counts of ordinals per parent, carried between [`ChunkTree::path_with`] calls.
#[derive(Debug, Default)]
pub struct Ordinals {
    scans: HashMap<Option<u32>, OrdinalScan>,
}

#[derive(Debug)]
struct OrdinalScan {
    /// The next sibling to count, where the siblings end, and the counts of those before.
    next: Walk,
    end: usize,
    counts: HashMap<u16, u32>,
}

impl Ordinals {
    /// Most parents remembered at once (paths are only made for the diagnostics a file
    /// keeps, and for what a user picks).
    const MAX_SCANS: usize = 256;

    fn ordinal(&mut self, tree: &ChunkTree<'_>, c: &Chunk) -> u32 {
        if self
            .scans
            .get(&c.parent)
            .is_some_and(|s| s.next.index > c.index)
        {
            self.scans.remove(&c.parent);
        }
        if !self.scans.contains_key(&c.parent) {
            if self.scans.len() >= Self::MAX_SCANS {
                self.scans.clear();
            }
            let parent = c.parent.and_then(|p| tree.chunk(p));
            let Some((next, end)) = tree.first_child(parent.as_ref()) else {
                return 0;
            };
            self.scans.insert(
                c.parent,
                OrdinalScan {
                    next,
                    end,
                    counts: HashMap::new(),
                },
            );
        }
        let scan = self.scans.get_mut(&c.parent).expect("inserted above");
        while scan.next.index < c.index && scan.next.index < tree.count && scan.next.pos < scan.end
        {
            let sibling = tree.read(&scan.next);
            *scan.counts.entry(sibling.id).or_default() += 1;
            tree.skip(&mut scan.next, &sibling);
        }
        scan.counts.get(&c.id).copied().unwrap_or(0)
    }
}

/// The ordinal of the next container `id` among its siblings of that id (`level`: the
/// containers seen so far in the open level, by id).
fn next_ordinal(level: &mut Vec<(u16, u32)>, id: u16) -> u32 {
    match level.iter_mut().find(|(i, _)| *i == id) {
        Some((_, n)) => {
            *n += 1;
            *n - 1
        }
        None => {
            level.push((id, 1));
            0
        }
    }
}

/// The tag word, length width and declared length of the chunk at `pos`, whose parent ends
/// at `limit` (`at_end`: the file's end); an error naming the chunk's `path` where they do
/// not fit (and whether that is the file ending too soon).
#[inline]
fn chunk_header(
    bytes: &[u8],
    pos: usize,
    limit: usize,
    at_end: bool,
    path: &dyn Fn() -> String,
) -> Result<(u16, u8, u32), (ParseError, bool)> {
    if limit - pos < 2 {
        return Err((
            ParseError::new(
                pos,
                &path(),
                format!(
                    "expected a 2-byte tag word, only {} bytes remain in the parent",
                    limit - pos
                ),
            ),
            at_end,
        ));
    }
    let word = u16::from_le_bytes([bytes[pos], bytes[pos + 1]]);
    let Some(len_width) = width_of(word) else {
        return Err((ParseError::new(pos, &path(), format!("tag word {word:#06x} has length width 3, which is invalid (expected 1, 2 or 4 bytes)")), false));
    };
    let len_at = pos + 2;
    if limit - len_at < len_width as usize {
        return Err((
            ParseError::new(len_at, &path(), format!("expected a {len_width}-byte length after tag word {word:#06x}, only {} bytes remain", limit - len_at)),
            at_end,
        ));
    }
    let len = read_len(bytes, len_at, len_width);
    Ok((word, len_width, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(word: u16, payload: &[u8]) -> Vec<u8> {
        let mut out = word.to_le_bytes().to_vec();
        match word >> 14 {
            0 => out.push(payload.len() as u8),
            1 => out.extend((payload.len() as u16).to_le_bytes()),
            _ => out.extend((payload.len() as u32).to_le_bytes()),
        }
        out.extend_from_slice(payload);
        out
    }

    fn file(body: &[Vec<u8>]) -> Vec<u8> {
        let mut out = MAGIC_GEOMETRY.to_vec();
        for b in body {
            out.extend(b);
        }
        out.extend(chunk(0x0005, &[]));
        out
    }

    #[test]
    fn reads_all_three_length_widths_and_closes_exactly() {
        let name = chunk(0x2008, b"box\0");
        let header = chunk(0x4003, &chunk(0x2005, &1.0f32.to_le_bytes()));
        let object = chunk(0x8040, &name);
        let bytes = file(&[header, object]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        assert!(tree.closes_exactly);
        let ids: Vec<_> = tree.iter().map(|c| (c.id, c.len_width, c.depth)).collect();
        assert_eq!(
            ids,
            vec![
                (0x0003, 2, 0),
                (0x2005, 1, 1),
                (0x0040, 4, 0),
                (0x2008, 1, 1),
                (0x0005, 1, 0)
            ]
        );
        assert_eq!(tree.length_widths(), [3, 1, 1]);
        assert_eq!(tree.payload(&tree.chunk(3).unwrap()), b"box\0");
        // magic, HEADER (2+2) with SCALE (2+1+4), OBJECT (2+4)
        assert_eq!(tree.chunk(3).unwrap().offset, 8 + 4 + 7 + 6);
    }

    #[test]
    fn bytes_after_the_trailer_are_an_error_at_their_offset() {
        let mut bytes = file(&[]);
        let end = bytes.len();
        bytes.push(0);
        let tree = ChunkTree::parse(&bytes);
        let e = tree.error.expect("trailing byte must fail");
        assert_eq!(e.offset, end);
        assert!(!tree.closes_exactly);
    }

    #[test]
    fn trailer_with_payload_and_missing_trailer_are_errors() {
        let mut bytes = MAGIC_GEOMETRY.to_vec();
        bytes.extend(chunk(0x0005, &[1]));
        assert!(ChunkTree::parse(&bytes)
            .error
            .unwrap()
            .message
            .contains("empty BIZ_DONE"));
        let bytes = MAGIC_GEOMETRY.to_vec();
        assert_eq!(ChunkTree::parse(&bytes).error.unwrap().offset, 8);
    }

    #[test]
    fn child_running_past_parent_names_offset_and_path() {
        // OBJECT of 6 bytes holding a NAME that claims 10.
        let mut object = 0x0040u16.to_le_bytes().to_vec();
        object.push(6);
        object.extend([0x08, 0x20, 10, b'a', b'b', b'c']);
        let bytes = file(&[object]);
        let tree = ChunkTree::parse(&bytes);
        let e = tree.error.clone().unwrap();
        assert_eq!(e.offset, 11);
        assert_eq!(e.path, "OBJECT[0]");
        assert!(e.message.contains("declares 10"), "{}", e.message);
        // What came before the error is kept for the inspector.
        assert_eq!(tree.len(), 1);
    }

    #[test]
    fn a_file_cut_short_keeps_what_it_has_and_says_so() {
        // HEADER, then an OBJECT whose NAME is cut after 2 of its 4 bytes.
        let header = chunk(0x4003, &chunk(0x2005, &1.0f32.to_le_bytes()));
        let object = chunk(0x0040, &chunk(0x2008, b"box\0"));
        let whole = file(&[header, object]);
        // Every cut after the HEADER: damage at the end, never a malformed file.
        for cut in 20..whole.len() {
            let tree = ChunkTree::parse(&whole[..cut]);
            assert!(tree.error.is_some(), "cut at {cut}");
            assert!(tree.damaged_tail, "cut at {cut}: {:?}", tree.error);
            assert!(
                tree.iter().all(|c| c.payload_end() <= cut),
                "cut at {cut}: a chunk past the end"
            );
        }
        let cut = whole.len() - 3 - 2; // the trailer (3 bytes) and two bytes of the name
        let tree = ChunkTree::parse(&whole[..cut]);
        let name = tree
            .iter()
            .find(|c| c.id == 0x2008)
            .expect("the cut chunk is recorded");
        assert!(name.truncated);
        assert_eq!((name.len, name.payload_len(), name.missing), (4, 2, 2));
        assert_eq!(tree.payload(&name), b"bo");
        let object = tree.iter().find(|c| c.id == 0x0040).unwrap();
        assert!(object.truncated, "its container is cut too");
        let e = tree.error.clone().expect("a cut is an error");
        assert_eq!(
            e.offset, object.offset,
            "at the first chunk the cut went through"
        );
        assert!(e.message.contains("cut short"), "{}", e.message);
        // Bytes after the trailer: damage too, every chunk whole.
        let mut junk = whole.clone();
        junk.extend([1, 2, 3, 4, 5, 6]);
        let tree = ChunkTree::parse(&junk);
        assert!(tree.damaged_tail);
        assert_eq!(tree.error.unwrap().offset, whole.len());
    }

    #[test]
    fn malformed_chunks_and_empty_files_are_not_damage_at_the_end() {
        // A width-3 tag word after a good chunk.
        let bytes = file(&[chunk(0x4003, &[]), vec![0x40, 0xC0, 0]]);
        let tree = ChunkTree::parse(&bytes);
        assert!(tree.error.is_some() && !tree.damaged_tail);
        // A child that runs past its parent (which ends before the file does).
        let mut object = 0x0040u16.to_le_bytes().to_vec();
        object.push(6);
        object.extend([0x08, 0x20, 10, b'a', b'b', b'c']);
        let bytes = file(&[object]);
        let tree = ChunkTree::parse(&bytes);
        assert!(tree.error.is_some() && !tree.damaged_tail);
        // A cut chunk with a malformed one inside: malformed, reported as such.
        let mut cut = file(&[chunk(0x4003, &[])]);
        cut.truncate(cut.len() - 3);
        cut.extend([0x40, 0x00, 200, 0x40, 0xC0, 0]);
        let tree = ChunkTree::parse(&cut);
        assert!(!tree.damaged_tail);
        assert!(tree.iter().any(|c| c.truncated));
        assert!(tree.error.unwrap().message.contains("width 3"));
        // Nothing read before the end.
        let tree = ChunkTree::parse(MAGIC_GEOMETRY);
        assert!(tree.error.is_some() && !tree.damaged_tail);
    }

    #[test]
    fn length_width_three_is_invalid() {
        let bytes = file(&[vec![0x40, 0xC0, 0]]);
        let e = ChunkTree::parse(&bytes).error.unwrap();
        assert_eq!(e.offset, 8);
        assert!(e.message.contains("width 3"));
    }

    #[test]
    fn deep_nesting_cannot_recurse_past_the_grammar() {
        // 10,000 LOD/PATCH containers nested inside each other. The grammar only lets a
        // LOD hold PATCHes, so the LOD inside the first PATCH is a misplaced opaque leaf.
        let mut inner: Vec<u8> = Vec::new();
        for level in 0..10_000 {
            let word = if level % 2 == 0 { 0x8041u16 } else { 0x8042u16 };
            let mut c = word.to_le_bytes().to_vec();
            c.extend((inner.len() as u32).to_le_bytes());
            c.extend(&inner);
            inner = c;
        }
        let mut object = 0x8040u16.to_le_bytes().to_vec();
        object.extend((inner.len() as u32).to_le_bytes());
        object.extend(inner);
        let bytes = file(&[object]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        assert!(tree.iter().all(|c| c.depth <= 2));
        let lod = tree.chunk(2).unwrap();
        assert_eq!(
            (lod.id, lod.depth, lod.container, lod.misplaced),
            (0x0041, 2, false, true)
        );
        assert!(tree.unknown_tags().is_empty());
    }

    #[test]
    fn path_names_each_level_with_its_ordinal() {
        let patch = |n: u8| chunk(0x0042, &chunk(0x2008, &[b'p', n, 0]));
        let mut lod1 = Vec::new();
        for n in 0..3 {
            lod1.extend(patch(b'0' + n));
        }
        let object = chunk(
            0x4040,
            &[chunk(0x0041, &patch(b'x')), chunk(0x0041, &lod1)].concat(),
        );
        let bytes = file(&[object]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        let last_name = tree.iter().filter(|c| c.id == 0x2008).last().unwrap().index;
        assert_eq!(tree.path(last_name), "OBJECT[0]/LOD[1]/PATCH[2]/NAME[0]");
    }

    #[test]
    fn unknown_ids_are_kept_as_leaves_and_listed() {
        let bytes = file(&[chunk(0x0777, &[1, 2, 3]), chunk(0x1040, &[])]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        assert_eq!(tree.unknown_tags(), vec![0x0777]);
        assert!(tree.chunk(1).unwrap().bit_0x1000());
        assert_eq!(tree.chunk(1).unwrap().id, 0x0040);
    }

    /// Paths computed the slow way: every chunk's ordinal counted from a full walk.
    fn naive_paths(tree: &ChunkTree<'_>) -> Vec<String> {
        let chunks: Vec<Chunk> = tree.iter().collect();
        let mut counts: HashMap<(Option<u32>, u16), u32> = HashMap::new();
        let mut paths: Vec<String> = Vec::new();
        for c in &chunks {
            let n = counts.entry((c.parent, c.id)).or_default();
            let me = format!("{}[{}]", c.name(), *n);
            *n += 1;
            paths.push(match c.parent {
                Some(p) => format!("{}/{me}", paths[p as usize]),
                None => me,
            });
        }
        paths
    }

    #[test]
    fn every_chunk_is_found_alike_by_walk_index_children_and_path() {
        let mut files: Vec<Vec<u8>> = crate::demo::demo_files()
            .into_iter()
            .filter(|(p, _)| p.ends_with(".BGF") || p.ends_with(".BMF"))
            .map(|(_, b)| b)
            .collect();
        // Long sibling runs of leaves and containers, empty containers, and a cut file.
        let mut body = Vec::new();
        for k in 0..200u32 {
            body.push(chunk(0x2008, &[k as u8, 0]));
            if k % 7 == 0 {
                body.push(chunk(0x8042, &[]));
                body.push(chunk(0x0042, &chunk(0x2037, b"s\0")));
            }
        }
        let object = chunk(0x8040, &body.concat());
        files.push(file(&[
            object.clone(),
            chunk(0x0777, &[9; 3]),
            object.clone(),
        ]));
        let whole = file(&[object.clone(), object]);
        files.push(whole[..whole.len() - 100].to_vec());
        for bytes in &files {
            let tree = ChunkTree::parse(bytes);
            let all: Vec<Chunk> = tree.iter().collect();
            assert_eq!(all.len(), tree.len());
            assert!(tree.len() > 3);
            for (i, c) in all.iter().enumerate() {
                assert_eq!(c.index, i as u32);
                assert_eq!(tree.chunk(i as u32), Some(*c));
            }
            assert_eq!(tree.chunk(tree.len() as u32), None);
            for parent in std::iter::once(None)
                .chain(all.iter().filter(|c| c.container).map(|c| Some(c.index)))
            {
                let kids: Vec<Chunk> = tree.children(parent).collect();
                let expected: Vec<Chunk> =
                    all.iter().filter(|c| c.parent == parent).copied().collect();
                assert_eq!(kids, expected);
                if let Some(p) = parent {
                    assert_eq!(
                        tree.children_of(&all[p as usize]).collect::<Vec<_>>(),
                        expected
                    );
                }
            }
            let naive = naive_paths(&tree);
            let mut memo = Ordinals::default();
            for (i, want) in naive.iter().enumerate() {
                assert_eq!(&tree.path(i as u32), want);
                assert_eq!(&tree.path_with(&mut memo, i as u32), want);
            }
            // Asked for out of order, the memo still answers right.
            for i in (0..tree.len() as u32).rev().step_by(3) {
                assert_eq!(tree.path_with(&mut memo, i), naive[i as usize]);
            }
        }
    }

    #[test]
    fn walk_figures_add_up_to_the_file() {
        let bytes = file(&[
            chunk(
                0x0040,
                &[chunk(0x2008, b"a\0"), chunk(0x0777, &[1, 2])].concat(),
            ),
            chunk(0x0004, b"hi\0"),
        ]);
        let tree = ChunkTree::parse(&bytes);
        let s = &tree.stats;
        assert_eq!(s.framing + s.known_payload + s.opaque_payload, bytes.len());
        assert_eq!((s.known_payload, s.opaque_payload), (2 + 3, 2));
        let ids: Vec<(u16, usize)> = s.ids().collect();
        assert_eq!(
            ids,
            vec![
                (0x0004, 1),
                (0x0005, 1),
                (0x0040, 1),
                (0x0777, 1),
                (0x2008, 1)
            ]
        );
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed = 0x2545F4914F6CDD1Du64;
        for len in 0..400 {
            let mut bytes = MAGIC_GEOMETRY.to_vec();
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                bytes.push(seed as u8);
            }
            let tree = ChunkTree::parse(&bytes);
            for c in tree.iter() {
                assert!(c.payload_end() <= bytes.len());
            }
        }
    }
}
