//! ISO 9660 images, on 2048-byte sectors or on a raw rip's (disc.rs maps them): the primary
//! volume descriptor, then the directory tree walked once, guarded against records that loop
//! back, nest too deep, run past their sector or point past the image's end; a file is read
//! when it is asked for. The records are read by hand: the `iso9660` crate panics on a record
//! cut short (and `cdfs` needs FUSE), which no hostile image may cause.
//! docs/formats/containers.md, "ISO 9660".

use super::disc::{SectorMode, SectorView, USER_SECTOR};
use super::{drop_duplicates, error, within, ByteSource, Container, ContainerError, ContainerKind, Entry, Limits, Progress, CHUNK};
use std::collections::HashSet;
use std::sync::Arc;

/// Where the volume descriptors start: sector 16.
pub const DESCRIPTORS: u64 = 16 * USER_SECTOR;
/// Volume descriptors read at most before the set's terminator.
const MAX_DESCRIPTORS: u64 = 64;
/// A directory record's fixed part, before its name.
const RECORD: usize = 33;
const FLAG_DIRECTORY: u8 = 2;
/// Set on every record of a file written in several extents but its last.
const FLAG_MULTI_EXTENT: u8 = 0x80;

/// A directory record: where its extent starts (sector) and how long it is, whether it is a
/// directory, whether more extents of the same file follow it, and its name (a file's
/// without its `;1` version).
#[derive(Debug, Clone, PartialEq)]
struct Record {
    extent: u32,
    length: u32,
    directory: bool,
    more_extents: bool,
    name: String,
}

/// The record at the start of `b` (its length byte first), or why it cannot be one.
fn record(b: &[u8]) -> Result<Record, String> {
    let len = *b.first().ok_or("no record")? as usize;
    if len < RECORD || len > b.len() {
        return Err(format!("a record of {len} bytes (at least {RECORD}, and within its sector)"));
    }
    let name_len = b[32] as usize;
    if RECORD + name_len > len {
        return Err(format!("a name of {name_len} bytes in a record of {len}"));
    }
    let le = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    let raw = &b[RECORD..RECORD + name_len];
    let directory = b[25] & FLAG_DIRECTORY != 0;
    let name = match raw {
        [0] => ".".to_string(),
        [1] => "..".to_string(),
        _ => {
            let text = String::from_utf8_lossy(raw).into_owned();
            // A file's name ends ";1" (its version), and a name without an extension "." too.
            let text = if directory { text } else { text.rsplit_once(';').map_or(text.clone(), |(n, _)| n.to_string()) };
            if !directory && text.ends_with('.') { text[..text.len() - 1].to_string() } else { text }
        }
    };
    Ok(Record { extent: le(2), length: le(10), directory, more_extents: b[25] & FLAG_MULTI_EXTENT != 0, name })
}

/// One extent of a file: its first byte in the image's 2048-byte sectors and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Extent {
    at: u64,
    len: u64,
}

/// Why a file's extents cannot be read as one file in an image of `image` bytes: one that
/// runs past the image's end, or two that share bytes. Returns the offending extent's first
/// byte and the reason.
fn extents_flaw(extents: &[Extent], image: u64) -> Option<(u64, String)> {
    let total: u64 = extents.iter().map(|e| e.len).sum();
    // An empty extent holds no byte, wherever it points (an empty file's, a Rock Ridge
    // link's, may point past the end).
    if let Some((k, e)) = extents.iter().enumerate().find(|(_, e)| e.len > 0 && e.at + e.len > image) {
        let which = if extents.len() > 1 { format!("extent {} of {}: ", k + 1, extents.len()) } else { String::new() };
        return Some((e.at, format!("{which}its {} bytes lie past the image's end ({image} bytes)", if extents.len() > 1 { e.len } else { total })));
    }
    let mut sorted: Vec<(usize, Extent)> = extents.iter().copied().enumerate().filter(|(_, e)| e.len > 0).collect();
    sorted.sort_by_key(|(_, e)| e.at);
    sorted.windows(2).find(|w| w[0].1.at + w[0].1.len > w[1].1.at).map(|w| {
        let (a, b) = if w[0].0 < w[1].0 { (w[0], w[1]) } else { (w[1], w[0]) };
        (b.1.at, format!("extents {} and {} of {} share bytes from byte {}: not one file", a.0 + 1, b.0 + 1, extents.len(), w[1].1.at))
    })
}

