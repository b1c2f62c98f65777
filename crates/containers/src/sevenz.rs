//! 7z archives through the `sevenz-rust2` crate (pure Rust: LZMA, LZMA2, PPMd, BZip2,
//! Deflate, and the BCJ filters): the header is read once, at open, and lists every entry;
//! an entry is decoded when it is asked for. Entries in a solid block can only be reached
//! by decoding the block from its start: the entries before the one asked for are decoded as
//! a stream, and those small enough are kept (within a cap) for the opens that tend to
//! follow — the files beside it. docs/formats/containers.md, "7z".

use super::{
    drop_duplicates, error, within, ByteSource, Container, ContainerError, ContainerKind,
    DecodedStore, Entry, Limits, Progress, SourceReader, CHUNK,
};
use sevenz_rust2::{Archive, ArchiveEntry, BlockDecoder, Password};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::rc::Rc;

/// The 7z signature.
pub const MAGIC: [u8; 6] = [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C];
/// The signature header: the signature, the version (2), the start header's CRC (4), then
/// the start header: the next header's offset (8, from the end of these 32 bytes), size (8)
/// and CRC (4).
const SIGNATURE_HEADER: usize = 32;
/// How far into a self-extracting program the archive is looked for (7-Zip's own modules
/// are under 1 MiB).
pub const SFX_SCAN: usize = 4 << 20;
/// Deflate64's method id (7-Zip's Methods.txt: 04 01 09).
const DEFLATE64: [u8; 3] = [4, 1, 9];
/// The largest dictionary or model a block's decoders may ask for, in KiB (7-Zip's ultra
/// preset uses 64 MiB; a header that asks for more is refused before anything is allocated).
const DECODER_MEMORY_KB: usize = 256 << 10;
/// The largest header read (once decoded), in KiB, and the largest single allocation while
/// reading it: the reader sizes its tables by the header's counts, fallibly, and the ceiling
/// makes a count too large for it an error rather than gigabytes (containers::ceiling).
/// 200,000 entries (Limits::default) with 60-character paths fit in both.
const HEADER_MEMORY_KB: usize = 32 << 10;
const HEADER_ALLOCATION: usize = 64 << 20;
/// How much of the archive one read asks for.
const READ_AHEAD: usize = 1 << 20;
/// Decoded entries kept, in bytes, the oldest dropped first; and the largest entry kept.
const KEPT_BYTES: usize = 64 << 20;
const KEPT_ENTRY: usize = 8 << 20;
/// Each entry's first bytes kept once its block is decoded (what typing a file asks for).
const HEAD_BYTES: usize = 64;

