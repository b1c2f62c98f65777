//! Containers opened in place, as folders: ZIP files, ISO 9660 images, raw CD rips (.bin of
//! 2352-byte sectors, on their own or named by a .cue sheet). A container lists its
//! directory first, reads an entry's bytes only when it is asked for, and never holds the
//! whole container: memory is the directory plus what is being read. Formats know nothing
//! of this layer; the archive lists a container's entries under its path
//! (`GAME.zip/BTDAVE/VIDEO/CUBE.BGF`). docs/formats/containers.md describes the formats.

pub mod ceiling;

/// This crate's unit tests run under the ceiling allocator, as the programs that read
/// containers do (each installs it: `ceiling` says why and how).
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: ceiling::CeilingAllocator = ceiling::CeilingAllocator;
mod chd;
mod disc;
pub mod hosted;
mod iso;
mod sevenz;
mod zip;
mod zisofs;

pub use disc::{
    cue_data_track, cue_size_read, is_cue, parse_cue_sheet, read_cue_sheet, CueTrack, SectorMode,
    MAX_CUE_BYTES,
};
pub use zip::ZSTD_MAX_WINDOW;

use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::rc::Rc;

/// Random access to a container's bytes: a file on disk, a `File` in the browser (read
/// synchronously by a worker), memory. Reads past the end are errors, not short reads.
pub trait ByteSource {
    fn len(&self) -> u64;
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String>;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Drop what is kept of earlier reads (a CHD's decompressed hunks), so that the next
    /// reads go to the bytes underneath: publishing records which of them each entry needs.
    fn forget(&self) {}
}

/// Bytes in memory (a nested container's, tests).
impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        let size = self.as_slice().len() as u64;
        let start = usize::try_from(offset).map_err(|_| past_end(offset, buf.len(), size))?;
        let end = start
            .checked_add(buf.len())
            .filter(|&e| e <= self.as_slice().len())
            .ok_or_else(|| past_end(offset, buf.len(), size))?;
        buf.copy_from_slice(&self[start..end]);
        Ok(())
    }
}

/// A file on disk, read where it is asked (pread: no shared cursor).
#[cfg(not(target_arch = "wasm32"))]
pub struct FileBytes {
    file: std::fs::File,
    len: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileBytes {
    pub fn open(path: &std::path::Path) -> Result<FileBytes, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !meta.is_file() {
            return Err(format!("{}: not a regular file", path.display()));
        }
        Ok(FileBytes {
            file,
            len: meta.len(),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ByteSource for FileBytes {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        use std::os::unix::fs::FileExt;
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|e| e > self.len)
        {
            return Err(past_end(offset, buf.len(), self.len));
        }
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| format!("at byte {offset}: {e}"))
    }
}

fn past_end(offset: u64, len: usize, size: u64) -> String {
    format!("{len} bytes at byte {offset} run past the end ({size} bytes)")
}

/// `Read + Seek` over a byte source, for readers that want them (the zip crate, the ISO
/// reader).
pub(crate) struct SourceReader {
    source: Rc<dyn ByteSource>,
    pos: u64,
}

impl SourceReader {
    pub(crate) fn new(source: Rc<dyn ByteSource>) -> SourceReader {
        SourceReader { source, pos: 0 }
    }
}

impl Read for SourceReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.source.len().saturating_sub(self.pos);
        let n = (buf.len() as u64).min(left) as usize;
        if n == 0 {
            return Ok(0);
        }
        self.source
            .read_at(self.pos, &mut buf[..n])
            .map_err(std::io::Error::other)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SourceReader {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let len = self.source.len() as i128;
        let at = match to {
            SeekFrom::Start(n) => n as i128,
            SeekFrom::End(d) => len + d as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
        };
        if at < 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "seek before the start",
            ));
        }
        self.pos = at.min(u64::MAX as i128) as u64;
        Ok(self.pos)
    }
}

/// What kind of container a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Zip,
    /// ISO 9660 in 2048-byte sectors.
    Iso,
    /// Raw CD sectors of 2352 bytes (a .bin), in the data track's mode.
    RawDisc(SectorMode),
    /// A CHD image (MAME's compressed hunks) of a CD or a DVD.
    Chd,
    /// A 7z archive.
    SevenZ,
}

