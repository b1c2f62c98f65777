//! FF7 field .DATs written here, from the layout docs/formats/field-dat.md gives (not by
//! relicview's writer: it has none), each with one actor whose init is one of a cross product
//! of the opcodes that place (XYZI, XYZ, XYI, none), face (DIR), show or hide (VISI) and
//! animate (DFANM) a model, each on a flat or a sloping triangle, unguarded or behind a
//! condition on the story's progress that holds or not. What relicview says of each model is
//! checked against what the combination says it must be, with the test's own plane
//! arithmetic; then a loop that never reaches its RET, and the generated files cut short and
//! broken at every section.

use relicview::archive::{open_file, MemorySource};
use relicview::formats::GameVariable;
use serde_json::Value;

/// Where the engine loads a .DAT: a section's address is its offset plus this.
const LOADED_AT: u32 = 0x8011_4FE4;

fn u16s(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}

/// Two triangles of a square 1000 units a side, both winding the same way: 0 flat at z 0,
/// 1 sloping up to z 200 at its far corner.
const TRIANGLES: [[[i16; 3]; 3]; 2] = [
    [[0, 0, 0], [1000, 0, 0], [0, 1000, 0]],
    [[1000, 0, 0], [1000, 1000, 200], [0, 1000, 0]],
];

/// Section 1: the script header (version 2 5, actors, model slots, the dialogue's offset, no
/// music, scale 512, the creator and the field's name), the actors' names, each actor's 32
/// entry points (all at its code), the code, an empty dialogue; padded to 4 bytes.
fn script_section(actors: &[(&str, Vec<u8>)], slots: u8) -> Vec<u8> {
    let header = 32 + 8 * actors.len() + 64 * actors.len();
    let mut starts = Vec::new();
    let mut code: Vec<u8> = Vec::new();
    for (_, c) in actors {
        starts.push(header + code.len());
        code.extend(c);
    }
    let dialogue = header + code.len();
    let mut s = vec![2, 5, actors.len() as u8, slots];
    s.extend(u16s(dialogue as u16));
    s.extend(u16s(0));
    s.extend(u16s(512));
    s.extend([0; 6]);
    s.extend(*b"kita\0\0\0\0");
    s.extend(*b"gen_1\0\0\0");
    for (name, _) in actors {
        let mut n = [0u8; 8];
        n[..name.len()].copy_from_slice(name.as_bytes());
        s.extend(n);
    }
    for &start in &starts {
        for _ in 0..32 {
            s.extend(u16s(start as u16));
        }
    }
    s.extend(code);
    s.extend(u16s(0));
    while s.len() % 4 != 0 {
        s.push(0);
    }
    s
}

/// Section 2: the triangle count, the triangles (`s16 x, y, z, pad`, the pad the first z),
/// the neighbours across AB, BC, CA (−1 a wall).
fn walkmesh_section() -> Vec<u8> {
    let mut w = (TRIANGLES.len() as u32).to_le_bytes().to_vec();
    for t in TRIANGLES {
        for v in t {
            for c in [v[0], v[1], v[2], t[0][2]] {
                w.extend(c.to_le_bytes());
            }
        }
    }
    // Triangle 0's BC is triangle 1's CA (the shared edge from (1000, 0) to (0, 1000)).
    for access in [[-1i16, 1, -1], [-1, -1, 0]] {
        for a in access {
            w.extend(a.to_le_bytes());
        }
    }
    w
}

/// Section 7: its size, the slot count, a record a slot (face, bones, parts, animations, a
/// run-time slot, always loaded, a flag, global id 0: a model of this field alone).
fn loader_section(slots: u8) -> Vec<u8> {
    let mut l = u16s(4 + 8 * slots as u16).to_vec();
    l.extend(u16s(slots as u16));
    for _ in 0..slots {
        l.extend([0, 1, 1, 1, 0, 1, 0, 0]);
    }
    l
}

