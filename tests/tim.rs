//! PlayStation TIM images (docs/formats/tim.md) as a user meets them: a cross product of
//! depths, CLUTs and sizes written from the layout in the notes, each decoded by us and by
//! ImageMagick's own TIM reader (scripts/setup.sh installs it) and compared texel by texel;
//! `info --json`, `inspect --json` and `export --all` from the command line; hostile headers
//! and blocks as errors naming their byte, the files beside them read as when alone.

mod common;

use relicview::formats::registry::{self, Purpose};
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_relicview"))
}

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn temp(name: &str) -> common::Scratch {
    common::scratch(&format!("tim-{name}"))
}

/// A TIM as the notes lay it out: tag 0x10, flags (bits 0–1 the depth, bit 3 a CLUT), then
/// each block: u32 length (its 12-byte header included), u16 x, y, width, height, halfwords.
fn tim(
    depth_bits: u32,
    clut: Option<(u16, u16, &[u8])>,
    width: u16,
    height: u16,
    data: &[u8],
) -> Vec<u8> {
    let depth: u32 = match depth_bits {
        4 => 0,
        8 => 1,
        16 => 2,
        _ => 3,
    };
    let mut out = Vec::new();
    out.extend(0x10u32.to_le_bytes());
    out.extend((depth | if clut.is_some() { 8 } else { 0 }).to_le_bytes());
    let mut block = |x: u16, y: u16, w: u16, h: u16, data: &[u8]| {
        out.extend((12 + data.len() as u32).to_le_bytes());
        for v in [x, y, w, h] {
            out.extend(v.to_le_bytes());
        }
        out.extend(data);
    };
    if let Some((w, h, colours)) = clut {
        block(0, 480, w, h, colours);
    }
    block(320, 0, width, height, data);
    out
}

/// Bytes from a fixed seed (xorshift), so every run writes the same files.
fn noise(seed: u32, n: usize) -> Vec<u8> {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 24) as u8
        })
        .collect()
}

/// ImageMagick's reading of a TIM: (width, height, RGB bytes).
fn imagemagick(path: &Path) -> (u32, u32, Vec<u8>) {
    let size = Command::new("convert-im6.q16")
        .arg(path)
        .args(["-format", "%w %h", "info:"])
        .output()
        .expect("ImageMagick (scripts/setup.sh --tests installs it)");
    assert!(
        size.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&size.stderr)
    );
    let text = String::from_utf8(size.stdout).unwrap();
    let mut wh = text.split_whitespace().map(|v| v.parse::<u32>().unwrap());
    let (w, h) = (wh.next().unwrap(), wh.next().unwrap());
    let rgb = Command::new("convert-im6.q16")
        .arg(path)
        .args(["-depth", "8", "rgb:-"])
        .output()
        .unwrap();
    assert!(rgb.status.success());
    (w, h, rgb.stdout)
}

fn rgb_of(rgba: &[u8]) -> Vec<u8> {
    rgba.chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect()
}

/// One case of the cross product, and what the notes say it holds.
struct Case {
    name: String,
    bits: u32,
    /// CLUT rows and colours a row.
    clut: Option<(u16, u16)>,
    width: u16,
    height: u16,
    bytes: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut seed = 1;
    for bits in [4, 8, 16, 24] {
        let cluts: Vec<Option<(u16, u16)>> = match bits {
            4 => vec![Some((1, 16)), Some((3, 16))],
            8 => vec![Some((1, 256)), Some((2, 256))],
            // A CLUT beside 16-bit texels: there, but not used.
            16 => vec![None, Some((1, 16))],
            _ => vec![None],
        };
        for clut in cluts {
            for width in [1u16, 2, 5] {
                for height in [1u16, 3] {
                    seed += 1;
                    let colours =
                        clut.map(|(rows, n)| noise(seed * 7, 2 * rows as usize * n as usize));
                    let data = noise(seed, 2 * width as usize * height as usize);
                    let bytes = tim(
                        bits,
                        clut.zip(colours.as_deref())
                            .map(|((rows, n), c)| (n, rows, c)),
                        width,
                        height,
                        &data,
                    );
                    let name = format!("D{bits}C{}W{width}H{height}.TIM", clut.map_or(0, |c| c.0));
                    out.push(Case {
                        name,
                        bits,
                        clut,
                        width,
                        height,
                        bytes,
                    });
                }
            }
        }
    }
    out
}

