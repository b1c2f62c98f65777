//! Archives on disk for the CLI and the server: folders whose ZIPs, ISO images and disc rips
//! (a .cue with its .bin, or a .bin alone) are folders too. An entry's archive path goes on
//! through its container (`GAME.zip/BTDAVE/VIDEO/CUBE.BGF`, `FF7.cue/FIELD/MD1_1.BSX`);
//! containers inside containers are read into memory (bounded) and opened the same way.
//! A container is opened once per `Disk` and read from where it lies.

use crate::archive::FileSource;
use crate::containers::{self, ByteSource, Container, FileBytes, Limits};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Containers nest at most this deep (a zip in a zip in a folder is 2).
const MAX_NESTING: usize = 4;

/// A file of an archive on disk as the CLI and the server list it.
#[derive(Debug, serde::Serialize, PartialEq, Eq)]
pub struct ListedFile {
    /// Relative path with `/` separators, as on the disc; bytes of a name that are not UTF-8
    /// are written `\xNN` (and a backslash `\\`), so two such names never become one.
    pub path: String,
    pub size: u64,
    /// What the file is by its content (see `census::kind_of`), so a viewer need not fetch
    /// every file to type it.
    pub kind: &'static str,
    /// Where the file is on disk: the file, or the container file it is inside.
    #[serde(skip)]
    pub real: PathBuf,
    /// Inside a container (read through `disk::Disk`, not from `real` itself).
    #[serde(skip)]
    pub contained: bool,
    /// A container that could not be opened (listed as the file it is): why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// What opening it reads besides it (its libraries, textures, a world's models), as a
    /// published index names them (`publish::references`): the page fetches them with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
}

impl crate::archive::ArchiveIndex {
    /// A listing of files on disk (or in containers there): their paths, kinds and sizes.
    pub fn listed(files: &[ListedFile]) -> crate::archive::ArchiveIndex {
        let mut index = crate::archive::ArchiveIndex::with_kinds(
            files
                .iter()
                .map(|f| (f.path.clone(), crate::formats::kind::Kind::parse(f.kind))),
        );
        index.set_sizes(files.iter().map(|f| Some(f.size)));
        index
    }
}

impl ListedFile {
    /// Its row in a hosted index.
    pub fn hosted(&self) -> containers::hosted::HostedFile {
        containers::hosted::HostedFile {
            path: self.path.clone(),
            size: self.size,
            kind: Some(self.kind.to_string()),
            failure: self.failure.clone(),
            refs: self.refs.clone(),
        }
    }
}

/// One file an archive lists inside a container: its path under the container's, its size
/// and its first bytes (for its kind).
pub struct ContainedFile {
    pub path: String,
    pub size: u64,
    pub head: Vec<u8>,
}

/// A folder (or a container given as the root) and the containers opened in it so far.
/// What [`Disk::list`] finds inside a container: its files, what could not be opened or
/// read as (path, why), and what is said of a container that is not wrong (a
/// self-extracting program before it) as (path, note).
#[derive(Default)]
pub struct ContainerListing {
    pub files: Vec<ContainedFile>,
    pub problems: Vec<(String, String)>,
    pub notes: Vec<(String, String)>,
}

pub struct Disk {
    root: PathBuf,
    /// A container given as the root: its entries are the archive.
    root_container: bool,
    opened: RefCell<HashMap<String, Rc<dyn Container>>>,
    limits: Limits,
}

/// Whether `name` (with these first bytes) opens as a container: by content, or a .cue.
pub fn is_container(name: &str, real: &Path) -> bool {
    if containers::is_cue(name) {
        return true;
    }
    FileBytes::open(real).is_ok_and(|f| sniffed(name, &f).is_some())
}

/// Why an archive path on disk could not be read, in words that name it. Its callers answer
/// each kind differently: the server with 404, 413 or 422 and why, the CLI in its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiskError {
    /// The archive has no such path (or no such file on disk).
    #[error("{0}")]
    NotFound(String),
    /// More bytes than the reader takes (`--max-bytes`).
    #[error("{0}")]
    TooLarge(String),
    /// It is there, but cannot be read: a container that does not open, an entry that does
    /// not inflate or check, a FIFO or a folder, an I/O error.
    #[error("{0}")]
    Unreadable(String),
}

