//! The native command line, on the same core as the browser viewer.

use clap::{Parser, Subcommand};
use relicview::{demo, info, serve};
use std::io::Write;
use std::path::PathBuf;
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
    /// Write the demo archive (a small game tree of DIV-BIZ2 files) into OUT_DIR.
    Demo { out_dir: PathBuf },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Info { file, json } => run_info(&file, json),
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

fn run_info(file: &PathBuf, json: bool) -> ExitCode {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return fail(json, &format!("{}: {e}", file.display()), None),
    };
    match info::biz2_info(&bytes) {
        Ok(info) => {
            if json {
                println!("{}", serde_json::to_string(&info).expect("info serialises"));
            } else {
                println!("{}: DIV-BIZ2 {:?}, {} bytes, {} chunks, closes exactly: {}", file.display(), info.kind, info.bytes, info.chunks, info.closes_exactly);
                println!("  {} objects, {} vertices, {} triangles (LOD 0)", info.objects.len(), info.vertices, info.triangles);
                for d in &info.diagnostics {
                    println!("  warning at byte {} ({}): {}", d.offset, d.path, d.message);
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

fn fail(json: bool, message: &str, offset: Option<usize>) -> ExitCode {
    if json {
        println!("{}", serde_json::json!({"error": {"message": message, "offset": offset}}));
    } else {
        eprintln!("relicview: {message}");
    }
    ExitCode::FAILURE
}
