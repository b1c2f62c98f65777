//! The native command line, on the same core as the browser viewer.

use clap::{Parser, Subcommand};
use relicview::archive::{self, Archive, ArchiveIndex, FileSource, Opened};
use relicview::census::{self, Census};
use relicview::formats::registry::Kind;
use relicview::{demo, gltf, serve};
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "relicview", version, about = "Look inside old 3D game archives")]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    },
    /// Export a file's scene, as drawn, to a binary glTF (.glb).
    Export {
        file: PathBuf,
        /// The archive the file belongs to: resolve its materials and textures there.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Where to write the .glb.
        #[arg(short, long)]
        out: PathBuf,
        /// The LOD the glTF's default scene shows (every LOD is a scene of its own).
        #[arg(long, default_value_t = 0)]
        lod: usize,
    },
    /// Parse every file of an archive and report kinds, chunk statistics and failures.
    Census {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
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
        /// Folder holding index.html, www/ and pkg/. Default: the current folder if it has
        /// index.html, else the source tree this binary was built from.
        #[arg(long)]
        site: Option<PathBuf>,
    },
    /// Write DIR/index.json, so that a static web host can serve DIR as an archive.
    Index { dir: PathBuf },
    /// Write the demo archive (a small game tree of DIV-BIZ2 files) into OUT_DIR.
    Demo { out_dir: PathBuf },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Info { file, json, root } => run_info(&file, json, root.as_deref()),
        Command::Export { file, root, out, lod } => run_export(&file, root.as_deref(), &out, lod),
        Command::Census { dir, json } => run_census(&dir, json),
        Command::Serve { dir, port, bind, site } => {
            let site = site.unwrap_or_else(|| {
                if PathBuf::from("index.html").is_file() {
                    PathBuf::from(".")
                } else {
                    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                }
            });
            let archive = dir.unwrap_or_else(|| PathBuf::from("."));
            match serve::start(serve::ServeConfig { site, archive: archive.clone(), bind, port }) {
                Ok(server) => {
                    println!("relicview: serving {} at http://{}/", archive.display(), server.addr);
                    let _ = std::io::stdout().flush();
                    server.wait();
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("relicview serve: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Index { dir } => match serve::write_index(&dir) {
            Ok(n) => {
                println!("{}: {n} files", dir.join("index.json").display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("relicview index: {}: {e}", dir.display());
                ExitCode::FAILURE
            }
        },
        Command::Demo { out_dir } => match demo::write_demo(&out_dir) {
            Ok(files) => {
                for f in files {
                    println!("{}", out_dir.join(f).display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("relicview demo: cannot write {}: {e}", out_dir.display());
                ExitCode::FAILURE
            }
        },
    }
}

/// Archive paths on disk: under the root, or the file itself for a file opened alone.
struct DiskSource {
    root: PathBuf,
}

impl FileSource for DiskSource {
    async fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(self.root.join(path)).map_err(|e| e.to_string())
    }
    fn now_ms(&self) -> f64 {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0
    }
}

/// Open `file` through the one open sequence: inside the archive at `root` (its references
/// resolved there, nearest first) or on its own.
fn open(file: &Path, root: Option<&Path>) -> Result<Opened, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let (archive, path, source) = match root {
        Some(root) => {
            let listing = serve::list_archive(root).map_err(|e| format!("{}: {e}", root.display()))?;
            let index = ArchiveIndex::with_kinds(listing.files.into_iter().map(|f| (f.path, Kind::parse(f.kind))));
            // The file's path inside the archive decides which library is nearest.
            let path = match (file.canonicalize(), root.canonicalize()) {
                (Ok(f), Ok(r)) => f.strip_prefix(&r).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default(),
                _ => String::new(),
            };
            (Archive::new(index), path, DiskSource { root: root.to_path_buf() })
        }
        None => (Archive::detached(), file.display().to_string(), DiskSource { root: PathBuf::new() }),
    };
    let archive = RefCell::new(archive);
    Ok(pollster::block_on(archive::open_bytes(&archive, &source, &path, bytes)))
}

fn run_info(file: &Path, json: bool, root: Option<&Path>) -> ExitCode {
    let opened = match open(file, root) {
        Ok(o) => o,
        Err(e) => return fail(json, &e, None),
    };
    let doc = &opened.document;
    if let Some(e) = doc.error() {
        return fail(json, &format!("{}: {e}", file.display()), Some(e.offset));
    }
    if json {
        println!("{}", doc.info_json());
    } else {
        println!("{}: {}", file.display(), doc.kind().title());
        for row in doc.info_rows() {
            println!("  {}: {}", row.label, row.value);
        }
        for u in &opened.unreadable {
            println!("  unreadable: {u}");
        }
    }
    if doc.diagnostics().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_export(file: &Path, root: Option<&Path>, out: &Path, lod: usize) -> ExitCode {
    let opened = match open(file, root) {
        Ok(o) => o,
        Err(e) => return fail(false, &e, None),
    };
    if let Some(e) = opened.document.error() {
        return fail(false, &format!("{}: {e}", file.display()), Some(e.offset));
    }
    let Some(scene) = &opened.scene else {
        return fail(false, &format!("{}: a {} has no 3D scene to export", file.display(), opened.document.kind().title()), None);
    };
    match gltf::export_glb(scene, gltf::ExportOptions { lod }).and_then(|glb| std::fs::write(out, &glb).map(|_| glb.len()).map_err(|e| format!("{}: {e}", out.display()))) {
        Ok(n) => {
            println!("{}: {n} bytes, {} triangles at LOD {lod}", out.display(), scene.triangle_count(lod));
            ExitCode::SUCCESS
        }
        Err(e) => fail(false, &e, None),
    }
}

fn run_census(dir: &Path, json: bool) -> ExitCode {
    let listing = match serve::list_archive(dir) {
        Ok(l) => l,
        Err(e) => return fail(json, &format!("{}: {e}", dir.display()), None),
    };
    let bar = indicatif::ProgressBar::new(listing.files.len() as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {msg}").expect("valid template"));
    let mut census = Census::default();
    for f in &listing.files {
        bar.set_message(f.path.clone());
        match std::fs::read(dir.join(&f.path)) {
            Ok(bytes) => census.add(&f.path, bytes),
            Err(e) => census.failed.push(census::FailedFile { path: f.path.clone(), offset: 0, message: format!("cannot read: {e}") }),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if json {
        println!("{}", serde_json::to_string(&census).expect("census serialises"));
    } else {
        println!("{} files, {} bytes", census.files, census.bytes);
        for (k, n) in &census.kinds {
            println!("  {k:16} {n}");
        }
        println!("records: {} files read, {} close exactly, {} failed", census.parsed_files, census.closes_exactly, census.failed.len());
        println!("  length widths: 1-byte {} · 2-byte {} · 4-byte {}", census.length_widths.get("1").unwrap_or(&0), census.length_widths.get("2").unwrap_or(&0), census.length_widths.get("4").unwrap_or(&0));
        println!("  objects: {} meshes, {} light-point only; {} triangles (LOD 0)", census.mesh_objects, census.point_only_objects, census.triangles);
        let mut tags: Vec<_> = census.tags.iter().collect();
        tags.sort_by(|a, b| b.1.cmp(a.1));
        for (t, n) in tags {
            println!("  {t:28} {n}");
        }
        for (t, files) in &census.unknown_tags {
            println!("  unknown tag {t} in {}", files.join(", "));
        }
        for f in &census.failed {
            println!("  FAILED {}: {}", f.path, f.message);
        }
    }
    ExitCode::SUCCESS
}

fn fail(json: bool, message: &str, offset: Option<usize>) -> ExitCode {
    if json {
        println!("{}", serde_json::json!({"error": {"message": message, "offset": offset}}));
    } else {
        eprintln!("relicview: {message}");
    }
    ExitCode::FAILURE
}
