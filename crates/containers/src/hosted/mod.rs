//! Containers on a static host, read by HTTP Range requests: which byte ranges of a
//! container each entry needs ([`plan`], when an archive is published), and an entry's
//! bytes rebuilt from those ranges alone ([`read_hosted`], in the page). The same readers
//! as for a whole container do the work: publishing records what they read, the page gives
//! them only that. docs/formats/containers.md, "Hosted containers".

use super::disc::SectorMode;
use super::iso::{disc_volume, IsoContainer};
use super::{
    chd, error, zip as zipfile, ByteSource, Container, ContainerError, ContainerKind, Limits,
    SourceReader,
};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

mod index;
pub use index::{
    read_index, HostedContainer, HostedEntry, HostedFile, HostedIndex, Inside, ReadIndex,
};
use std::io::{Read, Seek, SeekFrom};
use std::rc::Rc;

/// How a container's entries lie in its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Layout {
    /// A zip: an entry is its local header and its stored or compressed data.
    Zip,
    /// A disc image (ISO, raw rip, a cue sheet's track): 2048-byte sectors stored in `mode`
    /// ([`SectorMode::word`]) from sector `start` on.
    Disc { mode: String, start: u64 },
    /// A CHD: its header and map (the container's `meta` ranges), then the hunks an entry's
    /// sectors are in.
    Chd,
}

impl Layout {
    /// The layout of a container of `kind` (a raw disc in its mode, from sector 0); none for
    /// a 7z, whose entries are not ranges of it (a solid block is decoded from its start).
    pub fn of(kind: ContainerKind) -> Option<Layout> {
        match kind {
            ContainerKind::Zip => Some(Layout::Zip),
            ContainerKind::Iso => Some(Layout::Disc {
                mode: SectorMode::Cooked.word().into(),
                start: 0,
            }),
            ContainerKind::RawDisc(mode) => Some(Layout::Disc {
                mode: mode.word().into(),
                start: 0,
            }),
            ContainerKind::Chd => Some(Layout::Chd),
            ContainerKind::SevenZ => None,
        }
    }
}

/// Byte ranges `[offset, length]`, sorted, those that touch or overlap made one.
pub fn merge(mut ranges: Vec<[u64; 2]>) -> Vec<[u64; 2]> {
    ranges.retain(|r| r[1] > 0);
    ranges.sort_unstable();
    let mut out: Vec<[u64; 2]> = Vec::with_capacity(ranges.len());
    for [at, len] in ranges {
        match out.last_mut() {
            Some(last) if at <= last[0] + last[1] => last[1] = last[1].max(at + len - last[0]),
            _ => out.push([at, len]),
        }
    }
    out
}

/// A source that notes every range read from it.
struct Recording {
    inner: Rc<dyn ByteSource>,
    reads: RefCell<Vec<[u64; 2]>>,
}

impl Recording {
    fn take(&self) -> Vec<[u64; 2]> {
        merge(std::mem::take(&mut *self.reads.borrow_mut()))
    }
}

impl ByteSource for Recording {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.reads.borrow_mut().push([offset, buf.len() as u64]);
        self.inner.read_at(offset, buf)
    }
}

/// One entry of a hosted container: where it starts (see [`Container::located`]), its
/// bytes' CRC-32, the container's ranges it is read from, and for a disc file written in
/// several extents, those extents (see [`Container::pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEntry {
    pub index: usize,
    pub at: u64,
    pub crc32: u32,
    pub ranges: Vec<[u64; 2]>,
    pub pieces: Option<Vec<[u64; 2]>>,
}

/// A container planned for a static host: the ranges every read needs first (a CHD's
/// header and map), and each entry's.
pub struct Plan {
    pub container: Box<dyn Container>,
    pub meta: Vec<[u64; 2]>,
    pub entries: Vec<PlannedEntry>,
    /// Entries that could not be read, with why (they are left out).
    pub unread: Vec<ContainerError>,
}

