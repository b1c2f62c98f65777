//! `relicview publish ARCHIVE OUT` and `relicview index DIR`: an archive made ready for any
//! static web host. The index (index.json) lists every loose file and what is inside each
//! container (a zip's entries, a disc's files), with the byte ranges of the container each
//! entry is read from, so the page lists at once and reads an entry with a Range request or
//! two (crates/containers/src/hosted/). `publish` writes the page beside it and swaps the new site
//! for an earlier one in one step. docs/publishing.md.

use crate::containers::hosted::{self, HostedContainer, HostedEntry, HostedIndex, Inside, Layout};
use crate::containers::CueTrack;
use crate::containers::{self, ByteSource, FileBytes, Limits};
use crate::disk::cue_track_of;
use crate::serve::{list_folder, ListedFile};
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The largest container inside a container listed from a host: the page reads it whole
/// (as when the outer one is dropped) before it reads an entry of it.
pub const NESTED_AT_MOST: u64 = 256 << 20;
/// How deep containers inside containers are listed.
const NESTED_DEPTH: usize = 3;

/// The index of the archive folder `root`; `only`: the one file (a container given as the
/// archive) to index of it, with the .bin a cue sheet names.
pub fn build_index(root: &Path, only: Option<&str>) -> io::Result<HostedIndex> {
    let listing = list_folder(root, false)?;
    let mut files = listing.files;
    if let Some(name) = only {
        keep_only(&mut files, name, root)?;
    }
    files.retain(|f| f.path != "index.json");
    let mut consumed = vec![false; files.len()];
    let mut containers_out = Vec::new();
    let mut failures: Vec<(usize, String)> = Vec::new();
    plan_cue_sheets(&files, &mut consumed, &mut containers_out, &mut failures);
    for (i, f) in files.iter().enumerate() {
        if consumed[i] || containers::is_cue(&f.path) {
            continue;
        }
        // (A 7z is served whole: its entries are not ranges of it.)
        let Some(layout) = sniff(f).and_then(Layout::of) else {
            continue;
        };
        match plan_container(&f.path, f, layout) {
            Ok(c) => {
                consumed[i] = true;
                containers_out.extend(c);
            }
            Err(why) => failures.push((i, why)),
        }
    }
    for (i, why) in failures {
        files[i].failure = Some(why);
    }
    let mut files: Vec<ListedFile> = files
        .into_iter()
        .zip(consumed)
        .filter(|(_, c)| !c)
        .map(|(f, _)| f)
        .collect();
    record_references(root, &mut files);
    let name = match only {
        Some(n) => n.rsplit('/').next().unwrap_or(n).to_string(),
        None => listing.root,
    };
    Ok(HostedIndex {
        root: name,
        base: String::new(),
        files: files.iter().map(ListedFile::hosted).collect(),
        containers: containers_out,
    })
}

/// Of `files`, only `name` (a container given as the archive), with the .bin it names if it
/// is a cue sheet; an error if `name` is not one of them.
fn keep_only(files: &mut Vec<ListedFile>, name: &str, root: &Path) -> io::Result<()> {
    let bin = files
        .iter()
        .find(|f| f.path == name)
        .filter(|f| containers::is_cue(&f.path))
        .and_then(|f| cue_track_of(f).ok())
        .map(|track| track.file_beside(name).to_ascii_lowercase());
    files.retain(|f| f.path == name || Some(f.path.to_ascii_lowercase()) == bin);
    if !files.iter().any(|f| f.path == name) {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{name}: not a regular file in {}", root.display()),
        ));
    }
    Ok(())
}

