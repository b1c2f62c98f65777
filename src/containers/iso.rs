//! ISO 9660 images through the `iso9660` crate, on 2048-byte sectors or on a raw rip's
//! (disc.rs maps them): the directory tree is walked once, guarded against records that loop
//! back, nest too deep or point past the image's end; a file is read when it is asked for.

use super::disc::{SectorMode, SectorView, USER_SECTOR};
use super::{drop_duplicates, error, ByteSource, Container, ContainerError, ContainerKind, Entry, Limits, SourceReader};
use iso9660::{DirectoryEntry, ISODirectory, ISOFile, ISO9660};
use std::cell::Cell;
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::rc::Rc;
use std::sync::Arc;

/// Where the volume descriptors start: sector 16.
pub const DESCRIPTORS: u64 = 16 * USER_SECTOR;
/// Volume descriptors read at most before the set's terminator.
const MAX_DESCRIPTORS: u64 = 64;

/// The image's reader, which refuses reads past the descriptor area while the volume is
/// opened: a set with no terminator ends there instead of at the end of a 650 MB image.
struct Guarded {
    inner: SourceReader,
    opening: Rc<Cell<bool>>,
}

impl Read for Guarded {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.opening.get() && self.inner.seek(SeekFrom::Current(0))? >= DESCRIPTORS + MAX_DESCRIPTORS * USER_SECTOR {
            return Err(std::io::Error::other(format!("no volume descriptor set terminator in the first {MAX_DESCRIPTORS} descriptors")));
        }
        self.inner.read(buf)
    }
}

impl Seek for Guarded {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

pub struct IsoContainer {
    name: String,
    kind: ContainerKind,
    entries: Vec<Entry>,
    files: Vec<(ISOFile<Guarded>, u64)>,
    problems: Vec<ContainerError>,
    /// User bytes in the image (2048 a sector), and the image as 2048-byte sectors.
    len: u64,
    view: Arc<dyn ByteSource>,
    limits: Limits,
}

impl IsoContainer {
    /// The image in `source`, its sectors in `mode`, the volume from sector `start` on (a
    /// cue sheet's INDEX 01).
    pub fn open(name: &str, source: Arc<dyn ByteSource>, mode: SectorMode, start: u64, kind: ContainerKind, limits: Limits) -> Result<IsoContainer, ContainerError> {
        let mut problems = Vec::new();
        let view: Arc<dyn ByteSource> = match mode {
            SectorMode::Cooked if start == 0 => source,
            raw => {
                let (view, tail) = SectorView::new(source, raw, start);
                if tail != 0 && raw != SectorMode::Cooked {
                    problems.push(error(name, None, format!("{tail} bytes after the last whole 2352-byte sector are not read")));
                }
                Arc::new(view)
            }
        };
        let len = view.len();
        if len % USER_SECTOR != 0 {
            problems.push(error(name, None, format!("{} bytes after the last whole 2048-byte sector are not read", len % USER_SECTOR)));
        }
        let opening = Rc::new(Cell::new(true));
        let iso = ISO9660::new(Guarded { inner: SourceReader::new(view.clone()), opening: opening.clone() }).map_err(|e| error(name, Some(DESCRIPTORS), format!("not a readable ISO 9660 volume: {e}")))?;
        opening.set(false);
        let mut walk = Walk { name, len, limits, listed: Vec::new(), problems: &mut problems, seen: HashSet::new() };
        walk.seen.insert(iso.root.header_extent());
        walk.directory(&iso.root, "", 0);
        let listed = std::mem::take(&mut walk.listed);
        let (entries, kept) = drop_duplicates(name, listed.iter().map(|(e, ..)| e.clone()).collect(), &mut problems);
        let mut files: Vec<Option<(ISOFile<Guarded>, u64)>> = listed.into_iter().map(|(_, f, at)| Some((f, at))).collect();
        let files = kept.into_iter().filter_map(|k| files[k].take()).collect();
        Ok(IsoContainer { name: name.to_string(), kind, entries, files, problems, len, limits, view })
    }
}

/// The walk of the directory tree: what it lists and what it finds wrong.
struct Walk<'a> {
    name: &'a str,
    len: u64,
    limits: Limits,
    /// Each file, its reader and the byte its extent starts at.
    listed: Vec<(Entry, ISOFile<Guarded>, u64)>,
    problems: &'a mut Vec<ContainerError>,
    /// Directory extents walked: a record that points back at one is a loop.
    seen: HashSet<u32>,
}

