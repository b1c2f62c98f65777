//! LZS, Final Fantasy VII's LZSS wrapper around BSX, BCX and FIELD.TDB (docs/formats/lzs.md):
//! a `u32` compressed length, then an Okumura LZSS stream (4096-byte window, matches of 3 to
//! 18 bytes). A decoder with a hard output bound, an encoder for fixtures, and the document
//! that shows a container's decompressed bytes with its own bytes one view away.

use crate::charset::{decode as decode_text, looks_like_text};
use crate::inspect::{ByteClass, ByteView, InspectorView};
use crate::kind::{Capabilities, Format, Head, Kind, Purpose, Sniffed};
use crate::{Diagnostic, Document, InfoRow, ParseError};

const N: usize = 4096;
/// Where the ring's write cursor starts (N − 18).
const START: usize = 0xFEE;
/// The longest match (4 bits of length + 3).
const MAX_MATCH: usize = 18;
/// Each input byte gives at most this many output bytes (a control byte and eight 2-byte
/// references: 17 bytes → 144), so no stream can expand past 9 × its length.
pub const MAX_RATIO: usize = 9;
/// The largest output the viewer decodes (FF7's biggest field file is well under 1 MB).
pub const MAX_OUTPUT: usize = 64 << 20;

/// A container: `u32` compressed length equal to the rest of the file.
pub fn wrapped(h: &Head) -> bool {
    h.size >= 8
        && h.bytes
            .get(..4)
            .is_some_and(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64 == h.size - 4)
}

pub const LZS: Kind = Kind::new("lzs");

pub const FORMATS: &[Format] = &[Format {
    kind: LZS,
    label: "LZS",
    title: "LZS-compressed file",
    caps: Capabilities::NONE,
    // Any file whose first word is the length of the rest: asked after the names that say
    // which LZS-wrapped file it is (BSX, BCX, TDB).
    sniffs: &[(Sniffed::Structure, wrapped)],
    named: &[],
    claims: &[],
    refers_to: &[],
    open,
}];

/// Decode an LZSS stream (without the length header), producing at most `max_out` bytes:
/// more is an error at the input offset where the bound was crossed.
pub fn decode_stream(stream: &[u8], max_out: usize) -> Result<Vec<u8>, ParseError> {
    let mut out: Vec<u8> = Vec::with_capacity(stream.len().saturating_mul(MAX_RATIO).min(max_out));
    let mut i = 0;
    while i < stream.len() {
        let control = stream[i];
        i += 1;
        for bit in 0..8 {
            if i >= stream.len() {
                break;
            }
            if control >> bit & 1 == 1 {
                if out.len() >= max_out {
                    return Err(ParseError::new(
                        i,
                        "",
                        format!(
                            "expected at most {max_out} decompressed bytes; the stream goes on"
                        ),
                    ));
                }
                out.push(stream[i]);
                i += 1;
                continue;
            }
            // A reference needs two bytes; a lone trailing byte is ignored like spare bits.
            let Some(&[b0, b1]) = stream
                .get(i..i + 2)
                .map(|s| <&[u8; 2]>::try_from(s).expect("two bytes"))
            else {
                break;
            };
            let raw = b0 as usize | ((b1 as usize & 0xF0) << 4);
            let len = (b1 as usize & 0x0F) + 3;
            if out.len() + len > max_out {
                return Err(ParseError::new(i, "", format!("expected at most {max_out} decompressed bytes; a {len}-byte match goes past them")));
            }
            let pos = out.len();
            let distance = (pos + START + N - raw) & (N - 1);
            let distance = if distance == 0 { N } else { distance };
            for k in 0..len {
                // Before the first byte the window holds zeros.
                let b = (pos + k).checked_sub(distance).map_or(0, |s| out[s]);
                out.push(b);
            }
            i += 2;
        }
    }
    Ok(out)
}

/// Decode a whole container: the `u32` length must be the rest of the file.
pub fn decode(file: &[u8], max_out: usize) -> Result<Vec<u8>, ParseError> {
    let Some(head) = file.get(..4) else {
        return Err(ParseError::new(
            0,
            "",
            format!(
                "expected a 4-byte compressed length, the file has {} bytes",
                file.len()
            ),
        ));
    };
    let len = u32::from_le_bytes(head.try_into().expect("four bytes")) as usize;
    if len != file.len() - 4 {
        return Err(ParseError::new(
            0,
            "",
            format!(
                "the compressed length says {len} bytes, the file holds {} after it",
                file.len() - 4
            ),
        ));
    }
    decode_stream(&file[4..], max_out).map_err(|e| ParseError {
        offset: e.offset + 4,
        ..e
    })
}

