//! `relicview publish`: the site it writes, and what it refuses to write over or through.
//! The site's pages are a stand-in folder here (the real page's run is the browser test
//! tests/e2e/publish.test.mjs, against nginx).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn scratch(name: &str) -> common::Scratch {
    common::scratch(&format!("publish-{name}"))
}

/// A built site as `publish` copies it (scripts/site.mjs writes the real one): index.html,
/// assets.json naming the build's files, and assets/ with each file's compressed forms.
/// `build` tells two builds apart (their files are named by their content).
fn built_site(dir: &Path, build: &str) -> PathBuf {
    let site = dir.join(format!("site-{build}"));
    let assets = [
        ("page", format!("main.{build}.js")),
        ("core", format!("relicview_bg.{build}.wasm")),
    ];
    let table: serde_json::Map<String, serde_json::Value> = assets
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone().into()))
        .collect();
    let mut files = vec![
        (
            "index.html".to_string(),
            format!("<!doctype html><script src=assets/main.{build}.js></script>"),
        ),
        (
            "assets.json".to_string(),
            serde_json::Value::Object(table).to_string(),
        ),
    ];
    for (_, name) in &assets {
        for suffix in ["", ".br", ".gz"] {
            files.push((
                format!("assets/{name}{suffix}"),
                format!("{name}{suffix} of build {build}"),
            ));
        }
    }
    for (p, b) in files {
        std::fs::create_dir_all(site.join(&p).parent().unwrap()).unwrap();
        std::fs::write(site.join(&p), b).unwrap();
    }
    site
}

fn site(dir: &Path) -> PathBuf {
    built_site(dir, "1")
}

fn publish(archive: &Path, out: &Path, site: &Path, extra: &[&str]) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("publish")
        .arg(archive)
        .arg(out)
        .arg("--site")
        .arg(site)
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

fn demo(dir: &Path) -> PathBuf {
    let archive = dir.join("GAME");
    assert!(Command::new(env!("CARGO_BIN_EXE_relicview"))
        .arg("demo")
        .arg(&archive)
        .status()
        .unwrap()
        .success());
    archive
}

fn index(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("index.json")).unwrap()).unwrap()
}

#[test]
fn a_published_site_holds_the_page_the_index_and_the_archive_and_a_second_publish_replaces_it_whole(
) {
    let dir = scratch("site");
    let (archive, site) = (demo(&dir), site(&dir));
    let out = dir.join("OUT");
    let (ok, said) = publish(&archive, &out, &site, &[]);
    assert!(ok, "{said}");
    for p in [
        "index.html",
        "assets.json",
        "assets/main.1.js",
        "assets/main.1.js.br",
        "assets/relicview_bg.1.wasm.gz",
        "index.json",
        "index.json.gz",
        "index.json.br",
    ] {
        assert!(out.join(p).is_file(), "{p}");
    }
    let first = index(&out);
    assert_eq!(first["base"], "archive/");
    // What each model's open reads is named beside it; a picture reads nothing more.
    let refs = |i: &serde_json::Value, p: &str| {
        i["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .map(|f| f["refs"].clone())
            .unwrap()
    };
    assert_eq!(
        refs(&first, "DEMO/VIDEO/WALKER.BGF"),
        serde_json::json!(["DEMO/MATERIAL/DEMO.BMF"])
    );
    assert_eq!(
        refs(&first, "DEMO/VIDEO/POOL.BGF"),
        serde_json::json!([
            "DEMO/MATERIAL/DEMO.BMF",
            "DEMO/TEXTURE/WATER.TGA",
            "DEMO/TEXTURE/SIGN.RGB"
        ])
    );
    assert_eq!(
        refs(&first, "DEMO/TEXTURE/WATER.TGA"),
        serde_json::Value::Null
    );
    let files = first["files"].as_array().unwrap();
    assert!(files.len() > 30);
    for f in files {
        let p = f["path"].as_str().unwrap();
        assert_eq!(
            std::fs::read(out.join("archive").join(p)).unwrap(),
            std::fs::read(archive.join(p)).unwrap(),
            "{p} copied as it is"
        );
        assert_eq!(
            f["size"].as_u64().unwrap(),
            std::fs::metadata(archive.join(p)).unwrap().len()
        );
    }
    // A link planted in the published site, pointing out of it: the next publish neither
    // follows it nor leaves it.
    let outside = dir.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), b"keep").unwrap();
    std::os::unix::fs::symlink(&outside, out.join("archive/planted")).unwrap();
    std::fs::remove_file(archive.join(files[0]["path"].as_str().unwrap())).unwrap();
    let (ok, said) = publish(&archive, &out, &site, &[]);
    assert!(ok, "{said}");
    assert_eq!(
        std::fs::read(outside.join("keep.txt")).unwrap(),
        b"keep",
        "nothing outside OUT touched"
    );
    assert!(
        std::fs::symlink_metadata(out.join("archive/planted")).is_err(),
        "the old site is gone whole"
    );
    assert!(
        !out.join("archive")
            .join(files[0]["path"].as_str().unwrap())
            .exists(),
        "the removed file is not published again"
    );
    assert_eq!(
        index(&out)["files"].as_array().unwrap().len(),
        files.len() - 1
    );
    let beside: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        beside.iter().all(|n| !n.contains("publishing")),
        "no half-made site left beside OUT: {beside:?}"
    );
}