pub fn is_7z(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// Whether `head` starts as a program does (a PE's `MZ`, an ELF): a self-extracting 7z is
/// one, with the archive after it.
pub fn is_program(head: &[u8]) -> bool {
    head.starts_with(b"MZ") || head.starts_with(b"\x7fELF")
}

/// Whether the 32 bytes at the start of `at` are a signature header: the signature, and
/// the start header's CRC-32 over its 20 bytes (a chance match of 6 bytes inside a program
/// is not one).
fn signature_header_at(at: &[u8]) -> bool {
    at.len() >= SIGNATURE_HEADER
        && is_7z(at)
        && crc32fast::hash(&at[12..32]) == u32::from_le_bytes([at[8], at[9], at[10], at[11]])
}

/// Where a 7z archive starts after the program in `head` (the first bytes of a file that
/// [`is_program`]), if it starts within them: a self-extracting archive, as 7-Zip's SFX
/// modules write it (the module, then the archive). docs/formats/containers.md, "7z".
pub fn sfx_start_in(head: &[u8]) -> Option<u64> {
    if !is_program(head) {
        return None;
    }
    let mut from = 0;
    while let Some(k) = head
        .get(from..)?
        .windows(MAGIC.len())
        .position(|w| w == MAGIC)
    {
        let at = from + k;
        if signature_header_at(&head[at..]) {
            return Some(at as u64);
        }
        from = at + 1;
    }
    None
}

/// [`sfx_start_in`] of the first [`SFX_SCAN`] bytes of `source`.
pub fn sfx_start(source: &dyn ByteSource) -> Option<u64> {
    let mut head = vec![0u8; source.len().min(SFX_SCAN as u64) as usize];
    source.read_at(0, &mut head).ok()?;
    sfx_start_in(&head)
}

/// The bytes of `inner` from `start` on: a self-extracting archive without its program.
struct After {
    inner: Rc<dyn ByteSource>,
    start: u64,
}

impl ByteSource for After {
    fn len(&self) -> u64 {
        self.inner.len() - self.start
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        let at = offset
            .checked_add(self.start)
            .ok_or_else(|| format!("byte {offset} is past the end"))?;
        self.inner.read_at(at, buf)
    }
}

/// A block this module decodes itself, where the 7z crate has no decoder: one coder, which
/// is Copy written with an empty method id (as some writers do for 00), or Deflate64.
#[derive(Debug, Clone, Copy, PartialEq)]
enum OwnCoder {
    Copy,
    Deflate64,
}

/// The largest encoded header looked at for [`copied_header`] (one packed stream and one
/// folder of one coder take under 40 bytes).
const ENCODED_HEADER_MAX: u64 = 256;

/// A 7z number (7zFormat.txt, "UINT64"): the first byte's leading ones say how many bytes
/// follow (little-endian, the low bytes), its other bits are the value's high part; →
/// (value, bytes used).
fn number(b: &[u8]) -> Option<(u64, usize)> {
    let first = *b.first()?;
    let extra = first.leading_ones() as usize;
    let mut value = 0u64;
    for k in 0..extra {
        value |= u64::from(*b.get(1 + k)?) << (8 * k);
    }
    if extra < 8 {
        value |= (u64::from(first) & ((0x80 >> extra) - 1)) << (8 * extra);
    }
    Some((value, 1 + extra))
}

/// An encoded header (kEncodedHeader) of the layout some writers use for a header they do
/// not compress: one packed stream, one folder of one Copy coder named by an empty method
/// id, which 7-Zip reads as 00 (Copy) and the 7z crate refuses (py7zr's copy_2.7z). Copy
/// keeps the bytes as they are, so the plain header is the packed stream itself: → where it
/// starts after the signature header, its length and its CRC-32 (from the folder, else
/// computed); None for any other header. docs/formats/containers.md, "7z".
fn copied_header(source: &dyn ByteSource) -> Result<Option<(u64, u64, u32)>, String> {
    let mut start = [0u8; SIGNATURE_HEADER];
    if source.read_at(0, &mut start).is_err() || !signature_header_at(&start) {
        return Ok(None);
    }
    let le64 = |at: usize| u64::from_le_bytes(start[at..at + 8].try_into().unwrap_or_default());
    let (offset, size) = (le64(12), le64(20));
    let crc = u32::from_le_bytes([start[28], start[29], start[30], start[31]]);
    if size == 0 || size > ENCODED_HEADER_MAX {
        return Ok(None);
    }
    let Some(at) = offset
        .checked_add(SIGNATURE_HEADER as u64)
        .filter(|a| a.checked_add(size).is_some_and(|e| e <= source.len()))
    else {
        return Ok(None);
    };
    let mut h = vec![0u8; size as usize];
    source.read_at(at, &mut h)?;
    if crc32fast::hash(&h) != crc {
        return Ok(None);
    }
    let parsed = copy_coded_header(&h);
    let Some((pack_pos, pack_size, unpack_size, folder_crc)) = parsed else {
        return Ok(None);
    };
    if pack_size != unpack_size {
        return Err(format!(
            "its header is stored by Copy in {pack_size} bytes but says it is {unpack_size}"
        ));
    }
    let header_at = pack_pos
        .checked_add(SIGNATURE_HEADER as u64)
        .filter(|a| a.checked_add(pack_size).is_some_and(|e| e <= source.len()));
    let Some(header_at) = header_at else {
        return Err(format!("its header, stored by Copy, lies at bytes {pack_pos}+{pack_size} after the signature header: past the archive's end"));
    };
    if pack_size > (HEADER_MEMORY_KB as u64) << 10 {
        return Err(format!(
            "its header is {} MB or more: more than the {} MB read at most",
            pack_size >> 20,
            HEADER_MEMORY_KB >> 10
        ));
    }
    let mut plain = vec![0u8; pack_size as usize];
    source.read_at(header_at, &mut plain)?;
    let computed = crc32fast::hash(&plain);
    if folder_crc.is_some_and(|c| c != computed) {
        return Err("its header's CRC does not match".into());
    }
    Ok(Some((pack_pos, pack_size, computed)))
}

/// An encoded header `h` that only says its header is stored by Copy under an empty method
/// id: kEncodedHeader, PackInfo (pack position, one stream, its size), UnpackInfo (one
/// folder of one coder whose flag byte is 0: an empty id, simple, no properties), its
/// unpacked size and CRC, then the ends of UnpackInfo and StreamsInfo. → the pack position,
/// packed and unpacked sizes and the folder's CRC; None for any other header.
fn copy_coded_header(h: &[u8]) -> Option<(u64, u64, u64, Option<u32>)> {
    let mut pos = 0;
    let byte = |pos: &mut usize| -> Option<u8> {
        let b = *h.get(*pos)?;
        *pos += 1;
        Some(b)
    };
    let num = |pos: &mut usize| -> Option<u64> {
        let (v, n) = number(h.get(*pos..)?)?;
        *pos += n;
        Some(v)
    };
    (byte(&mut pos)? == 0x17 && byte(&mut pos)? == 0x06).then_some(())?;
    let pack_pos = num(&mut pos)?;
    (num(&mut pos)? == 1 && byte(&mut pos)? == 0x09).then_some(())?;
    let pack_size = num(&mut pos)?;
    (byte(&mut pos)? == 0x00 && byte(&mut pos)? == 0x07 && byte(&mut pos)? == 0x0B).then_some(())?;
    (num(&mut pos)? == 1 && byte(&mut pos)? == 0 && num(&mut pos)? == 1 && byte(&mut pos)? == 0x00)
        .then_some(())?;
    (byte(&mut pos)? == 0x0C).then_some(())?;
    let unpack_size = num(&mut pos)?;
    let crc = match byte(&mut pos)? {
        0x0A if byte(&mut pos)? == 1 => {
            let b = h.get(pos..pos + 4)?;
            pos += 4;
            let crc = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            (byte(&mut pos)? == 0x00).then_some(Some(crc))?
        }
        0x00 => None,
        _ => return None,
    };
    (byte(&mut pos)? == 0x00 && pos == h.len()).then_some((pack_pos, pack_size, unpack_size, crc))
}

/// The archive with its start header pointing at the plain header a [`copied_header`]
/// stores (the bytes are the same; only the 20 bytes saying where the header is, and their
/// CRC, are read otherwise).
struct PlainHeader {
    inner: Rc<dyn ByteSource>,
    start: [u8; SIGNATURE_HEADER],
}

impl PlainHeader {
    fn new(
        inner: Rc<dyn ByteSource>,
        (offset, size, crc): (u64, u64, u32),
    ) -> Result<PlainHeader, String> {
        let mut start = [0u8; SIGNATURE_HEADER];
        inner.read_at(0, &mut start)?;
        start[12..20].copy_from_slice(&offset.to_le_bytes());
        start[20..28].copy_from_slice(&size.to_le_bytes());
        start[28..32].copy_from_slice(&crc.to_le_bytes());
        let start_crc = crc32fast::hash(&start[12..32]);
        start[8..12].copy_from_slice(&start_crc.to_le_bytes());
        Ok(PlainHeader { inner, start })
    }
}

impl ByteSource for PlainHeader {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.inner.read_at(offset, buf)?;
        // The part of the signature header the read covers comes from the one made here.
        for (k, b) in buf.iter_mut().enumerate() {
            match offset.checked_add(k as u64) {
                Some(at) if at < SIGNATURE_HEADER as u64 => *b = self.start[at as usize],
                _ => break,
            }
        }
        Ok(())
    }
    fn forget(&self) {
        self.inner.forget()
    }
}

