//! Comparing variants: `cargo bench --bench variants` (or `cargo test --bench variants`).
//!
//! Makes the results of an eval of 1,000 tasks × 4 variants × 5 runs (20,000 results files'
//! worth, each variant with its own pass rate per task) and times the comparison alone
//! (`VariantReport::of`: figures, paired tests, Holm) and the whole `Summary::of` that
//! `mcpeval report` and the harness compute; median of `MCPEVAL_BENCH_RUNS` (default 5).

#[path = "timing.rs"]
mod timing;

use std::time::Duration;

use timing::median;

use mcpeval::llm::TokenUsage;
use mcpeval::report::{Summary, TaskResult, VariantDetails, VariantReport};

const TASKS: u64 = 1_000;
const RUNS: u32 = 5;
/// Each variant's chance to pass a run, before the task's own difficulty.
const VARIANTS: [(&str, f64); 4] = [
    ("claude-sonnet", 0.80),
    ("codex", 0.70),
    ("new-descriptions", 0.82),
    ("no-server", 0.15),
];

fn main() {
    let results = results();
    let repeats = timing::repeats(5);
    let comparison = median(repeats, || {
        let _ = VariantReport::of(&results);
    });
    let summary = median(repeats, || {
        let _ = Summary::of(&results);
    });
    let report = VariantReport::of(&results);
    println!(
        "{} results ({TASKS} tasks × {} variants × {RUNS} runs): the comparison {:.0} ms, Summary::of {:.0} ms (median of {repeats})",
        results.len(),
        VARIANTS.len(),
        millis(comparison),
        millis(summary),
    );
    for line in mcpeval::report::render_variants(&report.variants, &report.comparisons) {
        println!("  {line}");
    }
}

fn millis(took: Duration) -> f64 {
    took.as_secs_f64() * 1000.0
}

fn results() -> Vec<TaskResult> {
    let mut random = 0x5eed_u64;
    let mut results = Vec::new();
    for task in 0..TASKS {
        // Some tasks are harder for every variant.
        let difficulty = (task % 7) as f64 * 0.04;
        for (variant, rate) in VARIANTS {
            for run in 0..RUNS {
                let draw = (next(&mut random) >> 11) as f64 / (1u64 << 53) as f64;
                let name = format!("task-{task:04}");
                results.push(TaskResult {
                    test_name: format!("bench::{name}@{variant}"),
                    eval_name: "bench".into(),
                    task_name: name,
                    task_passed: draw < rate - difficulty,
                    duration_ms: 1000.0 + draw * 4000.0,
                    agent_turns: Some(3 + (task % 5) as u32),
                    agent_token_usage: Some(TokenUsage::new(4000 + task, 300, None)),
                    run_index: Some(run),
                    total_runs: Some(RUNS),
                    variant: Some(variant.into()),
                    variant_details: Some(VariantDetails {
                        baseline: "claude-sonnet".into(),
                        ..VariantDetails::default()
                    }),
                    ..TaskResult::default()
                });
            }
        }
    }
    results
}

/// splitmix64, for made-up outcomes that are the same every run.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
