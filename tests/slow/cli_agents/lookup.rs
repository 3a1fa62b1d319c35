//! The lookup task: worked through the demo server, reporting what it knows; recorded once,
//! then replayed offline without a key.

use super::{ANSWER, CODEX, GEMINI, KEY, Llm, Program, check, fixture, path_with};
use crate::support;
use crate::support::fake_llm::FakeLlm;
use serde_json::json;

/// A copy of the fixture in a fresh directory (recording writes cassettes beside the eval).
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::support::files::copy_tree(&fixture(), dir.path());
    dir
}

async fn works_the_task_and_reports_what_it_knows(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let api = FakeLlm::start(program.lookup_script()).await;
    let output = tempfile::tempdir().unwrap();
    let run = check(
        program,
        &fixture(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "passthrough",
    )
    .await;
    assert_eq!(run.code, Some(0), "{}", run.text);
    let result = &run.result;
    assert_eq!(result["taskOutput"], ANSWER, "{result:#}");
    assert_eq!(result["agentName"], program.eval, "{result:#}");
    assert_eq!(result["agentVersion"], program.version, "{result:#}");
    assert_eq!(result["agentTurns"], 2, "{result:#}");
    assert_eq!(result["agentToolCalls"], 1, "{result:#}");
    // The fake answers 10 input and 5 output tokens per request.
    assert_eq!(
        result["agentTokenUsage"],
        json!({"promptTokens": 20, "completionTokens": 10, "totalTokens": 30}),
        "{result:#}"
    );
    let calls = &result["callHistory"]["toolCalls"];
    assert_eq!(calls.as_array().map(Vec::len), Some(1), "{result:#}");
    assert_eq!(calls[0]["name"], "lookup_user", "{result:#}");
    let errors = support::results_schema::violations(result);
    assert!(errors.is_empty(), "{errors:#?}\n{result:#}");

    let seen = api.seen();
    assert_eq!(seen.len(), 2, "{seen:#?}");
    // Only the allowed tools were offered, and the tool's result went back to the model.
    assert_eq!(
        program.offered_tools(&seen[0].body),
        ["echo", "lookup_user"].map(|tool| match program.eval {
            "codex" => tool.to_owned(),
            _ => format!("mcp_demo_{tool}"),
        })
    );
    let second = seen[1].body.to_string();
    assert!(second.contains("user 1: Ada Lovelace"), "{second}");
    assert!(!run.text.contains(KEY) && !result.to_string().contains(KEY));
    assert!(
        run.home_left.is_empty(),
        "HOME touched: {:?}",
        run.home_left
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_works_the_task_through_the_demo_server_and_reports_what_it_knows() {
    works_the_task_and_reports_what_it_knows(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_works_the_task_through_the_demo_server_and_reports_what_it_knows() {
    works_the_task_and_reports_what_it_knows(GEMINI).await;
}

async fn recorded_once_replays_offline_without_a_key(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let eval = fixture_copy();
    let api = FakeLlm::start(program.lookup_script()).await;
    let output = tempfile::tempdir().unwrap();
    let recorded = check(
        program,
        eval.path(),
        output.path(),
        "lookup",
        &path,
        Llm::Live(&api),
        "all",
    )
    .await;
    assert_eq!(recorded.code, Some(0), "{}", recorded.text);
    assert_eq!(recorded.result["llmCalls"][0]["used"], "recorded");
    let cassette = eval
        .path()
        .join(format!("cassettes/{}__lookup.json", program.eval));
    let text = std::fs::read_to_string(&cassette).expect("the cassette was written");
    assert!(!text.contains(KEY), "the key reached the cassette");
    assert!(
        !text.contains(".peers/node_modules"),
        "the install path reached the cassette"
    );
    drop(api);

    let output = tempfile::tempdir().unwrap();
    let replayed = check(
        program,
        eval.path(),
        output.path(),
        "lookup",
        &path,
        Llm::Nowhere,
        "none",
    )
    .await;
    assert_eq!(replayed.code, Some(0), "{}", replayed.text);
    let result = &replayed.result;
    assert_eq!(result["llmCalls"][0]["used"], "replayed", "{result:#}");
    assert_eq!(result["llmCalls"][0]["replayed"], 2, "{result:#}");
    assert_eq!(result["taskOutput"], ANSWER, "{result:#}");
    assert_eq!(result["agentTurns"], 2, "{result:#}");
    assert_eq!(
        result["callHistory"]["toolCalls"][0]["name"], "lookup_user",
        "{result:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_recorded_once_replays_offline_without_a_key() {
    recorded_once_replays_offline_without_a_key(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_recorded_once_replays_offline_without_a_key() {
    recorded_once_replays_offline_without_a_key(GEMINI).await;
}
