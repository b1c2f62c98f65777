//! Every length a file declares, against the file: a header that disagrees with its file is
//! said, never read silently (docs/formats/lzs.md, "Lengths"). The lengths are found in the
//! real FF7 files (as on the disc, and unpacked) and the demo's files where the format
//! notes put them, each edited by small and large amounts either way; the LZS wrapper's,
//! the one the field family shares, must give a diagnostic at byte 0 naming both numbers
//! and mark the file damaged, whatever else still reads.

mod common;

use relicview::formats::ff7::lzs;
use relicview::formats::registry::{self, Purpose};
use relicview::formats::Document;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn shared(rel: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/testdata")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the shared test data sits beside the repo)",
            path.display()
        )
    })
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn set_u32(b: &mut [u8], at: usize, v: usize) {
    b[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
}

/// What the open of `name` says of itself: its error, else its diagnostics; None: nothing.
fn said(doc: &dyn Document) -> Option<String> {
    if let Some(e) = doc.error() {
        return Some(format!(
            "{}{e}",
            if doc.damaged() { "damaged " } else { "" }
        ));
    }
    let d: Vec<String> = doc
        .diagnostics()
        .iter()
        .map(|d| format!("@{} {}: {}", d.offset, d.path, d.message))
        .collect();
    (!d.is_empty()).then(|| d.join("; "))
}

/// The field family as the disc stores it: LZS containers. (The field models are packed by
/// our encoder, checked against the disc's own decoder output in lzs.rs; the rest are the
/// disc's own bytes.)
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("MD1_1.BSX", lzs::encode(&shared("ff7/MD1_1_u.BSX"))),
        ("ELEVTR1.BSX", lzs::encode(&shared("ff7/ELEVTR1_u.BSX"))),
        ("CLOUD.BCX", shared("ff7-disc/CLOUD.BCX")),
        ("FIELD.TDB", lzs::encode(&shared("ff7/FIELD.TDB_u"))),
        ("MD1_1.DAT", shared("ff7-disc/MD1_1.DAT")),
        ("NMKIN_1.DAT", shared("ff7-disc/NMKIN_1.DAT")),
        ("MD1_1.MIM", shared("ff7-disc/MD1_1.MIM")),
        ("ELEVTR1.MIM", shared("ff7-disc/ELEVTR1.MIM")),
    ]
}

#[test]
fn an_lzs_header_that_disagrees_with_its_file_is_said_at_byte_0_and_the_file_is_damaged() {
    for (name, file) in containers() {
        let whole = registry::open(name, file.clone(), Purpose::Show);
        assert!(
            whole.error().is_none() && whole.diagnostics().is_empty(),
            "{name} as stored: {:?}",
            said(&*whole)
        );
        let held = file.len() - 4;
        // The header edited (the stream whole, or cut where it says), bytes added after the
        // stream, and the file cut with its header left as it was.
        let mut cases: Vec<(String, Vec<u8>, usize)> = Vec::new();
        for delta in [-100i64, -1, 1, 100] {
            let mut f = file.clone();
            let says = (held as i64 + delta) as usize;
            set_u32(&mut f, 0, says);
            cases.push((format!("header {delta:+}"), f, says));
        }
        cases.push((
            "100 bytes after the stream".into(),
            [file.clone(), vec![0xA5; 100]].concat(),
            held,
        ));
        cases.push((
            "cut by 100 bytes".into(),
            file[..file.len() - 100].to_vec(),
            held,
        ));
        for (what, f, says) in cases {
            let holds = f.len() - 4;
            let doc = registry::open(name, f, Purpose::Show);
            let case = format!("{name}, {what}");
            assert_eq!(doc.kind(), whole.kind(), "{case}: still read as what it is");
            let at0 = doc
                .diagnostics()
                .iter()
                .find(|d| d.offset == 0 && d.path == "LZS");
            let message = at0
                .unwrap_or_else(|| panic!("{case}: no diagnostic at byte 0: {:?}", said(&*doc)))
                .message
                .clone();
            assert!(
                message.contains(&format!(
                    "says {says} compressed bytes, the file holds {holds}"
                )),
                "{case}: {message}"
            );
            assert!(
                doc.error().is_some(),
                "{case}: not taken as a sound file: {:?}",
                said(&*doc)
            );
            let json: serde_json::Value =
                serde_json::from_str(&relicview::formats::Described::alone(&*doc).info_json())
                    .unwrap();
            assert!(
                json.get("error").is_some(),
                "{case}: info --json says so: {json}"
            );
            // Where the stream is whole, all of it still reads: damaged (shown, the error a
            // warning), the same records as the file stored well. Where it is cut, the
            // format reads as far as it goes where it can (a field model, a .DAT), else the
            // file is an error (FIELD.TDB, a .MIM): either way not silently.
            if what == "header +1" || what == "header +100" || what.starts_with("100 bytes after") {
                assert!(
                    doc.damaged(),
                    "{case}: damaged, not failed: {:?}",
                    said(&*doc)
                );
                assert_eq!(doc.bytes(0), whole.bytes(0), "{case}: decoded as before");
                let rows = |d: &dyn Document| {
                    d.inspector(relicview::formats::Found::NOTHING)
                        .map(|v| v.chunks.len())
                };
                assert_eq!(rows(&*doc), rows(&*whole), "{case}: every record read");
            }
        }
    }
}