#[test]
fn publish_refuses_a_folder_it_did_not_write_a_link_and_a_file_and_follows_no_link_out_of_the_archive(
) {
    let dir = scratch("refuse");
    let (archive, site) = (demo(&dir), site(&dir));
    // A folder holding someone's file.
    let theirs = dir.join("THEIRS");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), b"mine").unwrap();
    let (ok, said) = publish(&archive, &theirs, &site, &[]);
    assert!(
        !ok && said.contains("holds files an earlier publish did not write"),
        "{said}"
    );
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 1);
    // OUT a link to a folder.
    let target = dir.join("target");
    std::fs::create_dir(&target).unwrap();
    let link = dir.join("LINK");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (ok, said) = publish(&archive, &link, &site, &[]);
    assert!(!ok && said.contains("a link"), "{said}");
    assert_eq!(
        std::fs::read_dir(&target).unwrap().count(),
        0,
        "nothing written through the link"
    );
    // OUT an existing file.
    let file = dir.join("FILE");
    std::fs::write(&file, b"x").unwrap();
    let (ok, said) = publish(&archive, &file, &site, &[]);
    assert!(!ok && said.contains("not a folder"), "{said}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    // OUT inside the archive.
    let (ok, said) = publish(&archive, &archive.join("SITE"), &site, &[]);
    assert!(!ok && said.contains("inside the archive"), "{said}");
    assert!(!archive.join("SITE").exists());
    // A link in the archive that leads out of it is not published.
    std::fs::write(dir.join("secret.txt"), b"secret").unwrap();
    std::os::unix::fs::symlink(dir.join("secret.txt"), archive.join("SECRET.TXT")).unwrap();
    let out = dir.join("OUT");
    let (ok, said) = publish(&archive, &out, &site, &[]);
    assert!(ok, "{said}");
    assert!(!out.join("archive/SECRET.TXT").exists());
    assert!(!index(&out)["files"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["path"] == "SECRET.TXT"));
}

#[test]
fn with_a_base_url_only_the_index_is_written_and_it_names_where_the_files_are() {
    let dir = scratch("base");
    let (archive, site) = (demo(&dir), site(&dir));
    let out = dir.join("OUT");
    let (ok, said) = publish(
        &archive,
        &out,
        &site,
        &["--base-url", "https://cdn.example/game"],
    );
    assert!(ok, "{said}");
    assert!(!out.join("archive").exists());
    assert_eq!(index(&out)["base"], "https://cdn.example/game/");
    let (ok, said) = publish(
        &archive,
        &dir.join("OUT2"),
        &site,
        &["--base-url", "ftp://x"],
    );
    assert!(!ok && said.contains("--base-url"), "{said}");
}