/// Each cue sheet's disc planned, under the cue's name: a .bin that a cue sheet beside it
/// names is that disc, listed once (both marked `consumed`); a cue sheet that cannot be
/// planned goes in `failures`.
fn plan_cue_sheets(
    files: &[ListedFile],
    consumed: &mut [bool],
    containers_out: &mut Vec<HostedContainer>,
    failures: &mut Vec<(usize, String)>,
) {
    let cues: Vec<(String, Result<CueTrack, String>)> = files
        .iter()
        .filter(|f| containers::is_cue(&f.path))
        .map(|f| (f.path.clone(), cue_track_of(f)))
        .collect();
    let by_path: std::collections::HashMap<String, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.to_ascii_lowercase(), i))
        .collect();
    for (cue, track) in cues {
        let cue_at = by_path[&cue.to_ascii_lowercase()];
        let planned = track.and_then(|track: CueTrack| {
            let bin_at = *by_path
                .get(&track.file_beside(&cue).to_ascii_lowercase())
                .ok_or_else(|| track.not_beside(&cue))?;
            consumed[bin_at] = true;
            plan_container(
                &cue,
                &files[bin_at],
                Layout::Disc {
                    mode: track.mode.word().into(),
                    start: track.start,
                },
            )
        });
        match planned {
            Ok(c) => {
                consumed[cue_at] = true;
                containers_out.extend(c);
            }
            Err(why) => failures.push((cue_at, why)),
        }
    }
}

/// The largest file read to find what a file references (the CLI's own limit).
const REFERENCE_READ_AT_MOST: u64 = 512 << 20;

/// The most files an index names as one file's references: a world's models and their
/// libraries and textures are a few dozen.
const MAX_REFS: usize = 256;

/// What opening each loose file that draws a scene reads besides itself (its material
/// libraries and textures, a world's includes and models, a field model's FIELD.TDB and
/// FIELD.BIN), in the order the open read them: the index names them (`refs`), so the page
/// fetches them together with the file, not one round trip after another as the parse finds
/// them. Each file is opened as the page opens it (the core's one open sequence), in an
/// archive of its own, so that what an earlier file read is not left out of a later one's.
fn record_references(root: &Path, files: &mut [ListedFile]) {
    use crate::archive::{self, Archive, ArchiveIndex, FileSource};
    use crate::disk::{Disk, DiskSource};
    use crate::formats::kind::Kind;
    use std::cell::RefCell;
    struct Noting {
        source: DiskSource,
        read: RefCell<Vec<String>>,
    }
    impl FileSource for Noting {
        async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
            self.read.borrow_mut().push(path.to_string());
            self.source.read(path).await
        }
    }
    let index = ArchiveIndex::listed(files);
    // (A path the open asked for that the archive lacks is not a file to fetch.)
    let listed: std::collections::HashSet<String> = files.iter().map(|f| f.path.clone()).collect();
    let noting = Noting {
        source: DiskSource::new(files, Disk::new(root), REFERENCE_READ_AT_MOST),
        read: RefCell::new(Vec::new()),
    };
    for f in files.iter_mut() {
        if f.failure.is_some() || !Kind::parse(f.kind).is_some_and(|k| k.capabilities().scene) {
            continue;
        }
        noting.read.borrow_mut().clear();
        let archive = RefCell::new(Archive::new(index.clone()));
        let _ = pollster::block_on(archive::open_file(&archive, &noting, &f.path));
        let mut refs: Vec<String> = Vec::new();
        for p in noting.read.take() {
            if p != f.path && listed.contains(&p) && !refs.contains(&p) && refs.len() < MAX_REFS {
                refs.push(p);
            }
        }
        f.refs = refs;
    }
}

fn sniff(f: &ListedFile) -> Option<containers::ContainerKind> {
    containers::sniff_source(&f.path, &FileBytes::open(&f.real).ok()?)
}

/// Read the container in `bytes` once, noting each entry's ranges, kind and CRC; → it, and
/// the containers inside it (listed after it).
fn plan_container(
    path: &str,
    bytes: &ListedFile,
    layout: Layout,
) -> Result<Vec<HostedContainer>, String> {
    let source: Rc<dyn ByteSource> = Rc::new(FileBytes::open(&bytes.real)?);
    let mut out = Vec::new();
    plan_source(path, &bytes.path, source, layout, None, 0, &mut out)?;
    Ok(out)
}

