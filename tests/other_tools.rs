//! Archives as other tools write them, read as 7-Zip, Python's zipfile and the kernel's
//! isofs read them: a file in several ISO 9660 extents, Joliet and Rock Ridge names,
//! Zstandard zip entries from streaming encoders, the 7z archives 7-Zip makes in its less
//! common shapes. Every archive here is made by the tool named, or by a documented edit of
//! one (docs/formats/containers.md).

mod common;

use common::{run, scratch, write_tree};
use relicview::containers::{self, hosted, Container, ContainerKind, Limits};
use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::rc::Rc;

/// These tests open 7z archives as the CLI does: under its allocator (containers' ceiling.rs).
#[global_allocator]
static ALLOCATOR: relicview::containers::ceiling::CeilingAllocator =
    relicview::containers::ceiling::CeilingAllocator;

/// Bytes no two files here share: a counter through a multiplier, from `seed`.
fn pattern(seed: u32, len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| {
            (i.wrapping_mul(2_654_435_761)
                .wrapping_add(seed.wrapping_mul(40_503))
                >> 13) as u8
        })
        .collect()
}

fn open_file(path: &Path) -> Box<dyn Container> {
    let source: Rc<dyn containers::ByteSource> =
        Rc::new(containers::FileBytes::open(path).unwrap());
    let kind = containers::sniff_source(&path.to_string_lossy(), &*source)
        .expect("sniffed as a container");
    containers::open(
        &path.file_name().unwrap().to_string_lossy(),
        kind,
        source,
        Limits::default(),
    )
    .unwrap()
}

fn names(c: &dyn Container) -> Vec<&str> {
    c.entries().iter().map(|e| e.path.as_str()).collect()
}

/// The byte of the directory record whose name is `name` (its length byte at +32).
fn record_of(image: &[u8], name: &[u8]) -> usize {
    (33..image.len() - name.len())
        .find(|&i| image[i - 1] as usize == name.len() && &image[i..i + name.len()] == name)
        .unwrap()
        - 33
}

/// A directory record's extent set to `sector` (both byte orders, as ECMA-119 stores it).
fn set_extent(image: &mut [u8], record: usize, sector: u32) {
    image[record + 2..record + 6].copy_from_slice(&sector.to_le_bytes());
    image[record + 6..record + 10].copy_from_slice(&sector.to_be_bytes());
}

const MULTI_EXTENT: u8 = 0x80;

/// An xorriso image of A.BIN, B.BIN and C.TXT whose A.BIN record is made the first of two
/// extents by the edit ECMA-119 describes: the multi-extent flag (bit 7 of its flags) on
/// it, and B.BIN's record, which follows it, renamed A.BIN. `edit` changes it further.
fn two_extent_image(
    dir: &Path,
    edit: impl Fn(&mut Vec<u8>, usize, usize),
) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let tree = dir.join("tree");
    let (a, b) = (pattern(1, 5000), pattern(2, 3000));
    write_tree(
        &tree,
        &BTreeMap::from([
            ("A.BIN".into(), a.clone()),
            ("B.BIN".into(), b.clone()),
            ("C.TXT".into(), b"the rest".to_vec()),
        ]),
    );
    let iso = dir.join("made.iso");
    run(Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-iso-level", "3", "-o"])
        .arg(&iso)
        .arg(&tree));
    let mut image = std::fs::read(&iso).unwrap();
    let (ra, rb) = (record_of(&image, b"A.BIN;1"), record_of(&image, b"B.BIN;1"));
    assert!(
        rb > ra && rb == ra + image[ra] as usize,
        "xorriso writes B.BIN's record right after A.BIN's"
    );
    edit(&mut image, ra, rb);
    (image, a, b)
}

#[test]
fn a_file_in_two_iso_extents_reads_both_in_order_and_from_a_host_by_its_extents() {
    let dir = scratch("extents");
    let (image, a, b) = two_extent_image(&dir, |img, ra, rb| {
        img[ra + 25] |= MULTI_EXTENT;
        img[rb + 33..rb + 40].copy_from_slice(b"A.BIN;1");
    });
    let c = containers::open(
        "two.iso",
        ContainerKind::Iso,
        Rc::new(image.clone()),
        Limits::default(),
    )
    .unwrap();
    assert_eq!(
        names(&*c),
        ["A.BIN", "C.TXT"],
        "one file of two extents; no name listed twice: {:?}",
        c.problems()
    );
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    let joined = [a.clone(), b.clone()].concat();
    let k = c.find("A.BIN").unwrap();
    assert_eq!(c.entries()[k].size, 8000);
    assert_eq!(
        c.read(k).unwrap(),
        joined,
        "both extents, in their records' order"
    );
    assert_eq!(
        c.head(k, 6000).unwrap(),
        joined[..6000],
        "a head across the join"
    );
    let mut streamed = Vec::new();
    c.stream(k, 4990, 20, &mut |p| {
        let _: () = streamed.extend_from_slice(p);
        Ok(())
    })
    .unwrap();
    assert_eq!(streamed, joined[4990..5010], "a range across the join");
    assert_eq!(c.pieces(k).map(|p| p.len()), Some(2));

    // On a static host: the index names the two extents, and the entry reads back from the
    // ranges it names alone.
    let host = dir.join("host");
    std::fs::create_dir_all(&host).unwrap();
    std::fs::write(host.join("two.iso"), &image).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("index")
        .arg(&host)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(host.join("index.json")).unwrap()).unwrap();
    let disc = &index["containers"][0];
    let row = disc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == "A.BIN")
        .unwrap();
    let extents: Vec<[u64; 2]> =
        serde_json::from_value(row[6].clone()).expect("a seventh column: the extents");
    // The page's reader (the core's) takes every container and row the CLI wrote.
    let read =
        hosted::read_index(&std::fs::read(host.join("index.json")).unwrap(), usize::MAX).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    let entries = &read.index.containers[0].entries;
    assert_eq!(entries.len(), disc["entries"].as_array().unwrap().len());
    let a = entries.iter().find(|e| e.path == "A.BIN").unwrap();
    assert_eq!(a.pieces.as_deref(), Some(&extents[..]));
    assert_eq!(extents.len(), 2);
    assert_eq!(
        extents.iter().map(|e| e[1]).collect::<Vec<_>>(),
        [5000, 3000]
    );
    let pieces = row[5].as_array().unwrap().iter().map(|r| {
        let (at, len) = (
            r[0].as_u64().unwrap() as usize,
            r[1].as_u64().unwrap() as usize,
        );
        (at as u64, image[at..at + len].to_vec())
    });
    let fetched = hosted::Fetched::new(image.len() as u64, pieces.collect()).unwrap();
    let layout: hosted::Layout = serde_json::from_value(disc.clone()).unwrap();
    let wanted = hosted::Wanted {
        at: row[3].as_u64().unwrap(),
        size: 8000,
        crc32: u32::from_str_radix(row[4].as_str().unwrap(), 16).unwrap(),
        pieces: Some(extents.clone()),
    };
    assert_eq!(
        hosted::read_hosted(
            "two.iso",
            "A.BIN",
            &layout,
            fetched,
            wanted,
            Limits::default()
        )
        .unwrap(),
        joined
    );
    let c_row = disc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r[0] == "C.TXT")
        .unwrap();
    assert_eq!(
        c_row.as_array().unwrap().len(),
        6,
        "a file in one extent keeps its six columns"
    );
}