fn own_coder(block: &sevenz_rust2::Block) -> Option<OwnCoder> {
    match block.coders.as_slice() {
        [only] if only.encoder_method_id().is_empty() => Some(OwnCoder::Copy),
        [only] if only.encoder_method_id() == DEFLATE64 => Some(OwnCoder::Deflate64),
        _ => None,
    }
}

pub struct SevenZContainer {
    name: String,
    archive: Archive,
    /// The archive, read in pieces of READ_AHEAD bytes (a page's read is a call into the
    /// browser; the decoders ask for a few kilobytes at a time).
    source: RefCell<BufReader<SourceReader>>,
    entries: Vec<Entry>,
    /// The archive's file index of each listed entry.
    files: Vec<usize>,
    problems: Vec<ContainerError>,
    /// What is said of the archive that is not wrong (a self-extracting program before it).
    notes: Vec<ContainerError>,
    limits: Limits,
    /// The listed index of each archive file index that is listed.
    listed_of: HashMap<usize, usize>,
    /// Entries decoded on the way to another (listed index, bytes), oldest first.
    kept: RefCell<VecDeque<(usize, Vec<u8>)>>,
    /// The first HEAD_BYTES of every entry decoded so far, by listed index.
    heads: RefCell<HashMap<usize, Vec<u8>>>,
    /// Where decoded entries are kept beyond this reader, if anywhere.
    store: Option<Box<dyn DecodedStore>>,
    /// Blocks decoded from their start so far.
    decodes: std::cell::Cell<u64>,
}

/// The archive in `source`: from its start, or after the self-extracting program before it
/// (said in `notes`).
fn archive_start(
    name: &str,
    source: Rc<dyn ByteSource>,
    notes: &mut Vec<ContainerError>,
) -> Result<Rc<dyn ByteSource>, ContainerError> {
    let mut head = [0u8; SIGNATURE_HEADER];
    match source.read_at(0, &mut head) {
        Ok(()) if is_7z(&head) => Ok(source),
        _ => match sfx_start(&*source) {
            Some(start) => {
                notes.push(error(
                    name,
                    Some(start),
                    format!(
                        "the 7z archive starts at byte {start}, after a self-extracting program of {start} bytes"
                    ),
                ));
                Ok(Rc::new(After {
                    inner: source,
                    start,
                }))
            }
            None => Err(error(
                name,
                Some(0),
                "not a readable 7z archive: no 7z signature, at its start or after a self-extracting program",
            )),
        },
    }
}

/// `source`, its header stored by Copy under an empty method id read from where it lies.
fn with_plain_header(
    name: &str,
    source: Rc<dyn ByteSource>,
) -> Result<Rc<dyn ByteSource>, ContainerError> {
    match copied_header(&*source) {
        Ok(Some(plain)) => Ok(Rc::new(PlainHeader::new(source.clone(), plain).map_err(
            |e| error(name, Some(0), format!("not a readable 7z archive: {e}")),
        )?)),
        Ok(None) => Ok(source),
        Err(e) => Err(error(
            name,
            header_offset(&*source),
            format!("not a readable 7z archive: {e}"),
        )),
    }
}

/// The archive's header, read within HEADER_MEMORY_KB and HEADER_ALLOCATION, and the reader
/// its entries are decoded from.
fn read_header(
    name: &str,
    source: Rc<dyn ByteSource>,
    limits: Limits,
) -> Result<(Archive, BufReader<SourceReader>), ContainerError> {
    let header_at = header_offset(&*source);
    let mut reader = BufReader::with_capacity(READ_AHEAD, SourceReader::new(source));
    let archive = super::ceiling::with_ceiling(HEADER_ALLOCATION, || {
        Archive::read_with_memory_limit(&mut reader, &Password::empty(), HEADER_MEMORY_KB)
    })
    .map_err(|e| match e {
        sevenz_rust2::Error::MaxMemLimited { actaul_kb, .. } => error(
            name,
            header_at,
            format!(
                "its header is {} MB or more: more than the {} MB read at most",
                actaul_kb >> 10,
                HEADER_MEMORY_KB >> 10
            ),
        ),
        e if said(&e).starts_with("cannot allocate") => error(
            name,
            header_at,
            format!(
                "its header declares more entries than fit in {} MB ({}); at most {} are listed",
                HEADER_ALLOCATION >> 20,
                said(&e),
                limits.max_entries
            ),
        ),
        e => error(
            name,
            header_at,
            format!("not a readable 7z archive: {}", said(&e)),
        ),
    })?;
    Ok((archive, reader))
}

