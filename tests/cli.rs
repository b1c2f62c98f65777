//! The native command line as a user runs it: demo, info --json, serve over real HTTP.

mod common;

use common::{get, request, serve};
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_relicview"))
}

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("cli-{name}"))
}

/// How many files `relicview demo` writes.
fn demo_files() -> usize {
    relicview::demo::demo_files().len()
}

fn demo(dir: &Path) {
    let out = bin().arg("demo").arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn info(path: &Path) -> (bool, serde_json::Value) {
    let out = bin().args(["info", "--json"]).arg(path).output().unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.success(), json)
}

#[test]
fn demo_writes_a_game_tree_that_info_reads() {
    let dir = temp_dir("demo");
    demo(&dir);
    for f in [
        "DEMO/VIDEO/CUBE.BGF",
        "DEMO/VIDEO/HEXPOD.BGF",
        "DEMO/VIDEO/TOWER.BGF",
        "DEMO/VIDEO/POOL.BGF",
        "DEMO/VIDEO/FORMATS.BGF",
        "DEMO/MATERIAL/DEMO.BMF",
        "DEMO/TEXTURE/WATER.TGA",
        "DEMO/TEXTURE/SIGN.RGB",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    // Deterministic: a second run writes the same bytes.
    let again = temp_dir("demo-again");
    demo(&again);
    assert_eq!(
        std::fs::read(dir.join("DEMO/VIDEO/HEXPOD.BGF")).unwrap(),
        std::fs::read(again.join("DEMO/VIDEO/HEXPOD.BGF")).unwrap()
    );

    let (ok, j) = info(&dir.join("DEMO/VIDEO/HEXPOD.BGF"));
    assert!(ok);
    assert_eq!(j["format"], "biz2");
    assert_eq!(j["kind"], "geometry");
    assert_eq!(j["closes_exactly"], true);
    assert_eq!(j["triangles"], 26);
    assert_eq!(j["vertices"], 13);
    assert_eq!(j["objects"][0]["name"], "hexpod");
    assert_eq!(
        j["objects"][0]["lods"][1]["distance"],
        serde_json::json!([60.0, 400.0])
    );
    assert_eq!(j["materials"], serde_json::json!(["demo:hull_mtl"]));
    assert_eq!(j["unit"], 1);
    assert!((j["bounds"]["max"][1].as_f64().unwrap() - 1.8).abs() < 1e-6);
    let widths = &j["length_widths"];
    assert_eq!(
        widths["1"].as_u64().unwrap()
            + widths["2"].as_u64().unwrap()
            + widths["4"].as_u64().unwrap(),
        j["chunks"].as_u64().unwrap()
    );

    let (ok, j) = info(&dir.join("DEMO/MATERIAL/DEMO.BMF"));
    assert!(ok);
    assert_eq!(j["kind"], "materials");
    assert_eq!(j["material_defs"][1]["name"], "hull_mtl");
    let diffuse: Vec<f64> = j["material_defs"][1]["diffuse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        diffuse
            .iter()
            .zip([0.25, 0.55, 0.85])
            .all(|(a, b)| (a - b).abs() < 1e-6),
        "{diffuse:?}"
    );
}

#[test]
fn info_with_root_resolves_libraries_nearest_first_and_census_counts_everything() {
    let dir = temp_dir("root");
    demo(&dir);
    // A second game tree with its own DEMO.BMF that lacks hull_mtl.
    std::fs::create_dir_all(dir.join("OTHER/MATERIAL")).unwrap();
    std::fs::copy(
        dir.join("DEMO/MATERIAL/DEMO.BMF"),
        dir.join("OTHER/MATERIAL/demo.bmf"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("OTHER/VIDEO")).unwrap();
    std::fs::copy(
        dir.join("DEMO/VIDEO/TOWER.BGF"),
        dir.join("OTHER/VIDEO/TOWER.BGF"),
    )
    .unwrap();
    let out = bin()
        .args(["info", "--json", "--root"])
        .arg(&dir)
        .arg(dir.join("OTHER/VIDEO/TOWER.BGF"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        j["material_resolution"][0]["library"], "OTHER/MATERIAL/demo.bmf",
        "same game tree first, case ignored"
    );
    assert_eq!(
        j["material_resolution"][0]["also"],
        serde_json::json!(["DEMO/MATERIAL/DEMO.BMF"])
    );
    assert_eq!(j["missing_materials"], serde_json::json!([]));
    assert_eq!(
        j["objects"][1]["points"],
        serde_json::Value::Null,
        "TOWER has one object"
    );

    let (_, hex) = info(&dir.join("DEMO/VIDEO/HEXPOD.BGF"));
    assert_eq!(hex["objects"][1]["points"], 6);
    assert!(
        hex["material_resolution"].is_null(),
        "no root, no resolution"
    );

    std::fs::write(dir.join("OTHER/BROKEN.BGF"), b"DIV-BIZ2\x03\x00").unwrap();
    let out = bin().args(["census", "--json"]).arg(&dir).output().unwrap();
    assert!(out.status.success());
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The demo's files (17 models, 2 libraries), OTHER's library and tower, and the
    // broken file.
    assert_eq!(c["files"], demo_files() + 3);
    assert_eq!(c["kinds"]["biz2-geometry"], 17 + 2);
    assert_eq!(c["kinds"]["biz2-materials"], 2 + 1);
    assert_eq!(c["closes_exactly"], 19 + 2);
    assert_eq!(c["point_only_objects"], 1);
    assert_eq!(c["failed"][0]["path"], "OTHER/BROKEN.BGF");
    assert_eq!(c["failed"][0]["offset"], 10);
}

#[test]
fn info_on_a_bad_file_exits_1_with_the_offset() {
    let dir = temp_dir("bad");
    demo(&dir);
    let good = std::fs::read(dir.join("DEMO/VIDEO/CUBE.BGF")).unwrap();
    let bad = dir.join("CUT.BGF");
    std::fs::write(&bad, &good[..good.len() - 10]).unwrap();
    let (ok, j) = info(&bad);
    assert!(!ok);
    let offset = j["error"]["offset"].as_u64().unwrap() as usize;
    assert!(offset < good.len() - 10);
    let message = j["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("CUT.BGF") && message.contains(&format!("at byte {offset}")),
        "{message}"
    );

    let (ok, j) = info(&dir.join("missing.bgf"));
    assert!(!ok);
    assert!(j["error"]["offset"].is_null());
}

#[test]
fn serve_publishes_site_archive_and_listing_and_nothing_else() {
    let base = temp_dir("serve");
    let archive = base.join("archive");
    demo(&archive);
    let site = base.join("site");
    std::fs::create_dir_all(site.join("www")).unwrap();
    std::fs::create_dir_all(site.join("pkg")).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html>hi").unwrap();
    std::fs::write(site.join("www/main.js"), "export {}").unwrap();
    std::fs::write(site.join("pkg/relicview_bg.wasm"), b"\0asm").unwrap();
    std::fs::write(base.join("secret.txt"), "do not serve").unwrap();
    std::os::unix::fs::symlink(base.join("secret.txt"), archive.join("DEMO/escape.txt")).unwrap();
    let server = serve(&archive, &site);
    let port = server.port;

    let (status, head, body) = get(port, "/");
    assert_eq!(status, 200);
    assert!(head
        .to_ascii_lowercase()
        .contains("content-type: text/html"));
    assert_eq!(body, b"<!doctype html>hi");
    let (status, head, _) = get(port, "/www/main.js");
    assert_eq!(status, 200);
    assert!(
        head.contains("text/javascript"),
        "ES modules need a JS MIME type: {head}"
    );
    let (status, head, _) = get(port, "/pkg/relicview_bg.wasm");
    assert_eq!(status, 200);
    assert!(head.contains("application/wasm"));

    let expected = std::fs::read(archive.join("DEMO/VIDEO/HEXPOD.BGF")).unwrap();
    let (status, _, body) = get(port, "/archive/DEMO/VIDEO/HEXPOD.BGF");
    assert_eq!((status, body), (200, expected.clone()));

    let (status, _, body) = get(port, "/archive.json");
    assert_eq!(status, 200);
    let listing: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(listing["base"], "archive/");
    let files: Vec<(String, u64)> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(files.len(), demo_files(), "{files:?}");
    assert!(files.contains(&("DEMO/VIDEO/HEXPOD.BGF".to_string(), expected.len() as u64)));
    assert!(
        !files.iter().any(|(p, _)| p.contains("escape")),
        "symlink out is not listed"
    );

    for path in [
        "/archive/../secret.txt",
        "/archive/DEMO/../../secret.txt",
        "/archive/%2e%2e/secret.txt",
        "/archive/%2E%2E%2Fsecret.txt",
        "/archive/DEMO/%2e%2e/%2e%2e/secret.txt",
        "/archive//etc/passwd",
        "/archive/%2fetc%2fpasswd",
        "/archive/DEMO/escape.txt",
        "/www/../../secret.txt",
        "/pkg/%2e%2e/index.html",
        "/secret.txt",
        "/archive/DEMO",
        "/archive/nope.bgf",
    ] {
        let (status, _, body) = get(port, path);
        assert_eq!(status, 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&body).contains("do not serve"),
            "{path}"
        );
    }
}

#[test]
fn serve_sends_a_built_site_compressed_as_the_client_accepts_with_its_cache_headers() {
    let base = temp_dir("servesite");
    let archive = base.join("archive");
    demo(&archive);
    // A built site as scripts/site.mjs writes it: its files named by content, each with a .br
    // and a .gz beside it (stand-ins: which one was sent is what is checked).
    let site = base.join("site");
    std::fs::create_dir_all(site.join("assets")).unwrap();
    for (path, body) in [
        ("index.html", "<!doctype html>page"),
        ("assets/main.0123456789ab.js", "export {}"),
        ("assets/relicview_bg.0123456789ab.wasm", "\0asm"),
    ] {
        std::fs::write(site.join(path), body).unwrap();
        std::fs::write(site.join(format!("{path}.br")), format!("{path} as brotli")).unwrap();
        std::fs::write(site.join(format!("{path}.gz")), format!("{path} as gzip")).unwrap();
    }
    let server = serve(&archive, &site);
    let header = |head: &str, name: &str| {
        head.lines().find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_string())
        })
    };
    for (path, caching) in [
        (
            "/assets/main.0123456789ab.js",
            "public, max-age=31536000, immutable",
        ),
        (
            "/assets/relicview_bg.0123456789ab.wasm",
            "public, max-age=31536000, immutable",
        ),
        ("/index.html", "no-cache"),
    ] {
        let file = if path == "/index.html" {
            "index.html".to_string()
        } else {
            path[1..].to_string()
        };
        for (accepts, encoding, body) in [
            ("br, gzip", Some("br"), format!("{file} as brotli")),
            ("gzip", Some("gzip"), format!("{file} as gzip")),
            (
                "identity",
                None,
                String::from_utf8(std::fs::read(site.join(&file)).unwrap()).unwrap(),
            ),
        ] {
            let (status, head, got) = request(
                server.port,
                "GET",
                path,
                &format!("Accept-Encoding: {accepts}\r\n"),
            );
            assert_eq!(status, 200, "{path} {accepts}");
            assert_eq!(
                header(&head, "content-encoding").as_deref(),
                encoding,
                "{path} for {accepts}: {head}"
            );
            assert_eq!(
                String::from_utf8(got).unwrap(),
                body,
                "{path} for {accepts}"
            );
            assert_eq!(
                header(&head, "cache-control").as_deref(),
                Some(caching),
                "{path}"
            );
        }
    }
    let (_, head, _) = request(
        server.port,
        "GET",
        "/assets/relicview_bg.0123456789ab.wasm",
        "Accept-Encoding: br\r\n",
    );
    assert_eq!(
        header(&head, "content-type").as_deref(),
        Some("application/wasm"),
        "streamed compilation needs its type: {head}"
    );
    // The archive's files: as they are, asked again each time.
    let (status, head, body) = request(
        server.port,
        "GET",
        "/archive/DEMO/VIDEO/HEXPOD.BGF",
        "Accept-Encoding: br, gzip\r\n",
    );
    assert_eq!(
        (status, body),
        (
            200,
            std::fs::read(archive.join("DEMO/VIDEO/HEXPOD.BGF")).unwrap()
        )
    );
    assert_eq!(header(&head, "content-encoding"), None);
    assert_eq!(header(&head, "cache-control").as_deref(), Some("no-cache"));
    for path in [
        "/assets/../index.html",
        "/assets/%2e%2e/index.html",
        "/assets/",
        "/assets/nope.js",
    ] {
        assert_eq!(get(server.port, path).0, 404, "{path}");
    }
}

