//! What counting tokens costs: `cargo bench --bench tokens` (release) or
//! `cargo test --bench tokens` (the test profile, what `cargo test` users get).
//!
//! Prints the time to build the process-wide o200k_base tokenizer (once per process: under
//! nextest once per test), then the counting speed over tool results of three kinds (English
//! prose, pretty-printed JSON, a base64 image as JSON) and over 100 tool definitions, each
//! the median of `MCPEVAL_BENCH_RUNS` runs (default 7).

#[path = "timing.rs"]
mod timing;

use std::time::Instant;

use timing::median;

use mcpeval::tokens::{count, definition_tokens};
use serde_json::json;

fn main() {
    let runs: usize = std::env::var("MCPEVAL_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(7);
    let started = Instant::now();
    count("warm up");
    println!(
        "tokenizer build (first count): {:.0} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );

    let prose = "The recording proxy forwards every call to the server under test and keeps \
                 what it answered, so that assertions can read the trace afterwards. "
        .repeat(8_000);
    let rows: Vec<_> = (0..6_000)
        .map(|i| json!({"id": i, "name": format!("pod-{i:05}"), "namespace": "default", "status": "Running", "restarts": i % 7}))
        .collect();
    let records = serde_json::to_string_pretty(&rows).unwrap_or_default();
    let image: String = (0..1_000_000u32)
        .map(|i| {
            char::from(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                    [(i.wrapping_mul(2_654_435_761) >> 26) as usize],
            )
        })
        .collect();
    let image = json!({"type": "image", "data": image, "mimeType": "image/png"}).to_string();
    for (what, text) in [
        ("prose", &prose),
        ("JSON records", &records),
        ("base64 image", &image),
    ] {
        let mut tokens = 0;
        let time = median(runs, || tokens = count(text));
        println!(
            "{what}: {:.2} MB, {tokens} tokens, {:.1} ms, {:.1} MB/s",
            text.len() as f64 / 1e6,
            time.as_secs_f64() * 1000.0,
            text.len() as f64 / 1e6 / time.as_secs_f64()
        );
    }

    let tools: Vec<_> = (0..100)
        .map(|i| json!({
            "name": format!("resource_{i}_list"),
            "description": format!("Lists the resources of kind {i} in a namespace, with their labels and status."),
            "inputSchema": {"type": "object", "properties": {
                "namespace": {"type": "string", "description": "The namespace; all when absent"},
                "labelSelector": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}
            }, "required": []}
        }))
        .collect();
    let mut tokens = 0;
    let time = median(runs, || tokens = tools.iter().map(definition_tokens).sum());
    println!(
        "100 tool definitions: {tokens} tokens, {:.2} ms",
        time.as_secs_f64() * 1000.0
    );
}
