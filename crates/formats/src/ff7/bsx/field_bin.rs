//! FIELD.BIN, the field module's executable, and the tables the field engine reads from it
//! for models: the 240 normals polygons are lit by, the sine table bone rotations are built
//! from, and the eye and mouth tables that say which FIELD.TDB image a face shows. On the
//! disc it is gzip-compressed behind an 8-byte header; unpacked it is one known module of
//! 264,008 bytes, loaded at RAM 0x800A0000 (docs/formats/bsx.md, "FIELD.BIN").

use super::raw::Reader;
use crate::findings::ParseError;
use std::io::Read;

/// Length of the unpacked module whose tables the offsets below locate.
pub const MODULE_LEN: usize = 264_008;
/// Where the engine loads the module: a file offset is a RAM address less this.
pub const LOAD_ADDRESS: u32 = 0x800A_0000;
/// The gzip magic and its deflate method byte.
const GZIP: [u8; 3] = [0x1F, 0x8B, 0x08];
/// Bytes before the gzip stream in the disc's file: `u32` unpacked length, `u32` not known.
pub const DISC_HEADER: usize = 8;

/// A table of the module: where it starts, its entries and their width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    pub at: usize,
    pub entries: usize,
    pub width: usize,
}

impl Table {
    /// Bytes the table takes.
    pub const fn bytes(&self) -> usize {
        self.entries * self.width
    }
    pub const fn end(&self) -> usize {
        self.at + self.bytes()
    }
    /// The RAM address the engine reads the table at.
    pub fn ram(&self) -> u32 {
        LOAD_ADDRESS + self.at as u32
    }
}

/// Per map id, where its files lie on the disc: `u32 sector, u32 size` of its .DAT, .MIM and
/// .BSX (RAM 0x800DA5B8). Ids 1–64 are the world map's slots; 787 ids in all (the words
/// after them are another variable). A gateway names the field it leads to by this id.
pub const MAPS: Table = Table {
    name: "field table",
    at: 0x3A5B8,
    entries: 787,
    width: 24,
};
/// Map ids up to this one are the world map's slots (its files are elsewhere).
pub const WORLD_MAP_SLOTS: u16 = 64;
/// Sine and cosine per 256th of a turn, `s16 sin, s16 cos` in 4.12 (RAM 0x800DF120).
pub const SINES: Table = Table {
    name: "sine table",
    at: 0x3F120,
    entries: 256,
    width: 4,
};
/// Unit normals, `s16 x, y, z, pad` in 4.12 (RAM 0x800DF520): it ends where the next
/// variable starts, at 0x800DFCA0.
pub const NORMALS: Table = Table {
    name: "normal table",
    at: 0x3F520,
    entries: 240,
    width: 8,
};
/// Per face id, the TDB image of each eye slot (RAM 0x800DFCA4).
pub const EYES: Table = Table {
    name: "eye table",
    at: 0x3FCA4,
    entries: 34,
    width: 7,
};
/// Per face id, the TDB image of each mouth slot (RAM 0x800DFD94).
pub const MOUTHS: Table = Table {
    name: "mouth table",
    at: 0x3FD94,
    entries: 34,
    width: 3,
};
/// In the order they lie in the module.
pub const TABLES: [Table; 5] = [MAPS, SINES, NORMALS, EYES, MOUTHS];

/// A normal's length in 4.12 may be this far from 4096 (the real table's run 4094.6–4095.8).
const NORMAL_SLACK: f64 = 16.0;

/// How the file was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    /// The module itself.
    Unpacked,
    /// A gzip stream, after the disc's 8-byte header (`u32` unpacked length, `u32` not
    /// known) or alone (as a gzip tool writes it).
    Gzip { header: bool, unknown: u32 },
}

/// The tables the field engine reads for models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldTables {
    /// 256 entries: the table's 240, then the bytes after it read as the engine would read
    /// an index past the table (no file uses one).
    pub normals: Vec<[i16; 4]>,
    pub sines: Vec<[i16; 2]>,
    pub eyes: Vec<[u8; 7]>,
    pub mouths: Vec<[u8; 3]>,
    /// Per map id, its files on the disc ([`MAPS`]).
    pub maps: Vec<MapFiles>,
}

/// Where a map id's files lie on the disc: (sector, size in bytes as stored) of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapFiles {
    pub dat: [u32; 2],
    pub mim: [u32; 2],
    pub bsx: [u32; 2],
}

impl MapFiles {
    /// Whether a field whose .DAT (and .MIM, where known) have these sizes as stored is this
    /// map's: the sizes are what the disc's files are known by here (the table names no file).
    pub fn fits(&self, dat: u64, mim: Option<u64>) -> bool {
        self.dat[1] as u64 == dat && mim.is_none_or(|m| self.mim[1] as u64 == m)
    }
}

