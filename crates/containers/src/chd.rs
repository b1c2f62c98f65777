//! CHD images (MAME's "compressed hunks of data", what emulators keep PlayStation discs in)
//! through the `chd` crate, which decompresses a hunk when it is asked for. A CD's first data
//! track, or a DVD's sectors, become the 2048-byte sectors the ISO 9660 reader walks; a hunk
//! is decompressed only when a sector in it is read, and the last two are kept.
//! docs/formats/containers.md, "CHD".

use super::disc::{SectorMode, SectorView, RAW_SECTOR, USER_SECTOR};
use super::iso::IsoContainer;
use super::{error, ByteSource, ContainerError, ContainerKind, Limits, Progress, SourceReader};
use std::cell::RefCell;
use std::rc::Rc;

/// The header's tag.
pub const MAGIC: &[u8; 8] = b"MComprHD";
/// A version 5 header's size: all that is read before the crate opens the file.
const HEADER_V5: usize = 124;
/// A CD frame in a CHD: a 2352-byte sector and its 96 bytes of subcode.
const CD_FRAME: u64 = 2448;
/// Tracks start on a multiple of this many frames.
const TRACK_PADDING: u64 = 4;
/// Bounds on what a header may claim before anything sized by it is allocated.
const MAX_HUNK_BYTES: u32 = 1 << 20;
const MAX_HUNKS: u64 = 1 << 22;
const MAX_LOGICAL_BYTES: u64 = 1 << 34;
/// Metadata entries looked at at most (a CD has one per track).
const MAX_METADATA: usize = 200;
/// Hunks kept decompressed.
const CACHED_HUNKS: usize = 2;

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be64(b: &[u8], at: usize) -> u64 {
    (be32(b, at) as u64) << 32 | be32(b, at + 4) as u64
}

/// A version 5 header's hunk, unit and logical sizes within what is read.
fn check_sizes(name: &str, h: &[u8]) -> Result<(), ContainerError> {
    let (logical, hunk_bytes, unit_bytes) = (be64(h, 32), be32(h, 56), be32(h, 60));
    if hunk_bytes == 0 || hunk_bytes > MAX_HUNK_BYTES {
        return Err(error(
            name,
            Some(56),
            format!("hunks of {hunk_bytes} bytes (1 to {MAX_HUNK_BYTES})"),
        ));
    }
    if unit_bytes == 0 || unit_bytes > hunk_bytes || hunk_bytes % unit_bytes != 0 {
        return Err(error(
            name,
            Some(60),
            format!("units of {unit_bytes} bytes in hunks of {hunk_bytes}"),
        ));
    }
    if logical > MAX_LOGICAL_BYTES || logical.div_ceil(hunk_bytes as u64) > MAX_HUNKS {
        return Err(error(
            name,
            Some(32),
            format!("{logical} bytes in hunks of {hunk_bytes}: more than is read"),
        ));
    }
    Ok(())
}

/// What a version 5 header claims, checked against the file before the crate allocates by
/// it (its map is `hunk_count` entries; its compressed map's length is read as written).
fn check_header(name: &str, source: &dyn ByteSource) -> Result<(), ContainerError> {
    let mut h = [0u8; HEADER_V5];
    if source.len() < HEADER_V5 as u64 {
        return Err(error(
            name,
            Some(0),
            format!(
                "a CHD header is {HEADER_V5} bytes; the file has {}",
                source.len()
            ),
        ));
    }
    source
        .read_at(0, &mut h)
        .map_err(|e| error(name, Some(0), e))?;
    if &h[..8] != MAGIC {
        return Err(error(name, Some(0), "expected MComprHD (a CHD header)"));
    }
    let version = be32(&h, 12);
    if version != 5 {
        return Err(error(
            name,
            Some(12),
            format!(
                "CHD version {version}: only version 5 is read (chdman copy rewrites an older one)"
            ),
        ));
    }
    check_sizes(name, &h)?;
    let (logical, map_offset, hunk_bytes) = (be64(&h, 32), be64(&h, 40), be32(&h, 56));
    if h[104..124].iter().any(|&b| b != 0) {
        return Err(error(
            name,
            Some(104),
            "needs its parent CHD, which is not opened",
        ));
    }
    let hunks = logical.div_ceil(hunk_bytes as u64);
    let compressed = be32(&h, 16) != 0;
    let map_bytes = if compressed {
        let mut len = [0u8; 4];
        source
            .read_at(map_offset, &mut len)
            .map_err(|e| error(name, Some(map_offset), format!("its map: {e}")))?;
        16 + u32::from_be_bytes(len) as u64
    } else {
        hunks * 4
    };
    if map_offset
        .checked_add(map_bytes)
        .is_none_or(|end| end > source.len())
    {
        return Err(error(name, Some(40), format!("a map of {map_bytes} bytes at byte {map_offset} lies past the file's end ({} bytes)", source.len())));
    }
    Ok(())
}