impl ContainerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ContainerKind::Zip => "zip",
            ContainerKind::Iso => "iso",
            ContainerKind::RawDisc(_) => "raw disc",
            ContainerKind::Chd => "chd",
            ContainerKind::SevenZ => "7z",
        }
    }
}

/// A container by its first bytes (64 KiB are enough: a raw disc's sixteenth sector holds
/// its volume descriptor) and its name. A .cue sheet is not a container itself: it names
/// one (see [`cue_data_track`]).
pub fn sniff(name: &str, head: &[u8]) -> Option<ContainerKind> {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Some(ContainerKind::Zip);
    }
    if chd::is_chd(head) {
        return Some(ContainerKind::Chd);
    }
    if sevenz::is_7z(head) || sevenz::sfx_start_in(head).is_some() {
        return Some(ContainerKind::SevenZ);
    }
    if let Some(mode) = disc::raw_mode(head) {
        return Some(ContainerKind::RawDisc(mode));
    }
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if head.get(iso::DESCRIPTORS as usize + 1..iso::DESCRIPTORS as usize + 6) == Some(b"CD001")
        || (ext == "iso" && head.len() < iso::DESCRIPTORS as usize + 6)
    {
        return Some(ContainerKind::Iso);
    }
    None
}

/// How many of a file's first bytes tell a container: 17 sectors of 2,048 (an ISO 9660
/// image's primary volume descriptor lies in sector 16).
pub const HEAD: usize = 17 * 2048;

/// How many bytes at a file's end hold a zip's end record, whatever comes before the zip:
/// the record's 22 bytes and a comment of up to 65,535.
pub const TAIL: usize = 22 + 65_535;

/// [`sniff`], and where the first bytes say nothing, the last ones (`tail`, up to [`TAIL`]
/// bytes): a zip that something comes before (a self-extracting program, a zip with a
/// prefix) is told by its end record. docs/formats/containers.md, "ZIP".
pub fn sniff_with_tail(name: &str, head: &[u8], tail: &[u8]) -> Option<ContainerKind> {
    // A program that ends in a zip's end record is a zip, whatever a stored 7z inside it.
    if sevenz::is_program(head) && zip_end_record(tail).is_some() {
        return Some(ContainerKind::Zip);
    }
    sniff(name, head).or_else(|| zip_end_record(tail).map(|_| ContainerKind::Zip))
}

/// Where in `tail` a zip's end record starts: its signature, with a comment length that
/// reaches exactly to the end (the last such, as readers look from the end).
pub fn zip_end_record(tail: &[u8]) -> Option<usize> {
    (0..tail.len().saturating_sub(21)).rev().find(|&at| {
        tail[at..].starts_with(b"PK\x05\x06")
            && at + 22 + u16::from_le_bytes([tail[at + 20], tail[at + 21]]) as usize == tail.len()
    })
}

/// How many of a file's first bytes [`sniff`] wants to tell a container: 17 sectors (an
/// ISO's volume descriptor), or for a program, as far as a self-extracting 7z's archive may
/// start ([`sevenz::SFX_SCAN`]).
pub fn head_wanted(head: &[u8]) -> usize {
    if sevenz::is_program(head) {
        sevenz::SFX_SCAN
    } else {
        HEAD
    }
}

/// [`sniff_with_tail`] of the bytes in `source`: its first 17 sectors (more for a program:
/// [`head_wanted`]), then its last [`TAIL`] bytes if those say nothing.
pub fn sniff_source(name: &str, source: &dyn ByteSource) -> Option<ContainerKind> {
    let mut head = vec![0u8; source.len().min(HEAD as u64) as usize];
    source.read_at(0, &mut head).ok()?;
    let wanted = head_wanted(&head) as u64;
    if wanted > head.len() as u64 {
        head = vec![0u8; source.len().min(wanted) as usize];
        source.read_at(0, &mut head).ok()?;
    }
    if let Some(kind) = sniff(name, &head) {
        return Some(kind);
    }
    let n = source.len().min(TAIL as u64);
    let mut tail = vec![0u8; n as usize];
    source.read_at(source.len() - n, &mut tail).ok()?;
    sniff_with_tail(name, &head, &tail)
}

