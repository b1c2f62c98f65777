//! (Native.) A whole archive out into a folder, on every core: workers open and export the
//! files, a few ahead of the writer, which names and writes them in the archive's order (so
//! the names given are the same whatever the timing, and as the page gives them). Memory
//! holds at most a window of files' outputs; every file is opened in an archive of its own
//! (what it reads is let go with it). The files' bytes are read ahead by one reader in the
//! order that costs least (a solid 7z's blocks decoded once each, not once a file), and held
//! until a worker takes them, within [`READ_AHEAD_BYTES`].

use super::report::{self, Report};
use super::{outcome_of, Bundle, Outcome};
use crate::archive::{Archive, ArchiveIndex, FileSource};
use crate::disk::{Disk, DiskSource, ListedFile};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

/// The most bytes read ahead and not yet taken by a worker. Past it the reader waits, and a
/// worker whose file it has not reached reads that file itself.
pub const READ_AHEAD_BYTES: u64 = 256 << 20;

/// Files read ahead of the workers, by their place in the listing.
#[derive(Default)]
struct ReadAhead {
    ready: HashMap<usize, crate::disk::FileRead>,
    bytes: u64,
    /// Files a worker read itself (the reader drops them when it comes to them).
    taken: HashSet<usize>,
    /// The reader waits for room, or has read every file.
    waiting: bool,
    done: bool,
}

impl ReadAhead {
    /// File `i`'s bytes if the reader has them; Err(()) when the worker should read it
    /// itself (the reader is past it, or waits for room), None to wait.
    fn take(&mut self, i: usize) -> Option<Result<Result<Vec<u8>, String>, ()>> {
        if let Some(read) = self.ready.remove(&i) {
            self.bytes -= read.as_ref().map_or(0, |b| b.len() as u64);
            return Some(Ok(read.map_err(|e| e.to_string())));
        }
        if self.done || self.waiting {
            self.taken.insert(i);
            return Some(Err(()));
        }
        None
    }
}

/// What became of one archive file, or why it could not be read.
type Done = Result<Outcome, String>;

struct Shared {
    /// Finished files not written yet, by their place in the listing.
    done: BTreeMap<usize, Done>,
    /// The next file a worker takes, and the next the writer writes.
    next: usize,
    written: usize,
}

/// Export the archive at `root` (a folder, or a container) listed as `files` into `out`;
/// `unlisted` are the entries its listing could not list, with why (failures, reported).
/// `all_scenes`: every LOD and model as glTF scenes, `rig` how skeletons go out ([`outcome_of`]). `threads` workers; `progress(done, path)` after each file is written. Outputs that
/// cannot be written are failures of their file; nothing is written outside `out`, and
/// never through a link.
#[allow(clippy::too_many_arguments)]
pub fn export_to_folder(
    root: &Path,
    files: &[ListedFile],
    unlisted: &[(String, String)],
    out: &Path,
    all_scenes: bool,
    rig: crate::gltf::Rig,
    max_bytes: u64,
    threads: usize,
    progress: &(dyn Fn(usize, &str) + Sync),
) -> std::io::Result<Report> {
    std::fs::create_dir_all(out)?;
    let out = out.canonicalize()?;
    let threads = threads.max(1);
    let pipeline = Pipeline {
        root,
        files,
        index: ArchiveIndex::listed(files),
        max_bytes,
        all_scenes,
        rig,
        // Files in flight at most, done or not: one a worker (a worker waits while the
        // writer is behind), so memory holds about as many files' outputs as there are
        // workers.
        window: threads,
        shared: Mutex::new(Shared {
            done: BTreeMap::new(),
            next: 0,
            written: 0,
        }),
        changed: Condvar::new(),
        ahead: Mutex::new(ReadAhead::default()),
        ahead_changed: Condvar::new(),
    };
    let mut bundle = Bundle::new(&root.display().to_string());
    for (path, why) in unlisted {
        bundle.not_listed(path, why);
    }
    std::thread::scope(|scope| {
        scope.spawn(|| pipeline.read_ahead());
        for _ in 0..threads {
            scope.spawn(|| pipeline.work());
        }
        pipeline.write(&mut bundle, &out, progress);
    });
    let report = bundle.finish();
    let json = serde_json::to_vec_pretty(&report).map_err(std::io::Error::other)?;
    write_inside(&out, report::REPORT_NAME, &json)?;
    Ok(report)
}

/// An export to a folder under way: the reader, the workers and the writer share it.
struct Pipeline<'a> {
    root: &'a Path,
    files: &'a [ListedFile],
    index: ArchiveIndex,
    max_bytes: u64,
    all_scenes: bool,
    rig: crate::gltf::Rig,
    window: usize,
    shared: Mutex<Shared>,
    changed: Condvar,
    ahead: Mutex<ReadAhead>,
    ahead_changed: Condvar,
}