/// Read every entry of the container in `source` (laid out as `layout`) once, noting the
/// ranges each read took; `each(index, bytes)` sees each entry's bytes (to type it).
pub fn plan(
    name: &str,
    layout: &Layout,
    source: Rc<dyn ByteSource>,
    limits: Limits,
    each: &mut dyn FnMut(usize, &[u8]),
) -> Result<Plan, ContainerError> {
    let rec = Rc::new(Recording {
        inner: source,
        reads: RefCell::new(Vec::new()),
    });
    let (container, meta) = open_recorded(name, layout, &rec, limits)?;
    rec.take();
    let mut entries = Vec::new();
    let mut unread = Vec::new();
    for (index, entry) in container.entries().iter().enumerate() {
        if let Some(why) = container.not_as_stored(index) {
            unread.push(ContainerError {
                container: name.to_string(),
                entry: Some(entry.path.clone()),
                offset: container.located(index),
                message: why.to_string(),
            });
            continue;
        }
        container.forget();
        rec.take();
        let bytes = match container.read(index) {
            Ok(b) => b,
            Err(e) => {
                rec.take();
                unread.push(e);
                continue;
            }
        };
        let Some(at) = container.located(index) else {
            unread.push(error(
                name,
                None,
                format!("{}: its place in the container is not known", entry.path),
            ));
            continue;
        };
        let mut ranges = rec.take();
        if matches!(layout, Layout::Zip) {
            // One span from the local header to the data's end: the crate reads the header's
            // name and extra field by their lengths, which the replay reads in turn.
            let end = ranges.iter().map(|r| r[0] + r[1]).max().unwrap_or(at);
            ranges = vec![[at, end.saturating_sub(at)]];
        }
        each(index, &bytes);
        entries.push(PlannedEntry {
            index,
            at,
            crc32: crc32fast::hash(&bytes),
            ranges,
            pieces: container.pieces(index),
        });
    }
    Ok(Plan {
        container,
        meta,
        entries,
        unread,
    })
}

/// Byte ranges `[start, length]` of a container's bytes.
type Ranges = Vec<[u64; 2]>;

/// The container laid out as `layout` opened through `rec`, and the ranges a disc's volume
/// took to find (its metadata: the sectors of its descriptors, a CHD's header and map).
fn open_recorded(
    name: &str,
    layout: &Layout,
    rec: &Rc<Recording>,
    limits: Limits,
) -> Result<(Box<dyn Container>, Ranges), ContainerError> {
    let opened: (Box<dyn Container>, Ranges) = match layout {
        Layout::Zip => (
            Box::new(zipfile::ZipContainer::open(
                name,
                rec.clone(),
                limits,
                &mut |_, _| {},
            )?),
            Vec::new(),
        ),
        Layout::Disc { .. } | Layout::Chd => {
            let view = volume(name, layout, rec.clone())?;
            let meta = rec.take();
            let kind = if matches!(layout, Layout::Chd) {
                ContainerKind::Chd
            } else {
                ContainerKind::Iso
            };
            (
                Box::new(IsoContainer::open(
                    name,
                    view,
                    SectorMode::Cooked,
                    0,
                    kind,
                    limits,
                    &mut |_, _| {},
                )?),
                meta,
            )
        }
    };
    Ok(opened)
}

/// The 2048-byte sectors of a disc or a CHD laid out as `layout` in `source`.
pub fn volume(
    name: &str,
    layout: &Layout,
    source: Rc<dyn ByteSource>,
) -> Result<Rc<dyn ByteSource>, ContainerError> {
    match layout {
        Layout::Zip => Err(error(name, None, "a zip has no sectors")),
        Layout::Disc { mode, start } => {
            let mode = SectorMode::from_word(mode).ok_or_else(|| {
                error(
                    name,
                    None,
                    format!("sector mode {mode:?}: expected COOKED, MODE1 or MODE2"),
                )
            })?;
            Ok(disc_volume(source, mode, *start).0)
        }
        Layout::Chd => chd::volume(name, source),
    }
}