/// Compress greedily (the longest match within the window, zero prefill included) and wrap
/// in the `u32` length header: what tests and the demo archive use for fixtures.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut stream = Vec::with_capacity(data.len() + data.len() / 8 + 2);
    // Earlier positions by their first three bytes, most recent last.
    let mut seen: std::collections::HashMap<[u8; 3], Vec<usize>> = std::collections::HashMap::new();
    let mut indexed = 0;
    let mut pos = 0;
    while pos < data.len() {
        let control_at = stream.len();
        stream.push(0u8);
        for bit in 0..8 {
            if pos >= data.len() {
                break;
            }
            while indexed < pos {
                if let Some(key) = data.get(indexed..indexed + 3) {
                    seen.entry([key[0], key[1], key[2]])
                        .or_default()
                        .push(indexed);
                }
                indexed += 1;
            }
            let (best_len, best_src) = longest_match(data, pos, &seen);
            if best_len >= 3 {
                let raw = (best_src + START as isize).rem_euclid(N as isize) as usize;
                stream.push(raw as u8);
                stream.push(((raw >> 4) & 0xF0) as u8 | (best_len - 3) as u8);
                pos += best_len;
            } else {
                stream[control_at] |= 1 << bit;
                stream.push(data[pos]);
                pos += 1;
            }
        }
    }
    let mut out = (stream.len() as u32).to_le_bytes().to_vec();
    out.extend(stream);
    out
}

/// The longest earlier run (distance 1..4095) that matches `data[pos..]`, among the last
/// 64 positions that start with the same three bytes, or in the zero prefill before the
/// first byte: (length, source position, negative in the prefill).
fn longest_match(
    data: &[u8],
    pos: usize,
    seen: &std::collections::HashMap<[u8; 3], Vec<usize>>,
) -> (usize, isize) {
    let want = (data.len() - pos).min(MAX_MATCH);
    let at = |s: isize| if s < 0 { 0 } else { data[s as usize] };
    // Overlapping runs repeat the pattern, as the decoder copies byte by byte.
    let run = |src: isize| {
        (0..want)
            .take_while(|&k| at(src + k as isize) == data[pos + k])
            .count()
    };
    let mut best = (0, 0);
    let mut consider = |src: isize| {
        let len = run(src);
        if len > best.0 {
            best = (len, src);
        }
    };
    if pos < N - 1 {
        consider(pos as isize - (N as isize - 1));
    }
    if let Some(key) = data.get(pos..pos + 3) {
        for &src in seen
            .get(&[key[0], key[1], key[2]])
            .into_iter()
            .flat_map(|v| v.iter().rev().take(64))
        {
            if pos - src >= N {
                break;
            }
            consider(src as isize);
        }
    }
    best
}

/// An LZS container of no format we read further (a BCX, FIELD.TDB): the hex view shows the
/// decompressed bytes, with the container's bytes as the second byte view.
pub struct LzsDocument {
    kind: Kind,
    file: Vec<u8>,
    decoded: Vec<u8>,
    error: Option<ParseError>,
    diagnostics: Vec<Diagnostic>,
    inspector: Option<InspectorView>,
}

/// A file of the field family as stored: LZS-wrapped (as on the disc) or not. Its formats'
/// offsets refer to the decompressed bytes; the container is a second byte view.
pub struct Stored {
    pub file: Vec<u8>,
    /// What the container decompresses to.
    pub decoded: Option<Vec<u8>>,
    pub compressed: bool,
    /// Why the container could not be decompressed.
    pub error: Option<ParseError>,
    /// A container whose header disagrees with the file (docs/formats/lzs.md, "Lengths"):
    /// the compressed length it says. More than the file holds: cut short, `decoded` is what
    /// the bytes there decode to; fewer: `decoded` is what the bytes it says decode to, and
    /// those after them are not read.
    pub header_says: Option<usize>,
}

/// What a format's own bytes start like (a field model's header, a .DAT's section table):
/// how a container whose header disagrees with the file is told from the format's bytes
/// stored unpacked.
pub type StartsLike = fn(&[u8]) -> bool;

