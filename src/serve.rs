//! `relicview serve`: the viewer (a built site's index.html and assets/, or the source
//! tree's index.html, www/ and pkg/) and one archive folder over HTTP.
//!
//! The archive is served under `/archive/` and listed at `/archive.json`. Nothing outside
//! the site and archive roots is ever served: `..`, encoded dots, absolute paths and
//! symlinks that lead out all get 404.
//!
//! Files are streamed by tower-http's `ServeFile` (Range → 206, HEAD without the body,
//! Last-Modified and conditional requests), so memory does not grow with file size. Each
//! connection must send its request head within a timeout, idle keep-alive connections are
//! closed, and only so many connections are served at once: stalled clients cannot pin the
//! server.

use crate::disk::DiskError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::percent_decode_str;
use serde::Serialize;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub struct ServeConfig {
    /// Folder holding the page: a built site (index.html, assets/: scripts/site.mjs), or a
    /// source tree (index.html, www/, pkg/).
    pub site: PathBuf,
    /// The archive folder served under /archive/.
    pub archive: PathBuf,
    pub bind: String,
    pub port: u16,
    pub limits: Limits,
}

/// What one client may hold of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Time to send a request's head (also the longest a keep-alive connection idles).
    pub header_timeout: Duration,
    /// Connections served at once; more are closed as they arrive.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(15),
            max_connections: 256,
        }
    }
}

pub use crate::disk::ListedFile;

/// An archive's file list as the viewer reads it (`#archive=<url of this JSON>`).
#[derive(Debug, Serialize)]
pub struct Listing {
    pub root: String,
    /// Where the files are, relative to the listing's own URL.
    pub base: String,
    pub files: Vec<ListedFile>,
    /// Entries the walk could not read (vanished, dangling links, unreadable folders), with
    /// the reason: listed, never fatal.
    #[serde(skip)]
    pub skipped: Vec<(String, String)>,
    /// What is said of a container that is not wrong (a self-extracting program before the
    /// archive), as (its path, the note).
    #[serde(skip)]
    pub notes: Vec<(String, String)>,
}

/// A file name as listed: UTF-8 as it is, other bytes as `\xNN`, a backslash doubled.
pub fn listed_name(name: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    match name.to_str() {
        Some(s) if !s.contains('\\') => s.to_string(),
        _ => {
            let mut out = String::new();
            for chunk in name.as_bytes().utf8_chunks() {
                out.push_str(&chunk.valid().replace('\\', "\\\\"));
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            out
        }
    }
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
    // Both roots must be folders, and every error names the path it is about.
    let folder = |p: &Path, what: &str| -> io::Result<PathBuf> {
        let real = p
            .canonicalize()
            .map_err(|e| io::Error::new(e.kind(), format!("{what} {}: {e}", p.display())))?;
        if !real.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{what} {}: not a folder", p.display()),
            ));
        }
        Ok(real)
    };
    // The archive may be a container file (a zip, an ISO, a cue sheet): its entries are served.
    let archive = match config.archive.is_file() {
        true if crate::disk::is_container(&config.archive.to_string_lossy(), &config.archive) => {
            config.archive.canonicalize().map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("archive {}: {e}", config.archive.display()),
                )
            })?
        }
        true => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "archive {}: not a folder, a zip, an ISO 9660 image or a disc rip",
                    config.archive.display()
                ),
            ))
        }
        false => folder(&config.archive, "archive")?,
    };
    let roots = Arc::new(Roots {
        site: folder(&config.site, "site")?,
        archive,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind((
        config.bind.as_str(),
        config.port,
    )))?;
    let addr = listener.local_addr()?;
    let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = axum::Router::new().fallback(handle).with_state(roots);
    let limits = config.limits;
    let thread =
        std::thread::spawn(move || runtime.block_on(accept(listener, app, limits, stopped)));
    Ok(RunningServer {
        addr,
        shutdown,
        thread,
    })
}