impl From<containers::ContainerError> for DiskError {
    fn from(e: containers::ContainerError) -> DiskError {
        DiskError::Unreadable(e.to_string())
    }
}

/// One file's bytes, or why they could not be read.
pub type FileRead = Result<Vec<u8>, DiskError>;

/// A container and the entries asked of it: (a path's place in the request, its entry index).
type EntriesOf = (Rc<dyn Container>, Vec<(usize, usize)>);

/// The .bin files a cue sheet among `files` names (their archive paths, lower case): each is
/// that sheet's disc, listed once, under the sheet's name.
pub fn bins_named_by_cues(files: &[ListedFile]) -> std::collections::HashSet<String> {
    files
        .iter()
        .filter(|f| containers::is_cue(&f.path))
        .filter_map(|f| cue_track_of(f).ok().map(|t| t.file_beside(&f.path)))
        .map(|bin| bin.to_ascii_lowercase())
        .collect()
}

/// A listed cue sheet's data track (its `file_beside` the archive path of the .bin), or why not.
pub fn cue_track_of(f: &ListedFile) -> Result<containers::CueTrack, String> {
    containers::read_cue_sheet(&f.path, f.size, || {
        std::fs::read(&f.real).map_err(|e| e.to_string())
    })
}

/// The first bytes a container is told by: the start, and sector 16 of an ISO.
fn sniffed(name: &str, source: &dyn ByteSource) -> Option<containers::ContainerKind> {
    containers::sniff_source(name, source)
}

impl Disk {
    /// `root` is a folder, or a container file whose entries are the archive.
    pub fn new(root: &Path) -> Disk {
        let root_container = root.is_file();
        Disk {
            root: root.to_path_buf(),
            root_container,
            opened: RefCell::new(HashMap::new()),
            limits: Limits::default(),
        }
    }

    pub fn root_is_container(&self) -> bool {
        self.root_container
    }

    /// Open the container at archive path `path` (`""`: the root itself), from disk or from
    /// inside another container.
    pub fn container(&self, path: &str) -> Result<Rc<dyn Container>, DiskError> {
        if let Some(c) = self.opened.borrow().get(&path.to_ascii_lowercase()) {
            return Ok(c.clone());
        }
        let opened: Rc<dyn Container> = Rc::from(self.open_container(path)?);
        self.opened
            .borrow_mut()
            .insert(path.to_ascii_lowercase(), opened.clone());
        Ok(opened)
    }

    /// What archive path `path` is called in messages: itself, or (`""`) the root's name.
    fn name_of(&self, path: &str) -> String {
        if path.is_empty() {
            self.root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        } else {
            path.to_string()
        }
    }

    fn open_container(&self, path: &str) -> Result<Box<dyn Container>, DiskError> {
        use DiskError::{NotFound, Unreadable};
        let name = self.name_of(path);
        let (source, real): (Rc<dyn ByteSource>, Option<PathBuf>) = match self.split(path) {
            (outer, Some(inner)) if !outer.is_empty() || self.root_container => {
                if path.matches('/').count() > MAX_NESTING * 8 {
                    return Err(Unreadable(format!("{path}: containers nest too deep")));
                }
                let c = self.container(&outer)?;
                let i = c
                    .find(&inner)
                    .ok_or_else(|| NotFound(format!("{path}: not in {outer}")))?;
                if containers::is_cue(&inner) {
                    // A cue sheet inside a container: its disc is the .bin beside it there.
                    let (bin, track) = containers::cue_inside(&*c, i)
                        .map_err(|e| Unreadable(format!("{outer}/{e}")))?;
                    let raw: Rc<dyn ByteSource> = Rc::new(c.read(bin)?);
                    return Ok(containers::open_track(
                        &name,
                        raw,
                        track.mode,
                        track.start,
                        self.limits,
                    )?);
                }
                (Rc::new(c.read(i)?), None)
            }
            (_, _) => {
                let real = if path.is_empty() {
                    self.root.clone()
                } else {
                    self.root.join(path)
                };
                (Rc::new(file_bytes(&real)?), Some(real))
            }
        };
        if containers::is_cue(&name) {
            return self.open_cue(&name, &source, real.as_deref());
        }
        let kind = sniffed(&name, &*source).ok_or_else(|| {
            Unreadable(format!(
                "{name}: not a container (not a zip, an ISO 9660 image or a raw disc)"
            ))
        })?;
        Ok(containers::open(&name, kind, source, self.limits)?)
    }