/// The archive's files (not its directories or deletions) as entries, each with its index
/// among the archive's files.
fn listed_files(name: &str, archive: &Archive, progress: Progress) -> Vec<(Entry, usize)> {
    let mut listed = Vec::new();
    let count = archive.files.len() as u64;
    for (i, f) in archive.files.iter().enumerate() {
        progress(i as u64, count);
        if f.is_directory() || f.is_anti_item() {
            continue;
        }
        let path = f
            .name()
            .replace('\\', "/")
            .trim_start_matches('/')
            .to_string();
        // A file the header gives no name: 7-Zip calls it after the archive, less its
        // extension.
        let path = if path.is_empty() {
            nameless(name)
        } else {
            path
        };
        listed.push((
            Entry {
                path,
                size: f.size(),
            },
            i,
        ));
    }
    listed
}

impl SevenZContainer {
    pub fn open(
        name: &str,
        source: Rc<dyn ByteSource>,
        limits: Limits,
        progress: Progress,
    ) -> Result<SevenZContainer, ContainerError> {
        let mut notes = Vec::new();
        let source = archive_start(name, source, &mut notes)?;
        let mut head = [0u8; SIGNATURE_HEADER];
        source
            .read_at(0, &mut head)
            .map_err(|e| error(name, Some(0), format!("not a readable 7z archive: {e}")))?;
        // An archive of nothing: 7-Zip writes the signature header alone, its next header
        // empty (a header the crate would read past the end for).
        if signature_header_at(&head) && head[12..28].iter().all(|&b| b == 0) {
            let reader = BufReader::with_capacity(READ_AHEAD, SourceReader::new(source));
            return Ok(SevenZContainer::of(
                name,
                Archive::default(),
                reader,
                Vec::new(),
                Vec::new(),
                notes,
                limits,
            ));
        }
        let (archive, reader) = read_header(name, with_plain_header(name, source)?, limits)?;
        if archive.files.len() > limits.max_entries {
            return Err(error(
                name,
                None,
                format!(
                    "{} entries: more than the {} listed at most",
                    archive.files.len(),
                    limits.max_entries
                ),
            ));
        }
        let listed = listed_files(name, &archive, progress);
        let mut problems = Vec::new();
        let (entries, kept) = drop_duplicates(
            name,
            listed.iter().map(|(e, _)| e.clone()).collect(),
            &mut problems,
        );
        let files: Vec<usize> = kept.into_iter().map(|k| listed[k].1).collect();
        Ok(
            SevenZContainer::of(name, archive, reader, entries, files, notes, limits)
                .with_problems(problems),
        )
    }

    fn of(
        name: &str,
        archive: Archive,
        reader: BufReader<SourceReader>,
        entries: Vec<Entry>,
        files: Vec<usize>,
        notes: Vec<ContainerError>,
        limits: Limits,
    ) -> SevenZContainer {
        let listed_of = files.iter().enumerate().map(|(i, &f)| (f, i)).collect();
        SevenZContainer {
            name: name.to_string(),
            archive,
            source: RefCell::new(reader),
            entries,
            files,
            problems: Vec::new(),
            notes,
            limits,
            listed_of,
            kept: RefCell::new(VecDeque::new()),
            heads: RefCell::new(HashMap::new()),
            store: None,
            decodes: Default::default(),
        }
    }

    fn with_problems(mut self, problems: Vec<ContainerError>) -> SevenZContainer {
        self.problems = problems;
        self
    }

    fn entry_error(&self, index: usize, message: impl Into<String>) -> ContainerError {
        ContainerError {
            container: self.name.clone(),
            entry: self.entries.get(index).map(|e| e.path.clone()),
            offset: None,
            message: message.into(),
        }
    }

    /// Listed entry `index` from the store, if it is there whole: its declared size and CRC.
    /// An entry whose header gives no CRC is never stored: nothing could tell its bytes
    /// from a mangled copy.
    fn stored(&self, index: usize) -> Option<Vec<u8>> {
        let store = self.store.as_deref().filter(|_| self.in_store(index))?;
        let file = &self.archive.files[self.files[index]];
        let bytes = store.get(index)?;
        (bytes.len() as u64 == file.size() && crc32fast::hash(&bytes) as u64 == file.crc)
            .then_some(bytes)
    }

    /// Whether the store holds listed entry `index` (one it may hold).
    fn in_store(&self, index: usize) -> bool {
        self.store
            .as_deref()
            .is_some_and(|s| self.storable(index) && s.has(index))
    }

    /// The store, where listed entry `index` may go there and is not there yet.
    fn store_for(&self, index: usize) -> Option<&dyn DecodedStore> {
        self.store
            .as_deref()
            .filter(|s| self.storable(index) && !s.has(index))
    }

    /// Whether listed entry `index` may go to the store: its header gives its CRC.
    fn storable(&self, index: usize) -> bool {
        self.archive.files[self.files[index]].has_crc
    }

    /// Keep `bytes` of listed entry `index`, dropping the oldest kept beyond the cap.
    fn keep(&self, index: usize, bytes: Vec<u8>) {
        let mut kept = self.kept.borrow_mut();
        kept.push_back((index, bytes));
        while kept.iter().map(|(_, b)| b.len()).sum::<usize>() > KEPT_BYTES {
            kept.pop_front();
        }
    }
}

