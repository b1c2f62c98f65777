//! ISO 9660 images, on 2048-byte sectors or on a raw rip's (disc.rs maps them): the primary
//! volume descriptor, then the directory tree walked once, guarded against records that loop
//! back, nest too deep, run past their sector or point past the image's end; a file is read
//! when it is asked for. The records are read by hand: the `iso9660` crate panics on a record
//! cut short (and `cdfs` needs FUSE), which no hostile image may cause.
//! docs/formats/containers.md, "ISO 9660".

use super::disc::{SectorMode, SectorView, USER_SECTOR};
use super::{
    drop_duplicates, error, within, ByteSource, Container, ContainerError, ContainerKind, Entry,
    Limits, Progress, CHUNK,
};
use std::collections::HashSet;
use std::rc::Rc;

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
    /// Where its system use area lies in the record (Rock Ridge's entries): from, to.
    system_use: (usize, usize),
}

/// How a volume's directory records name their files.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Names {
    /// The primary volume's names as written (d-characters: 8.3 at level 1).
    Primary,
    /// A Joliet supplementary volume's: UCS-2, big-endian.
    Joliet,
    /// The primary volume's records with Rock Ridge entries in their system use areas, after
    /// `skip` bytes of each (its SP entry's): the NM entry's name where there is one.
    RockRidge { skip: usize },
}

/// The record at the start of `b` (its length byte first), its name read as the primary
/// volume writes names, or why it cannot be one.
#[cfg(test)]
fn record(b: &[u8]) -> Result<Record, String> {
    record_named(b, Names::Primary)
}

/// The record at the start of `b`, its name read as `names` says, or why it cannot be one.
fn record_named(b: &[u8], names: Names) -> Result<Record, String> {
    let len = *b.first().ok_or("no record")? as usize;
    if len < RECORD || len > b.len() {
        return Err(format!(
            "a record of {len} bytes (at least {RECORD}, and within its sector)"
        ));
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
            let text = match names {
                Names::Joliet => String::from_utf16_lossy(
                    &raw.chunks_exact(2)
                        .map(|p| u16::from_be_bytes([p[0], p[1]]))
                        .collect::<Vec<_>>(),
                ),
                _ => String::from_utf8_lossy(raw).into_owned(),
            };
            // A file's name ends ";1" (its version), and a name without an extension "." too.
            let text = if directory {
                text
            } else {
                text.rsplit_once(';')
                    .map_or(text.clone(), |(n, _)| n.to_string())
            };
            if !directory && text.ends_with('.') {
                text[..text.len() - 1].to_string()
            } else {
                text
            }
        }
    };
    // The system use area follows the name, after a pad byte where the name's length is even.
    let system_use = (RECORD + name_len + (name_len + 1) % 2, len);
    Ok(Record {
        extent: le(2),
        length: le(10),
        directory,
        more_extents: b[25] & FLAG_MULTI_EXTENT != 0,
        name,
        system_use,
    })
}

/// What a record's Rock Ridge entries say (docs/formats/containers.md, "ISO 9660").
#[derive(Debug, Default, PartialEq)]
struct RockRidge {
    /// The NM entries' name, joined.
    name: Option<String>,
    /// A relocated directory's record (RE): shown where its CL entry points, so not here.
    relocated: bool,
    /// Where a relocated directory is (CL, its sector): this record stands for it.
    child: Option<u32>,
    /// A zisofs-compressed file (ZF): its block size's log2 and its size.
    zisofs: Option<(u8, u64)>,
    /// Where a continuation area (CE) led back to one already read: the record's Rock Ridge
    /// entries are not used (its ISO 9660 name stands), as libarchive does.
    looped: Option<u64>,
}

/// Continuation areas (CE) followed at most per record, each at most a sector.
const MAX_CONTINUATIONS: usize = 8;