/// A disc's 2048-byte sectors from sector `start` of `source` on, stored in `mode`, and the
/// bytes past its last whole sector.
pub(crate) fn disc_volume(source: Arc<dyn ByteSource>, mode: SectorMode, start: u64) -> (Arc<dyn ByteSource>, u64) {
    match mode {
        SectorMode::Cooked if start == 0 => (source, 0),
        m => {
            let (view, tail) = SectorView::new(source, m, start);
            (Arc::new(view), tail)
        }
    }
}

pub struct IsoContainer {
    name: String,
    kind: ContainerKind,
    entries: Vec<Entry>,
    /// Each entry's extents in the image's 2048-byte sectors, in the file's order (one but
    /// for a file written in several).
    extents: Vec<Vec<Extent>>,
    problems: Vec<ContainerError>,
    /// The image as 2048-byte sectors, and its length.
    view: Arc<dyn ByteSource>,
    len: u64,
    limits: Limits,
}

impl IsoContainer {
    /// The image in `source`, its sectors in `mode`, the volume from sector `start` on (a
    /// cue sheet's INDEX 01).
    pub fn open(name: &str, source: Arc<dyn ByteSource>, mode: SectorMode, start: u64, kind: ContainerKind, limits: Limits, progress: Progress) -> Result<IsoContainer, ContainerError> {
        let mut problems = Vec::new();
        let (view, tail) = disc_volume(source, mode, start);
        if tail != 0 && mode != SectorMode::Cooked {
            problems.push(error(name, None, format!("{tail} bytes after the last whole 2352-byte sector are not read")));
        }
        let len = view.len();
        if len % USER_SECTOR != 0 {
            problems.push(error(name, None, format!("{} bytes after the last whole 2048-byte sector are not read", len % USER_SECTOR)));
        }
        let (root, directories) = primary_root(name, &*view)?;
        let mut walk = Walk { name, view: &*view, len, limits, listed: Vec::new(), problems: &mut problems, seen: HashSet::new(), progress, directories };
        walk.seen.insert(root.extent);
        walk.directory(&root, "", 0);
        let listed = std::mem::take(&mut walk.listed);
        let (entries, kept) = drop_duplicates(name, listed.iter().map(|(e, _)| e.clone()).collect(), &mut problems);
        let mut listed: Vec<Option<Vec<Extent>>> = listed.into_iter().map(|(_, x)| Some(x)).collect();
        let extents = kept.into_iter().map(|k| listed[k].take().unwrap_or_default()).collect();
        Ok(IsoContainer { name: name.to_string(), kind, entries, extents, problems, view, len, limits })
    }

    fn entry_error(&self, index: usize, offset: u64, message: String) -> ContainerError {
        ContainerError { container: self.name.clone(), entry: Some(self.entries[index].path.clone()), offset: Some(offset), message }
    }

    /// Entry `index`'s extents, once they are known to lie within the image and apart.
    fn checked_extents(&self, index: usize) -> Result<&[Extent], ContainerError> {
        let Some(extents) = self.extents.get(index) else {
            return Err(error(&self.name, None, format!("no entry {index}")));
        };
        match extents_flaw(extents, self.len) {
            Some((at, why)) => Err(self.entry_error(index, at, why)),
            None => Ok(extents),
        }
    }