impl Container for SevenZContainer {
    fn kind(&self) -> ContainerKind {
        ContainerKind::SevenZ
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
    fn located(&self, _index: usize) -> Option<u64> {
        // A 7z entry is not a range of the file: it is read by decoding its block.
        None
    }
    fn forget(&self) {
        self.kept.borrow_mut().clear();
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        self.read_reporting(index, &mut |_, _| {})
    }
    fn read_each(
        &self,
        wanted: &[usize],
        each: &mut dyn FnMut(usize, Result<Vec<u8>, ContainerError>) -> bool,
    ) {
        self.read_each_by_block(wanted, each)
    }
    fn keep_decoded_in(&mut self, store: Box<dyn DecodedStore>) {
        self.store = Some(store);
    }
    fn keeps_decoded(&self) -> bool {
        self.store.is_some()
    }
    fn blocks_decoded(&self) -> u64 {
        self.decodes.get()
    }
    fn costs_a_decode(&self, index: usize) -> bool {
        self.archive.is_solid
            && self.files.get(index).is_some_and(|&f| {
                self.archive
                    .stream_map
                    .file_block_index
                    .get(f)
                    .copied()
                    .flatten()
                    .is_some()
            })
            && !self.kept.borrow().iter().any(|(i, _)| *i == index)
            && !self.in_store(index)
    }
    fn heads_are_costly(&self) -> bool {
        self.archive.is_solid
    }
    fn read_note(&self, index: usize) -> Option<String> {
        let file = *self.files.get(index)?;
        if self.kept.borrow().iter().any(|(i, _)| *i == index) || self.in_store(index) {
            return None;
        }
        let block = self
            .archive
            .stream_map
            .file_block_index
            .get(file)
            .copied()
            .flatten()?;
        let bytes = self.bytes_before(block, file);
        (bytes > 4 << 20).then(|| {
            format!(
                "decoding block {} of {} ({} MB)",
                block + 1,
                self.archive.blocks.len(),
                bytes.div_ceil(1_000_000)
            )
        })
    }
    fn read_reporting(&self, index: usize, progress: Progress) -> Result<Vec<u8>, ContainerError> {
        let (Some(entry), Some(&file)) = (self.entries.get(index), self.files.get(index)) else {
            return Err(error(&self.name, None, format!("no entry {index}")));
        };
        if entry.size > self.limits.max_entry_bytes {
            return Err(self.entry_error(
                index,
                format!(
                    "{} bytes: more than the {} read at most",
                    entry.size, self.limits.max_entry_bytes
                ),
            ));
        }
        if let Some((_, bytes)) = self.kept.borrow().iter().find(|(i, _)| *i == index) {
            return Ok(bytes.clone());
        }
        if let Some(bytes) = self.stored(index) {
            // Kept in memory too, as if decoded: the files opened next are its neighbours.
            if bytes.len() <= KEPT_ENTRY {
                self.keep(index, bytes.clone());
            }
            return Ok(bytes);
        }
        let Some(block) = self.block_of(index)? else {
            return Ok(Vec::new());
        };
        self.decode(block, Some(file), None, progress)
            .map_err(|e| self.entry_error(index, e))?
            .ok_or_else(|| self.entry_error(index, format!("block {block} ended before it")))
    }
    fn stream(
        &self,
        index: usize,
        skip: u64,
        take: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), ContainerError> {
        let bytes = self.read(index)?;
        if !within(skip, take, bytes.len() as u64) {
            return Err(self.entry_error(
                index,
                format!(
                    "bytes {skip}..{} asked of {}",
                    skip.saturating_add(take),
                    bytes.len()
                ),
            ));
        }
        for piece in bytes[skip as usize..(skip + take) as usize].chunks(CHUNK) {
            sink(piece).map_err(|e| self.entry_error(index, e))?;
        }
        Ok(())
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        // Typing asks for every entry's first bytes: the whole block is decoded once for all.
        let stored = self.in_store(index);
        if n <= HEAD_BYTES && !stored {
            if self.heads.borrow().get(&index).is_none() {
                if let Some(block) = self.block_of(index)? {
                    self.decode(block, None, None, &mut |_, _| {})
                        .map_err(|e| self.entry_error(index, e))?;
                }
            }
            if let Some(head) = self.heads.borrow().get(&index) {
                return Ok(head[..n.min(head.len())].to_vec());
            }
        }
        // More than the noted head (a disc's volume descriptor): the block up to the entry
        // and its first `n` bytes, not the whole entry (a 650 MB disc rip would be decoded
        // once to sniff it and again to open it).
        let size = self.entries.get(index).map_or(0, |e| e.size);
        let kept = self.kept.borrow().iter().any(|(i, _)| *i == index);
        if size <= n as u64 || kept || stored {
            let mut bytes = self.read(index)?;
            bytes.truncate(n);
            return Ok(bytes);
        }
        let Some(block) = self.block_of(index)? else {
            return Ok(Vec::new());
        };
        let file = self.files[index];
        self.decode(block, Some(file), Some(n as u64), &mut |_, _| {})
            .map_err(|e| self.entry_error(index, e))?
            .ok_or_else(|| self.entry_error(index, format!("block {block} ended before it")))
    }
}

impl SevenZContainer {
    /// The block holding listed entry `index` (None: it has no data, it is empty), or why it
    /// cannot be read.
    fn block_of(&self, index: usize) -> Result<Option<usize>, ContainerError> {
        let file = self.files[index];
        let block = self
            .archive
            .stream_map
            .file_block_index
            .get(file)
            .copied()
            .flatten();
        if block.is_some() && self.archive.is_file_encrypted(file) {
            return Err(self.entry_error(index, "encrypted (AES): not read"));
        }
        Ok(block)
    }

    /// The bytes of `block` to decode to reach the end of archive file `file` (its own
    /// among them).
    fn bytes_before(&self, block: usize, file: usize) -> u64 {
        let first = self
            .archive
            .stream_map
            .block_first_file_index
            .get(block)
            .copied()
            .unwrap_or(file);
        self.archive
            .files
            .get(first..=file)
            .map_or(0, |fs| fs.iter().map(|f| f.size()).sum())
    }

