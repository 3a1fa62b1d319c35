//! What a run costs, as a team lead reads it in CI: tests/fixtures/cost runs the llm-agent
//! against a fake OpenAI API (two model calls of 10 input and 5 output tokens each) with the
//! model priced by the eval ($2 and $8 per million: 20 × 2 + 10 × 8 = 120 micro-dollars),
//! recorded, replayed (the same cost, marked replayed), priced by a file that
//! `$MCPEVAL_PRICING` names, unpriced, and gated by `report --max-cost` and
//! `diff --max-cost-growth`.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::cli::{result_file, text};
use support::fake_llm::{FakeLlm, Reply};

const RESULT: &str = "cost__add";

/// `mcpeval check` of the eval in `dir` into `output`, against `base_url`, with `env`.
fn check(dir: &Path, output: &Path, base_url: &str, env: &[(&str, &str)]) -> Value {
    let out = support::cli::check_with_openai(&dir.join("eval.yaml"), output, base_url, env);
    assert!(out.status.success(), "{}", text(&out.stdout));
    result_file(output, RESULT)
}

/// A copy of tests/fixtures/cost in a fresh directory (its cassette is written there).
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cost");
    support::files::copy_tree(&fixture, dir.path());
    dir
}

/// [`check`] with no API (a closed port) into a fresh output directory: a replay.
fn replay(dir: &Path, env: &[(&str, &str)]) -> (tempfile::TempDir, Value) {
    let output = tempfile::tempdir().unwrap();
    let mut env = env.to_vec();
    env.push(("MCPEVAL_RECORD_MODE", "none"));
    let result = check(dir, output.path(), "http://127.0.0.1:9/v1", &env);
    (output, result)
}

/// `mcpeval report` of the output directory `dir` with `flags`.
fn report(dir: &Path, flags: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["report", dir.to_str().unwrap()];
    args.extend(flags);
    mcpeval(&args)
}

fn mcpeval(args: &[&str]) -> (Option<i32>, String) {
    let out = support::cli::mcpeval(args, None);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.code(), all)
}