    /// Bytes `skip..skip + buf.len()` of a file in `extents` (checked), read extent by extent.
    fn read_span(&self, index: usize, extents: &[Extent], skip: u64, buf: &mut [u8]) -> Result<(), ContainerError> {
        let (mut logical, mut filled) = (0u64, 0usize);
        for e in extents {
            if filled == buf.len() {
                break;
            }
            let want = skip + filled as u64;
            if want < logical + e.len {
                let from = want - logical;
                let n = ((e.len - from) as usize).min(buf.len() - filled);
                let at = e.at + from;
                self.view.read_at(at, &mut buf[filled..filled + n]).map_err(|err| self.entry_error(index, at, format!("cannot be read: {err}")))?;
                filled += n;
            }
            logical += e.len;
        }
        Ok(())
    }
}

/// The root directory's record, from the primary volume descriptor (type 1, `CD001`),
/// looking at most [`MAX_DESCRIPTORS`] descriptors on for it; and how many directories its
/// path table lists (0 when it cannot be read: the walk's progress has no total then).
fn primary_root(name: &str, view: &dyn ByteSource) -> Result<(Record, u64), ContainerError> {
    let mut sector = [0u8; USER_SECTOR as usize];
    for k in 0..MAX_DESCRIPTORS {
        let at = DESCRIPTORS + k * USER_SECTOR;
        view.read_at(at, &mut sector).map_err(|e| error(name, Some(at), format!("not a readable ISO 9660 volume: {e}")))?;
        if &sector[1..6] != b"CD001" {
            return Err(error(name, Some(at + 1), "not a readable ISO 9660 volume: expected CD001 (a volume descriptor)"));
        }
        match sector[0] {
            1 => {
                let block = u16::from_le_bytes([sector[128], sector[129]]);
                if block as u64 != USER_SECTOR {
                    return Err(error(name, Some(at + 128), format!("logical blocks of {block} bytes: expected 2048")));
                }
                let root = record(&sector[156..190]).map_err(|e| error(name, Some(at + 156), format!("the root directory record: {e}")))?;
                return Ok((root, path_table_directories(view, &sector)));
            }
            255 => return Err(error(name, Some(at), "no primary volume descriptor before the set's terminator")),
            _ => {}
        }
    }
    Err(error(name, Some(DESCRIPTORS), format!("no primary volume descriptor in the first {MAX_DESCRIPTORS}")))
}

/// The path table's size (its bytes) read at most, for the count of directories.
const MAX_PATH_TABLE: u32 = 1 << 20;

/// How many directories the little-endian path table of this primary volume descriptor
/// lists, or 0 when it cannot be read. Only the listing's progress trusts it: the walk
/// follows the directory records themselves.
fn path_table_directories(view: &dyn ByteSource, pvd: &[u8]) -> u64 {
    let le = |at: usize| u32::from_le_bytes([pvd[at], pvd[at + 1], pvd[at + 2], pvd[at + 3]]);
    let (size, sector) = (le(132), le(140));
    if size == 0 || size > MAX_PATH_TABLE {
        return 0;
    }
    let mut table = vec![0u8; size as usize];
    if view.read_at(sector as u64 * USER_SECTOR, &mut table).is_err() {
        return 0;
    }
    // Each entry: its name's length, an extended-attribute length, the extent (4), the
    // parent's number (2), the name, a pad byte to an even length.
    let (mut pos, mut count) = (0usize, 0u64);
    while pos + 8 <= table.len() && table[pos] != 0 {
        let n = table[pos] as usize;
        pos += 8 + n + n % 2;
        count += 1;
    }
    count
}

/// The walk of the directory tree: what it lists and what it finds wrong.
struct Walk<'a> {
    name: &'a str,
    view: &'a dyn ByteSource,
    len: u64,
    limits: Limits,
    listed: Vec<(Entry, Vec<Extent>)>,
    problems: &'a mut Vec<ContainerError>,
    /// Directory extents walked: a record that points back at one is a loop.
    seen: HashSet<u32>,
    progress: Progress<'a>,
    /// Directories the path table lists (0: not known).
    directories: u64,
}