#[test]
fn iso_extents_that_overlap_run_past_the_image_or_never_end_are_errors_that_say_so() {
    let dir = scratch("bad-extents");
    let join = |img: &mut Vec<u8>, ra: usize, rb: usize| {
        img[ra + 25] |= MULTI_EXTENT;
        img[rb + 33..rb + 40].copy_from_slice(b"A.BIN;1");
    };
    // The second extent pointed at the first's sector: the two share bytes.
    let (overlap, _, _) = two_extent_image(&dir, |img, ra, rb| {
        join(img, ra, rb);
        let first = u32::from_le_bytes(img[ra + 2..ra + 6].try_into().unwrap());
        set_extent(img, rb, first);
    });
    let c = containers::open(
        "overlap.iso",
        ContainerKind::Iso,
        Rc::new(overlap),
        Limits::default(),
    )
    .unwrap();
    let k = c.find("A.BIN").unwrap();
    let err = c.read(k).unwrap_err().to_string();
    assert!(
        err.starts_with("overlap.iso: A.BIN at byte ")
            && err.contains("extents 1 and 2 of 2 share bytes"),
        "{err}"
    );
    assert!(c.stream(k, 0, 10, &mut |_| Ok(())).is_err());
    assert_eq!(
        c.read(c.find("C.TXT").unwrap()).unwrap(),
        b"the rest",
        "the rest stays usable"
    );
    // The second extent past the image's end.
    let (past, _, _) = two_extent_image(&dir, |img, ra, rb| {
        join(img, ra, rb);
        set_extent(img, rb, 0x00FF_FFFF);
    });
    let c = containers::open(
        "past.iso",
        ContainerKind::Iso,
        Rc::new(past),
        Limits::default(),
    )
    .unwrap();
    let err = c.read(c.find("A.BIN").unwrap()).unwrap_err().to_string();
    assert!(
        err.contains(&format!("at byte {}", 0x00FF_FFFFu64 * 2048))
            && err.contains("extent 2 of 2: its 3000 bytes lie past the image's end"),
        "{err}"
    );
    // Flagged, and followed by another file: its end is not known, so it is not listed.
    let (cut, _, b) = two_extent_image(&dir, |img, ra, _| img[ra + 25] |= MULTI_EXTENT);
    let c = containers::open(
        "cut.iso",
        ContainerKind::Iso,
        Rc::new(cut),
        Limits::default(),
    )
    .unwrap();
    assert_eq!(names(&*c), ["B.BIN", "C.TXT"]);
    assert_eq!(c.read(0).unwrap(), b);
    let said = c
        .problems()
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        said.contains("cut.iso: A.BIN at byte ")
            && said.contains(
                "its 1 extents end on one that says more follow, and none does: not listed"
            ),
        "{said}"
    );
}

/// Copy `from` to a new file at `to`, leaving runs of zeros as holes: xorriso writes a
/// sparse input's zeros out in full, and the file need not take that room on disk.
fn sparse_copy(mut from: impl Read, to: &Path) -> u64 {
    let mut out = std::fs::File::create(to).unwrap();
    let mut buf = vec![0u8; 4 << 20];
    // Compared as slices (a memcmp even in a debug build: a byte-by-byte look at 4.5 GiB
    // took most of a test's half minute).
    let zeros = vec![0u8; buf.len()];
    let mut total = 0u64;
    loop {
        let mut n = 0;
        while n < buf.len() {
            match from.read(&mut buf[n..]).unwrap() {
                0 => break,
                k => n += k,
            }
        }
        if n == 0 {
            break;
        }
        if buf[..n] == zeros[..n] {
            out.seek(SeekFrom::Current(n as i64)).unwrap();
        } else {
            out.write_all(&buf[..n]).unwrap();
        }
        total += n as u64;
        if n < buf.len() {
            break;
        }
    }
    out.set_len(total).unwrap();
    total
}

#[test]
fn a_file_over_4_gib_that_xorriso_writes_in_two_extents_reads_byte_for_byte() {
    let dir = scratch("4gib");
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    // 4.5 GiB, sparse, with patterned runs at its start, astride the 4 GiB - 2 KiB where
    // xorriso ends the first extent, and at its end.
    const SIZE: u64 = 4608 << 20;
    const SECTION: u64 = (4 << 30) - 2048;
    let big = tree.join("BIG.BIN");
    let mut f = std::fs::File::create(&big).unwrap();
    f.set_len(SIZE).unwrap();
    let marks = [(0u64, 1), (SECTION - 70_000, 2), (SIZE - 100_003, 3)];
    for (at, seed) in marks {
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(&pattern(seed, 100_003.min((SIZE - at) as usize)))
            .unwrap();
    }
    drop(f);
    std::fs::write(tree.join("SMALL.TXT"), b"after the big one").unwrap();
    let iso = dir.join("big.iso");
    let mut xorriso = Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-iso-level", "3", "-o", "-"])
        .arg(&tree)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    sparse_copy(xorriso.stdout.take().unwrap(), &iso);
    assert!(xorriso.wait().unwrap().success());
    let c = open_file(&iso);
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    let k = c.find("BIG.BIN").unwrap();
    assert_eq!(
        c.entries()[k].size,
        SIZE,
        "the whole file, not its first extent"
    );
    assert_eq!(
        c.pieces(k)
            .map(|p| p.iter().map(|e| e[1]).collect::<Vec<_>>()),
        Some(vec![SECTION, SIZE - SECTION]),
        "xorriso's two sections"
    );
    // Every byte, against what was written: zeros but for the marks (made from the marks
    // rather than read back from the sparse file, a fourth pass over 4.5 GiB).
    let marks: Vec<(u64, Vec<u8>)> = marks
        .iter()
        .map(|&(at, seed)| (at, pattern(seed, 100_003.min((SIZE - at) as usize))))
        .collect();
    let mut expected = vec![0u8; containers::CHUNK];
    let mut at = 0u64;
    c.stream(k, 0, SIZE, &mut |piece| {
        let expected = &mut expected[..piece.len()];
        expected.fill(0);
        let end = at + piece.len() as u64;
        for (start, bytes) in &marks {
            let (from, to) = ((*start).max(at), (start + bytes.len() as u64).min(end));
            if from < to {
                expected[(from - at) as usize..(to - at) as usize]
                    .copy_from_slice(&bytes[(from - start) as usize..(to - start) as usize]);
            }
        }
        if piece != &expected[..] {
            return Err(format!("differs in the 64 KiB from byte {at}"));
        }
        at += piece.len() as u64;
        Ok(())
    })
    .unwrap();
    assert_eq!(at, SIZE);
    assert_eq!(
        c.read(c.find("SMALL.TXT").unwrap()).unwrap(),
        b"after the big one"
    );
    drop(c);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A zip of Zstandard entries (method 93): each `(name, frame, original)` written stored by
/// Python's zipfile, its headers then given Zstandard's method, the original's CRC-32 and
/// size (APPNOTE 4.4.5; no tool here writes method 93 itself).
fn zstd_zip(out: &Path, entries: &[(String, std::path::PathBuf, std::path::PathBuf)]) {
    let script = r#"
import sys, zipfile, zlib, struct
out, rest = sys.argv[1], sys.argv[2:]
files = [(rest[i], open(rest[i + 1], 'rb').read(), open(rest[i + 2], 'rb').read()) for i in range(0, len(rest), 3)]
with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
  for name, frame, _ in files: z.writestr(name, frame)
sizes = {n: (len(o), zlib.crc32(o)) for n, _, o in files}
b = bytearray(open(out, 'rb').read())
at = 0
while True:
  sig = b[at:at + 4]
  if sig == b'PK\x03\x04':
    n = struct.unpack_from('<H', b, at + 26)[0]; size, crc = sizes[b[at + 30:at + 30 + n].decode()]
    struct.pack_into('<H', b, at + 8, 93); struct.pack_into('<I', b, at + 14, crc); struct.pack_into('<I', b, at + 22, size)
    at += 30 + n + struct.unpack_from('<H', b, at + 28)[0] + struct.unpack_from('<I', b, at + 18)[0]
  elif sig == b'PK\x01\x02':
    n = struct.unpack_from('<H', b, at + 28)[0]; size, crc = sizes[b[at + 46:at + 46 + n].decode()]
    struct.pack_into('<H', b, at + 10, 93); struct.pack_into('<I', b, at + 16, crc); struct.pack_into('<I', b, at + 24, size)
    at += 46 + n + struct.unpack_from('<H', b, at + 30)[0] + struct.unpack_from('<H', b, at + 32)[0]
  else: break
open(out, 'wb').write(b)
"#;
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(script).arg(out);
    for (name, frame, original) in entries {
        cmd.arg(name).arg(frame).arg(original);
    }
    run(&mut cmd);
}

/// The window a Zstandard frame declares (RFC 8878, 3.1.1.1.2), read here from the
/// format's description: the frame header descriptor, then the window descriptor unless the
/// frame is a single segment.
fn declared_window(frame: &[u8]) -> u64 {
    assert_eq!(frame[..4], [0x28, 0xB5, 0x2F, 0xFD]);
    let descriptor = frame[4];
    assert_eq!(
        descriptor & 0x20,
        0,
        "a frame written from a stream is not a single segment"
    );
    let w = frame[5];
    let log = 10 + (w >> 3) as u32;
    let base = 1u64 << log;
    base + (base / 8) * (w & 7) as u64
}

#[test]
fn zstandard_entries_from_a_streaming_encoder_read_at_every_window_up_to_the_cap_and_beyond_it_say_so(
) {
    let dir = scratch("zstd");
    // A short file and a long one at each window log: the zstd tool compressing from its
    // input stream, as a streaming writer does (no content size; the window by its
    // parameters, not by the input).
    let (short, long) = (pattern(7, 300), pattern(8, 3 << 20));
    std::fs::write(dir.join("short"), &short).unwrap();
    std::fs::write(dir.join("long"), &long).unwrap();
    let mut entries = Vec::new();
    let mut expected = BTreeMap::new();
    for log in [10u32, 17, 21, 24, 27, 28] {
        for (which, bytes) in [("short", &short), ("long", &long)] {
            let frame = dir.join(format!("{which}-{log}.zst"));
            let input = std::fs::File::open(dir.join(which)).unwrap();
            let out = Command::new("zstd")
                .args(["-q", "-c", "-3", &format!("--zstd=wlog={log}")])
                .stdin(input)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                declared_window(&out.stdout),
                1 << log,
                "the zstd tool declares the window it was given"
            );
            std::fs::write(&frame, &out.stdout).unwrap();
            let name = format!("w{log}/{which}.bin");
            entries.push((name.clone(), frame, dir.join(which)));
            expected.insert(name, (log, bytes.clone()));
        }
    }
    let zip = dir.join("zstd.zip");
    zstd_zip(&zip, &entries);
    let c = open_file(&zip);
    assert_eq!(c.entries().len(), expected.len());
    for (i, e) in c.entries().iter().enumerate() {
        let (log, bytes) = &expected[&e.path];
        let window = 1u64 << log;
        if window <= containers::ZSTD_MAX_WINDOW {
            assert_eq!(
                &c.read(i).unwrap_or_else(|err| panic!("{err}")),
                bytes,
                "{}",
                e.path
            );
        } else {
            let err = c.read(i).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("zstd.zip: {} at byte ", e.path))
                    && err.contains(&format!(
                        "asks for a window of {window} bytes: more than the {} read at most",
                        containers::ZSTD_MAX_WINDOW
                    )),
                "{err}"
            );
        }
    }
}

