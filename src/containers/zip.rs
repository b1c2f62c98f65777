//! ZIP files through the `zip` crate (stored and deflated entries, ZIP64, data descriptors):
//! the central directory is listed once; an entry is inflated when it is read, and only to
//! the size the directory declares (a zip bomb stops there).

use super::{drop_duplicates, error, within, ByteSource, Container, ContainerError, ContainerKind, Entry, Limits, Progress, SourceReader, CHUNK};
use std::cell::RefCell;
use std::io::Read;
use std::sync::Arc;

pub struct ZipContainer {
    name: String,
    archive: RefCell<::zip::ZipArchive<SourceReader>>,
    entries: Vec<Entry>,
    /// The archive's index of each listed entry.
    indices: Vec<usize>,
    problems: Vec<ContainerError>,
    limits: Limits,
}

impl ZipContainer {
    pub fn open(name: &str, source: Arc<dyn ByteSource>, limits: Limits, progress: Progress) -> Result<ZipContainer, ContainerError> {
        let mut archive = ::zip::ZipArchive::new(SourceReader::new(source)).map_err(|e| error(name, None, format!("not a readable zip: {e}")))?;
        if archive.len() > limits.max_entries {
            return Err(error(name, None, format!("{} entries: more than the {} listed at most", archive.len(), limits.max_entries)));
        }
        let mut listed = Vec::new();
        let mut problems = Vec::new();
        let count = archive.len() as u64;
        for i in 0..archive.len() {
            progress(i as u64, count);
            let file = match archive.by_index_raw(i) {
                Ok(f) => f,
                Err(e) => {
                    problems.push(error(name, None, format!("entry {i}: {e}")));
                    continue;
                }
            };
            if file.is_dir() {
                continue;
            }
            let path = file.name().replace('\\', "/").trim_start_matches('/').to_string();
            listed.push((Entry { path, size: file.size() }, i));
        }
        let (entries, kept) = drop_duplicates(name, listed.iter().map(|(e, _)| e.clone()).collect(), &mut problems);
        let indices = kept.into_iter().map(|k| listed[k].1).collect();
        Ok(ZipContainer { name: name.to_string(), archive: RefCell::new(archive), entries, indices, problems, limits })
    }

    fn entry_error(&self, entry: &str, offset: Option<u64>, message: impl Into<String>) -> ContainerError {
        ContainerError { container: self.name.clone(), entry: Some(entry.to_string()), offset, message: message.into() }
    }

    /// What a declared size must pass before anything is inflated: the largest entry read,
    /// and the ratio to what is stored (a zip bomb stops here).
    fn check_declared(&self, entry: &Entry, file: &::zip::read::ZipFile<'_, SourceReader>) -> Result<(), ContainerError> {
        let (size, stored, start) = (file.size(), file.compressed_size(), file.data_start());
        if size > self.limits.max_entry_bytes {
            return Err(self.entry_error(&entry.path, Some(start), format!("declares {size} bytes: more than the {} read at most", self.limits.max_entry_bytes)));
        }
        if size > 1 << 20 && size / stored.max(1) > self.limits.max_ratio {
            return Err(self.entry_error(&entry.path, Some(start), format!("declares {size} bytes from {stored} stored: more than {} times as many", self.limits.max_ratio)));
        }
        Ok(())
    }

    fn listed(&self, index: usize) -> Result<(&Entry, usize), ContainerError> {
        match (self.entries.get(index), self.indices.get(index)) {
            (Some(entry), Some(&at)) => Ok((entry, at)),
            _ => Err(error(&self.name, None, format!("no entry {index}"))),
        }
    }
}

impl Container for ZipContainer {
    fn kind(&self) -> ContainerKind {
        ContainerKind::Zip
    }
    fn entries(&self) -> &[Entry] {
        &self.entries
    }
    fn problems(&self) -> &[ContainerError] {
        &self.problems
    }
    fn located(&self, index: usize) -> Option<u64> {
        let (_, at) = self.listed(index).ok()?;
        self.archive.borrow_mut().by_index_raw(at).ok().map(|f| f.header_start())
    }
    fn read(&self, index: usize) -> Result<Vec<u8>, ContainerError> {
        let (entry, at) = self.listed(index)?;
        let mut archive = self.archive.borrow_mut();
        let mut file = archive.by_index(at).map_err(|e| self.entry_error(&entry.path, None, e.to_string()))?;
        self.check_declared(entry, &file)?;
        let (size, start) = (file.size(), file.data_start());
        let mut out = Vec::with_capacity(size as usize);
        // One byte more than declared tells an entry that inflates past its size.
        (&mut file).take(size + 1).read_to_end(&mut out).map_err(|e| self.entry_error(&entry.path, Some(start), format!("cannot be read: {e}")))?;
        if out.len() as u64 != size {
            let what = if out.len() as u64 > size { "more".to_string() } else { out.len().to_string() };
            return Err(self.entry_error(&entry.path, Some(start), format!("inflates to {what} bytes; the directory declares {size}")));
        }
        Ok(out)
    }
    fn stream(&self, index: usize, skip: u64, take: u64, sink: &mut dyn FnMut(&[u8]) -> Result<(), String>) -> Result<(), ContainerError> {
        let (entry, at) = self.listed(index)?;
        let mut archive = self.archive.borrow_mut();
        let mut file = archive.by_index(at).map_err(|e| self.entry_error(&entry.path, None, e.to_string()))?;
        self.check_declared(entry, &file)?;
        let (size, start) = (file.size(), file.data_start());
        if !within(skip, take, size) {
            return Err(self.entry_error(&entry.path, Some(start), format!("bytes {skip}..{} asked of {size}", skip.saturating_add(take))));
        }
        // Inflated from the start (a deflate stream has no index), handed on from `skip`.
        let end = skip + take;
        let mut buf = vec![0u8; CHUNK];
        let mut pos = 0u64;
        while pos < end {
            let n = fill(&mut file, &mut buf).map_err(|e| self.entry_error(&entry.path, Some(start), format!("cannot be read: {e}")))?;
            if n == 0 {
                return Err(self.entry_error(&entry.path, Some(start), format!("inflates to {pos} bytes; the directory declares {size}")));
            }
            let (lo, hi) = (skip.max(pos), end.min(pos + n as u64));
            if lo < hi {
                sink(&buf[(lo - pos) as usize..(hi - pos) as usize]).map_err(|e| self.entry_error(&entry.path, Some(start), e))?;
            }
            pos += n as u64;
        }
        Ok(())
    }
    fn head(&self, index: usize, n: usize) -> Result<Vec<u8>, ContainerError> {
        let (entry, at) = self.listed(index)?;
        let mut archive = self.archive.borrow_mut();
        let file = archive.by_index(at).map_err(|e| self.entry_error(&entry.path, None, e.to_string()))?;
        let mut out = Vec::with_capacity(n.min(entry.size as usize));
        file.take(n as u64).read_to_end(&mut out).map_err(|e| self.entry_error(&entry.path, None, format!("cannot be read: {e}")))?;
        Ok(out)
    }
}

/// Read until `buf` is full or the input ends (an inflater hands out a little at a time;
/// the stream's pieces stay whole chunks).
fn fill(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
