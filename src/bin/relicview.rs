//! The native command line, on the same core as the browser viewer.

use clap::{Parser, Subcommand};
use relicview::archive::{self, Archive, ArchiveIndex, FileSource, Opened};
use relicview::census::{self, Census};
use relicview::disk::{read_regular, Disk, DiskSource};
use relicview::formats::registry::{Kind, Purpose};
use relicview::formats::GameVariable;
use relicview::serve::ListedFile;
use relicview::{demo, gltf, publish, serve};
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The CLI reads containers: a 7z header's tables are read under a ceiling on one allocation,
/// which only this allocator enforces (crates/containers/src/ceiling.rs).
#[global_allocator]
static ALLOCATOR: relicview::containers::ceiling::CeilingAllocator =
    relicview::containers::ceiling::CeilingAllocator;

#[derive(Parser)]
#[command(
    name = "relicview",
    version,
    about = "Look inside old 3D game archives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which levels of detail an export holds (`export --lods`).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ExportLods {
    /// What the viewer shows: the LOD of --lod, and a file's first model (or --model's).
    Shown,
    /// Every LOD, and every model of a file of several, as glTF scenes of their own: for
    /// tools that read glTF scenes (Blender brings every scene into one and stacks them).
    All,
}

/// The colours an export writes (`export --lighting`).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ExportLighting {
    Game,
    Stored,
}

/// `export --rig`: one of the words [`gltf::Rig`] is said with.
fn rig_word(word: &str) -> Result<gltf::Rig, String> {
    gltf::Rig::from_word(word).ok_or_else(|| {
        format!(
            "`{word}` is not a rig: {}",
            gltf::Rig::ALL.map(gltf::Rig::word).join(" or ")
        )
    })
}