#[test]
fn index_writes_a_static_listing_that_does_not_list_itself() {
    let dir = temp_dir("index");
    demo(&dir);
    let out = bin().arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success());
    let again = bin().arg("index").arg(&dir).output().unwrap();
    assert!(again.status.success());
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    assert_eq!(j["base"], "");
    let paths: Vec<&str> = j["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), demo_files());
    assert!(!paths.contains(&"index.json"));
    assert!(paths.contains(&"DEMO/VIDEO/HEXPOD.BGF"));
}

#[test]
fn info_opens_every_kind_and_only_broken_files_fail() {
    let dir = temp_dir("kinds");
    demo(&dir);
    std::fs::write(dir.join("NOTES.TXT"), b"just text\n").unwrap();
    for (path, format) in [
        ("DEMO/MAPS/DEMO.MAP", "map"),
        ("DEMO/MODELS/HEXPOD.MOD", "mod"),
        ("DEMO/TEXTURE/WATER.TGA", "image"),
        ("NOTES.TXT", "text"),
    ] {
        let (ok, j) = info(&dir.join(path));
        assert!(ok, "{path}: {j}");
        assert_eq!(j["format"], format, "{path}");
    }
    let (_, tga) = info(&dir.join("DEMO/TEXTURE/WATER.TGA"));
    assert_eq!(
        (tga["width"].as_u64(), tga["height"].as_u64()),
        (Some(32), Some(32))
    );
    let (_, m) = info(&dir.join("DEMO/MODELS/HEXPOD.MOD"));
    assert_eq!(m["written"][0], "hexpod.bgf");
    assert_eq!(
        m["objects"],
        serde_json::json!([]),
        "without --root nothing is resolved"
    );
    assert_eq!(m["resolved"], false);
    // Text output: the info panel's rows.
    let out = bin()
        .arg("info")
        .arg(dir.join("DEMO/MAPS/DEMO.MAP"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("pod world") && text.contains("placements: 2 models"),
        "{text}"
    );
}

#[test]
fn export_writes_a_glb_of_the_scene_and_refuses_files_without_one() {
    let dir = temp_dir("export");
    demo(&dir);
    let out_file = dir.join("HEXPOD.glb");
    let out = bin()
        .args(["export", "--root"])
        .arg(&dir)
        .arg(dir.join("DEMO/VIDEO/HEXPOD.BGF"))
        .arg("-o")
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let glb = std::fs::read(&out_file).unwrap();
    assert_eq!(&glb[..4], b"glTF");
    assert_eq!(
        u32::from_le_bytes(glb[8..12].try_into().unwrap()) as usize,
        glb.len()
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("26 triangles at LOD 0"));
    let out = bin()
        .arg("export")
        .arg(dir.join("DEMO/MATERIAL/DEMO.BMF"))
        .arg("-o")
        .arg(dir.join("x.glb"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no 3D scene"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join("x.glb").exists());
    // An FF7 field file: the model the viewer shows first, the one --model names, or with
    // --lods all every one (with the character its BCX brings, found under --root).
    let field = dir.join("DEMO/FIELD/PARTY.BSX");
    let (_, party) = info(&field);
    let (_, hero) = info(&dir.join("DEMO/FIELD/CLOUD.BCX"));
    let export_with = |model: Option<&str>, extra: &[&str]| {
        let mut cmd = bin();
        cmd.args(["export", "--root"])
            .arg(&dir)
            .arg(&field)
            .arg("-o")
            .arg(dir.join("party.glb"))
            .args(extra);
        if let Some(m) = model {
            cmd.args(["--model", m]);
        }
        cmd.output().unwrap()
    };
    let export = |model: Option<&str>| export_with(model, &[]);
    let triangles = |j: &serde_json::Value, k: usize| j["models"][k]["triangles"].as_u64().unwrap();
    let shown = export(None);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let first = triangles(&hero, 0) + triangles(&party, 0);
    assert!(
        String::from_utf8_lossy(&shown.stdout).contains(&format!(" {first} triangles")),
        "{}",
        String::from_utf8_lossy(&shown.stdout)
    );
    let all = export_with(None, &["--lods", "all"]);
    assert!(
        all.status.success(),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    let total = first + triangles(&party, 1);
    assert!(
        String::from_utf8_lossy(&all.stdout).contains(&format!(" {total} triangles")),
        "{}",
        String::from_utf8_lossy(&all.stdout)
    );
    let lamp = export(Some("1"));
    assert!(
        String::from_utf8_lossy(&lamp.stdout)
            .contains(&format!(" {} triangles", triangles(&party, 1))),
        "{}",
        String::from_utf8_lossy(&lamp.stdout)
    );
    let none = export(Some("5"));
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("there is no model 5 (the file has 2)"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
}

/// Run to completion within `secs`, or kill and fail: a hang is a failure, never a stuck run.
fn within(mut cmd: Command, secs: u64) -> std::process::Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()).ok());
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("still running after {secs} s");
        }
    }
}