/// The Rock Ridge entries in `area` (a record's system use area, after its skip), following
/// continuation areas in `view`; entries cut short end the reading, never the listing.
fn rock_ridge(area: &[u8], view: &dyn ByteSource, image: u64) -> RockRidge {
    let mut out = RockRidge::default();
    let mut name: Option<Vec<u8>> = None;
    let mut area = area.to_vec();
    let mut continuations = 0;
    // The continuation areas read, by where they start.
    let mut read: Vec<u64> = Vec::new();
    loop {
        let mut next: Option<(u64, usize)> = None;
        let mut pos = 0;
        while pos + 4 <= area.len() {
            let (sig, len) = (&area[pos..pos + 2], area[pos + 2] as usize);
            if len < 4 || pos + len > area.len() {
                break;
            }
            let e = &area[pos..pos + len];
            match sig {
                b"NM" if len >= 5 && e[4] & 0x06 == 0 => {
                    name.get_or_insert_with(Vec::new).extend_from_slice(&e[5..])
                }
                b"RE" => out.relocated = true,
                b"CL" if len >= 12 => {
                    out.child = Some(u32::from_le_bytes([e[4], e[5], e[6], e[7]]))
                }
                b"ZF" if len >= 16 && &e[4..6] == b"pz" => {
                    out.zisofs = Some((e[7], u32::from_le_bytes([e[8], e[9], e[10], e[11]]) as u64))
                }
                b"CE" if len >= 28 => {
                    let le = |at: usize| {
                        u32::from_le_bytes([e[at], e[at + 1], e[at + 2], e[at + 3]]) as u64
                    };
                    next = Some((le(4) * USER_SECTOR + le(12), le(20) as usize));
                }
                b"ST" => break,
                _ => {}
            }
            pos += len;
        }
        match next {
            Some((at, _)) if read.contains(&at) => {
                return RockRidge {
                    looped: Some(at),
                    ..RockRidge::default()
                }
            }
            Some((at, len))
                if continuations < MAX_CONTINUATIONS
                    && len <= USER_SECTOR as usize
                    && at + len as u64 <= image =>
            {
                let mut more = vec![0u8; len];
                if view.read_at(at, &mut more).is_err() {
                    break;
                }
                area = more;
                read.push(at);
                continuations += 1;
            }
            _ => break,
        }
    }
    out.name = name
        .map(|n| String::from_utf8_lossy(&n).into_owned())
        .filter(|n| !n.is_empty() && n != "." && n != ".." && !n.contains('/'));
    out
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
    if let Some((k, e)) = extents
        .iter()
        .enumerate()
        .find(|(_, e)| e.len > 0 && e.at + e.len > image)
    {
        let which = if extents.len() > 1 {
            format!("extent {} of {}: ", k + 1, extents.len())
        } else {
            String::new()
        };
        return Some((
            e.at,
            format!(
                "{which}its {} bytes lie past the image's end ({image} bytes)",
                if extents.len() > 1 { e.len } else { total }
            ),
        ));
    }
    let mut sorted: Vec<(usize, Extent)> = extents
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, e)| e.len > 0)
        .collect();
    sorted.sort_by_key(|(_, e)| e.at);
    sorted
        .windows(2)
        .find(|w| w[0].1.at + w[0].1.len > w[1].1.at)
        .map(|w| {
            let (a, b) = if w[0].0 < w[1].0 {
                (w[0], w[1])
            } else {
                (w[1], w[0])
            };
            (
                b.1.at,
                format!(
                    "extents {} and {} of {} share bytes from byte {}: not one file",
                    a.0 + 1,
                    b.0 + 1,
                    extents.len(),
                    w[1].1.at
                ),
            )
        })
}

/// A disc's 2048-byte sectors from sector `start` of `source` on, stored in `mode`, and the
/// bytes past its last whole sector.
pub(crate) fn disc_volume(
    source: Rc<dyn ByteSource>,
    mode: SectorMode,
    start: u64,
) -> (Rc<dyn ByteSource>, u64) {
    match mode {
        SectorMode::Cooked if start == 0 => (source, 0),
        m => {
            let (view, tail) = SectorView::new(source, m, start);
            (Rc::new(view), tail)
        }
    }
}

/// What a disc image holds past its last whole sector, unread: raw sectors' tail (`tail`
/// bytes) and the volume's own, `len` bytes long.
fn unread_tails(name: &str, mode: SectorMode, tail: u64, len: u64) -> Vec<ContainerError> {
    let mut problems = Vec::new();
    if tail != 0 && mode != SectorMode::Cooked {
        problems.push(error(
            name,
            None,
            format!("{tail} bytes after the last whole 2352-byte sector are not read"),
        ));
    }
    if len % USER_SECTOR != 0 {
        problems.push(error(
            name,
            None,
            format!(
                "{} bytes after the last whole 2048-byte sector are not read",
                len % USER_SECTOR
            ),
        ));
    }
    problems
}

/// The primary volume's names of the files listed by their Joliet names (matched by where
/// each starts), walked apart: what the disc calls them besides, where it differs.
fn note_primary_names(
    name: &str,
    view: &dyn ByteSource,
    len: u64,
    limits: Limits,
    volume_root: &Record,
    listed: &mut [Listed],
) {
    let mut quiet = Vec::new();
    let mut primary = Walk {
        name,
        view,
        len,
        limits,
        names: Names::Primary,
        listed: Vec::new(),
        problems: &mut quiet,
        seen: HashSet::new(),
        progress: &mut |_, _| {},
        directories: 0,
    };
    primary.seen.insert(volume_root.extent);
    primary.directory(volume_root, "", "", 0);
    let by_start: std::collections::HashMap<u64, String> = primary
        .listed
        .into_iter()
        .filter_map(|l| Some((l.extents.first()?.at, l.entry.path)))
        .collect();
    for l in listed {
        l.written = l
            .extents
            .first()
            .and_then(|e| by_start.get(&e.at))
            .filter(|w| **w != l.entry.path)
            .cloned();
    }
}