#[test]
fn index_json_is_written_compressed_beside_it_as_gzip_and_brotli_read_them() {
    use std::io::Read;
    let dir = scratch("compressed");
    let (archive, site) = (demo(&dir), site(&dir));
    let out = dir.join("OUT");
    let (ok, said) = publish(&archive, &out, &site, &[]);
    assert!(ok, "{said}");
    let json = std::fs::read(out.join("index.json")).unwrap();
    let mut gunzipped = Vec::new();
    flate2::read::GzDecoder::new(&std::fs::read(out.join("index.json.gz")).unwrap()[..])
        .read_to_end(&mut gunzipped)
        .unwrap();
    assert_eq!(gunzipped, json);
    let mut unbrotlied = Vec::new();
    brotli::Decompressor::new(&std::fs::read(out.join("index.json.br")).unwrap()[..], 4096)
        .read_to_end(&mut unbrotlied)
        .unwrap();
    assert_eq!(unbrotlied, json);
    let sizes = [
        json.len(),
        std::fs::metadata(out.join("index.json.gz")).unwrap().len() as usize,
        std::fs::metadata(out.join("index.json.br")).unwrap().len() as usize,
    ];
    assert!(
        sizes[1] < sizes[0] / 3 && sizes[2] < sizes[1],
        "index.json, .gz, .br: {sizes:?}"
    );
}

#[test]
fn a_new_publish_keeps_the_build_before_for_pages_opened_before_it_and_no_older_one() {
    let dir = scratch("builds");
    let archive = demo(&dir);
    let out = dir.join("OUT");
    let names = |out: &Path| -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(out.join("assets"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    for build in ["1", "2", "3"] {
        let (ok, said) = publish(&archive, &out, &built_site(&dir, build), &[]);
        assert!(ok, "{said}");
    }
    // The page of build 3 and the files of build 2, each with its compressed forms; build
    // 1's are gone, and index.html and assets.json are build 3's.
    let expected: Vec<String> = ["2", "3"]
        .iter()
        .flat_map(|b| [format!("main.{b}.js"), format!("relicview_bg.{b}.wasm")])
        .flat_map(|n| ["", ".br", ".gz"].map(|s| format!("{n}{s}")))
        .collect();
    let mut expected = expected;
    expected.sort();
    assert_eq!(names(&out), expected);
    assert!(std::fs::read_to_string(out.join("index.html"))
        .unwrap()
        .contains("main.3.js"));
    assert!(std::fs::read_to_string(out.join("assets.json"))
        .unwrap()
        .contains("main.3.js"));
    assert_eq!(
        std::fs::read_to_string(out.join("assets/main.2.js")).unwrap(),
        "main.2.js of build 2"
    );
    // An assets.json that names files outside assets/ copies nothing from there.
    std::fs::write(
        out.join("assets.json"),
        r#"{"page": "../index.json", "core": "/etc/passwd", "x": ".hidden"}"#,
    )
    .unwrap();
    let (ok, said) = publish(&archive, &out, &built_site(&dir, "4"), &[]);
    assert!(ok, "{said}");
    assert!(
        names(&out).iter().all(|n| n.contains(".4.")),
        "{:?}",
        names(&out)
    );
}

#[test]
fn publish_refuses_a_site_that_is_not_built_and_says_how_to_build_it() {
    let dir = scratch("unbuilt");
    let archive = demo(&dir);
    let tree = dir.join("tree");
    for (p, b) in [
        ("index.html", "<!doctype html>"),
        ("www/shell/main.js", "// page"),
        ("pkg/relicview_bg.wasm", "\0asm"),
    ] {
        std::fs::create_dir_all(tree.join(p).parent().unwrap()).unwrap();
        std::fs::write(tree.join(p), b).unwrap();
    }
    let (ok, said) = publish(&archive, &dir.join("OUT"), &tree, &[]);
    assert!(
        !ok && said.contains("scripts/build.sh") && said.contains("assets"),
        "{said}"
    );
    assert!(!dir.join("OUT").exists());
}
