//! Coverage and cost at scale: `cargo bench --bench coverage` (or `cargo test --bench
//! coverage`).
//!
//! Makes the results of 10,000 task runs against one server of 50 tools with 10 properties
//! each (two of them enums, one nested object), each run with 3 tool calls and a priced
//! model usage, then times surface coverage, parameter coverage and the cost summary
//! (`coverage`, `parameter_coverage`, `CostSummary::of`) and the whole `Summary::of`,
//! median of `MCPEVAL_BENCH_RUNS` (default 5). Goal: coverage and cost under 1 s.

#[path = "timing.rs"]
mod timing;

use std::time::Duration;

use serde_json::{Value, json};
use timing::median;

use mcpeval::llm::ModelUsage;
use mcpeval::llm::pricing::{PriceTable, RunCost};
use mcpeval::report::{
    CallHistory, CallRecord, CostSummary, ServerTools, Summary, Surface, TaskResult, ToolSummary,
    coverage, parameter_coverage,
};

const RUNS: usize = 10_000;
const TOOLS: usize = 50;
const PROPERTIES: usize = 10;

fn main() {
    let results = results();
    let repeats = timing::repeats(5);
    let both = median(repeats, || {
        let _ = coverage(&results);
        let _ = parameter_coverage(&results);
        let _ = CostSummary::of(&results);
    });
    let summary = median(repeats, || {
        let _ = Summary::of(&results);
    });
    let parameters = parameter_coverage(&results);
    let figures = &parameters["server"];
    println!(
        "{RUNS} runs, {TOOLS} tools × {PROPERTIES} properties: coverage and cost {:.0} ms, Summary::of {:.0} ms (median of {repeats}); {} of {} properties exercised; cost ${:.2}",
        millis(both),
        millis(summary),
        figures.exercised,
        figures.properties,
        CostSummary::of(&results).map_or(0.0, |cost| cost.total_usd),
    );
}

fn millis(took: Duration) -> f64 {
    took.as_secs_f64() * 1000.0
}

/// Tool `t`'s input schema: `p0`…`p9`, `p0` an enum of four values, `p1` a boolean, `p2`
/// an object with two properties.
fn schema() -> Value {
    let mut properties = serde_json::Map::new();
    for p in 0..PROPERTIES {
        let property = match p {
            0 => json!({"type": "string", "enum": ["a", "b", "c", "d"]}),
            1 => json!({"type": "boolean"}),
            2 => {
                json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}}})
            }
            _ => json!({"type": "string"}),
        };
        properties.insert(format!("p{p}"), property);
    }
    json!({"type": "object", "properties": properties})
}

fn results() -> Vec<TaskResult> {
    let tools: Vec<ToolSummary> = (0..TOOLS)
        .map(|t| ToolSummary {
            name: format!("tool{t}"),
            description: Some(format!("Tool number {t}")),
            input_schema: Some(schema()),
        })
        .collect();
    let servers = vec![ServerTools {
        name: "server".into(),
        variant: None,
        tools: tools.clone(),
    }];
    let surface = Surface {
        tools: tools.iter().map(|t| t.name.clone()).collect(),
        ..Surface::default()
    };
    let prices = PriceTable::builtin();
    let mut random = 0x5eed_u64;
    let mut next = move || {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        random
    };
    (0..RUNS)
        .map(|run| {
            let calls = (0..3)
                .map(|position| {
                    let tool = next() as usize % TOOLS;
                    let mut arguments = serde_json::Map::new();
                    for p in 0..PROPERTIES {
                        if next() % 3 == 0 {
                            let value = match p {
                                0 => json!(["a", "b", "c"][next() as usize % 3]),
                                1 => json!(next() % 2 == 0),
                                2 => json!({"x": 1}),
                                _ => json!("text"),
                            };
                            arguments.insert(format!("p{p}"), value);
                        }
                    }
                    CallRecord {
                        server_name: "server".into(),
                        name: format!("tool{tool}"),
                        position: position + 1,
                        arguments: Some(Value::Object(arguments)),
                        outcome: if next() % 10 == 0 { "is_error" } else { "ok" }.into(),
                        result: Value::Null,
                        start_offset_ms: 0.0,
                        duration_ms: 1.0,
                        result_tokens: None,
                        injected: None,
                        rounds: Vec::new(),
                        task: Vec::new(),
                        turn: None,
                    }
                })
                .collect();
            let usage = ModelUsage {
                model: "claude-sonnet-4-5-20250929".into(),
                calls: 3,
                input_tokens: 3000,
                output_tokens: 400,
                cache_read_tokens: 20_000,
                cache_write_tokens: 1000,
            };
            let priced = prices.priced(&[usage]);
            TaskResult {
                test_name: format!("bench::task{}", run % 2000),
                surface: [("server".to_owned(), surface.clone())].into(),
                mcp_servers: servers.clone(),
                call_history: CallHistory {
                    tool_calls: calls,
                    ..CallHistory::default()
                },
                cost: RunCost::of(priced.iter().map(|p| (p, false))),
                ..TaskResult::default()
            }
        })
        .collect()
}