impl Walk<'_> {
    fn directory(&mut self, dir: &Record, prefix: &str, depth: usize) {
        (self.progress)(self.seen.len() as u64, self.directories.max(self.seen.len() as u64));
        let here = if prefix.is_empty() { "the root directory".to_string() } else { format!("directory {prefix}") };
        let start = dir.extent as u64 * USER_SECTOR;
        if start + dir.length as u64 > self.len {
            self.problems.push(error(self.name, Some(start), format!("{here}: its extent lies past the image's end ({} bytes)", self.len)));
            return;
        }
        let mut sector = [0u8; USER_SECTOR as usize];
        // A file written in several extents: its path and the extents so far, while its
        // records (each but the last flagged) follow one another.
        let mut pending: Option<(String, Vec<Extent>)> = None;
        for s in 0..(dir.length as u64).div_ceil(USER_SECTOR) {
            let at = start + s * USER_SECTOR;
            if let Err(e) = self.view.read_at(at, &mut sector) {
                self.problems.push(error(self.name, Some(at), format!("{here} cannot be read on: {e}")));
                return;
            }
            let mut pos = 0usize;
            // Records never cross a sector: a zero length byte ends the sector's records.
            while pos < sector.len() && sector[pos] != 0 {
                if self.listed.len() >= self.limits.max_entries {
                    self.problems.push(error(self.name, None, format!("more than {} entries: the rest are not listed", self.limits.max_entries)));
                    return;
                }
                let r = match record(&sector[pos..]) {
                    Ok(r) => r,
                    Err(e) => {
                        self.problems.push(error(self.name, Some(at + pos as u64), format!("{here}: {e}; its listing ends here")));
                        return;
                    }
                };
                pos += sector[pos] as usize;
                if r.name == "." || r.name == ".." {
                    continue;
                }
                let path = if prefix.is_empty() { r.name.clone() } else { format!("{prefix}/{}", r.name) };
                let begins = r.extent as u64 * USER_SECTOR;
                let extent = Extent { at: begins, len: r.length as u64 };
                match pending.take() {
                    Some((p, mut extents)) if !r.directory && p == path => {
                        extents.push(extent);
                        if r.more_extents {
                            pending = Some((p, extents));
                        } else {
                            self.list_file(p, extents);
                        }
                        continue;
                    }
                    Some((p, extents)) => self.cut_short(&p, &extents),
                    None => {}
                }
                if !r.directory {
                    if r.more_extents {
                        pending = Some((path, vec![extent]));
                    } else {
                        self.list_file(path, vec![extent]);
                    }
                } else if !self.seen.insert(r.extent) {
                    self.problems.push(error(self.name, Some(begins), format!("directory {path} points back at a directory already listed: not followed")));
                } else if depth + 1 >= self.limits.max_depth {
                    self.problems.push(error(self.name, Some(begins), format!("directory {path} nests deeper than {}: not followed", self.limits.max_depth)));
                } else {
                    self.directory(&r, &path, depth + 1);
                }
            }
        }
        if let Some((p, extents)) = pending {
            self.cut_short(&p, &extents);
        }
    }

    fn list_file(&mut self, path: String, extents: Vec<Extent>) {
        let size = extents.iter().map(|e| e.len).sum();
        self.listed.push((Entry { path, size }, extents));
    }

    /// A file whose flagged records are not followed by its last: its end is not known, so
    /// it is not listed (its first extents alone would be a file cut short).
    fn cut_short(&mut self, path: &str, extents: &[Extent]) {
        let at = extents.last().map(|e| e.at);
        self.problems.push(ContainerError { container: self.name.to_string(), entry: Some(path.to_string()), offset: at, message: format!("its {} extents end on one that says more follow, and none does: not listed", extents.len()) });
    }
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
    fn located(&self, index: usize) -> Option<u64> {
        self.extents.get(index)?.first().map(|e| e.at)
    }
    fn pieces(&self, index: usize) -> Option<Vec<[u64; 2]>> {
        self.extents.get(index).filter(|x| x.len() > 1).map(|x| x.iter().map(|e| [e.at, e.len]).collect())
    }
    fn forget(&self) {
        self.view.forget();
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        let extents = self.checked_extents(index)?;
        let (size, start) = (self.entries[index].size, extents.first().map_or(0, |e| e.at));
        if size > self.limits.max_entry_bytes {
            return Err(self.entry_error(index, start, format!("{size} bytes: more than the {} read at most", self.limits.max_entry_bytes)));
        }
        let mut out = vec![0u8; size as usize];
        self.read_span(index, extents, 0, &mut out)?;
        Ok(out)
    }
    fn stream(&self, index: usize, skip: u64, take: u64, sink: &mut dyn FnMut(&[u8]) -> Result<(), String>) -> Result<(), ContainerError> {
        let extents = self.checked_extents(index)?;
        let (size, start) = (self.entries[index].size, extents.first().map_or(0, |e| e.at));
        if !within(skip, take, size) {
            return Err(self.entry_error(index, start, format!("bytes {skip}..{} asked of {size}", skip.saturating_add(take))));
        }
        let mut buf = vec![0u8; CHUNK.min(take as usize)];
        let mut done = 0u64;
        while done < take {
            let n = (take - done).min(CHUNK as u64) as usize;
            self.read_span(index, extents, skip + done, &mut buf[..n])?;
            sink(&buf[..n]).map_err(|e| self.entry_error(index, start, e))?;
            done += n as u64;
        }
        Ok(())
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        let extents = self.extents.get(index).ok_or_else(|| error(&self.name, None, format!("no entry {index}")))?;
        // What lies within the image of the file's start, before any check of the rest: a
        // file cut by the image's end still shows its first bytes' kind.
        let mut within_image = 0u64;
        for e in extents {
            let here = self.len.saturating_sub(e.at).min(e.len);
            within_image += here;
            if here < e.len {
                break;
            }
        }
        let n = (n as u64).min(self.entries[index].size).min(within_image) as usize;
        let mut out = vec![0u8; n];
        self.read_span(index, extents, 0, &mut out)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_record(name: &[u8], extent: u32, length: u32, flags: u8) -> Vec<u8> {
        let len = RECORD + name.len() + (RECORD + name.len()) % 2;
        let mut r = vec![0u8; len];
        r[0] = len as u8;
        r[2..6].copy_from_slice(&extent.to_le_bytes());
        r[6..10].copy_from_slice(&extent.to_be_bytes());
        r[10..14].copy_from_slice(&length.to_le_bytes());
        r[25] = flags;
        r[32] = name.len() as u8;
        r[RECORD..RECORD + name.len()].copy_from_slice(name);
        r
    }

    #[test]
    fn records_read_their_extent_size_kind_and_name_without_its_version() {
        let r = record(&raw_record(b"MD1_1.BSX;1", 30, 1234, 0)).unwrap();
        assert_eq!(r, Record { extent: 30, length: 1234, directory: false, more_extents: false, name: "MD1_1.BSX".into() });
        assert_eq!(record(&raw_record(b"NOEXT.;1", 1, 1, 0)).unwrap().name, "NOEXT");
        assert_eq!(record(&raw_record(b"FIELD", 22, 2048, FLAG_DIRECTORY)).unwrap().name, "FIELD");
        assert_eq!(record(&raw_record(&[0], 22, 2048, FLAG_DIRECTORY)).unwrap().name, ".");
    }

    #[test]
    fn a_record_cut_short_or_naming_past_itself_is_an_error_not_a_panic() {
        let r = raw_record(b"A.BSX;1", 30, 10, 0);
        for cut in 0..r.len() {
            assert!(record(&r[..cut]).is_err(), "cut at {cut}");
        }
        let mut long_name = r.clone();
        long_name[32] = 200;
        assert!(record(&long_name).unwrap_err().contains("a name of 200 bytes"));
        let mut tiny = r;
        tiny[0] = 5;
        assert!(record(&tiny).is_err());
    }
}