/// The extent of a directory, through the entry header the crate exposes.
trait Extent {
    fn header_extent(&self) -> u32;
}

impl Extent for ISODirectory<Guarded> {
    fn header_extent(&self) -> u32 {
        DirectoryEntry::Directory(self.clone()).header().extent_loc
    }
}

impl Walk<'_> {
    fn directory(&mut self, dir: &ISODirectory<Guarded>, prefix: &str, depth: usize) {
        let at = |e: u32| Some(e as u64 * USER_SECTOR);
        for entry in dir.contents() {
            if self.listed.len() >= self.limits.max_entries {
                self.problems.push(error(self.name, None, format!("more than {} entries: the rest are not listed", self.limits.max_entries)));
                return;
            }
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    let where_ = if prefix.is_empty() { "the root directory".to_string() } else { format!("directory {prefix}") };
                    self.problems.push(error(self.name, at(dir.header_extent()), format!("{where_} cannot be read on: {e}")));
                    return;
                }
            };
            let (extent, length) = (entry.header().extent_loc, entry.header().extent_length);
            match entry {
                DirectoryEntry::Directory(sub) => {
                    if sub.identifier == "." || sub.identifier == ".." {
                        continue;
                    }
                    let path = join(prefix, &sub.identifier);
                    if extent as u64 * USER_SECTOR + length as u64 > self.len {
                        self.problems.push(error(self.name, at(extent), format!("directory {path}: its extent lies past the image's end ({} bytes)", self.len)));
                    } else if !self.seen.insert(extent) {
                        self.problems.push(error(self.name, at(extent), format!("directory {path} points back at a directory already listed: not followed")));
                    } else if depth + 1 >= self.limits.max_depth {
                        self.problems.push(error(self.name, at(extent), format!("directory {path} nests deeper than {}: not followed", self.limits.max_depth)));
                    } else {
                        self.directory(&sub, &path, depth + 1);
                    }
                }
                DirectoryEntry::File(file) => {
                    let path = join(prefix, &file.identifier);
                    let size = file.size() as u64;
                    self.listed.push((Entry { path, size }, file, extent as u64 * USER_SECTOR));
                }
            }
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_string() } else { format!("{prefix}/{name}") }
}

impl Container for IsoContainer {
    fn kind(&self) -> ContainerKind {
        self.kind
    }
    fn entries(&self) -> &[Entry] {
        &self.entries
    }
    fn problems(&self) -> &[ContainerError] {
        &self.problems
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        let (Some(entry), Some((file, extent))) = (self.entries.get(index), self.files.get(index)) else {
            return Err(error(&self.name, None, format!("no entry {index}")));
        };
        let fail = |offset: Option<u64>, message: String| ContainerError { container: self.name.clone(), entry: Some(entry.path.clone()), offset, message };
        let extent = *extent;
        if extent + entry.size > self.len {
            return Err(fail(Some(extent), format!("its {} bytes lie past the image's end ({} bytes)", entry.size, self.len)));
        }
        if entry.size > self.limits.max_entry_bytes {
            return Err(fail(Some(extent), format!("{} bytes: more than the {} read at most", entry.size, self.limits.max_entry_bytes)));
        }
        let mut out = Vec::with_capacity(entry.size as usize);
        file.read().take(entry.size).read_to_end(&mut out).map_err(|e| fail(Some(extent), format!("cannot be read: {e}")))?;
        if out.len() as u64 != entry.size {
            return Err(fail(Some(extent), format!("{} of its {} bytes could be read", out.len(), entry.size)));
        }
        Ok(out)
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        let (Some(entry), Some((_, extent))) = (self.entries.get(index), self.files.get(index)) else {
            return Err(error(&self.name, None, format!("no entry {index}")));
        };
        let n = (n as u64).min(entry.size).min(self.len.saturating_sub(*extent)) as usize;
        let mut out = vec![0u8; n];
        self.view.read_at(*extent, &mut out).map_err(|e| ContainerError { container: self.name.clone(), entry: Some(entry.path.clone()), offset: Some(*extent), message: e })?;
        Ok(out)
    }
}
