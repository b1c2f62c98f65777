//! Containers made by real tools — Python's zipfile, xorriso, bchunk — with the real FF7
//! files inside, LZS-wrapped as on the disc: listed and read in place, entry for entry the
//! bytes the tools were given; and the hostile cases (docs/formats/containers.md).

mod common;

use common::{run, scratch, write_tree};

use relicview::containers::{self, Container, ContainerKind, Limits, SectorMode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// These tests open 7z archives as the CLI does: under its allocator (containers' ceiling.rs).
#[global_allocator]
static ALLOCATOR: relicview::containers::ceiling::CeilingAllocator =
    relicview::containers::ceiling::CeilingAllocator;

fn shared(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7")
            .join(name),
    )
    .expect("the shared FF7 test data sits beside the repo")
}

/// The disc's field files: the real ones, LZS-wrapped, FIELD.TDB as it is, and FIELD.BIN as
/// the disc stores it (its unpacked length, a word, and a gzip stream from Python's gzip).
/// Made once per test binary (encoding three models is the slow part of a debug build's run).
fn field_files() -> BTreeMap<String, Vec<u8>> {
    static FILES: std::sync::OnceLock<BTreeMap<String, Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(make_field_files).clone()
}

fn make_field_files() -> BTreeMap<String, Vec<u8>> {
    let lzs = |n: &str| relicview::formats::ff7::lzs::encode(&shared(n));
    BTreeMap::from([
        ("FIELD/MD1_1.BSX".to_string(), lzs("MD1_1_u.BSX")),
        ("FIELD/ELEVTR1.BSX".to_string(), lzs("ELEVTR1_u.BSX")),
        ("FIELD/NMKIN_1.BSX".to_string(), lzs("NMKIN_1_u.BSX")),
        ("FIELD/FIELD.TDB".to_string(), shared("FIELD.TDB_u")),
        ("FIELD/FIELD.BIN".to_string(), disc_field_bin()),
        (
            "README.TXT".to_string(),
            b"relicview container test\r\n".to_vec(),
        ),
    ])
}