/// 7-Zip's NUMBER (7zFormat.txt): the first byte's leading ones say how many bytes follow,
/// little-endian, below the first byte's remaining bits.
fn number(v: u64) -> Vec<u8> {
    for n in 0..8u32 {
        if v < 1u64 << (7 * n + 7) {
            let first = (0xFFu16 << (8 - n)) as u8 | (v >> (8 * n)) as u8;
            let mut out = vec![first];
            out.extend(&v.to_le_bytes()[..n as usize]);
            return out;
        }
    }
    let mut out = vec![0xFF];
    out.extend(v.to_le_bytes());
    out
}

/// A 7z archive of one file in one folder of one coder whose method id is `method` (Copy
/// is 00; some writers leave it empty), written from 7-Zip's own description of the format
/// (7zFormat.txt, shipped with Debian's 7zip): the signature header, the packed bytes, then
/// a plain header. `name`: the file's name property, or none at all.
fn handmade_7z(data: &[u8], name: Option<&str>, method: &[u8]) -> Vec<u8> {
    let size = number(data.len() as u64);
    let mut h = vec![0x01, 0x04]; // kHeader, kMainStreamsInfo
    h.extend([0x06, 0x00, 0x01, 0x09]); // kPackInfo, PackPos 0, one pack stream, kSize
    h.extend(&size);
    h.push(0x00);
    h.extend([0x07, 0x0B, 0x01, 0x00]); // kUnPackInfo, kFolder, one folder, not external
    h.extend([0x01, method.len() as u8]); // one coder: a simple one, its id's size
    h.extend(method);
    h.push(0x0C); // kCodersUnPackSize
    h.extend(&size);
    h.push(0x00);
    h.extend([0x08, 0x0A, 0x01]); // kSubStreamsInfo, kCRC, all defined
    h.extend(crc32fast::hash(data).to_le_bytes());
    h.extend([0x00, 0x00]); // ends SubStreamsInfo, then StreamsInfo
    h.extend([0x05, 0x01]); // kFilesInfo, one file
    if let Some(name) = name {
        let mut names = vec![0x00]; // not external
        for unit in name.encode_utf16().chain([0]) {
            names.extend(unit.to_le_bytes());
        }
        h.push(0x11); // kName
        h.extend(number(names.len() as u64));
        h.extend(names);
    }
    h.extend([0x00, 0x00]); // ends FilesInfo, then Header
    let mut start = Vec::new();
    start.extend((data.len() as u64).to_le_bytes());
    start.extend((h.len() as u64).to_le_bytes());
    start.extend(crc32fast::hash(&h).to_le_bytes());
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    out.extend(crc32fast::hash(&start).to_le_bytes());
    out.extend(start);
    out.extend(data);
    out.extend(h);
    out
}

