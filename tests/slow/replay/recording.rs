//! Claude Code recorded once, then replayed offline with the same verdict and trace; a
//! missing cassette under CI; fewer LLM calls than recorded.

use super::{KEY, Llm, check, eval_copy, results_of, text};
use crate::support::cli::files_under;
use crate::support::fake_anthropic::{FakeAnthropic, Turn};
use serde_json::{Value, json};

fn add_script() -> Vec<Turn> {
    vec![
        Turn::ToolUse {
            name: "mcp__demo__add".into(),
            input: json!({"a": 2, "b": 40}),
        },
        Turn::ToolUse {
            name: "mcp__demo__echo".into(),
            input: json!({"text": "42"}),
        },
        Turn::Text("The sum is 42.".into()),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_recorded_once_replays_offline_with_the_same_verdict_and_trace() {
    let eval = eval_copy("strict", "");
    let output = tempfile::tempdir().unwrap();
    let api = FakeAnthropic::start(add_script()).await;
    // Recorded (mode once, no cassette yet) against the fake API as the live upstream.
    let Some(out) = check(eval.path(), output.path(), "add", Llm::Live(&api), &[]) else {
        return;
    };
    // Strict mode: the first trace is new, so the run fails on the snapshot alone.
    assert!(
        text(&out).contains("snapshot: no accepted snapshot yet"),
        "{}",
        text(&out)
    );
    let cassette = eval.path().join("cassettes/claude__add.json");
    assert!(cassette.is_file(), "{}", text(&out));
    let recorded = results_of(output.path(), "add");
    assert_eq!(recorded["llmCalls"][0]["used"], "recorded", "{recorded:#}");
    let snapshot = eval.path().join("snapshots/claude__add.snap");
    std::fs::rename(snapshot.with_extension("snap.new"), &snapshot).unwrap();
    let requests = api.requests().len();
    assert!(requests >= 3, "{requests} requests");

    // The API key used while recording is in no file the run wrote.
    for file in files_under(eval.path())
        .into_iter()
        .chain(files_under(output.path()))
    {
        let bytes = std::fs::read(&file).unwrap();
        let found = bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes());
        assert!(!found, "the API key is in {}", file.display());
    }

    // Replayed twice, from other output (and so working) directories, under CI, with no
    // API and no key, and another login shell or none (Claude Code names it to the model;
    // mcpeval pins it): the same verdict and the same (strict) trace snapshot.
    for shell in ["/usr/bin/zsh", ""] {
        let again = tempfile::tempdir().unwrap();
        let out = check(
            eval.path(),
            again.path(),
            "add",
            Llm::Nowhere,
            &[("CI", "true"), ("SHELL", shell), ("TERM", shell)],
        )
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let replayed = results_of(again.path(), "add");
        assert_eq!(replayed["llmCalls"][0]["used"], "replayed", "{replayed:#}");
        assert_eq!(replayed["llmCalls"][0]["replayed"], json!(requests));
        assert_eq!(
            replayed["callHistory"]["toolCalls"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
    }
    assert_eq!(
        api.requests().len(),
        requests,
        "replay never reached the API"
    );
}

#[test]
fn a_missing_cassette_under_ci_fails_with_its_path_and_the_record_command() {
    let eval = eval_copy("off", "");
    let output = tempfile::tempdir().unwrap();
    let Some(out) = check(
        eval.path(),
        output.path(),
        "add",
        Llm::Nowhere,
        &[("CI", "true")],
    ) else {
        return;
    };
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    let cassette = eval.path().join("cassettes/claude__add.json");
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "mcpeval check {} --record-mode once -- claude::add --exact",
            eval.path().join("eval.yaml").display()
        )),
        "{message}"
    );
    assert!(!cassette.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_makes_fewer_llm_calls_than_recorded_fails() {
    let eval = eval_copy("off", "");
    let output = tempfile::tempdir().unwrap();
    let api = FakeAnthropic::start(add_script()).await;
    let Some(out) = check(eval.path(), output.path(), "add", Llm::Live(&api), &[]) else {
        return;
    };
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // One more recorded call than the agent will make: the last one, twice.
    let cassette = eval.path().join("cassettes/claude__add.json");
    let mut recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    let interactions = recorded["interactions"].as_array_mut().unwrap();
    let mut extra = interactions.last().unwrap().clone();
    extra["seq"] = json!(interactions.len() + 1);
    interactions.push(extra);
    std::fs::write(&cassette, serde_json::to_string_pretty(&recorded).unwrap()).unwrap();
    let out = check(
        eval.path(),
        output.path(),
        "add",
        Llm::Nowhere,
        &[("CI", "true")],
    )
    .unwrap();
    let message = text(&out);
    assert_eq!(out.status.code(), Some(101), "{message}");
    assert!(
        message.contains("fewer LLM calls than recorded"),
        "{message}"
    );
}