/// Each kept entry's extents, zisofs compression and primary-volume path, in the order
/// `kept` gives (indices into `listed`).
fn kept_records(listed: Vec<Listed>, kept: Vec<usize>) -> KeptRecords {
    let mut listed: Vec<Option<Listed>> = listed.into_iter().map(Some).collect();
    let mut extents = Vec::with_capacity(kept.len());
    let mut zisofs = Vec::with_capacity(kept.len());
    let mut written = Vec::with_capacity(kept.len());
    for k in kept {
        let l = listed[k].take();
        extents.push(l.as_ref().map_or(Vec::new(), |l| l.extents.clone()));
        zisofs.push(l.as_ref().and_then(|l| l.zisofs));
        written.push(l.and_then(|l| l.written));
    }
    KeptRecords {
        extents,
        zisofs,
        written,
    }
}

/// What an ISO keeps of each listed entry (see [`IsoContainer`]'s fields of these names).
struct KeptRecords {
    extents: Vec<Vec<Extent>>,
    zisofs: Vec<Option<(u8, u64)>>,
    written: Vec<Option<String>>,
}

pub struct IsoContainer {
    name: String,
    kind: ContainerKind,
    entries: Vec<Entry>,
    /// Each entry's extents in the image's 2048-byte sectors, in the file's order (one but
    /// for a file written in several).
    extents: Vec<Vec<Extent>>,
    /// Each entry's zisofs compression (its block size's log2 and its size), where it has one.
    zisofs: Vec<Option<(u8, u64)>>,
    /// Each entry's path as the primary volume writes it, where the listed one differs.
    written: Vec<Option<String>>,
    problems: Vec<ContainerError>,
    /// The image as 2048-byte sectors, and its length.
    view: Rc<dyn ByteSource>,
    len: u64,
    limits: Limits,
}

impl IsoContainer {
    /// The image in `source`, its sectors in `mode`, the volume from sector `start` on (a
    /// cue sheet's INDEX 01).
    pub fn open(
        name: &str,
        source: Rc<dyn ByteSource>,
        mode: SectorMode,
        start: u64,
        kind: ContainerKind,
        limits: Limits,
        progress: Progress,
    ) -> Result<IsoContainer, ContainerError> {
        let (view, tail) = disc_volume(source, mode, start);
        let len = view.len();
        let mut problems = unread_tails(name, mode, tail, len);
        let Volume {
            root,
            joliet,
            directories,
        } = volume(name, &*view)?;
        // The names people know: Rock Ridge's where the primary volume carries them (as
        // Linux shows a disc), else a Joliet volume's (as Windows does), else the primary's.
        let volume_root = root.clone();
        let (root, names) = match (rock_ridge_skip(&*view, &root), joliet) {
            (Some(skip), _) => (root, Names::RockRidge { skip }),
            (None, Some(joliet)) => (joliet, Names::Joliet),
            (None, None) => (root, Names::Primary),
        };
        let mut walk = Walk {
            name,
            view: &*view,
            len,
            limits,
            names,
            listed: Vec::new(),
            problems: &mut problems,
            seen: HashSet::new(),
            progress,
            directories,
        };
        walk.seen.insert(root.extent);
        walk.directory(&root, "", "", 0);
        let mut listed = std::mem::take(&mut walk.listed);
        if names == Names::Joliet {
            note_primary_names(name, &*view, len, limits, &volume_root, &mut listed);
        }
        let (entries, kept) = drop_duplicates(
            name,
            listed.iter().map(|l| l.entry.clone()).collect(),
            &mut problems,
        );
        let KeptRecords {
            extents,
            zisofs,
            written,
        } = kept_records(listed, kept);
        Ok(IsoContainer {
            name: name.to_string(),
            kind,
            entries,
            extents,
            zisofs,
            written,
            problems,
            view,
            len,
            limits,
        })
    }