#[test]
fn the_7z_archives_7_zip_reads_in_their_less_common_shapes_read_here_too() {
    let dir = scratch("7z-shapes");
    let tree = dir.join("tree");
    let files = BTreeMap::from([
        ("A.TXT".to_string(), b"hello, 7z".to_vec()),
        ("SUB/B.BIN".to_string(), pattern(3, 200_000)),
        ("SUB/C.BIN".to_string(), pattern(4, 70_000)),
    ]);
    write_tree(&tree, &files);
    let seven = |args: &[&str], out: &Path| {
        run(Command::new("7zz")
            .current_dir(&tree)
            .args(["a", "-bd", "-bso0"])
            .args(args)
            .arg(out)
            .args(["A.TXT", "SUB"]))
    };
    let read_all = |c: &dyn Container| {
        c.entries()
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    e.path.clone(),
                    c.read(i).unwrap_or_else(|err| panic!("{err}")),
                )
            })
            .collect::<BTreeMap<_, _>>()
    };
    // Copy, and Deflate64, solid or not: every entry as given.
    for (what, args) in [
        ("Copy", vec!["-m0=Copy"]),
        ("Deflate64, solid", vec!["-m0=Deflate64", "-ms=on"]),
        (
            "Deflate64, a block per file",
            vec!["-m0=Deflate64", "-ms=off"],
        ),
    ] {
        let out = dir.join(format!("{}.7z", what.replace([' ', ','], "")));
        seven(&args, &out);
        let c = open_file(&out);
        assert_eq!(c.kind(), ContainerKind::SevenZ);
        assert_eq!(read_all(&*c), files, "{what}");
        assert!(
            c.problems().is_empty() && c.notes().is_empty(),
            "{what}: {:?}",
            c.problems()
        );
    }
    // An archive of nothing: 7-Zip leaves one when its last file is deleted from it.
    let empty = dir.join("empty.7z");
    seven(&[], &empty);
    run(Command::new("7zz")
        .args(["d", "-bd", "-bso0"])
        .arg(&empty)
        .args(["A.TXT", "SUB"]));
    assert_eq!(
        std::fs::metadata(&empty).unwrap().len(),
        32,
        "7-Zip writes the signature header alone"
    );
    let c = open_file(&empty);
    assert!(
        c.entries().is_empty() && c.problems().is_empty(),
        "{:?}",
        c.problems()
    );
    // A self-extracting program: 7-Zip's console module (Debian's p7zip-full), then the
    // archive. Told by its content, read as the archive, the program a note.
    let sfx = dir.join("setup.exe");
    seven(&["-sfx/usr/lib/p7zip/7zCon.sfx"], &sfx);
    let module = std::fs::metadata("/usr/lib/p7zip/7zCon.sfx").unwrap().len();
    let c = open_file(&sfx);
    assert_eq!(c.kind(), ContainerKind::SevenZ);
    assert_eq!(read_all(&*c), files);
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    let notes: Vec<String> = c.notes().iter().map(|n| n.to_string()).collect();
    assert_eq!(notes, [format!("setup.exe at byte {module}: the 7z archive starts at byte {module}, after a self-extracting program of {module} bytes")]);
    // Made from the format's description: Copy with an empty method id, and a file with
    // no name (7-Zip calls it after the archive, less its extension).
    let data = pattern(5, 5000);
    let c = containers::open(
        "empty-id.7z",
        ContainerKind::SevenZ,
        Rc::new(handmade_7z(&data, Some("DATA.BIN"), &[])),
        Limits::default(),
    )
    .unwrap();
    assert_eq!(
        read_all(&*c),
        BTreeMap::from([("DATA.BIN".to_string(), data.clone())])
    );
    let standard = handmade_7z(&data, Some("DATA.BIN"), &[0]);
    std::fs::write(dir.join("standard.7z"), &standard).unwrap();
    let listed = Command::new("7zz")
        .args(["l", "-slt"])
        .arg(dir.join("standard.7z"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("Path = DATA.BIN"),
        "7-Zip reads the hand-made archive: {}",
        String::from_utf8_lossy(&listed.stdout)
    );
    let unnamed = dir.join("Unnamed Thing.7z");
    std::fs::write(&unnamed, handmade_7z(&data, None, &[0])).unwrap();
    let tested = Command::new("7zz")
        .args(["t"])
        .arg(&unnamed)
        .output()
        .unwrap();
    assert!(
        tested.status.success(),
        "7-Zip tests the nameless archive: {}",
        String::from_utf8_lossy(&tested.stdout)
    );
    let c = open_file(&unnamed);
    assert_eq!(
        read_all(&*c),
        BTreeMap::from([("Unnamed Thing".to_string(), data)])
    );
}

/// `archive` (one whose header is plain) with that header stored as an encoded header: one
/// packed stream, the plain header where it lies, in one folder of one Copy coder whose
/// method id is `method` (py7zr's copy_2.7z leaves it empty; 7-Zip writes 00), its CRC-32
/// given as `crc` says (7zFormat.txt, "kEncodedHeader"); the start header points at it.
fn copy_encoded(archive: &[u8], method: &[u8], crc: Option<u32>) -> Vec<u8> {
    let le64 = |at: usize| u64::from_le_bytes(archive[at..at + 8].try_into().unwrap());
    let (offset, size) = (le64(12), le64(20));
    let end = 32 + (offset + size) as usize;
    assert_eq!(
        archive[32 + offset as usize],
        0x01,
        "a plain header (kHeader)"
    );
    let mut e = vec![0x17, 0x06]; // kEncodedHeader, kPackInfo
    e.extend(number(offset));
    e.extend([0x01, 0x09]); // one pack stream, kSize
    e.extend(number(size));
    e.extend([0x00, 0x07, 0x0B, 0x01, 0x00]); // kEnd, kUnPackInfo, kFolder, one, not external
    e.extend([0x01, method.len() as u8]); // one coder: simple, its id's size
    e.extend(method);
    e.push(0x0C); // kCodersUnPackSize
    e.extend(number(size));
    if let Some(c) = crc {
        e.extend([0x0A, 0x01]); // kCRC, all defined
        e.extend(c.to_le_bytes());
    }
    e.extend([0x00, 0x00]); // ends UnPackInfo, then the streams
    let mut out = archive[..end].to_vec();
    let mut start = Vec::new();
    start.extend((end as u64 - 32).to_le_bytes());
    start.extend((e.len() as u64).to_le_bytes());
    start.extend(crc32fast::hash(&e).to_le_bytes());
    out[8..12].copy_from_slice(&crc32fast::hash(&start).to_le_bytes());
    out[12..32].copy_from_slice(&start);
    out.extend(e);
    out
}