    /// Decode `block` from its start: each entry's first bytes noted, the small ones kept;
    /// up to and including archive file `want`, whose bytes are returned (its first
    /// `head_only` bytes, if given), or (None) to the block's end. `progress` hears the bytes
    /// decoded against those to decode.
    fn decode(
        &self,
        block: usize,
        want: Option<usize>,
        head_only: Option<u64>,
        progress: Progress,
    ) -> Result<Option<Vec<u8>>, String> {
        let mut at = self
            .archive
            .stream_map
            .block_first_file_index
            .get(block)
            .copied()
            .ok_or_else(|| format!("no block {block}"))?;
        let total = match want {
            Some(file) => self.bytes_before(block, file),
            None => self.block_size(block),
        };
        let mut done = 0u64;
        let mut wanted: Option<Result<Vec<u8>, String>> = None;
        let mut visit =
            |e: &ArchiveEntry, reader: &mut dyn Read| -> Result<bool, sevenz_rust2::Error> {
                let here = at;
                at += 1;
                let listed = self.listed_of.get(&here).copied();
                let size = e.size();
                progress(done, total);
                done += size;
                if let Some(n) = head_only.filter(|&n| Some(here) == want && n < size) {
                    let mut head = Vec::new();
                    reader.take(n).read_to_end(&mut head)?;
                    wanted = Some(Ok(head));
                    return Ok(false);
                }
                if Some(here) == want
                    || (listed.is_some()
                        && size as usize <= KEPT_ENTRY
                        && size <= self.limits.max_entry_bytes)
                {
                    let bytes = read_exactly(reader, size);
                    if let (Some(i), Ok(b)) = (listed, &bytes) {
                        self.heads
                            .borrow_mut()
                            .insert(i, b[..b.len().min(HEAD_BYTES)].to_vec());
                        if let Some(store) = self.store_for(i) {
                            store.put(i, 0, b, true);
                        }
                    }
                    if Some(here) == want {
                        wanted = Some(bytes);
                        return Ok(false);
                    }
                    if let (Some(i), Ok(b)) = (listed, bytes) {
                        self.keep(i, b);
                    }
                } else {
                    self.pass_through(listed, size, reader)?;
                }
                Ok(true)
            };
        let decoded = self.run_block(block, &mut visit);
        match (decoded, wanted) {
            (_, Some(Ok(bytes))) => Ok(Some(bytes)),
            (_, Some(Err(e))) => Err(format!("block {block}: {e}")),
            (Err(e), None) => Err(format!("block {block} cannot be decoded: {}", said(&e))),
            (Ok(_), None) => Ok(None),
        }
    }

    /// The bytes of every file in `block`.
    fn block_size(&self, block: usize) -> u64 {
        self.archive
            .files
            .iter()
            .zip(&self.archive.stream_map.file_block_index)
            .filter(|(_, b)| **b == Some(block))
            .map(|(f, _)| f.size())
            .sum()
    }

    /// An entry too large to keep, `size` bytes from `reader`: its first bytes noted (if it
    /// is listed), the rest decoded and let go — on its way to the store, piece by piece,
    /// where there is one (a disc rip before its cue sheet is then not decoded again when the
    /// disc opens).
    fn pass_through(
        &self,
        listed: Option<usize>,
        size: u64,
        reader: &mut dyn Read,
    ) -> std::io::Result<()> {
        let store = listed.and_then(|i| self.store_for(i).map(|s| (i, s)));
        let mut piece = vec![0u8; CHUNK];
        let mut seen = 0u64;
        let mut head = Vec::with_capacity(HEAD_BYTES);
        loop {
            let n = reader.read(&mut piece)?;
            if n == 0 {
                break;
            }
            if head.len() < HEAD_BYTES {
                head.extend_from_slice(&piece[..n.min(HEAD_BYTES - head.len())]);
            }
            if let Some((i, store)) = store.filter(|_| seen + n as u64 <= size) {
                store.put(i, seen, &piece[..n], false);
            }
            seen += n as u64;
        }
        if let Some((i, store)) = store.filter(|_| seen == size) {
            store.put(i, seen, &[], true);
        }
        if let Some(i) = listed {
            self.heads.borrow_mut().insert(i, head);
        }
        Ok(())
    }
}

impl SevenZContainer {
    /// Decode `block` from its start, handing `visit` each of its files in order (with a
    /// reader of its bytes) until it returns false: by the 7z crate, or here for the blocks
    /// it has no decoder for.
    fn run_block(
        &self,
        block: usize,
        visit: &mut dyn FnMut(&ArchiveEntry, &mut dyn Read) -> Result<bool, sevenz_rust2::Error>,
    ) -> Result<bool, sevenz_rust2::Error> {
        // A read asked for while a block is being decoded (from inside `read_each`'s
        // callback) is an error, not a second reader of the same stream.
        let Ok(mut source) = self.source.try_borrow_mut() else {
            return Err(sevenz_rust2::Error::Other(
                "the archive is being decoded already: read it after that read ends".into(),
            ));
        };
        self.decodes.set(self.decodes.get() + 1);
        match self.archive.blocks.get(block).and_then(own_coder) {
            Some(coder) => self.decode_own(block, coder, &mut source, visit),
            None => BlockDecoder::new_with_memory_limit(
                1,
                DECODER_MEMORY_KB,
                block,
                &self.archive,
                &Password::empty(),
                &mut *source,
            )
            .for_each_entries(&mut |e: &ArchiveEntry, r: &mut dyn Read| visit(e, r)),
        }
    }