/// Accept connections until shut down, each served by hyper with the header-read timeout,
/// at most `max_connections` at a time.
async fn accept(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: Limits,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) -> io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    loop {
        let stream = tokio::select! {
            _ = &mut stopped => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of descriptors or a client gone before accept: keep serving the others,
                // after a breath so that a lasting error does not spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        // Full: the newcomer is closed at once rather than queued without bound.
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            continue;
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
            drop(slot);
        });
    }
}

/// The viewer's own files need exact types (ES modules, `application/wasm` for streaming
/// compilation); archive files are bytes.
fn content_type(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
        .as_deref()
    {
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

async fn handle(State(roots): State<Arc<Roots>>, request: Request) -> Response {
    let method = request.method().clone();
    if method != Method::GET && method != Method::HEAD {
        return (StatusCode::METHOD_NOT_ALLOWED, "method not allowed").into_response();
    }
    let path = request.uri().path().to_string();
    let path = path.as_str();
    if path == "/archive.json" {
        return archive_listing(&roots.archive).await;
    }
    let (target, caching) = if path == "/" || path == "/index.html" {
        (resolve(&roots.site, "index.html"), Caching::Revalidate)
    } else if let Some(rest) = path.strip_prefix("/archive/") {
        match resolve(&roots.archive, rest) {
            Some(file) => (Some(file), Caching::Archive),
            // Not a file on disk: an entry of a container, or nothing.
            None => {
                let range = request
                    .headers()
                    .get(header::RANGE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                return serve_entry(&roots.archive, rest, range, method == Method::HEAD).await;
            }
        }
    } else if let Some(rest) = path.strip_prefix("/assets/") {
        // A built site's files, each named by its content (scripts/site.mjs).
        (
            resolve(&roots.site.join("assets"), rest),
            Caching::Immutable,
        )
    } else if let Some(rest) = path.strip_prefix("/www/") {
        // The source tree's page, run unbuilt (development).
        (resolve(&roots.site.join("www"), rest), Caching::Revalidate)
    } else if let Some(rest) = path.strip_prefix("/pkg/") {
        (resolve(&roots.site.join("pkg"), rest), Caching::Revalidate)
    } else {
        (None, Caching::Revalidate)
    };
    let Some(file) = target else {
        return not_found();
    };
    serve_file(&file, caching, request).await
}

/// The archive's listing for the page (`/archive.json`), its files served from `archive/`.
async fn archive_listing(archive: &Path) -> Response {
    let archive = archive.to_path_buf();
    match tokio::task::spawn_blocking(move || list_archive_or_container(&archive)).await {
        Ok(Ok(listing)) => {
            let listing = Listing {
                base: "archive/".into(),
                ..listing
            };
            (
                [(header::CONTENT_TYPE, "application/json")],
                serde_json::to_string(&listing).unwrap_or_default(),
            )
                .into_response()
        }
        _ => (StatusCode::INTERNAL_SERVER_ERROR, "cannot list the archive").into_response(),
    }
}

/// A file of the site or the archive, streamed in chunks (Range, HEAD and If-Modified-Since
/// are ServeFile's), with its caching and nosniff. The page's own files go out compressed
/// as the browser accepts, from the .br and .gz files the build writes beside them
/// (scripts/site.mjs), where they are.
async fn serve_file(file: &Path, caching: Caching, request: Request) -> Response {
    let mut serve = tower_http::services::ServeFile::new_with_mime(
        file,
        &content_type(file).parse().expect("a valid MIME type"),
    );
    if caching != Caching::Archive {
        serve = serve.precompressed_br().precompressed_gzip();
    }
    let served = tower::ServiceExt::oneshot(serve, request).await;
    match served {
        Ok(response) if response.status() != StatusCode::NOT_FOUND => {
            let mut response = response.map(Body::new);
            let headers = response.headers_mut();
            headers.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static(caching.header()),
            );
            headers.insert(
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            );
            response
        }
        _ => not_found(),
    }
}

/// How long a browser may keep what the server sent (docs/publishing.md, "Caching").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caching {
    /// Asked again each time (304 when unchanged): index.html, which names the rest.
    Revalidate,
    /// Named by its content: the same name never holds other bytes, so it is kept for good.
    Immutable,
    /// The archive's files: asked again each time, never compressed (read by range).
    Archive,
}

impl Caching {
    pub fn header(self) -> &'static str {
        match self {
            Caching::Revalidate | Caching::Archive => "no-cache",
            Caching::Immutable => "public, max-age=31536000, immutable",
        }
    }
}

