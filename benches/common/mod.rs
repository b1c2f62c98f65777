//! What the benchmarks share: the best of repeated runs.

use std::time::{Duration, Instant};

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
