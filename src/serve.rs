//! `relicview serve`: the viewer (index.html, www/, pkg/) and one archive folder over HTTP.
//!
//! The archive is served under `/archive/` and listed at `/archive.json`. Nothing outside
//! the site and archive roots is ever served: `..`, encoded dots, absolute paths and
//! symlinks that lead out all get 404.

use percent_encoding::percent_decode_str;
use serde::Serialize;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tiny_http::{Header, Method, Request, Response, Server};

pub struct ServeConfig {
    /// Folder holding index.html, www/ and pkg/.
    pub site: PathBuf,
    /// The archive folder served under /archive/.
    pub archive: PathBuf,
    pub bind: String,
    pub port: u16,
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct ListedFile {
    /// Relative path with `/` separators, as on the disc.
    pub path: String,
    pub size: u64,
}

#[derive(Debug, Serialize)]
pub struct Listing {
    pub root: String,
    pub files: Vec<ListedFile>,
}

/// A running server; dropping it does not stop the worker threads, `stop` does.
pub struct RunningServer {
    server: Arc<Server>,
    pub addr: std::net::SocketAddr,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl RunningServer {
    pub fn stop(self) {
        // Each unblock releases one worker from recv().
        for _ in &self.workers {
            self.server.unblock();
        }
        for w in self.workers {
            let _ = w.join();
        }
    }
    pub fn wait(self) {
        for w in self.workers {
            let _ = w.join();
        }
    }
}

/// Bind and start serving on worker threads.
pub fn start(config: ServeConfig) -> io::Result<RunningServer> {
    let site = config.site.canonicalize()?;
    let archive = config.archive.canonicalize()?;
    let server = Server::http((config.bind.as_str(), config.port)).map_err(|e| io::Error::other(e.to_string()))?;
    let addr = server.server_addr().to_ip().ok_or_else(|| io::Error::other("server has no IP address"))?;
    let server = Arc::new(server);
    let roots = Arc::new((site, archive));
    let workers = (0..4)
        .map(|_| {
            let server = Arc::clone(&server);
            let roots = Arc::clone(&roots);
            std::thread::spawn(move || {
                while let Ok(request) = server.recv() {
                    handle(request, &roots.0, &roots.1);
                }
            })
        })
        .collect();
    Ok(RunningServer { server, addr, workers })
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("static header is valid")
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).map(|e| e.to_ascii_lowercase()).as_deref() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        Some("css") => "text/css; charset=utf-8",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn handle(request: Request, site: &Path, archive: &Path) {
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("");
    let response = if *request.method() != Method::Get && *request.method() != Method::Head {
        Response::from_string("method not allowed").with_status_code(405).boxed()
    } else if path == "/archive.json" {
        match list_archive(archive) {
            Ok(listing) => Response::from_string(serde_json::to_string(&listing).unwrap_or_default())
                .with_header(header("Content-Type", "application/json"))
                .boxed(),
            Err(e) => Response::from_string(format!("cannot list archive: {e}")).with_status_code(500).boxed(),
        }
    } else {
        let target = if path == "/" || path == "/index.html" {
            resolve(site, "index.html")
        } else if let Some(rest) = path.strip_prefix("/archive/") {
            resolve(archive, rest)
        } else if let Some(rest) = path.strip_prefix("/www/") {
            resolve(&site.join("www"), rest)
        } else if let Some(rest) = path.strip_prefix("/pkg/") {
            resolve(&site.join("pkg"), rest)
        } else {
            None
        };
        match target.and_then(|p| std::fs::File::open(&p).ok().map(|f| (p, f))) {
            Some((p, file)) => Response::from_file(file)
                .with_header(header("Content-Type", content_type(&p)))
                .with_header(header("Cache-Control", "no-cache"))
                .with_header(header("X-Content-Type-Options", "nosniff"))
                .boxed(),
            None => Response::from_string("not found").with_status_code(404).boxed(),
        }
    };
    let _ = request.respond(response);
}

/// Map a URL path (still percent-encoded) below `root` to a regular file inside `root`,
/// or None. `root` must already be canonical.
pub fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode_str(url_path).decode_utf8().ok()?;
    let mut path = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" => return None,
            "." | ".." => return None,
            s if s.contains('\\') || s.contains('\0') => return None,
            s => path.push(s),
        }
    }
    // Symlinks are followed, then the real path must still be inside the root.
    let real = path.canonicalize().ok()?;
    (real.starts_with(root) && real.is_file()).then_some(real)
}

/// Every regular file under `root` (symlinks followed only while they stay inside it),
/// sorted by path.
pub fn list_archive(root: &Path) -> io::Result<Listing> {
    let root = root.canonicalize()?;
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        if !seen.insert(dir.clone()) {
            continue;
        }
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let Ok(real) = entry.path().canonicalize() else { continue };
            if !real.starts_with(&root) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let meta = std::fs::metadata(&real)?;
            if meta.is_dir() {
                stack.push((real, rel));
            } else if meta.is_file() {
                files.push(ListedFile { path: rel, size: meta.len() });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Listing { root: name, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("relicview-serve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d.canonicalize().unwrap()
    }

    #[test]
    fn resolve_refuses_every_way_out() {
        let base = tmp("resolve");
        let root = base.join("root");
        std::fs::create_dir_all(root.join("A")).unwrap();
        std::fs::write(root.join("A/B.BGF"), b"x").unwrap();
        std::fs::write(base.join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), root.join("A/link")).unwrap();
        std::os::unix::fs::symlink(root.join("A/B.BGF"), root.join("inside")).unwrap();
        assert_eq!(resolve(&root, "A/B.BGF"), Some(root.join("A/B.BGF")));
        assert_eq!(resolve(&root, "A/%42.BGF"), Some(root.join("A/B.BGF")));
        assert_eq!(resolve(&root, "inside"), Some(root.join("A/B.BGF")));
        for bad in ["../secret", "A/../../secret", "%2e%2e/secret", "%2E%2E%2Fsecret", "A/link", "/etc/passwd", "A", "A/", "A\\..\\..\\secret", "%00"] {
            assert_eq!(resolve(&root, bad), None, "{bad}");
        }
    }

    #[test]
    fn listing_has_every_file_and_skips_links_out() {
        let base = tmp("list");
        let root = base.join("root");
        std::fs::create_dir_all(root.join("DEMO/VIDEO")).unwrap();
        std::fs::write(root.join("DEMO/VIDEO/A.BGF"), b"abc").unwrap();
        std::fs::write(root.join("top.txt"), b"1").unwrap();
        std::fs::write(base.join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("DEMO/loop")).unwrap();
        let l = list_archive(&root).unwrap();
        assert_eq!(
            l.files,
            vec![ListedFile { path: "DEMO/VIDEO/A.BGF".into(), size: 3 }, ListedFile { path: "top.txt".into(), size: 1 }]
        );
    }
}
