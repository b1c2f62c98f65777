//! A zip written entry by entry, its bytes handed on as soon as they are final: the page's
//! Export all streams its download this way, never holding the whole zip. The zip crate
//! writes it; it seeks back only into the entry it is finishing (to write the entry's
//! size and CRC into its header), so only that entry is kept.

use std::cell::RefCell;
use std::io::{Seek, SeekFrom, Write};
use std::rc::Rc;
use zip::write::SimpleFileOptions;

/// The zip's bytes from `base` on (those before were handed on), and where the writer is.
#[derive(Default)]
struct Tail {
    base: u64,
    pos: u64,
    bytes: Vec<u8>,
}

/// The writer the zip crate writes into: a handle on the shared tail.
struct Window(Rc<RefCell<Tail>>);

impl Write for Window {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut t = self.0.borrow_mut();
        let at = (t.pos - t.base) as usize;
        let end = at + data.len();
        if t.bytes.len() < end {
            t.bytes.resize(end, 0);
        }
        t.bytes[at..end].copy_from_slice(data);
        t.pos += data.len() as u64;
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Window {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let mut t = self.0.borrow_mut();
        let end = t.base + t.bytes.len() as u64;
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => end.checked_add_signed(d),
            SeekFrom::Current(d) => t.pos.checked_add_signed(d),
        };
        match target {
            Some(p) if p >= t.base && p <= end => {
                t.pos = p;
                Ok(p)
            }
            _ => Err(std::io::Error::other(format!(
                "a seek to {target:?}, outside the part of the zip still held ({}..{end})",
                t.base
            ))),
        }
    }
}

pub struct ZipStream {
    zip: zip::ZipWriter<Window>,
    tail: Rc<RefCell<Tail>>,
}

impl Default for ZipStream {
    fn default() -> Self {
        Self::new()
    }
}

impl ZipStream {
    pub fn new() -> ZipStream {
        let tail = Rc::new(RefCell::new(Tail::default()));
        ZipStream {
            zip: zip::ZipWriter::new(Window(tail.clone())),
            tail,
        }
    }

    /// Hand on the bytes before `upto`.
    fn drain(&self, upto: u64) -> Vec<u8> {
        let mut t = self.tail.borrow_mut();
        let n = (upto.saturating_sub(t.base) as usize).min(t.bytes.len());
        t.base += n as u64;
        t.bytes.drain(..n).collect()
    }

    /// Add entry `name` (deflated); → the zip's bytes that are final now: everything before
    /// this entry. (Starting it finishes the entry before, whose header gets its size and
    /// CRC; this one's header is written after all that, where the zip ends.)
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
        self.add_as(name, bytes, zip::CompressionMethod::Deflated)
    }

    /// Add entry `name` stored as it is (bytes compressed already, a PNG's); → as `add`.
    pub fn add_stored(&mut self, name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
        self.add_as(name, bytes, zip::CompressionMethod::Stored)
    }

    fn add_as(
        &mut self,
        name: &str,
        bytes: &[u8],
        method: zip::CompressionMethod,
    ) -> Result<Vec<u8>, String> {
        let header = {
            let t = self.tail.borrow();
            t.base + t.bytes.len() as u64
        };
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        self.zip
            .start_file(name, options)
            .map_err(|e| format!("{name}: {e}"))?;
        self.zip
            .write_all(bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        Ok(self.drain(header))
    }

    /// The rest of the zip: the last entry and the central directory.
    pub fn finish(self) -> Result<Vec<u8>, String> {
        let tail = self.tail.clone();
        self.zip.finish().map_err(|e| e.to_string())?;
        let mut t = tail.borrow_mut();
        t.base += t.bytes.len() as u64;
        Ok(std::mem::take(&mut t.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn the_pieces_make_the_zip_and_only_one_entry_is_held() {
        let mut z = ZipStream::new();
        let mut out = Vec::new();
        let big: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let entries: Vec<(String, Vec<u8>)> = (0..5)
            .map(|k| {
                (
                    format!("dir{k}/file{k}.bin"),
                    big[..50_000 * (k + 1)].to_vec(),
                )
            })
            .collect();
        for (name, bytes) in &entries {
            out.extend(z.add(name, bytes).unwrap());
            // Held: at most the entry just written (deflated) and its header.
            assert!(
                z.tail.borrow().bytes.len() <= bytes.len() + 1024,
                "{}",
                z.tail.borrow().bytes.len()
            );
        }
        out.extend(z.finish().unwrap());
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(out)).unwrap();
        assert_eq!(archive.len(), entries.len());
        for (name, bytes) in &entries {
            let mut f = archive.by_name(name).unwrap();
            let mut back = Vec::new();
            f.read_to_end(&mut back).unwrap();
            assert_eq!(&back, bytes, "{name}");
        }
    }
}