/// One file inside a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path inside the container, `/`-separated, as written (an ISO name without its
    /// `;1` version). A name with `..` in it is listed so, never followed.
    pub path: String,
    /// Its size once read (for a deflated zip entry, as the directory declares it).
    pub size: u64,
}

/// Why a container or one of its entries cannot be read: the container, the entry, the
/// byte offset (in the container's own bytes, or its logical sectors for a disc) and what
/// was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerError {
    pub container: String,
    pub entry: Option<String>,
    pub offset: Option<u64>,
    pub message: String,
}

impl fmt::Display for ContainerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.container)?;
        if let Some(e) = &self.entry {
            write!(f, ": {e}")?;
        }
        if let Some(o) = self.offset {
            write!(f, " at byte {o}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ContainerError {}

/// Limits every container reader keeps to, whatever its directory claims.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Entries listed at most.
    pub max_entries: usize,
    /// The largest entry read, in bytes.
    pub max_entry_bytes: u64,
    /// How many times its stored size a compressed entry may inflate to (above 1 MiB).
    pub max_ratio: u64,
    /// Directory depth walked at most.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entries: 200_000,
            max_entry_bytes: 1 << 30,
            max_ratio: 1_000,
            max_depth: 64,
        }
    }
}

/// An opened container: its entries, and the bytes of one of them on demand.
pub trait Container {
    fn kind(&self) -> ContainerKind;
    fn entries(&self) -> &[Entry];
    /// Findings while listing that did not stop it (a duplicate name, an entry past the end).
    fn problems(&self) -> &[ContainerError];
    /// What is said of the container that is not wrong: a self-extracting program or other
    /// bytes before the archive.
    fn notes(&self) -> &[ContainerError] {
        &[]
    }
    /// The bytes of entry `index`.
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError>;
    /// Where entry `index` starts: a disc entry's first byte in the disc's 2048-byte
    /// sectors, a zip entry's local header in the file (hosted/ reads it from there).
    fn located(&self, index: usize) -> Option<u64>;
    /// The name the container itself writes for entry `index`, where the listed one is
    /// another (an ISO's primary volume name, 8.3 at level 1, under a Rock Ridge or Joliet
    /// name).
    fn written_name(&self, _index: usize) -> Option<&str> {
        None
    }
    /// Where entry `index`'s bytes lie when they are not one run from [`Container::located`]
    /// on: a disc file written in several extents, `[first byte, length]` each in the file's
    /// order. None for an entry in one piece.
    fn pieces(&self, _index: usize) -> Option<Vec<[u64; 2]>> {
        None
    }
    /// Drop what is kept of earlier reads (see [`ByteSource::forget`]).
    fn forget(&self) {}
    /// Why entry `index`'s bytes are not its stored ones where a reader of ranges needs them
    /// to be (a disc file compressed with zisofs): a static host's index leaves it out.
    fn not_as_stored(&self, _index: usize) -> Option<&'static str> {
        None
    }
    /// [`Container::read`], saying how far it got where a read takes long (a 7z's solid
    /// block decoded from its start): `(done, total)` bytes.
    fn read_reporting(&self, index: usize, _progress: Progress) -> Result<Vec<u8>, ContainerError> {
        self.read(index)
    }
    /// Whether an entry's first bytes cost the decoding of others before it (a solid 7z):
    /// a viewer then confirms a name's kind when the file is opened, not all at once.
    fn heads_are_costly(&self) -> bool {
        false
    }
    /// What reading entry `index` will take, in words, where it is more than a read ("block 2
    /// of 5, 41 MB to decode"); none where it is quick.
    fn read_note(&self, _index: usize) -> Option<String> {
        None
    }
    /// The first `n` bytes of entry `index` (fewer for a shorter entry), without reading
    /// the rest where the container allows.
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError>;
    /// Bytes `skip..skip + take` of entry `index`, handed to `sink` in pieces of at most
    /// [`CHUNK`] bytes as they are read (or inflated): a server sends a large entry, or a
    /// range of it, without holding it. An error from `sink` stops the stream and is
    /// returned as the entry's.
    fn stream(
        &self,
        index: usize,
        skip: u64,
        take: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), ContainerError>;
    /// Keep decoded entries in `store` as well, and look there before decoding (a 7z: a
    /// second open of a solid block need not decode it again). Other containers read in
    /// place and ignore it.
    fn keep_decoded_in(&mut self, _store: Box<dyn DecodedStore>) {}
    /// Whether decoded entries go to a store (see [`Container::keep_decoded_in`]).
    fn keeps_decoded(&self) -> bool {
        false
    }
    /// How many times a block has been decoded from its start (a solid 7z's; what reading
    /// each block once is checked by).
    fn blocks_decoded(&self) -> u64 {
        0
    }
    /// Whether reading entry `index` would decode other entries' bytes first (a solid 7z's
    /// entry neither kept nor in the store).
    fn costs_a_decode(&self, _index: usize) -> bool {
        false
    }
    /// The bytes of each of the entries `wanted`, handed to `each(index, bytes or why)` in
    /// the order that costs least to read them (a solid 7z: each block decoded once, its
    /// entries in the block's order), until `each` returns false. `each` must not read this
    /// container: it may be called in the middle of a decode.
    fn read_each(
        &self,
        wanted: &[usize],
        each: &mut dyn FnMut(usize, Result<Vec<u8>, ContainerError>) -> bool,
    ) {
        for &i in wanted {
            if !each(i, self.read(i)) {
                return;
            }
        }
    }
    /// The entry at `path` (case ignored), if listed.
    fn find(&self, path: &str) -> Option<usize> {
        self.entries()
            .iter()
            .position(|e| e.path.eq_ignore_ascii_case(path))
    }
}