#[derive(Subcommand)]
enum Command {
    /// Parse one file and summarise it (exit 1 on an error or a diagnostic).
    Info {
        file: PathBuf,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// The archive the file belongs to: resolve its material libraries there.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Set one of the game's variables the file's scripts read, BANK:ADDRESS=VALUE (an
        /// FF7 field's init branches on them: 2:0 is the story's progress); repeatable.
        /// Every other variable is 0.
        #[arg(long = "set", value_name = "BANK:ADDRESS=VALUE", value_parser = relicview::formats::ff7::game_state::parse)]
        set: Vec<GameVariable>,
        /// Refuse files larger than this many bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// List every record of a file as the page's inspector does: its path, offset, length,
    /// name and summary, its decoded fields, and the bytes' coverage (framing, decoded,
    /// opaque, unclaimed). Exit 1 on an error or a diagnostic.
    Inspect {
        file: PathBuf,
        /// Print the listing as one JSON object (every record with its fields).
        #[arg(long)]
        json: bool,
        /// The archive the file belongs to: what it refers to is found there.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Without --json: list each record's decoded fields under it.
        #[arg(long)]
        fields: bool,
        /// Refuse files larger than this many bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Export a file's scene, as drawn, to a binary glTF (.glb); with --all, every file of an
    /// archive (a folder or a container) into a folder.
    Export {
        /// The file; with --all, the archive.
        file: PathBuf,
        /// Export the whole archive FILE into the folder OUT: a .glb for every file with a
        /// scene, a .png for every picture and every texture a file decodes itself, and
        /// OUT/report.json (exit 0: everything exported, 1: some files failed, listed).
        #[arg(long)]
        all: bool,
        /// With --all: print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Write the picture the game shows behind the scene (an FF7 field's background,
        /// composed from the .MIM beside it) as a PNG, rather than the scene. With --all,
        /// every field's goes out anyway, as NAME.background.png.
        #[arg(long)]
        background: bool,
        /// The archive the file belongs to: resolve its materials and textures there.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Set one of the game's variables, as for info (an FF7 field's scene is built with
        /// it); repeatable.
        #[arg(long = "set", value_name = "BANK:ADDRESS=VALUE", value_parser = relicview::formats::ff7::game_state::parse)]
        set: Vec<GameVariable>,
        /// Where to write the .glb (with --all, the folder to write into).
        #[arg(short, long)]
        out: PathBuf,
        /// The LOD exported (with --lods all: the one the glTF's default scene shows).
        #[arg(long, default_value_t = 0)]
        lod: usize,
        /// `shown`: only what the viewer shows (one LOD, one model); `all`: every LOD (and
        /// every model of a file of several) as a glTF scene of its own.
        #[arg(long, value_enum, default_value_t = ExportLods::Shown)]
        lods: ExportLods,
        /// For a file of several models (an FF7 field file), the one to export; else the one
        /// the viewer shows first. Its animations come along.
        #[arg(long)]
        model: Option<usize>,
        /// The vertex colours written: `game`, those the game's own lighting gave (an FF7
        /// field model with FIELD.BIN in the archive, with unlit materials), else as stored;
        /// `stored`, as the file stores them.
        #[arg(long, value_enum, default_value_t = ExportLighting::Game)]
        lighting: ExportLighting,
        /// How a skeleton (an FF7 model's bones) goes out: `skin`, a glTF skin (one mesh per
        /// model weighted to its bones, an armature in Blender, one action per animation);
        /// `nodes`, a node per bone with its parts' meshes on it.
        #[arg(long, default_value = "skin", value_parser = rig_word)]
        rig: gltf::Rig,
        /// Refuse files larger than this many bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Compare two versions of a file by structure (exit 0 the same, 1 they differ, 2 a file
    /// cannot be read).
    Diff {
        a: PathBuf,
        b: PathBuf,
        /// Print the comparison as one JSON object.
        #[arg(long)]
        json: bool,
        /// The archive both files belong to: resolve their libraries there.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Refuse files larger than this many bytes.
        #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Parse every file of an archive and report kinds, chunk statistics and failures.
    Census {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
        /// Files larger than this many bytes are listed as failures, not read.
        #[arg(long, default_value_t = DEFAULT_MAX_BYTES)]
        max_bytes: u64,
    },
    /// Serve the viewer and an archive folder over HTTP.
    Serve {
        /// The archive folder (served under /archive/). Default: the current folder.
        dir: Option<PathBuf>,
        /// 0 picks a free port; the URL is printed either way.
        #[arg(long, default_value_t = 8080)]
        port: u16,
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// Folder holding the page: a built site (index.html and assets/, which
        /// scripts/build.sh writes into site/), or a source tree (index.html, www/, pkg/).
        /// Default: site/ of the current folder, the current folder if it has index.html,
        /// else site/ of the source tree this binary was built from.
        #[arg(long)]
        site: Option<PathBuf>,
    },
    /// Write DIR/index.json, so that a static web host can serve DIR as an archive: every
    /// file, and what is inside each zip and disc image, read there by Range requests.
    Index { dir: PathBuf },
    /// Write a complete static site for ARCHIVE (a folder, a zip, a disc image or a cue
    /// sheet) into OUT: the viewer, index.json and the archive's files. OUT must be new,
    /// empty, or an earlier publish, which is replaced in one step.
    Publish {
        archive: PathBuf,
        out: PathBuf,
        /// Leave the archive's files where they are served from (an absolute URL, or a path
        /// from the host's root); only the index names them.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// The built page (index.html, assets.json, assets/: scripts/build.sh writes it into
        /// site/). Default: as for serve.
        #[arg(long)]
        site: Option<PathBuf>,
    },
    /// Write the demo archive (a small game tree of DIV-BIZ2 files) into OUT_DIR.
    Demo {
        out_dir: PathBuf,
        /// Also write OUT_DIR/LARGE.BGF, a generated terrain of about MB megabytes (for
        /// performance checks; 51 KB per 2,048-triangle patch).
        #[arg(long, value_name = "MB")]
        large: Option<f64>,
    },
}

/// The viewer's files: the built site of the current folder (site/), the current folder if
/// it holds a page, else the built site of the source tree this binary was built from.
fn default_site() -> PathBuf {
    let tree = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [PathBuf::from("site"), PathBuf::from(".")]
        .into_iter()
        .find(|d| d.join("index.html").is_file())
        .unwrap_or_else(|| tree.join("site"))
}

/// The largest file the CLI reads unless told otherwise: the pods' and FF7's files are far
/// smaller, and a device or a runaway file must not be read until memory runs out.
const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// Write a command's whole output to stdout. A reader that went away (`| head`) ends the
/// command quietly with success; any other write error (a full disk) is reported and fails.
fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relicview: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A command's output, then its own verdict: the output's failure wins.
fn finish(text: &str, code: ExitCode) -> ExitCode {
    match emit(text) {
        ExitCode::SUCCESS => code,
        failed => failed,
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Info { file, json, root, max_bytes, set } => run_info(&file, json, root.as_deref(), max_bytes, &set),
        Command::Inspect { file, json, root, fields, max_bytes } => run_inspect(&file, json, root.as_deref(), fields, max_bytes),
        Command::Export { file, all: true, out, json, lods, rig, max_bytes, .. } => run_export_all(&file, &out, json, lods == ExportLods::All, rig, max_bytes),
        Command::Export { file, root, out, background: true, max_bytes, set, .. } => run_export_background(&file, root.as_deref(), &out, max_bytes, &set),
        Command::Export { file, root, out, lod, lods, model, lighting, rig, max_bytes, set, .. } => {
            run_export(&file, root.as_deref(), &out, ExportAsked { lod, all_lods: lods == ExportLods::All, model, lighting, rig, state: set }, max_bytes)
        }
        Command::Census { dir, json, max_bytes } => run_census(&dir, json, max_bytes),
        Command::Diff { a, b, json, root, max_bytes } => run_diff(&a, &b, json, root.as_deref(), max_bytes),
        Command::Serve { dir, port, bind, site } => {
            let site = site.unwrap_or_else(default_site);
            let archive = dir.unwrap_or_else(|| PathBuf::from("."));
            match serve::start(serve::ServeConfig { site, archive: archive.clone(), bind, port, limits: Default::default() }) {
                Ok(server) => {
                    // The URL is the one line a script waits for; a closed stdout is no reason to stop serving.
                    let _ = emit(&format!("relicview: serving {} at http://{}/\n", archive.display(), server.addr));
                    server.wait();
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("relicview serve: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Publish { archive, out, base_url, site } => match publish::publish(&archive, &out, &site.unwrap_or_else(default_site), base_url.as_deref()) {
            Ok(p) => emit(&format!(
                "{}: {} files and {} containers ({} files inside), index.json {} bytes, {} bytes of the archive copied\n",
                out.display(),
                p.files,
                p.containers,
                p.entries,
                p.index_bytes,
                p.copied_bytes
            )),
            Err(e) => {
                eprintln!("relicview publish: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Index { dir } => match publish::write_index(&dir) {
            Ok(n) => emit(&format!("{}: {n} files\n", dir.join("index.json").display())),
            Err(e) => {
                eprintln!("relicview index: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Demo { out_dir, large } => match demo::write_demo(&out_dir).and_then(|mut files| {
            if let Some(mb) = large {
                if !(mb > 0.0 && mb <= 4096.0) {
                    return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("--large {mb}: expected megabytes between 0 and 4096")));
                }
                let patches = (mb * 1e6 / 51_000.0).round().max(1.0) as usize;
                let bytes = relicview::formats::pods::biz2::writer::write_file(&demo::large_model(patches), Default::default());
                std::fs::write(out_dir.join("LARGE.BGF"), bytes)?;
                files.push("LARGE.BGF".into());
            }
            Ok(files)
        }) {
            Ok(files) => emit(&files.iter().map(|f| format!("{}\n", out_dir.join(f).display())).collect::<String>()),
            Err(e) => {
                eprintln!("relicview demo: cannot write {}: {e}", out_dir.display());
                ExitCode::FAILURE
            }
        },
    }
}

/// The files of the archive at `root`: a folder (its containers opened as folders), or a
/// container file whose entries are the archive.
fn list(root: &Path) -> Result<Vec<ListedFile>, String> {
    listing(root).map(|l| l.files)
}

/// [`list`], with what the listing could not list and why (an unreadable folder, a name a
/// container lists twice).
fn listing(root: &Path) -> Result<serve::Listing, String> {
    if root.is_file() {
        let relicview::disk::ContainerListing {
            files,
            problems,
            notes,
        } = Disk::new(root).list("");
        if files.is_empty() {
            if let Some((_, why)) = problems.first() {
                return Err(why.clone());
            }
        }
        let real = root.to_path_buf();
        let files = files
            .into_iter()
            .map(|e| ListedFile {
                kind: relicview::census::kind_of(&e.path, &e.head, e.size),
                path: e.path,
                size: e.size,
                real: real.clone(),
                contained: true,
                failure: None,
                refs: Vec::new(),
            })
            .collect();
        // Notes on the archive itself name it by its file name.
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let notes = notes
            .into_iter()
            .map(|(path, note)| (if path.is_empty() { name.clone() } else { path }, note))
            .collect();
        return Ok(serve::Listing {
            root: String::new(),
            base: String::new(),
            files,
            skipped: problems,
            notes,
        });
    }
    serve::list_archive(root).map_err(|e| e.to_string())
}

/// A path given on the command line that goes on inside a container
/// (`GAME.zip/BTDAVE/MAPS/ARENA1.MAP`): the container file on disk and the path inside it.
fn through_container(file: &Path) -> Option<(PathBuf, String)> {
    let mut at = file.to_path_buf();
    let mut inner: Vec<String> = Vec::new();
    while !at.exists() {
        inner.insert(0, at.file_name()?.to_string_lossy().into_owned());
        at = at.parent()?.to_path_buf();
    }
    (at.is_file() && !inner.is_empty()).then(|| (at, inner.join("/")))
}

/// Open `file` through the one open sequence: inside the archive at `root` (its references
/// resolved there, nearest first) or on its own. `file` may go on inside a container.
fn open(
    file: &Path,
    root: Option<&Path>,
    max_bytes: u64,
    purpose: Purpose,
    state: &[GameVariable],
) -> Result<Opened, String> {
    let inside = if file.is_file() {
        None
    } else {
        through_container(file)
    };
    let (archive, path, source) = match root {
        Some(root) => in_archive(file, root, &inside, max_bytes)?,
        None => detached(file, &inside, max_bytes),
    };
    let bytes = opened_bytes(file, &inside, &path, &source, max_bytes)?;
    let mut archive = archive;
    archive.game_state = state.to_vec();
    let archive = RefCell::new(archive);
    Ok(pollster::block_on(archive::open_bytes(
        &archive, &source, &path, bytes, purpose,
    )))
}

/// Where `file` lies in the archive at `root` (`inside`: the container it goes on inside),
/// the archive listed, and its files' source.
fn in_archive(
    file: &Path,
    root: &Path,
    inside: &Option<(PathBuf, String)>,
    max_bytes: u64,
) -> Result<(Archive, String, DiskSource), String> {
    let files = list(root)?;
    let root_real = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    // The file's path inside the archive decides which library is nearest. A file
    // outside the archive keeps its own name (its kind depends on it) and its folder
    // comes along, so that what lies beside it is found first, as inside.
    let (on_disk, rest) = match inside {
        Some((container, rest)) => (
            container
                .canonicalize()
                .map_err(|e| format!("{}: {e}", container.display()))?,
            Some(rest.clone()),
        ),
        None => (
            file.canonicalize()
                .map_err(|e| format!("{}: {e}", file.display()))?,
            None,
        ),
    };
    let mut files: Vec<ListedFile> = files;
    let path = match (on_disk.strip_prefix(&root_real), rest) {
        // The root is the container itself: paths are inside it.
        (Ok(p), Some(rest)) if p.as_os_str().is_empty() => rest,
        (Ok(p), rest) => {
            let p = p.to_string_lossy().replace('\\', "/");
            rest.map_or(p.clone(), |r| format!("{p}/{r}"))
        }
        (Err(_), _) => {
            files.extend(
                beside(&on_disk)
                    .into_iter()
                    .map(|(path, _, real)| ListedFile {
                        path,
                        size: 0,
                        kind: "unknown",
                        real,
                        contained: false,
                        failure: None,
                        refs: Vec::new(),
                    }),
            );
            on_disk.to_string_lossy().into_owned()
        }
    };
    let source = DiskSource::new(&files, Disk::new(&root_real), max_bytes);
    let index = ArchiveIndex::listed(&files);
    Ok((Archive::new(index), path, source))
}

/// `file` on its own (`inside`: the container it goes on inside): where it lies, a detached
/// archive, and its source.
fn detached(
    file: &Path,
    inside: &Option<(PathBuf, String)>,
    max_bytes: u64,
) -> (Archive, String, DiskSource) {
    match inside {
        Some((container, rest)) => {
            let folder = container
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let name = container
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let source = DiskSource::through(Disk::new(&folder), max_bytes);
            (Archive::detached(), format!("{name}/{rest}"), source)
        }
        None => (
            Archive::detached(),
            file.display().to_string(),
            DiskSource::none(max_bytes),
        ),
    }
}

/// The bytes of `file`, found at `path` of `source` when it lies inside a container.
fn opened_bytes(
    file: &Path,
    inside: &Option<(PathBuf, String)>,
    path: &str,
    source: &DiskSource,
    max_bytes: u64,
) -> Result<Vec<u8>, String> {
    Ok(match inside {
        None => read_regular(file, max_bytes).map_err(|e| e.to_string())?,
        // The container's reader names the container and the entry: said once.
        Some((container, _)) => pollster::block_on(source.read(path)).map_err(|e| {
            let name = container
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(why) = e.strip_prefix(&format!("{path}: ")) {
                format!("{}: {why}", file.display())
            } else if let Some(why) = e.strip_prefix(&format!("{name}: ")) {
                format!("{}: {why}", container.display())
            } else {
                format!("{}: {e}", file.display())
            }
        })?,
    })
}

/// The regular files in the folder of `file` (an absolute path), named by their absolute
/// paths: the nearest neighbours of a file opened from outside `--root`. At most
/// [`BESIDE_MAX`] are listed (a file dropped in a huge temp folder lists that many names).
fn beside(file: &Path) -> Vec<(String, Option<Kind>, PathBuf)> {
    let Some(Ok(entries)) = file.parent().map(std::fs::read_dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .take(BESIDE_MAX)
        .map(|e| (e.path().to_string_lossy().into_owned(), None, e.path()))
        .collect()
}
const BESIDE_MAX: usize = 10_000;

fn run_info(
    file: &Path,
    json: bool,
    root: Option<&Path>,
    max_bytes: u64,
    state: &[GameVariable],
) -> ExitCode {
    use std::fmt::Write as _;
    // A summary needs no inspector view.
    let opened = match open(file, root, max_bytes, Purpose::Asset, state) {
        Ok(o) => o,
        Err(e) => return fail(json, &e, None),
    };
    let doc = opened.described();
    // A damaged file (cut short) is summarised as far as it goes, its damage the error.
    if let Some(e) = doc.error().filter(|_| !doc.damaged()) {
        return fail(json, &format!("{}: {e}", file.display()), Some(e.offset));
    }
    let mut out = String::new();
    if let (false, Some(e)) = (json, doc.error()) {
        let _ = writeln!(out, "{}: damaged: {e}", file.display());
    }
    if let (true, Some(e)) = (json, doc.error()) {
        // The damage's message names the file, as every error of this command does.
        let mut summary: serde_json::Value =
            serde_json::from_str(&doc.info_json()).unwrap_or_default();
        if let Some(error) = summary.get_mut("error") {
            error["message"] = format!("{}: {e}", file.display()).into();
        }
        let _ = writeln!(out, "{summary}");
    } else if json {
        let _ = writeln!(out, "{}", doc.info_json());
    } else {
        let _ = writeln!(out, "{}: {}", file.display(), doc.kind().title());
        for row in doc.info_rows() {
            let _ = writeln!(out, "  {}: {}", row.label, row.value);
        }
        for u in &opened.unreadable {
            let _ = writeln!(out, "  unreadable: {u}");
        }
        for n in &opened.notes {
            let _ = writeln!(out, "  untextured: {n}");
        }
    }
    finish(
        &out,
        if doc.diagnostics().is_empty() && doc.error().is_none() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        },
    )
}

fn run_inspect(
    file: &Path,
    json: bool,
    root: Option<&Path>,
    with_fields: bool,
    max_bytes: u64,
) -> ExitCode {
    let opened = match open(file, root, max_bytes, Purpose::Show, &[]) {
        Ok(o) => o,
        Err(e) => return fail(json, &e, None),
    };
    let doc = opened.described();
    let Some(view) = doc.inspector() else {
        return fail(
            json,
            &format!("{}: no inspector view", file.display()),
            None,
        );
    };
    let listing = view.listing();
    let code = if doc.error().is_none() && doc.diagnostics().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if json {
        return finish(
            &format!(
                "{}\n",
                serde_json::to_string(&listing).expect("the listing serialises")
            ),
            code,
        );
    }
    let title = format!("{}: {}", file.display(), doc.kind().title());
    finish(&listing_text(&title, &listing, with_fields), code)
}

/// `inspect`'s text: one line a record (and a line a field, `with_fields`), cut to the
/// terminal's width, then the coverage, the warnings and the error.
fn listing_text(
    title: &str,
    listing: &relicview::formats::inspect::Listing<'_>,
    with_fields: bool,
) -> String {
    use std::fmt::Write as _;
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&w| w >= 40)
        .unwrap_or(100);
    let cut = |line: String| {
        if line.chars().count() > width {
            format!("{}…", line.chars().take(width - 1).collect::<String>())
        } else {
            line
        }
    };
    let mut out = String::new();
    let shown = listing.views.first().map_or("file", |v| v.label.as_str());
    out.push_str(&wrapped(
        &format!("{title} · {} bytes ({shown})", listing.bytes),
        width,
    ));
    for r in &listing.records {
        let indent = "  ".repeat(r.depth as usize);
        let summary = if r.summary.is_empty() {
            String::new()
        } else {
            format!(" — {}", r.summary)
        };
        let _ = writeln!(
            out,
            "{}",
            cut(format!(
                "{indent}{:#08x} {:>7}  {}{summary}",
                r.offset, r.length, r.label
            ))
        );
        for f in r.fields.iter().filter(|_| with_fields) {
            let _ = writeln!(
                out,
                "{}",
                cut(format!(
                    "{indent}    {:#08x} {:>3}  {} = {}",
                    f.offset, f.length, f.what, f.value
                ))
            );
        }
    }
    if listing.records_total > listing.records.len() {
        let _ = writeln!(
            out,
            "… {} more records not listed",
            listing.records_total - listing.records.len()
        );
    }
    let c = &listing.coverage;
    let _ = writeln!(
        out,
        "coverage: {} framing · {} decoded · {} opaque · {} unclaimed bytes",
        c.framing, c.decoded, c.opaque, c.unclaimed
    );
    for d in listing.diagnostics {
        out.push_str(&wrapped(
            &format!("warning @{}: {}: {}", d.offset, d.path, d.message),
            width,
        ));
    }
    if let Some(e) = listing.error {
        out.push_str(&wrapped(&format!("error: {e}"), width));
    }
    out
}

/// `text` in lines of at most `width` characters, broken between words (a word longer than
/// a line is cut), the lines after the first indented.
fn wrapped(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = "    ".to_string();
        } else if len > 0 && !line.trim().is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            out.push_str(&head);
            out.push('\n');
            line = format!("    {}", line.chars().skip(width).collect::<String>());
        }
    }
    out.push_str(&line);
    out.push('\n');
    out
}

fn run_diff(a: &Path, b: &Path, json: bool, root: Option<&Path>, max_bytes: u64) -> ExitCode {
    // The records are the inspector's: both files are opened to be shown.
    let (oa, ob) = match (
        open(a, root, max_bytes, Purpose::Show, &[]),
        open(b, root, max_bytes, Purpose::Show, &[]),
    ) {
        (Ok(oa), Ok(ob)) => (oa, ob),
        (Err(e), _) | (_, Err(e)) => {
            fail(json, &e, None);
            return ExitCode::from(2);
        }
    };
    let c = relicview::diff::compare(&oa.side(), &ob.side());
    let code = if c.same {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    if json {
        return finish(
            &format!("{}\n", serde_json::to_string(&c).unwrap_or_default()),
            code,
        );
    }
    finish(&comparison_text(&c, a, b), code)
}

/// `diff`'s text: the two files, their records' changes, geometry, placements and notes.
fn comparison_text(c: &relicview::diff::Comparison, a: &Path, b: &Path) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A {} ({})\nB {} ({})",
        a.display(),
        c.kind_a,
        b.display(),
        c.kind_b
    );
    let r = &c.records;
    let _ = writeln!(
        out,
        "{}: {} records the same, {} changed, {} added, {} removed",
        if c.same { "the same" } else { "they differ" },
        r.same,
        r.changed,
        r.added,
        r.removed
    );
    record_changes_text(c, &mut out);
    if let Some(g) = &c.geometry {
        let _ = writeln!(
            out,
            "geometry: {} triangles in A, {} in B; {} vertices moved (at most {}), {} without a partner",
            g.triangles_a, g.triangles_b, g.vertices_moved, g.max_displacement, g.vertices_unmatched
        );
    }
    if let Some(p) = &c.placements {
        placements_text(p, &mut out);
    }
    for n in &c.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// `diff`'s records: each changed (with its fields), added and removed, as far as listed.
fn record_changes_text(c: &relicview::diff::Comparison, out: &mut String) {
    use std::fmt::Write as _;
    let r = &c.records;
    for x in &c.changed {
        let at = if x.path_a == x.path_b {
            x.path_a.clone()
        } else {
            format!("{} → {}", x.path_a, x.path_b)
        };
        let _ = writeln!(
            out,
            "  changed  {at}  (byte {} of A, {} of B)",
            x.offset_a, x.offset_b
        );
        for f in &x.fields {
            let _ = writeln!(out, "             {}: {} → {}", f.name, f.a, f.b);
        }
    }
    for x in &c.added {
        let _ = writeln!(out, "  added    {}  (byte {} of B)", x.path, x.offset_b);
    }
    for x in &c.removed {
        let _ = writeln!(out, "  removed  {}  (byte {} of A)", x.path, x.offset_a);
    }
    let listed = c.changed.len() + c.added.len() + c.removed.len();
    if listed < r.changed + r.added + r.removed {
        let _ = writeln!(
            out,
            "  … and {} more",
            r.changed + r.added + r.removed - listed
        );
    }
}

/// `diff`'s placements: counts, then each moved, added and removed with where it stood.
fn placements_text(p: &relicview::diff::Placements, out: &mut String) {
    use std::fmt::Write as _;
    let n = &p.counts;
    let _ = writeln!(
        out,
        "placements: {} the same, {} moved, {} added, {} removed",
        n.same, n.moved, n.added, n.removed
    );
    let at = |x: Option<[f32; 3]>| x.map_or(String::new(), |[a, b, c]| format!("({a}, {b}, {c})"));
    for (what, list) in [
        ("moved", &p.moved),
        ("added", &p.added),
        ("removed", &p.removed),
    ] {
        for x in list {
            let model = x.model.as_deref().unwrap_or("?");
            let _ = writeln!(
                out,
                "  {what:<8} {} [{}] {model} {}{}{}",
                x.path,
                x.section,
                at(x.position_a),
                if x.position_a.is_some() && x.position_b.is_some() {
                    " → "
                } else {
                    ""
                },
                at(x.position_b)
            );
        }
    }
}

/// What `export` of one file was asked for.
struct ExportAsked {
    lod: usize,
    all_lods: bool,
    model: Option<usize>,
    lighting: ExportLighting,
    rig: gltf::Rig,
    state: Vec<GameVariable>,
}

fn run_export(
    file: &Path,
    root: Option<&Path>,
    out: &Path,
    asked: ExportAsked,
    max_bytes: u64,
) -> ExitCode {
    let ExportAsked {
        lod,
        all_lods,
        model,
        lighting,
        rig,
        state,
    } = asked;
    let mut opened = match open(file, root, max_bytes, Purpose::Asset, &state) {
        Ok(o) => o,
        Err(e) => return fail(false, &e, None),
    };
    if let Some(e) = opened.described().error() {
        return fail(false, &format!("{}: {e}", file.display()), Some(e.offset));
    }
    let Some(mut scene) = opened.scene.take() else {
        return fail(
            false,
            &format!(
                "{}: a {} has no 3D scene to export",
                file.display(),
                opened.document.kind().title()
            ),
            None,
        );
    };
    // An export with nothing in it says why, from the file's own warnings (a world opened
    // without --root finds none of its models).
    let warnings = warnings_of(&opened);
    // The file's bytes and its model are no longer needed once the scene is built.
    drop(opened.document);
    let option = match export_option(&scene, model, all_lods) {
        Ok(o) => o,
        Err(why) => return fail(false, &format!("{}: {why}", file.display()), None),
    };
    let hidden_layers = option.map_or(Vec::new(), |k| scene.choose(k));
    let colours = if lighting == ExportLighting::Game {
        relicview::scene::ColourSet::Lit
    } else {
        relicview::scene::ColourSet::Stored
    };
    let options = gltf::ExportOptions {
        lod,
        hidden_layers,
        every_choice: all_lods && model.is_none(),
        colours,
        all_lods,
        rig,
    };
    match write_glb(&scene, &options, out) {
        Ok(n) => {
            let triangles = scene.triangle_count_in(lod, &options.hidden_layers);
            if triangles == 0 {
                for w in &warnings {
                    eprintln!("relicview: {}: nothing drawn; {w}", file.display());
                }
            }
            emit(&format!(
                "{}: {n} bytes, {triangles} triangles at LOD {lod}\n",
                out.display()
            ))
        }
        Err(e) => fail(false, &format!("{}: {e}", out.display()), None),
    }
}

/// `scene` written to the file `out` as a .glb, synced to the disk. → its bytes.
fn write_glb(
    scene: &relicview::scene::Scene,
    options: &gltf::ExportOptions,
    out: &Path,
) -> std::io::Result<usize> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
    let n = gltf::write_glb(scene, options.clone(), &mut w)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(n)
}

/// The warnings among an opened file's info rows, as "label: value".
fn warnings_of(opened: &Opened) -> Vec<String> {
    opened
        .described()
        .info_rows()
        .into_iter()
        .filter(|r| r.severity == relicview::formats::Severity::Warning)
        .map(|r| format!("{}: {}", r.label, r.value))
        .collect()
}

/// Which of a scene's choices an export shows: for a file of several models, the one asked
/// for (its layer `model N`), else the one the viewer shows first (with --lods all and no
/// --model: none, for every one is written, each a glTF scene). Err: why not.
fn export_option(
    scene: &relicview::scene::Scene,
    model: Option<usize>,
    all_lods: bool,
) -> Result<Option<usize>, String> {
    match (model, &scene.choice) {
        (None, Some(c)) if !all_lods => Ok(Some(c.default)),
        (None, _) => Ok(None),
        (Some(n), Some(c)) => scene
            .layers
            .iter()
            .position(|l| *l == format!("model {n}"))
            .and_then(|layer| {
                c.options
                    .iter()
                    .position(|o| o.layers.contains(&(layer as u32)))
            })
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "there is no model {n} (the file has {})",
                    c.options.iter().filter(|o| o.clip.is_none()).count()
                )
            }),
        (Some(_), None) => Err("--model is for files of several models".to_string()),
    }
}

