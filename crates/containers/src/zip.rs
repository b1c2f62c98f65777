//! ZIP files through the `zip` crate (ZIP64, data descriptors, data before the first record
//! as in a self-extracting program, every common method: docs/formats/containers.md, "ZIP"):
//! the central directory is listed once; an entry is inflated when it is read, and only to
//! the size the directory declares (a zip bomb stops there).

use super::{
    drop_duplicates, error, within, ByteSource, Container, ContainerError, ContainerKind, Entry,
    Limits, Progress, SourceReader, CHUNK,
};
use std::cell::RefCell;
use std::io::Read;
use std::rc::Rc;

pub struct ZipContainer {
    name: String,
    archive: RefCell<::zip::ZipArchive<SourceReader>>,
    entries: Vec<Entry>,
    /// The archive's index of each listed entry.
    indices: Vec<usize>,
    problems: Vec<ContainerError>,
    /// A prefix before the zip (a self-extracting program), said but not wrong.
    notes: Vec<ContainerError>,
    limits: Limits,
}

impl ZipContainer {
    pub fn open(
        name: &str,
        source: Rc<dyn ByteSource>,
        limits: Limits,
        progress: Progress,
    ) -> Result<ZipContainer, ContainerError> {
        let mut archive = ::zip::ZipArchive::new(SourceReader::new(source))
            .map_err(|e| error(name, None, format!("not a readable zip: {e}")))?;
        if archive.len() > limits.max_entries {
            return Err(error(
                name,
                None,
                format!(
                    "{} entries: more than the {} listed at most",
                    archive.len(),
                    limits.max_entries
                ),
            ));
        }
        let mut listed = Vec::new();
        let mut problems = Vec::new();
        let count = archive.len() as u64;
        for i in 0..archive.len() {
            progress(i as u64, count);
            let file = match archive.by_index_raw(i) {
                Ok(f) => f,
                Err(e) => {
                    problems.push(error(name, None, format!("entry {i}: {e}")));
                    continue;
                }
            };
            if file.is_dir() {
                continue;
            }
            let name = file
                .name()
                .map(|n| n.into_owned())
                .unwrap_or_else(|_| String::from_utf8_lossy(file.name_raw()).into_owned());
            let path = name.replace('\\', "/").trim_start_matches('/').to_string();
            listed.push((
                Entry {
                    path,
                    size: file.size(),
                },
                i,
            ));
        }
        // Said, not wrong: a self-extracting program, or another prefix, before the zip (its
        // offsets adjusted to it, as `zip -A` does, or not).
        let mut notes = Vec::new();
        if let Some(first) = (0..archive.len())
            .filter_map(|i| archive.by_index_raw(i).ok().map(|f| f.header_start()))
            .min()
            .filter(|&at| at > 0)
        {
            notes.push(error(name, Some(0), format!("the zip's first entry starts at byte {first}, after {first} bytes of something else (a self-extracting program?)")));
        }
        let (entries, kept) = drop_duplicates(
            name,
            listed.iter().map(|(e, _)| e.clone()).collect(),
            &mut problems,
        );
        let indices = kept.into_iter().map(|k| listed[k].1).collect();
        Ok(ZipContainer {
            name: name.to_string(),
            archive: RefCell::new(archive),
            entries,
            indices,
            problems,
            notes,
            limits,
        })
    }

    fn entry_error(
        &self,
        entry: &str,
        offset: Option<u64>,
        message: impl Into<String>,
    ) -> ContainerError {
        ContainerError {
            container: self.name.clone(),
            entry: Some(entry.to_string()),
            offset,
            message: message.into(),
        }
    }

    fn listed(&self, index: usize) -> Result<(&Entry, usize), ContainerError> {
        match (self.entries.get(index), self.indices.get(index)) {
            (Some(entry), Some(&at)) => Ok((entry, at)),
            _ => Err(error(&self.name, None, format!("no entry {index}"))),
        }
    }