/// The listing of the archive: a folder's, or a container file's entries.
fn list_archive_or_container(root: &Path) -> io::Result<Listing> {
    if !root.is_file() {
        return list_archive(root);
    }
    let crate::disk::ContainerListing {
        files: entries,
        problems,
        notes,
    } = crate::disk::Disk::new(root).list("");
    if entries.is_empty() && !problems.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            problems[0].1.clone(),
        ));
    }
    let files = entries
        .into_iter()
        .map(|e| ListedFile {
            kind: crate::census::kind_of(&e.path, &e.head, e.size),
            path: e.path,
            size: e.size,
            real: root.to_path_buf(),
            contained: true,
            failure: None,
            refs: Vec::new(),
        })
        .collect();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Listing {
        root: name,
        base: String::new(),
        files,
        skipped: problems,
        notes,
    })
}

/// How long a client may leave an entry's next chunk unread before it is dropped (the
/// reading thread is not held by a stalled client).
const STALL: std::time::Duration = std::time::Duration::from_secs(30);

/// What the reading thread found before the first byte: the response's head.
enum EntryHead {
    Missing,
    Unsatisfiable(u64),
    Whole(u64),
    Part(u64, u64, u64),
    /// The entry cannot be read (encrypted, a method not read, a CRC that does not match):
    /// why, as census says it.
    Unreadable(String),
}

/// Entries (or ranges) up to this size are read whole before the answer's head is sent, so
/// that a fault only their end shows (a CRC that does not match) is answered as an error;
/// a larger one is sent as it is read, and such a fault cuts its body short.
const READ_BEFORE_ANSWERING: u64 = 32 << 20;

/// The status of an entry that is there but cannot be read; its body says why.
pub const UNREADABLE: StatusCode = StatusCode::UNPROCESSABLE_ENTITY;

/// An entry of a container under the archive (`GAME.zip/BTDAVE/VIDEO/CUBE.BGF`, or a path
/// inside the container that is the archive), streamed from where it lies in chunks as they
/// are read or inflated: memory is a few chunks, whatever the entry's size. One
/// `Range: bytes=a-b` is answered with 206 and its part, HEAD with the headers alone.
async fn serve_entry(
    archive: &Path,
    url_path: &str,
    range: Option<String>,
    head: bool,
) -> Response {
    let Some(decoded) = entry_path(url_path) else {
        return not_found();
    };
    let archive = archive.to_path_buf();
    let (head_tx, head_rx) = tokio::sync::oneshot::channel();
    let (tx, rx) = tokio::sync::mpsc::channel::<io::Result<axum::body::Bytes>>(4);
    let read = EntryRead {
        runtime: tokio::runtime::Handle::current(),
        tx,
        head,
    };
    // The container is read on a blocking thread (its readers are synchronous); the chunks
    // cross to the connection through a small channel, so a slow client slows the reading.
    tokio::task::spawn_blocking(move || read.run(&archive, &decoded, range.as_deref(), head_tx));
    let answer = match head_rx.await {
        Ok(a) => a,
        Err(_) => return not_found(),
    };
    let body =
        axum::body::Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|chunk| (chunk, rx))
        }));
    entry_response(answer, head, body)
}