/// Some ranges of a container of `len` bytes, fetched from its host; a read outside them is
/// an error (the index does not match the container), and the source keeps the first such
/// read, so that a caller tells the index's fault from the container's without reading the
/// words of an error.
pub struct Fetched {
    len: u64,
    pieces: Vec<(u64, Vec<u8>)>,
    /// The first read that asked for bytes not fetched: `[start, end)`.
    missed: std::cell::Cell<Option<[u64; 2]>>,
}

impl Fetched {
    /// `pieces` are (offset, bytes); each must lie within `len`.
    pub fn new(len: u64, mut pieces: Vec<(u64, Vec<u8>)>) -> Result<Fetched, String> {
        if let Some((at, b)) = pieces
            .iter()
            .find(|(at, b)| at.checked_add(b.len() as u64).is_none_or(|end| end > len))
        {
            return Err(format!(
                "{} bytes fetched at byte {at} run past the container's {len}",
                b.len()
            ));
        }
        pieces.sort_by_key(|(at, _)| *at);
        Ok(Fetched {
            len,
            pieces,
            missed: std::cell::Cell::new(None),
        })
    }

    /// The first read that asked for bytes outside the ranges fetched, if one did.
    pub fn missed(&self) -> Option<[u64; 2]> {
        self.missed.get()
    }
}

impl ByteSource for Fetched {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| {
                format!(
                    "{} bytes at byte {offset} run past the end ({} bytes)",
                    buf.len(),
                    self.len
                )
            })?;
        if buf.is_empty() {
            return Ok(());
        }
        // The last piece starting at or before `offset`.
        let k = self.pieces.partition_point(|(at, _)| *at <= offset);
        match k.checked_sub(1).map(|k| &self.pieces[k]) {
            Some((at, bytes)) if end <= at + bytes.len() as u64 => {
                let from = (offset - at) as usize;
                buf.copy_from_slice(&bytes[from..from + buf.len()]);
                Ok(())
            }
            _ => {
                if self.missed.get().is_none() {
                    self.missed.set(Some([offset, end]));
                }
                Err(format!(
                    "bytes {offset}..{end} were not among the ranges the index names"
                ))
            }
        }
    }
}

/// Where an entry is and what its bytes must be, as the index says: `pieces` are a disc
/// file's extents (`[first byte, length]` in the disc's sectors) when it has several.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub at: u64,
    pub size: u64,
    pub crc32: u32,
    pub pieces: Option<Vec<[u64; 2]>>,
}

/// Most extents one hosted disc file may name (the index is a file from the host).
pub const MAX_PIECES: usize = 4096;

/// An entry's bytes from its container's fetched ranges, checked against the index's CRC:
/// bytes that differ mean the container changed after it was published.
pub fn read_hosted(
    name: &str,
    entry: &str,
    layout: &Layout,
    fetched: Fetched,
    wanted: Wanted,
    limits: Limits,
) -> Result<Vec<u8>, ContainerError> {
    let fail = |offset: Option<u64>, message: String| ContainerError {
        container: name.to_string(),
        entry: Some(entry.to_string()),
        offset,
        message,
    };
    if let Some(refused) = size_refused(layout, &fetched, &wanted, limits) {
        return Err(fail(None, refused));
    }
    // Bytes that were read when the index was written and cannot be now are not the same
    // bytes (a read outside the ranges fetched is the index's fault, and says so itself).
    let fetched = Rc::new(fetched);
    let changed = |e: String| {
        if fetched.missed().is_some() {
            e
        } else {
            format!("{e}: the container is not the one indexed (changed since?); publish it again")
        }
    };
    let bytes = match layout {
        Layout::Zip => read_zip_entry(fetched.clone(), &wanted)
            .map_err(|e| fail(Some(wanted.at), changed(e)))?,
        _ => {
            let view = volume(name, layout, fetched.clone())
                .map_err(|e| fail(None, changed(e.to_string())))?;
            let pieces = disc_extents(&wanted, view.len()).map_err(|(at, e)| fail(at, e))?;
            let mut out = vec![0u8; wanted.size as usize];
            let mut filled = 0usize;
            for [at, len] in pieces {
                view.read_at(at, &mut out[filled..filled + len as usize])
                    .map_err(|e| fail(Some(at), changed(e)))?;
                filled += len as usize;
            }
            out
        }
    };
    let crc = crc32fast::hash(&bytes);
    if crc != wanted.crc32 {
        return Err(fail(
            None,
            format!("its bytes on the host are not those indexed (CRC-32 {crc:08x}, the index says {:08x}): the container changed after the index was written; publish it again", wanted.crc32),
        ));
    }
    Ok(bytes)
}