/// A field model's container cut short (docs/formats/lzs.md, "Cut short"): its first word
/// says more compressed bytes than follow, the file read as the model's own bytes would be
/// nonsense (its models section at or past the size it declares, or not on a 4-byte
/// boundary), and what the stream there decodes to starts as a model does (a declared size
/// at least what decoded, a models section inside it, 4-byte aligned). → the decoded bytes.
fn cut_model_container(file: &[u8]) -> Option<Vec<u8>> {
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let (declared, plain_models) = (word(file, 0)?, word(file, 4)?);
    let plain_sense = plain_models < declared && plain_models % 4 == 0;
    if declared <= file.len() - 4 || plain_sense {
        return None;
    }
    let decoded = decode_stream(
        &file[4..],
        MAX_OUTPUT.min(declared.saturating_mul(MAX_RATIO)),
    )
    .ok()?;
    let (size, models) = (word(&decoded, 0)?, word(&decoded, 4)?);
    (size >= decoded.len() && models < size && models % 4 == 0 && models >= 8).then_some(decoded)
}

/// A container whose header disagrees with the file, told by `starts_like` from the format's
/// own bytes (docs/formats/lzs.md, "Lengths"): the file read as the format's bytes does not
/// start like them, and what the stream decodes to does — the bytes the header says where
/// the file holds more, those there are where it holds fewer. → (what the header says, the
/// decoded bytes).
fn disagreeing_container(file: &[u8], starts_like: StartsLike) -> Option<(usize, Vec<u8>)> {
    let declared = u32::from_le_bytes(file.get(..4)?.try_into().ok()?) as usize;
    let held = file.len().checked_sub(4)?;
    if declared == held || declared == 0 || starts_like(file) {
        return None;
    }
    let stream = &file[4..4 + declared.min(held)];
    let decoded = decode_stream(
        stream,
        MAX_OUTPUT.min(stream.len().saturating_mul(MAX_RATIO)),
    )
    .ok()?;
    starts_like(&decoded).then_some((declared, decoded))
}

impl Stored {
    /// The file as stored; `starts_like` says what the format's own bytes start like, for a
    /// container whose header disagrees with the file.
    pub fn read(path: &str, ext: &str, file: Vec<u8>, starts_like: StartsLike) -> Stored {
        let head = Head {
            path,
            ext: ext.into(),
            bytes: &file[..file.len().min(16)],
            size: file.len() as u64,
        };
        let compressed = wrapped(&head);
        let (decoded, error) = match compressed.then(|| decode(&file, MAX_OUTPUT)) {
            Some(Ok(d)) => (Some(d), None),
            Some(Err(e)) => (
                None,
                Some(ParseError {
                    path: "LZS".into(),
                    ..e
                }),
            ),
            None => (None, None),
        };
        if !compressed {
            // A model's container cut short decodes as far as it goes (the model's own
            // reader says what the cut left out).
            let cut = matches!(ext, "bsx" | "bcx")
                .then(|| cut_model_container(&file))
                .flatten();
            let declared = || u32::from_le_bytes([file[0], file[1], file[2], file[3]]) as usize;
            if let Some(d) = cut {
                let declared = declared();
                return Stored {
                    file,
                    decoded: Some(d),
                    compressed: true,
                    error: None,
                    header_says: Some(declared),
                };
            }
            if let Some((declared, d)) = disagreeing_container(&file, starts_like) {
                return Stored {
                    file,
                    decoded: Some(d),
                    compressed: true,
                    error: None,
                    header_says: Some(declared),
                };
            }
        }
        Stored {
            file,
            decoded,
            compressed,
            error,
            header_says: None,
        }
    }
    /// A container cut short: the compressed length its header says (more than the file
    /// holds).
    pub fn cut(&self) -> Option<usize> {
        self.header_says
            .filter(|&n| n > self.file.len().saturating_sub(4))
    }
    /// Where the container's header disagrees with the file, in words: what it says and what
    /// the file holds.
    fn disagreement(&self) -> Option<String> {
        let says = self.header_says?;
        let holds = self.file.len().saturating_sub(4);
        let what = if says > holds {
            format!("{} short of them: cut short", says - holds)
        } else {
            format!("the {} after them are not read", holds - says)
        };
        Some(format!(
            "the LZS header says {says} compressed bytes, the file holds {holds} after it ({what})"
        ))
    }
    /// The stored bytes parsed by `parse` where the container could be read: → what parsed,
    /// and the error (the container's, or the parse's).
    pub fn parse<T>(
        &self,
        parse: impl FnOnce(&[u8]) -> Result<T, ParseError>,
    ) -> (Option<T>, Option<ParseError>) {
        match &self.error {
            Some(e) => (None, Some(e.clone())),
            None => match parse(self.bytes()) {
                Ok(parsed) => (Some(parsed), None),
                Err(e) => (None, Some(e)),
            },
        }
    }
    /// The finding at byte 0 where the container's header disagrees with the file
    /// (docs/formats/lzs.md, "Lengths"), for the document's diagnostics.
    pub fn header_finding(&self) -> Option<Diagnostic> {
        Some(Diagnostic {
            offset: 0,
            path: "LZS".into(),
            message: self.disagreement()?,
        })
    }
    /// The damage where the container's header disagrees with the file, for a file that
    /// otherwise reads: what lies in the bytes read is shown.
    pub fn header_damage(&self) -> Option<ParseError> {
        Some(ParseError::new(0, "LZS", self.disagreement()?))
    }
    /// Whether `error` is the container's header disagreeing with the file
    /// ([`Stored::header_damage`]): the file is damaged, and what it holds is shown.
    pub fn is_header_damage(&self, error: Option<&ParseError>) -> bool {
        error.is_some() && error.cloned() == self.header_damage()
    }
    /// The info pane's row where the container's header disagrees with the file.
    pub fn header_rows(&self) -> Vec<InfoRow> {
        self.disagreement()
            .map(|d| InfoRow::warning("LZS header", d))
            .into_iter()
            .collect()
    }
    /// The bytes the format's offsets refer to.
    pub fn bytes(&self) -> &[u8] {
        self.decoded.as_deref().unwrap_or(&self.file)
    }
    /// The container's length, when there is one.
    pub fn container(&self) -> Option<usize> {
        self.compressed.then_some(self.file.len())
    }
    /// Byte view 0 the format's bytes, 1 the container's.
    pub fn view(&self, view: usize) -> Option<&[u8]> {
        match (view, &self.decoded) {
            (0, _) => Some(self.bytes()),
            (1, Some(_)) => Some(&self.file),
            _ => None,
        }
    }
    pub fn bytes_row(&self) -> InfoRow {
        InfoRow::new(
            "bytes",
            match &self.decoded {
                Some(d) if self.cut().is_some() => format!(
                    "{} compressed (LZS, cut short: its header says {}) · {} decompressed",
                    self.file.len(),
                    self.cut().unwrap_or(0) + 4,
                    d.len()
                ),
                Some(d) if self.header_says.is_some() => format!(
                    "{} compressed (LZS, of which its header says {}) · {} decompressed",
                    self.file.len(),
                    self.header_says.unwrap_or(0) + 4,
                    d.len()
                ),
                Some(d) => format!(
                    "{} compressed (LZS) · {} decompressed",
                    self.file.len(),
                    d.len()
                ),
                None if self.compressed => format!("{} (LZS, not decompressed)", self.file.len()),
                None => format!("{} (not compressed)", self.file.len()),
            },
        )
    }
    /// The inspector of a file that did not parse: its bytes, unclaimed, and the error.
    pub fn failed_view(&self, format: &'static str, error: Option<ParseError>) -> InspectorView {
        let mut view = InspectorView::flat(format, self.bytes().len(), ByteClass::Unclaimed);
        view.views = vec![ByteView {
            label: if self.compressed {
                "decompressed".into()
            } else {
                "file".into()
            },
            len: self.bytes().len(),
        }];
        if let Some(n) = self.container() {
            view.views.push(ByteView {
                label: "container".into(),
                len: n,
            });
        }
        view.error = error;
        view
    }
}