/// The answer to an entry's request, from the head its read gave (`head`: a HEAD request,
/// with no `body`).
fn entry_response(answer: EntryHead, head: bool, body: axum::body::Body) -> Response {
    let mut response = match answer {
        EntryHead::Missing => return not_found(),
        EntryHead::Unreadable(why) => return unreadable(&why),
        EntryHead::Unsatisfiable(total) => {
            let mut r = (StatusCode::RANGE_NOT_SATISFIABLE, "").into_response();
            r.headers_mut().insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes */{total}")).expect("ascii"),
            );
            return r;
        }
        EntryHead::Part(a, b, total) => {
            let mut r = if head {
                StatusCode::PARTIAL_CONTENT.into_response()
            } else {
                (StatusCode::PARTIAL_CONTENT, body).into_response()
            };
            r.headers_mut().insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&format!("bytes {a}-{b}/{total}")).expect("ascii"),
            );
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(b - a + 1));
            r
        }
        EntryHead::Whole(total) => {
            let mut r = if head {
                StatusCode::OK.into_response()
            } else {
                (StatusCode::OK, body).into_response()
            };
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(total));
            r
        }
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// An entry's path in the archive from the URL's: None where it does not decode or steps
/// outside (an empty part, `.`, `..`, a backslash, a NUL).
fn entry_path(url_path: &str) -> Option<String> {
    let decoded = percent_decode_str(url_path)
        .decode_utf8()
        .ok()?
        .into_owned();
    let outside = decoded
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == ".." || s.contains('\\') || s.contains('\0'));
    (!outside).then_some(decoded)
}

