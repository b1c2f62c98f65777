//! CD sectors: a raw rip stores 2352-byte sectors (sync, header, then the user data), an ISO
//! stores only the 2048 user bytes of each. [`SectorView`] shows a raw track as the 2048-byte
//! sectors an ISO 9660 reader expects; a .cue sheet says which file and mode the data track
//! is. docs/formats/containers.md, "Disc images".

use super::ByteSource;
use std::rc::Rc;

pub const RAW_SECTOR: u64 = 2352;
pub const USER_SECTOR: u64 = 2048;
const SYNC: [u8; 12] = [
    0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00,
];

/// How a sector holds its 2048 user bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectorMode {
    /// 2048-byte sectors (an ISO image, a MODE1/2048 track).
    Cooked,
    /// MODE1/2352: sync, header, data at byte 16.
    Mode1,
    /// MODE2/2352, CD-ROM XA form 1 (PlayStation discs): sync, header, subheader, data at 24.
    Mode2,
}

impl SectorMode {
    /// The word for the mode in a cue sheet's track as the page and index.json carry it.
    pub fn word(self) -> &'static str {
        match self {
            SectorMode::Cooked => "COOKED",
            SectorMode::Mode1 => "MODE1",
            SectorMode::Mode2 => "MODE2",
        }
    }

    /// The mode a [`SectorMode::word`] names (any other word: none).
    pub fn from_word(word: &str) -> Option<SectorMode> {
        [SectorMode::Cooked, SectorMode::Mode1, SectorMode::Mode2]
            .into_iter()
            .find(|m| m.word() == word)
    }

    fn layout(self) -> (u64, u64) {
        match self {
            SectorMode::Cooked => (USER_SECTOR, 0),
            SectorMode::Mode1 => (RAW_SECTOR, 16),
            SectorMode::Mode2 => (RAW_SECTOR, 24),
        }
    }
}

/// The mode of a raw rip by its first sector's sync pattern and mode byte.
pub fn raw_mode(head: &[u8]) -> Option<SectorMode> {
    if head.len() < 16 || head[..12] != SYNC {
        return None;
    }
    match head[15] {
        1 => Some(SectorMode::Mode1),
        2 => Some(SectorMode::Mode2),
        _ => None,
    }
}

/// A track's 2048-byte user sectors, from sector `start` of `raw` on.
pub struct SectorView {
    raw: Rc<dyn ByteSource>,
    mode: SectorMode,
    start: u64,
    sectors: u64,
}

impl SectorView {
    /// The view, and the bytes past the last whole sector (a rip that is not a whole
    /// number of sectors: the tail is not read).
    pub fn new(raw: Rc<dyn ByteSource>, mode: SectorMode, start: u64) -> (SectorView, u64) {
        let (size, _) = mode.layout();
        let total = raw.len() / size;
        let tail = raw.len() % size;
        (
            SectorView {
                raw,
                mode,
                start: start.min(total),
                sectors: total.saturating_sub(start),
            },
            tail,
        )
    }
}

impl ByteSource for SectorView {
    fn len(&self) -> u64 {
        self.sectors * USER_SECTOR
    }
    fn forget(&self) {
        self.raw.forget();
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|e| e > self.len())
        {
            return Err(format!(
                "{} bytes at byte {offset} run past the end of the track ({} sectors)",
                buf.len(),
                self.sectors
            ));
        }
        if buf.is_empty() {
            return Ok(());
        }
        let (size, data) = self.mode.layout();
        // One read of the raw sectors the range spans (a source read can be slow: a
        // browser's FileReaderSync), then their user bytes picked out.
        let (first, last) = (
            offset / USER_SECTOR,
            (offset + buf.len() as u64 - 1) / USER_SECTOR,
        );
        let from = (self.start + first) * size;
        let raw_len = ((last - first) * size + data + USER_SECTOR).min(self.raw.len() - from);
        let mut raw = vec![0u8; raw_len as usize];
        self.raw.read_at(from, &mut raw)?;
        let mut done = 0usize;
        while done < buf.len() {
            let at = offset + done as u64;
            let (sector, within) = (at / USER_SECTOR - first, at % USER_SECTOR);
            let n = ((USER_SECTOR - within) as usize).min(buf.len() - done);
            let src = (sector * size + data + within) as usize;
            buf[done..done + n].copy_from_slice(&raw[src..src + n]);
            done += n;
        }
        Ok(())
    }
}