impl Pipeline<'_> {
    /// The reader: every file's bytes in the order that costs least, held for the workers
    /// within [`READ_AHEAD_BYTES`].
    fn read_ahead(&self) {
        let source = DiskSource::new(self.files, Disk::new(self.root), self.max_bytes);
        let index_of: HashMap<&str, usize> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.as_str(), i))
            .collect();
        let paths: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        source.read_each(&paths, &mut |path, read| {
            let i = index_of[path];
            let mut a = self.ahead.lock().expect("no worker panics holding it");
            if a.taken.contains(&i) {
                return;
            }
            a.bytes += read.as_ref().map_or(0, |b| b.len() as u64);
            a.ready.insert(i, read);
            self.ahead_changed.notify_all();
            while a.bytes > READ_AHEAD_BYTES {
                a.waiting = true;
                self.ahead_changed.notify_all();
                a = self
                    .ahead_changed
                    .wait(a)
                    .expect("no worker panics holding it");
            }
            a.waiting = false;
        });
        self.ahead.lock().expect("no worker panics holding it").done = true;
        self.ahead_changed.notify_all();
    }

    /// A worker: the next file within the window opened and exported, until none is left.
    fn work(&self) {
        let source = DiskSource::new(self.files, Disk::new(self.root), self.max_bytes);
        loop {
            let i = {
                let mut s = self.shared.lock().expect("no worker panics holding it");
                while s.next < self.files.len() && s.next >= s.written + self.window {
                    s = self.changed.wait(s).expect("no worker panics holding it");
                }
                if s.next >= self.files.len() {
                    return;
                }
                s.next += 1;
                s.next - 1
            };
            let path = &self.files[i].path;
            let read = {
                let mut a = self.ahead.lock().expect("no worker panics holding it");
                loop {
                    if let Some(read) = a.take(i) {
                        break read;
                    }
                    a = self
                        .ahead_changed
                        .wait(a)
                        .expect("no worker panics holding it");
                }
            };
            self.ahead_changed.notify_all();
            let read = read.unwrap_or_else(|()| pollster::block_on(source.read(path)));
            let archive = RefCell::new(Archive::new(self.index.clone()));
            let done = read.map(|bytes| {
                outcome_of(
                    &pollster::block_on(super::open_read_for_export(
                        &archive, &source, path, bytes,
                    )),
                    self.all_scenes,
                    self.rig,
                )
            });
            self.shared
                .lock()
                .expect("no worker panics holding it")
                .done
                .insert(i, done);
            self.changed.notify_all();
        }
    }

    /// The writer: each file's outputs named and written under `out` in the listing's order,
    /// as the workers finish them.
    fn write(&self, bundle: &mut Bundle, out: &Path, progress: &(dyn Fn(usize, &str) + Sync)) {
        for (i, f) in self.files.iter().enumerate() {
            let done = {
                let mut s = self.shared.lock().expect("no worker panics holding it");
                loop {
                    if let Some(d) = s.done.remove(&i) {
                        break d;
                    }
                    s = self.changed.wait(s).expect("no worker panics holding it");
                }
            };
            match done {
                Ok(outcome) => {
                    for (name, bytes) in bundle.take(&f.path, outcome) {
                        if let Err(e) = write_inside(out, &name, &bytes) {
                            bundle.not_written(&name, format!("{name}: {e}"));
                        }
                    }
                }
                Err(why) => bundle.unreadable(&f.path, &why),
            }
            self.shared
                .lock()
                .expect("no worker panics holding it")
                .written = i + 1;
            self.changed.notify_all();
            progress(i + 1, &f.path);
        }
    }
}

/// Write `bytes` as `name` (a safe name: no `..`, no empty step) under `out`, making its
/// folders; a link on the way, or in its place, is refused.
fn write_inside(out: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut at: PathBuf = out.to_path_buf();
    let steps: Vec<&str> = name.split('/').collect();
    for step in &steps[..steps.len() - 1] {
        if step.is_empty() || *step == "." || *step == ".." {
            return Err(std::io::Error::other("not a name inside the output"));
        }
        at.push(step);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(std::io::Error::other(format!(
                    "{} is a link; nothing is written through one",
                    at.display()
                )))
            }
            Ok(m) if !m.is_dir() => {
                return Err(std::io::Error::other(format!(
                    "{} is not a folder",
                    at.display()
                )))
            }
            Ok(_) => {}
            Err(_) => std::fs::create_dir(&at)?,
        }
    }
    at.push(steps[steps.len() - 1]);
    if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other(format!(
            "{} is a link; nothing is written through one",
            at.display()
        )));
    }
    std::fs::write(&at, bytes)
}