/// The first data track of a CD, from its track metadata: where its sectors start (in
/// frames), how many there are, and how they are stored.
#[derive(Debug, Clone, PartialEq)]
struct DataTrack {
    number: u32,
    first_frame: u64,
    frames: u64,
    /// Bytes of each frame that are the sector (2352 raw, 2048 cooked).
    sector_bytes: u64,
    mode: SectorMode,
}

/// One track's `KEY:VALUE` words (`TRACK:1 TYPE:MODE2_RAW SUBTYPE:NONE FRAMES:1234 …`).
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix(':')))
}

/// The first data track among the CD's tracks (their metadata texts, in order).
fn data_track(name: &str, tracks: &[String]) -> Result<DataTrack, ContainerError> {
    let mut frame = 0u64;
    for text in tracks {
        let number: u32 = field(text, "TRACK")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| {
                error(
                    name,
                    None,
                    format!("track metadata without its number: {text:?}"),
                )
            })?;
        let frames: u64 = field(text, "FRAMES")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| error(name, None, format!("track {number}: no FRAMES")))?;
        let kind = field(text, "TYPE").unwrap_or("");
        // A pregap stored with the track ("V…") comes before its first sector.
        let pregap: u64 = if field(text, "PGTYPE").is_some_and(|t| t.starts_with('V')) {
            field(text, "PREGAP")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        } else {
            0
        };
        let stored = match kind {
            "MODE1_RAW" => Some((RAW_SECTOR, SectorMode::Mode1)),
            "MODE2_RAW" => Some((RAW_SECTOR, SectorMode::Mode2)),
            "MODE1" | "MODE2_FORM1" => Some((USER_SECTOR, SectorMode::Cooked)),
            "AUDIO" => None,
            other => return Err(error(name, None, format!("track {number} is {other}: its sectors are not read (MODE1, MODE1_RAW, MODE2_FORM1 and MODE2_RAW are)"))),
        };
        if let Some((sector_bytes, mode)) = stored {
            if pregap > frames {
                return Err(error(
                    name,
                    None,
                    format!("track {number}: a pregap of {pregap} frames in {frames}"),
                ));
            }
            return Ok(DataTrack {
                number,
                first_frame: frame + pregap,
                frames: frames - pregap,
                sector_bytes,
                mode,
            });
        }
        frame += frames.div_ceil(TRACK_PADDING) * TRACK_PADDING;
    }
    Err(error(name, None, "no data track: an audio CD has no files"))
}

/// The sectors of a CHD's data, decompressed a hunk at a time as they are read.
struct ChdSectors {
    name: String,
    chd: RefCell<::chd::Chd<SourceReader>>,
    /// Recently decompressed hunks (number, bytes), the newest last.
    cache: RefCell<Vec<(u32, Vec<u8>)>>,
    compressed: RefCell<Vec<u8>>,
    hunk_bytes: u64,
    /// Where each sector sits: frame `first_frame + n`, each `frame_bytes` long, of which
    /// the first `sector_bytes` are the sector.
    first_frame: u64,
    frames: u64,
    frame_bytes: u64,
    sector_bytes: u64,
    logical_bytes: u64,
}