/// Where decoded entries outlive the reader (in the browser, the Origin Private File System),
/// for one container: by the entry's index in it. The container checks what comes back (its
/// size, and its CRC where the archive has one) before using it, so a store that lost or
/// mangled an entry costs a decode, never a wrong file.
pub trait DecodedStore {
    fn has(&self, index: usize) -> bool;
    fn get(&self, index: usize) -> Option<Vec<u8>>;
    /// Entry `index`'s bytes from `offset` on, in order; `last` ends the entry. A store
    /// keeps an entry only once its last piece has come, so one cut short keeps nothing.
    fn put(&self, index: usize, offset: u64, bytes: &[u8], last: bool);
}

/// Whether a container starting with `head` decodes its entries at a cost worth keeping
/// (a 7z), so that a viewer gives it a [`DecodedStore`].
pub fn keeps_decoded(head: &[u8]) -> bool {
    sevenz::is_7z(head)
}

/// A cue sheet listed inside container `c` at entry `cue`: the entry of the .bin it names
/// (beside it, case ignored) and the sheet's data track, or why not (naming the sheet's line).
pub fn cue_inside(c: &dyn Container, cue: usize) -> Result<(usize, CueTrack), String> {
    let entry = c
        .entries()
        .get(cue)
        .ok_or_else(|| format!("no entry {cue}"))?;
    let track = read_cue_sheet(&entry.path, entry.size, || {
        c.read(cue).map_err(|e| e.to_string())
    })?;
    let bin = c
        .find(&track.file_beside(&entry.path))
        .ok_or_else(|| track.not_beside(&entry.path))?;
    Ok((bin, track))
}

/// The discs of the cue sheets listed in container `c`: each sheet's entry, the .bin it
/// names and its track; and, for each sheet that names nothing here, why (it stays a file).
/// A listing shows each disc under its sheet and not its .bin beside it.
#[derive(Default)]
pub struct CueDiscs {
    pub discs: Vec<(usize, usize, CueTrack)>,
    pub problems: Vec<String>,
}

impl CueDiscs {
    pub fn of(c: &dyn Container) -> CueDiscs {
        let mut found = CueDiscs {
            discs: Vec::new(),
            problems: Vec::new(),
        };
        for (i, _) in c
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| is_cue(&e.path))
        {
            match cue_inside(c, i) {
                Ok((bin, track)) => found.discs.push((i, bin, track)),
                Err(why) => found.problems.push(why),
            }
        }
        found
    }

    /// Whether entry `index` is a sheet with its disc, or the .bin of one.
    pub fn takes(&self, index: usize) -> bool {
        self.discs
            .iter()
            .any(|&(cue, bin, _)| cue == index || bin == index)
    }
}

