//! What the integration tests share: a `relicview serve` on a free port, and raw HTTP
//! requests that reach it exactly as written.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

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
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let port = line.trim().trim_end_matches('/').rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {line:?}"));
    assert!(line.contains("http://127.0.0.1:"), "binds loopback by default: {line}");
    Server { child, port }
}

/// A raw request with extra header lines: (status, head, body).
pub fn request(port: u16, method: &str, path: &str, headers: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n").unwrap();
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