/// The sections the init pass does not read (tile map, camera, triggers, encounters), as a
/// real field has them: ELEVTR1's, by its own section table.
fn real_middle() -> Vec<u8> {
    let disc = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7-disc/ELEVTR1.DAT"),
    )
    .expect("the shared FF7 test data sits beside the repo");
    let b = relicview::formats::ff7::lzs::decode(&disc, relicview::formats::ff7::lzs::MAX_OUTPUT)
        .unwrap();
    let at = |k: usize| {
        (u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap()) - LOADED_AT) as usize
    };
    b[at(2)..at(6)].to_vec()
}

/// A whole .DAT: the section table (seven addresses), then the sections in order.
fn dat(actors: &[(&str, Vec<u8>)], slots: u8, middle: &[u8]) -> Vec<u8> {
    let script = script_section(actors, slots);
    let walkmesh = walkmesh_section();
    // The middle holds sections 3–6; their sizes are ELEVTR1's, read back from its table.
    let disc = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7-disc/ELEVTR1.DAT"),
    )
    .unwrap();
    let real =
        relicview::formats::ff7::lzs::decode(&disc, relicview::formats::ff7::lzs::MAX_OUTPUT)
            .unwrap();
    let real_at = |k: usize| {
        (u32::from_le_bytes(real[4 * k..4 * k + 4].try_into().unwrap()) - LOADED_AT) as usize
    };
    let sizes: Vec<usize> = (2..6).map(|k| real_at(k + 1) - real_at(k)).collect();
    let mut offsets = vec![28, 28 + script.len(), 28 + script.len() + walkmesh.len()];
    for s in &sizes {
        offsets.push(offsets.last().unwrap() + s);
    }
    let mut out = Vec::new();
    for o in &offsets {
        out.extend((*o as u32 + LOADED_AT).to_le_bytes());
    }
    out.extend(script);
    out.extend(walkmesh);
    out.extend(middle);
    out.extend(loader_section(slots));
    out
}

/// The same bytes as the disc stores a .DAT: LZS of literals only (a control byte of ones
/// before each eight bytes), after the stream's length.
fn lzs_literals(data: &[u8]) -> Vec<u8> {
    let mut stream = Vec::new();
    for chunk in data.chunks(8) {
        stream.push(((1u16 << chunk.len()) - 1) as u8);
        stream.extend(chunk);
    }
    let mut out = (stream.len() as u32).to_le_bytes().to_vec();
    out.extend(stream);
    out
}

/// `relicview info --json`'s "field" of `bytes` as FIELD/GEN_1.DAT, with the variables in
/// `state` set; and its info rows.
fn info(bytes: Vec<u8>, state: &[GameVariable]) -> (Value, Vec<(String, String)>) {
    let source = MemorySource::new([("FIELD/GEN_1.DAT".to_string(), bytes)]);
    let mut archive = source.archive();
    archive.game_state = state.to_vec();
    let archive = std::cell::RefCell::new(archive);
    let opened = pollster::block_on(open_file(&archive, &source, "FIELD/GEN_1.DAT")).unwrap();
    let json: Value = serde_json::from_str(&opened.described().info_json()).unwrap();
    let rows = opened
        .described()
        .info_rows()
        .into_iter()
        .map(|r| (r.label, r.value))
        .collect();
    (json, rows)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    None,
    Xyzi,
    Xyz,
    Xyi,
}

/// How the placing opcodes are guarded: not, or by "[2:0] == value" (IFSW: bank 2 a word of
/// the save game, 0 a literal).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Guard {
    None,
    ProgressIs(i16),
}

/// The plane's height of `t` at (x, y): the test's own arithmetic.
fn height(t: [[i16; 3]; 3], x: f64, y: f64) -> f64 {
    let p = t.map(|v| v.map(|c| c as f64));
    let (u, v) = (
        [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]],
        [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]],
    );
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    p[0][2] - (n[0] * (x - p[0][0]) + n[1] * (y - p[0][1])) / n[2]
}