    fn entry_error(&self, index: usize, offset: u64, message: String) -> ContainerError {
        ContainerError {
            container: self.name.clone(),
            entry: Some(self.entries[index].path.clone()),
            offset: Some(offset),
            message,
        }
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

    /// Bytes `skip..skip + take` of entry `index` (its `extents` checked) handed to `sink` in
    /// pieces of at most [`CHUNK`]: read extent by extent, or for a zisofs file, its blocks
    /// inflated.
    fn read_range(
        &self,
        index: usize,
        extents: &[Extent],
        skip: u64,
        take: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), ContainerError>,
    ) -> Result<(), ContainerError> {
        let start = extents.first().map_or(0, |e| e.at);
        if let Some(Some((log2, size))) = self.zisofs.get(index) {
            let stored: u64 = extents.iter().map(|e| e.len).sum();
            let mut failed = None;
            let decoded = super::zisofs::decode(
                stored,
                *size,
                *log2,
                &mut |at, buf| {
                    self.read_span(index, extents, at, buf)
                        .map_err(|e| e.message)
                },
                skip,
                take,
                &mut |piece| {
                    for part in piece.chunks(CHUNK) {
                        if let Err(e) = sink(part) {
                            let message = e.message.clone();
                            failed = Some(e);
                            return Err(message);
                        }
                    }
                    Ok(())
                },
            );
            return match (decoded, failed) {
                (_, Some(e)) => Err(e),
                (Err(why), None) => Err(self.entry_error(index, start, why)),
                (Ok(()), None) => Ok(()),
            };
        }
        let mut buf = vec![0u8; CHUNK.min(take as usize)];
        let mut done = 0u64;
        while done < take {
            let n = (take - done).min(CHUNK as u64) as usize;
            self.read_span(index, extents, skip + done, &mut buf[..n])?;
            sink(&buf[..n])?;
            done += n as u64;
        }
        Ok(())
    }

    /// Bytes `skip..skip + buf.len()` of a file in `extents` (checked), read extent by extent.
    fn read_span(
        &self,
        index: usize,
        extents: &[Extent],
        skip: u64,
        buf: &mut [u8],
    ) -> Result<(), ContainerError> {
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
                self.view
                    .read_at(at, &mut buf[filled..filled + n])
                    .map_err(|err| self.entry_error(index, at, format!("cannot be read: {err}")))?;
                filled += n;
            }
            logical += e.len;
        }
        Ok(())
    }
}

/// What the volume descriptors say: the primary volume's root directory record, a Joliet
/// volume's where there is one, and how many directories the primary's path table lists
/// (0 when it cannot be read: the walk's progress has no total then).
struct Volume {
    root: Record,
    joliet: Option<Record>,
    directories: u64,
}

/// The escape sequences a Joliet volume descriptor holds at byte 88 (UCS-2 levels 1 to 3).
const JOLIET: [&[u8]; 3] = [b"%/@", b"%/C", b"%/E"];

/// The volume descriptors from sector 16 to the set's terminator (at most
/// [`MAX_DESCRIPTORS`]): the primary (type 1, `CD001`, required) and a Joliet
/// supplementary one (type 2 with a Joliet escape sequence).
fn volume(name: &str, view: &dyn ByteSource) -> Result<Volume, ContainerError> {
    let mut sector = [0u8; USER_SECTOR as usize];
    let mut primary: Option<(Record, u64)> = None;
    let mut joliet = None;
    for k in 0..MAX_DESCRIPTORS {
        let at = DESCRIPTORS + k * USER_SECTOR;
        if let Err(e) = view.read_at(at, &mut sector) {
            if primary.is_some() {
                break;
            }
            return Err(error(
                name,
                Some(at),
                format!("not a readable ISO 9660 volume: {e}"),
            ));
        }
        if &sector[1..6] != b"CD001" {
            if primary.is_some() {
                break;
            }
            return Err(error(
                name,
                Some(at + 1),
                "not a readable ISO 9660 volume: expected CD001 (a volume descriptor)",
            ));
        }
        let block_ok = |s: &[u8]| u16::from_le_bytes([s[128], s[129]]) as u64 == USER_SECTOR;
        match sector[0] {
            1 if primary.is_none() => {
                if !block_ok(&sector) {
                    let block = u16::from_le_bytes([sector[128], sector[129]]);
                    return Err(error(
                        name,
                        Some(at + 128),
                        format!("logical blocks of {block} bytes: expected 2048"),
                    ));
                }
                let root = record_named(&sector[156..190], Names::Primary).map_err(|e| {
                    error(
                        name,
                        Some(at + 156),
                        format!("the root directory record: {e}"),
                    )
                })?;
                primary = Some((root, path_table_directories(view, &sector)));
            }
            // A Joliet volume whose root cannot be read is passed over: the primary names stay.
            2 if joliet.is_none() && JOLIET.contains(&&sector[88..91]) && block_ok(&sector) => {
                joliet = record_named(&sector[156..190], Names::Joliet).ok()
            }
            255 => break,
            _ => {}
        }
    }
    match primary {
        Some((root, directories)) => Ok(Volume { root, joliet, directories }),
        None => Err(error(name, Some(DESCRIPTORS), format!("no primary volume descriptor before the set's terminator, in the first {MAX_DESCRIPTORS}"))),
    }
}