#[test]
fn the_cli_reads_only_regular_files_up_to_a_limit() {
    let dir = temp_dir("regular");
    let fifo = dir.join("pipe.bgf");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for (path, what) in [
        (fifo.as_path(), "is a FIFO"),
        (Path::new("/dev/zero"), "is a device"),
        (dir.as_ref(), "is a folder"),
    ] {
        let mut cmd = bin();
        cmd.arg("info").arg(path);
        let out = within(cmd, 20);
        assert!(!out.status.success(), "{}", path.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&path.display().to_string()) && err.contains(what),
            "{err}"
        );
    }
    std::fs::write(dir.join("BIG.BGF"), vec![0u8; 2000]).unwrap();
    let out = bin()
        .args(["info", "--max-bytes", "1000"])
        .arg(dir.join("BIG.BGF"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("BIG.BGF: 2000 bytes is more than the limit of 1000"),
        "{err}"
    );
    // Census lists what it may not read as failures and goes on.
    std::fs::write(dir.join("SMALL.TXT"), b"hi").unwrap();
    let mut cmd = bin();
    cmd.args(["census", "--json", "--max-bytes", "1000"])
        .arg(&dir);
    let out = within(cmd, 20);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<String> = c["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{} {}", f["path"], f["message"]))
        .collect();
    assert!(
        failed
            .iter()
            .any(|f| f.contains("BIG.BGF") && f.contains("limit")),
        "{failed:?}"
    );
    assert!(
        failed
            .iter()
            .any(|f| f.contains("pipe.bgf") && f.contains("not a regular file")),
        "{failed:?}"
    );
    assert_eq!(c["files"], 1, "SMALL.TXT was read");
}

#[test]
fn vanished_entries_and_odd_names_never_stop_a_census() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("vanished");
    demo(&dir);
    std::os::unix::fs::symlink(dir.join("gone.bgf"), dir.join("DEMO/dangling.bgf")).unwrap();
    for name in [&b"x\xff.txt"[..], &b"x\xfe.txt"[..]] {
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(name)), b"text").unwrap();
    }
    let out = bin().args(["census", "--json"]).arg(&dir).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        c["files"],
        demo_files() + 2,
        "the demo's files and both odd names, each on its own"
    );
    let failed = c["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["path"], "DEMO/dangling.bgf");
    // The listing names them apart.
    let out = bin().arg("index").arg(&dir).output().unwrap();
    assert!(out.status.success());
    let listing: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    let paths: Vec<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"x\\xFF.txt") && paths.contains(&"x\\xFE.txt"),
        "{paths:?}"
    );
}

#[test]
fn a_closed_or_full_stdout_ends_the_command_without_a_panic() {
    let dir = temp_dir("pipes");
    demo(&dir);
    // The reader goes away before the census writes: a quiet success.
    let mut child = bin()
        .args(["census"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    // A full device: a failure that says so, still no panic.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = bin()
        .args(["info", "--json"])
        .arg(dir.join("DEMO/VIDEO/HEXPOD.BGF"))
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write the output") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn serve_refuses_an_archive_that_is_not_a_folder_or_a_container_and_names_it() {
    let dir = temp_dir("servefile");
    std::fs::write(dir.join("A.BGF"), b"x").unwrap();
    for (archive, what) in [
        (dir.join("A.BGF"), "not a folder"),
        (dir.join("missing"), "No such file"),
    ] {
        let mut cmd = bin();
        cmd.args(["serve", "--port", "0"])
            .arg(&archive)
            .arg("--site")
            .arg(env!("CARGO_MANIFEST_DIR"));
        let out = within(cmd, 20);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&archive.display().to_string()) && err.contains(what),
            "{err}"
        );
    }
}