/// Why an entry of `wanted.size` bytes is not read, if it is not: more than an entry may
/// be, or more than its fetched bytes can hold. Nothing is allocated by the index's word
/// alone: an entry is at most what was fetched for it, or, compressed (a zip's, a CHD's),
/// the ratio a zip bomb stops at.
fn size_refused(
    layout: &Layout,
    fetched: &Fetched,
    wanted: &Wanted,
    limits: Limits,
) -> Option<String> {
    if wanted.size > limits.max_entry_bytes {
        return Some(format!(
            "{} bytes: more than the {} read at most",
            wanted.size, limits.max_entry_bytes
        ));
    }
    let fetched_bytes = fetched
        .pieces
        .iter()
        .map(|(_, b)| b.len() as u64)
        .sum::<u64>();
    let most = match layout {
        Layout::Disc { .. } => fetched_bytes,
        _ => fetched_bytes.saturating_mul(limits.max_ratio).max(1 << 20),
    };
    (wanted.size > most).then(|| {
        format!(
            "the index says {} bytes, more than its {fetched_bytes} fetched bytes can hold",
            wanted.size
        )
    })
}

/// The extents (`[at, len]`) a disc file's bytes are read from, checked before any is read:
/// at most MAX_PIECES, adding up to its size, none past the disc's `disc_len` bytes; an
/// empty one is left out (it holds nothing wherever it points).
fn disc_extents(wanted: &Wanted, disc_len: u64) -> Result<Vec<[u64; 2]>, (Option<u64>, String)> {
    let pieces = wanted
        .pieces
        .clone()
        .unwrap_or_else(|| vec![[wanted.at, wanted.size]]);
    if pieces.len() > MAX_PIECES {
        return Err((
            None,
            format!(
                "the index names {} extents: at most {MAX_PIECES} are read",
                pieces.len()
            ),
        ));
    }
    let total = pieces.iter().try_fold(0u64, |n, p| n.checked_add(p[1]));
    if total != Some(wanted.size) {
        return Err((
            None,
            format!(
                "the index's extents add up to {}, not its {} bytes",
                total.map_or("more than 2^64".into(), |t| t.to_string()),
                wanted.size
            ),
        ));
    }
    let pieces: Vec<[u64; 2]> = pieces.into_iter().filter(|p| p[1] > 0).collect();
    if let Some(&[at, len]) = pieces
        .iter()
        .find(|[at, len]| at.checked_add(*len).is_none_or(|end| end > disc_len))
    {
        return Err((
            Some(at),
            format!("{len} bytes lie past the disc's end ({disc_len} bytes)"),
        ));
    }
    Ok(pieces)
}