fn disc_field_bin() -> Vec<u8> {
    let module = shared("FIELD.BIN_u");
    let out = Command::new("python3")
        .args(["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.compress(open(sys.argv[1], 'rb').read(), mtime=0))"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/ff7/FIELD.BIN_u"))
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    let mut file = (module.len() as u32).to_le_bytes().to_vec();
    file.extend(0u32.to_le_bytes());
    file.extend(out.stdout);
    file
}

fn open(path: &Path) -> Box<dyn Container> {
    let source = Rc::new(std::fs::read(path).unwrap());
    let kind = containers::sniff(&path.to_string_lossy(), &source[..source.len().min(65536)])
        .expect("sniffed as a container");
    containers::open(
        &path.file_name().unwrap().to_string_lossy(),
        kind,
        source,
        Limits::default(),
    )
    .unwrap()
}

fn contents(c: &dyn Container) -> BTreeMap<String, Vec<u8>> {
    (0..c.entries().len())
        .map(|i| (c.entries()[i].path.clone(), c.read(i).unwrap()))
        .collect()
}

/// A zip written by Python's zipfile: `spec` is a list of (name, file or inline bytes,
/// method) and options for the archive.
fn python_zip(out: &Path, script: &str) {
    run(Command::new("python3").arg("-c").arg(script).arg(out));
}

#[test]
fn zips_from_python_list_and_read_every_entry_stored_deflated_zip64_and_streamed() {
    let dir = scratch("zip");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    for (name, options) in [
        ("deflated.zip", "compression=zipfile.ZIP_DEFLATED"),
        ("stored.zip", "compression=zipfile.ZIP_STORED"),
    ] {
        let out = dir.join(name);
        python_zip(&out, &format!(
            "import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', {options}) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs):\n      p = os.path.join(d, f)\n      z.write(p, os.path.relpath(p, root))\n"
        ));
        let c = open(&out);
        assert_eq!(c.kind(), ContainerKind::Zip);
        assert_eq!(contents(&*c), field_files(), "{name}");
        assert!(c.problems().is_empty(), "{name}: {:?}", c.problems());
    }
    // ZIP64 records, and data descriptors (written to a pipe, zipfile cannot seek back).
    let zip64 = dir.join("zip64.zip");
    python_zip(&zip64, &format!("import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  for n in ['FIELD/MD1_1.BSX', 'FIELD/FIELD.TDB']:\n    with z.open(n, 'w', force_zip64=True) as w: w.write(open(os.path.join(root, n), 'rb').read())\n"));
    let c = open(&zip64);
    assert_eq!(contents(&*c).len(), 2);
    assert_eq!(
        contents(&*c)["FIELD/MD1_1.BSX"],
        field_files()["FIELD/MD1_1.BSX"]
    );
    let streamed = dir.join("streamed.zip");
    run(Command::new("sh").arg("-c").arg(format!(
        "python3 -c \"import sys, zipfile\nz = zipfile.ZipFile(sys.stdout.buffer, 'w', zipfile.ZIP_DEFLATED)\nz.writestr('FIELD/FIELD.TDB', open('{}', 'rb').read())\nz.close()\" | cat > {}",
        tree.join("FIELD/FIELD.TDB").display(),
        streamed.display()
    )));
    let bytes = std::fs::read(&streamed).unwrap();
    let flags = u16::from_le_bytes([bytes[6], bytes[7]]);
    assert_eq!(flags & 8, 8, "the entry has a data descriptor");
    assert_eq!(
        contents(&*open(&streamed))["FIELD/FIELD.TDB"],
        field_files()["FIELD/FIELD.TDB"]
    );
}

#[test]
fn a_zip_inside_a_zip_is_a_container_of_its_own() {
    let dir = scratch("nested");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    let inner = dir.join("inner.zip");
    python_zip(
        &inner,
        &format!("import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  z.write(os.path.join(root, 'FIELD/MD1_1.BSX'), 'FIELD/MD1_1.BSX')\n"),
    );
    let outer = dir.join("outer.zip");
    python_zip(&outer, &format!("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:\n  z.write({inner:?}, 'DISC/INNER.ZIP')\n"));
    let c = open(&outer);
    let bytes = c
        .read(c.find("disc/inner.zip").expect("listed, case ignored"))
        .unwrap();
    let kind = containers::sniff("INNER.ZIP", &bytes).unwrap();
    let nested = containers::open(
        "outer.zip/DISC/INNER.ZIP",
        kind,
        Rc::new(bytes),
        Limits::default(),
    )
    .unwrap();
    assert_eq!(
        contents(&*nested)["FIELD/MD1_1.BSX"],
        field_files()["FIELD/MD1_1.BSX"]
    );
}

/// An ISO image from xorriso, and the same image as raw MODE2/2352 sectors (checked by
/// bchunk, which converts it back).
fn xorriso_iso(dir: &Path) -> PathBuf {
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    let iso = dir.join("ff7.iso");
    run(Command::new("xorriso")
        .args([
            "-as",
            "mkisofs",
            "-quiet",
            "-iso-level",
            "2",
            "-V",
            "FF7DISC1",
            "-o",
        ])
        .arg(&iso)
        .arg(&tree));
    iso
}

/// CD-ROM XA mode 2 form 1 sectors around an ISO's 2048-byte ones: sync, the BCD address
/// (from 00:02:00), mode 2, the subheader twice. EDC/ECC are left zero; readers skip them.
fn mode2_raw(iso: &[u8]) -> Vec<u8> {
    let bcd = |n: u64| ((n / 10) << 4 | (n % 10)) as u8;
    let mut out = Vec::with_capacity(iso.len() / 2048 * 2352);
    for (i, sector) in iso.chunks(2048).enumerate() {
        let lba = i as u64 + 150;
        let mut raw = vec![0u8; 2352];
        raw[0] = 0;
        raw[1..11].fill(0xFF);
        raw[12..16].copy_from_slice(&[bcd(lba / 75 / 60), bcd(lba / 75 % 60), bcd(lba % 75), 2]);
        raw[16..24].copy_from_slice(&[0, 0, 0x08, 0, 0, 0, 0x08, 0]);
        raw[24..24 + sector.len()].copy_from_slice(sector);
        out.extend(raw);
    }
    out
}

#[test]
fn an_iso_from_xorriso_and_its_raw_mode2_rip_list_the_disc_and_read_its_files() {
    let dir = scratch("iso");
    let iso = xorriso_iso(&dir);
    let c = open(&iso);
    assert_eq!(c.kind(), ContainerKind::Iso);
    assert_eq!(
        contents(&*c),
        field_files(),
        "names without their ;1, bytes as given"
    );
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    // The raw rip: bchunk turns it (with a cue sheet) back into the very same ISO.
    let image = std::fs::read(&iso).unwrap();
    let bin = dir.join("ff7.bin");
    std::fs::write(&bin, mode2_raw(&image)).unwrap();
    let cue = dir.join("ff7.cue");
    std::fs::write(
        &cue,
        "FILE \"ff7.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    run(Command::new("bchunk")
        .current_dir(&dir)
        .args(["ff7.bin", "ff7.cue", "back"]));
    assert_eq!(
        std::fs::read(dir.join("back01.iso")).unwrap(),
        image,
        "bchunk reads our raw sectors back to the ISO"
    );
    let track = containers::cue_data_track(&std::fs::read_to_string(&cue).unwrap()).unwrap();
    assert_eq!(
        (track.file.as_str(), track.mode, track.start),
        ("ff7.bin", SectorMode::Mode2, 0)
    );
    let raw = open(&bin);
    assert_eq!(
        raw.kind(),
        ContainerKind::RawDisc(SectorMode::Mode2),
        "a .bin on its own, by its sync pattern"
    );
    assert_eq!(contents(&*raw), field_files());
}

/// A CHD of a raw MODE2/2352 rip, made by MAME's chdman from a cue sheet of its own.
fn chdman_cd(bin: &Path, out: &Path) {
    let cue = bin.with_extension("chdman.cue");
    std::fs::write(
        &cue,
        format!(
            "FILE \"{}\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
            bin.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    let _ = std::fs::remove_file(out);
    run(Command::new("chdman")
        .arg("createcd")
        .arg("-i")
        .arg(&cue)
        .arg("-o")
        .arg(out));
    std::fs::remove_file(&cue).unwrap();
}

/// The field files as an ISO by xorriso, as MODE2/2352 sectors, and as chdman's CD image of
/// those: (the ISO, the .bin, the .chd).
fn chdman_disc(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let iso = xorriso_iso(dir);
    let bin = dir.join("ff7.bin");
    std::fs::write(&bin, mode2_raw(&std::fs::read(&iso).unwrap())).unwrap();
    let cd = dir.join("ff7.chd");
    chdman_cd(&bin, &cd);
    (iso, bin, cd)
}

#[test]
fn chds_from_chdman_of_a_cd_rip_and_of_a_dvd_image_list_the_disc_and_read_its_files() {
    let dir = scratch("chd");
    let (iso, bin, cd) = chdman_disc(&dir);
    let c = open(&cd);
    assert_eq!(c.kind(), ContainerKind::Chd);
    assert_eq!(
        contents(&*c),
        field_files(),
        "every file of the disc, through chdman's compression"
    );
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    assert!(
        std::fs::metadata(&cd).unwrap().len() < std::fs::metadata(&bin).unwrap().len(),
        "compressed"
    );
    // A CHD of 2048-byte units with no track metadata, as createdvd writes (Debian's
    // chdman 0.251 has createraw, not createdvd): its data is the ISO. Each codec chdman
    // offers for it, and none.
    for codecs in ["none", "zlib", "lzma", "huff", "flac"] {
        let dvd = dir.join(format!("ff7dvd-{codecs}.chd"));
        run(Command::new("chdman")
            .args([
                "createraw",
                "-hs",
                "8192",
                "-us",
                "2048",
                "-c",
                codecs,
                "-i",
            ])
            .arg(&iso)
            .arg("-o")
            .arg(&dvd));
        assert_eq!(
            contents(&*open(&dvd)),
            field_files(),
            "a DVD-like CHD ({codecs}) is its ISO's sectors"
        );
    }
    // And the CD codecs one at a time (createcd picks among cdlz, cdzl, cdfl by default).
    for codecs in ["cdlz", "cdzl", "cdfl", "none"] {
        let one = dir.join(format!("ff7-{codecs}.chd"));
        let cue = bin.with_extension("one.cue");
        std::fs::write(
            &cue,
            "FILE \"ff7.bin\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
        )
        .unwrap();
        run(Command::new("chdman")
            .args(["createcd", "-c", codecs, "-i"])
            .arg(&cue)
            .arg("-o")
            .arg(&one));
        assert_eq!(
            contents(&*open(&one)),
            field_files(),
            "a CD CHD compressed with {codecs}"
        );
    }
    // Cut short: the header names what lies past the end; the rest of the folder is fine.
    let whole = std::fs::read(&cd).unwrap();
    for cut in [10, 124, 200, whole.len() / 2] {
        let e = containers::open(
            "cut.chd",
            ContainerKind::Chd,
            Rc::new(whole[..cut].to_vec()),
            Limits::default(),
        )
        .err()
        .map(|e| e.to_string());
        if let Some(e) = &e {
            assert!(e.starts_with("cut.chd"), "{e}");
        } else {
            // The map and the directory may all lie before the cut: the files past it fail.
            let c = containers::open(
                "cut.chd",
                ContainerKind::Chd,
                Rc::new(whole[..cut].to_vec()),
                Limits::default(),
            )
            .unwrap();
            assert!(
                (0..c.entries().len()).any(|i| c.read(i).is_err()),
                "cut at {cut}: something must be missing"
            );
        }
    }
}

#[test]
fn a_chd_hunk_that_claims_more_compressed_bytes_than_it_has_is_an_error_not_a_panic() {
    // chdman's own CD image; each cdlz or cdzl hunk's sector-data length (after a bit per
    // frame, 2 bytes in hunks under 64 KiB) set past the hunk's end. The chd crate slices
    // by that length unchecked: the reader must refuse it first, by container and hunk.
    let dir = scratch("chd-lying-hunk");
    let (_, _, cd) = chdman_disc(&dir);
    let whole = std::fs::read(&cd).unwrap();
    let chd = chd::Chd::open(std::io::Cursor::new(whole.clone()), None).unwrap();
    let hunk_bytes = chd.header().hunk_size() as usize;
    let head = (hunk_bytes / 2448).div_ceil(8);
    let codecs = chd.header().codecs();
    let mut lied = 0;
    let mut bytes = whole.clone();
    for n in 0..chd.header().hunk_count() as usize {
        if let Some(chd::map::MapEntry::V5Compressed(e)) = chd.map().get_entry(n) {
            use chd::map::CompressionTypeV5::*;
            let codec = match e.hunk_type() {
                Ok(CompressionType0) => codecs[0],
                Ok(CompressionType1) => codecs[1],
                Ok(CompressionType2) => codecs[2],
                Ok(CompressionType3) => codecs[3],
                _ => None,
            };
            if matches!(
                codec,
                Some(chd::header::CodecType::LzmaCdV5 | chd::header::CodecType::ZLibCdV5)
            ) {
                let at = e.block_offset() as usize + head;
                bytes[at..at + 2].copy_from_slice(&(e.block_size() as u16).to_be_bytes());
                lied += 1;
            }
        }
    }
    assert!(lied > 0, "chdman compressed some hunks");
    match containers::open(
        "liar.chd",
        ContainerKind::Chd,
        Rc::new(bytes),
        Limits::default(),
    ) {
        Err(e) => assert!(
            e.to_string().starts_with("liar.chd") && e.to_string().contains("hunk"),
            "{e}"
        ),
        Ok(c) => {
            let errors: Vec<String> = (0..c.entries().len())
                .filter_map(|i| c.read(i).err().map(|e| e.to_string()))
                .collect();
            assert!(!errors.is_empty(), "every compressed hunk lies");
            for e in errors {
                assert!(
                    e.starts_with("liar.chd") && e.contains("compressed bytes"),
                    "{e}"
                );
            }
        }
    }
}

/// chdman's CD image with its map's Huffman table made to overrun: after the map's 16-byte
/// header, the table's 4-bit code lengths are run-length coded, and `1, 2, 15` says "length
/// 2, eighteen times" of a table of sixteen. The chd crate indexes past its table there.
fn chd_with_an_overrunning_map(cd: &[u8]) -> Vec<u8> {
    let map = u64::from_be_bytes(cd[40..48].try_into().unwrap()) as usize;
    let mut bytes = cd.to_vec();
    bytes[map + 16] = 0x12;
    bytes[map + 17] = 0xF0;
    bytes
}

#[test]
fn a_chd_whose_map_table_overruns_is_an_error_naming_it() {
    let dir = scratch("chd-overrun");
    let (_, _, cd) = chdman_disc(&dir);
    let bad = chd_with_an_overrunning_map(&std::fs::read(&cd).unwrap());
    let e = containers::open(
        "bad.chd",
        ContainerKind::Chd,
        Rc::new(bad),
        Limits::default(),
    )
    .err()
    .expect("the map cannot be read")
    .to_string();
    assert!(
        e.starts_with("bad.chd at byte 0: not a readable CHD"),
        "{e}"
    );
}

#[test]
fn hostile_zips_give_errors_that_name_the_container_the_entry_and_the_byte() {
    let dir = scratch("hostile-zip");
    // A bomb: 64 MiB of zeros deflate to a few KiB.
    let bomb = dir.join("bomb.zip");
    python_zip(&bomb, "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  z.writestr('ZEROS.BIN', bytes(64 << 20))\n  z.writestr('OK.TXT', b'fine')\n");
    let c = open(&bomb);
    let err = c
        .read(c.find("ZEROS.BIN").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("bomb.zip: ZEROS.BIN at byte ") && err.contains("more than 1000 times"),
        "{err}"
    );
    assert_eq!(
        c.read(c.find("OK.TXT").unwrap()).unwrap(),
        b"fine",
        "the rest stays usable"
    );
    // A directory that declares fewer bytes than the entry inflates to.
    let liar = dir.join("liar.zip");
    python_zip(&liar, "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  z.writestr('A.TXT', b'x' * 5000)\n");
    let mut bytes = std::fs::read(&liar).unwrap();
    let cd = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    bytes[cd + 24..cd + 28].copy_from_slice(&100u32.to_le_bytes());
    let c = containers::open(
        "liar.zip",
        ContainerKind::Zip,
        Rc::new(bytes),
        Limits::default(),
    )
    .unwrap();
    let err = c.read(0).unwrap_err().to_string();
    assert!(err.starts_with("liar.zip: A.TXT at byte "), "{err}");
    // Names that climb out, and a name listed twice: listed as written, the first kept.
    let odd = dir.join("odd.zip");
    python_zip(&odd, "import sys, zipfile, warnings\nwarnings.simplefilter('ignore')\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n  z.writestr('../../x', b'climb')\n  z.writestr('TWICE.TXT', b'first')\n  z.writestr('twice.txt', b'second')\n");
    let c = open(&odd);
    let names: Vec<&str> = c.entries().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(names, ["../../x", "TWICE.TXT"]);
    assert_eq!(c.read(1).unwrap(), b"first");
    assert!(
        c.problems().iter().any(|p| p.to_string()
            == "odd.zip: twice.txt: listed again under the same name: the first is used"),
        "{:?}",
        c.problems()
    );
    // Cut short (the central directory gone), and a central directory overwritten.
    let whole = std::fs::read(&bomb).unwrap();
    for (what, bytes) in [
        ("cut short", whole[..whole.len() / 2].to_vec()),
        ("broken directory", {
            let mut b = whole.clone();
            let cd = b.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
            b[cd..cd + 40].fill(0xAA);
            b
        }),
    ] {
        let err = containers::open(
            "bad.zip",
            ContainerKind::Zip,
            Rc::new(bytes),
            Limits::default(),
        )
        .err()
        .unwrap_or_else(|| panic!("{what}: opened"))
        .to_string();
        assert!(
            err.starts_with("bad.zip: not a readable zip"),
            "{what}: {err}"
        );
    }
}

/// The byte of the first directory record called `name` in an ISO image.
fn record_of(image: &[u8], name: &[u8]) -> usize {
    (0..image.len() - name.len())
        .find(|&i| {
            image[i] as usize == name.len() && &image[i + 1..i + 1 + name.len()] == name && i >= 32
        })
        .unwrap()
        - 32
}

#[test]
fn hostile_isos_loop_nothing_read_nothing_past_the_end_and_keep_the_rest() {
    let dir = scratch("hostile-iso");
    let image = std::fs::read(xorriso_iso(&dir)).unwrap();
    // FIELD's record pointed at the root: a loop, reported, not followed.
    let root_extent = u32::from_le_bytes(
        image[16 * 2048 + 156 + 2..16 * 2048 + 156 + 6]
            .try_into()
            .unwrap(),
    );
    let mut looped = image.clone();
    let field = record_of(&looped, b"FIELD");
    looped[field + 2..field + 6].copy_from_slice(&root_extent.to_le_bytes());
    looped[field + 6..field + 10].copy_from_slice(&root_extent.to_be_bytes());
    let c = containers::open(
        "loop.iso",
        ContainerKind::Iso,
        Rc::new(looped),
        Limits::default(),
    )
    .unwrap();
    assert!(
        c.problems()
            .iter()
            .any(|p| p.to_string().contains("directory FIELD points back")),
        "{:?}",
        c.problems()
    );
    assert_eq!(
        c.entries()
            .iter()
            .map(|e| e.path.as_str())
            .collect::<Vec<_>>(),
        ["README.TXT"]
    );
    // A file whose extent lies past the end: listed, and its read says so.
    let mut past = image.clone();
    let readme = record_of(&past, b"README.TXT;1");
    past[readme + 2..readme + 6].copy_from_slice(&0x00FF_FFFFu32.to_le_bytes());
    past[readme + 6..readme + 10].copy_from_slice(&0x00FF_FFFFu32.to_be_bytes());
    let c = containers::open(
        "past.iso",
        ContainerKind::Iso,
        Rc::new(past),
        Limits::default(),
    )
    .unwrap();
    let err = c
        .read(c.find("README.TXT").unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("past.iso: README.TXT at byte ") && err.contains("past the image's end"),
        "{err}"
    );
    assert_eq!(
        c.read(c.find("FIELD/FIELD.TDB").unwrap()).unwrap(),
        field_files()["FIELD/FIELD.TDB"],
        "the rest stays usable"
    );
    // A raw rip that is not a whole number of sectors: read up to its last whole one.
    let mut raw = mode2_raw(&image);
    raw.extend([0u8; 1000]);
    let c = containers::open(
        "odd.bin",
        ContainerKind::RawDisc(SectorMode::Mode2),
        Rc::new(raw),
        Limits::default(),
    )
    .unwrap();
    assert!(c.problems().iter().any(|p| p.to_string()
        == "odd.bin: 1000 bytes after the last whole 2352-byte sector are not read"));
    assert_eq!(contents(&*c), field_files());
    // Not an ISO at all past its sixteenth sector.
    let mut junk = image[..17 * 2048].to_vec();
    junk[16 * 2048] = 0xEE;
    junk.extend(vec![0x55u8; 2048 * 200]);
    assert!(containers::open(
        "junk.iso",
        ContainerKind::Iso,
        Rc::new(junk),
        Limits::default()
    )
    .is_err());
}

fn relicview(args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The demo archive with the real FF7 field files beside it, loose in `dir/tree`, and the
/// same tree as a zip (Python), an ISO (xorriso), a raw MODE2/2352 rip with its cue, a CHD
/// of it (chdman) and a solid 7z (7-Zip).
fn archives(dir: &Path) -> (PathBuf, Vec<PathBuf>) {
    let tree = dir.join("tree");
    let (ok, _) = relicview(&[std::ffi::OsStr::new("demo"), tree.as_os_str()]);
    assert!(ok);
    let mut ff7 = BTreeMap::new();
    for (p, b) in field_files() {
        ff7.insert(format!("FF7/{p}"), b);
    }
    write_tree(&tree, &ff7);
    let zip = dir.join("GAME.zip");
    python_zip(&zip, &format!("import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs):\n      p = os.path.join(d, f)\n      z.write(p, os.path.relpath(p, root))\n"));
    let iso = dir.join("GAME.iso");
    run(Command::new("xorriso")
        .args(["-as", "mkisofs", "-quiet", "-iso-level", "2", "-o"])
        .arg(&iso)
        .arg(&tree));
    let bin = dir.join("Game (Disc 1).bin");
    std::fs::write(&bin, mode2_raw(&std::fs::read(&iso).unwrap())).unwrap();
    let cue = dir.join("Game (Disc 1).cue");
    std::fs::write(
        &cue,
        "FILE \"GAME (DISC 1).BIN\" BINARY\r\n  TRACK 01 MODE2/2352\r\n    INDEX 01 00:00:00\r\n",
    )
    .unwrap();
    let chd = dir.join("GAME.chd");
    chdman_cd(&bin, &chd);
    let sevenz = dir.join("GAME.7z");
    run(Command::new("7zz")
        .current_dir(&tree)
        .args(["a", "-bso0", "-bsp0", "-t7z", "-m0=LZMA2", "-ms=on", "-r"])
        .arg(&sevenz)
        .arg("."));
    (tree, vec![zip, iso, cue, chd, sevenz])
}

#[test]
fn info_inside_a_zip_an_iso_a_cue_sheets_disc_and_a_chd_equals_the_loose_files() {
    let dir = scratch("cli");
    let (tree, containers) = archives(&dir);
    let loose: Vec<String> = walk(&tree);
    assert!(loose.len() > 40);
    for container in &containers {
        let mut compared = 0;
        for rel in &loose {
            let (ok_a, a) = relicview(&[
                "info".as_ref(),
                tree.join(rel).as_os_str(),
                "--root".as_ref(),
                tree.as_os_str(),
                "--json".as_ref(),
            ]);
            let inside = container.join(rel);
            let (ok_b, b) = relicview(&[
                "info".as_ref(),
                inside.as_os_str(),
                "--root".as_ref(),
                container.as_os_str(),
                "--json".as_ref(),
            ]);
            assert_eq!(
                (ok_b, &b),
                (ok_a, &a),
                "{} inside {}",
                rel,
                container.display()
            );
            compared += 1;
        }
        assert_eq!(compared, loose.len());
        // FIELD.BIN is found inside as beside: its face tables and its lighting.
        let md1 = container.join("FF7/FIELD/MD1_1.BSX");
        let (_, info) = relicview(&[
            "info".as_ref(),
            md1.as_os_str(),
            "--root".as_ref(),
            container.as_os_str(),
            "--json".as_ref(),
        ]);
        let info: serde_json::Value = serde_json::from_str(&info).unwrap();
        assert_eq!(
            info["models"][2]["face"]["source"],
            "FIELD.BIN",
            "inside {}",
            container.display()
        );
        let (_, listing) = relicview(&[
            "inspect".as_ref(),
            md1.as_os_str(),
            "--root".as_ref(),
            container.as_os_str(),
            "--json".as_ref(),
        ]);
        let listing: serde_json::Value = serde_json::from_str(&listing).unwrap();
        let lit = listing["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["polygon"]["corners"][0].get("lit").is_some())
            .count();
        assert!(
            lit > 800,
            "{lit} polygons lit inside {}",
            container.display()
        );
        // The census of the container is the census of the folder.
        let (_, a) = relicview(&["census".as_ref(), tree.as_os_str(), "--json".as_ref()]);
        let (_, b) = relicview(&["census".as_ref(), container.as_os_str(), "--json".as_ref()]);
        assert_eq!(b, a, "census of {}", container.display());
    }
    // A folder holding the containers lists each as a folder of its own name; the cue's
    // .bin is the disc, listed once, under the cue.
    let (_, census) = relicview(&["census".as_ref(), dir.as_os_str(), "--json".as_ref()]);
    let files = serde_json::from_str::<serde_json::Value>(&census).unwrap()["files"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(
        files,
        6 * loose.len(),
        "the tree, the zip, the iso, the disc, the chd and the 7z"
    );
    // A file inside a container opened on its own, without --root.
    let (ok, one) = relicview(&[
        "info".as_ref(),
        containers[2].join("FF7/FIELD/MD1_1.BSX").as_os_str(),
        "--json".as_ref(),
    ]);
    assert!(ok, "{one}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&one).unwrap()["compressed"],
        true
    );
}

fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(
                    e.path()
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_cue_that_names_a_missing_bin_says_so_with_its_line() {
    let dir = scratch("cue");
    let cue = dir.join("LOST.CUE");
    std::fs::write(
        &cue,
        "REM a disc\nFILE \"LOST.BIN\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["info"])
        .arg(cue.join("FIELD/X.BSX"))
        .arg("--json")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("LOST.CUE: line 3: the track's file LOST.BIN is not beside it"),
        "{text}"
    );
}

#[test]
fn serve_lists_containers_as_folders_and_serves_their_entries_with_ranges() {
    let dir = scratch("serve");
    let (tree, containers) = archives(&dir);
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let md1 = std::fs::read(tree.join("FF7/FIELD/MD1_1.BSX")).unwrap();
    // A folder holding the containers: each is a folder of its own name.
    let server = common::serve(&dir, &site);
    let (status, _, body) = common::get(server.port, "/archive.json");
    assert_eq!(status, 200);
    let listing: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let paths: Vec<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for p in [
        "GAME.zip/FF7/FIELD/MD1_1.BSX",
        "GAME.iso/FF7/FIELD/MD1_1.BSX",
        "Game (Disc 1).cue/FF7/FIELD/MD1_1.BSX",
        "tree/FF7/FIELD/MD1_1.BSX",
    ] {
        assert!(paths.contains(&p), "{p} listed");
        let entry = listing["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap();
        assert_eq!(entry["kind"], "bsx");
        assert_eq!(entry["size"], md1.len());
    }
    assert!(
        !paths.iter().any(|p| p.starts_with("Game (Disc 1).bin")),
        "the cue's bin is the disc, listed once"
    );
    for p in [
        "/archive/GAME.zip/FF7/FIELD/MD1_1.BSX",
        "/archive/Game%20(Disc%201).cue/FF7/FIELD/MD1_1.BSX",
        "/archive/GAME.iso/ff7/field/md1_1.bsx",
    ] {
        let (status, _, body) = common::get(server.port, p);
        assert_eq!((status, body.len()), (200, md1.len()), "{p}");
        assert_eq!(body, md1);
        let (status, head, part) =
            common::request(server.port, "GET", p, "Range: bytes=100-163\r\n");
        assert_eq!(status, 206);
        assert!(
            head.to_ascii_lowercase()
                .contains(&format!("content-range: bytes 100-163/{}", md1.len())),
            "{head}"
        );
        assert_eq!(part, md1[100..164]);
        let (status, head, empty) = common::request(server.port, "HEAD", p, "");
        assert_eq!((status, empty.len()), (200, 0));
        assert!(
            head.to_ascii_lowercase()
                .contains(&format!("content-length: {}", md1.len())),
            "{head}"
        );
    }
    let (status, _, _) = common::request(
        server.port,
        "GET",
        "/archive/GAME.zip/FF7/FIELD/MD1_1.BSX",
        "Range: bytes=999999-\r\n",
    );
    assert_eq!(status, 416);
    for p in [
        "/archive/GAME.zip/NOPE.BSX",
        "/archive/GAME.zip/../GAME.iso",
        "/archive/GAME.zip//FF7/FIELD/MD1_1.BSX",
    ] {
        assert_eq!(common::get(server.port, p).0, 404, "{p}");
    }
    drop(server);
    // The disc itself as the archive.
    let server = common::serve(&containers[2], &site);
    let (_, _, body) = common::get(server.port, "/archive.json");
    let listing: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(listing["root"], "Game (Disc 1).cue");
    assert!(listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["path"] == "FF7/FIELD/FIELD.TDB"));
    let (status, _, body) = common::get(server.port, "/archive/FF7/FIELD/FIELD.TDB");
    assert_eq!((status, body), (200, shared("FIELD.TDB_u")));
}

/// The server's peak resident memory so far, in bytes (Linux's VmHWM).
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

#[test]
fn serve_streams_a_large_entry_in_chunks_with_memory_far_below_its_size_and_a_stalled_client_holds_no_one_up(
) {
    let dir = scratch("stream");
    // 96 MiB that deflate cannot shrink much (a generator's, not repeating within its
    // window), stored in one zip and deflated in another by Python's zipfile.
    let mut big = vec![0u8; 96 << 20];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in big.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = (x >> 56) as u8 & 0x3f;
    }
    std::fs::write(dir.join("BIG.STR"), &big).unwrap();
    for (name, method) in [
        ("STORED.zip", "ZIP_STORED"),
        ("DEFLATED.zip", "ZIP_DEFLATED"),
    ] {
        python_zip(
            &dir.join(name),
            &format!("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.{method}, compresslevel=1) as z: z.write(sys.argv[1].rsplit('/', 1)[0] + '/BIG.STR', 'MOVIE/BIG.STR')"),
        );
    }
    std::fs::remove_file(dir.join("BIG.STR")).unwrap();
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>").unwrap();
    let server = common::serve(&dir, &site);
    assert_eq!(common::get(server.port, "/archive.json").0, 200);
    let before = peak_memory(server.child.id());
    // A client that asks for the whole entry and reads nothing: the rest are served.
    let mut stalled = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    std::io::Write::write_all(
        &mut stalled,
        b"GET /archive/DEFLATED.zip/MOVIE/BIG.STR HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    )
    .unwrap();
    for zip in ["STORED.zip", "DEFLATED.zip"] {
        let path = format!("/archive/{zip}/MOVIE/BIG.STR");
        let (status, head, body) = common::get(server.port, &path);
        assert_eq!(status, 200, "{zip}");
        assert!(
            head.to_ascii_lowercase()
                .contains(&format!("content-length: {}", big.len())),
            "{head}"
        );
        assert!(body == big, "{zip}: the served bytes are the entry's");
        // A range deep inside: inflated from the start, handed on from where it was asked.
        let (status, head, part) = common::request(
            server.port,
            "GET",
            &path,
            "Range: bytes=90000000-90000099\r\n",
        );
        assert_eq!(status, 206, "{zip}");
        assert!(
            head.to_ascii_lowercase().contains(&format!(
                "content-range: bytes 90000000-90000099/{}",
                big.len()
            )),
            "{head}"
        );
        assert_eq!(part, big[90_000_000..90_000_100]);
    }
    let grew = peak_memory(server.child.id()).saturating_sub(before);
    eprintln!(
        "peak memory grew by {} KiB serving two 96 MiB entries",
        grew >> 10
    );
    assert!(
        grew < 24 << 20,
        "serving two 96 MiB entries (and one stalled) raised the server's peak memory by {} MiB",
        grew >> 20
    );
    drop(stalled);
}

#[test]
fn listing_progress_counts_the_discs_directories_and_the_zips_entries() {
    let dir = scratch("progress");
    let iso = xorriso_iso(&dir);
    // The directories of the tree given to xorriso, and its root.
    let mut folders: std::collections::BTreeSet<String> = field_files()
        .keys()
        .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d.to_string()))
        .collect();
    folders.insert(String::new());
    let mut heard = Vec::new();
    let image = Rc::new(std::fs::read(&iso).unwrap());
    containers::open_reporting(
        "ff7.iso",
        ContainerKind::Iso,
        image,
        Limits::default(),
        &mut |done, total| heard.push((done, total)),
    )
    .unwrap();
    let n = folders.len() as u64;
    assert_eq!(
        heard,
        (1..=n).map(|d| (d, n)).collect::<Vec<_>>(),
        "one report per directory, of the path table's {n}"
    );
    let zip = dir.join("progress.zip");
    python_zip(&zip, "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n  for i in range(5): z.writestr(f'F/{i}.TXT', str(i))");
    let mut heard = Vec::new();
    containers::open_reporting(
        "progress.zip",
        ContainerKind::Zip,
        Rc::new(std::fs::read(&zip).unwrap()),
        Limits::default(),
        &mut |done, total| heard.push((done, total)),
    )
    .unwrap();
    assert_eq!(heard, (0..5).map(|d| (d, 5)).collect::<Vec<_>>());
}

#[test]
fn every_entry_of_every_container_streams_any_range_as_it_reads_whole() {
    let dir = scratch("ranges");
    let iso = xorriso_iso(&dir);
    let image = std::fs::read(&iso).unwrap();
    std::fs::write(dir.join("ff7.bin"), mode2_raw(&image)).unwrap();
    let zip = dir.join("ff7.zip");
    python_zip(&zip, &format!("import sys, os, zipfile\nroot = {:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs): p = os.path.join(d, f); z.write(p, os.path.relpath(p, root))", dir.join("tree")));
    for path in [iso, dir.join("ff7.bin"), zip] {
        let c = open(&path);
        for i in 0..c.entries().len() {
            let whole = c.read(i).unwrap();
            let size = whole.len() as u64;
            assert_eq!(size, c.entries()[i].size);
            // The whole entry, nothing, one byte at each end, across a chunk's edge, the tail.
            let chunk = containers::CHUNK as u64;
            let ranges = [
                (0, size),
                (0, 0),
                (0, 1.min(size)),
                (size.saturating_sub(1), 1.min(size)),
                (
                    chunk.min(size) / 2,
                    (size - chunk.min(size) / 2).min(chunk + 7),
                ),
                (size / 3, size - size / 3),
            ];
            for (skip, take) in ranges {
                let mut got = Vec::new();
                let mut pieces = 0;
                c.stream(i, skip, take, &mut |b| {
                    assert!(b.len() <= containers::CHUNK);
                    pieces += 1;
                    got.extend_from_slice(b);
                    Ok(())
                })
                .unwrap();
                assert!(
                    got == whole[skip as usize..(skip + take) as usize],
                    "{}: {} bytes {skip}+{take}",
                    path.display(),
                    c.entries()[i].path
                );
                assert!(pieces as u64 <= take.div_ceil(chunk) + 1);
            }
            let past = c
                .stream(i, size, 1, &mut |_| Ok(()))
                .unwrap_err()
                .to_string();
            assert!(
                past.contains(&c.entries()[i].path) && past.contains("asked of"),
                "{past}"
            );
            // A receiver that stops stops the stream, with its reason as the entry's error.
            if size > 0 {
                let stopped = c
                    .stream(i, 0, size, &mut |_| Err("the client went away".into()))
                    .unwrap_err()
                    .to_string();
                assert!(stopped.contains("the client went away"), "{stopped}");
            }
        }
    }
}

/// The pieces of `file` an index row asks for: the container's meta ranges, then the row's.
fn pieces(
    file: &[u8],
    container: &serde_json::Value,
    row: &serde_json::Value,
) -> Vec<(u64, Vec<u8>)> {
    let ranges = container["meta"]
        .as_array()
        .unwrap()
        .iter()
        .chain(row[5].as_array().unwrap());
    ranges
        .map(|r| {
            let (at, len) = (
                r[0].as_u64().unwrap() as usize,
                r[1].as_u64().unwrap() as usize,
            );
            (at as u64, file[at..at + len].to_vec())
        })
        .collect()
}

fn wanted(row: &serde_json::Value) -> containers::hosted::Wanted {
    let pieces = row.get(6).map(|p| {
        p.as_array()
            .unwrap()
            .iter()
            .map(|r| [r[0].as_u64().unwrap(), r[1].as_u64().unwrap()])
            .collect()
    });
    containers::hosted::Wanted {
        at: row[3].as_u64().unwrap(),
        size: row[1].as_u64().unwrap(),
        crc32: u32::from_str_radix(row[4].as_str().unwrap(), 16).unwrap(),
        pieces,
    }
}

#[test]
fn a_hosted_index_lists_every_container_made_by_real_tools_and_each_entry_reads_back_from_its_ranges_alone(
) {
    let dir = scratch("hosted");
    let (tree, made) = archives(&dir);
    // Zips as people make them: every entry stored, and streamed to a pipe (data descriptors).
    python_zip(&dir.join("STORED.zip"), &format!("import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs):\n      p = os.path.join(d, f)\n      z.write(p, os.path.relpath(p, root))\n"));
    run(Command::new("sh").arg("-c").arg(format!(
        "python3 -c \"import sys, os, zipfile\nz = zipfile.ZipFile(sys.stdout.buffer, 'w', zipfile.ZIP_DEFLATED)\nfor d, _, fs in sorted(os.walk('{0}')):\n  for f in sorted(fs):\n    p = os.path.join(d, f); z.writestr(os.path.relpath(p, '{0}'), open(p, 'rb').read())\nz.close()\" | cat > {1}",
        tree.display(),
        dir.join("STREAMED.zip").display()
    )));
    // The loose tree is the truth each entry must equal.
    let loose = walk(&tree);
    let truth: BTreeMap<String, Vec<u8>> = loose
        .iter()
        .map(|p| (p.clone(), std::fs::read(tree.join(p)).unwrap()))
        .collect();
    std::fs::remove_dir_all(&tree).unwrap();
    let (ok, out) = relicview(&["index".as_ref(), dir.as_os_str()]);
    assert!(ok, "{out}");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    let hosted = index["containers"].as_array().unwrap();
    let mut names: Vec<&str> = hosted.iter().map(|c| c["path"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "GAME.chd",
            "GAME.iso",
            "GAME.zip",
            "Game (Disc 1).cue",
            "STORED.zip",
            "STREAMED.zip"
        ]
    );
    assert_eq!(made.len(), 5);
    let loose_files: Vec<&str> = index["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(loose_files, ["GAME.7z"], "the cue's .bin is the disc, listed once under the cue; a 7z is served whole (its entries are no ranges of it)");
    for c in hosted {
        let name = c["path"].as_str().unwrap();
        let file = std::fs::read(dir.join(c["file"].as_str().unwrap())).unwrap();
        assert_eq!(c["size"].as_u64().unwrap(), file.len() as u64, "{name}");
        let layout: containers::hosted::Layout = serde_json::from_value(c.clone()).unwrap();
        let rows = c["entries"].as_array().unwrap();
        assert_eq!(rows.len(), truth.len(), "{name} lists every file");
        for row in rows {
            let path = row[0].as_str().unwrap();
            let fetched =
                containers::hosted::Fetched::new(file.len() as u64, pieces(&file, c, row)).unwrap();
            let bytes = containers::hosted::read_hosted(
                name,
                path,
                &layout,
                fetched,
                wanted(row),
                Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
            assert_eq!(&bytes, &truth[path], "{name}/{path} from its ranges alone");
            let kind = row[2].as_str().unwrap();
            if path.ends_with(".BSX") {
                assert_eq!(kind, "bsx", "{name}/{path}");
            }
        }
        // What one field model costs: its ranges, plus the container's meta ranges.
        let md1 = rows.iter().find(|r| r[0] == "FF7/FIELD/MD1_1.BSX").unwrap();
        let fetched: usize = pieces(&file, c, md1).iter().map(|(_, b)| b.len()).sum();
        let ratio = fetched as f64 / md1[1].as_u64().unwrap() as f64;
        eprintln!(
            "{name}: MD1_1.BSX ({} bytes) reads {fetched} bytes of the container: {ratio:.2}×",
            md1[1]
        );
        assert!(ratio < 12.0, "{name}: {ratio}");
    }
}

#[test]
fn a_hosted_entry_whose_container_changed_or_whose_ranges_are_missing_is_an_error_naming_both() {
    let dir = scratch("stale");
    let (_, made) = archives(&dir);
    let (ok, _) = relicview(&["index".as_ref(), dir.as_os_str()]);
    assert!(ok);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    assert!(made.iter().all(|m| m.exists()));
    for c in index["containers"].as_array().unwrap() {
        let name = c["path"].as_str().unwrap();
        let mut file = std::fs::read(dir.join(c["file"].as_str().unwrap())).unwrap();
        let layout: containers::hosted::Layout = serde_json::from_value(c.clone()).unwrap();
        let row = c["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r[0] == "FF7/FIELD/FIELD.TDB")
            .unwrap();
        // A byte of the entry changed after indexing: its first user byte in a disc's
        // sector, the middle of a zip's data or of a CHD's compressed hunks.
        let r = &row[5][0];
        let (start, len) = (
            r[0].as_u64().unwrap() as usize,
            r[1].as_u64().unwrap() as usize,
        );
        let at = match c["mode"].as_str() {
            Some("MODE2") => start + 24,
            Some("MODE1") => start + 16,
            Some(_) => start,
            None => start + len / 2,
        };
        file[at] ^= 0x5A;
        let fetched =
            containers::hosted::Fetched::new(file.len() as u64, pieces(&file, c, row)).unwrap();
        let e = containers::hosted::read_hosted(
            name,
            "FF7/FIELD/FIELD.TDB",
            &layout,
            fetched,
            wanted(row),
            Limits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(&format!("{name}: FF7/FIELD/FIELD.TDB")),
            "{e}"
        );
        assert!(e.contains("publish it again"), "{name}: {e}");
        // The ranges named, but not fetched.
        let fetched = containers::hosted::Fetched::new(file.len() as u64, Vec::new()).unwrap();
        let e = containers::hosted::read_hosted(
            name,
            "FF7/FIELD/FIELD.TDB",
            &layout,
            fetched,
            wanted(row),
            Limits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("more than its 0 fetched bytes can hold")
                || e.contains("not among the ranges"),
            "{name}: {e}"
        );
        // The ranges' bytes, but from the wrong place (a stale offset).
        let moved = pieces(&file, c, row)
            .into_iter()
            .map(|(at, b)| (at + 1, b))
            .filter(|(at, b)| at + b.len() as u64 <= file.len() as u64)
            .collect();
        let fetched = containers::hosted::Fetched::new(file.len() as u64, moved).unwrap();
        let e = containers::hosted::read_hosted(
            name,
            "FF7/FIELD/FIELD.TDB",
            &layout,
            fetched,
            wanted(row),
            Limits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("not among the ranges") || e.contains("publish it again"),
            "{name}: {e}"
        );
    }
}

/// Zips of `tree` as people make them: 7-Zip in each method it writes (Deflate64, BZip2,
/// LZMA, PPMd, XZ besides Deflate), Python's zipfile with bzip2 and LZMA, and a Zstandard
/// one: python-zstandard's frames in a zip Python writes stored, its method and sizes then
/// set to Zstandard's (no tool here writes Zstandard zips). → (name, path) of each.
fn method_zips(dir: &Path, tree: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for method in ["Deflate", "Deflate64", "BZip2", "LZMA", "PPMd", "XZ"] {
        let zip = dir.join(format!("7z-{method}.zip"));
        let _ = std::fs::remove_file(&zip);
        run(Command::new("7zz")
            .current_dir(tree)
            .args([
                "a",
                "-bso0",
                "-bsp0",
                "-tzip",
                &format!("-mm={method}"),
                "-r",
            ])
            .arg(&zip)
            .arg("."));
        out.push((format!("7-Zip {method}"), zip));
    }
    for (name, kind) in [("bzip2", "ZIP_BZIP2"), ("lzma", "ZIP_LZMA")] {
        let zip = dir.join(format!("python-{name}.zip"));
        python_zip(&zip, &format!("import sys, os, zipfile\nroot = {tree:?}\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.{kind}) as z:\n  for d, _, fs in sorted(os.walk(root)):\n    for f in sorted(fs):\n      p = os.path.join(d, f)\n      z.write(p, os.path.relpath(p, root))\n"));
        out.push((format!("Python {name}"), zip));
    }
    let zstd = dir.join("zstd.zip");
    python_zip(&zstd, &format!(
        "import sys, os, zipfile, zlib, zstandard, struct\nroot = {tree:?}\nfiles = []\nfor d, _, fs in sorted(os.walk(root)):\n  for f in sorted(fs):\n    p = os.path.join(d, f); files.append((os.path.relpath(p, root), open(p, 'rb').read()))\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:\n  for name, data in files: z.writestr(name, zstandard.ZstdCompressor(level=9).compress(data))\nb = bytearray(open(sys.argv[1], 'rb').read())\nsizes = {{n: (len(d), zlib.crc32(d)) for n, d in files}}\nat = 0\nwhile True:\n  sig = b[at:at + 4]\n  if sig == b'PK\\x03\\x04':\n    n = struct.unpack_from('<H', b, at + 26)[0]; name = b[at + 30:at + 30 + n].decode(); size, crc = sizes[name]\n    struct.pack_into('<H', b, at + 8, 93); struct.pack_into('<I', b, at + 14, crc); struct.pack_into('<I', b, at + 22, size)\n    at += 30 + n + struct.unpack_from('<H', b, at + 28)[0] + struct.unpack_from('<I', b, at + 18)[0]\n  elif sig == b'PK\\x01\\x02':\n    n = struct.unpack_from('<H', b, at + 28)[0]; name = b[at + 46:at + 46 + n].decode(); size, crc = sizes[name]\n    struct.pack_into('<H', b, at + 10, 93); struct.pack_into('<I', b, at + 16, crc); struct.pack_into('<I', b, at + 24, size)\n    at += 46 + n + struct.unpack_from('<H', b, at + 30)[0] + struct.unpack_from('<H', b, at + 32)[0]\n  else: break\nopen(sys.argv[1], 'wb').write(b)\n"
    ));
    out.push(("Zstandard".into(), zstd));
    // A self-extracting program: a small executable with a zip appended, its offsets made
    // right by Info-ZIP's `zip -A`, as such archives are shipped; and a zip after 14 bytes
    // of something else, offsets not adjusted.
    let deflated = dir.join("7z-Deflate.zip");
    let exe = dir.join("SETUP.EXE");
    let mut program = std::fs::read("/usr/bin/true").unwrap();
    program.extend(std::fs::read(&deflated).unwrap());
    std::fs::write(&exe, program).unwrap();
    run(Command::new("zip").arg("-q").arg("-A").arg(&exe));
    out.push(("self-extracting".into(), exe));
    let prefixed = dir.join("prefixed.zip");
    let mut junk = b"14 bytes junk!".to_vec();
    junk.extend(std::fs::read(&deflated).unwrap());
    std::fs::write(&prefixed, junk).unwrap();
    out.push(("prefixed".into(), prefixed));
    out
}

fn open_sniffed(path: &Path) -> Box<dyn Container> {
    let source = Rc::new(std::fs::read(path).unwrap());
    let kind = containers::sniff_source(&path.file_name().unwrap().to_string_lossy(), &*source)
        .unwrap_or_else(|| panic!("{} is told as a container", path.display()));
    containers::open(
        &path.file_name().unwrap().to_string_lossy(),
        kind,
        source,
        Limits::default(),
    )
    .unwrap()
}

#[test]
fn zips_in_every_common_method_and_self_extracting_programs_read_every_entry_as_given() {
    let dir = scratch("methods");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    for (what, zip) in method_zips(&dir, &tree) {
        let c = open_sniffed(&zip);
        assert_eq!(c.kind(), ContainerKind::Zip, "{what}");
        assert_eq!(
            contents(&*c),
            field_files(),
            "{what}: every entry, byte for byte"
        );
        assert!(c.problems().is_empty(), "{what}: {:?}", c.problems());
        let said: Vec<String> = c.notes().iter().map(|p| p.to_string()).collect();
        match what.as_str() {
            "self-extracting" | "prefixed" => assert!(
                said.len() == 1 && said[0].contains("the zip's first entry starts at byte"),
                "{what}: a note, not a problem: {said:?}"
            ),
            _ => assert!(said.is_empty(), "{what}: {said:?}"),
        }
        // A range of an entry streamed is that range of the whole.
        let i = c.find("FIELD/FIELD.TDB").unwrap();
        let mut streamed = Vec::new();
        c.stream(i, 1000, 5000, &mut |b| {
            streamed.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            streamed,
            field_files()["FIELD/FIELD.TDB"][1000..6000],
            "{what}"
        );
    }
    // A program with no zip after it is no container.
    let source = std::fs::read("/usr/bin/true").unwrap();
    assert_eq!(containers::sniff_source("TRUE.EXE", &source), None);
}

#[test]
fn encrypted_entries_say_so_on_their_own_and_the_rest_of_the_zip_reads() {
    let dir = scratch("encrypted");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    for how in ["ZipCrypto", "AES256"] {
        let zip = dir.join(format!("{how}.zip"));
        run(Command::new("7zz")
            .current_dir(&tree)
            .args([
                "a",
                "-bso0",
                "-bsp0",
                "-tzip",
                "-psecret",
                &format!("-mem={how}"),
            ])
            .arg(&zip)
            .arg("FIELD"));
        // One entry in the clear, added after.
        run(Command::new("7zz")
            .current_dir(&tree)
            .args(["a", "-bso0", "-bsp0", "-tzip"])
            .arg(&zip)
            .arg("README.TXT"));
        let c = open(&zip);
        assert_eq!(c.entries().len(), 6, "{how}: listed whole");
        let e = c
            .read(c.find("FIELD/MD1_1.BSX").unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!("{how}.zip: FIELD/MD1_1.BSX at byte"))
                && e.ends_with("encrypted (ZipCrypto or AES): not read"),
            "{how}: {e}"
        );
        assert_eq!(
            c.read(c.find("README.TXT").unwrap()).unwrap(),
            field_files()["README.TXT"],
            "{how}: the clear entry reads"
        );
    }
}

#[test]
fn zips_in_every_method_and_a_self_extracting_program_index_for_a_host_and_read_back_from_their_ranges(
) {
    let dir = scratch("hosted-methods");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    let zips = method_zips(&dir, &tree);
    std::fs::remove_dir_all(&tree).unwrap();
    let (ok, out) = relicview(&["index".as_ref(), dir.as_os_str()]);
    assert!(ok, "{out}");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    let hosted = index["containers"].as_array().unwrap();
    assert_eq!(
        hosted.len(),
        zips.len(),
        "every zip, the program among them, is a container: {:?}",
        index["files"]
    );
    for c in hosted {
        let name = c["path"].as_str().unwrap();
        let file = std::fs::read(dir.join(c["file"].as_str().unwrap())).unwrap();
        let layout: containers::hosted::Layout = serde_json::from_value(c.clone()).unwrap();
        for row in c["entries"].as_array().unwrap() {
            let path = row[0].as_str().unwrap();
            let fetched =
                containers::hosted::Fetched::new(file.len() as u64, pieces(&file, c, row)).unwrap();
            let bytes = containers::hosted::read_hosted(
                name,
                path,
                &layout,
                fetched,
                wanted(row),
                Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
            assert_eq!(bytes, field_files()[path], "{name}/{path}");
        }
    }
}

/// 7z archives of `tree` made by 7-Zip: each method, solid and not, with a BCJ filter.
fn sevenz_archives(dir: &Path, tree: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (what, args) in [
        ("LZMA2 solid", vec!["-m0=LZMA2", "-ms=on"]),
        ("LZMA2 not solid", vec!["-m0=LZMA2", "-ms=off"]),
        ("LZMA solid", vec!["-m0=LZMA", "-ms=on"]),
        ("PPMd solid", vec!["-m0=PPMd", "-ms=on"]),
        ("BZip2 not solid", vec!["-m0=BZip2", "-ms=off"]),
        ("BCJ + LZMA solid", vec!["-m0=BCJ", "-m1=LZMA", "-ms=on"]),
        ("Deflate solid", vec!["-m0=Deflate", "-ms=on"]),
    ] {
        let out_path = dir.join(format!("{}.7z", what.replace([' ', '+'], "_")));
        let _ = std::fs::remove_file(&out_path);
        run(Command::new("7zz")
            .current_dir(tree)
            .args(["a", "-bso0", "-bsp0", "-t7z"])
            .args(&args)
            .arg("-r")
            .arg(&out_path)
            .arg("."));
        out.push((what.to_string(), out_path));
    }
    out
}

#[test]
fn sevenz_archives_from_7zip_in_every_method_solid_or_not_read_every_entry_as_given() {
    let dir = scratch("7z");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    for (what, path) in sevenz_archives(&dir, &tree) {
        let c = open_sniffed(&path);
        assert_eq!(c.kind(), ContainerKind::SevenZ, "{what}");
        assert!(c.problems().is_empty(), "{what}: {:?}", c.problems());
        // Backwards, so that each entry of a solid block is reached past the others.
        let mut read = BTreeMap::new();
        for i in (0..c.entries().len()).rev() {
            read.insert(
                c.entries()[i].path.clone(),
                c.read(i).unwrap_or_else(|e| panic!("{what}: {e}")),
            );
        }
        assert_eq!(read, field_files(), "{what}");
        for i in 0..c.entries().len() {
            assert_eq!(
                c.head(i, 16).unwrap(),
                field_files()[&c.entries()[i].path][..16.min(c.entries()[i].size as usize)],
                "{what}: head"
            );
        }
    }
}

#[test]
fn a_hostile_7z_is_an_error_naming_it_and_an_entry_that_decodes_wrong_names_its_block() {
    let dir = scratch("7z-hostile");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    let (_, solid) = sevenz_archives(&dir, &tree).remove(0);
    let bytes = std::fs::read(&solid).unwrap();
    // Cut short: its header (at the end) is gone.
    for cut in [bytes.len() / 2, 40, 10] {
        let e = containers::open(
            "cut.7z",
            ContainerKind::SevenZ,
            Rc::new(bytes[..cut].to_vec()),
            Limits::default(),
        )
        .err()
        .expect("a cut 7z does not open")
        .to_string();
        assert!(
            e.starts_with("cut.7z") && e.contains(": not a readable 7z archive"),
            "{e}"
        );
    }
    // A byte of the packed data changed: the header still lists; reading says which entry
    // and block fail, and the archive's other reads go on.
    let mut bad = bytes.clone();
    bad[200] ^= 0x55;
    let c = containers::open(
        "bad.7z",
        ContainerKind::SevenZ,
        Rc::new(bad),
        Limits::default(),
    )
    .unwrap();
    let errors: Vec<String> = (0..c.entries().len())
        .filter_map(|i| c.read(i).err())
        .map(|e| e.to_string())
        .collect();
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .all(|e| e.starts_with("bad.7z: ") && e.contains("block 0")),
        "{errors:?}"
    );
    // Limits hold: an entry larger than the most read is refused by its declared size.
    let small = Limits {
        max_entry_bytes: 1000,
        ..Limits::default()
    };
    let c = containers::open("limits.7z", ContainerKind::SevenZ, Rc::new(bytes), small).unwrap();
    let i = c.find("FIELD/FIELD.TDB").unwrap();
    assert!(c
        .read(i)
        .unwrap_err()
        .to_string()
        .contains("more than the 1000 read at most"));
}

#[test]
fn a_disc_rip_inside_a_solid_7z_opens_as_a_disc_in_the_cli_within_its_memory() {
    let dir = scratch("7z-disc");
    let iso = xorriso_iso(&dir);
    let holder = dir.join("holder");
    std::fs::create_dir_all(&holder).unwrap();
    std::fs::write(
        holder.join("FF7.bin"),
        mode2_raw(&std::fs::read(&iso).unwrap()),
    )
    .unwrap();
    let sevenz = dir.join("FF7.7z");
    run(Command::new("7zz")
        .current_dir(&holder)
        .args(["a", "-bso0", "-bsp0", "-t7z", "-m0=LZMA2", "-ms=on"])
        .arg(&sevenz)
        .arg("FF7.bin"));
    let tree = dir.join("tree");
    let inside = sevenz.join("FF7.bin/FIELD/MD1_1.BSX");
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(env!("CARGO_BIN_EXE_relicview"))
        .args([
            "info".as_ref(),
            inside.as_os_str(),
            "--root".as_ref(),
            sevenz.as_os_str(),
            "--json".as_ref(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, loose) = relicview(&[
        "info".as_ref(),
        tree.join("FIELD/MD1_1.BSX").as_os_str(),
        "--root".as_ref(),
        tree.as_os_str(),
        "--json".as_ref(),
    ]);
    let inside_info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loose_info: serde_json::Value = serde_json::from_str(&loose).unwrap();
    assert_eq!(
        inside_info["models"], loose_info["models"],
        "the model inside the disc inside the 7z is the loose one"
    );
    let peak_kb: u64 = String::from_utf8_lossy(&out.stderr)
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    let disc = std::fs::metadata(holder.join("FF7.bin")).unwrap().len();
    eprintln!("a field model inside a {disc}-byte rip inside a solid 7z: peak resident memory {peak_kb} KiB");
    assert!(
        peak_kb * 1024 < 64 * 1024 * 1024 + 4 * disc,
        "{peak_kb} KiB"
    );
}

#[test]
fn a_field_model_after_a_large_file_in_a_solid_7z_opens_within_the_memory_cap() {
    let dir = scratch("7z-solid-big");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    // 48 MB of a movie first in the block (too large to keep), then the field files (7-Zip
    // orders a block by path).
    std::fs::create_dir_all(tree.join("ANIM")).unwrap();
    let movie: Vec<u8> = (0..48_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8 & 0x0F)
        .collect();
    std::fs::write(tree.join("ANIM/OPENING.STR"), &movie).unwrap();
    let sevenz = dir.join("BIG.7z");
    run(Command::new("7zz")
        .current_dir(&tree)
        .args([
            "a",
            "-bso0",
            "-bsp0",
            "-t7z",
            "-m0=LZMA2",
            "-mx=1",
            "-ms=on",
            "-mqs=off",
        ])
        .arg(&sevenz)
        .args(["ANIM/OPENING.STR", "FIELD/MD1_1.BSX", "FIELD/FIELD.TDB"]));
    let c = open_sniffed(&sevenz);
    let i = c.find("FIELD/MD1_1.BSX").unwrap();
    // 7-Zip orders the block by path: the movie, FIELD.TDB, then the model.
    let to_decode = movie.len()
        + field_files()["FIELD/FIELD.TDB"].len()
        + field_files()["FIELD/MD1_1.BSX"].len();
    assert_eq!(
        c.read_note(i),
        Some(format!(
            "decoding block 1 of 1 ({} MB)",
            to_decode.div_ceil(1_000_000)
        )),
        "it says what the read takes"
    );
    let mut heard = Vec::new();
    let bytes = c
        .read_reporting(i, &mut |done, total| heard.push((done, total)))
        .unwrap();
    assert_eq!(bytes, field_files()["FIELD/MD1_1.BSX"]);
    assert!(
        heard.len() >= 2 && heard.iter().all(|&(d, t)| d <= t && t == to_decode as u64),
        "{heard:?}"
    );
    // The CLI's peak memory opening it: the movie is decoded and let go, not held.
    let inside = sevenz.join("FIELD/MD1_1.BSX");
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(env!("CARGO_BIN_EXE_relicview"))
        .args(["info".as_ref(), inside.as_os_str(), "--json".as_ref()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let peak_kb: u64 = String::from_utf8_lossy(&out.stderr)
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    eprintln!(
        "a field model after a 48 MB movie in a solid 7z: peak resident memory {peak_kb} KiB"
    );
    assert!(peak_kb < 48_000, "{peak_kb} KiB: the movie was held");
}

/// A 7z whose compressed header lists `count` entries, written by Python from the header
/// layout in docs/formats/containers.md ("7z") and compressed by liblzma (Python's lzma, raw
/// LZMA1, as 7-Zip compresses headers). With `named`, every entry is an empty file with a
/// 7-character name, and 7-Zip lists them all; without, the header is the count alone
/// followed by zeros: the fewest bytes that declare it.
fn many_entry_7z(path: &Path, count: u64, named: bool) {
    const SCRIPT: &str = r#"
import lzma, struct, sys, zlib
def number(v):  # 7z's variable-length number: as many leading 1 bits as bytes that follow
    for n in range(8):
        if v < 1 << (7 * n + 7):
            return bytes([(0xFF00 >> n) & 0xFF | v >> (8 * n)]) + v.to_bytes(8, 'little')[:n]
    return b'\xff' + v.to_bytes(8, 'little')
count, named, out = int(sys.argv[1]), sys.argv[2] == 'named', sys.argv[3]
files = bytes([0x01, 0x05]) + number(count)  # header, files record, the count
if named:
    bits = b'\xff' * (count // 8) + (bytes([0xFF << (8 - count % 8) & 0xFF]) if count % 8 else b'')
    names = b''.join(f'{i:07d}'.encode('utf-16-le') + b'\0\0' for i in range(count))
    files += b'\x0e' + number(len(bits)) + bits + b'\x0f' + number(len(bits)) + bits  # no data; empty files
    files += b'\x11' + number(len(names) + 1) + b'\0' + names + b'\0\0'  # names; end of files, of header
else:
    files += b'\0\0' + bytes(count + 16)  # end of files, of header; the reader bounds counts by the header's length
dictionary = 1 << 24
packed = lzma.compress(files, format=lzma.FORMAT_RAW, filters=[{'id': lzma.FILTER_LZMA1, 'dict_size': dictionary, 'lc': 3, 'lp': 0, 'pb': 2}])
# The encoded header: pack info (at 0, one stream of len(packed)), one block of one LZMA coder, its size and CRC.
encoded = b'\x17\x06' + number(0) + number(1) + b'\x09' + number(len(packed)) + b'\0'
encoded += b'\x07\x0b' + number(1) + b'\0\x01\x23\x03\x01\x01\x05\x5d' + struct.pack('<I', dictionary)
encoded += b'\x0c' + number(len(files)) + b'\x0a\x01' + struct.pack('<I', zlib.crc32(files)) + b'\0\0'
start = struct.pack('<QQI', len(packed), len(encoded), zlib.crc32(encoded))
open(out, 'wb').write(b'7z\xbc\xaf\x27\x1c\x00\x04' + struct.pack('<I', zlib.crc32(start)) + start + packed + encoded)
"#;
    run(Command::new("python3")
        .args([
            "-c",
            SCRIPT,
            &count.to_string(),
            if named { "named" } else { "bare" },
        ])
        .arg(path));
}

#[test]
fn a_7z_of_millions_of_entries_is_an_error_naming_it_within_tens_of_megabytes_and_the_rest_is_read()
{
    let dir = scratch("7z-millions");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    many_entry_7z(&tree.join("MILLIONS.7z"), 2_000_000, true);
    many_entry_7z(&tree.join("DECLARED.7z"), 30_000_000, false);
    many_entry_7z(&tree.join("QUARTER.7z"), 250_000, true);
    // 7-Zip reads them as what they say: two million empty files.
    let listed = Command::new("7zz")
        .arg("l")
        .arg(tree.join("MILLIONS.7z"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.trim_end().ends_with("2000000 files"),
        "7-Zip's listing ends: {}",
        &listed[listed.len().saturating_sub(200)..]
    );
    let archive_bytes = std::fs::metadata(tree.join("DECLARED.7z")).unwrap().len();
    assert!(
        archive_bytes < 16 << 10,
        "30 million entries are declared in {archive_bytes} bytes"
    );
    // The CLI's census of the folder: each 7z fails with why, the field files are read, and
    // the process's peak memory stays at tens of megabytes.
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(env!("CARGO_BIN_EXE_relicview"))
        .arg("census")
        .arg(&tree)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let census: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: BTreeMap<String, String> = census["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        failed.keys().collect::<Vec<_>>(),
        ["DECLARED.7z", "MILLIONS.7z", "QUARTER.7z"],
        "{failed:?}"
    );
    for name in ["DECLARED.7z", "MILLIONS.7z"] {
        assert!(
            failed[name].contains(&format!("{name} at byte "))
                && failed[name].contains("its header declares more entries than fit"),
            "{name}: {}",
            failed[name]
        );
    }
    assert!(
        failed["QUARTER.7z"]
            .contains("QUARTER.7z: 250000 entries: more than the 200000 listed at most"),
        "{}",
        failed["QUARTER.7z"]
    );
    let field_only = dir.join("field-only");
    write_tree(&field_only, &field_files());
    let (_, alone) = relicview(&["census".as_ref(), field_only.as_os_str(), "--json".as_ref()]);
    let alone: serde_json::Value = serde_json::from_str(&alone).unwrap();
    assert_eq!(
        (&census["kinds"]["bsx"], &census["triangles"]),
        (&alone["kinds"]["bsx"], &alone["triangles"]),
        "the field files beside them are read as when alone"
    );
    assert!(alone["triangles"].as_u64().unwrap() > 0);
    let peak_kb: u64 = String::from_utf8_lossy(&out.stderr)
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    eprintln!("census of 2,000,000 + 30,000,000 + 250,000 entries in three 7z: peak resident memory {peak_kb} KiB");
    assert!(peak_kb < 160 << 10, "peak resident memory {peak_kb} KiB");
}

/// A store of decoded entries in memory, as the page's is on disk, counting what it is asked:
/// an entry is kept once its last piece has come.
#[derive(Default, Clone)]
struct MemoryStore(Arc<Mutex<(Entries, usize)>>, Arc<Mutex<Entries>>);

/// Decoded entries by index.
type Entries = BTreeMap<usize, Vec<u8>>;

impl containers::DecodedStore for MemoryStore {
    fn has(&self, index: usize) -> bool {
        self.0.lock().unwrap().0.contains_key(&index)
    }
    fn get(&self, index: usize) -> Option<Vec<u8>> {
        let mut inner = self.0.lock().unwrap();
        inner.1 += 1;
        inner.0.get(&index).cloned()
    }
    fn put(&self, index: usize, offset: u64, bytes: &[u8], last: bool) {
        let mut pending = self.1.lock().unwrap();
        let piece = pending.entry(index).or_default();
        assert_eq!(piece.len() as u64, offset, "pieces come in order");
        piece.extend_from_slice(bytes);
        if last {
            let whole = pending.remove(&index).unwrap();
            self.0.lock().unwrap().0.insert(index, whole);
        }
    }
}

/// The bytes of a file, counting how many are read.
struct Counted(Vec<u8>, std::sync::atomic::AtomicU64);

impl containers::ByteSource for Counted {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        self.1
            .fetch_add(buf.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.0.read_at(offset, buf)
    }
}

#[test]
fn a_solid_7z_opened_again_with_its_store_reads_entries_from_it_without_decoding_and_a_mangled_one_is_decoded(
) {
    let dir = scratch("7z-store");
    let tree = dir.join("tree");
    write_tree(&tree, &field_files());
    let (_, solid) = sevenz_archives(&dir, &tree).remove(0);
    let bytes = std::fs::read(&solid).unwrap();
    let open_with = |store: &MemoryStore| {
        let source = Rc::new(Counted(bytes.clone(), 0.into()));
        let mut c = containers::open(
            "SOLID.7z",
            ContainerKind::SevenZ,
            source.clone(),
            Limits::default(),
        )
        .unwrap();
        c.keep_decoded_in(Box::new(store.clone()));
        (c, source)
    };
    let read_bytes = |s: &Counted| s.1.load(std::sync::atomic::Ordering::Relaxed);
    // The first open decodes the block to its last entry: every entry on the way is stored.
    let store = MemoryStore::default();
    let (c, source) = open_with(&store);
    let last = (0..c.entries().len())
        .max_by_key(|&i| &c.entries()[i].path)
        .unwrap();
    let listed = read_bytes(&source);
    assert_eq!(
        c.read(last).unwrap(),
        field_files()[&c.entries()[last].path]
    );
    assert!(read_bytes(&source) > listed, "the block was read");
    assert_eq!(
        store.0.lock().unwrap().0.len(),
        c.entries().len(),
        "each entry decoded on the way is stored"
    );
    // Opened again (a new reader, nothing in memory): every entry comes from the store, and
    // not one byte of the archive past its header is read.
    let (c, source) = open_with(&store);
    let listed = read_bytes(&source);
    assert_eq!(contents(&*c), field_files());
    assert_eq!(read_bytes(&source), listed, "nothing was decoded");
    assert!(
        c.read_note(last).is_none(),
        "nothing to say of a stored read"
    );
    // A store that lost a byte of an entry or cut one short: the entry is decoded instead,
    // right, whatever the store says.
    for (k, v) in store.0.lock().unwrap().0.iter_mut() {
        if k % 2 == 0 {
            v[0] ^= 1;
        } else {
            v.pop();
        }
    }
    let (c, source) = open_with(&store);
    let listed = read_bytes(&source);
    assert_eq!(contents(&*c), field_files());
    assert!(
        read_bytes(&source) > listed,
        "the mangled entries were decoded"
    );
}

#[test]
fn a_cue_sheet_inside_a_7z_or_a_zip_is_the_folder_of_its_disc_and_the_bin_it_names_is_not_listed_beside_it(
) {
    let dir = scratch("cue-inside");
    let iso = xorriso_iso(&dir);
    let holder = dir.join("holder");
    std::fs::create_dir_all(holder.join("DISC")).unwrap();
    std::fs::write(
        holder.join("DISC/FF7.BIN"),
        mode2_raw(&std::fs::read(&iso).unwrap()),
    )
    .unwrap();
    // The sheet names its .bin in another case, as sheets written on Windows do.
    std::fs::write(
        holder.join("DISC/FF7.CUE"),
        "FILE \"ff7.bin\" BINARY\r\n  TRACK 01 MODE2/2352\r\n    INDEX 01 00:00:00\r\n",
    )
    .unwrap();
    // A sheet whose .bin is not there stays a file, and says why.
    std::fs::write(
        holder.join("DISC/LOST.CUE"),
        "FILE \"LOST.BIN\" BINARY\n  TRACK 01 MODE2/2352\n    INDEX 01 00:00:00\n",
    )
    .unwrap();
    let sevenz = dir.join("FF7.7z");
    run(Command::new("7zz")
        .current_dir(&holder)
        .args(["a", "-bso0", "-bsp0", "-t7z", "-m0=LZMA2", "-ms=on", "-r"])
        .arg(&sevenz)
        .arg("DISC"));
    let zip = dir.join("FF7.zip");
    run(Command::new("python3").args(["-c", "import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor n in ['DISC/FF7.BIN', 'DISC/FF7.CUE', 'DISC/LOST.CUE']:\n    z.write(os.path.join(sys.argv[1], n), n)\nz.close()"]).arg(&holder).arg(&zip));
    let tree = dir.join("tree");
    let (_, loose) = relicview(&[
        "info".as_ref(),
        tree.join("FIELD/MD1_1.BSX").as_os_str(),
        "--root".as_ref(),
        tree.as_os_str(),
        "--json".as_ref(),
    ]);
    let loose: serde_json::Value = serde_json::from_str(&loose).unwrap();
    for archive in [&sevenz, &zip] {
        let name = archive.file_name().unwrap().to_string_lossy().into_owned();
        let disk = relicview::disk::Disk::new(archive);
        let relicview::disk::ContainerListing {
            files, problems, ..
        } = disk.list("");
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let mut expected: Vec<String> = field_files()
            .keys()
            .map(|p| format!("DISC/FF7.CUE/{p}"))
            .collect();
        expected.push("DISC/LOST.CUE".into());
        expected.sort();
        assert_eq!(
            paths, expected,
            "{name}: the disc under its sheet; the .bin not beside it"
        );
        assert!(
            problems.iter().any(|(_, why)| why
                == &format!(
                    "{name}/DISC/LOST.CUE: line 2: the track's file LOST.BIN is not beside it"
                )),
            "{name}: {problems:?}"
        );
        // Every file of the disc reads as the loose one; the model's info is the loose one's.
        for f in &files[..files.len() - 1] {
            assert_eq!(
                disk.read(&f.path, 1 << 30).unwrap(),
                field_files()[f.path.strip_prefix("DISC/FF7.CUE/").unwrap()],
                "{name}: {}",
                f.path
            );
        }
        let inside = archive.join("DISC/FF7.CUE/FIELD/MD1_1.BSX");
        let (ok, info) = relicview(&[
            "info".as_ref(),
            inside.as_os_str(),
            "--root".as_ref(),
            archive.as_os_str(),
            "--json".as_ref(),
        ]);
        assert!(ok, "{name}: {info}");
        let info: serde_json::Value = serde_json::from_str(&info).unwrap();
        assert_eq!(info["models"], loose["models"], "{name}");
    }
}

#[test]
fn an_entry_too_large_to_keep_goes_to_the_store_in_pieces_as_a_later_one_is_decoded() {
    // 9 MB (more than a reader keeps in memory) before a small file in one solid block.
    let dir = scratch("7z-store-large");
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("A")).unwrap();
    let large: Vec<u8> = (0..9_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    std::fs::write(tree.join("A/LARGE.BIN"), &large).unwrap();
    std::fs::write(tree.join("B.TXT"), b"after the large one").unwrap();
    let sevenz = dir.join("PAIR.7z");
    run(Command::new("7zz")
        .current_dir(&tree)
        .args([
            "a",
            "-bso0",
            "-bsp0",
            "-t7z",
            "-m0=LZMA2",
            "-mx=1",
            "-ms=on",
            "-mqs=off",
        ])
        .arg(&sevenz)
        .args(["A/LARGE.BIN", "B.TXT"]));
    let bytes = std::fs::read(&sevenz).unwrap();
    let store = MemoryStore::default();
    let open_with = |store: &MemoryStore| {
        let source = Rc::new(Counted(bytes.clone(), 0.into()));
        let mut c = containers::open(
            "PAIR.7z",
            ContainerKind::SevenZ,
            source.clone(),
            Limits::default(),
        )
        .unwrap();
        c.keep_decoded_in(Box::new(store.clone()));
        (c, source)
    };
    let (c, _) = open_with(&store);
    assert_eq!(
        c.read(c.find("B.TXT").unwrap()).unwrap(),
        b"after the large one"
    );
    assert_eq!(
        store
            .0
            .lock()
            .unwrap()
            .0
            .get(&c.find("A/LARGE.BIN").unwrap()),
        Some(&large),
        "stored whole, in pieces"
    );
    // A new reader reads the large one from the store: nothing past the header is read.
    let (c, source) = open_with(&store);
    let listed = source.1.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(c.read(c.find("A/LARGE.BIN").unwrap()).unwrap(), large);
    assert_eq!(source.1.load(std::sync::atomic::Ordering::Relaxed), listed);
}