/// The answer for an entry that is there but cannot be read: why, as text.
fn unreadable(why: &str) -> Response {
    let mut r = (UNREADABLE, format!("{why}\n")).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r.headers_mut().insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// An entry read on a blocking thread for [`serve_entry`]: its chunks go to the connection
/// through `tx`, each send waiting at most [`STALL`] for the client.
struct EntryRead {
    runtime: tokio::runtime::Handle,
    tx: tokio::sync::mpsc::Sender<io::Result<axum::body::Bytes>>,
    /// A HEAD request: the checks before the first byte, no body.
    head: bool,
}

impl EntryRead {
    fn send(&self, chunk: axum::body::Bytes) -> Result<(), String> {
        match self
            .runtime
            .block_on(tokio::time::timeout(STALL, self.tx.send(Ok(chunk))))
        {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err("the client went away".to_string()),
            Err(_) => Err(format!("the client read nothing for {} s", STALL.as_secs())),
        }
    }

    /// Read `path` of the archive (the part `range` asks for) and answer `head_tx` with the
    /// answer's head: once the first chunk is read, or for a small entry once all of it is,
    /// so that what makes the entry unreadable is an answer of its own, never a 200 with a
    /// body cut short.
    fn run(
        self,
        archive: &Path,
        path: &str,
        range: Option<&str>,
        head_tx: tokio::sync::oneshot::Sender<EntryHead>,
    ) {
        let disk = crate::disk::Disk::new(archive);
        // A path the archive lacks is not found; a container that is there but does not
        // open is unreadable, and says why.
        let (container, index) = match disk.entry(path) {
            Ok(found) => found,
            Err(DiskError::NotFound(_)) => {
                let _ = head_tx.send(EntryHead::Missing);
                return;
            }
            Err(e) => {
                let _ = head_tx.send(EntryHead::Unreadable(e.to_string()));
                return;
            }
        };
        let total = container.entries()[index].size;
        let (skip, take, answer) = match range.and_then(|r| byte_range(r, total)) {
            Some(Err(())) => {
                let _ = head_tx.send(EntryHead::Unsatisfiable(total));
                return;
            }
            Some(Ok((a, b))) => (a, b - a + 1, EntryHead::Part(a, b, total)),
            None => (0, total, EntryHead::Whole(total)),
        };
        // A HEAD request reads nothing of the body: its checks are those before the first byte.
        let take = if self.head { 0 } else { take };
        let hold_all = take <= READ_BEFORE_ANSWERING;
        let mut waiting = Some((head_tx, answer));
        let mut held: Vec<axum::body::Bytes> = Vec::new();
        // A large entry's last chunk is held back until the read has ended well: a CRC is
        // checked after the last byte, and a mismatch must cut the body, not follow it.
        let mut last: Option<axum::body::Bytes> = None;
        let streamed = container.stream(index, skip, take, &mut |chunk| {
            let chunk = axum::body::Bytes::copy_from_slice(chunk);
            if hold_all {
                held.push(chunk);
                return Ok(());
            }
            if let Some((head_tx, answer)) = waiting.take() {
                head_tx
                    .send(answer)
                    .map_err(|_| "the client went away".to_string())?;
            }
            match last.replace(chunk) {
                Some(previous) => self.send(previous),
                None => Ok(()),
            }
        });
        self.finish(streamed.map_err(|e| e.to_string()), waiting, held, last);
    }

    /// The end of a read: the head still `waiting` (an error, or the answer and the chunks
    /// `held` for a small entry), or the `last` chunk held back, or the body cut short.
    fn finish(
        &self,
        streamed: Result<(), String>,
        waiting: Option<(tokio::sync::oneshot::Sender<EntryHead>, EntryHead)>,
        held: Vec<axum::body::Bytes>,
        last: Option<axum::body::Bytes>,
    ) {
        match (streamed, waiting) {
            (Err(e), Some((head_tx, _))) => {
                let _ = head_tx.send(EntryHead::Unreadable(e));
            }
            // A fault part way through a large entry ends the body short of its length: the
            // client sees it cut.
            (Err(e), None) => {
                let _ = self
                    .runtime
                    .block_on(self.tx.send(Err(io::Error::other(e))));
            }
            (Ok(()), Some((head_tx, answer))) => {
                if head_tx.send(answer).is_ok() && !self.head {
                    for chunk in held {
                        if self.send(chunk).is_err() {
                            return;
                        }
                    }
                }
            }
            (Ok(()), None) => {
                if let Some(chunk) = last {
                    let _ = self.send(chunk);
                }
            }
        }
    }
}

/// One `bytes=a-b`, `bytes=a-` or `bytes=-n` range of a `total`-byte body: Ok((first,
/// last)) inclusive, Err where it lies outside the body, None for a header not understood
/// (the whole body is sent, as HTTP allows).
fn byte_range(header: &str, total: u64) -> Option<Result<(u64, u64), ()>> {
    let spec = header.strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (first, last) = match (a.trim(), b.trim()) {
        ("", n) => {
            let n: u64 = n.parse().ok()?;
            (total.saturating_sub(n), total.checked_sub(1)?)
        }
        (a, "") => (a.parse().ok()?, total.saturating_sub(1)),
        (a, b) => (
            a.parse().ok()?,
            b.parse::<u64>().ok()?.min(total.saturating_sub(1)),
        ),
    };
    Some(if total == 0 || first > last || first >= total {
        Err(())
    } else {
        Ok((first, last))
    })
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
/// sorted by path. Entries that vanish or cannot be read while the walk runs are recorded
/// in `skipped` and the walk goes on; only a root that is not a readable folder fails.
pub fn list_archive(root: &Path) -> io::Result<Listing> {
    list_folder(root, true)
}

/// The walk of [`list_archive`]; `containers`: whether containers list as folders of their
/// entries (a static host cannot serve what is inside them, so its index lists them whole).
pub(crate) fn list_folder(root: &Path, containers: bool) -> io::Result<Listing> {
    let root = root
        .canonicalize()
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", root.display())))?;
    if !root.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a folder", root.display()),
        ));
    }
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        if !seen.insert(dir.clone()) {
            continue;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root => {
                return Err(io::Error::new(e.kind(), format!("{}: {e}", root.display())))
            }
            Err(e) => {
                skipped.push((prefix.clone(), e.to_string()));
                continue;
            }
        };
        for entry in entries {
            match look_at(entry, &prefix, &root) {
                Seen::Folder(real, rel) => stack.push((real, rel)),
                Seen::File(f) => files.push(f),
                Seen::Skipped(rel, why) => skipped.push((rel, why)),
                Seen::Outside => {}
            }
        }
    }
    let mut notes = Vec::new();
    let files = if containers {
        open_containers(&root, files, &mut skipped, &mut notes)
    } else {
        sorted(files, &mut skipped)
    };
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Listing {
        root: name,
        base: String::new(),
        files,
        skipped,
        notes,
    })
}