    /// A .cue sheet: the disc is its data track, in the .bin it names beside it.
    fn open_cue(
        &self,
        name: &str,
        sheet: &Rc<dyn ByteSource>,
        real: Option<&Path>,
    ) -> Result<Box<dyn Container>, DiskError> {
        use DiskError::{NotFound, Unreadable};
        let track = containers::read_cue_sheet(name, sheet.len(), || {
            let mut text = vec![0u8; sheet.len() as usize];
            sheet.read_at(0, &mut text)?;
            Ok(text)
        })
        .map_err(Unreadable)?;
        let folder = real
            .and_then(Path::parent)
            .ok_or_else(|| Unreadable(format!("{name}: not on disk")))?;
        let bin = beside(folder, &track.file).ok_or_else(|| NotFound(track.not_beside(name)))?;
        let raw: Rc<dyn ByteSource> = Rc::new(file_bytes(&bin)?);
        Ok(containers::open_track(
            name,
            raw,
            track.mode,
            track.start,
            self.limits,
        )?)
    }

    /// Split an archive path at its innermost container that is a file: (container, path
    /// inside it). A path with no container in it is (path, None).
    fn split(&self, path: &str) -> (String, Option<String>) {
        let parts: Vec<&str> = path.split('/').collect();
        // From the longest prefix down, but the whole path itself is the container's own.
        for k in (1..parts.len()).rev() {
            let outer = parts[..k].join("/");
            if self.holds_container(&outer) {
                return (outer, Some(parts[k..].join("/")));
            }
        }
        if self.root_container && !path.is_empty() {
            return (String::new(), Some(path.to_string()));
        }
        (path.to_string(), None)
    }

    /// Whether archive path `path` is a container (a file on disk that is one, or an entry
    /// of a container that is one).
    fn holds_container(&self, path: &str) -> bool {
        if self
            .opened
            .borrow()
            .contains_key(&path.to_ascii_lowercase())
        {
            return true;
        }
        let real = self.root.join(path);
        if !self.root_container && real.is_file() {
            return is_container(path, &real);
        }
        // Inside a container: is the entry one?
        let (outer, Some(inner)) = self.split(path) else {
            return false;
        };
        let Ok(c) = self.container(&outer) else {
            return false;
        };
        let Some(i) = c.find(&inner) else {
            return false;
        };
        if containers::is_cue(&inner) {
            return containers::cue_inside(&*c, i).is_ok();
        }
        c.head(i, containers::HEAD)
            .is_ok_and(|h| containers::sniff(path, &h).is_some())
    }

    /// The container holding archive path `path` (a file inside one), and its index there.
    pub fn entry(&self, path: &str) -> Result<(Rc<dyn Container>, usize), DiskError> {
        let (outer, inner) = self.split(path);
        let inner =
            inner.ok_or_else(|| DiskError::NotFound(format!("{path}: not inside a container")))?;
        let c = self.container(&outer)?;
        let i = c.find(&inner).ok_or_else(|| {
            DiskError::NotFound(format!(
                "{path}: not in {}",
                if outer.is_empty() {
                    "the container"
                } else {
                    &outer
                }
            ))
        })?;
        Ok((c, i))
    }

    /// The bytes of archive path `path` (a file inside a container), at most `max`.
    pub fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, DiskError> {
        let (c, i) = self.entry(path)?;
        too_large(path, c.entries()[i].size, max)?;
        Ok(c.read(i)?)
    }

