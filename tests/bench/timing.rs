//! What the benches share: the median time of repeated work.

use std::time::{Duration, Instant};

/// The median of `repeats` timings of `work` (at least one).
pub fn median(repeats: usize, mut work: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..repeats.max(1))
        .map(|_| {
            let started = Instant::now();
            work();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// How often to repeat each timing: `MCPEVAL_BENCH_RUNS`, else `default`.
#[allow(dead_code)]
pub fn repeats(default: usize) -> usize {
    std::env::var("MCPEVAL_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}