/// `export --background`: the picture a file's game camera shows behind its scene, as a PNG.
/// The archive is the file's folder unless `root` says otherwise (the .MIM lies beside the
/// .DAT).
fn run_export_background(
    file: &Path,
    root: Option<&Path>,
    out: &Path,
    max_bytes: u64,
    state: &[GameVariable],
) -> ExitCode {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let opened = match open(
        file,
        Some(root.unwrap_or(folder)),
        max_bytes,
        Purpose::Asset,
        state,
    ) {
        Ok(o) => o,
        Err(e) => return fail(false, &e, None),
    };
    if let Some(e) = opened.described().error() {
        return fail(false, &format!("{}: {e}", file.display()), Some(e.offset));
    }
    let cameras = opened
        .scene
        .as_ref()
        .map_or(&[][..], |s| s.ff7.cameras.as_slice());
    let Some(camera) = cameras.first() else {
        return fail(
            false,
            &format!(
                "{}: a {} has no game camera, so no background",
                file.display(),
                opened.document.kind().title()
            ),
            None,
        );
    };
    let Some(texture) = camera
        .backdrop
        .and_then(|t| opened.scene.as_ref()?.textures.get(t as usize))
    else {
        return fail(
            false,
            &format!(
                "{}: no background: {}",
                file.display(),
                camera.notes.join("; ")
            ),
            None,
        );
    };
    let written = relicview::texture::encode_png(&texture.texels)
        .map_err(|e| e.to_string())
        .and_then(|png| {
            std::fs::write(out, &png)
                .map(|_| png.len())
                .map_err(|e| e.to_string())
        });
    match written {
        Ok(n) => emit(&format!(
            "{}: {n} bytes, {} × {} pixels ({})\n",
            out.display(),
            texture.texels.width,
            texture.texels.height,
            texture.name.as_deref().unwrap_or("background")
        )),
        Err(e) => fail(false, &format!("{}: {e}", out.display()), None),
    }
}

