//! The raw layer: every chunk of a DIV-BIZ2 file with its offset, tag word and length,
//! borrowed from the file's bytes. The inspector, hex view and the model layer all read it.

use super::tags::{self, Classified};
use crate::formats::ParseError;
pub use crate::inspect::{Coverage, Field};
use serde::Serialize;
use std::collections::HashMap;

/// Magic strings of the binary family. (The text twins DIV-VIZ2 / DIV-VMF2 are not BIZ2.)
pub const MAGIC_GEOMETRY: &[u8; 8] = b"DIV-BIZ2";
pub const MAGIC_MATERIALS: &[u8; 8] = b"DIV-BMF2";

/// Deeper nests than this are refused: real files nest 6 levels, and the bound keeps every
/// later recursive consumer (writers, tree views) safe.
pub const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chunk {
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
    pub parent: Option<u32>,
    /// Position among the earlier siblings with the same id (the `[n]` of its path).
    pub ordinal: u32,
    pub container: bool,
    pub known: bool,
    /// The word lacked the 0x2000 namespace bit and context made it an attribute.
    pub namespace_inferred: bool,
    /// A structural id its parent cannot hold, kept as an opaque leaf.
    pub misplaced: bool,
}

impl Chunk {
    pub fn payload_end(&self) -> usize {
        self.payload_offset + self.len as usize
    }
    pub fn name(&self) -> &'static str {
        tags::name(self.id).unwrap_or("UNKNOWN")
    }
    /// Bit 0x1000 of the tag word, which has no known meaning.
    pub fn bit_0x1000(&self) -> bool {
        self.tag_word & tags::UNKNOWN_BIT != 0
    }
}

/// Every chunk of one file, in file order (parents before children).
#[derive(Debug, Clone)]
pub struct ChunkTree<'a> {
    pub bytes: &'a [u8],
    pub magic: [u8; 8],
    pub chunks: Vec<Chunk>,
    /// BIZ_DONE is the last chunk, has no payload and ends at the file's last byte.
    pub closes_exactly: bool,
    /// The framing error that stopped the walk; the chunks before it are kept.
    pub error: Option<ParseError>,
    /// What the model layer decoded each payload byte as, sorted by offset (empty until
    /// the model is built).
    pub fields: Vec<Field>,
    /// Payload bytes the model layer decoded, per chunk (empty until the model is built).
    pub decoded: Vec<u32>,
}