/// A CD codec's hunk (cdlz, cdzl or cdzs) whose sector data's declared length fits in it.
fn check_cd_hunk(
    chd: &mut ::chd::Chd<SourceReader>,
    hunk: u32,
    scratch: &mut Vec<u8>,
) -> Result<(), String> {
    let hunk_bytes = chd.header().hunk_size() as usize;
    // A cdlz, cdzl or cdzs hunk starts with a bit per frame (which sectors need their
    // ECC rebuilt), then the compressed length of the sector data, in 2 bytes (3 for
    // hunks of 64 KiB or more). cdfl (FLAC, then zlib) has no such header.
    let read = chd
        .hunk(hunk)
        .and_then(|mut h| h.read_raw_in(scratch))
        .map_err(|e| e.to_string())?;
    let frames = hunk_bytes / CD_FRAME as usize;
    let length_bytes = if hunk_bytes < 65536 { 2 } else { 3 };
    let head = frames.div_ceil(8) + length_bytes;
    let data = &scratch[..read.min(scratch.len())];
    if data.len() < head {
        return Err(format!(
            "{} compressed bytes, less than the {head}-byte CD hunk header",
            data.len()
        ));
    }
    let declared = data[head - length_bytes..head]
        .iter()
        .fold(0usize, |n, &b| n << 8 | b as usize);
    if head + declared > data.len() {
        return Err(format!(
            "its sector data claims {declared} compressed bytes; the hunk has {}",
            data.len() - head
        ));
    }
    Ok(())
}

/// What the crate would trust in a hunk's map entry and compressed bytes, checked first: its
/// CD codecs slice the hunk by a length the hunk itself declares, and a hunk that copies
/// another is followed by recursion, so a lying hunk would panic or recurse without end
/// (both found by the chd fuzz target).
fn guard_hunk(
    chd: &mut ::chd::Chd<SourceReader>,
    hunk: u32,
    scratch: &mut Vec<u8>,
) -> Result<(), String> {
    use ::chd::header::CodecType;
    use ::chd::map::{CompressionTypeV5, MapEntry};
    let codecs = chd.header().codecs();
    let (kind, source) = match chd.map().get_entry(hunk as usize) {
        Some(MapEntry::V5Compressed(entry)) => (
            entry.hunk_type().map_err(|e| e.to_string())?,
            entry.block_offset(),
        ),
        Some(_) => return Ok(()),
        None => return Err("not in the map".into()),
    };
    let codec = match kind {
        CompressionTypeV5::CompressionSelf => {
            // A copy of an earlier hunk (its number where an offset would be), which must
            // hold data of its own.
            let direct = match chd.map().get_entry(source as usize) {
                Some(MapEntry::V5Compressed(e)) => !matches!(
                    e.hunk_type(),
                    Ok(CompressionTypeV5::CompressionSelf | CompressionTypeV5::CompressionParent)
                ),
                Some(_) => true,
                None => false,
            };
            return if source < hunk as u64 && direct {
                guard_hunk(chd, source as u32, scratch)
            } else {
                Err(format!(
                    "a copy of hunk {source}, which is not an earlier hunk with data of its own"
                ))
            };
        }
        CompressionTypeV5::CompressionType0 => codecs[0],
        CompressionTypeV5::CompressionType1 => codecs[1],
        CompressionTypeV5::CompressionType2 => codecs[2],
        CompressionTypeV5::CompressionType3 => codecs[3],
        _ => return Ok(()),
    };
    if matches!(
        codec,
        Some(CodecType::LzmaCdV5 | CodecType::ZLibCdV5 | CodecType::ZstdCdV5)
    ) {
        check_cd_hunk(chd, hunk, scratch)?;
    }
    Ok(())
}

