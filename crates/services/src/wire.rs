//! A scene as bytes, for its trip from the worker thread that parsed a file to the page's
//! thread that draws it (docs/architecture.md, "Parsing off the page's thread").
//!
//! The bytes are postcard (compact serde) with every vertex, index and texel array written
//! as one raw little-endian block, so encoding and decoding them is a copy, not a loop over
//! numbers. Both ends are the same wasm build; a tag and version at the start catch a page
//! and a worker of different builds. Decoding never trusts a length: postcard checks each
//! against the bytes left, and a block whose length is not a whole number of elements is an
//! error.

use crate::formats::Described;
use crate::scene::Scene;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// What a value's bytes start with: which value it is, and the form's version.
pub type Tag = [u8; 8];

const TAG: &Tag = b"RVSCENE6";
/// A file's side of a comparison (`diff::Side`), from the page's core to its tools module.
pub const SIDE: &Tag = b"RVSIDE02";
/// What a file exports to is made from (`bundle::ExportInput`), the same way.
pub const EXPORT_INPUT: &Tag = b"RVEXPIN2";

/// What the page needs to draw a file opened elsewhere: its scene, the byte range of each
/// inspector record (picks on strips find their record by offset) and how many model
/// placements it has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShownScene {
    pub scene: Scene,
    pub records: Vec<(u64, u64)>,
    pub placements: u64,
}

/// A scene lent for encoding, without moving it out of its owner (the viewer's scene on
/// show, which the page's tools module exports): the same bytes as the [`ShownScene`] it
/// decodes to, as serde writes a reference as the value it points to.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ShownSceneRef<'a> {
    pub scene: &'a Scene,
    pub records: &'a [(u64, u64)],
    pub placements: u64,
}

impl ShownScene {
    /// `scene` with what the viewer reads of the document it was built from.
    pub fn of(scene: Scene, document: Described) -> ShownScene {
        ShownScene {
            scene,
            records: record_ranges(document),
            placements: document.stats().placements as u64,
        }
    }
    pub fn lend(&self) -> ShownSceneRef<'_> {
        ShownSceneRef {
            scene: &self.scene,
            records: &self.records,
            placements: self.placements,
        }
    }
}

/// Record ranges as offsets into a file held in memory (one past memory's reach stays past
/// any file's end).
pub fn record_offsets(ranges: &[(u64, u64)]) -> Vec<(usize, usize)> {
    let offset = |o: u64| usize::try_from(o).unwrap_or(usize::MAX);
    ranges
        .iter()
        .map(|&(a, b)| (offset(a), offset(b)))
        .collect()
}

/// The byte range of every inspector record, for picks on strips.
pub fn record_ranges(document: Described) -> Vec<(u64, u64)> {
    document.inspector().map_or(Vec::new(), |v| {
        v.chunks
            .iter()
            .map(|r| (r.offset as u64, r.end as u64))
            .collect()
    })
}

pub fn encode(shown: ShownSceneRef) -> Vec<u8> {
    // Sized exactly up front (a counting pass, which copies nothing): growing by doubling
    // would copy the arrays again and, for a big scene, hold twice their size at once.
    let size = postcard::serialize_with_flavor(&shown, postcard::ser_flavors::Size::default())
        .expect("a scene always serialises");
    let mut out = Vec::with_capacity(TAG.len() + size);
    out.extend_from_slice(TAG);
    // Serialising into a Vec cannot fail: every scene type serialises.
    postcard::to_extend(&shown, out).expect("a scene always serialises")
}

/// The length of [`encode`]'s bytes, counted without writing them.
pub fn encoded_len(shown: ShownSceneRef) -> usize {
    encoded_value_len(TAG, &shown)
}

/// [`encode`] as `write(offset, bytes)` calls, the arrays passed straight from the scene:
/// the worker writes into a JS buffer of [`encoded_len`] bytes and never holds a second copy
/// of the scene in its own memory.
pub fn encode_into(shown: ShownSceneRef, write: impl FnMut(usize, &[u8])) {
    encode_value_into(TAG, &shown, write)
}