/// The data track a .cue sheet names: its file (as written), mode, and first sector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CueTrack {
    pub file: String,
    pub mode: SectorMode,
    pub start: u64,
    /// The sheet's line of the track, for errors.
    pub line: usize,
}

impl CueTrack {
    /// The archive path of the track's file: beside the sheet at `sheet`, as written (a
    /// lookup ignores case).
    pub fn file_beside(&self, sheet: &str) -> String {
        match sheet.rsplit_once('/') {
            Some((folder, _)) => format!("{folder}/{}", self.file),
            None => self.file.clone(),
        }
    }

    /// Why the disc of sheet `sheet` cannot be read: the file its track names is not beside it.
    pub fn not_beside(&self, sheet: &str) -> String {
        format!(
            "{sheet}: line {}: the track's file {} is not beside it",
            self.line, self.file
        )
    }
}

/// The longest cue sheet read.
pub const MAX_CUE_BYTES: u64 = 64 << 10;

/// Whether a file is a cue sheet, by its name.
pub fn is_cue(path: &str) -> bool {
    path.to_ascii_lowercase().ends_with(".cue")
}

/// The data track of cue sheet `sheet`, `size` bytes long, whose text `read` gives: read only
/// when the size is within [`MAX_CUE_BYTES`]. Every reader of a sheet (a folder on disk, a
/// container's entry, the page's dropped files, a publish) asks this, so each says the same.
pub fn read_cue_sheet(
    sheet: &str,
    size: u64,
    read: impl FnOnce() -> Result<Vec<u8>, String>,
) -> Result<CueTrack, String> {
    cue_size_read(sheet, size)?;
    let text = read().map_err(|e| format!("{sheet}: {e}"))?;
    parse_cue_sheet(sheet, &text)
}

/// Whether a cue sheet of `size` bytes is read at all (its first step, for a reader whose
/// read is its own: the page's).
pub fn cue_size_read(sheet: &str, size: u64) -> Result<(), String> {
    if size > MAX_CUE_BYTES {
        return Err(format!("{sheet}: {size} bytes is too long for a cue sheet"));
    }
    Ok(())
}

/// Sheet `sheet`'s data track, from its bytes (its second step).
pub fn parse_cue_sheet(sheet: &str, text: &[u8]) -> Result<CueTrack, String> {
    cue_data_track(&String::from_utf8_lossy(text)).map_err(|e| format!("{sheet}: {e}"))
}

/// The first data track of a cue sheet (`FILE "…" BINARY`, `TRACK nn MODE2/2352`,
/// `INDEX 01 mm:ss:ff`), or why there is none (with the line).
pub fn cue_data_track(text: &str) -> Result<CueTrack, String> {
    let mut file: Option<String> = None;
    let mut track: Option<(SectorMode, usize)> = None;
    for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        let word = line
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        match word.as_str() {
            "FILE" => {
                let rest = line[4..].trim();
                let name = if let Some(q) = rest.strip_prefix('"') {
                    q.split('"').next().unwrap_or("")
                } else {
                    rest.split_whitespace().next().unwrap_or("")
                };
                file = Some(name.to_string());
                track = None;
            }
            "TRACK" => {
                let mode = line
                    .split_whitespace()
                    .nth(2)
                    .unwrap_or("")
                    .to_ascii_uppercase();
                track = match mode.as_str() {
                    "MODE2/2352" => Some((SectorMode::Mode2, n)),
                    "MODE1/2352" => Some((SectorMode::Mode1, n)),
                    "MODE1/2048" => Some((SectorMode::Cooked, n)),
                    _ => None,
                };
            }
            "INDEX" if line.split_whitespace().nth(1) == Some("01") => {
                if let (Some((mode, line_no)), Some(f)) = (track, file.as_ref()) {
                    let at = line
                        .split_whitespace()
                        .nth(2)
                        .ok_or_else(|| format!("line {n}: INDEX 01 without a time"))?;
                    let start = msf(at)
                        .ok_or_else(|| format!("line {n}: INDEX 01 {at}: expected mm:ss:ff"))?;
                    return Ok(CueTrack {
                        file: f.clone(),
                        mode,
                        start,
                        line: line_no,
                    });
                }
            }
            _ => {}
        }
    }
    Err(if file.is_none() {
        "no FILE line".into()
    } else {
        "no MODE1 or MODE2 data track with an INDEX 01".into()
    })
}