/// What one entry of a folder being listed is.
enum Seen {
    /// A folder to walk: where it is, and its path in the listing.
    Folder(PathBuf, String),
    File(ListedFile),
    /// Not listed (its path in the listing, and why).
    Skipped(String, String),
    /// A link out of the archive's folder: not followed.
    Outside,
}

/// The folder entry `entry` of the folder listed as `prefix` inside `root`.
fn look_at(entry: io::Result<std::fs::DirEntry>, prefix: &str, root: &Path) -> Seen {
    let entry = match entry {
        Ok(e) => e,
        Err(e) => return Seen::Skipped(prefix.to_string(), e.to_string()),
    };
    let name = listed_name(&entry.file_name());
    let rel = if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    };
    let (real, meta) = match entry
        .path()
        .canonicalize()
        .and_then(|r| std::fs::metadata(&r).map(|m| (r, m)))
    {
        Ok(found) => found,
        // Gone since the folder was read, or a link to nothing.
        Err(e) => return Seen::Skipped(rel, e.to_string()),
    };
    if !real.starts_with(root) {
        Seen::Outside
    } else if meta.is_dir() {
        Seen::Folder(real, rel)
    } else if meta.is_file() {
        let kind = crate::census::kind_of(&rel, &read_head(&real), meta.len());
        Seen::File(ListedFile {
            path: rel,
            size: meta.len(),
            kind,
            real,
            contained: false,
            failure: None,
            refs: Vec::new(),
        })
    } else {
        Seen::Skipped(rel, "not a regular file".into())
    }
}

fn sorted(mut files: Vec<ListedFile>, skipped: &mut [(String, String)]) -> Vec<ListedFile> {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.sort();
    files
}