/// The length of [`encode_value`]'s bytes, counted without writing them.
pub fn encoded_value_len<T: Serialize>(tag: &Tag, value: &T) -> usize {
    tag.len()
        + postcard::serialize_with_flavor(value, postcard::ser_flavors::Size::default())
            .expect("a wire value always serialises")
}

/// [`encode_value`] as `write(offset, bytes)` calls, as [`encode_into`] writes a scene.
pub fn encode_value_into<T: Serialize>(tag: &Tag, value: &T, write: impl FnMut(usize, &[u8])) {
    let mut sink = Chunked {
        staged: Vec::with_capacity(STAGE),
        at: 0,
        write,
    };
    sink.put(tag);
    postcard::serialize_with_flavor(value, sink).expect("a wire value always serialises");
}

/// Small writes (lengths, names, numbers) are gathered; blocks go through as they are.
const STAGE: usize = 64 << 10;

struct Chunked<F: FnMut(usize, &[u8])> {
    staged: Vec<u8>,
    /// Offset of `staged[0]`.
    at: usize,
    write: F,
}

impl<F: FnMut(usize, &[u8])> Chunked<F> {
    fn flush(&mut self) {
        if !self.staged.is_empty() {
            (self.write)(self.at, &self.staged);
            self.at += self.staged.len();
            self.staged.clear();
        }
    }
    fn put(&mut self, data: &[u8]) {
        if data.len() >= 4096 {
            self.flush();
            (self.write)(self.at, data);
            self.at += data.len();
        } else {
            self.staged.extend_from_slice(data);
            if self.staged.len() >= STAGE {
                self.flush();
            }
        }
    }
}

impl<F: FnMut(usize, &[u8])> postcard::ser_flavors::Flavor for Chunked<F> {
    type Output = ();
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.put(&[data]);
        Ok(())
    }
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.put(data);
        Ok(())
    }
    fn finalize(mut self) -> postcard::Result<()> {
        self.flush();
        Ok(())
    }
}

pub fn decode(bytes: &[u8]) -> Result<ShownScene, String> {
    decode_value(TAG, "scene", bytes)
}

/// `value` as bytes starting with `tag`, sized in a counting pass first (as [`encode`]).
pub fn encode_value<T: Serialize>(tag: &Tag, value: &T) -> Vec<u8> {
    let size = postcard::serialize_with_flavor(value, postcard::ser_flavors::Size::default())
        .expect("a wire value always serialises");
    let mut out = Vec::with_capacity(tag.len() + size);
    out.extend_from_slice(tag);
    postcard::to_extend(value, out).expect("a wire value always serialises")
}

/// The value of `what` (a word for the errors: "scene") that `bytes` hold, which must start
/// with `tag` and end with the value.
pub fn decode_value<T: DeserializeOwned>(tag: &Tag, what: &str, bytes: &[u8]) -> Result<T, String> {
    let body = bytes.strip_prefix(tag.as_slice()).ok_or_else(|| {
        format!(
            "the {what} bytes do not start with {} (a module of another build?)",
            String::from_utf8_lossy(tag)
        )
    })?;
    let (value, rest) =
        postcard::take_from_bytes::<T>(body).map_err(|e| format!("damaged {what} bytes: {e}"))?;
    if !rest.is_empty() {
        return Err(format!(
            "damaged {what} bytes: {} bytes after the {what}",
            rest.len()
        ));
    }
    Ok(value)
}