/// [`plan_container`] of the container in `source` (the file `file`, or an entry of another
/// container: `inside`), then of each container inside it, `depth` deep.
fn plan_source(
    path: &str,
    file: &str,
    source: Rc<dyn ByteSource>,
    layout: Layout,
    inside: Option<Inside>,
    depth: usize,
    out: &mut Vec<HostedContainer>,
) -> Result<(), String> {
    let size = source.len();
    let mut kinds = Vec::new();
    let plan = hosted::plan(path, &layout, source, Limits::default(), &mut |index, b| {
        kinds.push((index, b[..b.len().min(16)].to_vec(), b.len() as u64))
    })
    .map_err(|e| e.to_string())?;
    if plan.container.entries().is_empty() {
        if let Some(p) = plan.container.problems().first() {
            return Err(p.to_string());
        }
    }
    let entries = hosted_entries(&plan, kinds);
    let mut problems: Vec<String> = plan
        .container
        .problems()
        .iter()
        .chain(&plan.unread)
        .map(|p| p.to_string())
        .collect();
    // Containers inside: read whole (as the page reads one when the outer is dropped) and
    // listed after this one.
    let nested = if depth + 1 < NESTED_DEPTH {
        nested_containers(&plan)
    } else {
        Vec::new()
    };
    out.push(HostedContainer {
        path: path.to_string(),
        file: file.to_string(),
        size,
        layout,
        meta: plan.meta.clone(),
        entries,
        problems: Vec::new(),
        inside,
    });
    let me = out.len() - 1;
    problems.extend(plan_nested(&plan, (path, file), nested, depth, out));
    out[me].problems = problems;
    Ok(())
}

/// Each container `nested` in the one `plan` lists (the container `path` of the archive's
/// file `file`, `depth` deep) read whole and planned, after it in `out`. → what kept any
/// from being listed.
fn plan_nested(
    plan: &hosted::Plan,
    (path, file): (&str, &str),
    nested: Vec<(usize, Layout)>,
    depth: usize,
    out: &mut Vec<HostedContainer>,
) -> Vec<String> {
    let listed = plan.container.entries();
    let mut problems = Vec::new();
    for (i, layout) in nested {
        let entry = &listed[i];
        let inner = format!("{path}/{}", entry.path);
        if entry.size > NESTED_AT_MOST {
            problems.push(format!("{inner}: {} bytes: a container inside a container is listed from a host up to {NESTED_AT_MOST} bytes", entry.size));
            continue;
        }
        let planned = plan
            .container
            .read(i)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                plan_source(
                    &inner,
                    file,
                    Rc::new(b),
                    layout,
                    Some(Inside {
                        container: path.to_string(),
                        entry: entry.path.clone(),
                    }),
                    depth + 1,
                    out,
                )
            });
        if let Err(why) = planned {
            problems.push(format!("{inner}: not listed inside: {why}"));
        }
    }
    problems
}

/// The index's rows of a plan's entries, each of the kind its first bytes in `kinds` (entry
/// index, head, size) say.
fn hosted_entries(plan: &hosted::Plan, kinds: Vec<(usize, Vec<u8>, u64)>) -> Vec<HostedEntry> {
    let listed = plan.container.entries();
    let mut kind_of = kinds
        .into_iter()
        .map(|(i, head, size)| (i, crate::census::kind_of(&listed[i].path, &head, size)))
        .collect::<std::collections::HashMap<_, _>>();
    plan.entries
        .iter()
        .map(|e| HostedEntry {
            path: listed[e.index].path.clone(),
            size: listed[e.index].size,
            kind: kind_of.remove(&e.index).unwrap_or("bytes").to_string(),
            at: e.at,
            crc32: format!("{:08x}", e.crc32),
            ranges: e.ranges.clone(),
            pieces: e.pieces.clone(),
        })
        .collect()
}

