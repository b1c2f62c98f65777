//! The native command line, on the same core as the browser viewer.

use clap::{Parser, Subcommand};
use relicview::archive::{ArchiveIndex, AssetSet};
use relicview::census::{self, Census};
use relicview::formats::biz2::Biz2File;
use relicview::{demo, info, serve};
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

/// The archive's listing, with the libraries and texture maps a model at `model_path`
/// needs read from disk, round by round, as the viewer reads them.
fn archive_assets(root: &Path, model_path: &str, references: &[String]) -> std::io::Result<AssetSet> {
    let listing = serve::list_archive(root)?;
    let mut assets = AssetSet::new(ArchiveIndex::new(listing.files.into_iter().map(|f| f.path)));
    loop {
        let needs = assets.needs(model_path, references);
        if needs.is_empty() {
            return Ok(assets);
        }
        for path in needs {
            match std::fs::read(root.join(&path)) {
                // What does not parse or decode is kept with its reason for the report.
                Ok(bytes) => drop(assets.provide(&path, &bytes)),
                Err(e) => assets.unreadable(&path, &e.to_string()),
            }
        }
    }
}

fn run_info(file: &Path, json: bool, root: Option<&Path>) -> ExitCode {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return fail(json, &format!("{}: {e}", file.display()), None),
    };
    match Biz2File::parse(&bytes).map(|(tree, file)| (info::summarize(&tree, &file), file)) {
        Ok((mut info, model)) => {
            if let Some(root) = root {
                // The model's path inside the archive decides which library is nearest.
                let model_path = match (file.canonicalize(), root.canonicalize()) {
                    (Ok(f), Ok(r)) => f.strip_prefix(&r).map(|p| p.to_string_lossy().replace('\\', "/")).unwrap_or_default(),
                    _ => String::new(),
                };
                match archive_assets(root, &model_path, &info.materials) {
                    Ok(assets) => {
                        info::resolve_materials(&mut info, &assets, &model_path);
                        info.texture_status = Some(assets.scene(&model_path, model).1);
                    }
                    Err(e) => return fail(json, &format!("{}: {e}", root.display()), None),
                }
            }
            if json {
                println!("{}", serde_json::to_string(&info).expect("info serialises"));
            } else {
                println!("{}: DIV-BIZ2 {:?}, {} bytes, {} chunks, closes exactly: {}", file.display(), info.kind, info.bytes, info.chunks, info.closes_exactly);
                println!("  {} objects, {} vertices, {} triangles (LOD 0)", info.objects.len(), info.vertices, info.triangles);
                for d in &info.diagnostics {
                    println!("  warning at byte {} ({}): {}", d.offset, d.path, d.message);
                }
                for m in info.missing_materials.iter().flatten() {
                    println!("  material not found: {m}");
                }
                for t in info.texture_status.iter().flatten() {
                    match &t.reason {
                        None => println!("  texture {} from {}", t.texture, t.file.as_deref().unwrap_or("?")),
                        Some(why) => println!("  texture {} drawn as a checker: {why}", t.texture),
                    }
                }
            }
            if info.diagnostics.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => fail(json, &format!("{}: {e}", file.display()), Some(e.offset)),
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
            Ok(bytes) => census.add(&f.path, &bytes),
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
        println!("DIV-BIZ2: {} files, {} close exactly, {} failed", census.biz2_files, census.closes_exactly, census.failed.len());
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