#[test]
fn the_cli_says_a_silent_header_no_more() {
    // The case: a model's container whose length word claims 100 bytes more than
    // the file holds, around a whole stream.
    let dir = common::scratch("lzs-header-cli");
    let mut f = lzs::encode(&shared("ff7/MD1_1_u.BSX"));
    let says = f.len() - 4 + 100;
    set_u32(&mut f, 0, says);
    let path = dir.join("MD1_1.BSX");
    std::fs::write(&path, &f).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("info")
        .arg(&path)
        .arg("--json")
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let error = &json["error"];
    assert_eq!(error["offset"], 0, "{json}");
    assert!(
        error["message"].as_str().unwrap().contains(&format!(
            "the LZS header says {says} compressed bytes, the file holds {}",
            f.len() - 4
        )),
        "{json}"
    );
    assert!(
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["offset"] == 0),
        "{json}"
    );
    assert!(
        json["triangles"].as_u64().unwrap() > 0,
        "the model still reads: {json}"
    );
}

/// A length a format declares: where it is in the file's own (decoded) bytes, what it is.
struct Declared {
    file: &'static str,
    bytes: Vec<u8>,
    at: usize,
    what: String,
}

/// The lengths the format notes give, in real and demo files: a field model's size_file and
/// its texture section's size_section (bsx.md), FIELD.TDB's size (bsx.md), a .MIM's block
/// sizes (mim.md), FIELD.BIN's disc header (bsx.md, "FIELD.BIN"), a .DAT's section addresses
/// (field-dat.md: each section's length is the next one's start), a TIM's block lengths
/// (tim.md) and DIV-BIZ2 chunk lengths (biz2.md), each read here from the bytes.
fn declared() -> Vec<Declared> {
    let mut out = Vec::new();
    for name in ["MD1_1_u.BSX", "ELEVTR1_u.BSX", "NMKIN_1_u.BSX"] {
        let b = shared(&format!("ff7/{name}"));
        let models = u32_at(&b, 4);
        let textures = models + u32_at(&b, models + 8);
        out.push(Declared {
            file: "M.BSX",
            bytes: b.clone(),
            at: 0,
            what: format!("{name}: size_file"),
        });
        if textures + 4 <= b.len() {
            out.push(Declared {
                file: "M.BSX",
                bytes: b.clone(),
                at: textures,
                what: format!("{name}: size_section"),
            });
        }
    }
    out.push(Declared {
        file: "FIELD.TDB",
        bytes: shared("ff7/FIELD.TDB_u"),
        at: 0,
        what: "FIELD.TDB: size".into(),
    });
    for name in ["MD1_1.MIM", "ELEVTR1.MIM", "NMKIN_1.MIM"] {
        let b = lzs::decode(&shared(&format!("ff7-disc/{name}")), lzs::MAX_OUTPUT).unwrap();
        let mut at = 0;
        for k in 0..3 {
            let size = u32_at(&b, at);
            if size == 0 {
                break;
            }
            out.push(Declared {
                file: "M.MIM",
                bytes: b.clone(),
                at,
                what: format!("{name}: block {k} size"),
            });
            at += size & !3;
            if at + 4 > b.len() {
                break;
            }
        }
    }
    for name in ["MD1_1.DAT", "NMKIN_1.DAT"] {
        let b = lzs::decode(&shared(&format!("ff7-disc/{name}")), lzs::MAX_OUTPUT).unwrap();
        for k in 1..7 {
            out.push(Declared {
                file: "M.DAT",
                bytes: b.clone(),
                at: 4 * k,
                what: format!("{name}: section {} address", k + 1),
            });
        }
    }
    // FIELD.BIN as the disc stores it: an 8-byte header (its unpacked length, a word not
    // known), then a gzip stream, here Python's.
    let unpacked = shared("ff7/FIELD.BIN_u");
    let gz = Command::new("python3")
        .args([
            "-c",
            "import gzip, sys; sys.stdout.buffer.write(gzip.compress(sys.stdin.buffer.read()))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(&unpacked)?;
            c.wait_with_output()
        })
        .unwrap()
        .stdout;
    let disc = [
        (unpacked.len() as u32).to_le_bytes().to_vec(),
        vec![0; 4],
        gz,
    ]
    .concat();
    out.push(Declared {
        file: "FIELD.BIN",
        bytes: disc,
        at: 0,
        what: "FIELD.BIN: the disc header's unpacked length".into(),
    });
    // A 16-bit TIM of 8 × 4 with a 4-bit one's CLUT block: tag, flags, then blocks whose
    // first word is their length (tim.md).
    let mut tim = [0x10u32.to_le_bytes(), 0x08u32.to_le_bytes()].concat();
    tim.extend((12u32 + 32).to_le_bytes());
    tim.extend([0u16, 480, 16, 1].iter().flat_map(|v| v.to_le_bytes()));
    tim.extend((0..16u16).flat_map(|v| (v * 1000).to_le_bytes()));
    let image_at = tim.len();
    tim.extend((12u32 + 2 * 2 * 4).to_le_bytes());
    tim.extend([64u16, 0, 2, 4].iter().flat_map(|v| v.to_le_bytes()));
    tim.extend((0..16u8).map(|v| v.wrapping_mul(37)));
    out.push(Declared {
        file: "P.TIM",
        bytes: tim.clone(),
        at: 8,
        what: "TIM: CLUT block length".into(),
    });
    out.push(Declared {
        file: "P.TIM",
        bytes: tim,
        at: image_at,
        what: "TIM: image block length".into(),
    });
    // DIV-BIZ2: the chunk lengths of a demo model, walked as biz2.md frames them (a u16
    // tag word whose top two bits give the length's width, then the length).
    let dir = common::scratch("declared-demo");
    let run = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("demo")
        .arg(dir.join("GAME"))
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(run.success());
    let walker = std::fs::read(dir.join("GAME/DEMO/VIDEO/WALKER.BGF")).unwrap();
    let mut stack = vec![(8usize, walker.len())];
    let mut chunks = 0;
    while let Some((mut at, end)) = stack.pop() {
        while at + 3 <= end && chunks < 60 {
            let tag = u16::from_le_bytes([walker[at], walker[at + 1]]);
            let width = [1, 2, 4, 0][(tag >> 14) as usize];
            let len = match width {
                1 => walker[at + 2] as usize,
                2 => u16::from_le_bytes([walker[at + 2], walker[at + 3]]) as usize,
                _ => u32_at(&walker, at + 2),
            };
            let payload = at + 2 + width;
            out.push(Declared {
                file: "W.BGF",
                bytes: walker.clone(),
                at: at + 2,
                what: format!("WALKER.BGF: chunk {tag:#06x} at byte {at}, its {width}-byte length"),
            });
            chunks += 1;
            // Containers (biz2.md: HEADER, TEXTURE, MATERIAL, RAMP, OBJECT, BOUND, LOD, PATCH,
            // the primitives a patch holds, SPHERE_LIST) are walked into.
            const CONTAINERS: [u16; 15] = [
                0x03, 0x10, 0x20, 0x30, 0x40, 0x70, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x48, 0x4A,
                0x4B,
            ];
            if tag & 0x2000 == 0 && CONTAINERS.contains(&(tag & 0x0FFF)) {
                stack.push((payload, payload + len));
            }
            at = payload + len;
        }
    }
    out
}