    /// Entry `index` as a reader of its bytes (inflated or decoded by its method), handed to
    /// `read` with the entry and where its data starts, once what it declares has passed the
    /// limits: the largest entry read, and the ratio to what is stored (a zip bomb stops
    /// here). An encrypted entry, or one in a method not read, is an error naming it.
    fn with_entry<T>(
        &self,
        index: usize,
        read: impl FnOnce(&mut (dyn Read + '_), &Entry, u64) -> Result<T, ContainerError>,
    ) -> Result<T, ContainerError> {
        let (entry, at) = self.listed(index)?;
        let mut archive = self.archive.borrow_mut();
        let (encrypted, method, size, stored, start, crc) = {
            let raw = archive
                .by_index_raw(at)
                .map_err(|e| self.entry_error(&entry.path, None, e.to_string()))?;
            (
                raw.encrypted(),
                raw.compression(),
                raw.size(),
                raw.compressed_size(),
                raw.data_start().unwrap_or(raw.header_start()),
                raw.crc32(),
            )
        };
        if encrypted {
            return Err(self.entry_error(
                &entry.path,
                Some(start),
                "encrypted (ZipCrypto or AES): not read",
            ));
        }
        if size > self.limits.max_entry_bytes {
            return Err(self.entry_error(
                &entry.path,
                Some(start),
                format!(
                    "declares {size} bytes: more than the {} read at most",
                    self.limits.max_entry_bytes
                ),
            ));
        }
        if size > 1 << 20 && size / stored.max(1) > self.limits.max_ratio {
            return Err(self.entry_error(
                &entry.path,
                Some(start),
                format!(
                    "declares {size} bytes from {stored} stored: more than {} times as many",
                    self.limits.max_ratio
                ),
            ));
        }
        let cannot = |e: ::zip::result::ZipError| {
            self.entry_error(&entry.path, Some(start), not_read(method, e))
        };
        if method == ::zip::CompressionMethod::ZSTD {
            let raw = archive.by_index_raw(at).map_err(cannot)?;
            let mut decoded =
                zstd_entry(raw, crc).map_err(|e| self.entry_error(&entry.path, Some(start), e))?;
            return read(&mut decoded, entry, start);
        }
        let mut file = archive.by_index(at).map_err(cannot)?;
        read(&mut file, entry, start)
    }
}

/// Why an entry in `method` was not read, in words.
fn not_read(method: ::zip::CompressionMethod, e: ::zip::result::ZipError) -> String {
    match e {
        ::zip::result::ZipError::UnsupportedArchive(_) => {
            format!("compressed with {method}: not read")
        }
        e => e.to_string(),
    }
}

/// Zstandard's zip method (APPNOTE 4.4.5), which ruzstd decodes: the zip crate's own needs C.
pub(crate) const ZSTD_METHOD: u16 = 93;

/// The largest window a Zstandard entry's frame may declare: 128 MiB (window log 27), the
/// bound zstd's own decoder keeps to unless told otherwise. Encoders that stream declare a
/// window by their level, not by the entry (2 MiB for a few hundred bytes), so the entry's
/// size is no bound. What the window costs in memory is at most the entry's decoded size
/// (the decoder's buffer grows with its output), which the entry limits bound already.
pub const ZSTD_MAX_WINDOW: u64 = 128 << 20;

/// A Zstandard entry's bytes (zip method 93), decoded as they are read and checked against
/// its CRC-32 at their end. A frame whose window is larger than [`ZSTD_MAX_WINDOW`] is
/// refused, naming both, before anything is allocated.
pub(crate) fn zstd_entry<R: Read>(raw: R, crc: u32) -> Result<impl Read, String> {
    let mut frame = ruzstd::decoding::FrameDecoder::new();
    frame.set_max_window_size(ZSTD_MAX_WINDOW);
    let decoder = ruzstd::decoding::StreamingDecoder::new_with_decoder(raw, frame).map_err(|e| match e {
        ruzstd::decoding::errors::FrameDecoderError::WindowSizeTooBig { requested, max } => format!("its Zstandard frame asks for a window of {requested} bytes: more than the {max} read at most"),
        e => format!("not a Zstandard frame: {e}"),
    })?;
    Ok(Crc32Checked {
        inner: decoder,
        crc: crc32fast::Hasher::new(),
        want: crc,
    })
}

/// A reader whose bytes must end with the CRC-32 `want` (the zip crate checks its own
/// methods so; this does it for those it does not decode).
struct Crc32Checked<R> {
    inner: R,
    crc: crc32fast::Hasher,
    want: u32,
}

impl<R: Read> Read for Crc32Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            let got = self.crc.clone().finalize();
            if got != self.want {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("CRC-32 {got:08x}, the directory says {:08x}", self.want),
                ));
            }
        }
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

