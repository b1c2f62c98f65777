//! `relicview diff` on two ~50 MB models with 10 differences (vertices moved in 10 patches
//! spread over the file), against parsing both in the same run. The diff's time is the
//! whole path the CLI takes: both files opened to be shown (inspector rows, scenes), then
//! compared. The issue asks for at most 2× the parse of both.
//!
//! cargo bench --bench diff [-- --mb N]

use relicview::archive::{open_bytes, MemorySource};
use relicview::demo::large_model;
use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
use relicview::formats::registry::Purpose;
use std::cell::RefCell;
use std::hint::black_box;
use std::time::Duration;

mod common;
use common::{best, budget as budget_of};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mb: f64 = args
        .iter()
        .position(|a| a == "--mb")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(50.0);
    let patches = (mb * 1e6 / 51_000.0).round().max(10.0) as usize;
    let original = large_model(patches);
    let mut edited = original.clone();
    for k in 0..10 {
        let p = &mut edited.objects[0].lods[0].patches[k * patches / 10];
        p.primitives[0].vertices.positions[100 + k][1] += 0.5;
    }
    let (a, b) = (
        write_file(&original, WriteOptions::default()),
        write_file(&edited, WriteOptions::default()),
    );
    let source = MemorySource::new([
        ("A.BGF".to_string(), a.clone()),
        ("B.BGF".to_string(), b.clone()),
    ]);
    let open = |path: &str, bytes: &Vec<u8>| {
        let archive = RefCell::new(source.archive());
        pollster::block_on(open_bytes(
            &archive,
            &source,
            path,
            bytes.clone(),
            Purpose::Show,
        ))
    };
    let budget = budget_of(Duration::from_secs(5));
    let parse = best(budget, || {
        black_box((open("A.BGF", &a), open("B.BGF", &b)));
    });
    let mut changed = 0;
    let diff = best(budget, || {
        let (oa, ob) = (open("A.BGF", &a), open("B.BGF", &b));
        let c = relicview::diff::compare(&oa.side(), &ob.side());
        changed = c.records.changed;
        black_box((oa, ob, c));
    });
    assert_eq!(changed, 10, "the ten edits are ten changed records");
    // What the page does beside it: both trees row by row, the bytes that differ, and the
    // difference view (a coloured copy of A's geometry).
    let mut rows = 0;
    let page = best(budget, || {
        let (oa, ob) = (open("A.BGF", &a), open("B.BGF", &b));
        let (sa, sb) = (oa.side(), ob.side());
        let (c, alignment) = relicview::diff::compare_in_full(&sa, &sb);
        let d = relicview::diff::difference_scene(&sa, &sb, &alignment).map(|d| d.scene);
        rows = alignment.rows.len();
        black_box((oa, ob, c, alignment, d));
    });
    let mb_total = (a.len() + b.len()) as f64 / 1e6;
    println!(
        "diff of two {:.1} MB models with 10 differences, best of runs within {budget:?}{}",
        a.len() as f64 / 1e6,
        common::build_note()
    );
    println!(
        "  parse both (to be shown)   {:8.1} ms  {:7.1} MB/s",
        parse.as_secs_f64() * 1e3,
        mb_total / parse.as_secs_f64()
    );
    println!(
        "  diff (parse both, compare) {:8.1} ms  {:.2}× parsing both",
        diff.as_secs_f64() * 1e3,
        diff.as_secs_f64() / parse.as_secs_f64()
    );
    println!("  the page's comparison      {:8.1} ms  {:.2}× parsing both ({rows} aligned rows, the difference view)", page.as_secs_f64() * 1e3, page.as_secs_f64() / parse.as_secs_f64());
}