pub fn open(_path: &str, file: Vec<u8>, kind: Kind, purpose: Purpose) -> Box<dyn Document> {
    let (decoded, error) = match decode(&file, MAX_OUTPUT) {
        Ok(d) => (d, None),
        Err(e) => (Vec::new(), Some(e)),
    };
    let diagnostics = Vec::new();
    let inspector = purpose.describes().then(|| {
        let text = !decoded.is_empty() && looks_like_text(&decoded[..decoded.len().min(4096)]);
        let mut view = InspectorView::flat(
            "lzs",
            decoded.len(),
            if text {
                ByteClass::Text
            } else {
                ByteClass::Unclaimed
            },
        );
        view.views = vec![
            ByteView {
                label: "decompressed".into(),
                len: decoded.len(),
            },
            ByteView {
                label: "container".into(),
                len: file.len(),
            },
        ];
        view.diagnostics = diagnostics.clone();
        view.error = error.clone();
        view
    });
    Box::new(LzsDocument {
        kind,
        file,
        decoded,
        error,
        diagnostics,
        inspector,
    })
}

impl Document for LzsDocument {
    crate::common_accessors!();
    fn bytes(&self, view: usize) -> Option<&[u8]> {
        match view {
            0 => Some(&self.decoded),
            1 => Some(&self.file),
            _ => None,
        }
    }
    fn text(&self) -> Option<&str> {
        None
    }
}