impl<'a> ChunkTree<'a> {
    /// Walk the whole file. Never panics; a framing error ends the walk and is kept in
    /// `error` beside every chunk read before it.
    pub fn parse(bytes: &'a [u8]) -> ChunkTree<'a> {
        let mut tree = ChunkTree { bytes, magic: [0; 8], chunks: Vec::new(), closes_exactly: false, error: None, fields: Vec::new(), decoded: Vec::new() };
        if bytes.len() < 8 {
            tree.error = Some(ParseError::new(0, "", format!("expected the 8-byte magic DIV-BIZ2, file has {} bytes", bytes.len())));
            return tree;
        }
        tree.magic.copy_from_slice(&bytes[..8]);
        if &tree.magic != MAGIC_GEOMETRY && &tree.magic != MAGIC_MATERIALS {
            tree.error = Some(ParseError::new(
                0,
                "",
                format!("expected magic DIV-BIZ2 or DIV-BMF2, found {:?}", String::from_utf8_lossy(&tree.magic)),
            ));
            return tree;
        }
        if let Err(e) = tree.walk() {
            tree.error = Some(e);
        }
        tree
    }

    fn walk(&mut self) -> Result<(), ParseError> {
        let bytes = self.bytes;
        // Open containers: (chunk index, end offset of its payload), and per open level the
        // number of children seen per id, so every chunk knows its ordinal without a scan.
        let mut open: Vec<(u32, usize)> = Vec::new();
        let mut ordinals: Vec<HashMap<u16, u32>> = vec![HashMap::new()];
        let mut pos = 8usize;
        loop {
            while let Some(&(_, end)) = open.last() {
                if pos == end {
                    open.pop();
                    ordinals.pop();
                } else {
                    break;
                }
            }
            let limit = open.last().map_or(bytes.len(), |&(_, end)| end);
            if pos == bytes.len() && open.is_empty() {
                return Err(ParseError::new(pos, "", "expected the BIZ_DONE trailer (0x0005), the file ends here"));
            }
            let parent = open.last().map(|&(i, _)| i);
            let parent_id = parent.map(|i| self.chunks[i as usize].id);
            let path = || self.path_of_new(parent);
            if limit - pos < 2 {
                return Err(ParseError::new(pos, &path(), format!("expected a 2-byte tag word, only {} bytes remain in the parent", limit - pos)));
            }
            let word = u16::from_le_bytes([bytes[pos], bytes[pos + 1]]);
            let len_width: u8 = match word >> 14 {
                0 => 1,
                1 => 2,
                2 => 4,
                _ => {
                    return Err(ParseError::new(pos, &path(), format!("tag word {word:#06x} has length width 3, which is invalid (expected 1, 2 or 4 bytes)")));
                }
            };
            let len_at = pos + 2;
            if limit - len_at < len_width as usize {
                return Err(ParseError::new(
                    len_at,
                    &path(),
                    format!("expected a {len_width}-byte length after tag word {word:#06x}, only {} bytes remain", limit - len_at),
                ));
            }
            let len = match len_width {
                1 => bytes[len_at] as u32,
                2 => u16::from_le_bytes([bytes[len_at], bytes[len_at + 1]]) as u32,
                _ => u32::from_le_bytes([bytes[len_at], bytes[len_at + 1], bytes[len_at + 2], bytes[len_at + 3]]),
            };
            let payload_offset = len_at + len_width as usize;
            let remaining = limit - payload_offset;
            let Classified { id, container, namespace_inferred, known, misplaced } = tags::classify(parent_id, word);
            let name = tags::name(id).unwrap_or("UNKNOWN");
            if len as usize > remaining {
                let what = if parent.is_some() { "its parent" } else { "the file" };
                return Err(ParseError::new(
                    pos,
                    &path(),
                    format!("{name} ({word:#06x}) declares {len} payload bytes but {what} has only {remaining} left"),
                ));
            }
            if open.len() >= MAX_DEPTH && container {
                return Err(ParseError::new(pos, &path(), format!("chunks nest deeper than {MAX_DEPTH} levels")));
            }
            let index = self.chunks.len() as u32;
            let counter = ordinals.last_mut().expect("one level per open container, plus the top").entry(id).or_insert(0);
            let ordinal = *counter;
            *counter += 1;
            self.chunks.push(Chunk {
                offset: pos,
                tag_word: word,
                id,
                len_width,
                len,
                payload_offset,
                depth: open.len() as u16,
                parent,
                ordinal,
                container,
                known,
                namespace_inferred,
                misplaced,
            });
            let end = payload_offset + len as usize;
            if parent.is_none() && id == tags::BIZ_DONE {
                if len != 0 {
                    return Err(ParseError::new(pos, "BIZ_DONE", format!("expected an empty BIZ_DONE trailer, it declares {len} payload bytes")));
                }
                if end != bytes.len() {
                    return Err(ParseError::new(
                        end,
                        "BIZ_DONE",
                        format!("expected the file to end after BIZ_DONE, {} more bytes follow", bytes.len() - end),
                    ));
                }
                self.closes_exactly = true;
                return Ok(());
            }
            if container {
                open.push((index, end));
                ordinals.push(HashMap::new());
                pos = payload_offset;
            } else {
                pos = end;
            }
        }
    }

    pub fn payload(&self, chunk: &Chunk) -> &'a [u8] {
        &self.bytes[chunk.payload_offset..chunk.payload_end()]
    }

    /// Indices of the direct children of `parent` (or of the top level for `None`).
    pub fn children(&self, parent: Option<u32>) -> impl Iterator<Item = u32> + '_ {
        // Children follow their parent in file order and end before the parent does.
        let start = parent.map_or(0, |p| p as usize + 1);
        let end = parent.map_or(usize::MAX, |p| self.chunks[p as usize].payload_end());
        self.chunks[start.min(self.chunks.len())..]
            .iter()
            .enumerate()
            .take_while(move |(_, c)| c.offset < end)
            .filter(move |(_, c)| c.parent == parent)
            .map(move |(i, _)| (start + i) as u32)
    }

    /// `OBJECT[0]/LOD[1]/PATCH[3]/PMESH[0]`: names with the index among same-id siblings.
    /// Costs the chunk's depth, whatever comes before it.
    pub fn path(&self, index: u32) -> String {
        path_of(&self.chunks, index)
    }
    fn path_of_new(&self, parent: Option<u32>) -> String {
        parent.map(|p| self.path(p)).unwrap_or_default()
    }

    /// Count of chunks by length width: [1-byte, 2-byte, 4-byte].
    pub fn length_widths(&self) -> [usize; 3] {
        length_widths(&self.chunks)
    }

    /// Account for every byte: framing, decoded by a field, opaque, or unclaimed. Bytes past
    /// a framing error count as unclaimed.
    pub fn coverage(&self) -> Coverage {
        coverage(self.bytes.len(), &self.chunks, &self.decoded)
    }

    /// Sorted unique ids of chunks that no table knows.
    pub fn unknown_tags(&self) -> Vec<u16> {
        unknown_tags(&self.chunks)
    }
}