    /// [`Container::read_each`]: each block holding a wanted entry decoded once, from its
    /// start to its last wanted entry, each wanted entry handed on as it is decoded (one
    /// entry's bytes held at a time), and put in the store where there is one; an entry kept
    /// or in the store is handed on without decoding.
    fn read_each_by_block(
        &self,
        wanted: &[usize],
        each: &mut dyn FnMut(usize, Result<Vec<u8>, ContainerError>) -> bool,
    ) {
        let mut by_block: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for &i in wanted {
            let done = match self.files.get(i) {
                None => Some(Err(error(&self.name, None, format!("no entry {i}")))),
                Some(_) if self.kept.borrow().iter().any(|(k, _)| *k == i) || self.in_store(i) => {
                    Some(self.read(i))
                }
                Some(_) if self.entries[i].size > self.limits.max_entry_bytes => Some(self.read(i)),
                Some(_) => match self.block_of(i) {
                    Err(e) => Some(Err(e)),
                    Ok(None) => Some(Ok(Vec::new())),
                    Ok(Some(block)) => {
                        by_block.entry(block).or_default().push(self.files[i]);
                        None
                    }
                },
            };
            if let Some(done) = done {
                if !each(i, done) {
                    return;
                }
            }
        }
        for (block, files) in by_block {
            let mut pending: std::collections::HashSet<usize> = files.into_iter().collect();
            let mut at = self
                .archive
                .stream_map
                .block_first_file_index
                .get(block)
                .copied()
                .unwrap_or(0);
            let mut stopped = false;
            let decoded = self.run_block(block, &mut |e, reader| {
                let file = at;
                at += 1;
                if !pending.remove(&file) {
                    return Ok(true);
                }
                let i = self.listed_of[&file];
                let bytes = read_exactly(reader, e.size())
                    .map_err(|why| self.entry_error(i, format!("block {block}: {why}")));
                if let (Ok(b), Some(store)) = (&bytes, self.store_for(i)) {
                    store.put(i, 0, b, true);
                }
                if !each(i, bytes) {
                    stopped = true;
                    return Ok(false);
                }
                Ok(!pending.is_empty())
            });
            if stopped {
                return;
            }
            let why = match decoded {
                Err(e) => format!("block {block} cannot be decoded: {}", said(&e)),
                Ok(_) => format!("block {block} ended before it"),
            };
            let mut left: Vec<usize> = pending.into_iter().map(|f| self.listed_of[&f]).collect();
            left.sort_unstable();
            for i in left {
                if !each(i, Err(self.entry_error(i, why.clone()))) {
                    return;
                }
            }
        }
    }

    /// Decode `block` (one coder, [`OwnCoder`]) from its packed stream, handing `visit` each
    /// file of the block in order as the 7z crate's own decoder does: a file with data as a
    /// reader of its declared size, checked against its CRC once it is read; an empty one
    /// between them as an empty reader.
    fn decode_own(
        &self,
        block: usize,
        coder: OwnCoder,
        source: &mut BufReader<SourceReader>,
        visit: &mut dyn FnMut(&ArchiveEntry, &mut dyn Read) -> Result<bool, sevenz_rust2::Error>,
    ) -> Result<bool, sevenz_rust2::Error> {
        let map = &self.archive.stream_map;
        let missing = || {
            sevenz_rust2::Error::Other(std::borrow::Cow::Owned(format!(
                "block {block}: its packed stream is not in the header"
            )))
        };
        let (at, size) = self.packed_stream(block).ok_or_else(missing)?;
        source
            .seek(SeekFrom::Start(at))
            .map_err(|e| sevenz_rust2::Error::Io(e, "seeking to the block".into()))?;
        let packed = Read::take(&mut *source, size);
        let mut stream: Box<dyn Read + '_> = match coder {
            OwnCoder::Copy => Box::new(packed),
            OwnCoder::Deflate64 => Box::new(deflate64::Deflate64Decoder::new(packed)),
        };
        let first = *map.block_first_file_index.get(block).ok_or_else(missing)?;
        let last = map
            .file_block_index
            .iter()
            .rposition(|b| *b == Some(block))
            .ok_or_else(missing)?;
        for file in self.archive.files.get(first..=last).ok_or_else(missing)? {
            if !file.has_stream {
                if !visit(file, &mut std::io::empty())? {
                    return Ok(false);
                }
                continue;
            }
            let mut reader = Crc32Counting {
                inner: Read::take(&mut stream, file.size),
                crc: crc32fast::Hasher::new(),
                count: 0,
            };
            if !visit(file, &mut reader)? {
                return Ok(false);
            }
            std::io::copy(&mut reader, &mut std::io::sink())
                .map_err(|e| sevenz_rust2::Error::Io(e, "decoding the block".into()))?;
            check_read(file, reader)?;
        }
        Ok(true)
    }

    /// Where `block`'s packed stream starts in the archive, and its size; None where the
    /// header does not say.
    fn packed_stream(&self, block: usize) -> Option<(u64, u64)> {
        let map = &self.archive.stream_map;
        let pack = *map.block_first_pack_stream_index().get(block)?;
        let (offset, size) = (
            *map.pack_stream_offsets().get(pack)?,
            *self.archive.pack_sizes().get(pack)?,
        );
        let at = (SIGNATURE_HEADER as u64)
            .checked_add(self.archive.pack_pos())
            .and_then(|p| p.checked_add(offset))?;
        Some((at, size))
    }
}