/// The module's own words at its start: `u32 0`, then RAM pointers into the module (the
/// field module's data begins with a table of its own addresses).
fn module_head(head: &[u8]) -> bool {
    let word = |k: usize| {
        head.get(4 * k..4 * k + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let inside = |w: Option<u32>| {
        w.is_some_and(|w| (LOAD_ADDRESS..LOAD_ADDRESS + MODULE_LEN as u32).contains(&w))
    };
    word(0) == Some(0) && inside(word(2)) && inside(word(3))
}

/// Whether the first bytes (16 are enough) and the size say FIELD.BIN, by content alone: the
/// unpacked module (its length and its first words), or the disc's form (the unpacked length,
/// then a gzip stream at byte 8).
pub fn looks_like(head: &[u8], size: u64) -> bool {
    let disc = head.len() >= DISC_HEADER + 3
        && u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize == MODULE_LEN
        && head[DISC_HEADER..DISC_HEADER + 3] == GZIP;
    disc || (size == MODULE_LEN as u64 && module_head(head))
}

/// The name the disc gives the module (FIELD.BIN, or FIELD.BIN.GZ as a gzip tool names it).
pub fn named(file_name: &str) -> bool {
    file_name.eq_ignore_ascii_case("FIELD.BIN") || file_name.eq_ignore_ascii_case("FIELD.BIN.GZ")
}

/// Counts the bytes a reader took, so that an error in a stream can say where it stopped.
struct Counted<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Read for Counted<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = out.len().min(self.bytes.len() - self.at);
        out[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The module from the file as stored: unpacked as it is, or the gzip stream inflated (at
/// most [`MODULE_LEN`] + 1 bytes are inflated, so a stream that would go on is found
/// without inflating it all).
pub fn unpack(file: &[u8]) -> Result<(Packing, Option<Vec<u8>>), ParseError> {
    let starts_gzip = |at: usize| file.get(at..at + 3) == Some(&GZIP[..]);
    let (header, at) = if starts_gzip(0) {
        (false, 0)
    } else if file.len() >= DISC_HEADER + 3 && starts_gzip(DISC_HEADER) {
        (true, DISC_HEADER)
    } else {
        if file.len() == MODULE_LEN && module_head(file) {
            return Ok((Packing::Unpacked, None));
        }
        let head: Vec<String> = file.iter().take(12).map(|b| format!("{b:02X}")).collect();
        let what = if file.is_empty() {
            "the file has 0 bytes".to_string()
        } else {
            format!("{} bytes starting {}", file.len(), head.join(" "))
        };
        return Err(ParseError::new(0, "", format!("expected the field module: a gzip stream (1F 8B 08), alone or after an 8-byte header, or the unpacked module of {MODULE_LEN} bytes starting with 00 00 00 00 and RAM pointers into it; {what}")));
    };
    let word = |k: usize| {
        u32::from_le_bytes([
            file[4 * k],
            file[4 * k + 1],
            file[4 * k + 2],
            file[4 * k + 3],
        ])
    };
    let (declared, unknown) = if header {
        (Some(word(0) as usize), word(1))
    } else {
        (None, 0)
    };
    let mut counted = Counted { bytes: file, at };
    let mut module = Vec::with_capacity(MODULE_LEN);
    let result = flate2::read::GzDecoder::new(&mut counted)
        .take(MODULE_LEN as u64 + 1)
        .read_to_end(&mut module);
    if let Err(e) = result {
        let cut = e.kind() == std::io::ErrorKind::UnexpectedEof;
        let message = if cut {
            format!("the gzip stream from byte {at} ends before its end: the file is cut short after {} unpacked bytes", module.len())
        } else {
            format!(
                "the gzip stream from byte {at} is not readable after {} unpacked bytes: {e}",
                module.len()
            )
        };
        return Err(ParseError::new(counted.at, "gzip", message));
    }
    if module.len() != MODULE_LEN {
        let got = if module.len() > MODULE_LEN {
            format!("more than {MODULE_LEN}")
        } else {
            format!("only {}", module.len())
        };
        return Err(ParseError::new(
            at,
            "gzip",
            format!(
                "the gzip stream unpacks to {got} bytes: expected the field module's {MODULE_LEN}"
            ),
        ));
    }
    if let Some(declared) = declared.filter(|&d| d != MODULE_LEN) {
        return Err(ParseError::new(0, "header", format!("the header says {declared} unpacked bytes, expected the field module's {MODULE_LEN}")));
    }
    if !module_head(&module) {
        return Err(ParseError::new(at, "gzip", "the gzip stream unpacks to 264,008 bytes that do not start as the field module (00 00 00 00, then RAM pointers into it)"));
    }
    Ok((Packing::Gzip { header, unknown }, Some(module)))
}

impl FieldTables {
    /// The tables of the unpacked module, each checked to be what the engine reads: unit
    /// normals with a zero pad, a sine table that starts (0, 4096) and turns a quarter at 64,
    /// face tables of image numbers.
    pub fn parse(module: &[u8]) -> Result<FieldTables, ParseError> {
        if module.len() != MODULE_LEN {
            return Err(ParseError::new(
                0,
                "",
                format!(
                    "expected the field module's {MODULE_LEN} bytes, the file has {}",
                    module.len()
                ),
            ));
        }
        let r = Reader { bytes: module };
        let s16 = |b: &[u8], k: usize| i16::from_le_bytes([b[2 * k], b[2 * k + 1]]);
        // Past the 240 entries, up to index 255: what an index past the table would read.
        let nb = r.slice(NORMALS.at, 8 * 256, NORMALS.name, "the normal table")?;
        let normals: Vec<[i16; 4]> = nb
            .chunks_exact(8)
            .map(|e| [s16(e, 0), s16(e, 1), s16(e, 2), s16(e, 3)])
            .collect();
        for (k, n) in normals.iter().take(NORMALS.entries).enumerate() {
            let length = (n[..3].iter().map(|&c| (c as f64).powi(2)).sum::<f64>()).sqrt();
            if (length - 4096.0).abs() > NORMAL_SLACK || n[3] != 0 {
                return Err(ParseError::new(NORMALS.at + 8 * k, NORMALS.name, format!("normal {k} is ({}, {}, {}) pad {}: expected a 4.12 unit vector (length 4096 ± {NORMAL_SLACK}) and a zero pad; this is not the field module whose tables relicview knows", n[0], n[1], n[2], n[3])));
            }
        }
        let sb = r.slice(SINES.at, SINES.bytes(), SINES.name, "the sine table")?;
        let sines: Vec<[i16; 2]> = sb.chunks_exact(4).map(|e| [s16(e, 0), s16(e, 1)]).collect();
        for (k, want) in [
            (0usize, [0i16, 4096]),
            (64, [4096, 0]),
            (128, [0, -4096]),
            (192, [-4096, 0]),
        ] {
            if sines[k] != want {
                return Err(ParseError::new(SINES.at + 4 * k, SINES.name, format!("entry {k} is ({}, {}), expected ({}, {}): this is not the field module whose tables relicview knows", sines[k][0], sines[k][1], want[0], want[1])));
            }
        }
        let eyes = r
            .slice(EYES.at, EYES.bytes(), EYES.name, "the eye table")?
            .chunks_exact(7)
            .map(|e| e.try_into().expect("7 bytes"))
            .collect();
        let mouths = r
            .slice(MOUTHS.at, MOUTHS.bytes(), MOUTHS.name, "the mouth table")?
            .chunks_exact(3)
            .map(|e| e.try_into().expect("3 bytes"))
            .collect();
        let u32s = |b: &[u8], k: usize| {
            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        };
        let maps = r
            .slice(MAPS.at, MAPS.bytes(), MAPS.name, "the field table")?
            .chunks_exact(MAPS.width)
            .map(|e| MapFiles {
                dat: [u32s(e, 0), u32s(e, 1)],
                mim: [u32s(e, 2), u32s(e, 3)],
                bsx: [u32s(e, 4), u32s(e, 5)],
            })
            .collect();
        Ok(FieldTables {
            normals,
            sines,
            eyes,
            mouths,
            maps,
        })
    }

    /// The map ids whose .DAT (and .MIM, where known) have these sizes as stored.
    pub fn maps_fitting(&self, dat: u64, mim: Option<u64>) -> Vec<u16> {
        self.maps
            .iter()
            .enumerate()
            .filter(|(_, m)| m.fits(dat, mim))
            .map(|(id, _)| id as u16)
            .collect()
    }

    /// Normal `k` (x, y, z in 4.12).
    pub fn normal(&self, k: u8) -> [i16; 3] {
        let n = self.normals[k as usize];
        [n[0], n[1], n[2]]
    }

    /// (sin, cos) of an angle of 256 steps a turn, in 4.12.
    pub fn sin_cos(&self, a: u8) -> (i32, i32) {
        let [s, c] = self.sines[a as usize];
        (s as i32, c as i32)
    }

    /// The TDB images a face shows in eye slot `eye` and mouth slot `mouth`, when the face
    /// has a row: [left eye, right eye, mouth]. Each eye is looked up on its own (the engine
    /// keeps a slot per eye).
    pub fn face_images(&self, face: u8, eyes: [usize; 2], mouth: usize) -> Option<[u8; 3]> {
        let (e, m) = (
            self.eyes.get(face as usize)?,
            self.mouths.get(face as usize)?,
        );
        Some([*e.get(eyes[0])?, *e.get(eyes[1])?, *m.get(mouth)?])
    }
}

/// The slots a face loads with and shows: eyes open (1, 1) and mouth slot 0; a blink is
/// eye slots (2, 2).
pub const OPEN_EYES: ([usize; 2], usize) = ([1, 1], 0);
pub const CLOSED_EYES: ([usize; 2], usize) = ([2, 2], 0);

#[cfg(test)]
mod tests {
    use super::*;

    fn real() -> Vec<u8> {
        crate::ff7::bsx::tests::shared("FIELD.BIN_u")
    }

    #[test]
    fn the_real_module_holds_the_tables_where_the_engine_reads_them() {
        let module = real();
        assert_eq!(module.len(), MODULE_LEN);
        assert!(
            looks_like(&module[..16], module.len() as u64),
            "recognised by its first words and length"
        );
        let t = FieldTables::parse(&module).unwrap();
        assert_eq!(NORMALS.ram(), 0x800D_F520);
        assert_eq!(
            NORMALS.end() as u32 + LOAD_ADDRESS,
            0x800D_FCA0,
            "240 entries end where the next variable starts"
        );
        // The worked lengths: every normal within 4094.6–4095.8.
        for n in &t.normals[..240] {
            let l = (n[..3].iter().map(|&c| (c as f64).powi(2)).sum::<f64>()).sqrt();
            assert!((4094.0..4096.5).contains(&l), "{n:?} {l}");
        }
        // The sine table is the game's, not round(4096·sin): it differs by up to 2.
        let worst = (0..256)
            .map(|a| {
                (t.sines[a][0] as f64
                    - (4096.0 * (a as f64 * std::f64::consts::TAU / 256.0).sin()).round())
                .abs()
            })
            .fold(0.0, f64::max);
        assert!(worst > 0.0 && worst <= 2.0, "{worst}");
        // Faces 0–9 show images of their own eight (8f..8f+8), or 126 (empty); face 33 only 126.
        for f in 0..10u8 {
            let images: Vec<u8> = t.eyes[f as usize]
                .iter()
                .chain(&t.mouths[f as usize])
                .copied()
                .filter(|&i| i != 126)
                .collect();
            assert!(
                images.iter().all(|&i| (8 * f..8 * f + 8).contains(&i)),
                "face {f}: {images:?}"
            );
        }
        assert!(t.eyes[33].iter().chain(&t.mouths[33]).all(|&i| i == 126));
        assert_eq!(
            t.face_images(0, OPEN_EYES.0, OPEN_EYES.1),
            Some([0, 0, 126])
        );
        assert_eq!(
            t.face_images(0, CLOSED_EYES.0, CLOSED_EYES.1),
            Some([1, 1, 126])
        );
        assert_eq!(
            t.face_images(34, OPEN_EYES.0, OPEN_EYES.1),
            None,
            "no row past 33"
        );
    }

    #[test]
    fn gzip_alone_or_behind_the_disc_header_unpacks_and_anything_else_says_why() {
        use std::io::Write;
        let module = real();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&module).unwrap();
        let gz = gz.finish().unwrap();
        let (packing, out) = unpack(&gz).unwrap();
        assert_eq!(
            (packing, out.as_deref() == Some(&module[..])),
            (
                Packing::Gzip {
                    header: false,
                    unknown: 0
                },
                true
            )
        );
        let mut disc = (MODULE_LEN as u32).to_le_bytes().to_vec();
        disc.extend(7u32.to_le_bytes());
        disc.extend(&gz);
        assert!(looks_like(&disc[..16], disc.len() as u64));
        assert_eq!(
            unpack(&disc).unwrap().0,
            Packing::Gzip {
                header: true,
                unknown: 7
            }
        );
        // Cut short: the error is at the end of what there was, and says so.
        let cut = unpack(&gz[..gz.len() / 2]).unwrap_err();
        assert!(cut.message.contains("cut short"), "{cut}");
        assert_eq!(cut.offset, gz.len() / 2);
        // A header that disagrees with the stream.
        let mut wrong = disc.clone();
        wrong[0] ^= 1;
        assert!(unpack(&wrong).unwrap_err().message.contains("header says"));
        // A module of another length, and bytes that are neither.
        let e = unpack(&module[..1000]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("1000 bytes starting 00 00 00 00"), "{e}");
        let mut small = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        small.write_all(&module[..5000]).unwrap();
        assert!(unpack(&small.finish().unwrap())
            .unwrap_err()
            .message
            .contains("only 5000 bytes"));
        assert!(FieldTables::parse(&vec![0; MODULE_LEN])
            .unwrap_err()
            .message
            .contains("normal 0"));
    }
}