#[test]
fn a_header_stored_by_copy_under_an_empty_method_id_reads_as_7_zip_reads_it() {
    let dir = scratch("7z-copy-header");
    let tree = dir.join("tree");
    let files = BTreeMap::from([
        ("A.TXT".to_string(), b"hello, 7z".to_vec()),
        ("SUB/B.BIN".to_string(), pattern(6, 90_000)),
    ]);
    write_tree(&tree, &files);
    let read_all = |c: &dyn Container| -> BTreeMap<String, Vec<u8>> {
        (0..c.entries().len())
            .map(|i| {
                (
                    c.entries()[i].path.clone(),
                    c.read(i).unwrap_or_else(|e| panic!("{e}")),
                )
            })
            .collect()
    };
    let seven_zip_tests = |path: &Path| {
        let out = Command::new("7zz").arg("t").arg(path).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // 7-Zip's archives with their headers plain (-mhc=off), Copy and solid LZMA2, and
    // py7zr's copy_2.7z layout (its files too in Copy under an empty id, written from the
    // description); each header then stored by Copy under an empty id or 00, its CRC given
    // or not.
    let mut sources = Vec::new();
    for (what, method) in [("Copy", "-m0=Copy"), ("LZMA2", "-m0=LZMA2")] {
        let out = dir.join(format!("{what}.7z"));
        run(Command::new("7zz")
            .current_dir(&tree)
            .args(["a", "-bd", "-bso0", "-mhc=off", method])
            .arg(&out)
            .args(["A.TXT", "SUB"]));
        sources.push((what, std::fs::read(&out).unwrap(), files.clone()));
    }
    let data = pattern(7, 3000);
    sources.push((
        "py7zr's layout",
        handmade_7z(&data, Some("DATA.BIN"), &[]),
        BTreeMap::from([("DATA.BIN".to_string(), data)]),
    ));
    for (what, archive, want) in &sources {
        for method in [&[][..], &[0]] {
            let crc = |h: &[u8]| crc32fast::hash(h);
            let le64 =
                |at: usize| u64::from_le_bytes(archive[at..at + 8].try_into().unwrap()) as usize;
            let header = &archive[32 + le64(12)..][..le64(20)];
            for given in [Some(crc(header)), None] {
                let case = format!(
                    "{what}, header id {method:?}, CRC {}",
                    if given.is_some() {
                        "given"
                    } else {
                        "not given"
                    }
                );
                let path = dir.join("edited.7z");
                std::fs::write(&path, copy_encoded(archive, method, given)).unwrap();
                let (ok, said) = seven_zip_tests(&path);
                assert!(ok, "{case}: 7-Zip reads the edited archive: {said}");
                let c = open_file(&path);
                assert_eq!(&read_all(&*c), want, "{case}");
                assert!(c.problems().is_empty(), "{case}: {:?}", c.problems());
            }
        }
        // A CRC that does not hold: refused, as 7-Zip refuses it.
        let path = dir.join("bad-crc.7z");
        std::fs::write(&path, copy_encoded(archive, &[], Some(0xDEAD_BEEF))).unwrap();
        assert!(
            !seven_zip_tests(&path).0,
            "{what}: 7-Zip refuses a header whose CRC fails"
        );
        let source: Rc<dyn containers::ByteSource> =
            Rc::new(containers::FileBytes::open(&path).unwrap());
        let e = containers::open(
            "bad-crc.7z",
            ContainerKind::SevenZ,
            source,
            Limits::default(),
        )
        .err()
        .expect("refused");
        assert!(
            e.to_string().contains("its header's CRC does not match"),
            "{what}: {e}"
        );
    }
}

#[test]
fn census_says_of_a_self_extracting_program_in_its_notes_not_its_failures() {
    let dir = scratch("sfx-census");
    let tree = dir.join("tree");
    write_tree(
        &tree,
        &BTreeMap::from([("A.TXT".to_string(), b"hello".to_vec())]),
    );
    let sfx7 = dir.join("setup7.exe");
    run(Command::new("7zz")
        .current_dir(&tree)
        .args(["a", "-bd", "-bso0", "-sfx/usr/lib/p7zip/7zCon.sfx"])
        .arg(&sfx7)
        .arg("A.TXT"));
    // A zip after a program: Info-ZIP's zip, its offsets adjusted with -A as zip's own
    // self-extractors are.
    let zip = dir.join("plain.zip");
    run(Command::new("zip")
        .current_dir(&tree)
        .args(["-q"])
        .arg(&zip)
        .arg("A.TXT"));
    let sfxzip = dir.join("setupzip.exe");
    std::fs::write(
        &sfxzip,
        [
            std::fs::read("/usr/lib/p7zip/7zCon.sfx").unwrap(),
            std::fs::read(&zip).unwrap(),
        ]
        .concat(),
    )
    .unwrap();
    run(Command::new("zip").arg("-qA").arg(&sfxzip));
    for (archive, says) in [
        (&sfx7, "the 7z archive starts at byte"),
        (&sfxzip, "the zip's first entry starts at byte"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
            .args(["census", "--json"])
            .arg(archive)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let census: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let name = archive.file_name().unwrap().to_string_lossy();
        assert_eq!(census["files"], 1, "{name}");
        assert_eq!(
            census["failed"],
            serde_json::json!([]),
            "{name}: nothing failed"
        );
        let notes = census["notes"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: {census}"));
        assert_eq!(notes.len(), 1, "{name}");
        assert_eq!(
            notes[0]["container"], *name,
            "{name}: the note names the container"
        );
        assert!(
            notes[0]["note"].as_str().unwrap().contains(says),
            "{name}: {}",
            notes[0]
        );
    }
}

#[test]
fn every_entry_of_a_solid_7z_read_at_once_comes_once_as_read_alone_and_in_the_blocks_order() {
    let dir = scratch("7z-each");
    let tree = dir.join("tree");
    // Two solid blocks (7-Zip starts a new one every 40 files with -ms=40f), files of several
    // extensions (7-Zip orders a block by extension, not by path).
    let files: BTreeMap<String, Vec<u8>> = (0..100)
        .map(|i| {
            (
                format!("D{}/F{i:03}.{}", i % 3, ["TXT", "BIN", "DAT"][i % 3]),
                pattern(i as u32, 500 + 37 * i),
            )
        })
        .collect();
    write_tree(&tree, &files);
    let archive = dir.join("solid.7z");
    run(Command::new("7zz")
        .current_dir(&tree)
        .args(["a", "-bd", "-bso0", "-ms=40f"])
        .arg(&archive)
        .args(["D0", "D1", "D2"]));
    let c = open_file(&archive);
    assert!(c.heads_are_costly());
    let wanted: Vec<usize> = (0..c.entries().len()).rev().collect();
    let mut handed = Vec::new();
    c.read_each(&wanted, &mut |i, bytes| {
        assert_eq!(
            &bytes.unwrap(),
            &files[&c.entries()[i].path],
            "{}",
            c.entries()[i].path
        );
        handed.push(i);
        true
    });
    let mut sorted = handed.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        (0..files.len()).collect::<Vec<_>>(),
        "each entry once"
    );
    // 7-Zip's own listing gives the archive's order, which the entries came in.
    let listed = Command::new("7zz")
        .args(["l", "-slt", "-ba"])
        .arg(&archive)
        .output()
        .unwrap();
    let order: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("Path = "))
        .map(|p| p.replace('\\', "/"))
        .filter(|p| files.contains_key(p))
        .collect();
    let came: Vec<&str> = handed
        .iter()
        .map(|&i| c.entries()[i].path.as_str())
        .collect();
    assert_eq!(came, order, "in the blocks' order, not the order asked");
    // Reading the container from inside the callback is an error, never a second reader of
    // the block under way (nor a panic).
    let mut inner = None;
    c.read_each(&wanted[..1], &mut |i, _| {
        inner = Some(c.read(i));
        false
    });
    assert!(inner
        .unwrap()
        .unwrap_err()
        .to_string()
        .contains("being decoded already"));
    // Stopping early stops.
    let mut seen = 0;
    c.read_each(&wanted, &mut |_, _| {
        seen += 1;
        seen < 3
    });
    assert_eq!(seen, 3);
}

#[test]
fn serve_answers_an_entry_it_cannot_read_with_422_and_the_reason_census_gives() {
    let dir = scratch("serve-unreadable");
    let archive = dir.join("archive");
    let tree = dir.join("tree");
    let big = pattern(9, 40 << 20);
    write_tree(
        &tree,
        &BTreeMap::from([
            ("OK.TXT".to_string(), b"fine".to_vec()),
            ("SECRET.TXT".to_string(), b"hidden".to_vec()),
        ]),
    );
    std::fs::create_dir_all(&archive).unwrap();
    let zip = archive.join("BAD.zip");
    // Python's zipfile writes the entries stored; a byte of CRC.BIN's data and of BIG.BIN's
    // last megabyte are then changed, and ODD.BIN's method made 97 (WavPack, APPNOTE 4.4.5).
    // Info-ZIP's zip adds SECRET.TXT encrypted.
    let script = r#"
import sys, zipfile, struct
out, big = sys.argv[1], open(sys.argv[2], 'rb').read()
with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
  z.writestr('OK.TXT', b'fine')
  z.writestr('CRC.BIN', bytes(range(256)) * 4)
  z.writestr('ODD.BIN', b'odd bytes')
  z.writestr('BIG.BIN', big)
b = bytearray(open(out, 'rb').read())
at = 0
while b[at:at + 4] == b'PK\x03\x04':
  n, x, size = struct.unpack_from('<H', b, at + 26)[0], struct.unpack_from('<H', b, at + 28)[0], struct.unpack_from('<I', b, at + 18)[0]
  name, data = b[at + 30:at + 30 + n].decode(), at + 30 + n + x
  if name == 'CRC.BIN': b[data + 500] ^= 0xFF
  if name == 'BIG.BIN': b[data + size - 1000] ^= 0xFF
  if name == 'ODD.BIN': struct.pack_into('<H', b, at + 8, 97)
  at = data + size
at = b.rfind(b'PK\x05\x06')
cd = struct.unpack_from('<I', b, at + 16)[0]
while b[cd:cd + 4] == b'PK\x01\x02':
  n = struct.unpack_from('<H', b, cd + 28)[0]
  if b[cd + 46:cd + 46 + n] == b'ODD.BIN': struct.pack_into('<H', b, cd + 10, 97)
  cd += 46 + n + struct.unpack_from('<H', b, cd + 30)[0] + struct.unpack_from('<H', b, cd + 32)[0]
open(out, 'wb').write(b)
"#;
    std::fs::write(dir.join("big"), &big).unwrap();
    run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&zip)
        .arg(dir.join("big")));
    run(Command::new("python3").arg("-c").arg(
        "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('OK.TXT', b'fine' * 100)\nb = open(sys.argv[1], 'rb').read()\nopen(sys.argv[1], 'wb').write(b[:60])",
    ).arg(archive.join("CUT.zip")));
    run(Command::new("zip")
        .current_dir(&tree)
        .args(["-q", "-P", "secret"])
        .arg(&zip)
        .arg("SECRET.TXT"));
    // What census says of each.
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["census", "--json"])
        .arg(&archive)
        .output()
        .unwrap();
    let census: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let census_says = |entry: &str| -> String {
        let failed = census["failed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == format!("BAD.zip/{entry}"))
            .unwrap_or_else(|| panic!("census fails {entry}: {census}"));
        failed["message"]
            .as_str()
            .unwrap()
            .strip_prefix("cannot read: ")
            .unwrap()
            .to_string()
    };
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let server = common::serve(&archive, &site);
    for (entry, says) in [
        ("CRC.BIN", "CRC"),
        ("ODD.BIN", "method not supported: 97"),
        ("SECRET.TXT", "encrypted"),
    ] {
        let path = format!("/archive/BAD.zip/{entry}");
        let (status, head, body) = common::get(server.port, &path);
        let body = String::from_utf8(body).unwrap();
        assert_eq!(status, 422, "{entry}: {head}\n{body}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/plain"),
            "{head}"
        );
        assert_eq!(
            body.trim_end(),
            census_says(entry),
            "{entry}: serve and census give one reason"
        );
        assert!(body.contains(says), "{entry}: {body}");
        let (status, _, _) = common::request(server.port, "GET", &path, "Range: bytes=0-9\r\n");
        assert_eq!(
            status, 422,
            "{entry}: a range of it too (the entry is checked whole, as census reads it)"
        );
    }
    let (status, _, _) = common::request(server.port, "HEAD", "/archive/BAD.zip/SECRET.TXT", "");
    assert_eq!(status, 422, "HEAD says it as GET does");
    // A path the zip lacks is not found; a path in a zip that does not open (Python's zip cut
    // before its directory) is there but unreadable, and the answer says why.
    let (status, _, _) = common::get(server.port, "/archive/BAD.zip/NOPE.TXT");
    assert_eq!(status, 404, "not in the zip");
    let (status, _, body) = common::get(server.port, "/archive/CUT.zip/OK.TXT");
    let body = String::from_utf8(body).unwrap();
    assert_eq!(status, 422, "a zip that does not open: {body}");
    assert!(body.starts_with("CUT.zip: "), "{body}");
    assert_eq!(
        common::get(server.port, "/archive/BAD.zip/OK.TXT"),
        (
            200,
            common::get(server.port, "/archive/BAD.zip/OK.TXT").1,
            b"fine".to_vec()
        )
    );
    // An entry larger than what is read before answering: sent as it is read; the fault at
    // its end cuts the body short of its length, as census says it is unreadable.
    let (status, head, body) = common::get(server.port, "/archive/BAD.zip/BIG.BIN");
    assert_eq!(status, 200, "{head}");
    assert!(head
        .to_ascii_lowercase()
        .contains(&format!("content-length: {}", big.len())));
    assert!(
        body.len() < big.len(),
        "cut short: {} of {}",
        body.len(),
        big.len()
    );
    assert!(census_says("BIG.BIN").contains("CRC"));
}