/// `export --all`: the archive at `src` into the folder `out`, on every core, with a
/// progress bar on a terminal; the report's summary (or the report, `--json`) on stdout.
fn run_export_all(
    src: &Path,
    out: &Path,
    json: bool,
    all_scenes: bool,
    rig: gltf::Rig,
    max_bytes: u64,
) -> ExitCode {
    let listed = match listing(src) {
        Ok(l) => l,
        Err(e) => return fail(json, &format!("{}: {e}", src.display()), None),
    };
    let files = &listed.files;
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}")
            .expect("valid template"),
    );
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let progress = |done: usize, path: &str| {
        bar.set_position(done as u64);
        bar.set_message(path.to_string());
    };
    let report = match relicview::bundle::folder::export_to_folder(
        src,
        files,
        &listed.skipped,
        out,
        all_scenes,
        rig,
        max_bytes,
        threads,
        &progress,
    ) {
        Ok(r) => r,
        Err(e) => {
            bar.finish_and_clear();
            return fail(json, &format!("{}: {e}", out.display()), None);
        }
    };
    bar.finish_and_clear();
    let code = if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    };
    finish(&export_report_text(&report, out, json), code)
}

/// What `export --all` says it did: its report as JSON, or in words (what was written,
/// what failed and was renamed, where the report is).
fn export_report_text(
    report: &relicview::bundle::report::Report,
    out: &Path,
    json: bool,
) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    if json {
        let _ = writeln!(
            text,
            "{}",
            serde_json::to_string(report).expect("the report serialises")
        );
    } else {
        let _ = writeln!(
            text,
            "{}: {} files written ({} bytes) from {} files; {} skipped, {} failed, {} renamed",
            out.display(),
            report.written.len(),
            report.bytes,
            report.files,
            report.skipped.len(),
            report.failed.len(),
            report.renamed.len()
        );
        for f in &report.failed {
            let _ = writeln!(text, "  FAILED {}: {}", f.path, f.error);
        }
        for r in &report.renamed {
            let _ = writeln!(text, "  renamed {} → {} ({})", r.from, r.to, r.why);
        }
        let _ = writeln!(
            text,
            "  report: {}",
            out.join(relicview::bundle::report::REPORT_NAME).display()
        );
    }
    text
}

