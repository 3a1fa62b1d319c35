//! The size of the HTML report: `cargo bench --bench html` (or `cargo test --bench html`).
//!
//! Prints the size of the page of 500 made-up task runs of 10 evals (3 agents): each with
//! a setup and a verify step (about 400 bytes of output each), 6 MCP tool calls with JSON
//! arguments and a 1 KB result (JSON rows of made-up pods, their names, addresses and times
//! drawn at random: text that compresses like real results, not a repeated phrase), an
//! answer of 300 bytes; one run in ten failed, with a
//! failed assertion, a snapshot diff and its failure message (3 KB). Then the same with
//! 20 KB tool results (the page keeps at most 64 KB of each text of a failed run, 2 KB of
//! a passed one), and the time the rendering took. `MCPEVAL_BENCH_HTML=FILE` keeps the last
//! page there, to look at.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use mcpeval::report::{
    AssertionDetail, AssertionResult, CallHistory, CallRecord, PhaseOutput, StepOutput, TaskResult,
    merge, render_html,
};
use serde_json::json;

fn main() {
    for result_bytes in [1_000, 20_000] {
        let results: Vec<TaskResult> = (0..500).map(|i| task(i, result_bytes)).collect();
        let report = merge(results);
        let started = Instant::now();
        let html = match render_html(&report, "mcpeval report", Path::new("."), Path::new(".")) {
            Ok(html) => html,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        if let Some(file) = std::env::var_os("MCPEVAL_BENCH_HTML") {
            let _ = std::fs::write(file, &html);
        }
        let took = started.elapsed();
        println!(
            "500 task runs, 6 tool calls each, {result_bytes}-byte tool results: {:.2} MB ({} bytes; the runs' markup {:.2} MB before compression), rendered in {:.0} ms",
            megabytes(html.len()),
            html.len(),
            megabytes(inflated_runs(&html)),
            took.as_secs_f64() * 1000.0
        );
    }
}

fn megabytes(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The size of the runs' markup the page holds compressed (`#runs-data`).
fn inflated_runs(html: &str) -> usize {
    use base64::Engine as _;
    use std::io::Read as _;
    let start = html
        .find(r#"id="runs-data""#)
        .expect("the page holds #runs-data");
    let data = &html[start..];
    let data = &data[data.find('>').unwrap() + 1..];
    let data = &data[..data.find('<').unwrap()];
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .expect("#runs-data is base64");
    let mut markup = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut markup)
        .expect("#runs-data is gzip");
    markup.len()
}

fn task(i: usize, result_bytes: usize) -> TaskResult {
    let eval = format!("eval-{}", i % 10);
    let name = format!("task-{i:03}");
    let passed = i % 10 != 3;
    let step = |label: &str, start: f64| StepOutput {
        id: None,
        label: label.to_owned(),
        passed: true,
        reason: String::new(),
        output: "ok: the fixture is in place, 12 rows seeded\n".repeat(9),
        start_offset_ms: Some(start),
        duration_ms: Some(40.0),
    };
    let calls = (0..6)
        .map(|c| CallRecord {
            server_name: "kubernetes".into(),
            name: format!("pods_list_{c}"),
            position: c + 1,
            arguments: Some(
                json!({"namespace": "default", "labelSelector": format!("app=web-{c}")}),
            ),
            outcome: "ok".into(),
            result: json!({"content": [{"type": "text", "text": pods(i * 6 + c, result_bytes)}]}),
            start_offset_ms: 100.0 + c as f64 * 300.0,
            duration_ms: 25.0,
            result_tokens: Some(result_bytes / 4),
            injected: None,
            rounds: Vec::new(),
            task: Vec::new(),
            turn: None,
        })
        .collect();
    let mut assertions = BTreeMap::new();
    assertions.insert(
        "toolsUsed".to_owned(),
        AssertionResult {
            passed,
            details: vec![AssertionDetail {
                task_set: "config.taskSets[0]".into(),
                passed,
                expected: (!passed).then(|| "a tool call matching pods_delete".into()),
                actual: (!passed).then(|| "none of them; tool calls made: pods_list_0".into()),
            }],
        },
    );
    TaskResult {
        test_name: format!("{eval}::{name}"),
        eval_name: eval,
        task_name: name.clone(),
        task_path: format!("evals/tasks/{name}.yaml"),
        task_passed: passed,
        task_output: "The pods are running; web-3 restarted twice. ".repeat(7),
        reasons: if passed {
            Vec::new()
        } else {
            vec!["toolsUsed: expected a tool call matching pods_delete".into()]
        },
        failure_message: (!passed).then(|| "call trace:\n  #1 tool kubernetes/pods_list_0\n".repeat(50)),
        snapshot_diff: (!passed).then(|| {
            "--- accepted snapshot\n+++ this run\n@@ -1,3 +1,3 @@\n- tool: kubernetes/pods_delete\n+ tool: kubernetes/pods_list_0\n   outcome: ok\n".into()
        }),
        difficulty: "medium".into(),
        labels: BTreeMap::from([("area".to_owned(), format!("area-{}", i % 4))]),
        agent_name: ["claude-code", "llm-agent", "codex"][i % 3].into(),
        assertion_results: assertions,
        call_history: CallHistory {
            tool_calls: calls,
            ..CallHistory::default()
        },
        setup_output: PhaseOutput {
            success: true,
            steps: vec![step("setup[0] script seed.sh", 5.0)],
        },
        agent_output: PhaseOutput {
            success: true,
            steps: vec![step("agent", 60.0)],
        },
        verify_output: PhaseOutput {
            success: passed,
            steps: vec![step("verify[0] script check.sh", 2000.0)],
        },
        duration_ms: 2100.0,
        ..TaskResult::default()
    }
}

/// About `bytes` of JSON rows of pods, drawn from `seed` (a linear congruential generator:
/// the same page every run).
fn pods(seed: usize, bytes: usize) -> String {
    let mut state = (seed as u64).wrapping_mul(6364136223846793005) ^ 1442695040888963407;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let phases = ["Running", "Pending", "Succeeded", "Failed", "Unknown"];
    let mut text = String::from("[");
    while text.len() < bytes {
        text.push_str(&format!(
            r#"{{"name":"web-{:06x}","namespace":"team-{}","phase":"{}","podIP":"10.{}.{}.{}","restarts":{},"started":"2026-11-{:02}T{:02}:{:02}:{:02}Z"}},"#,
            next(1 << 24),
            next(12),
            phases[next(5) as usize],
            next(256),
            next(256),
            next(256),
            next(9),
            1 + next(28),
            next(24),
            next(60),
            next(60)
        ));
    }
    text.push(']');
    text
}
