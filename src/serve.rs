//! `relicview serve`: the viewer (index.html, www/, pkg/) and one archive folder over HTTP.
//!
//! The archive is served under `/archive/` and listed at `/archive.json`. Nothing outside
//! the site and archive roots is ever served: `..`, encoded dots, absolute paths and
//! symlinks that lead out all get 404.

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use serde::Serialize;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// What the file is by its content (see `census::kind_of`), so a viewer need not fetch
    /// every file to type it.
    pub kind: &'static str,
}

/// An archive's file list as the viewer reads it (`#archive=<url of this JSON>`).
#[derive(Debug, Serialize)]
pub struct Listing {
    pub root: String,
    /// Where the files are, relative to the listing's own URL.
    pub base: String,
    pub files: Vec<ListedFile>,
}

/// A running server on its own thread; `stop` shuts it down.
pub struct RunningServer {
    pub addr: std::net::SocketAddr,
    shutdown: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<io::Result<()>>,
}

impl RunningServer {
    pub fn stop(self) {
        let _ = self.shutdown.send(());
        let _ = self.thread.join();
    }
    pub fn wait(self) {
        let _ = self.thread.join();
    }
}

struct Roots {
    site: PathBuf,
    archive: PathBuf,
}

/// Bind and start serving on a thread of its own.
pub fn start(config: ServeConfig) -> io::Result<RunningServer> {
    let roots = Arc::new(Roots { site: config.site.canonicalize()?, archive: config.archive.canonicalize()? });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind((config.bind.as_str(), config.port)))?;
    let addr = listener.local_addr()?;
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = axum::Router::new().fallback(handle).with_state(roots);
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        })
    });
    Ok(RunningServer { addr, shutdown, thread })
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

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found").into_response()
}

async fn handle(State(roots): State<Arc<Roots>>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, "method not allowed").into_response();
    }
    let path = uri.path();
    if path == "/archive.json" {
        let archive = roots.archive.clone();
        return match tokio::task::spawn_blocking(move || list_archive(&archive)).await {
            Ok(Ok(listing)) => {
                let listing = Listing { base: "archive/".into(), ..listing };
                ([(header::CONTENT_TYPE, "application/json")], serde_json::to_string(&listing).unwrap_or_default()).into_response()
            }
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "cannot list the archive").into_response(),
        };
    }
    let target = if path == "/" || path == "/index.html" {
        resolve(&roots.site, "index.html")
    } else if let Some(rest) = path.strip_prefix("/archive/") {
        resolve(&roots.archive, rest)
    } else if let Some(rest) = path.strip_prefix("/www/") {
        resolve(&roots.site.join("www"), rest)
    } else if let Some(rest) = path.strip_prefix("/pkg/") {
        resolve(&roots.site.join("pkg"), rest)
    } else {
        None
    };
    let Some(file) = target else { return not_found() };
    match tokio::fs::read(&file).await {
        Ok(bytes) => (
            [(header::CONTENT_TYPE, content_type(&file)), (header::CACHE_CONTROL, "no-cache"), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")],
            Body::from(bytes),
        )
            .into_response(),
        Err(_) => not_found(),
    }
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

/// The first 16 bytes of a file (fewer if it is shorter or unreadable).
fn read_head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(16);
    if let Ok(f) = std::fs::File::open(path) {
        let _ = f.take(16).read_to_end(&mut head);
    }
    head
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
                let kind = crate::census::kind_of(&rel, &read_head(&real), meta.len());
                files.push(ListedFile { path: rel, size: meta.len(), kind });
            }
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Listing { root: name, base: String::new(), files })
}

/// Write `DIR/index.json`: the listing that lets any static web host serve the archive
/// (open the viewer with `#archive=<url of index.json>`). The index does not list itself.
pub fn write_index(dir: &Path) -> io::Result<usize> {
    let mut listing = list_archive(dir)?;
    listing.files.retain(|f| f.path != "index.json");
    let n = listing.files.len();
    std::fs::write(dir.join("index.json"), serde_json::to_string(&listing).map_err(io::Error::other)?)?;
    Ok(n)
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
            vec![ListedFile { path: "DEMO/VIDEO/A.BGF".into(), size: 3, kind: "biz2-unreadable" }, ListedFile { path: "top.txt".into(), size: 1, kind: "unknown" }]
        );
    }
}