/// A census begun from an archive's listing: what the walk could not read is a failure of
/// that entry, not of the census; the containers' notes.
fn census_of_listing(listing: &serve::Listing) -> Census {
    let mut census = Census::default();
    for (path, why) in &listing.skipped {
        census.failed.push(census::FailedFile {
            path: path.clone(),
            offset: 0,
            message: format!("cannot read: {why}"),
        });
    }
    census.notes = listing
        .notes
        .iter()
        .map(|(container, note)| census::ContainerNote {
            container: container.clone(),
            note: note.clone(),
        })
        .collect();
    census
}

fn run_census(dir: &Path, json: bool, max_bytes: u64) -> ExitCode {
    // A folder, or a container given as the archive.
    let listing = match listing(dir) {
        Ok(l) => l,
        Err(e) => return fail(json, &e, None),
    };
    let bar = indicatif::ProgressBar::new(listing.files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}")
            .expect("valid template"),
    );
    let mut census = census_of_listing(&listing);
    let source = DiskSource::new(&listing.files, Disk::new(dir), max_bytes);
    let index = ArchiveIndex::listed(&listing.files);
    // Every file read once, in the order that costs least (a solid 7z's blocks decoded once
    // each); the worlds, which read other files, assembled after.
    let paths: Vec<&str> = listing.files.iter().map(|f| f.path.as_str()).collect();
    let mut worlds = Vec::new();
    source.read_each(&paths, &mut |path, read| {
        bar.set_message(path.to_string());
        match read {
            Ok(bytes) => {
                let kind = Kind::sniff(path, &bytes[..bytes.len().min(16)], bytes.len() as u64);
                if kind.capabilities().assembles {
                    worlds.push((path.to_string(), bytes.clone()));
                }
                census.add(path, bytes);
            }
            Err(e) => census.failed.push(census::FailedFile {
                path: path.to_string(),
                offset: 0,
                message: format!("cannot read: {e}"),
            }),
        }
        bar.inc(1);
    });
    for (path, bytes) in worlds {
        // Assembled in an archive of its own, so that the assets one world reads are let go
        // before the next.
        let archive = RefCell::new(Archive::new(index.clone()));
        let opened = pollster::block_on(archive::open_bytes(
            &archive,
            &source,
            &path,
            bytes,
            relicview::formats::registry::Purpose::Asset,
        ));
        census.add_world(&path, &opened.described().stats());
    }
    census.failed.sort_by(|a, b| a.path.cmp(&b.path));
    bar.finish_and_clear();
    if json {
        return emit(&format!(
            "{}\n",
            serde_json::to_string(&census).expect("census serialises")
        ));
    }
    emit(&census_text(&census))
}