/// A zip entry from its local header on, by the zip crate, which is told the sizes and CRC
/// the index gives (a header that defers them to a data descriptor, as a zip written to a
/// stream does, has none of its own); a Zstandard entry by ruzstd, as in zip.rs.
fn read_zip_entry(source: Rc<Fetched>, wanted: &Wanted) -> Result<Vec<u8>, String> {
    const HEADER: u64 = 30;
    let mut head = [0u8; HEADER as usize];
    source.read_at(wanted.at, &mut head)?;
    let word = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]) as u64;
    let data = wanted.at + HEADER + word(26) + word(28);
    // The fetched span runs from the header to the data's end.
    let end = source
        .pieces
        .iter()
        .find(|(at, b)| *at <= wanted.at && wanted.at < at + b.len() as u64)
        .map_or(data, |(at, b)| at + b.len() as u64);
    let stored = end.checked_sub(data).ok_or_else(|| {
        format!(
            "a local header whose name and extra field ({} bytes) run past the {} bytes fetched",
            data - wanted.at,
            end - wanted.at
        )
    })?;
    if word(6) & 1 != 0 {
        return Err("encrypted (ZipCrypto or AES): not read".into());
    }
    let mut reader = SourceReader::new(source.clone());
    if word(8) == super::zip::ZSTD_METHOD as u64 {
        reader
            .seek(SeekFrom::Start(data))
            .map_err(|e| e.to_string())?;
        return inflate_local(
            &mut super::zip::zstd_entry(reader.take(stored), wanted.crc32)?,
            wanted.size,
        );
    }
    reader
        .seek(SeekFrom::Start(wanted.at))
        .map_err(|e| e.to_string())?;
    let options = ::zip::ZipReadOptions::default()
        .override_compressed_size(stored)
        .override_uncompressed_size(wanted.size)
        .override_crc(wanted.crc32);
    let mut file = ::zip::read::read_zipfile_from_stream_with_options(&mut reader, options)
        .map_err(|e| format!("not a zip entry's local header: {e}"))?
        .ok_or("not a zip entry's local header")?;
    inflate_local(&mut file, wanted.size)
}

fn inflate_local(input: &mut impl Read, size: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(size as usize);
    // One byte more than declared tells an entry that inflates past its size.
    input
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if out.len() as u64 != size {
        return Err(format!(
            "inflates to {} bytes; the index says {size}",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_that_touch_or_overlap_become_one() {
        assert_eq!(
            merge(vec![[10, 5], [0, 10], [30, 2], [14, 3], [40, 0]]),
            vec![[0, 17], [30, 2]]
        );
        assert_eq!(merge(vec![[5, 100], [10, 5]]), vec![[5, 100]]);
    }

    #[test]
    fn fetched_bytes_answer_only_within_their_pieces() {
        let f = Fetched::new(100, vec![(50, vec![5; 10]), (0, vec![1; 10])]).unwrap();
        let mut b = [0u8; 4];
        f.read_at(52, &mut b).unwrap();
        assert_eq!(b, [5; 4]);
        assert!(f
            .read_at(8, &mut b)
            .unwrap_err()
            .contains("not among the ranges"));
        assert!(f.read_at(98, &mut b).is_err());
        assert!(Fetched::new(10, vec![(8, vec![0; 4])]).is_err());
    }

    #[test]
    fn a_disc_file_in_extents_reads_them_in_order_and_an_empty_one_reads_nothing_wherever_it_points(
    ) {
        let disc: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
        let layout = Layout::Disc {
            mode: "COOKED".into(),
            start: 0,
        };
        let want: Vec<u8> = [&disc[100..105], &disc[50..55]].concat();
        let wanted = Wanted {
            at: 100,
            size: 10,
            crc32: crc32fast::hash(&want),
            pieces: Some(vec![[100, 5], [1 << 40, 0], [50, 5]]),
        };
        let got = read_hosted(
            "d.iso",
            "F",
            &layout,
            Fetched::new(4096, vec![(0, disc.clone())]).unwrap(),
            wanted.clone(),
            Limits::default(),
        )
        .unwrap();
        assert_eq!(got, want);
        let wrong = Wanted {
            pieces: Some(vec![[100, 5], [50, 4]]),
            ..wanted
        };
        assert!(read_hosted(
            "d.iso",
            "F",
            &layout,
            Fetched::new(4096, vec![(0, disc)]).unwrap(),
            wrong,
            Limits::default()
        )
        .unwrap_err()
        .to_string()
        .contains("add up to 9, not its 10 bytes"));
    }
}