/// A tree with names an 8.3 volume cannot hold, and a file zisofs would compress.
fn long_names(dir: &Path) -> (std::path::PathBuf, BTreeMap<String, Vec<u8>>) {
    let tree = dir.join("tree");
    let files = BTreeMap::from([
        ("Long File Name.txt".to_string(), b"hello ".repeat(20_000)),
        (
            "Sub Folder/Mixed Case Name.DAT".to_string(),
            pattern(11, 100_000),
        ),
        ("Sub Folder/small.bin".to_string(), pattern(12, 5_000)),
        ("Sub Folder/zeros.bin".to_string(), vec![0u8; 70_000]),
    ]);
    write_tree(&tree, &files);
    (tree, files)
}

fn listed_and_read(c: &dyn Container) -> BTreeMap<String, Vec<u8>> {
    c.entries()
        .iter()
        .enumerate()
        .map(|(i, e)| {
            (
                e.path.clone(),
                c.read(i).unwrap_or_else(|err| panic!("{err}")),
            )
        })
        .collect()
}

/// xorriso's disc of `tree` with Rock Ridge (and `settings`), at `iso`.
fn xorriso_disc(tree: &Path, iso: &Path, settings: &[&str]) {
    run(Command::new("xorriso")
        .arg("-outdev")
        .arg(iso)
        .arg("-map")
        .arg(tree)
        .arg("/")
        .args(["-rockridge", "on", "-joliet", "off"])
        .args(settings)
        .arg("-commit")
        .stdout(Stdio::null())
        .stderr(Stdio::null()));
}

/// The files xorriso lists on `iso` read without Rock Ridge (`-read_fs norock`): the primary
/// volume's ISO 9660 names, and their stored bytes (a zisofs file's as stored), extracted.
fn xorriso_norock(iso: &Path, out: &Path) -> BTreeMap<String, Vec<u8>> {
    // (Killed past two minutes: xorriso reading Rock Ridge goes round a continuation loop
    // for ever and ignores SIGTERM; without Rock Ridge it should not meet one.)
    run(Command::new("timeout")
        .args(["-s", "KILL", "120", "xorriso"])
        .args(["-read_fs", "norock", "-indev"])
        .arg(iso)
        .args(["-osirrox", "on", "-extract", "/"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null()));
    walk_files(out)
}

/// Every file under `root` by its path from there, with its bytes.
fn walk_files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                found.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    found
}

/// A Rock Ridge SUSP entry's 32-bit numbers are written both ways (ECMA-119 7.3.3).
fn both32(v: u32) -> Vec<u8> {
    [v.to_le_bytes(), v.to_be_bytes()].concat()
}

#[test]
fn a_rock_ridge_continuation_that_loops_falls_back_to_the_iso_9660_name() {
    let dir = scratch("iso-ce-loop");
    let tree = dir.join("tree");
    // Three names long enough that xorriso continues each in a continuation area (CE), and
    // one whose Rock Ridge name fits its record.
    let mut files = BTreeMap::new();
    for k in 1..=3 {
        files.insert(
            format!("L{k}_{}.txt", "x".repeat(230)),
            format!("file {k}\n").repeat(100).into_bytes(),
        );
    }
    files.insert("Mixed Name.txt".to_string(), b"mixed".to_vec());
    write_tree(&tree, &files);
    let iso = dir.join("rr.iso");
    xorriso_disc(&tree, &iso, &[]);
    let mut image = std::fs::read(&iso).unwrap();
    assert_eq!(
        listed_and_read(&*open_file(&iso)),
        files,
        "the disc as xorriso wrote it"
    );
    // Each continuation area that carries a name's rest (its first entry NM) is made to
    // start with a CE entry leading back to itself (SUSP 5.1: "CE", 28, version 1, the
    // area's sector, offset and length, each both-endian): a loop. libarchive's
    // test_read_format_iso_rockridge_ce_loop.iso has three such files.
    let mut looped = 0;
    let mut at = 0;
    while let Some(k) = image[at..].windows(4).position(|w| w == b"CE\x1c\x01") {
        let ce = at + k;
        at = ce + 1;
        let le = |o: usize| u32::from_le_bytes(image[ce + o..ce + o + 4].try_into().unwrap());
        let (sector, offset, len) = (le(4), le(12), le(20));
        let area = sector as usize * 2048 + offset as usize;
        if len < 28 || &image[area..area + 2] != b"NM" {
            continue;
        }
        let entry = [
            b"CE\x1c\x01".to_vec(),
            both32(sector),
            both32(offset),
            both32(len),
        ]
        .concat();
        image[area..area + 28].copy_from_slice(&entry);
        looped += 1;
    }
    assert_eq!(looped, 3, "the three long names continue in an area each");
    let edited = dir.join("loop.iso");
    std::fs::write(&edited, &image).unwrap();
    // Read while the loop is there: the looped files under the names the primary volume
    // gives them (as xorriso lists the disc without Rock Ridge: xorriso and Debian's bsdtar
    // 3.6 themselves go round the loop for ever), the fourth by its Rock Ridge name.
    let c = open_file(&edited);
    let plain = xorriso_norock(&edited, &dir.join("norock"));
    let mut want: BTreeMap<String, Vec<u8>> = plain
        .into_iter()
        .filter(|(name, _)| name.starts_with('L'))
        .collect();
    assert_eq!(want.len(), 3, "{want:?}");
    want.insert("Mixed Name.txt".into(), b"mixed".to_vec());
    assert_eq!(listed_and_read(&*c), want);
    let problems: Vec<String> = c.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 3, "{problems:?}");
    for p in &problems {
        assert!(
            p.contains("continuation areas loop back") && p.contains("ISO 9660 name"),
            "{p}"
        );
    }
}