impl ChdSectors {
    /// Copy bytes `at..at + out.len()` of the CHD's logical data (within one hunk).
    fn logical(&self, at: u64, out: &mut [u8]) -> Result<(), String> {
        if at + out.len() as u64 > self.logical_bytes {
            return Err(format!(
                "byte {at} of its data lies past its {} bytes",
                self.logical_bytes
            ));
        }
        let hunk = (at / self.hunk_bytes) as u32;
        let within = (at % self.hunk_bytes) as usize;
        let mut cache = self.cache.borrow_mut();
        if !cache.iter().any(|(n, _)| *n == hunk) {
            let mut chd = self.chd.borrow_mut();
            let mut bytes = chd.get_hunksized_buffer();
            let mut compressed = self.compressed.borrow_mut();
            guard_hunk(&mut chd, hunk, &mut compressed)
                .map_err(|e| format!("{}: hunk {hunk}: {e}", self.name))?;
            guarded(|| {
                chd.hunk(hunk)
                    .and_then(|mut h| h.read_hunk_in(&mut compressed, &mut bytes))
                    .map_err(|e| e.to_string())
            })
            .map_err(|e| format!("{}: hunk {hunk} cannot be decompressed: {e}", self.name))?;
            if cache.len() >= CACHED_HUNKS {
                cache.remove(0);
            }
            cache.push((hunk, bytes));
        }
        let (_, bytes) = cache
            .iter()
            .find(|(n, _)| *n == hunk)
            .expect("the hunk was cached just above");
        out.copy_from_slice(&bytes[within..within + out.len()]);
        Ok(())
    }
}

impl ByteSource for ChdSectors {
    fn len(&self) -> u64 {
        self.frames * self.sector_bytes
    }
    fn forget(&self) {
        self.cache.borrow_mut().clear();
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|e| e > self.len())
        {
            return Err(format!(
                "{} bytes at byte {offset} run past the track's end ({} bytes)",
                buf.len(),
                self.len()
            ));
        }
        let mut done = 0usize;
        while done < buf.len() {
            let at = offset + done as u64;
            let (sector, within) = (at / self.sector_bytes, at % self.sector_bytes);
            let logical = (self.first_frame + sector) * self.frame_bytes + within;
            // Up to the sector's end, and the hunk's.
            let n = (self.sector_bytes - within)
                .min(self.hunk_bytes - logical % self.hunk_bytes)
                .min((buf.len() - done) as u64) as usize;
            self.logical(logical, &mut buf[done..done + n])?;
            done += n;
        }
        Ok(())
    }
}

/// A call into the chd crate, whose decoders index by what the file says without checking
/// it everywhere (its map's Huffman tables among them): natively a panic there is caught
/// and becomes this file's error. In wasm a panic cannot be caught; the page gives each CHD
/// a worker of its own, so that only that image's listing fails (docs/formats/containers.md).
fn guarded<T>(call: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).unwrap_or_else(|panic| {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!("the chd crate failed on it ({why})"))
        })
    }
    #[cfg(target_arch = "wasm32")]
    {
        call()
    }
}

/// Open a CHD image of a CD (its first data track) or a DVD as a disc.
pub fn open(
    name: &str,
    source: Rc<dyn ByteSource>,
    limits: Limits,
    progress: Progress,
) -> Result<IsoContainer, ContainerError> {
    IsoContainer::open(
        name,
        volume(name, source)?,
        SectorMode::Cooked,
        0,
        ContainerKind::Chd,
        limits,
        progress,
    )
}

