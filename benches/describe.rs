//! What describing a file costs: every file of the demo archive and of the real FF7 fields
//! (../shared/testdata, where it is beside the clone) opened through the core's open
//! sequence as the page shows it (`Purpose::Show`: drawn and described) and as a thumbnail
//! draws it (`Purpose::Draw`: drawn, not described), in the same run. The ratio is what the
//! thumbnail worker saves by not describing (docs/benchmarks.md, "Describing").
//!
//! cargo bench --bench describe

use relicview::archive::{open_file_for, MemorySource};
use relicview::formats::registry::Purpose;
use std::path::Path;
use std::time::Duration;

mod common;
use common::{best, budget as budget_of, smoke};

/// The real FF7 files a field opens, named as on the disc (the unpacked ones without `_u`).
fn ff7_files() -> Vec<(String, Vec<u8>)> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata");
    let mut out = Vec::new();
    for (folder, unpacked) in [("ff7", true), ("ff7-disc", false)] {
        let Ok(dir) = std::fs::read_dir(shared.join(folder)) else {
            continue;
        };
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.ends_with(".md") {
                continue;
            }
            let name = if unpacked {
                name.replace("_u", "")
            } else {
                name
            };
            if let Ok(bytes) = std::fs::read(entry.path()) {
                out.push((format!("FIELD/{name}"), bytes));
            }
        }
    }
    out.sort();
    out
}

fn main() {
    let budget = budget_of(Duration::from_millis(400));
    let mut files = relicview::formats::demo::demo_files();
    // (The smoke run, unoptimised, proves the bench runs on the demo's files alone.)
    if !smoke() {
        files.extend(ff7_files());
    }
    let source = MemorySource::new(files.clone());
    let open = |path: &str, purpose: Purpose| {
        // A fresh archive each time, as a fresh page or thumbnail worker has.
        let archive = std::cell::RefCell::new(source.archive());
        let opened = pollster::block_on(open_file_for(&archive, &source, path, purpose))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        std::hint::black_box(opened.scene.map(|s| s.triangle_count(0)));
    };
    println!(
        "Opening each file shown (drawn and described) and drawn only, best of runs within {budget:?}{}",
        common::build_note()
    );
    let (mut shown_total, mut drawn_total) = (Duration::ZERO, Duration::ZERO);
    for (path, _) in &files {
        let shown = best(budget, || {
            open(path, Purpose::Show);
        });
        let drawn = best(budget, || {
            open(path, Purpose::Draw);
        });
        shown_total += shown;
        drawn_total += drawn;
        println!(
            "  {path:<36} shown {:8.2} ms  drawn {:8.2} ms  ratio drawn / shown {:.2}",
            shown.as_secs_f64() * 1e3,
            drawn.as_secs_f64() * 1e3,
            drawn.as_secs_f64() / shown.as_secs_f64().max(1e-9)
        );
    }
    println!(
        "  all {} files: shown {:.1} ms, drawn {:.1} ms: ratio drawn / shown {:.2}",
        files.len(),
        shown_total.as_secs_f64() * 1e3,
        drawn_total.as_secs_f64() * 1e3,
        drawn_total.as_secs_f64() / shown_total.as_secs_f64().max(1e-9)
    );
}
