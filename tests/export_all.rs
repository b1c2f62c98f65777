//! `relicview export --all`: a whole archive out, checked against what the files say of
//! themselves (a TGA's and an SGI image's size in their headers, FIELD.TDB's image count in
//! its header, a VRAM page's 256 × 256), containers made by Python's zipfile, hostile names,
//! a link in the output, and the names given whatever the number of threads.

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// These tests open 7z archives as the CLI does: under its allocator (containers' ceiling.rs).
#[global_allocator]
static ALLOCATOR: relicview::containers::ceiling::CeilingAllocator =
    relicview::containers::ceiling::CeilingAllocator;

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("export-all-{name}"))
}

fn export_all(src: &Path, out: &Path) -> (i32, Value) {
    export_all_with(src, out, &[])
}

fn export_all_with(src: &Path, out: &Path, extra: &[&str]) -> (i32, Value) {
    let run = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["export", "--all", "--json"])
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {} {}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        )
    });
    (run.status.code().unwrap(), json)
}

/// Every file under `dir`, by its path relative to it.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, d: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn png_size(png: &[u8]) -> (u32, u32) {
    let img = image::load_from_memory_with_format(png, image::ImageFormat::Png).expect("a PNG");
    (img.width(), img.height())
}

fn python(script: &str, args: &[&Path]) {
    let ok = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "python3 {script}");
}

/// The demo archive, a malformed model, and the real FF7 field files (FIELD.TDB, FIELD.BIN
/// and a BSX).
/// Its scratch folder comes too: the folder goes when the test drops it.
fn archive(name: &str) -> (common::Scratch, PathBuf) {
    let scratch = temp_dir(name);
    let dir = scratch.join("GAME");
    relicview::demo::write_demo(&dir).unwrap();
    let hexpod = std::fs::read(dir.join("DEMO/VIDEO/HEXPOD.BGF")).unwrap();
    // Its first chunk's tag word given a length width of 3, which the notes do not allow.
    let mut broken = hexpod.clone();
    broken[8 + 1] |= 0xc0;
    std::fs::write(dir.join("DEMO/VIDEO/BROKEN.BGF"), broken).unwrap();
    let ff7 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/ff7");
    std::fs::create_dir_all(dir.join("FF7/FIELD")).unwrap();
    std::fs::copy(ff7.join("FIELD.TDB_u"), dir.join("FF7/FIELD/FIELD.TDB")).unwrap();
    std::fs::copy(ff7.join("MD1_1_u.BSX"), dir.join("FF7/FIELD/MD1_1.BSX")).unwrap();
    std::fs::copy(ff7.join("FIELD.BIN_u"), dir.join("FF7/FIELD/FIELD.BIN")).unwrap();
    (scratch, dir)
}