/// What `census` prints for a person.
fn census_text(census: &Census) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "{} files, {} bytes", census.files, census.bytes);
    for (k, n) in &census.kinds {
        let _ = writeln!(out, "  {k:16} {n}");
    }
    let _ = writeln!(
        out,
        "records: {} files read, {} close exactly, {} failed",
        census.parsed_files,
        census.closes_exactly,
        census.failed.len()
    );
    let w = |k: &str| census.length_widths.get(k).copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "  length widths: 1-byte {} · 2-byte {} · 4-byte {}",
        w("1"),
        w("2"),
        w("4")
    );
    let _ = writeln!(
        out,
        "  objects: {} meshes, {} light-point only; {} triangles (LOD 0)",
        census.mesh_objects, census.point_only_objects, census.triangles
    );
    let mut tags: Vec<_> = census.tags.iter().collect();
    tags.sort_by(|a, b| b.1.cmp(a.1));
    for (t, n) in tags {
        let _ = writeln!(out, "  {t:28} {n}");
    }
    for (t, files) in &census.unknown_tags {
        let _ = writeln!(out, "  unknown tag {t} in {}", files.join(", "));
    }
    if census.worlds > 0 {
        let _ = writeln!(
            out,
            "worlds: {} · {} placements · {} ambiguous names",
            census.worlds, census.placements, census.ambiguous_assets
        );
        for (asset, maps) in &census.missing_assets {
            let _ = writeln!(out, "  missing {asset} (in {})", maps.join(", "));
        }
    }
    words_text(&mut out, census);
    for f in &census.failed {
        let _ = writeln!(out, "  FAILED {}: {}", f.path, f.message);
    }
    for n in &census.notes {
        let _ = writeln!(out, "  note: {}", n.note);
    }
    out
}

/// `census`'s damage zones and behaviour words, each with the patches and files using it.
fn words_text(out: &mut String, census: &Census) {
    use std::fmt::Write as _;
    for (title, words) in [
        ("damage zones", &census.zones),
        ("behaviour words", &census.behaviours),
    ] {
        if !words.is_empty() {
            let _ = writeln!(out, "{title}: {}", words.len());
        }
        for (word, used) in words {
            let more = if used.files > used.in_files.len() {
                format!(" and {} more", used.files - used.in_files.len())
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {word:20} {} patches in {} files: {}{more}",
                used.patches,
                used.files,
                used.in_files.join(", ")
            );
        }
    }
}

fn fail(json: bool, message: &str, offset: Option<usize>) -> ExitCode {
    if json {
        let _ = emit(&format!(
            "{}\n",
            serde_json::json!({"error": {"message": message, "offset": offset}})
        ));
    } else {
        eprintln!("relicview: {message}");
    }
    ExitCode::FAILURE
}