#[test]
fn every_combination_of_placing_facing_showing_and_animating_opcodes_places_the_model_as_the_notes_say(
) {
    let middle = real_middle();
    let mut checked = 0;
    for place in [Place::None, Place::Xyzi, Place::Xyz, Place::Xyi] {
        for triangle in [0u16, 1] {
            for dir in [None, Some(200u8)] {
                for visi in [None, Some(0u8), Some(1)] {
                    for anim in [None, Some(3u8)] {
                        for guard in [Guard::None, Guard::ProgressIs(0), Guard::ProgressIs(5)] {
                            for packed in [false, true] {
                                let (x, y) = if triangle == 0 {
                                    (200i16, 300i16)
                                } else {
                                    (800, 700)
                                };
                                let z = 77i16;
                                // The guarded block: the placement and the rest.
                                let mut block = Vec::new();
                                match place {
                                    Place::None => {}
                                    Place::Xyzi => {
                                        block.extend([0xA5, 0, 0]);
                                        for v in [x, y, z] {
                                            block.extend(v.to_le_bytes());
                                        }
                                        block.extend(u16s(triangle));
                                    }
                                    Place::Xyz => {
                                        block.extend([0xA7, 0, 0]);
                                        for v in [x, y, z] {
                                            block.extend(v.to_le_bytes());
                                        }
                                    }
                                    Place::Xyi => {
                                        block.extend([0xA6, 0, 0]);
                                        for v in [x, y] {
                                            block.extend(v.to_le_bytes());
                                        }
                                        block.extend(u16s(triangle));
                                    }
                                }
                                if let Some(d) = dir {
                                    block.extend([0xB3, 0, d]);
                                }
                                if let Some(v) = visi {
                                    block.extend([0xA4, v]);
                                }
                                if let Some(a) = anim {
                                    block.extend([0xA2, a, 1]);
                                }
                                // CHAR first (a model to place), then the block, then RET.
                                let mut code = vec![0xA1, 0];
                                if let Guard::ProgressIs(v) = guard {
                                    // IFSW: banks (a in bank 2, b a literal), a = address 0,
                                    // b, "==", and how far to skip when it does not hold.
                                    code.extend([0x16, 0x20, 0, 0]);
                                    code.extend(v.to_le_bytes());
                                    code.extend([0, block.len() as u8]);
                                }
                                code.extend(&block);
                                code.push(0x00);
                                let plain = dat(&[("actor", code)], 1, &middle);
                                let bytes = if packed { lzs_literals(&plain) } else { plain };
                                for progress in [0i32, 5] {
                                    let state = [GameVariable {
                                        bank: 2,
                                        address: 0,
                                        value: progress,
                                    }];
                                    let (json, _) = info(
                                        bytes.clone(),
                                        if progress == 0 { &[] } else { &state },
                                    );
                                    let what = format!("{place:?} on {triangle}, dir {dir:?}, visi {visi:?}, anim {anim:?}, {guard:?}, progress {progress}, packed {packed}");
                                    assert_eq!(json["error"], Value::Null, "{what}: {json}");
                                    let m = &json["field"]["models"][0];
                                    let runs = match guard {
                                        Guard::None => true,
                                        Guard::ProgressIs(v) => v as i32 == progress,
                                    };
                                    let want_position: Value = match (runs, place) {
                                        (false, _) | (_, Place::None) => Value::Null,
                                        (_, Place::Xyzi | Place::Xyz) => {
                                            serde_json::json!([x, y, z])
                                        }
                                        (_, Place::Xyi) => {
                                            serde_json::json!([
                                                x,
                                                y,
                                                height(
                                                    TRIANGLES[triangle as usize],
                                                    x as f64,
                                                    y as f64
                                                )
                                                .round()
                                                    as i64
                                            ])
                                        }
                                    };
                                    assert_eq!(m["position"], want_position, "{what}");
                                    let want_triangle = match (runs, place) {
                                        (true, Place::Xyzi | Place::Xyi) => {
                                            serde_json::json!(triangle)
                                        }
                                        _ => Value::Null,
                                    };
                                    assert_eq!(m["triangle"], want_triangle, "{what}");
                                    assert_eq!(
                                        m["direction"],
                                        dir.filter(|_| runs).unwrap_or(0),
                                        "{what}"
                                    );
                                    // CHAR shows it; VISI decides after.
                                    assert_eq!(
                                        m["visible"],
                                        visi.filter(|_| runs).is_none_or(|v| v != 0),
                                        "{what}"
                                    );
                                    assert_eq!(
                                        m["animation"],
                                        anim.filter(|_| runs).unwrap_or(0),
                                        "{what}"
                                    );
                                    assert_eq!(m["entity"], "actor", "{what}");
                                    // The condition is listed with whether it held.
                                    let branches = json["field"]["branches"].as_array().unwrap();
                                    assert_eq!(
                                        branches.len(),
                                        usize::from(guard != Guard::None),
                                        "{what}"
                                    );
                                    if let Some(b) = branches.first() {
                                        assert_eq!(b["taken"], runs, "{what}: {b}");
                                    }
                                    checked += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 4 * 2 * 2 * 3 * 2 * 3 * 2 * 2);
}

#[test]
fn an_init_that_never_reaches_its_ret_is_stopped_and_said() {
    // CHAR, XYZI, then JMPB 0: a jump back to itself, forever.
    let mut code = vec![0xA1, 0, 0xA5, 0, 0];
    for v in [100i16, 100, 5, 0] {
        code.extend(v.to_le_bytes());
    }
    code.extend([0x12, 0, 0x00]);
    let (json, rows) = info(dat(&[("looper", code)], 1, &real_middle()), &[]);
    let stopped = json["field"]["stopped"].as_array().unwrap();
    assert_eq!(stopped.len(), 1, "{json}");
    assert_eq!(stopped[0]["entity"], "looper");
    // What it did before the loop stands.
    assert_eq!(
        json["field"]["models"][0]["position"],
        serde_json::json!([100, 100, 5])
    );
    assert!(
        rows.iter()
            .any(|(l, v)| l == "init stopped" && v.contains("looper")),
        "{rows:?}"
    );
}

#[test]
fn a_generated_field_cut_or_broken_at_any_section_says_where_and_shows_the_rest() {
    let plain = dat(&[("a", vec![0xA1, 0, 0x00])], 1, &real_middle());
    let at = |k: usize| {
        (u32::from_le_bytes(plain[4 * k..4 * k + 4].try_into().unwrap()) - LOADED_AT) as usize
    };
    // Cut inside each section (and inside the table): an error at a byte inside the file,
    // never a panic; the sections before the cut still read.
    let mut cuts: Vec<usize> = (0..7).map(|k| at(k) + 3).collect();
    // (Fewer than 4 bytes are not a field by their content: .DAT names many things.)
    cuts.extend([5, 27, plain.len() - 1]);
    for cut in cuts {
        let (json, _) = info(plain[..cut].to_vec(), &[]);
        let e = &json["error"];
        assert!(e.is_object(), "cut at {cut}: {json}");
        let offset = e["offset"].as_u64().unwrap() as usize;
        assert!(offset <= cut, "cut at {cut}: error at {offset}");
        if cut > at(2) {
            assert_eq!(
                json["field"]["walkmesh"]["triangles"], 2,
                "cut at {cut}: the walkmesh before it reads"
            );
        }
    }
    // A script version the engine refuses, a section address outside the file, a triangle
    // count past its section: each an error naming its section, the others shown.
    let mut version = plain.clone();
    version[at(0)] = 3;
    let mut address = plain.clone();
    address[4 * 3..4 * 3 + 4].copy_from_slice(&(LOADED_AT + 10_000_000).to_le_bytes());
    let mut count = plain.clone();
    count[at(1)..at(1) + 4].copy_from_slice(&60_000u32.to_le_bytes());
    for (what, bytes, section) in [
        ("version", version, "script"),
        ("address", address, ""),
        ("count", count, "walkmesh"),
    ] {
        let (json, _) = info(bytes, &[]);
        let e = &json["error"];
        assert!(e.is_object(), "{what}: {json}");
        assert!(e.to_string().contains(section), "{what}: {e}");
    }
}