/// `bytes` with the length at `at` (its width the format's) changed by `delta`; None where
/// that is not a length the field can hold.
fn edited(d: &Declared, delta: i64) -> Option<Vec<u8>> {
    let mut b = d.bytes.clone();
    if d.file == "W.BGF" {
        let tag = u16::from_le_bytes([b[d.at - 2], b[d.at - 1]]);
        let width = [1, 2, 4, 0][(tag >> 14) as usize];
        let old = match width {
            1 => b[d.at] as i64,
            2 => u16::from_le_bytes([b[d.at], b[d.at + 1]]) as i64,
            _ => u32_at(&b, d.at) as i64,
        };
        let new = old + delta;
        if new < 0 || new >= 1 << (8 * width) {
            return None;
        }
        b[d.at..d.at + width].copy_from_slice(&new.to_le_bytes()[..width]);
        return Some(b);
    }
    let new = u32_at(&b, d.at) as i64 + delta;
    (new >= 0).then(|| {
        set_u32(&mut b, d.at, new as usize);
        b
    })
}

#[test]
fn every_length_a_file_declares_that_disagrees_with_it_is_said() {
    let found = declared();
    assert!(found.len() >= 40, "{} lengths found", found.len());
    let mut silent = Vec::new();
    let mut cases = 0;
    for d in &found {
        let whole = registry::open(d.file, d.bytes.clone(), Purpose::Show);
        let whole_said = said(&*whole);
        for delta in [-100i64, -4, -1, 1, 4, 100] {
            let Some(bytes) = edited(d, delta) else {
                continue;
            };
            cases += 1;
            let doc = registry::open(d.file, bytes, Purpose::Show);
            // Said: an error or a diagnostic that the file as it was did not have.
            if said(&*doc).is_none() || said(&*doc) == whole_said {
                silent.push(format!("{} {delta:+}", d.what));
            }
        }
    }
    assert!(
        silent.is_empty(),
        "{} of {cases} edited lengths read silently:\n{}",
        silent.len(),
        silent.join("\n")
    );
}