impl crate::Describe for LzsDocument {
    crate::stored_inspector!();
    fn info<'a>(&'a self, _found: &'a crate::Found) -> Box<dyn crate::Info + 'a> {
        Box::new(LzsInfo {
            format: "lzs",
            kind: self.kind,
            bytes: self.file.len(),
            decompressed_bytes: self.decoded.len(),
            diagnostics: &self.diagnostics,
            decoded: &self.decoded,
        })
    }
}

/// What `info` says of an LZS file: both sizes, its warnings, and its start where it reads as
/// text.
#[derive(serde::Serialize)]
struct LzsInfo<'a> {
    format: &'static str,
    kind: Kind,
    bytes: usize,
    decompressed_bytes: usize,
    diagnostics: &'a [Diagnostic],
    #[serde(skip)]
    decoded: &'a [u8],
}

impl crate::Summary for LzsInfo<'_> {
    fn rows(&self) -> Vec<InfoRow> {
        let mut rows = vec![
            InfoRow::new("format", self.kind.title()),
            InfoRow::new(
                "bytes",
                format!(
                    "{} compressed · {} decompressed ({:.2}×)",
                    self.bytes,
                    self.decompressed_bytes,
                    self.decompressed_bytes as f64 / self.bytes.max(1) as f64
                ),
            ),
        ];
        let decoded = self.decoded;
        if !decoded.is_empty() && looks_like_text(&decoded[..decoded.len().min(4096)]) {
            rows.push(InfoRow::new(
                "decompressed text",
                decode_text(&decoded[..decoded.len().min(200)]),
            ));
        }
        rows.extend(
            self.diagnostics
                .iter()
                .map(|d| InfoRow::warning(format!("warning @{}", d.offset), d.message.clone())),
        );
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_notes_vectors_decode() {
        assert_eq!(
            decode(&[4, 0, 0, 0, 0x01, 0x41, 0xEE, 0xFF], MAX_OUTPUT).unwrap(),
            vec![b'A'; 19]
        );
        assert_eq!(
            decode(&[3, 0, 0, 0, 0, 0, 0], MAX_OUTPUT).unwrap(),
            vec![0, 0, 0]
        );
        let mut v = vec![10, 0, 0, 0, 0xFF];
        v.extend(b"ABCDEFGH");
        v.push(0x01);
        assert_eq!(decode(&v, MAX_OUTPUT).unwrap(), b"ABCDEFGH");
    }

    #[test]
    fn output_is_bounded() {
        // 1,000 references of 18 bytes each from 2,125 bytes: 18,000 bytes out, never more.
        let stream: Vec<u8> = (0..125)
            .flat_map(|_| std::iter::once(0u8).chain([0xEE, 0xFF].repeat(8)))
            .collect();
        let out = decode_stream(&stream, usize::MAX).unwrap();
        assert_eq!(out.len(), 18_000);
        assert!(out.len() <= stream.len() * MAX_RATIO);
        let e = decode_stream(&stream, 1_000).unwrap_err();
        assert!(e.message.contains("at most 1000"), "{e}");
        assert!(e.offset < stream.len());
    }

    #[test]
    fn a_length_that_disagrees_with_the_file_is_an_error() {
        let e = decode(&[9, 0, 0, 0, 0xFF, b'a'], MAX_OUTPUT).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("says 9 bytes, the file holds 2"), "{e}");
        assert!(decode(&[1, 0], MAX_OUTPUT).is_err());
    }

    #[test]
    fn real_field_files_round_trip_through_the_encoder() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/testdata/ff7");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("the shared FF7 test data sits beside the repo")
        {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let packed = encode(&data);
            assert!(
                packed.len() < data.len(),
                "{}: {} → {}",
                path.display(),
                data.len(),
                packed.len()
            );
            assert_eq!(
                decode(&packed, MAX_OUTPUT).unwrap(),
                data,
                "{}",
                path.display()
            );
            if path.to_string_lossy().ends_with("_u.BSX") {
                // size_file: the first u32 of a BSX is its own size.
                assert_eq!(
                    u32::from_le_bytes(data[..4].try_into().unwrap()) as usize,
                    data.len(),
                    "{}",
                    path.display()
                );
                let doc =
                    crate::ff7::bsx::open("X.BSX", packed, crate::ff7::bsx::BSX, Purpose::Show);
                assert!(
                    doc.error().is_none() && doc.diagnostics().is_empty(),
                    "{:?}",
                    doc.error()
                );
                assert_eq!(doc.bytes(0).unwrap(), &data[..]);
                assert_eq!(
                    doc.bytes(1).unwrap().len(),
                    doc.inspector(crate::Found::NOTHING).unwrap().views[1].len,
                    "the container one view away"
                );
            }
            seen += 1;
        }
        assert!(seen >= 5, "{seen} files");
    }
}
