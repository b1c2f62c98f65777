//! What the benchmarks share: the best of repeated runs, and the smoke run CI makes of them
//! (`RELICVIEW_BENCH_SMOKE=1`: small inputs, three runs each, to prove they still run).

use std::time::{Duration, Instant};

/// Whether this is CI's smoke run (scripts/bench.sh --smoke).
pub fn smoke() -> bool {
    std::env::var_os("RELICVIEW_BENCH_SMOKE").is_some()
}

/// What the figures are worth: the smoke run builds the benches in the test profile (the
/// library `cargo test` has already compiled, not a second optimised build), so its numbers
/// only prove the bench still runs.
pub fn build_note() -> &'static str {
    if cfg!(debug_assertions) {
        " (an unoptimised build: the figures only show that it runs)"
    } else {
        ""
    }
}

/// How long each measurement repeats: `full`, or nothing beyond three runs in a smoke run.
pub fn budget(full: Duration) -> Duration {
    if smoke() {
        Duration::ZERO
    } else {
        full
    }
}

/// Best time of several runs, stopping after `budget` (at least 3 runs).
pub fn best(budget: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut best = Duration::MAX;
    let mut runs = 0;
    while runs < 3 || start.elapsed() < budget {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed());
        runs += 1;
    }
    best
}