/// Texels a row of `halfwords` holds, by the notes: 4 a halfword at 4 bits, 2 at 8, 1 at
/// 16, and at 24 bits one every three bytes.
fn texels_in(bits: u32, halfwords: u16) -> u32 {
    match bits {
        4 => halfwords as u32 * 4,
        8 => halfwords as u32 * 2,
        16 => halfwords as u32,
        _ => halfwords as u32 * 2 / 3,
    }
}

#[test]
fn every_depth_clut_and_size_decodes_as_imagemagick_reads_it() {
    let dir = temp("cross");
    let cases = cases();
    for c in &cases {
        let path = dir.join(&c.name);
        std::fs::write(&path, &c.bytes).unwrap();
        let doc = registry::open(&c.name, c.bytes.clone(), Purpose::Show);
        assert_eq!(doc.kind().as_str(), "tim", "{}", c.name);
        let (w, h) = (texels_in(c.bits, c.width), c.height as u32);
        if w == 0 {
            // 24 bits in one halfword: two bytes hold no whole texel.
            let e = doc
                .error()
                .unwrap_or_else(|| panic!("{}: a row of no texels is an error", c.name));
            assert_eq!(
                e.offset,
                c.bytes.len() - 2 * c.height as usize - 4,
                "{}: the image block's width field",
                c.name
            );
            continue;
        }
        assert!(doc.error().is_none(), "{}: {:?}", c.name, doc.error());
        let picture = doc
            .image()
            .unwrap_or_else(|| panic!("{}: no picture", c.name));
        // ImageMagick reads one CLUT row, and only before indexed texels (more rows, or a
        // CLUT before 16-bit texels, and it reads the image block from the wrong place): such
        // a file is checked against itself rewritten as the notes say it is drawn, with the
        // first row alone, or without its unused CLUT.
        let data = &c.bytes[c.bytes.len() - 2 * c.width as usize * c.height as usize..];
        let rewritten = |bytes: Vec<u8>| {
            let at = dir.join(format!("as-drawn-{}", c.name));
            std::fs::write(&at, bytes).unwrap();
            at
        };
        let reference = match c.clut {
            Some(_) if c.bits == 16 => rewritten(tim(16, None, c.width, c.height, data)),
            Some((rows, colours)) if rows > 1 => rewritten(tim(
                c.bits,
                Some((colours, 1, &c.bytes[20..20 + 2 * colours as usize])),
                c.width,
                c.height,
                data,
            )),
            _ => path.clone(),
        };
        let (iw, ih, rgb) = imagemagick(&reference);
        assert_eq!(
            (picture.width, picture.height),
            (w, h),
            "{}: the notes' arithmetic",
            c.name
        );
        assert_eq!((iw, ih), (w, h), "{}: ImageMagick's size", c.name);
        assert_eq!(
            rgb_of(&picture.rgba),
            rgb,
            "{}: texels differ from ImageMagick's",
            c.name
        );
        // What the read-out says of each texel: at 4 and 8 bits its CLUT index, the nibble or
        // byte of its halfword counted from the low bits, and the colour word it indexes.
        let planes = doc.image_planes();
        let data = &c.bytes[c.bytes.len() - 2 * c.width as usize * c.height as usize..];
        let clut_at = 8 + 12;
        for (x, y) in [(0, 0), (w - 1, h - 1), (w / 2, h / 2)] {
            let at = (y * w + x) as usize;
            match c.bits {
                4 | 8 => {
                    let per = 16 / c.bits;
                    let half = (y * c.width as u32 + x / per) as usize;
                    let word = u16::from_le_bytes([data[2 * half], data[2 * half + 1]]);
                    let index = (word >> (c.bits * (x % per))) & ((1 << c.bits) - 1);
                    assert_eq!(
                        (planes[0].name, planes[0].values[at]),
                        ("CLUT index", index),
                        "{} at ({x}, {y})",
                        c.name
                    );
                    let colour = u16::from_le_bytes([
                        c.bytes[clut_at + 2 * index as usize],
                        c.bytes[clut_at + 2 * index as usize + 1],
                    ]);
                    assert_eq!(
                        (planes[1].name, planes[1].values[at]),
                        ("colour word", colour),
                        "{} at ({x}, {y})",
                        c.name
                    );
                    assert_eq!(
                        picture.rgba[at * 4 + 3],
                        if colour == 0 { 0 } else { 255 },
                        "0x0000 is transparent, every other colour opaque"
                    );
                }
                16 => {
                    let word = u16::from_le_bytes([data[2 * at], data[2 * at + 1]]);
                    assert_eq!(
                        (planes[0].name, planes[0].values[at]),
                        ("colour word", word)
                    );
                }
                _ => assert!(planes.is_empty(), "24-bit texels are their colours"),
            }
        }
    }
    assert!(cases.len() >= 40, "{}", cases.len());
}