/// The entries of a plan that are containers a host can serve by ranges, with their layout
/// (a 7z is not one: its entries are no ranges of it).
fn nested_containers(plan: &hosted::Plan) -> Vec<(usize, Layout)> {
    let listed = plan.container.entries();
    entries_of(plan)
        .filter(|(_, e)| containers::may_nest(&e.path))
        .filter_map(|(i, _)| {
            plan.container
                .head(i, containers::HEAD)
                .ok()
                .and_then(|head| containers::sniff(&listed[i].path, &head))
                .and_then(Layout::of)
                .map(|l| (i, l))
        })
        .collect()
}

/// The entries of a plan that were read (and so are rows of the index), with their index.
fn entries_of(plan: &hosted::Plan) -> impl Iterator<Item = (usize, &containers::Entry)> {
    plan.entries
        .iter()
        .map(|e| (e.index, &plan.container.entries()[e.index]))
}

/// Write `DIR/index.json` (through a temporary file and a rename: readers see the old index
/// or the new one; never through a link). Returns the files and container entries listed.
pub fn write_index(dir: &Path) -> io::Result<usize> {
    let index = build_index(dir, None)?;
    let n = listed(&index);
    write_new_or_replace(
        &dir.join("index.json"),
        &serde_json::to_vec(&index).map_err(io::Error::other)?,
    )?;
    Ok(n)
}

fn listed(index: &HostedIndex) -> usize {
    index.files.len()
        + index
            .containers
            .iter()
            .map(|c| c.entries.len())
            .sum::<usize>()
}

fn write_new_or_replace(target: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Ok(meta) = std::fs::symlink_metadata(target) {
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{}: exists and is not a regular file (a link or a folder); not overwritten",
                    target.display()
                ),
            ));
        }
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    let temp = dir.join(format!(".index.json.{}.tmp", std::process::id()));
    let write = || -> io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        io::Write::write_all(&mut f, bytes)?;
        f.sync_all()?;
        std::fs::rename(&temp, target)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        io::Error::new(e.kind(), format!("{}: {e}", target.display()))
    })
}

/// What `publish` wrote.
#[derive(Debug)]
pub struct Published {
    pub files: usize,
    pub containers: usize,
    pub entries: usize,
    pub index_bytes: usize,
    pub copied_bytes: u64,
}

/// The file a site folder carries to say `publish` wrote it (and may replace it).
const MARK: &str = ".relicview-site";

/// Write a static site for `archive` (a folder, or one container file) into `out`: the page
/// from the built site `site` (index.html, assets/: scripts/site.mjs), index.json, and the
/// archive's files under `archive/` (or, with `base_url`, only the index, naming where they
/// are served). The site is made beside `out` and then swapped in: a reader sees the old
/// site or the new one, and the page's files of the publish before stay beside the new ones,
/// so that a page opened before still loads its own modules (they are named by their
/// content: docs/publishing.md, "Caching"). `out` must not exist, be empty, or hold an
/// earlier publish; nothing in it is followed.
pub fn publish(
    archive: &Path,
    out: &Path,
    site: &Path,
    base_url: Option<&str>,
) -> io::Result<Published> {
    let (root, only) = archive_root(archive)?;
    if let Some(url) = base_url {
        if !(url.starts_with("https://") || url.starts_with("http://") || url.starts_with('/')) {
            return Err(invalid(format!(
                "--base-url {url}: expected an http(s) URL or a path from the host's root"
            )));
        }
    }
    let earlier = earlier_publish(out)?;
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let out_name = out
        .file_name()
        .ok_or_else(|| invalid(format!("{}: no folder name", out.display())))?;
    let out_real = parent
        .canonicalize()
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", parent.display())))?
        .join(out_name);
    if out_real.starts_with(&root) || root.starts_with(&out_real) {
        return Err(invalid(format!(
            "{}: inside the archive, or the archive inside it; publish elsewhere",
            out.display()
        )));
    }
    let temp = parent.join(format!(
        ".{}.publishing-{}",
        out_name.to_string_lossy(),
        std::process::id()
    ));
    if std::fs::symlink_metadata(&temp).is_ok() {
        std::fs::remove_dir_all(&temp)?;
    }
    std::fs::create_dir(&temp)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", temp.display())))?;
    let made = (|| -> io::Result<Published> {
        copy_site(site, &temp)?;
        if earlier {
            keep_previous_assets(out, &temp)?;
        }
        write_archive(&root, only.as_deref(), &temp, base_url)
    })();
    let published = match made {
        Ok(p) => p,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&temp);
            return Err(e);
        }
    };
    if earlier {
        exchange(&temp, out)?;
        // `temp` now holds the old site; removing it follows no link.
        std::fs::remove_dir_all(&temp)?;
    } else {
        std::fs::rename(&temp, out)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out.display())))?;
    }
    Ok(published)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