/// The track metadata (CHT2 and CHTR) of a CD's CHD, as text; none for a DVD's.
fn track_metadata(
    name: &str,
    chd: &mut ::chd::Chd<SourceReader>,
) -> Result<Vec<String>, ContainerError> {
    let mut tracks = Vec::new();
    let mut refs = Vec::new();
    for r in chd.metadata_refs().take(MAX_METADATA) {
        refs.push(r.map_err(|e| error(name, None, format!("its metadata: {e}")))?);
    }
    for r in refs {
        let m = r
            .read(chd.inner())
            .map_err(|e| error(name, None, format!("its metadata: {e}")))?;
        if [b"CHT2", b"CHTR"]
            .iter()
            .any(|t| m.metatag == u32::from_be_bytes(**t))
        {
            tracks.push(
                String::from_utf8_lossy(&m.value)
                    .trim_end_matches('\0')
                    .to_string(),
            );
        }
    }
    Ok(tracks)
}

/// A CD's CHD (its `tracks` metadata) as its first data track's 2048-byte sectors.
fn cd_volume(
    name: &str,
    chd: ::chd::Chd<SourceReader>,
    tracks: &[String],
    hunk_bytes: u64,
    unit_bytes: u64,
    logical_bytes: u64,
) -> Result<Rc<dyn ByteSource>, ContainerError> {
    if unit_bytes != CD_FRAME {
        return Err(error(
            name,
            None,
            format!("a CD whose frames are {unit_bytes} bytes: expected {CD_FRAME}"),
        ));
    }
    let track = data_track(name, tracks)?;
    let available = (logical_bytes / CD_FRAME).saturating_sub(track.first_frame);
    if track.frames > available {
        return Err(error(
            name,
            None,
            format!(
                "track {} claims {} frames from frame {}; the image holds {available} more",
                track.number, track.frames, track.first_frame
            ),
        ));
    }
    let mode = track.mode;
    let s = ChdSectors::new(
        name,
        chd,
        hunk_bytes,
        track.first_frame,
        track.frames,
        CD_FRAME,
        track.sector_bytes,
        logical_bytes,
    );
    if mode != SectorMode::Cooked {
        let (view, _) = SectorView::new(Rc::new(s), mode, 0);
        return Ok(Rc::new(view));
    }
    Ok(Rc::new(s))
}

/// A CHD's data as a disc's 2048-byte sectors (a CD's first data track, or a DVD's).
pub fn volume(
    name: &str,
    source: Rc<dyn ByteSource>,
) -> Result<Rc<dyn ByteSource>, ContainerError> {
    check_header(name, &*source)?;
    let mut chd =
        guarded(|| ::chd::Chd::open(SourceReader::new(source), None).map_err(|e| e.to_string()))
            .map_err(|e| error(name, Some(0), format!("not a readable CHD: {e}")))?;
    let (hunk_bytes, unit_bytes, logical_bytes) = (
        chd.header().hunk_size() as u64,
        chd.header().unit_bytes() as u64,
        chd.header().logical_bytes(),
    );
    let tracks = track_metadata(name, &mut chd)?;
    if !tracks.is_empty() {
        return cd_volume(name, chd, &tracks, hunk_bytes, unit_bytes, logical_bytes);
    }
    // A DVD (or a hard disk image): its data is the volume, in 2048-byte sectors.
    if unit_bytes != USER_SECTOR {
        return Err(error(
            name,
            None,
            format!("neither a CD (no track metadata) nor a DVD (units of {unit_bytes} bytes)"),
        ));
    }
    Ok(Rc::new(ChdSectors::new(
        name,
        chd,
        hunk_bytes,
        0,
        logical_bytes / USER_SECTOR,
        USER_SECTOR,
        USER_SECTOR,
        logical_bytes,
    )))
}

impl ChdSectors {
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        chd: ::chd::Chd<SourceReader>,
        hunk_bytes: u64,
        first_frame: u64,
        frames: u64,
        frame_bytes: u64,
        sector_bytes: u64,
        logical_bytes: u64,
    ) -> ChdSectors {
        ChdSectors {
            name: name.to_string(),
            chd: RefCell::new(chd),
            cache: RefCell::new(Vec::new()),
            compressed: RefCell::new(Vec::new()),
            hunk_bytes,
            first_frame,
            frames,
            frame_bytes,
            sector_bytes,
            logical_bytes,
        }
    }
}