/// The files of a walk with each container (a zip, an ISO, a disc rip) listed as a folder of
/// its entries. A .bin that a .cue beside it names is that disc, listed once, under the
/// cue's name. A container that cannot be opened stays a file, and says why in `skipped`.
fn open_containers(
    root: &Path,
    files: Vec<ListedFile>,
    skipped: &mut Vec<(String, String)>,
    notes: &mut Vec<(String, String)>,
) -> Vec<ListedFile> {
    let disk = crate::disk::Disk::new(root);
    let named_by_cues = crate::disk::bins_named_by_cues(&files);
    let mut out = Vec::with_capacity(files.len());
    for f in files {
        if named_by_cues.contains(&f.path.to_ascii_lowercase()) {
            continue;
        }
        if !crate::disk::is_container(&f.path, &f.real) {
            out.push(f);
            continue;
        }
        let crate::disk::ContainerListing {
            files: entries,
            problems,
            notes: said,
        } = disk.list(&f.path);
        notes.extend(said);
        let mut opened = disk
            .container(&f.path)
            .map(|_| ())
            .map_err(|e| e.to_string());
        // A container that opens but lists nothing, for its problems, is not a folder either.
        if let (Ok(()), true, Some((_, why))) = (&opened, entries.is_empty(), problems.first()) {
            opened = Err(why.clone());
        }
        skipped.extend(problems);
        if let Err(why) = opened {
            // The viewer marks it and says why when it is opened.
            out.push(ListedFile {
                failure: Some(why),
                ..f
            });
            continue;
        }
        out.extend(entries.into_iter().map(|e| ListedFile {
            kind: crate::census::kind_of(&e.path, &e.head, e.size),
            path: e.path,
            size: e.size,
            real: f.real.clone(),
            contained: true,
            failure: None,
            refs: Vec::new(),
        }));
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch folder of this module's tests (crate::scratch).
    pub(super) fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
        crate::scratch::tmp(&format!("serve-{name}"))
    }

    #[test]
    fn resolve_refuses_every_way_out() {
        let (_scratch, base) = tmp("resolve");
        let root = base.join("root");
        std::fs::create_dir_all(root.join("A")).unwrap();
        std::fs::write(root.join("A/B.BGF"), b"x").unwrap();
        std::fs::write(base.join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(base.join("secret"), root.join("A/link")).unwrap();
        std::os::unix::fs::symlink(root.join("A/B.BGF"), root.join("inside")).unwrap();
        assert_eq!(resolve(&root, "A/B.BGF"), Some(root.join("A/B.BGF")));
        assert_eq!(resolve(&root, "A/%42.BGF"), Some(root.join("A/B.BGF")));
        assert_eq!(resolve(&root, "inside"), Some(root.join("A/B.BGF")));
        for bad in [
            "../secret",
            "A/../../secret",
            "%2e%2e/secret",
            "%2E%2E%2Fsecret",
            "A/link",
            "/etc/passwd",
            "A",
            "A/",
            "A\\..\\..\\secret",
            "%00",
        ] {
            assert_eq!(resolve(&root, bad), None, "{bad}");
        }
    }

    #[test]
    fn listing_has_every_file_and_skips_links_out() {
        let (_scratch, base) = tmp("list");
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
            vec![
                ListedFile {
                    path: "DEMO/VIDEO/A.BGF".into(),
                    size: 3,
                    kind: "biz2-unreadable",
                    real: root.join("DEMO/VIDEO/A.BGF"),
                    contained: false,
                    failure: None,
                    refs: Vec::new()
                },
                ListedFile {
                    path: "top.txt".into(),
                    size: 1,
                    kind: "plain-text",
                    real: root.join("top.txt"),
                    contained: false,
                    failure: None,
                    refs: Vec::new()
                }
            ]
        );
    }

    #[test]
    fn vanished_entries_are_skipped_with_a_reason_and_odd_names_stay_apart() {
        use std::os::unix::ffi::OsStrExt;
        let (_scratch, odd) = tmp("odd");
        let root = odd.join("root");
        std::fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(root.join("gone"), root.join("dangling")).unwrap();
        // Two names that are not UTF-8 and would read the same with replacement characters.
        for name in [&b"a\xff.bgf"[..], &b"a\xfe.bgf"[..], &b"back\\slash"[..]] {
            std::fs::write(root.join(std::ffi::OsStr::from_bytes(name)), b"x").unwrap();
        }
        let l = list_archive(&root).unwrap();
        let paths: Vec<&str> = l.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["a\\xFE.bgf", "a\\xFF.bgf", "back\\\\slash"]);
        assert!(
            l.files
                .iter()
                .all(|f| std::fs::read(&f.real).unwrap() == b"x"),
            "each entry keeps its own file"
        );
        assert_eq!(l.skipped.len(), 1);
        assert_eq!(l.skipped[0].0, "dangling");
        // A file is not an archive: the error names it.
        let e = list_archive(&root.join("back\\slash"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("back\\slash: not a folder"), "{e}");
    }
}

#[cfg(test)]
mod limits {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    /// A server over a folder holding one 1 MB file, with the given limits.
    /// Its scratch folder comes too, removed when the test drops it.
    fn server(name: &str, limits: Limits) -> (RunningServer, Vec<u8>, tempfile::TempDir) {
        let (scratch, dir) = super::tests::tmp(&format!("limits-{name}"));
        std::fs::create_dir_all(dir.join("site")).unwrap();
        std::fs::create_dir_all(dir.join("archive")).unwrap();
        std::fs::write(dir.join("site/index.html"), b"<!doctype html>").unwrap();
        let data: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
        std::fs::write(dir.join("archive/BIG.BGF"), &data).unwrap();
        let s = start(ServeConfig {
            site: dir.join("site"),
            archive: dir.join("archive"),
            bind: "127.0.0.1".into(),
            port: 0,
            limits,
        })
        .unwrap();
        (s, data, scratch)
    }

    /// Send `request` and read the whole answer (the server closes after it): the head in
    /// lower case, and the body.
    fn ask(addr: std::net::SocketAddr, request: &str) -> (String, Vec<u8>) {
        let (head, body) = ask_raw(addr, request);
        (head.to_ascii_lowercase(), body)
    }