#[test]
fn every_file_goes_out_once_as_glb_or_png_at_the_size_its_header_says_and_the_report_accounts_for_each(
) {
    let (_scratch, dir) = archive("demo");
    let out = dir.parent().unwrap().join("OUT");
    let (code, report) = export_all(&dir, &out);
    assert_eq!(code, 1, "a file failed: exit 1: {report}");
    let written = files_under(&out);
    let on_stdout: Value = serde_json::from_slice(&written["report.json"]).unwrap();
    assert_eq!(on_stdout, report, "the report in OUT is the one printed");
    // Each archive file once: written, skipped or failed.
    let archive_files: BTreeSet<String> = files_under(&dir).into_keys().collect();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for w in report["written"].as_array().unwrap() {
        seen.insert(w["path"].as_str().unwrap().to_string());
        let file = w["file"].as_str().unwrap();
        assert_eq!(
            written[file].len() as u64,
            w["bytes"].as_u64().unwrap(),
            "{file}"
        );
    }
    for s in report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["failed"].as_array().unwrap())
    {
        assert!(
            seen.insert(s["path"].as_str().unwrap().to_string()),
            "{s} once"
        );
    }
    assert_eq!(seen, archive_files);
    assert_eq!(
        report["files"].as_u64().unwrap() as usize,
        archive_files.len()
    );
    assert_eq!(
        written.len(),
        report["written"].as_array().unwrap().len() + 1,
        "nothing but the outputs and the report"
    );
    // The failure names the file and the byte.
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["path"], "DEMO/VIDEO/BROKEN.BGF");
    assert!(failed[0]["error"]
        .as_str()
        .unwrap()
        .contains("DEMO/VIDEO/BROKEN.BGF"));
    assert!(failed[0]["offset"].is_u64());
    // Models, worlds, objects and field models as glTF (FIELD.BIN its normals).
    for f in [
        "DEMO/VIDEO/CUBE.BGF",
        "DEMO/VIDEO/HEXPOD.BGF",
        "DEMO/MAPS/ARENA1.MAP",
        "DEMO/MODELS/DRW.MOD",
        "DEMO/FIELD/PARTY.BSX",
        "FF7/FIELD/MD1_1.BSX",
        "FF7/FIELD/FIELD.BIN",
    ] {
        let glb = &written[&format!("{f}.glb")];
        assert_eq!(&glb[..4], b"glTF", "{f}");
    }
    // The real field model in the colours the game's lighting gave it (FIELD.BIN is beside
    // it), unlit as the game drew them.
    let glb = &written["FF7/FIELD/MD1_1.BSX.glb"];
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    assert!(
        json["extensionsUsed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e == "KHR_materials_unlit"),
        "{}",
        json["extensionsUsed"]
    );
    // Pictures at their size: a TGA's width and height are u16 at bytes 12 and 14, an SGI
    // image's u16 big-endian at bytes 6 and 8.
    for (f, header) in [
        ("DEMO/TEXTURE/WATER.TGA", "tga"),
        ("DEMO/TEXTURE/SMOKE.TGA", "tga"),
        ("DEMO/TEXTURE/SIGN.RGB", "sgi"),
    ] {
        let b = std::fs::read(dir.join(f)).unwrap();
        let size = match header {
            "tga" => (
                u16::from_le_bytes([b[12], b[13]]) as u32,
                u16::from_le_bytes([b[14], b[15]]) as u32,
            ),
            _ => (
                u16::from_be_bytes([b[6], b[7]]) as u32,
                u16::from_be_bytes([b[8], b[9]]) as u32,
            ),
        };
        assert_eq!(png_size(&written[&format!("{f}.png")]), size, "{f}");
    }
    // FIELD.TDB: a PNG per image its header counts (u16 at byte 4), each 32 × 32.
    let tdb = std::fs::read(dir.join("FF7/FIELD/FIELD.TDB")).unwrap();
    let images = u16::from_le_bytes([tdb[4], tdb[5]]) as usize;
    for n in 0..images {
        assert_eq!(
            png_size(&written[&format!("FF7/FIELD/FIELD.TDB.image{n}.png")]),
            (32, 32),
            "image {n}"
        );
    }
    assert!(!written.contains_key(&format!("FF7/FIELD/FIELD.TDB.image{images}.png")));
    // A field model's VRAM pages with their CLUTs: 256 × 256 each, at least one; a page of
    // faces that blink has the shut eyes below the open ones (256 × 512), one a face.
    let pages: Vec<&String> = written
        .keys()
        .filter(|k| k.starts_with("FF7/FIELD/MD1_1.BSX.page"))
        .collect();
    assert!(!pages.is_empty());
    let faces = pages
        .iter()
        .filter(|p| png_size(&written[**p]) == (256, 512))
        .count();
    assert!(
        faces >= 3,
        "Jessie's, Biggs's and Wedge's faces (models 2–4), Cloud's with the demo's BCX: {faces}"
    );
    for p in pages {
        assert!(
            [(256, 256), (256, 512)].contains(&png_size(&written[p])),
            "{p}"
        );
    }
    // A file of several models goes out as the viewer first shows it: one glTF scene (an
    // importer such as Blender would stack the others on it); with --lods all every model
    // is a glTF scene. Every animation comes along either way.
    let scenes_of = |glb: &[u8]| -> Value {
        let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
        serde_json::from_slice(&glb[20..20 + len]).unwrap()
    };
    let json = scenes_of(&written["DEMO/FIELD/PARTY.BSX.glb"]);
    assert_eq!(
        json["scenes"].as_array().unwrap().len(),
        1,
        "what the viewer shows"
    );
    assert!(
        json["animations"].as_array().unwrap().len() >= 4,
        "every animation"
    );
    let info: Value = serde_json::from_slice(
        &Command::new(env!("CARGO_BIN_EXE_relicview"))
            .args(["info", "--json"])
            .arg(dir.join("DEMO/FIELD/PARTY.BSX"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let models = info["models"].as_array().map_or(0, Vec::len);
    assert!(models >= 2, "{info}");
    let every = dir.parent().unwrap().join("OUT-ALL");
    let (code, _) = export_all_with(&dir, &every, &["--lods", "all"]);
    assert_eq!(code, 1, "the broken file fails here too");
    let json = scenes_of(&std::fs::read(every.join("DEMO/FIELD/PARTY.BSX.glb")).unwrap());
    assert_eq!(
        json["scenes"].as_array().unwrap().len(),
        models,
        "a scene per model"
    );
    let hexpod = scenes_of(&std::fs::read(every.join("DEMO/VIDEO/HEXPOD.BGF.glb")).unwrap());
    assert_eq!(
        hexpod["scenes"].as_array().unwrap().len(),
        2,
        "a scene per LOD"
    );
    assert_eq!(
        scenes_of(&written["DEMO/VIDEO/HEXPOD.BGF.glb"])["scenes"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "LOD 0 alone by default"
    );
    // What has nothing to export says why.
    let skipped = report["skipped"].as_array().unwrap();
    let why = |p: &str| {
        skipped
            .iter()
            .find(|s| s["path"] == p)
            .map(|s| s["why"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert!(
        why("DEMO/MATERIAL/DEMO.BMF").contains("what other files take from it"),
        "{}",
        why("DEMO/MATERIAL/DEMO.BMF")
    );
}

#[test]
fn a_zip_of_the_archive_exports_what_its_loose_files_do_byte_for_byte() {
    let (_scratch, dir) = archive("zip");
    let root = dir.parent().unwrap();
    python("import os, sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor d, _, fs in os.walk(sys.argv[1]):\n    for f in fs:\n        p = os.path.join(d, f)\n        z.write(p, os.path.relpath(p, sys.argv[1]))\nz.close()", &[&dir, &root.join("GAME.zip")]);
    let (_, loose) = export_all(&dir, &root.join("LOOSE"));
    let (_, zipped) = export_all(&root.join("GAME.zip"), &root.join("ZIPPED"));
    let (a, b) = (
        files_under(&root.join("LOOSE")),
        files_under(&root.join("ZIPPED")),
    );
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        if name != "report.json" {
            assert!(bytes == &b[name], "{name} differs");
        }
    }
    assert_eq!(loose["written"], zipped["written"]);
}

#[test]
fn a_solid_7z_of_the_archive_exports_what_its_loose_files_do_byte_for_byte() {
    let (_scratch, dir) = archive("7z");
    let root = dir.parent().unwrap();
    let sevenz = root.join("GAME.7z");
    let made = Command::new("7zz")
        .current_dir(&dir)
        .args(["a", "-bso0", "-bsp0", "-t7z", "-m0=LZMA2", "-ms=on", "-r"])
        .arg(&sevenz)
        .arg(".")
        .status();
    assert!(made
        .expect("7zz runs (scripts/setup.sh installs it)")
        .success());
    let (loose_code, loose) = export_all(&dir, &root.join("LOOSE"));
    let (packed_code, packed) = export_all(&sevenz, &root.join("PACKED"));
    assert_eq!(packed_code, loose_code);
    let (a, b) = (
        files_under(&root.join("LOOSE")),
        files_under(&root.join("PACKED")),
    );
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        if name != "report.json" {
            assert!(bytes == &b[name], "{name} differs");
        }
    }
    assert_eq!(loose["written"], packed["written"]);
    assert_eq!(
        loose["failed"], packed["failed"],
        "the broken model fails the same way inside"
    );
}

#[test]
fn hostile_names_never_leave_the_output_and_every_renaming_is_listed() {
    let root = temp_dir("hostile");
    let demo = temp_dir("hostile-demo");
    relicview::demo::write_demo(&demo).unwrap();
    let water = demo.join("DEMO/TEXTURE/WATER.TGA");
    // Names Python's zipfile writes as given: a way up, an absolute path, a drive letter,
    // two names the same but for case, a device's name, a file named as a folder.
    python(
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w')\nb = open(sys.argv[1], 'rb').read()\nfor n in ['../../EVIL.TGA', '/ABS.TGA', 'C:/DRIVE.TGA', 'A.TGA', 'a.tga', 'dev/CON.TGA', 'X.TGA.png/INSIDE.TGA', 'X.TGA']:\n    i = zipfile.ZipInfo(n)\n    z.writestr(i, b)\nz.close()",
        &[&water, &root.join("H.zip")],
    );
    let out = root.join("OUT");
    let (code, report) = export_all(&root.join("H.zip"), &out);
    let outside: Vec<String> = files_under(&root)
        .into_keys()
        .filter(|k| !k.starts_with("OUT/") && k != "H.zip")
        .collect();
    assert!(outside.is_empty(), "written outside OUT: {outside:?}");
    let inside: BTreeSet<String> = files_under(&out).into_keys().collect();
    let renamed = report["renamed"].as_array().unwrap();
    let written = report["written"].as_array().unwrap();
    // Every file the zip lists went out (each a picture: one PNG), or says why not.
    assert_eq!(
        written.len() + report["skipped"].as_array().unwrap().len(),
        report["files"].as_u64().unwrap() as usize
    );
    for w in written {
        assert!(inside.contains(w["file"].as_str().unwrap()), "{w}");
        let file = w["file"].as_str().unwrap();
        assert!(
            !file.split('/').any(|s| s == ".." || s.is_empty()) && !file.contains(':'),
            "{file}"
        );
    }
    // Each output whose name is not its archive path and suffix is listed, with why.
    for w in written {
        let (path, file) = (w["path"].as_str().unwrap(), w["file"].as_str().unwrap());
        if file != format!("{path}.png") {
            assert!(
                renamed.iter().any(|r| r["to"] == file
                    && r["from"] == format!("{path}.png")
                    && !r["why"].as_str().unwrap().is_empty()),
                "{path} → {file} unlisted: {renamed:?}"
            );
        }
    }
    // The zip lists two names the same but for case; one is read, the other is a failure
    // saying so (the reader takes the first).
    let lower: BTreeSet<String> = inside.iter().map(|f| f.to_lowercase()).collect();
    assert_eq!(
        lower.len(),
        inside.len(),
        "no two names alike but for case: {inside:?}"
    );
    let failed = report["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("a.tga: listed again"),
        "{failed:?}"
    );
    assert_eq!(code, 1);
    for (from, why) in [
        ("../../EVIL.TGA.png", "step up"),
        ("C:/DRIVE.TGA.png", "drive letter"),
        ("dev/CON.TGA.png", "device"),
        ("X.TGA.png/INSIDE.TGA.png", "folder of the same name"),
    ] {
        assert!(
            renamed
                .iter()
                .any(|r| r["from"] == from && r["why"].as_str().unwrap().contains(why)),
            "{from}: {renamed:?}"
        );
    }
}

#[test]
fn the_names_given_do_not_depend_on_how_many_threads_export() {
    let dir = temp_dir("threads");
    relicview::demo::write_demo(&dir).unwrap();
    // Names alike but for case: who is renamed must not be a race.
    for (i, n) in ["x/CUBE.BGF", "x/cube.bgf", "X/Cube.Bgf", "x/cubE.bgf"]
        .iter()
        .enumerate()
    {
        std::fs::create_dir_all(dir.join(n).parent().unwrap()).unwrap();
        std::fs::copy(
            dir.join(
                [
                    "DEMO/VIDEO/CUBE.BGF",
                    "DEMO/VIDEO/CRATE.BGF",
                    "DEMO/VIDEO/TOWER.BGF",
                    "DEMO/VIDEO/HALL.BGF",
                ][i],
            ),
            dir.join(n),
        )
        .unwrap();
    }
    let listing = relicview::serve::list_archive(&dir).unwrap();
    let reports: Vec<Value> = [1, 2, 4]
        .iter()
        .map(|&threads| {
            let out = temp_dir(&format!("threads-out-{threads}"));
            let r = relicview::bundle::folder::export_to_folder(
                &dir,
                &listing.files,
                &listing.skipped,
                &out,
                false,
                relicview::gltf::Rig::Skin,
                1 << 30,
                threads,
                &|_, _| {},
            )
            .unwrap();
            let mut v = serde_json::to_value(&r).unwrap();
            v["source"] = Value::Null;
            v
        })
        .collect();
    assert_eq!(reports[0], reports[1]);
    assert_eq!(reports[0], reports[2]);
    assert!(
        reports[0]["renamed"].as_array().unwrap().len() >= 3,
        "{}",
        reports[0]["renamed"]
    );
}

#[test]
fn a_link_in_the_output_is_not_written_through() {
    let dir = temp_dir("link");
    let game = dir.join("GAME");
    relicview::demo::write_demo(&game).unwrap();
    let elsewhere = dir.join("ELSEWHERE");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = dir.join("OUT");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out.join("DEMO")).unwrap();
    let (code, report) = export_all(&game, &out);
    assert_eq!(code, 1);
    assert!(
        files_under(&elsewhere).is_empty(),
        "nothing through the link"
    );
    let failed = report["failed"].as_array().unwrap();
    assert!(
        failed
            .iter()
            .any(|f| f["error"].as_str().unwrap().contains("is a link")),
        "{failed:?}"
    );
    // What is not under the link went out.
    assert!(out.join("OTHER/VIDEO/CRATE.BGF.glb").is_file());
}