/// Whether the primary volume's root directory says it carries Rock Ridge: its first record
/// (".") starts its system use area with an SP entry (check bytes BE EF); → the bytes each
/// record's area skips before its entries.
fn rock_ridge_skip(view: &dyn ByteSource, root: &Record) -> Option<usize> {
    let mut sector = [0u8; USER_SECTOR as usize];
    view.read_at(root.extent as u64 * USER_SECTOR, &mut sector)
        .ok()?;
    let dot = record_named(&sector, Names::Primary).ok()?;
    let sp = sector.get(dot.system_use.0..dot.system_use.1)?;
    (sp.len() >= 7 && &sp[..2] == b"SP" && sp[4] == 0xBE && sp[5] == 0xEF).then(|| sp[6] as usize)
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
    if view
        .read_at(sector as u64 * USER_SECTOR, &mut table)
        .is_err()
    {
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

/// A file the walk found: its entry, its extents, its zisofs compression.
struct Listed {
    entry: Entry,
    extents: Vec<Extent>,
    zisofs: Option<(u8, u64)>,
    /// Its path as the primary volume writes it, where the listed one is Rock Ridge's.
    written: Option<String>,
}

/// The walk of the directory tree: what it lists and what it finds wrong.
struct Walk<'a> {
    name: &'a str,
    view: &'a dyn ByteSource,
    len: u64,
    limits: Limits,
    names: Names,
    listed: Vec<Listed>,
    problems: &'a mut Vec<ContainerError>,
    /// Directory extents walked: a record that points back at one is a loop.
    seen: HashSet<u32>,
    progress: Progress<'a>,
    /// Directories the path table lists (0: not known).
    directories: u64,
}

/// The directory a walk is in: its path as listed and as the volume writes it, how the
/// problems name it, and its depth.
struct Place<'p> {
    prefix: &'p str,
    written_prefix: &'p str,
    here: &'p str,
    depth: usize,
}