#[test]
fn a_zisofs_size_that_cannot_be_true_reads_as_the_bytes_stored() {
    let dir = scratch("iso-zisofs-overflow");
    let tree = dir.join("tree");
    let files = BTreeMap::from([
        ("BIG.BIN".to_string(), pattern(21, 100_000)),
        ("OTHER.BIN".to_string(), pattern(22, 80_000)),
    ]);
    write_tree(&tree, &files);
    let iso = dir.join("z.iso");
    xorriso_disc(&tree, &iso, &["-set_filter_r", "--zisofs", "/", "--"]);
    let image = std::fs::read(&iso).unwrap();
    // The ZF entries ("ZF", 16, version 1, "pz", the header's size in words, the block size's
    // log2, the size both-endian): BIG.BIN's is the one whose size is 100,000.
    let zf = (0..image.len() - 16)
        .find(|&i| {
            &image[i..i + 6] == b"ZF\x10\x01pz" && image[i + 8..i + 16] == both32(100_000)[..]
        })
        .expect("BIG.BIN's ZF entry");
    // Edits of that entry: libarchive's zisofs_overflow disc (blocks of 2^2, 4,294,966,265
    // bytes), a block size the format allows with a size whose table of block offsets the
    // stored bytes cannot hold, and a block size past 2^17.
    for (log2, size) in [(2u8, 0xFFFF_FBF9u32), (15, 0xFFFF_FBF9), (18, 100_000)] {
        let mut edited = image.clone();
        edited[zf + 7] = log2;
        edited[zf + 8..zf + 16].copy_from_slice(&both32(size));
        let path = dir.join(format!("overflow-{log2}.iso"));
        std::fs::write(&path, &edited).unwrap();
        let c = open_file(&path);
        // BIG.BIN listed at its stored size and read as its stored bytes, as xorriso
        // extracts them when it reads no Rock Ridge; OTHER.BIN inflated as ever.
        let stored = xorriso_norock(&path, &dir.join(format!("norock-{log2}")));
        let mut want = BTreeMap::from([("BIG.BIN".to_string(), stored["BIG.BIN"].clone())]);
        want.insert("OTHER.BIN".into(), files["OTHER.BIN"].clone());
        assert!(
            stored["BIG.BIN"].starts_with(&[0x37, 0xE4, 0x53, 0x96]),
            "the stored bytes are zisofs's"
        );
        let k = c.find("BIG.BIN").unwrap();
        assert_eq!(
            c.entries()[k].size,
            stored["BIG.BIN"].len() as u64,
            "2^{log2}"
        );
        assert_eq!(listed_and_read(&*c), want, "2^{log2}");
        let problems: Vec<String> = c.problems().iter().map(|p| p.to_string()).collect();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains(&format!(
                "says {size} bytes in blocks of 2^{log2}, which cannot be true"
            )) && problems[0].contains(&format!(
                "read as the {} bytes stored",
                stored["BIG.BIN"].len()
            )),
            "{}",
            problems[0]
        );
    }
    // A size its table could hold but that its own zisofs header contradicts: believed, and
    // reading it says which.
    let mut edited = image.clone();
    edited[zf + 8..zf + 16].copy_from_slice(&both32(90_000));
    let path = dir.join("contradicted.iso");
    std::fs::write(&path, &edited).unwrap();
    let c = open_file(&path);
    let k = c.find("BIG.BIN").unwrap();
    assert_eq!(c.entries()[k].size, 90_000);
    let e = c.read(k).unwrap_err().to_string();
    assert!(
        e.contains("its header says 100000 bytes, its ZF entry 90000"),
        "{e}"
    );
}