/// Resident memory of a process, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

#[test]
fn stalled_clients_of_a_large_file_cannot_pin_the_server_memory() {
    let dir = temp_dir("stalled");
    std::fs::create_dir_all(dir.join("archive")).unwrap();
    let size: u64 = 50 << 20;
    std::fs::File::create(dir.join("archive/BIG.BIN"))
        .unwrap()
        .set_len(size)
        .unwrap();
    let server = serve(&dir.join("archive"), Path::new(env!("CARGO_MANIFEST_DIR")));
    let pid = server.child.id();
    let before = rss(pid);
    // Forty clients ask for the file and never read a byte.
    let clients: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            write!(
                s,
                "GET /archive/BIG.BIN HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            )
            .unwrap();
            s
        })
        .collect();
    // The server writes what the sockets take, then waits: watch its memory for a while.
    let mut peak = before;
    for _ in 0..30 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        peak = peak.max(rss(pid));
    }
    let per_client = peak.saturating_sub(before) / clients.len() as u64;
    eprintln!("# serve: {} MB resident before, {} MB at peak with 40 stalled clients: {per_client} bytes each", before >> 20, peak >> 20);
    assert!(
        per_client < size / 16,
        "{per_client} bytes held per stalled client of a {size}-byte file"
    );
    // Meanwhile another client is served in full.
    let (status, _, body) = get(server.port, "/index.html");
    assert_eq!(status, 200);
    assert!(!body.is_empty());
    drop(clients);
}

#[test]
fn two_hundred_downloads_fifty_at_a_time_are_all_served_in_bounded_memory() {
    let dir = temp_dir("downloads");
    std::fs::create_dir_all(dir.join("archive")).unwrap();
    let size: usize = 8 << 20;
    let content: std::sync::Arc<Vec<u8>> =
        std::sync::Arc::new((0..size).map(|i| (i * 7 % 251) as u8).collect());
    std::fs::write(dir.join("archive/BIG.BIN"), &content[..]).unwrap();
    let server = serve(&dir.join("archive"), Path::new(env!("CARGO_MANIFEST_DIR")));
    let (pid, port) = (server.child.id(), server.port);
    let before = rss(pid);
    let watching = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let watcher = {
        let watching = watching.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while watching.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss(pid));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            peak
        })
    };
    for _round in 0..4 {
        let clients: Vec<_> = (0..50)
            .map(|_| {
                let content = content.clone();
                std::thread::spawn(move || {
                    let (status, _, body) = get(port, "/archive/BIG.BIN");
                    (status, body.len(), body == *content)
                })
            })
            .collect();
        for c in clients {
            assert_eq!(
                c.join().unwrap(),
                (200, size, true),
                "every download gets every byte"
            );
        }
    }
    watching.store(false, std::sync::atomic::Ordering::Relaxed);
    let peak = watcher.join().unwrap();
    let per_client = peak.saturating_sub(before) / 50;
    eprintln!("# serve: 200 downloads of a {} MB file, 50 at a time: {} MB resident before, {} MB at peak ({} KB per client)", size >> 20, before >> 20, peak >> 20, per_client >> 10);
    // Streamed: each connection holds a buffer, not the file.
    assert!(
        per_client < size as u64 / 8,
        "{per_client} bytes per concurrent download of a {size}-byte file"
    );
}

/// Peak resident memory of a command, as GNU time reads it from the kernel when the command
/// ends (`wait4`'s `ru_maxrss`): exact however short the run. Sampling /proc misses the
/// peak of a run of a few milliseconds on a busy machine (a CI run took 188 KiB for the
/// program's own memory, and so the program for the file), and this process cannot ask
/// `wait4` itself: a child started from it inherits its high-water mark (tens of MB here).
/// GNU time's own is a megabyte, below any run of ours.
fn peak_rss(cmd: Command) -> (std::process::ExitStatus, u64) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut child = Command::new("/usr/bin/time")
        .arg("-o")
        .arg(report.path())
        .args(["-f", "%M"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("GNU time (/usr/bin/time, Debian's package time; scripts/setup.sh installs it)");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still running after 5 min");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // A command that fails has time's "Command exited with non-zero status N" line first.
    let text = std::fs::read_to_string(report.path()).unwrap();
    let kib: u64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("GNU time's report on {cmd:?}: {text:?}"));
    (status, kib * 1024)
}