/// Whether these first bytes are a CHD's.
pub fn is_chd(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_data_track_starts_after_the_padded_audio_before_it_and_its_stored_pregap() {
        let tracks = [
            "TRACK:1 TYPE:AUDIO SUBTYPE:NONE FRAMES:1001 PREGAP:0 PGTYPE:MODE1 PGSUB:NONE POSTGAP:0".to_string(),
            "TRACK:2 TYPE:MODE2_RAW SUBTYPE:NONE FRAMES:500 PREGAP:150 PGTYPE:VMODE2_RAW PGSUB:NONE POSTGAP:0".to_string(),
        ];
        let t = data_track("x.chd", &tracks).unwrap();
        assert_eq!(
            t,
            DataTrack {
                number: 2,
                first_frame: 1004 + 150,
                frames: 350,
                sector_bytes: 2352,
                mode: SectorMode::Mode2
            }
        );
        let cooked = data_track(
            "x.chd",
            &["TRACK:1 TYPE:MODE1 SUBTYPE:NONE FRAMES:10".to_string()],
        )
        .unwrap();
        assert_eq!(
            (cooked.first_frame, cooked.sector_bytes, cooked.mode),
            (0, 2048, SectorMode::Cooked)
        );
    }

    #[test]
    fn tracks_it_cannot_read_are_errors_naming_them() {
        let only_audio = data_track(
            "a.chd",
            &["TRACK:1 TYPE:AUDIO SUBTYPE:NONE FRAMES:10".to_string()],
        )
        .unwrap_err()
        .to_string();
        assert!(only_audio.contains("no data track"), "{only_audio}");
        let mixed = data_track(
            "m.chd",
            &["TRACK:1 TYPE:MODE2_FORM_MIX SUBTYPE:NONE FRAMES:10".to_string()],
        )
        .unwrap_err()
        .to_string();
        assert!(mixed.contains("track 1 is MODE2_FORM_MIX"), "{mixed}");
        assert!(data_track("n.chd", &["TYPE:MODE1 FRAMES:10".to_string()]).is_err());
        assert!(data_track(
            "g.chd",
            &["TRACK:1 TYPE:MODE1 FRAMES:10 PREGAP:11 PGTYPE:VMODE1".to_string()]
        )
        .is_err());
    }

    #[test]
    fn headers_that_claim_more_than_the_file_holds_are_refused_before_any_allocation() {
        let mut h = vec![0u8; 200];
        h[..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&124u32.to_be_bytes());
        h[12..16].copy_from_slice(&5u32.to_be_bytes());
        h[32..40].copy_from_slice(&(1u64 << 33).to_be_bytes());
        h[40..48].copy_from_slice(&124u64.to_be_bytes());
        h[56..60].copy_from_slice(&19584u32.to_be_bytes());
        h[60..64].copy_from_slice(&2448u32.to_be_bytes());
        // An uncompressed map of 438,602 hunks in a 200-byte file.
        let e = check_header("big.chd", &h).unwrap_err().to_string();
        assert!(e.contains("lies past the file's end"), "{e}");
        let mut v4 = h.clone();
        v4[12..16].copy_from_slice(&4u32.to_be_bytes());
        assert!(check_header("v4.chd", &v4)
            .unwrap_err()
            .to_string()
            .contains("CHD version 4"));
        let mut huge = h.clone();
        huge[56..60].copy_from_slice(&(64u32 << 20).to_be_bytes());
        assert!(check_header("h.chd", &huge)
            .unwrap_err()
            .to_string()
            .contains("hunks of"));
        let mut compressed = h;
        compressed[16..20].copy_from_slice(b"cdlz");
        compressed[124..128].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(check_header("m.chd", &compressed)
            .unwrap_err()
            .to_string()
            .contains("a map of"));
        assert!(check_header("short.chd", &b"MComprHD".to_vec()).is_err());
    }
}
