//! What the integration tests share: a scratch folder, a real tool run, a `relicview serve`
//! on a free port, and raw HTTP requests that reach it exactly as written.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// An empty folder of this test's own under the system's temporary folder, removed with
/// everything in it when the value is dropped: at the end of the test, passed or failed (a
/// panic unwinds through it). Without that, every run of the suite left its archives behind
/// and a machine's disk filled. It reads as the folder's path (`dir.join(..)`, `&dir`).
pub struct Scratch {
    dir: tempfile::TempDir,
    /// The folder's canonical path (the temporary folder may be reached through a link).
    path: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path.as_os_str()
    }
}

/// A new [`Scratch`] folder named after the test (`relicview-NAME-…`).
pub fn scratch(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("relicview-{name}-"))
        .tempdir()
        .unwrap();
    let path = dir.path().canonicalize().unwrap();
    Scratch { dir, path }
}

/// `files` (path → bytes) written under `dir`.
pub fn write_tree(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (p, b) in files {
        let at = dir.join(p);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, b).unwrap();
    }
}

/// A real tool run to success (its stderr in the failure).
pub fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (scripts/setup.sh installs the tools)"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub struct Server {
    pub child: Child,
    pub port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `relicview serve ARCHIVE --port 0 --site SITE`, once it says where it listens.
pub fn serve(archive: &Path, site: &Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("serve")
        .arg(archive)
        .args(["--port", "0", "--site"])
        .arg(site)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    assert!(
        line.contains("http://127.0.0.1:"),
        "binds loopback by default: {line}"
    );
    Server { child, port }
}

/// A raw request with extra header lines: (status, head, body).
pub fn request(port: u16, method: &str, path: &str, headers: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head, raw[split + 4..].to_vec())
}

/// A raw GET, so the path reaches the server exactly as written (no client normalisation).
pub fn get(port: u16, path: &str) -> (u16, String, Vec<u8>) {
    request(port, "GET", path, "")
}