    fn ask_raw(addr: std::net::SocketAddr, request: &str) -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head")
            + 4;
        (
            String::from_utf8_lossy(&raw[..split]).to_string(),
            raw[split..].to_vec(),
        )
    }

    /// Whether the server closes `s` within `secs` (reads return end of file).
    fn closed_within(s: &mut TcpStream, secs: u64) -> bool {
        s.set_read_timeout(Some(Duration::from_secs(secs))).unwrap();
        let mut buf = [0u8; 256];
        loop {
            match s.read(&mut buf) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
                Err(_) => return false,
            }
        }
    }

    #[test]
    fn ranges_head_and_conditional_requests_are_answered_without_the_whole_file() {
        let (server, data, _scratch) = server("range", Limits::default());
        let (head, body) = ask(server.addr, "GET /archive/BIG.BGF HTTP/1.1\r\nHost: x\r\nRange: bytes=100-199\r\nConnection: close\r\n\r\n");
        assert!(head.starts_with("http/1.1 206"), "{head}");
        assert!(
            head.contains(&format!("content-range: bytes 100-199/{}", data.len())),
            "{head}"
        );
        assert_eq!(body, &data[100..200]);
        let (head, body) = ask(
            server.addr,
            "HEAD /archive/BIG.BGF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert!(
            head.starts_with("http/1.1 200")
                && head.contains(&format!("content-length: {}", data.len())),
            "{head}"
        );
        assert!(head.contains("accept-ranges: bytes"), "{head}");
        assert!(body.is_empty(), "HEAD sends no body");
        let (raw, _) = ask_raw(
            server.addr,
            "HEAD /archive/BIG.BGF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        let header = |name: &str| {
            raw.lines().find_map(|l| {
                l.split_once(": ")
                    .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.trim().to_string())
            })
        };
        let (modified, etag) = (
            header("last-modified").expect("Last-Modified"),
            header("etag").expect("ETag"),
        );
        for condition in [
            format!("If-Modified-Since: {modified}"),
            format!("If-None-Match: {etag}"),
        ] {
            let (head, body) = ask(server.addr, &format!("GET /archive/BIG.BGF HTTP/1.1\r\nHost: x\r\n{condition}\r\nConnection: close\r\n\r\n"));
            assert!(
                head.starts_with("http/1.1 304") && body.is_empty(),
                "{condition}: {head}"
            );
        }
        let (head, body) = ask(
            server.addr,
            "GET /archive/BIG.BGF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert!(
            head.starts_with("http/1.1 200") && head.contains("application/octet-stream"),
            "{head}"
        );
        assert_eq!(body, data);
        server.stop();
    }

    #[test]
    fn idle_and_half_sent_requests_are_closed_after_the_timeout() {
        let (server, _, _scratch) = server(
            "timeout",
            Limits {
                header_timeout: Duration::from_millis(300),
                max_connections: 16,
            },
        );
        // Nothing sent; half a request head; a finished keep-alive request left idle.
        let mut silent = TcpStream::connect(server.addr).unwrap();
        let mut half = TcpStream::connect(server.addr).unwrap();
        half.write_all(b"GET /archive/BIG.BGF HTTP/1.1\r\nHost:")
            .unwrap();
        let mut idle = TcpStream::connect(server.addr).unwrap();
        idle.write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        for (what, s) in [
            ("silent", &mut silent),
            ("half-sent", &mut half),
            ("idle keep-alive", &mut idle),
        ] {
            assert!(closed_within(s, 10), "{what} connection still open");
        }
        server.stop();
    }

    #[test]
    fn connections_beyond_the_cap_are_closed_and_the_rest_stay_served() {
        let (server, _, _scratch) = server(
            "cap",
            Limits {
                header_timeout: Duration::from_secs(30),
                max_connections: 3,
            },
        );
        let mut held: Vec<TcpStream> = (0..3)
            .map(|_| TcpStream::connect(server.addr).unwrap())
            .collect();
        let mut extra = TcpStream::connect(server.addr).unwrap();
        assert!(
            closed_within(&mut extra, 10),
            "the fourth connection is turned away"
        );
        for s in &mut held {
            assert!(!closed_within(s, 1), "the first three stay open");
        }
        // One of them still gets an answer.
        held[0]
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        held[0]
            .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 12];
        held[0].read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"HTTP/1.1 200");
        server.stop();
    }
}