#[test]
fn one_large_texture_used_by_thirty_materials_is_decoded_once() {
    use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
    use relicview::formats::pods::biz2::{
        Biz2File, FileKind, Header, MaterialDef, MaterialRef, TextureDef, TextureRef,
    };
    let dir = temp_dir("bigtexture");
    demo(&dir);
    // A 4096 × 4096 map: 64 MB of texels once decoded.
    let side = 4096u32;
    let png = {
        let img = image::RgbaImage::from_fn(side, side, |x, y| {
            image::Rgba([x as u8, y as u8, (x ^ y) as u8, 255])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    };
    std::fs::write(dir.join("DEMO/TEXTURE/BIG.PNG"), png).unwrap();
    let mut lib = Biz2File::new(FileKind::Materials, Header::default());
    lib.textures.push(TextureDef {
        map: Some("BIG.PNG".into()),
        ..TextureDef::new("big")
    });
    let cube = Biz2File::parse(&std::fs::read(dir.join("DEMO/VIDEO/CUBE.BGF")).unwrap())
        .unwrap()
        .1;
    let mut model = cube.clone();
    let patch = model.objects[0].lods[0].patches[0].clone();
    model.objects[0].lods[0].patches.clear();
    for k in 0..30 {
        lib.materials.push(MaterialDef {
            texture: Some(TextureRef {
                mode: 2,
                name: Some("big".into()),
            }),
            ..MaterialDef::new(&format!("m{k}"))
        });
        let mut p = patch.clone();
        p.front = Some(MaterialRef::Named(format!("big:m{k}")));
        model.objects[0].lods[0].patches.push(p);
    }
    std::fs::write(
        dir.join("DEMO/MATERIAL/BIG.BMF"),
        write_file(&lib, WriteOptions::default()),
    )
    .unwrap();
    std::fs::write(
        dir.join("DEMO/VIDEO/THIRTY.BGF"),
        write_file(&model, WriteOptions::default()),
    )
    .unwrap();
    let mut cmd = bin();
    cmd.args(["info", "--json", "--root"])
        .arg(&dir)
        .arg(dir.join("DEMO/VIDEO/THIRTY.BGF"));
    let (status, peak) = peak_rss(cmd);
    assert!(status.success());
    let texels = (side * side * 4) as u64;
    eprintln!("# info --root with one {side}² map used by 30 materials: peak {} MB, {:.2}× the decoded map", peak >> 20, peak as f64 / texels as f64);
    // Decoded per material it would be 30 × 64 MB; decoded once and shared, under 2×.
    assert!(
        peak < 2 * texels,
        "peak {peak} bytes for {texels} bytes of texels"
    );
}

#[test]
fn files_vanishing_during_a_listing_never_fail_it() {
    let dir = temp_dir("churn");
    demo(&dir);
    let churn_dir = dir.join("CHURN");
    std::fs::create_dir_all(&churn_dir).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let (stop, churn_dir) = (stop.clone(), churn_dir.clone());
        std::thread::spawn(move || {
            let mut k = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && k < 2_000_000 {
                let p = churn_dir.join(format!("F{}.BGF", k % 200));
                if k % 2 == 0 {
                    let _ = std::fs::write(&p, b"DIV-BIZ2");
                } else {
                    let _ = std::fs::remove_file(&p);
                }
                let sub = churn_dir.join(format!("D{}", k % 7));
                let _ = if k % 3 == 0 {
                    std::fs::create_dir_all(sub.join("X"))
                } else {
                    std::fs::remove_dir_all(&sub)
                };
                k += 1;
            }
        })
    };
    let server = serve(&dir, Path::new(env!("CARGO_MANIFEST_DIR")));
    for _ in 0..20 {
        let (status, _, body) = get(server.port, "/archive.json");
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let out = bin().args(["census", "--json"]).arg(&dir).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    churn.join().unwrap();
}

/// Peak resident memory of `relicview ARGS… PATH` beyond what the same command takes on a
/// tiny file (the program itself), as a multiple of `bytes`.
fn peak_ratio(args: &[&str], path: &Path, bytes: u64) -> (bool, f64) {
    let run = |p: &Path| {
        let mut cmd = bin();
        cmd.args(args).arg(p);
        peak_rss(cmd)
    };
    let tiny = temp_dir("tiny");
    std::fs::write(tiny.join("T.BGF"), b"DIV-BIZ2\x05\x00\x00").unwrap();
    let tiny_path = if path.is_dir() {
        tiny.to_path_buf()
    } else {
        tiny.join("T.BGF")
    };
    let baseline = run(&tiny_path).1;
    drop(tiny);
    // The program is deterministic, so its peak is too; the lower of two runs keeps a
    // sample disturbed by the tests running beside this one (seen once in CI: one run of
    // the 24 MB case at 4.5×, every other at 1.6×) from standing for the program.
    let (status, first) = run(path);
    let (_, second) = run(path);
    let peak = first.min(second);
    eprintln!(
        "# {args:?} on {bytes} bytes: peak {} and {} KiB, {} KiB for a 7-byte file",
        first >> 10,
        second >> 10,
        baseline >> 10
    );
    (
        status.success(),
        peak.saturating_sub(baseline) as f64 / bytes as f64,
    )
}

fn write_big(path: &Path, parts: impl IntoIterator<Item = Vec<u8>>) -> u64 {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for p in parts {
        f.write_all(&p).unwrap();
    }
    f.flush().unwrap();
    std::fs::metadata(path).unwrap().len()
}

/// A container chunk's header with a 4-byte length.
fn container(word: u16, payload_len: usize) -> Vec<u8> {
    let mut c = (word | 0x8000).to_le_bytes().to_vec();
    c.extend((payload_len as u32).to_le_bytes());
    c
}

#[test]
fn parse_memory_stays_within_three_times_the_file() {
    use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
    let dir = temp_dir("memory");
    let mut report = Vec::new();
    // The files are big enough that the program's own memory (measured on a 7-byte file and
    // taken away) is small beside them, and no bigger: a debug build parses them.
    // 12 MB of 4-byte leaves (SV_FACETED, repeated) in one PATCH: a record each would cost
    // tens of times the file.
    let n = (12 << 20) / 4;
    let leaves = dir.join("LEAVES.BGF");
    let size = write_big(
        &leaves,
        [
            b"DIV-BIZ2".to_vec(),
            container(0x0040, 6 + 4 * n),
            container(0x0042, 4 * n),
            [0x35, 0x20, 1, 1].repeat(n),
            vec![5, 0, 0],
        ],
    );
    let (_, ratio) = peak_ratio(&["info", "--json"], &leaves, size);
    report.push(("info, 12 MB of 4-byte leaves", ratio, 3.0));
    // A real model: 491,520 triangles in 12 MB.
    let mesh = dir.join("TERRAIN.BGF");
    let size = write_big(
        &mesh,
        [write_file(
            &relicview::demo::large_model(240),
            WriteOptions::default(),
        )],
    );
    let (ok, ratio) = peak_ratio(&["info", "--json"], &mesh, size);
    assert!(ok);
    report.push((
        "info, a 12 MB model of half a million triangles",
        ratio,
        3.0,
    ));
    let glb = dir.join("T.glb");
    let (ok, ratio) = peak_ratio(&["export", "-o", glb.to_str().unwrap()], &mesh, size);
    assert!(ok && std::fs::metadata(&glb).unwrap().len() > size / 2);
    report.push(("export of that model to .glb", ratio, 3.0));
    // 24 MB of zeros after the magic: 8 million empty chunks of an unknown id, and no end.
    let zeros = dir.join("ZEROS");
    std::fs::create_dir_all(&zeros).unwrap();
    let size = write_big(
        &zeros.join("Z.BGF"),
        [b"DIV-BIZ2".to_vec(), vec![0; 24 << 20]],
    );
    let (ok, ratio) = peak_ratio(&["census", "--json"], &zeros, size);
    assert!(ok, "census lists the file as a failure and succeeds");
    report.push(("census, 24 MB of zeros", ratio, 3.0));
    // Floods of empty containers: each would be a model element of over a hundred bytes; the
    // model stops at twice the file (a diagnostic says where), so memory stays bounded.
    let n = (6 << 20) / 3;
    let patches = dir.join("PATCHES.BGF");
    let size = write_big(
        &patches,
        [
            b"DIV-BIZ2".to_vec(),
            container(0x0040, 3 * n),
            [0x42, 0, 0].repeat(n),
            vec![5, 0, 0],
        ],
    );
    let (ok, ratio) = peak_ratio(&["info", "--json"], &patches, size);
    assert!(!ok, "the elements not built are a diagnostic");
    report.push(("info, 6 MB of empty PATCHes", ratio, 8.0));
    let objects = dir.join("OBJECTS.BGF");
    let size = write_big(
        &objects,
        [b"DIV-BIZ2".to_vec(), [0x40, 0, 0].repeat(n), vec![5, 0, 0]],
    );
    let (_, ratio) = peak_ratio(&["info", "--json"], &objects, size);
    report.push(("info, 6 MB of empty OBJECTs", ratio, 8.0));
    for (what, ratio, _) in &report {
        eprintln!("# {what}: peak RSS {ratio:.2}× the file");
    }
    for (what, ratio, limit) in report {
        assert!(
            ratio <= limit,
            "{what}: peak RSS {ratio:.2}× the file (at most {limit}×)"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn info_on_worlds_game_objects_and_subsystems_keeps_its_contract() {
    let dir = temp_dir("worlds");
    demo(&dir);
    let info_root = |path: &str| {
        let out = bin()
            .args(["info", "--json", "--root"])
            .arg(&dir)
            .arg(dir.join(path))
            .output()
            .unwrap();
        (
            out.status.success(),
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap(),
        )
    };
    let (ok, j) = info_root("DEMO/MAPS/ARENA1.MAP");
    assert!(ok, "{j}");
    assert_eq!(j["format"], "map");
    assert_eq!(j["root_section"], "arena1");
    // Hall, 4 blocks of 3 buildings, 2 crates, the door, the stack, the wellhead, and the
    // LAB_ONLY crate.
    assert_eq!(j["placements"], 19);
    assert_eq!(j["dropzones"], 4);
    assert_eq!(j["missing"], serde_json::json!([]));
    assert_eq!(
        (j["lab_only"].as_u64(), j["doors"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(j["includes"], serde_json::json!(["DEMO/MAPS/BLOCKS.MAP"]));
    assert_eq!(
        j["ambiguous"],
        serde_json::json!([{"name": "crate.bgf", "taken": "DEMO/VIDEO/CRATE.BGF", "candidates": ["OTHER/VIDEO/CRATE.BGF"]}])
    );
    // Triangles: LOD 0 of every placed model, twins dropped (the door frame's drwl.bgf).
    let tri = |p: &str| -> u64 { info(&dir.join(p)).1["triangles"].as_u64().unwrap() };
    let expected = tri("DEMO/VIDEO/HALL.BGF")
        + 12 * tri("DEMO/VIDEO/BLDG.BGF")
        + 3 * tri("DEMO/VIDEO/CRATE.BGF")
        + tri("DEMO/VIDEO/DRW.BGF")
        + tri("DEMO/VIDEO/DR1.BGF")
        + tri("DEMO/VIDEO/DR2.BGF")
        + tri("DEMO/VIDEO/STACK.BGF")
        + tri("DEMO/VIDEO/WH1.BGF")
        + tri("DEMO/VIDEO/LAZDRIL.BGF");
    assert_eq!(j["triangles"].as_u64(), Some(expected));
    assert_eq!(
        j["bounds"]["min"],
        serde_json::json!([-30.5, 0.0, -30.5]),
        "the hall's walls bound the arena"
    );
    // The doors' clips are named by door and placement, as a Blender user sees them.
    let glb_path = dir.join("arena.glb");
    assert!(bin()
        .args(["export", "--root"])
        .arg(&dir)
        .arg(dir.join("DEMO/MAPS/ARENA1.MAP"))
        .arg("-o")
        .arg(&glb_path)
        .status()
        .unwrap()
        .success());
    let glb = std::fs::read(&glb_path).unwrap();
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let gltf: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let clips: Vec<&str> = gltf["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(clips, ["door1 @ door[0]", "door2 @ door[0]"]);
    // Without --root the map finds none of its models: the export says why it is empty.
    let alone = bin()
        .arg("export")
        .arg(dir.join("DEMO/MAPS/ARENA1.MAP"))
        .arg("-o")
        .arg(dir.join("alone.glb"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&alone.stdout).contains(" 0 triangles"),
        "{}",
        String::from_utf8_lossy(&alone.stdout)
    );
    let why = String::from_utf8_lossy(&alone.stderr);
    assert!(
        why.contains("ARENA1.MAP: nothing drawn; models: not looked for")
            && why.contains("opened on its own"),
        "{why}"
    );

    let (ok, m) = info_root("DEMO/MODELS/DRW.MOD");
    assert!(ok, "{m}");
    assert_eq!(m["format"], "mod");
    assert_eq!(
        m["objects"],
        serde_json::json!([
            "DEMO/VIDEO/DRW.BGF",
            "DEMO/VIDEO/DR1.BGF",
            "DEMO/VIDEO/DR2.BGF"
        ])
    );
    assert_eq!(
        m["triangles"].as_u64(),
        Some(tri("DEMO/VIDEO/DRW.BGF") + tri("DEMO/VIDEO/DR1.BGF") + tri("DEMO/VIDEO/DR2.BGF"))
    );
    assert_eq!(m["twins"], serde_json::json!(["drwl.bgf"]));

    let (ok, s) = info_root("DEMO/MODELS/DRW.SUB");
    assert!(ok);
    assert_eq!(s["format"], "sub");
    assert_eq!(s["subsystems"][0]["name"], "door1");
    assert_eq!(s["subsystems"][0]["type"], "DoorClassID");
    assert_eq!(
        s["subsystems"][1]["motion_extent"],
        serde_json::json!([3.0, 0.0, 0.0])
    );

    // A map whose model exists nowhere lists it and shows the rest; info exits 1.
    std::fs::write(
        dir.join("DEMO/MAPS/GAPS.MAP"),
        b"[hall]\r\ntype=model\r\nmodelfile=hall.mod\r\n[ghost]\r\ntype=model\r\nmodelfile=ghost.mod\r\n[gaps]\r\ntype=map\r\ninstance=hall 0 0 0 0 0 0\r\ninstance=ghost 0 0 0 0 0 0\r\n",
    )
    .unwrap();
    let (ok, g) = info_root("DEMO/MAPS/GAPS.MAP");
    assert!(!ok, "a missing asset is a diagnostic");
    assert_eq!(g["missing"], serde_json::json!(["ghost.mod"]));
    assert_eq!(g["triangles"].as_u64(), Some(tri("DEMO/VIDEO/HALL.BGF")));
    // An include cycle: exit 1, the error at the offending line's byte offset.
    let cycle = b"[a]\r\ntype=map\r\ninstance=hall 0 0 0 0 0 0\r\n[me]\r\ntype=include\r\nfile=loop.map\r\n";
    std::fs::write(dir.join("DEMO/MAPS/LOOP.MAP"), cycle).unwrap();
    let (ok, e) = info_root("DEMO/MAPS/LOOP.MAP");
    assert!(!ok);
    let offset = e["error"]["offset"].as_u64().unwrap() as usize;
    assert_eq!(&cycle[offset..offset + 13], b"file=loop.map");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("include cycle"),
        "{e}"
    );
    // Census counts the worlds.
    let out = bin().args(["census", "--json"]).arg(&dir).output().unwrap();
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["worlds"], 6);
    assert_eq!(
        c["missing_assets"]["ghost.mod"],
        serde_json::json!(["DEMO/MAPS/GAPS.MAP"])
    );
}

/// `info` with `--root`: (exit code, JSON).
fn info_in(root: &Path, file: &Path) -> (i32, serde_json::Value) {
    let out = bin()
        .args(["info", "--json", "--root"])
        .arg(root)
        .arg(file)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn a_file_gets_the_same_answer_wherever_it_lies_and_its_name_is_part_of_its_kind() {
    let root = temp_dir("where-root");
    demo(&root);
    let outside = temp_dir("where-outside");
    let inside = root.join("DEMO/VIDEO");
    let cube = std::fs::read(root.join("DEMO/VIDEO/CUBE.BGF")).unwrap();
    // Named .BGF, content not DIV-BIZ2: bad magic, empty, 5 bytes.
    let bad: [(&str, &[u8], &str); 3] = [
        (
            "BADMAGIC.BGF",
            b"NOTBIZ2-and-more-bytes",
            "its first 8 bytes are \"NOTBIZ2-\"",
        ),
        ("EMPTY.BGF", b"", "the file has 0 bytes"),
        ("FIVE.BGF", b"DIV-B", "the file has 5 bytes"),
    ];
    // A map that includes itself, and a game object whose model is nowhere.
    let cycle = b"[me]\r\ntype=include\r\nfile=selfinc.map\r\n[selfinc]\r\ntype=map\r\ninstance=x 0 0 0 0 0 0\r\n";
    let ghost = b"[video]\r\nobject=nowhere.bgf\r\n";
    for dir in [&*outside, inside.as_path()] {
        for (name, bytes, why) in bad {
            std::fs::write(dir.join(name), bytes).unwrap();
            let (code, j) = info_in(&root, &dir.join(name));
            assert_eq!(code, 1, "{name} in {}: {j}", dir.display());
            let message = j["error"]["message"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: {j}"));
            assert!(
                message.contains(&format!(
                    "named .BGF, but it does not start with DIV-BIZ2: {why}"
                )),
                "{message}"
            );
            assert_eq!(j["error"]["offset"], 0);
            // The same answer without --root.
            let (ok, alone) = info(&dir.join(name));
            assert!(!ok);
            assert_eq!(alone["error"]["message"], j["error"]["message"]);
        }
        // Other names that claim a format: an image without its signature, a world that is
        // not text.
        for (name, bytes, says) in [
            (
                "SKY.PNG",
                &b"GIF89a-not-a-png"[..],
                "named .PNG, a PNG image, but it does not start with the PNG signature 89 50 4E 47",
            ),
            (
                "BIN.MAP",
                &b"[a]\x00\x01\x02"[..],
                "named .MAP, a pod world (INI-style text), but it is not text: byte 3 is 0x00",
            ),
        ] {
            std::fs::write(dir.join(name), bytes).unwrap();
            let (code, j) = info_in(&root, &dir.join(name));
            assert_eq!(code, 1, "{name}: {j}");
            assert!(
                j["error"]["message"].as_str().unwrap().contains(says),
                "{j}"
            );
        }
        std::fs::write(dir.join("SELFINC.MAP"), cycle).unwrap();
        let (code, j) = info_in(&root, &dir.join("SELFINC.MAP"));
        assert_eq!(code, 1, "{j}");
        assert!(
            j["error"]["message"]
                .as_str()
                .unwrap()
                .contains("include cycle"),
            "{j}"
        );
        assert_eq!(
            &cycle[j["error"]["offset"].as_u64().unwrap() as usize..][..16],
            b"file=selfinc.map"
        );
        std::fs::write(dir.join("GHOST.MOD"), ghost).unwrap();
        let (code, j) = info_in(&root, &dir.join("GHOST.MOD"));
        assert_eq!(
            (code, &j["format"], &j["missing"]),
            (
                1,
                &serde_json::json!("mod"),
                &serde_json::json!(["nowhere.bgf"])
            ),
            "{j}"
        );
        // A good model outside the archive finds its library in it.
        std::fs::write(dir.join("MYCUBE.BGF"), &cube).unwrap();
        let (code, j) = info_in(&root, &dir.join("MYCUBE.BGF"));
        assert_eq!(
            (code, &j["kind"]),
            (0, &serde_json::json!("geometry")),
            "{j}"
        );
    }
    // Beside it first: an include next to a map outside the archive wins over the archive's.
    std::fs::write(outside.join("NEAR.MAP"), b"[inc]\r\ntype=include\r\nfile=blocks.map\r\n[near]\r\ntype=map\r\ninstance=block 0 0 0 0 0 0\r\n").unwrap();
    std::fs::write(outside.join("BLOCKS.MAP"), b"[bldg]\r\ntype=model\r\nmodelfile=bldg.mod\r\n[block]\r\ntype=map\r\ninstance=bldg 0 0 0 0 0 0\r\n").unwrap();
    let (code, j) = info_in(&root, &outside.join("NEAR.MAP"));
    assert_eq!(code, 0, "{j}");
    assert_eq!(
        j["includes"],
        serde_json::json!([outside.join("BLOCKS.MAP").to_string_lossy()])
    );
    assert_eq!(
        j["placements"], 1,
        "the building of the block beside it, not the archive's three"
    );
}

#[test]
fn the_summary_has_an_error_key_only_when_there_is_an_error() {
    let dir = temp_dir("error-key");
    demo(&dir);
    let mut seen = std::collections::BTreeSet::new();
    for entry in relicview::demo::demo_files() {
        let (ok, j) = info(&dir.join(&entry.0));
        let format = j["format"].as_str().unwrap_or("?").to_string();
        if ok {
            assert!(j.get("error").is_none(), "{}: {j}", entry.0);
        } else {
            assert!(
                j["error"].is_object()
                    || j["diagnostics"].as_array().is_some_and(|d| !d.is_empty()),
                "{}: {j}",
                entry.0
            );
        }
        seen.insert(format);
    }
    // Real FF7 files too.
    for f in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata/ff7"))
        .unwrap()
    {
        let path = f.unwrap().path();
        let (ok, j) = info(&path);
        assert!(ok && j.get("error").is_none(), "{}: {j}", path.display());
        seen.insert(j["format"].as_str().unwrap().to_string());
    }
    for format in ["biz2", "map", "mod", "sub", "image", "bsx", "tdb"] {
        assert!(seen.contains(format), "{format} not among {seen:?}");
    }
}

#[test]
fn exit_codes_are_0_fine_1_error_or_diagnostics_2_usage() {
    let dir = temp_dir("exit-codes");
    demo(&dir);
    let code = |args: &[&str]| bin().args(args).output().unwrap().status.code();
    let path = |p: &str| dir.join(p).to_string_lossy().into_owned();
    assert_eq!(code(&["info", &path("DEMO/VIDEO/CUBE.BGF")]), Some(0));
    assert_eq!(code(&["info", &path("DEMO/FIELD/ROBOT.BSX")]), Some(0));
    assert_eq!(
        code(&["info", &path("DEMO/MAPS/ARENA1.MAP"), "--root", &path("")]),
        Some(0)
    );
    std::fs::write(
        dir.join("BAD.MAP"),
        b"[a]\r\ntype=map\r\ninstance=nothing 0 0 0 0 0 0\r\n",
    )
    .unwrap();
    std::fs::write(dir.join("BAD.BSX"), b"\x10\x00\x00\x00\xff\xff\xff\xff").unwrap();
    // A diagnostic (a placement of nothing), an error, a file that is not there.
    for bad in ["BAD.MAP", "BAD.BSX", "no-such-file.bgf"] {
        assert_eq!(
            code(&["info", &path(bad), "--root", &path("")]),
            Some(1),
            "{bad}"
        );
    }
    // export: 1 when nothing could be written; a world with a gap is written (exit 0).
    for bad in ["BAD.BSX", "no-such-file.bgf", "DEMO/MATERIAL/DEMO.BMF"] {
        assert_eq!(
            code(&["export", &path(bad), "-o", &path("out.glb")]),
            Some(1),
            "{bad}"
        );
    }
    assert_eq!(
        code(&["export", &path("BAD.MAP"), "-o", &path("out.glb")]),
        Some(0)
    );
    assert_eq!(code(&["info"]), Some(2), "a missing argument");
    assert_eq!(
        code(&["info", "--no-such-option", &path("DEMO/VIDEO/CUBE.BGF")]),
        Some(2)
    );
    assert_eq!(code(&["frobnicate"]), Some(2));
    assert_eq!(code(&["census", &path("")]), Some(0));
}

fn shared(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/testdata/ff7")
            .join(name),
    )
    .expect("the shared FF7 test data sits beside the repo")
}

/// The JSON chunk of a .glb.
fn glb_json(glb: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

/// The COLOR_0 floats of every primitive of a .glb, in order.
fn glb_colours(glb: &[u8]) -> Vec<f32> {
    let j = glb_json(glb);
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin = &glb[20 + json_len + 8..];
    let mut out = Vec::new();
    for m in j["meshes"].as_array().unwrap() {
        for p in m["primitives"].as_array().unwrap() {
            let Some(a) = p["attributes"]["COLOR_0"].as_u64() else {
                continue;
            };
            let acc = &j["accessors"][a as usize];
            let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
            let at = view["byteOffset"].as_u64().unwrap_or(0) as usize
                + acc["byteOffset"].as_u64().unwrap_or(0) as usize;
            let n = acc["count"].as_u64().unwrap() as usize * 4;
            out.extend(
                bin[at..at + 4 * n]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().unwrap())),
            );
        }
    }
    out
}

#[test]
fn export_writes_the_colours_the_game_lit_by_default_and_the_stored_ones_when_asked() {
    let dir = temp_dir("lighting");
    std::fs::create_dir_all(dir.join("FIELD")).unwrap();
    std::fs::write(dir.join("FIELD/MD1_1.BSX"), shared("MD1_1_u.BSX")).unwrap();
    std::fs::write(dir.join("FIELD/FIELD.BIN"), shared("FIELD.BIN_u")).unwrap();
    let export = |lighting: Option<&str>, name: &str| {
        let mut cmd = bin();
        cmd.args(["export", "--root"])
            .arg(&dir)
            .arg(dir.join("FIELD/MD1_1.BSX"))
            .args(["--model", "2", "-o"])
            .arg(dir.join(name));
        if let Some(l) = lighting {
            cmd.args(["--lighting", l]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read(dir.join(name)).unwrap()
    };
    let (default, game, stored) = (
        export(None, "d.glb"),
        export(Some("game"), "g.glb"),
        export(Some("stored"), "s.glb"),
    );
    assert_eq!(
        default, game,
        "game is the default where FIELD.BIN is found"
    );
    let used = |glb: &[u8]| {
        glb_json(glb)["extensionsUsed"]
            .as_array()
            .map_or(Vec::new(), |a| {
                a.iter().map(|e| e.as_str().unwrap().to_string()).collect()
            })
    };
    assert!(
        used(&game).contains(&"KHR_materials_unlit".to_string()),
        "drawn unlit, as the game drew them"
    );
    assert!(!used(&stored).contains(&"KHR_materials_unlit".to_string()));
    let (g, s) = (glb_colours(&game), glb_colours(&stored));
    assert_eq!(g.len(), s.len());
    // The game's light darkens most corners (a median lit/stored ratio near 0.6).
    let darker = g
        .chunks(4)
        .zip(s.chunks(4))
        .filter(|(a, b)| a[0] < b[0] * 0.9)
        .count();
    assert!(
        darker * 2 > g.len() / 4,
        "{darker} of {} corners darker lit",
        g.len() / 4
    );
    // Without FIELD.BIN there is nothing to light with: game writes the stored colours.
    std::fs::remove_file(dir.join("FIELD/FIELD.BIN")).unwrap();
    assert_eq!(glb_colours(&export(Some("game"), "n.glb")), s);
    let bad = bin()
        .args(["export", "--lighting", "sun"])
        .arg(dir.join("FIELD/MD1_1.BSX"))
        .arg("-o")
        .arg(dir.join("x.glb"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "a usage error");
}

#[test]
fn inspect_lists_every_record_of_every_kind_with_its_fields_and_the_coverage() {
    let dir = temp_dir("inspect");
    demo(&dir);
    std::fs::write(dir.join("FIELD.BIN"), shared("FIELD.BIN_u")).unwrap();
    std::fs::write(dir.join("BROKEN.BGF"), b"DIV-BIZ2\x03\xC0").unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for entry in walkdir(&dir) {
        let out = bin()
            .args(["inspect", "--json", "--root"])
            .arg(&dir)
            .arg(&entry)
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
        let (_, info) = info(&entry);
        // Exit codes as `info`: 1 on an error (or a diagnostic), 0 otherwise.
        assert_eq!(
            out.status.success(),
            j.get("error").is_none() && j["diagnostics"].as_array().unwrap().is_empty(),
            "{}",
            entry.display()
        );
        assert_eq!(
            j.get("error").is_some(),
            info.get("error").is_some(),
            "{}",
            entry.display()
        );
        let records = j["records"].as_array().unwrap();
        assert_eq!(
            records.len() as u64,
            j["records_total"].as_u64().unwrap(),
            "{}: every record listed",
            entry.display()
        );
        let bytes = j["bytes"].as_u64().unwrap();
        let c = &j["coverage"];
        let total: u64 = ["framing", "decoded", "opaque", "unclaimed"]
            .iter()
            .map(|k| c[k].as_u64().unwrap())
            .sum();
        assert_eq!(
            total,
            bytes,
            "{}: the coverage adds up to the bytes",
            entry.display()
        );
        for (i, r) in records.iter().enumerate() {
            assert_eq!(r["index"], i as u64);
            let (at, len) = (r["offset"].as_u64().unwrap(), r["length"].as_u64().unwrap());
            assert!(at + len <= bytes, "{}: {r}", entry.display());
            assert!(!r["path"].as_str().unwrap().is_empty());
            for f in r["fields"].as_array().unwrap() {
                assert!(
                    f["offset"].as_u64().unwrap() >= at
                        && f["offset"].as_u64().unwrap() + f["length"].as_u64().unwrap()
                            <= at + len,
                    "{}: field {f} outside {r}",
                    entry.display()
                );
            }
        }
        kinds.insert(info["format"].as_str().unwrap_or("").to_string());
        // Without --json: a listing that fits the terminal.
        let text = bin()
            .args(["inspect"])
            .arg(&entry)
            .env("COLUMNS", "80")
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.lines().all(|l| l.chars().count() <= 80),
            "{}",
            entry.display()
        );
        assert!(text.contains("coverage: "), "{}", entry.display());
    }
    for k in [
        "biz2-geometry",
        "biz2-materials",
        "map",
        "mod",
        "sub",
        "bsx",
        "bcx",
        "tdb",
        "field-bin",
        "image",
    ] {
        assert!(
            kinds
                .iter()
                .any(|f| f.contains(k) || k.contains(f.as_str())),
            "{k} in {kinds:?}"
        );
    }
}

fn walkdir(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path())
            } else {
                out.push(e.path())
            }
        }
    }
    out.sort();
    out
}