/// The path of chunk `index` (see [`ChunkTree::path`]).
pub fn path_of(chunks: &[Chunk], index: u32) -> String {
    let mut parts = Vec::new();
    let mut cur = Some(index);
    while let Some(i) = cur {
        let c = &chunks[i as usize];
        parts.push(format!("{}[{}]", c.name(), c.ordinal));
        cur = c.parent;
    }
    parts.reverse();
    parts.join("/")
}

/// Sorted unique ids of chunks that no table knows.
pub fn unknown_tags(chunks: &[Chunk]) -> Vec<u16> {
    let mut ids: Vec<u16> = chunks.iter().filter(|c| !c.known).map(|c| c.id).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Count of chunks by length width: [1-byte, 2-byte, 4-byte].
pub fn length_widths(chunks: &[Chunk]) -> [usize; 3] {
    let mut n = [0; 3];
    for c in chunks {
        n[match c.len_width {
            1 => 0,
            2 => 1,
            _ => 2,
        }] += 1;
    }
    n
}

/// See [`ChunkTree::coverage`].
pub fn coverage(file_len: usize, chunks: &[Chunk], decoded: &[u32]) -> Coverage {
    let mut cov = Coverage { framing: file_len.min(8), ..Default::default() };
    let decoded_by_chunk = |i: usize| decoded.get(i).copied().unwrap_or(0) as usize;
    let mut claimed = cov.framing;
    for (i, c) in chunks.iter().enumerate() {
        cov.framing += c.payload_offset - c.offset;
        claimed += c.payload_offset - c.offset;
        if c.container {
            continue;
        }
        claimed += c.len as usize;
        if !c.known || c.misplaced {
            cov.opaque += c.len as usize;
        } else {
            let d = decoded_by_chunk(i).min(c.len as usize);
            cov.decoded += d;
            cov.unclaimed += c.len as usize - d;
        }
    }
    cov.unclaimed += file_len.saturating_sub(claimed);
    cov
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
        let ids: Vec<_> = tree.chunks.iter().map(|c| (c.id, c.len_width, c.depth)).collect();
        assert_eq!(
            ids,
            vec![(0x0003, 2, 0), (0x2005, 1, 1), (0x0040, 4, 0), (0x2008, 1, 1), (0x0005, 1, 0)]
        );
        assert_eq!(tree.length_widths(), [3, 1, 1]);
        assert_eq!(tree.payload(&tree.chunks[3]), b"box\0");
        // magic, HEADER (2+2) with SCALE (2+1+4), OBJECT (2+4)
        assert_eq!(tree.chunks[3].offset, 8 + 4 + 7 + 6);
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
        assert!(ChunkTree::parse(&bytes).error.unwrap().message.contains("empty BIZ_DONE"));
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
        let e = tree.error.unwrap();
        assert_eq!(e.offset, 11);
        assert_eq!(e.path, "OBJECT[0]");
        assert!(e.message.contains("declares 10"), "{}", e.message);
        // What came before the error is kept for the inspector.
        assert_eq!(tree.chunks.len(), 1);
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
        assert!(tree.chunks.iter().all(|c| c.depth <= 2));
        let lod = &tree.chunks[2];
        assert_eq!((lod.id, lod.depth, lod.container, lod.misplaced), (0x0041, 2, false, true));
        assert!(tree.unknown_tags().is_empty());
    }

    #[test]
    fn path_names_each_level_with_its_ordinal() {
        let patch = |n: u8| chunk(0x0042, &chunk(0x2008, &[b'p', n, 0]));
        let mut lod1 = Vec::new();
        for n in 0..3 {
            lod1.extend(patch(b'0' + n));
        }
        let object = chunk(0x4040, &[chunk(0x0041, &patch(b'x')), chunk(0x0041, &lod1)].concat());
        let bytes = file(&[object]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        let last_name = tree.chunks.iter().rposition(|c| c.id == 0x2008).unwrap() as u32;
        assert_eq!(tree.path(last_name), "OBJECT[0]/LOD[1]/PATCH[2]/NAME[0]");
    }

    #[test]
    fn unknown_ids_are_kept_as_leaves_and_listed() {
        let bytes = file(&[chunk(0x0777, &[1, 2, 3]), chunk(0x1040 | 0x0000, &[])]);
        let tree = ChunkTree::parse(&bytes);
        assert_eq!(tree.error, None);
        assert_eq!(tree.unknown_tags(), vec![0x0777]);
        assert!(tree.chunks[1].bit_0x1000());
        assert_eq!(tree.chunks[1].id, 0x0040);
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
            for c in &tree.chunks {
                assert!(c.payload_end() <= bytes.len());
            }
        }
    }
}