/// The folder an archive's files are read from (canonical), and the one file to publish
/// where the archive is a container file rather than a folder.
fn archive_root(archive: &Path) -> io::Result<(std::path::PathBuf, Option<String>)> {
    let meta = std::fs::metadata(archive)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", archive.display())))?;
    let (root, only) = if meta.is_dir() {
        (archive.to_path_buf(), None)
    } else {
        let name = archive
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| invalid(format!("{}: no file name", archive.display())))?;
        (
            archive
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
            Some(name),
        )
    };
    let root = root
        .canonicalize()
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", root.display())))?;
    Ok((root, only))
}

/// What is at `out` now: nothing or an empty folder (false), or an earlier publish (true);
/// anything else is an error.
fn earlier_publish(out: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(out) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", out.display()))),
        Ok(m) if m.file_type().is_symlink() => Err(invalid(format!(
            "{}: a link; publish writes a folder of its own and follows no link",
            out.display()
        ))),
        Ok(m) if !m.is_dir() => Err(invalid(format!(
            "{}: exists and is not a folder",
            out.display()
        ))),
        Ok(_) => {
            let mut names = std::fs::read_dir(out)?
                .filter_map(Result::ok)
                .map(|e| e.file_name());
            let empty = names.next().is_none();
            let marked = std::fs::symlink_metadata(out.join(MARK)).is_ok_and(|m| m.is_file());
            if !empty && !marked {
                return Err(invalid(format!("{}: holds files an earlier publish did not write; name an empty folder or a new one", out.display())));
            }
            Ok(true)
        }
    }
}

/// index.json and the mark into the site being made at `temp`, and the archive's files
/// under archive/ (or, with `base_url`, only the index, naming where they are served).
fn write_archive(
    root: &Path,
    only: Option<&str>,
    temp: &Path,
    base_url: Option<&str>,
) -> io::Result<Published> {
    let mut index = build_index(root, only)?;
    let mut copied_bytes = 0;
    match base_url {
        Some(url) => {
            index.base = if url.ends_with('/') {
                url.to_string()
            } else {
                format!("{url}/")
            }
        }
        None => {
            index.base = "archive/".into();
            let holder = temp.join("archive");
            std::fs::create_dir(&holder)?;
            let listed = list_folder(root, false)?;
            let wanted: std::collections::HashSet<&str> = index
                .files
                .iter()
                .map(|f| f.path.as_str())
                .chain(index.containers.iter().map(|c| c.file.as_str()))
                .collect();
            for f in listed
                .files
                .iter()
                .filter(|f| wanted.contains(f.path.as_str()))
            {
                copied_bytes += copy_new(&f.real, &holder.join(&f.path))?;
            }
        }
    }
    let json = serde_json::to_vec(&index).map_err(io::Error::other)?;
    write_compressed(&temp.join("index.json"), &json)?;
    std::fs::write(
        temp.join(MARK),
        b"written by relicview publish; a later publish replaces this folder\n",
    )?;
    Ok(Published {
        files: index.files.len(),
        containers: index.containers.len(),
        entries: index.containers.iter().map(|c| c.entries.len()).sum(),
        index_bytes: json.len(),
        copied_bytes,
    })
}

/// Swap two folders in one step (Linux's renameat2 with RENAME_EXCHANGE).
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: a NUL in the path", p.display()),
            )
        })
    };
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both are NUL-terminated paths that live across the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("swapping {} for {}: {e}", a.display(), b.display()),
        ));
    }
    Ok(())
}