fn usd(result: &Value) -> f64 {
    result["cost"]["usd"].as_f64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_run_is_priced_recorded_or_replayed_and_gated() {
    let fake = FakeLlm::start(vec![
        Reply::ToolCall {
            name: "add".into(),
            args: json!({"a": 2, "b": 40}),
        },
        Reply::Text("42".into()),
    ])
    .await;
    let dir = fixture_copy();
    let root = dir.path().to_owned();
    let url = format!("{}/v1", fake.url);

    // Recorded live: two calls of gpt-test, priced by the eval's entry.
    let recorded = tempfile::tempdir().unwrap();
    let out = recorded.path().to_owned();
    let (root2, url2) = (root.clone(), url.clone());
    let live = tokio::task::spawn_blocking(move || {
        let env = [
            ("MCPEVAL_RECORD_MODE", "all"),
            ("OPENAI_API_KEY", "sk-cost-test-key-0123456789"),
        ];
        check(&root2, &out, &url2, &env)
    })
    .await
    .unwrap();
    let usage = &live["llmCalls"][0]["usage"][0];
    assert_eq!(
        (
            &usage["model"],
            &usage["calls"],
            &usage["inputTokens"],
            &usage["outputTokens"]
        ),
        (&json!("gpt-test"), &json!(2), &json!(20), &json!(10))
    );
    assert_eq!(usage["priceDate"], "2026-11-01");
    assert!((usd(&live) - 0.00012).abs() < 1e-12, "{:#}", live["cost"]);
    assert_eq!(live["cost"].get("replayed"), None);
    drop(fake);

    // Replayed: no API; the same cost, what the calls cost when recorded, marked so.
    let (replayed, replay_result) = replay(&root, &[]);
    assert!((usd(&replay_result) - 0.00012).abs() < 1e-12);
    assert_eq!(replay_result["cost"]["replayed"], true);

    // A pricing file wins over the eval's entry: twice the prices, twice the cost.
    let file = root.join("contract.yaml");
    std::fs::write(&file, "- {model: gpt-test, input: 4, output: 16}\n").unwrap();
    let (dearer, repriced) = replay(&root, &[("MCPEVAL_PRICING", file.to_str().unwrap())]);
    assert!((usd(&repriced) - 0.00024).abs() < 1e-12);

    // No price names the model: unpriced, never $0 in disguise.
    let eval = std::fs::read_to_string(root.join("eval.yaml")).unwrap();
    std::fs::write(
        root.join("eval.yaml"),
        eval.replace("model: gpt-test, input", "model: other-model, input"),
    )
    .unwrap();
    let (unpriced, bare) = replay(&root, &[]);
    assert_eq!(bare["cost"]["unpriced"], json!(["gpt-test"]));
    assert_eq!(bare["llmCalls"][0]["usage"][0].get("costUsd"), None);
    let (code, all) = report(unpriced.path(), &[]);
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("unpriced (no price names them, not in these figures): gpt-test"),
        "{all}"
    );

    // The text summary and the gates: --max-cost on report, --max-cost-growth on diff.
    let (code, all) = report(recorded.path(), &["--max-cost", "0.001"]);
    assert_eq!(code, Some(0), "{all}");
    assert!(
        all.contains("cost: $0.000120 over 1 run ($0.000120 a run)")
            && all.contains("recording the suite live: $0.000120"),
        "{all}"
    );
    let (code, all) = report(
        recorded.path(),
        &["--format", "markdown", "--max-cost", "0.0001"],
    );
    assert_eq!(code, Some(1), "{all}");
    assert!(
        all.contains("tokens (estimated) 8 prompt, 0 output · cost $0.000120\n")
            && all.contains("--max-cost"),
        "{all}"
    );
    let page = std::fs::read_to_string(recorded.path().join("report.html")).unwrap();
    assert!(
        page.contains("<li>cost: $0.000120 over 1 run ($0.000120 a run)</li>"),
        "the HTML report shows the cost"
    );
    let (code, all) = report(recorded.path(), &["--max-cost", "0.0001"]);
    assert_eq!(code, Some(1), "{all}");
    assert!(
        all.contains("mcpeval: the runs cost $0.000120, above the limit $0.000100"),
        "{all}"
    );
    let (base, current) = (
        replayed.path().to_str().unwrap(),
        dearer.path().to_str().unwrap(),
    );
    let (code, all) = mcpeval(&["diff", base, current, "--max-cost-growth", "50"]);
    assert_eq!(code, Some(1), "{all}");
    assert!(
        all.contains(
            "budget --max-cost-growth 50%: exceeded: cost $0.000120 -> $0.000240 (+100.0%)"
        ),
        "{all}"
    );
    let (code, all) = mcpeval(&["diff", base, current, "--max-cost-growth", "150"]);
    assert_eq!(code, Some(0), "{all}");
}

/// A bad price in the eval and a pricing file that does not load are load errors naming the
/// key path and the file.
#[test]
fn bad_prices_are_load_errors_naming_the_key_and_the_file() {
    let dir = fixture_copy();
    let eval = dir.path().join("eval.yaml");
    let written = std::fs::read_to_string(&eval).unwrap();
    std::fs::write(
        &eval,
        written.replace("input: 2, output: 8", "input: 2, output: -8"),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["validate", eval.to_str().unwrap()])
        .env("MCPEVAL_PRICING", dir.path().join("missing.yaml"))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(2), "{all}");
    for expected in [
        "config.pricing[0].output: expected US dollars per million tokens, 0 or more, not -8",
        "config.pricing: $MCPEVAL_PRICING: cannot read the pricing file",
    ] {
        assert!(all.contains(expected), "lacks {expected:?}:\n{all}");
    }
}