    /// Every file inside the container at `path`, containers in it opened as folders in
    /// turn, with what could not be opened as (path, why).
    pub fn list(&self, path: &str) -> ContainerListing {
        let mut listing = ContainerListing::default();
        self.list_into(path, 0, &mut listing);
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        listing
    }

    fn list_into(&self, path: &str, depth: usize, listing: &mut ContainerListing) {
        let c = match self.container(path) {
            Ok(c) => c,
            Err(e) => {
                listing.problems.push((path.to_string(), e.to_string()));
                return;
            }
        };
        listing
            .notes
            .extend(c.notes().iter().map(|n| (path.to_string(), n.to_string())));
        listing.problems.extend(
            c.problems()
                .iter()
                .map(|p| (path.to_string(), p.to_string())),
        );
        let full_path = |e: &containers::Entry| {
            if path.is_empty() {
                e.path.clone()
            } else {
                format!("{path}/{}", e.path)
            }
        };
        // Cue sheets first: each is a folder, its disc, and the .bin it names is listed
        // there rather than beside it. A sheet that names nothing here stays a file, said why.
        let cues = if depth + 1 < MAX_NESTING {
            containers::CueDiscs::of(&*c)
        } else {
            containers::CueDiscs::default()
        };
        let container = self.name_of(path);
        listing.problems.extend(
            cues.problems
                .iter()
                .map(|why| (path.to_string(), format!("{container}/{why}"))),
        );
        for (i, e) in c.entries().iter().enumerate() {
            let full = full_path(e);
            if cues.takes(i) {
                // A sheet is its disc's folder; the .bin it names is listed there.
                if cues.discs.iter().any(|&(cue, _, _)| cue == i) {
                    self.list_into(&full, depth + 1, listing);
                }
                continue;
            }
            // A solid 7z's entries are typed by name, as the page does: their first bytes would
            // cost a decode of each block for the listing alone, before census or an export
            // reads them. Only names a container goes by are looked into.
            let costly = c.heads_are_costly() && !containers::may_nest(&full);
            let head = if costly {
                Vec::new()
            } else {
                c.head(i, containers::HEAD).unwrap_or_default()
            };
            if depth + 1 < MAX_NESTING && containers::sniff(&full, &head).is_some() {
                self.list_into(&full, depth + 1, listing);
                continue;
            }
            listing.files.push(ContainedFile {
                path: full,
                size: e.size,
                head: head.into_iter().take(16).collect(),
            });
        }
    }
}

/// The file called `name` in `folder`, case ignored (a cue written on another system).
fn beside(folder: &Path, name: &str) -> Option<PathBuf> {
    let exact = folder.join(name);
    if exact.is_file() {
        return Some(exact);
    }
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case(name))
        })
}

