//! Parse and triangulation throughput on ~50 MB of generated DIV-BIZ2, reported beside a
//! memcpy of the same bytes measured in the same run. Writes the data and the native
//! figures to target/bench/ so scripts/bench.sh can run the same file through the wasm
//! build (in Node) and compare.
//!
//! cargo bench --bench throughput [-- --mb N]

use relicview::archive::{open_file, Archive, MemorySource};
use relicview::demo::large_model;
use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
use relicview::formats::pods::biz2::Biz2File;
use relicview::formats::registry::{self, Purpose};
use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

mod common;
use common::{best, budget as budget_of, smoke};

/// Like [`best`], but only `run` is timed: `setup` makes its input, and what it returns is
/// dropped after the clock stops.
fn best_with<I, O>(
    budget: Duration,
    mut setup: impl FnMut() -> I,
    mut run: impl FnMut(I) -> O,
) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < 3 || start.elapsed() < budget {
        let input = setup();
        let t = Instant::now();
        let out = run(input);
        best = best.min(t.elapsed());
        drop(black_box(out));
        runs += 1;
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: f64 = args
        .iter()
        .position(|a| a == "--mb")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(50.0);
    let patches = (mb * 1e6 / 51_000.0).round().max(1.0) as usize;
    let bytes = write_file(&large_model(patches), WriteOptions::default());
    let size_mb = bytes.len() as f64 / 1e6;
    let out_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    std::fs::create_dir_all(&out_dir).expect("target/bench");
    std::fs::write(out_dir.join("big.bgf"), &bytes).expect("write bench data");
    // A ~500k-triangle model for the first-frame comparison (tests/bench/first-frame.mjs).
    let open_dir = out_dir.join("open500k");
    std::fs::create_dir_all(&open_dir).expect("target/bench/open500k");
    // (A smoke run's model is small: the page benchmarks only prove they still run.)
    std::fs::write(
        open_dir.join("TERRAIN.BGF"),
        write_file(
            &large_model(if smoke() { 8 } else { 245 }),
            WriteOptions::default(),
        ),
    )
    .expect("write open500k");

    let budget = budget_of(Duration::from_secs(3));
    let mut copy = vec![0u8; bytes.len()];
    let memcpy = best(budget, || {
        copy.copy_from_slice(black_box(&bytes));
        black_box(&copy);
    });
    // The same copy into fresh memory, as the parse's output is: the page faults of newly
    // mapped memory are a large part of building tens of megabytes of vertex arrays.
    let fresh_copy = best(budget, || {
        black_box(black_box(&bytes).to_vec());
    });
    let mut triangles = 0;
    let parse = best(budget, || {
        let (tree, file) = Biz2File::parse(black_box(&bytes)).expect("bench data parses");
        triangles = file.triangle_count();
        black_box((tree, file));
    });
    let mut corners = 0; // index entries: three per triangle
    let full = best(budget, || {
        // Parse and triangulate into a scene, as the wasm build's countTriangles does (the
        // same work on both sides of the native/wasm ratio).
        let doc = registry::open("BIG.BGF", black_box(bytes.clone()), Purpose::Asset);
        let scene = doc
            .build_scene(&Archive::detached())
            .scene
            .expect("bench data draws");
        corners = scene
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.len())
            .sum();
        black_box((doc, scene));
    });
    assert_eq!(corners, triangles * 3);
    // The parse and triangulation alone: the file's bytes already in memory (as the page's
    // are once read), the results freed after the clock.
    let core = best_with(
        budget,
        || bytes.clone(),
        |owned| {
            let doc = registry::open("BIG.BGF", owned, Purpose::Asset);
            let scene = doc.build_scene(&Archive::detached());
            (doc, scene)
        },
    );
    // The worker's extra steps (crates/services/src/wire.rs): the scene to bytes and back, and its bounds,
    // which the page needs to frame the camera.
    let scene = registry::open("BIG.BGF", bytes.clone(), Purpose::Asset)
        .build_scene(&Archive::detached())
        .scene
        .expect("bench data draws");
    let shown = relicview::wire::ShownScene {
        scene,
        records: Vec::new(),
        placements: 0,
    };
    let mut wire = Vec::new();
    let encode = best(budget, || {
        wire = relicview::wire::encode(black_box(&shown).lend())
    });
    let decode = best(budget, || {
        black_box(relicview::wire::decode(black_box(&wire)).expect("own bytes decode"));
    });
    let bounds = best(budget, || {
        black_box(shown.scene.bounds_in(0, &[]));
    });
    let source = MemorySource::new([("BIG.BGF".to_string(), bytes.clone())]);
    let open = best(budget, || {
        // What the viewer does: the one open sequence (read, parse with the inspector view,
        // build the scene with its arrays moved out of the model).
        let archive = RefCell::new(source.archive());
        let opened =
            pollster::block_on(open_file(&archive, &source, "BIG.BGF")).expect("bench data reads");
        black_box((opened.document, opened.scene));
    });

    let rate = |d: Duration| size_mb / d.as_secs_f64();
    println!("DIV-BIZ2 throughput, {size_mb:.1} MB, {triangles} triangles, best of runs within {budget:?}{}", common::build_note());
    println!("  memcpy                       {:8.1} MB/s", rate(memcpy));
    println!(
        "  copy into fresh memory       {:8.1} MB/s   {:.3} of memcpy",
        rate(fresh_copy),
        rate(fresh_copy) / rate(memcpy)
    );
    println!(
        "  parse (chunk tree + model)   {:8.1} MB/s   {:.3} of memcpy",
        rate(parse),
        rate(parse) / rate(memcpy)
    );
    println!(
        "  parse + triangulate          {:8.1} MB/s   {:.3} of memcpy, {:.3} of the fresh copy",
        rate(full),
        rate(full) / rate(memcpy),
        rate(full) / rate(fresh_copy)
    );
    println!("  … the bytes already in memory{:8.1} MB/s   {:.3} of memcpy (copying and freeing them left out)", rate(core), rate(core) / rate(memcpy));
    println!(
        "  open sequence (+ inspector)  {:8.1} MB/s   {:.3} of memcpy",
        rate(open),
        rate(open) / rate(memcpy)
    );
    let wire_mb = wire.len() as f64 / 1e6;
    let wire_rate = |d: Duration| wire_mb / d.as_secs_f64();
    println!(
        "  scene → bytes ({wire_mb:.1} MB)      {:8.1} MB/s   {:.3} of memcpy",
        wire_rate(encode),
        wire_rate(encode) / rate(memcpy)
    );
    println!(
        "  bytes → scene                {:8.1} MB/s   {:.3} of memcpy",
        wire_rate(decode),
        wire_rate(decode) / rate(memcpy)
    );
    println!(
        "  scene bounds                 {:8.1} ms",
        bounds.as_secs_f64() * 1e3
    );
    let json = format!("{{\"bytes\":{},\"triangles\":{triangles},\"memcpy_mb_s\":{:.2},\"parse_mb_s\":{:.2},\"parse_triangulate_mb_s\":{:.2}}}", bytes.len(), rate(memcpy), rate(parse), rate(full));
    std::fs::write(out_dir.join("native.json"), json).expect("write native figures");
}