/// Whether an entry's name is one a container inside a container goes by: only these are
/// looked into where looking costs (every entry of a page's listing; a solid 7z).
pub fn may_nest(path: &str) -> bool {
    const NAMES: [&str; 6] = [".zip", ".7z", ".iso", ".bin", ".img", ".chd"];
    let lower = path.to_ascii_lowercase();
    NAMES.iter().any(|x| lower.ends_with(x))
}

/// The most bytes [`Container::stream`] hands on at once.
pub const CHUNK: usize = 64 << 10;

/// Whether `skip..skip + take` lies within an entry of `size` bytes.
pub(crate) fn within(skip: u64, take: u64, size: u64) -> bool {
    skip.checked_add(take).is_some_and(|end| end <= size)
}

/// How far a listing got: `(done, total)` in the container's own steps (a zip's entries, a
/// disc's directories); a total of 0 is not known.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Open the container `name` (its name in the archive, for errors) of kind `kind`.
pub fn open(
    name: &str,
    kind: ContainerKind,
    source: Rc<dyn ByteSource>,
    limits: Limits,
) -> Result<Box<dyn Container>, ContainerError> {
    open_reporting(name, kind, source, limits, &mut |_, _| {})
}

/// [`open`], saying how far the listing got as it goes.
pub fn open_reporting(
    name: &str,
    kind: ContainerKind,
    source: Rc<dyn ByteSource>,
    limits: Limits,
    progress: Progress,
) -> Result<Box<dyn Container>, ContainerError> {
    match kind {
        ContainerKind::Zip => Ok(Box::new(zip::ZipContainer::open(
            name, source, limits, progress,
        )?)),
        ContainerKind::Iso => Ok(Box::new(iso::IsoContainer::open(
            name,
            source,
            SectorMode::Cooked,
            0,
            kind,
            limits,
            progress,
        )?)),
        ContainerKind::RawDisc(mode) => Ok(Box::new(iso::IsoContainer::open(
            name, source, mode, 0, kind, limits, progress,
        )?)),
        ContainerKind::Chd => Ok(Box::new(chd::open(name, source, limits, progress)?)),
        ContainerKind::SevenZ => Ok(Box::new(sevenz::SevenZContainer::open(
            name, source, limits, progress,
        )?)),
    }
}

/// Open the data track a cue sheet names: `mode` sectors of `raw` from sector `start` on.
pub fn open_track(
    name: &str,
    raw: Rc<dyn ByteSource>,
    mode: SectorMode,
    start: u64,
    limits: Limits,
) -> Result<Box<dyn Container>, ContainerError> {
    open_track_reporting(name, raw, mode, start, limits, &mut |_, _| {})
}

/// [`open_track`], saying how far the listing got as it goes.
pub fn open_track_reporting(
    name: &str,
    raw: Rc<dyn ByteSource>,
    mode: SectorMode,
    start: u64,
    limits: Limits,
    progress: Progress,
) -> Result<Box<dyn Container>, ContainerError> {
    let kind = if mode == SectorMode::Cooked {
        ContainerKind::Iso
    } else {
        ContainerKind::RawDisc(mode)
    };
    Ok(Box::new(iso::IsoContainer::open(
        name, raw, mode, start, kind, limits, progress,
    )?))
}

/// A container's error with no entry.
pub(crate) fn error(
    container: &str,
    offset: Option<u64>,
    message: impl Into<String>,
) -> ContainerError {
    ContainerError {
        container: container.to_string(),
        entry: None,
        offset,
        message: message.into(),
    }
}

/// Names listed twice: the first is kept, the others reported (lookups ignore case).
pub(crate) fn drop_duplicates(
    container: &str,
    entries: Vec<Entry>,
    problems: &mut Vec<ContainerError>,
) -> (Vec<Entry>, Vec<usize>) {
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    let mut original = Vec::new();
    for (i, e) in entries.into_iter().enumerate() {
        if seen.insert(e.path.to_ascii_lowercase()) {
            kept.push(e);
            original.push(i);
        } else {
            problems.push(ContainerError {
                container: container.to_string(),
                entry: Some(e.path.clone()),
                offset: None,
                message: "listed again under the same name: the first is used".into(),
            });
        }
    }
    (kept, original)
}