impl Walk<'_> {
    fn directory(&mut self, dir: &Record, prefix: &str, written_prefix: &str, depth: usize) {
        (self.progress)(
            self.seen.len() as u64,
            self.directories.max(self.seen.len() as u64),
        );
        let here = if prefix.is_empty() {
            "the root directory".to_string()
        } else {
            format!("directory {prefix}")
        };
        let start = dir.extent as u64 * USER_SECTOR;
        if start + dir.length as u64 > self.len {
            self.problems.push(error(
                self.name,
                Some(start),
                format!(
                    "{here}: its extent lies past the image's end ({} bytes)",
                    self.len
                ),
            ));
            return;
        }
        let place = Place {
            prefix,
            written_prefix,
            here: &here,
            depth,
        };
        let mut sector = [0u8; USER_SECTOR as usize];
        // A file written in several extents: its path and the extents so far, while its
        // records (each but the last flagged) follow one another.
        let mut pending: Option<(String, String, Vec<Extent>)> = None;
        for s in 0..(dir.length as u64).div_ceil(USER_SECTOR) {
            let at = start + s * USER_SECTOR;
            if let Err(e) = self.view.read_at(at, &mut sector) {
                self.problems.push(error(
                    self.name,
                    Some(at),
                    format!("{here} cannot be read on: {e}"),
                ));
                return;
            }
            if !self.sector_records(&sector, at, &place, &mut pending) {
                return;
            }
        }
        if let Some((p, _, extents)) = pending {
            self.cut_short(&p, &extents);
        }
    }

    /// The records of one sector of the directory at `place` (the sector at byte `at`),
    /// each taken; → false where the listing ends early (said in the problems).
    fn sector_records(
        &mut self,
        sector: &[u8],
        at: u64,
        place: &Place,
        pending: &mut Option<(String, String, Vec<Extent>)>,
    ) -> bool {
        let mut pos = 0usize;
        // Records never cross a sector: a zero length byte ends the sector's records.
        while pos < sector.len() && sector[pos] != 0 {
            if self.listed.len() >= self.limits.max_entries {
                self.problems.push(error(
                    self.name,
                    None,
                    format!(
                        "more than {} entries: the rest are not listed",
                        self.limits.max_entries
                    ),
                ));
                return false;
            }
            let mut r = match record_named(&sector[pos..], self.names) {
                Ok(r) => r,
                Err(e) => {
                    self.problems.push(error(
                        self.name,
                        Some(at + pos as u64),
                        format!("{}: {e}; its listing ends here", place.here),
                    ));
                    return false;
                }
            };
            let here_at = pos;
            pos += sector[pos] as usize;
            if r.name == "." || r.name == ".." {
                continue;
            }
            // The records of one file in several extents share their name as the volume writes it.
            let written = r.name.clone();
            let mut zisofs = None;
            if let Names::RockRidge { skip } = self.names {
                let area = sector
                    .get(here_at + r.system_use.0 + skip..here_at + r.system_use.1)
                    .unwrap_or(&[]);
                match self.apply_rock_ridge(&mut r, area, place.here) {
                    Some(zf) => zisofs = zf,
                    None => continue,
                }
            }
            self.take_record(&r, written, zisofs, place, pending);
        }
        true
    }

    /// Record `r` of the directory at `place` (`written`: its name as the volume writes it,
    /// `zisofs`: its ZF entry): a file listed, or joined to the file in several extents
    /// `pending` holds, or a directory entered.
    fn take_record(
        &mut self,
        r: &Record,
        written: String,
        mut zisofs: Option<(u8, u64)>,
        place: &Place,
        pending: &mut Option<(String, String, Vec<Extent>)>,
    ) {
        let (prefix, written_prefix, here) = (place.prefix, place.written_prefix, place.here);
        let path = if prefix.is_empty() {
            r.name.clone()
        } else {
            format!("{prefix}/{}", r.name)
        };
        let begins = r.extent as u64 * USER_SECTOR;
        let extent = Extent {
            at: begins,
            len: r.length as u64,
        };
        match pending.take() {
            Some((p, w, mut extents)) if !r.directory && w == written => {
                extents.push(extent);
                if r.more_extents {
                    *pending = Some((p, w, extents));
                } else {
                    let written = self.written_as(written_prefix, &w, &p);
                    self.list_file(p, extents, written);
                }
                return;
            }
            Some((p, _, extents)) => self.cut_short(&p, &extents),
            None => {}
        }
        // A ZF entry whose size its stored bytes cannot hold is not believed: the file is
        // read as the bytes stored, as libarchive does.
        if let Some((log2, size)) = zisofs.filter(|_| !r.directory) {
            if let Err(why) = super::zisofs::plausible(log2, size, r.length as u64) {
                self.problems.push(error(self.name, Some(begins), format!("{here}: {path}: its Rock Ridge ZF entry says {size} bytes in blocks of 2^{log2}, which cannot be true ({why}): read as the {} bytes stored", r.length)));
                zisofs = None;
            }
        }
        if r.directory {
            let written_path = if written_prefix.is_empty() {
                written
            } else {
                format!("{written_prefix}/{written}")
            };
            self.enter(r, &path, &written_path, place.depth + 1);
        } else if let Some(z) = zisofs {
            // zisofs files are written in one extent (their size is the stored one).
            let written = self.written_as(written_prefix, &written, &path);
            self.listed.push(Listed {
                entry: Entry { path, size: z.1 },
                extents: vec![extent],
                zisofs: Some(z),
                written,
            });
        } else if r.more_extents {
            *pending = Some((path, written, vec![extent]));
        } else {
            let written = self.written_as(written_prefix, &written, &path);
            self.list_file(path, vec![extent], written);
        }
    }

    /// A record's Rock Ridge entries (read from `area`, its system use area past the
    /// volume's skip) applied to it: its name, and for a record standing for a relocated
    /// directory that directory's own record. → its ZF entry, if any; None where the record
    /// is not listed (a relocated directory's own record, shown where its CL entry points;
    /// a relocation that cannot be read).
    fn apply_rock_ridge(
        &mut self,
        r: &mut Record,
        area: &[u8],
        here: &str,
    ) -> Option<Option<(u8, u64)>> {
        let rr = rock_ridge(area, self.view, self.len);
        if let Some(at) = rr.looped {
            self.problems.push(error(self.name, Some(at), format!("{here}: {}: its Rock Ridge continuation areas loop back to the one at byte {at}: its Rock Ridge entries are not read, and it keeps its ISO 9660 name", r.name)));
        }
        if rr.relocated {
            return None;
        }
        if let Some(n) = rr.name {
            r.name = n;
        }
        if let Some(child) = rr.child {
            // The relocated directory this record stands for: its own "." says its length.
            match self.directory_at(child) {
                Some(dir) => {
                    *r = Record {
                        name: std::mem::take(&mut r.name),
                        ..dir
                    }
                }
                None => {
                    self.problems.push(error(
                        self.name,
                        Some(child as u64 * USER_SECTOR),
                        format!(
                            "{here}: {}: its relocated directory cannot be read: not followed",
                            r.name
                        ),
                    ));
                    return None;
                }
            }
        }
        Some(rr.zisofs)
    }

    /// Directory `r` at `path` walked, unless it is one walked already (a loop) or lies
    /// deeper than the limit (`depth`: its own).
    fn enter(&mut self, r: &Record, path: &str, written_path: &str, depth: usize) {
        let begins = r.extent as u64 * USER_SECTOR;
        if !self.seen.insert(r.extent) {
            self.problems.push(error(
                self.name,
                Some(begins),
                format!("directory {path} points back at a directory already listed: not followed"),
            ));
        } else if depth >= self.limits.max_depth {
            self.problems.push(error(
                self.name,
                Some(begins),
                format!(
                    "directory {path} nests deeper than {}: not followed",
                    self.limits.max_depth
                ),
            ));
        } else {
            self.directory(r, path, written_path, depth);
        }
    }

    fn list_file(&mut self, path: String, extents: Vec<Extent>, written: Option<String>) {
        let size = extents.iter().map(|e| e.len).sum();
        self.listed.push(Listed {
            entry: Entry { path, size },
            extents,
            zisofs: None,
            written,
        });
    }

    /// A file's path as the volume writes it (`name` in the folder `prefix` so written),
    /// where it is not the listed `path`.
    fn written_as(&self, prefix: &str, name: &str, path: &str) -> Option<String> {
        let written = if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}/{name}")
        };
        (written != path).then_some(written)
    }

    /// The directory whose extent starts at `sector`, as its own "." record says.
    fn directory_at(&self, sector: u32) -> Option<Record> {
        let mut first = [0u8; USER_SECTOR as usize];
        self.view
            .read_at(sector as u64 * USER_SECTOR, &mut first)
            .ok()?;
        record_named(&first, Names::Primary)
            .ok()
            .filter(|dot| dot.directory && dot.extent == sector)
    }

    /// A file whose flagged records are not followed by its last: its end is not known, so
    /// it is not listed (its first extents alone would be a file cut short).
    fn cut_short(&mut self, path: &str, extents: &[Extent]) {
        let at = extents.last().map(|e| e.at);
        self.problems.push(ContainerError {
            container: self.name.to_string(),
            entry: Some(path.to_string()),
            offset: at,
            message: format!(
                "its {} extents end on one that says more follow, and none does: not listed",
                extents.len()
            ),
        });
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
    fn written_name(&self, index: usize) -> Option<&str> {
        self.written.get(index)?.as_deref()
    }
    fn not_as_stored(&self, index: usize) -> Option<&'static str> {
        self.zisofs.get(index).copied().flatten().map(|_| "compressed with zisofs: read when the disc itself is opened (dropped, or served by relicview serve), not by ranges from a static host")
    }
    fn pieces(&self, index: usize) -> Option<Vec<[u64; 2]>> {
        self.extents
            .get(index)
            .filter(|x| x.len() > 1)
            .map(|x| x.iter().map(|e| [e.at, e.len]).collect())
    }
    fn forget(&self) {
        self.view.forget();
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        let extents = self.checked_extents(index)?;
        let (size, start) = (
            self.entries[index].size,
            extents.first().map_or(0, |e| e.at),
        );
        if size > self.limits.max_entry_bytes {
            return Err(self.entry_error(
                index,
                start,
                format!(
                    "{size} bytes: more than the {} read at most",
                    self.limits.max_entry_bytes
                ),
            ));
        }
        if self.zisofs.get(index).is_some_and(|z| z.is_some()) {
            let mut out = Vec::with_capacity(size as usize);
            self.read_range(index, extents, 0, size, &mut |piece| {
                out.extend_from_slice(piece);
                Ok(())
            })?;
            return Ok(out);
        }
        // One read of each extent: a hosted disc's index records the ranges this takes, and
        // the page reads them back so (crates/containers/src/hosted/).
        let mut out = vec![0u8; size as usize];
        self.read_span(index, extents, 0, &mut out)?;
        Ok(out)
    }
    fn stream(
        &self,
        index: usize,
        skip: u64,
        take: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), String>,
    ) -> Result<(), ContainerError> {
        let extents = self.checked_extents(index)?;
        let (size, start) = (
            self.entries[index].size,
            extents.first().map_or(0, |e| e.at),
        );
        if !within(skip, take, size) {
            return Err(self.entry_error(
                index,
                start,
                format!(
                    "bytes {skip}..{} asked of {size}",
                    skip.saturating_add(take)
                ),
            ));
        }
        self.read_range(index, extents, skip, take, &mut |piece| {
            sink(piece).map_err(|e| self.entry_error(index, start, e))
        })
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        let extents = self
            .extents
            .get(index)
            .ok_or_else(|| error(&self.name, None, format!("no entry {index}")))?;
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
        if self.zisofs.get(index).is_some_and(|z| z.is_some()) {
            let n = (n as u64).min(self.entries[index].size);
            let mut out = Vec::with_capacity(n as usize);
            self.read_range(index, self.checked_extents(index)?, 0, n, &mut |piece| {
                out.extend_from_slice(piece);
                Ok(())
            })?;
            return Ok(out);
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
        assert_eq!(
            r,
            Record {
                extent: 30,
                length: 1234,
                directory: false,
                more_extents: false,
                name: "MD1_1.BSX".into(),
                system_use: (44, 44)
            }
        );
        assert_eq!(
            record(&raw_record(b"NOEXT.;1", 1, 1, 0)).unwrap().name,
            "NOEXT"
        );
        assert_eq!(
            record(&raw_record(b"FIELD", 22, 2048, FLAG_DIRECTORY))
                .unwrap()
                .name,
            "FIELD"
        );
        assert_eq!(
            record(&raw_record(&[0], 22, 2048, FLAG_DIRECTORY))
                .unwrap()
                .name,
            "."
        );
    }

    #[test]
    fn a_record_cut_short_or_naming_past_itself_is_an_error_not_a_panic() {
        let r = raw_record(b"A.BSX;1", 30, 10, 0);
        for cut in 0..r.len() {
            assert!(record(&r[..cut]).is_err(), "cut at {cut}");
        }
        let mut long_name = r.clone();
        long_name[32] = 200;
        assert!(record(&long_name)
            .unwrap_err()
            .contains("a name of 200 bytes"));
        let mut tiny = r;
        tiny[0] = 5;
        assert!(record(&tiny).is_err());
    }

    /// A system use entry: its signature, length, version 1, then `data`.
    fn entry(sig: &[u8; 2], data: &[u8]) -> Vec<u8> {
        [sig.to_vec(), vec![4 + data.len() as u8, 1], data.to_vec()].concat()
    }

    #[test]
    fn rock_ridge_names_join_their_parts_and_follow_continuations_a_bounded_number_of_times() {
        let image = vec![0u8; 4 * 2048];
        let area = [
            entry(b"PX", &[0; 32]),
            entry(b"NM", b"\x01Long File "),
            entry(b"NM", b"\x00Name.txt"),
        ]
        .concat();
        assert_eq!(
            rock_ridge(&area, &image, image.len() as u64)
                .name
                .as_deref(),
            Some("Long File Name.txt")
        );
        // A CE entry leading to the area at byte `at` of `len` bytes (SUSP: sector, offset,
        // length, each both-endian; the little-endian halves are read).
        let ce_to = |at: u32, len: u32| {
            let mut ce = vec![0u8; 24];
            ce[0..4].copy_from_slice(&(at / 2048).to_le_bytes());
            ce[8..12].copy_from_slice(&(at % 2048).to_le_bytes());
            ce[16..20].copy_from_slice(&len.to_le_bytes());
            entry(b"CE", &ce)
        };
        // A continuation area in sector 2 that continues to itself: a loop, so none of the
        // record's Rock Ridge entries is used (its ISO 9660 name stands), as libarchive does.
        let mut looped = image.clone();
        let inside = [entry(b"NM", b"\x01ab"), ce_to(2 * 2048, 40)].concat();
        looped[2 * 2048..2 * 2048 + inside.len()].copy_from_slice(&inside);
        let rr = rock_ridge(&ce_to(2 * 2048, 40), &looped, looped.len() as u64);
        assert_eq!((rr.name, rr.looped), (None, Some(2 * 2048)));
        // A chain of areas, each leading to the next (40 bytes apart): followed at most
        // MAX_CONTINUATIONS times, the name's parts joined that far.
        let mut chain = image.clone();
        for k in 0..2 * MAX_CONTINUATIONS as u32 {
            let at = 2048 + 40 * k;
            let part = [entry(b"NM", b"\x01ab"), ce_to(at + 40, 40)].concat();
            chain[at as usize..at as usize + part.len()].copy_from_slice(&part);
        }
        let rr = rock_ridge(&ce_to(2048, 40), &chain, chain.len() as u64);
        assert_eq!(
            (rr.name.unwrap(), rr.looped),
            ("ab".repeat(MAX_CONTINUATIONS), None)
        );
        // Cut at every byte: an answer or none, never a panic.
        let full = [
            area,
            entry(
                b"ZF",
                &[b'p', b'z', 4, 15, 0x10, 0x27, 0, 0, 0, 0, 0x27, 0x10],
            ),
        ]
        .concat();
        assert_eq!(
            rock_ridge(&full, &image, image.len() as u64).zisofs,
            Some((15, 10_000))
        );
        for cut in 0..full.len() {
            let _ = rock_ridge(&full[..cut], &image, image.len() as u64);
        }
        // A name that would step out of its folder is not taken.
        assert_eq!(
            rock_ridge(&entry(b"NM", b"\x00../x"), &image, 8192).name,
            None
        );
    }
}
