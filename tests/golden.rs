//! Every format's output, byte for byte, as it was when `tests/golden/outputs.tsv` was last
//! written: `info --json` and `inspect --json` of every file, `info` and `inspect` as a person
//! reads them (with what they say on stderr), and every file `export --all` writes, for the demo archive and the real FF7
//! files (field models, characters, FIELD.TDB and FIELD.BIN unpacked; characters, fields and
//! battle files as on the disc). A change of the house (issue 70: formats moved into families,
//! describing split from drawing) must leave every line the same.
//!
//! An output changed on purpose: `RELICVIEW_BLESS=1 cargo test --test golden` rewrites the
//! file (review its diff: each line names the command and the file). Every run also keeps the
//! outputs whole in `target/golden/` (blessed runs in `expected/`, others in `actual/`), so a
//! difference can be read with `diff -r`.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const GOLDEN: &str = "tests/golden/outputs.tsv";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_relicview"))
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The archive: the demo, and the real FF7 files under the names the game gives them.
fn archive(dir: &Path) {
    common::run(bin().arg("demo").arg(dir));
    let shared = repo().join("../shared/testdata");
    let unpacked = dir.join("FF7U/FIELD");
    std::fs::create_dir_all(&unpacked).unwrap();
    for (from, to) in [
        ("ELEVTR1_u.BSX", "ELEVTR1.BSX"),
        ("MD1_1_u.BSX", "MD1_1.BSX"),
        ("NMKIN_1_u.BSX", "NMKIN_1.BSX"),
        ("STARTMAP_u.BSX", "STARTMAP.BSX"),
        ("FIELD.TDB_u", "FIELD.TDB"),
        ("FIELD.BIN_u", "FIELD.BIN"),
    ] {
        std::fs::copy(shared.join("ff7").join(from), unpacked.join(to)).unwrap();
    }
    for (folder, files) in [
        (
            "ff7-disc",
            &[
                "BALLET.BCX",
                "CLOUD.BCX",
                "ELEVTR1.DAT",
                "ELEVTR1.MIM",
                "MD1_1.DAT",
                "MD1_1.MIM",
                "NMKIN_1.DAT",
                "NMKIN_1.MIM",
            ][..],
        ),
        (
            "ff7-battle",
            &["CLOUD.LZS", "ENEMY016.LZS", "ENEMY019.LZS", "STAGE09.LZS"][..],
        ),
    ] {
        let to = dir
            .join("FF7")
            .join(folder.trim_start_matches("ff7-").to_uppercase());
        std::fs::create_dir_all(&to).unwrap();
        for f in files {
            std::fs::copy(shared.join(folder).join(f), to.join(f)).unwrap();
        }
    }
}

/// Every file under `dir`, as paths relative to it, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// One output: what ran, on which file, its exit code and its bytes.
struct Output {
    key: String,
    code: i32,
    bytes: Vec<u8>,
}

impl Output {
    fn line(&self) -> String {
        format!(
            "{}\t{}\t{:08x}\t{}",
            self.key,
            self.code,
            crc32fast::hash(&self.bytes),
            self.bytes.len()
        )
    }
}

/// `relicview ARGS… FILE` run in the archive's folder (so no output names the scratch
/// folder), with the archive as its root.
fn run(archive: &Path, args: &[&str], file: &str) -> Output {
    let out = bin()
        .current_dir(archive)
        .args(args)
        .args(["--root", "."])
        .arg(file)
        .output()
        .unwrap();
    // What a person sees: the output, then any message on stderr.
    let mut bytes = out.stdout;
    if !out.stderr.is_empty() {
        bytes.extend_from_slice(b"\n--- stderr\n");
        bytes.extend_from_slice(&out.stderr);
    }
    Output {
        key: format!("{}\t{file}", args.join(" ")),
        code: out.status.code().unwrap_or(-1),
        bytes,
    }
}

fn keep(outputs: &[Output], to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    for o in outputs {
        let name = o.key.replace(['\t', ' '], "_").replace('/', "~");
        std::fs::create_dir_all(to).unwrap();
        std::fs::write(to.join(name), &o.bytes).unwrap();
    }
}

#[test]
fn every_format_s_output_is_byte_for_byte_what_it_was() {
    let scratch = common::scratch("golden");
    let dir = scratch.join("ARCHIVE");
    std::fs::create_dir_all(&dir).unwrap();
    archive(&dir);
    let inputs = files(&dir);
    assert!(inputs.len() > 50, "{} files in the archive", inputs.len());

    // info and inspect of every file, in both forms, split among the cores.
    let commands: [&[&str]; 4] = [
        &["info", "--json"],
        &["info"],
        &["inspect", "--json"],
        &["inspect"],
    ];
    let jobs: Vec<(&[&str], &String)> = inputs
        .iter()
        .flat_map(|f| commands.iter().map(move |c| (*c, f)))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let mut outputs: Vec<Output> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let jobs = &jobs;
                let dir = &dir;
                s.spawn(move || {
                    jobs.iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|(args, file)| run(dir, args, file))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });

    // Every file export --all writes, and its report.
    let exported = scratch.join("EXPORT");
    let all = bin()
        .current_dir(&dir)
        .args(["export", "--all", "--json", ".", "-o"])
        .arg(&exported)
        .output()
        .unwrap();
    outputs.push(Output {
        key: "export --all --json\t.".into(),
        code: all.status.code().unwrap_or(-1),
        bytes: all.stdout,
    });
    for f in files(&exported) {
        outputs.push(Output {
            key: format!("export --all: wrote\t{f}"),
            code: 0,
            bytes: std::fs::read(exported.join(&f)).unwrap(),
        });
    }
    outputs.sort_by(|a, b| a.key.cmp(&b.key));

    let now: BTreeMap<String, String> = outputs.iter().map(|o| (o.key.clone(), o.line())).collect();
    let target = repo().join("target/golden");
    if std::env::var_os("RELICVIEW_BLESS").is_some() {
        let mut text = String::from("# command\tfile\texit\tcrc32\tbytes (tests/golden.rs)\n");
        for line in now.values() {
            text.push_str(line);
            text.push('\n');
        }
        std::fs::write(repo().join(GOLDEN), text).unwrap();
        keep(&outputs, &target.join("expected"));
        return;
    }
    keep(&outputs, &target.join("actual"));
    let golden = std::fs::read_to_string(repo().join(GOLDEN)).expect(GOLDEN);
    let then: BTreeMap<String, String> = golden
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let key = format!("{}\t{}", parts.next().unwrap(), parts.next().unwrap_or(""));
            (key, l.to_string())
        })
        .collect();
    let mut differ = Vec::new();
    for key in then
        .keys()
        .chain(now.keys().filter(|k| !then.contains_key(*k)))
    {
        match (then.get(key), now.get(key)) {
            (Some(a), Some(b)) if a == b => {}
            (a, b) => differ.push(format!(
                "  was: {}\n  now: {}",
                a.map_or("(none)", String::as_str),
                b.map_or("(none)", String::as_str)
            )),
        }
    }
    eprintln!("# {} outputs of {} files compared", now.len(), inputs.len());
    assert!(
        differ.is_empty(),
        "{} of {} outputs differ from {GOLDEN} (the outputs now: {}):\n{}",
        differ.len(),
        now.len(),
        target.join("actual").display(),
        differ.join("\n")
    );
}