/// An error where `file`'s bytes, as `reader` read them, are fewer than its size or do not
/// match its CRC-32.
fn check_read<R>(file: &ArchiveEntry, reader: Crc32Counting<R>) -> Result<(), sevenz_rust2::Error> {
    if reader.count != file.size {
        return Err(sevenz_rust2::Error::Other(std::borrow::Cow::Owned(
            format!(
                "{}: the block ends after {} of its {} bytes",
                file.name(),
                reader.count,
                file.size
            ),
        )));
    }
    if file.has_crc && reader.crc.finalize() as u64 != file.crc {
        return Err(sevenz_rust2::Error::Other(std::borrow::Cow::Owned(
            format!(
                "{}: its bytes' CRC-32 does not match the header's",
                file.name()
            ),
        )));
    }
    Ok(())
}

/// A reader that counts and checksums what passes through it.
struct Crc32Counting<R> {
    inner: R,
    crc: crc32fast::Hasher,
    count: u64,
}

impl<R: Read> Read for Crc32Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        self.count += n as u64;
        Ok(n)
    }
}

/// The name 7-Zip gives a file the header names not: the archive's, less its extension.
fn nameless(archive: &str) -> String {
    let base = archive.rsplit('/').next().unwrap_or(archive);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => base.to_string(),
    }
}

/// Where the archive's header starts, as its start header says (errors about the header
/// name it); None if the start header cannot be read.
fn header_offset(source: &dyn ByteSource) -> Option<u64> {
    let mut start = [0u8; 32];
    source.read_at(0, &mut start).ok()?;
    let offset = u64::from_le_bytes(start[12..20].try_into().ok()?);
    is_7z(&start).then(|| offset.saturating_add(32))
}

/// What the crate's error says, in words (its Display is its Debug).
fn said(e: &sevenz_rust2::Error) -> String {
    use sevenz_rust2::Error as E;
    match e {
        E::Other(s) | E::Unsupported(s) => s.to_string(),
        E::Io(e, s) if s.is_empty() => e.to_string(),
        E::Io(e, s) => format!("{s}: {e}"),
        E::UnsupportedCompressionMethod(m) => format!("compression method {m} is not read"),
        E::ChecksumVerificationFailed => "its start header's CRC does not match".into(),
        E::NextHeaderCrcMismatch => "its header's CRC does not match".into(),
        E::BadSignature(_) => "no 7z signature".into(),
        E::PasswordRequired | E::MaybeBadPassword(_) => "encrypted (AES): not read".into(),
        e => format!("{e:?}"),
    }
}

/// All of an entry's `size` bytes, and no more (a block that decodes past what the header
/// declares stops here).
fn read_exactly(reader: &mut dyn Read, size: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(size.min(64 << 20) as usize);
    reader
        .take(size + 1)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    if out.len() as u64 != size {
        return Err(format!(
            "decodes to {} bytes; the header declares {size}",
            if out.len() as u64 > size {
                "more".to_string()
            } else {
                out.len().to_string()
            }
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_7zformat_txt_writes_them() {
        // (value, its bytes): one byte below 0x80; then each leading one adds a byte below
        // the first byte's remaining bits; 0xFF: eight bytes follow.
        for (value, bytes) in [
            (0u64, vec![0x00]),
            (0x7F, vec![0x7F]),
            (0x80, vec![0x80, 0x80]),
            (0x407, vec![0x84, 0x07]),
            (0x3FFF, vec![0xBF, 0xFF]),
            (0x4000, vec![0xC0, 0x00, 0x40]),
            (0x1F_FFFF, vec![0xDF, 0xFF, 0xFF]),
            (u64::MAX, vec![0xFF; 9]),
        ] {
            assert_eq!(number(&bytes), Some((value, bytes.len())), "{bytes:02x?}");
            assert_eq!(
                number(&bytes[..bytes.len() - 1]),
                None,
                "{bytes:02x?} cut short"
            );
        }
    }

    /// A signature header whose start header says `next` bytes of header at `offset`.
    fn signature_header(offset: u64, next: u64) -> Vec<u8> {
        let mut start = Vec::new();
        start.extend(offset.to_le_bytes());
        start.extend(next.to_le_bytes());
        start.extend(0u32.to_le_bytes());
        let mut out = MAGIC.to_vec();
        out.extend([0, 4]);
        out.extend(crc32fast::hash(&start).to_le_bytes());
        out.extend(start);
        out
    }

    #[test]
    fn an_archive_after_a_program_is_found_by_its_checked_signature_header_not_by_six_bytes() {
        let mut program = b"MZ".to_vec();
        program.extend([0x90; 1000]);
        // The signature alone, as a program may hold it (7-Zip's own SFX module does): passed over.
        program.extend(MAGIC);
        program.extend([0u8; 40]);
        let at = program.len() as u64;
        program.extend(signature_header(10, 20));
        assert_eq!(sfx_start_in(&program), Some(at));
        assert_eq!(
            sfx_start_in(&program[..at as usize + 31]),
            None,
            "a header cut short is not one"
        );
        let mut elf = program.clone();
        elf[..4].copy_from_slice(b"\x7fELF");
        assert_eq!(
            sfx_start_in(&elf),
            Some(at),
            "a Linux program (p7zip's module) too"
        );
        let mut data = program.clone();
        data[..2].copy_from_slice(b"PK");
        assert_eq!(
            sfx_start_in(&data),
            None,
            "only what starts as a program is looked through"
        );
        assert_eq!(
            sfx_start_in(&signature_header(10, 20)),
            None,
            "a 7z itself is no program"
        );
    }

    #[test]
    fn a_nameless_file_is_called_after_the_archive_less_its_extension() {
        assert_eq!(nameless("Unnamed Thing.7z"), "Unnamed Thing");
        assert_eq!(nameless("GAME/DATA.TAR.7z"), "DATA.TAR");
        assert_eq!(nameless("NOEXT"), "NOEXT");
        assert_eq!(nameless(".7z"), ".7z");
    }
}