/// mm:ss:ff as a sector number (75 frames a second). A CD's times stay under 100 minutes;
/// up to 999 are taken (some tools count on past 99 for long images), which also keeps the
/// sector's byte offset far from overflowing.
fn msf(text: &str) -> Option<u64> {
    let mut parts = text.split(':').map(|p| p.parse::<u64>().ok());
    let (m, s, f) = (parts.next()??, parts.next()??, parts.next()??);
    (parts.next().is_none() && m < 1000 && s < 60 && f < 75).then(|| (m * 60 + s) * 75 + f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_disc(user: &[u8], mode: SectorMode) -> Vec<u8> {
        let (size, data) = mode.layout();
        let mut out = Vec::new();
        for (i, chunk) in user.chunks(USER_SECTOR as usize).enumerate() {
            let mut sector = vec![0u8; size as usize];
            sector[..12].copy_from_slice(&SYNC);
            sector[15] = if mode == SectorMode::Mode1 { 1 } else { 2 };
            sector[12] = i as u8;
            sector[data as usize..data as usize + chunk.len()].copy_from_slice(chunk);
            out.extend(sector);
        }
        out
    }

    #[test]
    fn a_raw_track_reads_as_its_user_bytes_across_sector_edges() {
        let user: Vec<u8> = (0..3 * USER_SECTOR as usize)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        for mode in [SectorMode::Mode1, SectorMode::Mode2] {
            let raw = raw_disc(&user, mode);
            assert_eq!(raw_mode(&raw), Some(mode));
            let (view, tail) = SectorView::new(Rc::new(raw), mode, 0);
            assert_eq!((view.len(), tail), (3 * USER_SECTOR, 0));
            let mut buf = vec![0u8; 3000];
            view.read_at(2000, &mut buf).unwrap();
            assert_eq!(buf, user[2000..5000]);
            assert!(
                view.read_at(3 * USER_SECTOR - 10, &mut [0u8; 11]).is_err(),
                "past the end is an error"
            );
        }
        assert_eq!(raw_mode(b"PK\x03\x04 not a disc"), None);
    }

    #[test]
    fn a_rip_that_is_not_whole_sectors_says_how_much_is_left_over() {
        let mut raw = raw_disc(&[1u8; 4096], SectorMode::Mode2);
        raw.extend([0u8; 100]);
        let (view, tail) = SectorView::new(Rc::new(raw), SectorMode::Mode2, 0);
        assert_eq!((view.len(), tail), (2 * USER_SECTOR, 100));
    }

    #[test]
    fn a_cue_sheet_names_its_data_track() {
        let cue = "FILE \"Final Fantasy VII (Disc 1).bin\" BINARY\r\n  TRACK 01 MODE2/2352\r\n    INDEX 01 00:00:00\r\n  TRACK 02 AUDIO\r\n    INDEX 00 70:00:00\r\n";
        assert_eq!(
            cue_data_track(cue),
            Ok(CueTrack {
                file: "Final Fantasy VII (Disc 1).bin".into(),
                mode: SectorMode::Mode2,
                start: 0,
                line: 2
            })
        );
        let later = "FILE a.bin BINARY\nTRACK 01 AUDIO\nINDEX 01 00:00:00\nFILE b.bin BINARY\nTRACK 02 MODE1/2352\nINDEX 00 00:00:00\nINDEX 01 00:02:10\n";
        assert_eq!(
            cue_data_track(later).map(|t| (t.file, t.mode, t.start)),
            Ok(("b.bin".into(), SectorMode::Mode1, 2 * 75 + 10))
        );
        assert!(cue_data_track("TRACK 01 AUDIO")
            .unwrap_err()
            .contains("no FILE"));
        assert!(
            cue_data_track("FILE a.bin BINARY\nTRACK 01 MODE2/2352\nINDEX 01 00:99:00")
                .unwrap_err()
                .contains("line 3")
        );
        // A minute count that would overflow the sector number (found by the cue fuzz target).
        let huge = "FILE 770\n  TRACK 00 MODE1/2352\n  INDEX 01 00444444444444444444:0:000";
        assert!(cue_data_track(huge)
            .unwrap_err()
            .contains("line 3: INDEX 01"));
        assert_eq!(msf("999:59:74"), Some((999 * 60 + 59) * 75 + 74));
    }
}