/// The built page at `site` (scripts/site.mjs): index.html, assets.json and assets/, each
/// with its compressed forms; regular files only.
fn copy_site(site: &Path, to: &Path) -> io::Result<()> {
    let need = |p: PathBuf| {
        if p.exists() {
            Ok(p)
        } else {
            Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: not there; the site folder is a built page (index.html, assets.json, assets/), which scripts/build.sh writes into site/", p.display()),
            ))
        }
    };
    for file in [
        "index.html",
        "index.html.br",
        "index.html.gz",
        "assets.json",
    ] {
        let from = site.join(file);
        if file == "index.html" || file == "assets.json" || from.is_file() {
            copy_new(&need(from)?, &to.join(file))?;
        }
    }
    for entry in std::fs::read_dir(need(site.join("assets"))?)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            copy_new(&entry.path(), &to.join("assets").join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// The files of the build `old` was published with (its assets.json), where the new site
/// lacks them: a page opened before the new publish asks for them by name when it first
/// needs one (a module loaded when first used). Only the build before is kept, so a site
/// holds at most two builds' files.
fn keep_previous_assets(old: &Path, new: &Path) -> io::Result<()> {
    let Ok(listed) = std::fs::read(old.join("assets.json")) else {
        return Ok(());
    };
    let Ok(names) = serde_json::from_slice::<std::collections::BTreeMap<String, String>>(&listed)
    else {
        return Ok(());
    };
    for name in names.values() {
        // Plain names inside assets/ only: the old site is read as hostile as any input.
        if name.is_empty() || name.contains('/') || name.contains('\\') || name.starts_with('.') {
            continue;
        }
        for file in [name.clone(), format!("{name}.br"), format!("{name}.gz")] {
            let (from, to) = (
                old.join("assets").join(&file),
                new.join("assets").join(&file),
            );
            if std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_file()) && !to.exists() {
                copy_new(&from, &to)?;
            }
        }
    }
    Ok(())
}

/// `bytes` written at `path`, with the same compressed beside it as hosts send them to a
/// browser that accepts them (`.gz`: gzip at its best; `.br`: brotli at quality 11), as the
/// build does for the page's files (scripts/site.mjs).
fn write_compressed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    std::fs::write(path, bytes)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(bytes)?;
    std::fs::write(
        path.with_extension(format!("{}.gz", extension_of(path))),
        gz.finish()?,
    )?;
    let mut br = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &bytes[..], &mut br, &params)?;
    std::fs::write(
        path.with_extension(format!("{}.br", extension_of(path))),
        br,
    )?;
    Ok(())
}

fn extension_of(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Copy a regular file to a path that must not exist yet (its folders are made).
fn copy_new(from: &Path, to: &Path) -> io::Result<u64> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut src = std::fs::File::open(from)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", from.display())))?;
    let mut dst = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", to.display())))?;
    io::copy(&mut src, &mut dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder of this module's tests (crate::scratch).
    fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
        crate::scratch::tmp(&format!("publish-{name}"))
    }

    #[test]
    fn index_is_written_atomically_and_never_through_a_link() {
        let (_scratch, base) = tmp("index");
        let root = base.join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("A.BGF"), b"x").unwrap();
        assert_eq!(write_index(&root).unwrap(), 1);
        assert_eq!(
            std::fs::read_dir(&root).unwrap().count(),
            2,
            "no temporary file is left"
        );
        std::fs::remove_file(root.join("index.json")).unwrap();
        std::fs::write(base.join("outside.txt"), b"keep me").unwrap();
        std::os::unix::fs::symlink(base.join("outside.txt"), root.join("index.json")).unwrap();
        let e = write_index(&root).unwrap_err().to_string();
        assert!(
            e.contains("index.json") && e.contains("not a regular file"),
            "{e}"
        );
        assert_eq!(std::fs::read(base.join("outside.txt")).unwrap(), b"keep me");
    }
}