impl Container for ZipContainer {
    fn kind(&self) -> ContainerKind {
        ContainerKind::Zip
    }
    fn entries(&self) -> &[Entry] {
        &self.entries
    }
    fn problems(&self) -> &[ContainerError] {
        &self.problems
    }
    fn notes(&self) -> &[ContainerError] {
        &self.notes
    }
    fn located(&self, index: usize) -> Option<u64> {
        let (_, at) = self.listed(index).ok()?;
        self.archive
            .borrow_mut()
            .by_index_raw(at)
            .ok()
            .map(|f| f.header_start())
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        self.with_entry(index, |file, entry, start| {
            let size = entry.size;
            let mut out = Vec::with_capacity(size as usize);
            // One byte more than declared tells an entry that inflates past its size.
            file.take(size + 1)
                .read_to_end(&mut out)
                .map_err(|e| self.entry_error(&entry.path, Some(start), cannot_read(&e)))?;
            if out.len() as u64 != size {
                let what = if out.len() as u64 > size {
                    "more".to_string()
                } else {
                    out.len().to_string()
                };
                return Err(self.entry_error(
                    &entry.path,
                    Some(start),
                    format!("inflates to {what} bytes; the directory declares {size}"),
                ));
            }
            Ok(out)
        })
    }
    fn stream(
        &self,
        index: usize,
        skip: u64,
        take: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), ContainerError> {
        self.with_entry(index, |file, entry, start| {
            let size = entry.size;
            if !within(skip, take, size) {
                return Err(self.entry_error(
                    &entry.path,
                    Some(start),
                    format!(
                        "bytes {skip}..{} asked of {size}",
                        skip.saturating_add(take)
                    ),
                ));
            }
            // Inflated from the start (a compressed stream has no index), handed on from `skip`.
            let end = skip + take;
            let mut buf = vec![0u8; CHUNK];
            let mut pos = 0u64;
            while pos < end {
                let n = fill(file, &mut buf)
                    .map_err(|e| self.entry_error(&entry.path, Some(start), cannot_read(&e)))?;
                if n == 0 {
                    return Err(self.entry_error(
                        &entry.path,
                        Some(start),
                        format!("inflates to {pos} bytes; the directory declares {size}"),
                    ));
                }
                let (lo, hi) = (skip.max(pos), end.min(pos + n as u64));
                if lo < hi {
                    sink(&buf[(lo - pos) as usize..(hi - pos) as usize])
                        .map_err(|e| self.entry_error(&entry.path, Some(start), e))?;
                }
                pos += n as u64;
            }
            // A stream to the entry's end reads on to the input's end, where its CRC-32 is
            // checked (the last chunk may have filled exactly): a mismatch is an error of the
            // stream, after its last chunk. A range short of the end is not checked.
            if end == size && pos == size {
                let mut probe = [0u8; 1];
                match file.read(&mut probe) {
                    Ok(0) => {}
                    Ok(_) => {
                        return Err(self.entry_error(
                            &entry.path,
                            Some(start),
                            format!("inflates past the {size} bytes the directory declares"),
                        ))
                    }
                    Err(e) => {
                        return Err(self.entry_error(&entry.path, Some(start), cannot_read(&e)))
                    }
                }
            }
            Ok(())
        })
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        self.with_entry(index, |file, entry, start| {
            let mut out = Vec::with_capacity(n.min(entry.size as usize));
            file.take(n as u64)
                .read_to_end(&mut out)
                .map_err(|e| self.entry_error(&entry.path, Some(start), cannot_read(&e)))?;
            Ok(out)
        })
    }
}

/// Read until `buf` is full or the input ends (an inflater hands out a little at a time;
/// the stream's pieces stay whole chunks).
fn fill(input: &mut (impl Read + ?Sized), buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Why an entry's bytes could not be read, in words: the zip crate calls a CRC-32 that does
/// not match "Invalid checksum".
fn cannot_read(e: &std::io::Error) -> String {
    if e.to_string() == "Invalid checksum" {
        "cannot be read: its CRC-32 does not match the directory's (the entry is damaged)"
            .to_string()
    } else {
        format!("cannot be read: {e}")
    }
}