/// Strings the page joined into one to cross into wasm at once (a listing's 20,000 paths),
/// cut again by their lengths in UTF-16 units (JS string lengths); a length past the end
/// takes what is left, and pieces past it are empty.
pub fn split_js_joined(joined: &str, lengths: &[u32]) -> Vec<String> {
    let mut out = Vec::with_capacity(lengths.len());
    let mut chars = joined.char_indices().peekable();
    for &want in lengths {
        let start = chars.peek().map_or(joined.len(), |&(i, _)| i);
        let mut units = 0;
        while units < want as usize {
            match chars.next() {
                Some((_, c)) => units += c.len_utf16(),
                None => break,
            }
        }
        let end = chars.peek().map_or(joined.len(), |&(i, _)| i);
        out.push(joined[start..end].to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Primitive};
    use crate::texture::Texels;

    #[test]
    fn paths_are_cut_by_their_js_lengths() {
        // "É" is one UTF-16 unit and two UTF-8 bytes; "𝄞" two units and four bytes.
        let paths = ["A/É.BGF", "𝄞/B.MAP", "", "C"];
        let lengths: Vec<u32> = paths
            .iter()
            .map(|p| p.encode_utf16().count() as u32)
            .collect();
        assert_eq!(split_js_joined(&paths.concat(), &lengths), paths);
        assert_eq!(
            split_js_joined("AB", &[1, 5, 2]),
            ["A", "B", ""],
            "too long: what is left, then nothing"
        );
    }

    fn shown() -> ShownScene {
        let primitive = Primitive {
            positions: vec![[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [-1.5, f32::MAX, 1e-30]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            colors: None,
            lit_colors: Some(vec![[1, 2, 3, 255]; 3]),
            uvs: Some(vec![[0.5, 0.25]; 3]),
            indices: vec![0, 1, 2],
            material: Some(0),
            record: Some([7, 19]),
            sources: Vec::new(),
        };
        let mut scene = Scene {
            name: "T".into(),
            ..Scene::default()
        };
        scene.meshes.push(Mesh {
            name: Some("m".into()),
            primitives: vec![primitive],
        });
        scene.textures.push(crate::scene::Texture {
            name: None,
            texels: Texels {
                width: 1,
                height: 2,
                rgba: std::sync::Arc::new(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            },
            file: Some("A.TGA".into()),
            nearest: true,
            stand_in: false,
        });
        ShownScene {
            scene,
            records: vec![(0, 12), (12, 40)],
            placements: 3,
        }
    }

    #[test]
    fn round_trip_keeps_everything() {
        let s = shown();
        let bytes = encode(s.lend());
        assert_eq!(decode(&bytes).unwrap(), s);
        // Raw blocks: the three positions are 36 bytes of the encoding as they are in memory.
        let raw: &[u8] = bytemuck::cast_slice(&s.scene.meshes[0].primitives[0].positions);
        assert!(bytes.windows(raw.len()).any(|w| w == raw));
    }

    #[test]
    fn written_in_pieces_it_is_the_same_bytes() {
        // A scene with blocks above and below the pass-through size.
        let mut s = shown();
        let big = s.scene.meshes[0].primitives[0].clone();
        s.scene.meshes[0].primitives.push(Primitive {
            positions: vec![[1.5, 2.5, 3.5]; 5000],
            indices: (0..15000).map(|i| i % 5000).collect(),
            ..big
        });
        let whole = encode(s.lend());
        assert_eq!(encoded_len(s.lend()), whole.len());
        let mut pieces = vec![0xAA; whole.len()];
        let mut writes = 0;
        encode_into(s.lend(), |at, bytes| {
            pieces[at..at + bytes.len()].copy_from_slice(bytes);
            writes += 1;
        });
        assert_eq!(pieces, whole);
        assert!(
            writes >= 3,
            "the big blocks went through on their own ({writes} writes)"
        );
        assert_eq!(decode(&pieces).unwrap(), s);
    }

    #[test]
    fn damaged_bytes_are_errors_not_panics() {
        let s = shown();
        let bytes = encode(s.lend());
        assert!(decode(&bytes[1..])
            .unwrap_err()
            .contains("do not start with RVSCENE6"));
        for cut in 8..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(decode(&extra).unwrap_err().contains("after the scene"));
        // A block length that is no whole number of elements: the first primitive's positions
        // claim 35 bytes.
        let raw: &[u8] = bytemuck::cast_slice(&s.scene.meshes[0].primitives[0].positions);
        let at = bytes.windows(raw.len()).position(|w| w == raw).unwrap();
        assert_eq!(bytes[at - 1], 36);
        let mut odd = bytes.clone();
        odd[at - 1] = 35;
        assert!(decode(&odd).is_err());
    }

    #[test]
    fn huge_claimed_lengths_do_not_allocate() {
        // A varint claiming 2^62 nodes after the tag and name must fail on the missing bytes.
        let mut bytes = TAG.to_vec();
        bytes.extend([1, b'T']);
        bytes.extend([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F]);
        assert!(decode(&bytes).is_err());
    }
}