/// The bytes of a regular file, at most `max` of them. FIFOs, devices, sockets and folders
/// are refused by name (reading them could hang or never end), and so is a file that is
/// larger than the limit — or grows past it while it is read.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, DiskError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, e))?;
    if !meta.is_file() {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        let what = if t.is_dir() {
            "a folder"
        } else if t.is_fifo() {
            "a FIFO"
        } else if t.is_char_device() || t.is_block_device() {
            "a device"
        } else if t.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(DiskError::Unreadable(format!(
            "{}: is {what}, not a regular file; only files are read",
            path.display()
        )));
    }
    if meta.len() > max {
        return Err(DiskError::TooLarge(format!(
            "{}: {} bytes is more than the limit of {max} (raise it with --max-bytes)",
            path.display(),
            meta.len()
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    if bytes.len() as u64 > max {
        return Err(DiskError::TooLarge(format!(
            "{}: grew past the limit of {max} bytes while it was read",
            path.display()
        )));
    }
    Ok(bytes)
}

/// An I/O error on `path`: not found where the file is not there.
fn io_error(path: &Path, e: std::io::Error) -> DiskError {
    let said = format!("{}: {e}", path.display());
    if e.kind() == std::io::ErrorKind::NotFound {
        DiskError::NotFound(said)
    } else {
        DiskError::Unreadable(said)
    }
}

/// A file on disk as a byte source.
fn file_bytes(path: &Path) -> Result<FileBytes, DiskError> {
    FileBytes::open(path).map_err(|e| {
        if path.exists() {
            DiskError::Unreadable(e)
        } else {
            DiskError::NotFound(e)
        }
    })
}

/// An entry of `size` bytes at `path` is more than a reader of `max` takes.
fn too_large(path: &str, size: u64, max: u64) -> Result<(), DiskError> {
    if size > max {
        return Err(DiskError::TooLarge(format!(
            "{path}: {size} bytes, more than the {max} read at most (--max-bytes)"
        )));
    }
    Ok(())
}

/// Archive paths on disk: the files the listing found (names that are not UTF-8 included),
/// read as regular files up to the size limit, or through their container.
pub struct DiskSource {
    real: std::collections::HashMap<String, PathBuf>,
    /// The archive's containers (paths inside them are read through it).
    disk: Option<Disk>,
    max_bytes: u64,
}

impl DiskSource {
    pub fn new(files: &[ListedFile], disk: Disk, max_bytes: u64) -> DiskSource {
        let real = files
            .iter()
            .filter(|f| !f.contained)
            .map(|f| (f.path.clone(), f.real.clone()))
            .collect();
        DiskSource {
            real,
            disk: Some(disk),
            max_bytes,
        }
    }

    /// Every path read through `disk` (a folder whose containers are folders).
    pub fn through(disk: Disk, max_bytes: u64) -> DiskSource {
        DiskSource {
            real: Default::default(),
            disk: Some(disk),
            max_bytes,
        }
    }

    /// The bytes of each of `paths`, handed to `each(path, bytes or why)` in the order that
    /// costs least: loose files as they come, then each container's entries through
    /// [`Container::read_each`] (a solid 7z's blocks decoded once each, not once an entry).
    /// `each` must not read through this source (a decode may be under way).
    pub fn read_each(&self, paths: &[&str], each: &mut dyn FnMut(&str, FileRead)) {
        // Each container, with (the path's place in `paths`, the entry's index) of its paths.
        let mut groups: Vec<EntriesOf> = Vec::new();
        for (k, &path) in paths.iter().enumerate() {
            if let Some(real) = self.real.get(path) {
                each(path, read_regular(real, self.max_bytes));
                continue;
            }
            let Some(disk) = &self.disk else {
                each(
                    path,
                    Err(DiskError::NotFound(format!("{path}: not in the archive"))),
                );
                continue;
            };
            match disk.entry(path) {
                Err(why) => each(path, Err(why)),
                Ok((c, i)) => {
                    if let Err(e) = too_large(path, c.entries()[i].size, self.max_bytes) {
                        each(path, Err(e));
                        continue;
                    }
                    let same =
                        |g: &Rc<dyn Container>| std::ptr::addr_eq(Rc::as_ptr(g), Rc::as_ptr(&c));
                    match groups.iter_mut().find(|(g, _)| same(g)) {
                        Some((_, wanted)) => wanted.push((i, k)),
                        None => groups.push((c, vec![(i, k)])),
                    }
                }
            }
        }
        for (c, wanted) in groups {
            let path_of: HashMap<usize, usize> = wanted.iter().copied().collect();
            let indices: Vec<usize> = wanted.iter().map(|&(i, _)| i).collect();
            c.read_each(&indices, &mut |i, bytes| {
                each(paths[path_of[&i]], bytes.map_err(DiskError::from));
                true
            });
        }
    }

    /// No archive around the file: every other path is not there.
    pub fn none(max_bytes: u64) -> DiskSource {
        DiskSource {
            real: Default::default(),
            disk: None,
            max_bytes,
        }
    }
}

impl FileSource for DiskSource {
    async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        match (self.real.get(path), &self.disk) {
            (Some(real), _) => read_regular(real, self.max_bytes),
            (None, Some(disk)) => disk.read(path, self.max_bytes),
            (None, None) => Err(DiskError::NotFound("not in the archive".to_string())),
        }
        .map_err(|e| e.to_string())
    }
    fn now_ms(&self) -> f64 {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1000.0
    }
}