#[test]
fn an_iso_lists_the_names_its_users_know_rock_ridge_then_joliet_and_reads_zisofs_files() {
    let dir = scratch("iso-names");
    let (tree, files) = long_names(&dir);
    let xorriso = |out: &str, settings: &[&str]| {
        let iso = dir.join(out);
        run(Command::new("xorriso")
            .arg("-outdev")
            .arg(&iso)
            .arg("-map")
            .arg(&tree)
            .arg("/")
            .args(settings)
            .args(["-commit"])
            .stdout(Stdio::null()));
        iso
    };
    // Rock Ridge (as Linux shows the disc), Joliet without it (as Windows does), and both.
    for (what, settings) in [
        ("Rock Ridge", vec!["-rockridge", "on", "-joliet", "off"]),
        ("Joliet", vec!["-rockridge", "off", "-joliet", "on"]),
        ("both", vec!["-rockridge", "on", "-joliet", "on"]),
    ] {
        let c = open_file(&xorriso(
            &format!("{}.iso", what.replace(' ', "")),
            &settings,
        ));
        assert_eq!(
            listed_and_read(&*c),
            files,
            "{what}: the tree's own names and bytes"
        );
        assert!(c.problems().is_empty(), "{what}: {:?}", c.problems());
    }
    // Neither: the primary volume's names, as the volume writes them.
    let c = open_file(&xorriso(
        "plain.iso",
        &["-rockridge", "off", "-joliet", "off"],
    ));
    let names = names(&*c);
    assert_eq!(names.len(), files.len());
    assert!(
        names.iter().all(|n| n
            .chars()
            .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || "_./".contains(ch))),
        "d-characters: {names:?}"
    );
    // zisofs, as xorriso's filter writes it (a Rock Ridge ZF entry on each compressed file):
    // each file read back whole, any range by its blocks alone.
    let zipped = xorriso(
        "zisofs.iso",
        &["-rockridge", "on", "-set_filter_r", "--zisofs", "/", "--"],
    );
    let c = open_file(&zipped);
    assert_eq!(listed_and_read(&*c), files, "zisofs files inflated");
    assert!(
        std::fs::metadata(&zipped).unwrap().len()
            < std::fs::metadata(dir.join("RockRidge.iso")).unwrap().len(),
        "xorriso did compress them"
    );
    let k = c.find("Sub Folder/Mixed Case Name.DAT").unwrap();
    let mut part = Vec::new();
    c.stream(k, 32_760, 40_000, &mut |p| {
        let _: () = part.extend_from_slice(p);
        Ok(())
    })
    .unwrap();
    assert_eq!(
        part,
        files["Sub Folder/Mixed Case Name.DAT"][32_760..72_760]
    );
    assert_eq!(
        c.head(k, 16).unwrap(),
        files["Sub Folder/Mixed Case Name.DAT"][..16]
    );
    // A static host reads ranges of the disc: a compressed file is left out of its index,
    // saying why, rather than given as its compressed bytes.
    let host = dir.join("host");
    std::fs::create_dir_all(&host).unwrap();
    std::fs::copy(&zipped, host.join("zisofs.iso")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("index")
        .arg(&host)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(host.join("index.json")).unwrap()).unwrap();
    let disc = &index["containers"][0];
    let said = disc["problems"].to_string();
    assert!(
        said.contains("Mixed Case Name.DAT") && said.contains("compressed with zisofs"),
        "{said}"
    );
    assert!(
        !disc["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r[0] == "Sub Folder/Mixed Case Name.DAT"),
        "not listed as ranges"
    );
    // xorriso reads its own image back to the same bytes (the test's files are the truth).
    let out = dir.join("extracted");
    run(Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(&zipped)
        .args(["-extract", "/"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null()));
    for (p, bytes) in &files {
        assert_eq!(
            &std::fs::read(out.join(p)).unwrap(),
            bytes,
            "xorriso extracts {p} as given"
        );
    }
}

#[test]
fn a_container_inside_a_container_on_a_static_host_is_listed_and_its_entries_read_back() {
    let dir = scratch("nested-host");
    let host = dir.join("host");
    std::fs::create_dir_all(&host).unwrap();
    let tree = dir.join("tree");
    let files = BTreeMap::from([
        ("DATA/A.BIN".to_string(), pattern(21, 70_000)),
        ("B.TXT".to_string(), b"inner text".to_vec()),
    ]);
    write_tree(&tree, &files);
    // Python's zipfile: INNER.zip deflated, then OUTER.zip holding it (deflated) and a file;
    // xorriso's DISC.iso stored in OUTER.zip beside it.
    run(Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-o"])
        .arg(dir.join("DISC.iso"))
        .arg(&tree));
    let script = "import sys, os, zipfile\nroot, inner, iso, outer = sys.argv[1:5]\nwith zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs):\n      p = os.path.join(d, f); z.write(p, os.path.relpath(p, root))\nwith zipfile.ZipFile(outer, 'w', zipfile.ZIP_DEFLATED) as z:\n  z.write(inner, 'PACKS/INNER.zip')\n  z.write(iso, 'PACKS/DISC.iso', compress_type=zipfile.ZIP_STORED)\n  z.writestr('README.TXT', b'outer')\n";
    run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&tree)
        .arg(dir.join("INNER.zip"))
        .arg(dir.join("DISC.iso"))
        .arg(host.join("OUTER.zip")));
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("index")
        .arg(&host)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(host.join("index.json")).unwrap()).unwrap();
    let containers = index["containers"].as_array().unwrap();
    let paths: Vec<&str> = containers
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths[0], "OUTER.zip",
        "an outer container before those inside it"
    );
    let mut inside = paths[1..].to_vec();
    inside.sort();
    assert_eq!(
        inside,
        ["OUTER.zip/PACKS/DISC.iso", "OUTER.zip/PACKS/INNER.zip"]
    );
    let file = std::fs::read(host.join("OUTER.zip")).unwrap();
    // An entry read as the page reads it: its container's bytes (the file, or its outer
    // entry read so in turn), then its ranges of them.
    fn read(
        containers: &[serde_json::Value],
        file: &[u8],
        c: &serde_json::Value,
        path: &str,
    ) -> Vec<u8> {
        let bytes = match c.get("inside") {
            Some(inside) => {
                let outer = containers
                    .iter()
                    .find(|o| o["path"] == inside["container"])
                    .unwrap();
                read(containers, file, outer, inside["entry"].as_str().unwrap())
            }
            None => file.to_vec(),
        };
        assert_eq!(
            c["size"].as_u64().unwrap(),
            bytes.len() as u64,
            "{}",
            c["path"]
        );
        let row = c["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r[0] == path)
            .unwrap_or_else(|| panic!("{path} in {}", c["path"]));
        let pieces = c["meta"]
            .as_array()
            .unwrap()
            .iter()
            .chain(row[5].as_array().unwrap())
            .map(|r| {
                let (at, len) = (
                    r[0].as_u64().unwrap() as usize,
                    r[1].as_u64().unwrap() as usize,
                );
                (at as u64, bytes[at..at + len].to_vec())
            });
        let layout: hosted::Layout = serde_json::from_value(c.clone()).unwrap();
        let pieces_of_row = row
            .get(6)
            .map(|p| serde_json::from_value(p.clone()).unwrap());
        let wanted = hosted::Wanted {
            at: row[3].as_u64().unwrap(),
            size: row[1].as_u64().unwrap(),
            crc32: u32::from_str_radix(row[4].as_str().unwrap(), 16).unwrap(),
            pieces: pieces_of_row,
        };
        hosted::read_hosted(
            c["path"].as_str().unwrap(),
            path,
            &layout,
            hosted::Fetched::new(bytes.len() as u64, pieces.collect()).unwrap(),
            wanted,
            Limits::default(),
        )
        .unwrap()
    }
    for inner in &containers[1..] {
        assert_eq!(inner["inside"]["container"], "OUTER.zip");
        for (path, bytes) in &files {
            assert_eq!(
                &read(containers, &file, inner, path),
                bytes,
                "{}/{path}",
                inner["path"]
            );
        }
    }
    assert_eq!(
        read(containers, &file, &containers[0], "README.TXT"),
        b"outer"
    );
}

#[test]
fn census_and_serve_agree_on_a_rock_ridge_link_an_empty_file_wherever_its_extent_points() {
    let dir = scratch("rr-link");
    let tree = dir.join("tree");
    write_tree(
        &tree,
        &BTreeMap::from([("A.TXT".to_string(), b"hi\n".to_vec())]),
    );
    std::os::unix::fs::symlink("A.TXT", tree.join("LINK.TXT")).unwrap();
    let archive = dir.join("archive");
    std::fs::create_dir_all(&archive).unwrap();
    run(Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-R", "-o"])
        .arg(archive.join("LINKS.iso"))
        .arg(&tree));
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["census", "--json"])
        .arg(&archive)
        .output()
        .unwrap();
    let census: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(census["failed"], serde_json::json!([]), "{census}");
    assert_eq!(census["files"], 2);
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let server = common::serve(&archive, &site);
    assert_eq!(
        common::get(server.port, "/archive/LINKS.iso/LINK.TXT"),
        (
            200,
            common::get(server.port, "/archive/LINKS.iso/LINK.TXT").1,
            Vec::new()
        )
    );
    assert_eq!(
        common::get(server.port, "/archive/LINKS.iso/A.TXT").2,
        b"hi\n"
    );
}

#[test]
fn a_file_listed_by_its_rock_ridge_or_joliet_name_keeps_the_name_the_primary_volume_writes() {
    let dir = scratch("iso-written");
    let (tree, files) = long_names(&dir);
    for (what, settings) in [
        ("Rock Ridge", ["-rockridge", "on", "-joliet", "off"]),
        ("Joliet", ["-rockridge", "off", "-joliet", "on"]),
    ] {
        let iso = dir.join(format!("{}.iso", what.replace(' ', "")));
        run(Command::new("xorriso")
            .arg("-outdev")
            .arg(&iso)
            .arg("-map")
            .arg(&tree)
            .arg("/")
            .args(settings)
            .args(["-commit"])
            .stdout(Stdio::null()));
        let c = open_file(&iso);
        assert_eq!(names(&*c).len(), files.len());
        for (i, e) in c.entries().iter().enumerate() {
            let written = c
                .written_name(i)
                .unwrap_or_else(|| panic!("{what}: {} has a primary name of its own", e.path));
            assert!(
                written
                    .chars()
                    .all(|ch| ch.is_ascii_uppercase() || ch.is_ascii_digit() || "_./".contains(ch)),
                "{what}: {written}"
            );
            assert_eq!(
                written.matches('/').count(),
                e.path.matches('/').count(),
                "{what}: {written} for {}",
                e.path
            );
        }
    }
}