#[test]
fn indices_without_a_clut_are_greys_and_say_so() {
    // 4 bits: index i is grey i · 255 / 15; 8 bits: grey i. (ImageMagick stops on such a file.)
    for (bits, word, greys) in [
        (4, 0xF510u16, vec![0u8, 17, 85, 255]),
        (8, 0xF510, vec![0x10, 0xF5]),
    ] {
        let bytes = tim(bits, None, 1, 1, &word.to_le_bytes());
        let doc = registry::open("G.TIM", bytes, Purpose::Show);
        assert!(doc.error().is_none(), "{:?}", doc.error());
        let picture = doc.image().unwrap();
        assert_eq!(
            picture
                .rgba
                .chunks_exact(4)
                .map(|p| p[0])
                .collect::<Vec<_>>(),
            greys
        );
        assert!(
            doc.diagnostics()
                .iter()
                .any(|d| d.offset == 4 && d.message.contains("no CLUT")),
            "{:?}",
            doc.diagnostics()
        );
        let rows = doc.info(relicview::formats::Found::NOTHING).rows();
        assert!(
            rows.iter()
                .any(|r| r.label == "CLUT" && r.value.contains("greys")),
            "{rows:?}"
        );
    }
}

#[test]
fn info_inspect_and_export_all_from_the_command_line() {
    let dir = temp("cli");
    let src = dir.join("ARCHIVE");
    std::fs::create_dir_all(src.join("PICS")).unwrap();
    let cases = cases();
    let shown: Vec<&Case> = cases
        .iter()
        .filter(|c| texels_in(c.bits, c.width) > 0)
        .step_by(3)
        .collect();
    for c in &shown {
        std::fs::write(src.join("PICS").join(&c.name), &c.bytes).unwrap();
    }
    // info --json: {"format": "tim", "width": W, "height": H, "bpp": B, "cluts": N}, W in
    // texels and N the CLUT's palette rows, by the notes' arithmetic.
    for c in &shown {
        let out = bin()
            .args(["info", "--json"])
            .arg(src.join("PICS").join(&c.name))
            .output()
            .unwrap();
        // A CLUT beside 16-bit texels is a finding (docs/cli.md: exit 1), not an error.
        let unused_clut = c.bits == 16 && c.clut.is_some();
        assert_eq!(
            out.status.code(),
            Some(unused_clut as i32),
            "{}: {}",
            c.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = serde_json::json!({ "format": "tim", "width": texels_in(c.bits, c.width), "height": c.height, "bpp": c.bits, "cluts": c.clut.map_or(0, |r| r.0) });
        for key in ["format", "width", "height", "bpp", "cluts"] {
            assert_eq!(j[key], want[key], "{}: {key} in {j}", c.name);
        }
    }
    // inspect --json: the header, each block and its header at their offsets.
    let c = shown
        .iter()
        .find(|c| c.clut.is_some_and(|r| r.0 > 1))
        .unwrap();
    let out = bin()
        .args(["inspect", "--json"])
        .arg(src.join("PICS").join(&c.name))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = j["records"].as_array().unwrap_or_else(|| panic!("{j}"));
    let (rows_n, colours) = c.clut.unwrap();
    let clut_end = 8 + 12 + 2 * rows_n as u64 * colours as u64;
    let at = |name: &str| {
        rows.iter()
            .filter(|r| r["name"] == name)
            .map(|r| {
                (
                    r["offset"].as_u64().unwrap(),
                    r["offset"].as_u64().unwrap() + r["length"].as_u64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(at("header"), [(0, 8)]);
    assert_eq!(at("CLUT"), [(8, clut_end)]);
    assert_eq!(at("palette").len(), rows_n as usize);
    assert_eq!(at("image"), [(clut_end, c.bytes.len() as u64)]);
    assert_eq!(at("block header"), [(8, 20), (clut_end, clut_end + 12)]);
    // export --all: each picture a PNG whose texels ImageMagick reads from the TIM.
    let out_dir = dir.join("OUT");
    let out = bin()
        .args(["export", "--all"])
        .arg(&src)
        .arg("-o")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for c in &shown {
        let png = out_dir.join("PICS").join(format!("{}.png", c.name));
        let decoded = image::open(&png)
            .unwrap_or_else(|e| panic!("{}: {e}", png.display()))
            .to_rgba8();
        if c.clut.is_some_and(|r| r.0 > 1) || c.bits == 16 && c.clut.is_some() {
            continue; // ImageMagick misreads these: the cross product above checks them.
        }
        let (w, h, rgb) = imagemagick(&src.join("PICS").join(&c.name));
        assert_eq!((decoded.width(), decoded.height()), (w, h), "{}", c.name);
        assert_eq!(
            rgb_of(decoded.as_raw()),
            rgb,
            "{}: the PNG's texels differ from ImageMagick's reading of the TIM",
            c.name
        );
    }
}

#[test]
fn bad_headers_and_blocks_past_the_file_are_errors_at_their_byte_and_the_rest_reads() {
    let good = tim(4, Some((16, 1, &noise(3, 32))), 2, 2, &noise(4, 8));
    let clut_end = 8 + 12 + 32;
    let mut bad_flags = good.clone();
    bad_flags[4] = 0x19;
    let mut bad_length = good.clone();
    bad_length[8] = 45;
    let mut huge = good.clone();
    huge[clut_end + 8..clut_end + 10].copy_from_slice(&2000u16.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, usize, &str)> = vec![
        ("FLAGS.TIM", bad_flags, 4, "flags 0x19"),
        ("LENGTH.TIM", bad_length, 8, "length word says 45 bytes"),
        (
            "CUT.TIM",
            good[..good.len() - 3].to_vec(),
            clut_end + 12,
            "run past the end of the file",
        ),
        (
            "HEADER.TIM",
            good[..clut_end + 6].to_vec(),
            clut_end,
            "12-byte header runs past the end",
        ),
        ("HUGE.TIM", huge, clut_end + 8, "rectangle of VRAM"),
        (
            "TAG.TIM",
            [&[0x11, 0, 0, 0][..], &good[4..]].concat(),
            0,
            "the TIM tag 10 00 00 00",
        ),
    ];
    let dir = temp("bad");
    std::fs::write(dir.join("GOOD.TIM"), &good).unwrap();
    for (name, bytes, offset, says) in &cases {
        let doc = registry::open(name, bytes.clone(), Purpose::Show);
        let e = doc.error().unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(e.offset, *offset, "{name}: {e}");
        assert!(e.message.contains(says), "{name}: {e}");
        std::fs::write(dir.join(name), bytes).unwrap();
        // The CLI says which file, which byte and what was expected.
        let out = bin()
            .args(["info", "--json"])
            .arg(dir.join(name))
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{name}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(
            j["error"]["offset"].as_u64(),
            Some(*offset as u64),
            "{name}: {j}"
        );
    }
    // The census of the folder reads the good one as alone, and names each bad one.
    let out = bin().args(["census", "--json"]).arg(&dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        j["kinds"]["tim"].as_u64(),
        Some(cases.len() as u64),
        "the bad tag is misnamed: {j}"
    );
    assert_eq!(j["kinds"]["misnamed"].as_u64(), Some(1), "{j}");
    assert_eq!(
        j["failed"].as_array().map(Vec::len),
        Some(cases.len()),
        "{j}"
    );
    assert_eq!(j["parsed_files"].as_u64(), Some(1), "{j}");
}

#[test]
fn a_tim_by_content_under_any_name_and_only_a_tim_named_so_may_have_bad_flags() {
    // Every case of the cross product is a TIM under every name any format reads.
    for c in cases() {
        for ext in registry::Kind::extensions() {
            let name = format!("X.{}", ext.to_ascii_uppercase());
            assert_eq!(
                registry::Kind::sniff(&name, &c.bytes[..16], c.bytes.len() as u64).as_str(),
                "tim",
                "{} named {name}",
                c.name
            );
        }
    }
    let good = tim(16, None, 2, 1, &[1, 2, 3, 4]);
    assert_eq!(
        registry::open("SOMETHING.BIN", good.clone(), Purpose::Asset)
            .kind()
            .as_str(),
        "tim"
    );
    let mut odd = good.clone();
    odd[4] = 0x40;
    assert_eq!(
        registry::open("SOMETHING.BIN", odd.clone(), Purpose::Asset)
            .kind()
            .as_str(),
        "unknown",
        "the tag alone claims nothing"
    );
    assert_eq!(
        registry::open("ODD.TIM", odd, Purpose::Asset)
            .kind()
            .as_str(),
        "tim"
    );
}
