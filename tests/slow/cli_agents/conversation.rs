//! A conversation of three turns: each resumes the program's session, recorded then replayed.

use super::{CODEX, GEMINI, Llm, Program, check, path_with};
use crate::support::fake_llm::{FakeLlm, Reply};
use serde_json::{Value, json};
use std::path::Path;

/// A three-turn conversation with the stateful server (tests/fixtures/conversation): each
/// turn resumes the program's session of the one before (Codex's `exec resume`, Gemini
/// CLI's `--resume latest`), so its model request carries the turns before, and the one
/// server process sees all four calls (turn 3's verify step reads "(call 4)"); recorded
/// into one cassette, then replayed with no API.
async fn a_conversation_resumes_the_session_recorded_then_replayed(program: Program) {
    let Some(path) = path_with(program) else {
        return;
    };
    let copy = tempfile::tempdir().unwrap();
    let conversation = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conversation");
    crate::support::files::copy_tree(&conversation, copy.path());
    let eval = copy.path().join("cli");
    let call = |name: &str, args: Value| match program.eval {
        "codex" => Reply::NamespacedCall {
            namespace: "mcp__deploy".into(),
            name: name.into(),
            args,
        },
        _ => Reply::ToolCall {
            name: format!("mcp_deploy_{name}"),
            args,
        },
    };
    let answers = ["Created web.", "Scaled web to 3.", "web has 1 replica."];
    let api = FakeLlm::start(vec![
        call("create", json!({"name": "web"})),
        Reply::Text(answers[0].into()),
        call("scale", json!({"name": "web", "replicas": 3})),
        Reply::Text(answers[1].into()),
        call("undo", json!({})),
        call("status", json!({"name": "web"})),
        Reply::Text(answers[2].into()),
    ])
    .await;
    let output = tempfile::tempdir().unwrap();
    let llm = Llm::Live(&api);
    let recorded = check(program, &eval, output.path(), "deploy", &path, llm, "all").await;
    assert_eq!(recorded.code, Some(0), "{}", recorded.text);
    let seen = api.seen();
    let last = seen.last().unwrap().body.to_string();
    assert!(
        last.contains("Undo that")
            && last.contains("Now scale it")
            && last.contains("Create the deployment"),
        "{last}"
    );
    let turns: Vec<(&str, usize)> = (recorded.result["turns"].as_array().unwrap().iter())
        .map(|turn| {
            let answer = turn["answer"].as_str().unwrap_or_default();
            (answer, turn["calls"].as_u64().unwrap_or(0) as usize)
        })
        .collect();
    assert_eq!(turns, [(answers[0], 1), (answers[1], 1), (answers[2], 2)]);
    drop(api);

    let output = tempfile::tempdir().unwrap();
    let llm = Llm::Nowhere;
    let replayed = check(program, &eval, output.path(), "deploy", &path, llm, "none").await;
    assert_eq!(replayed.code, Some(0), "{}", replayed.text);
    assert_eq!(replayed.result["turns"][2]["answer"], answers[2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_resumes_its_session_in_a_conversation() {
    a_conversation_resumes_the_session_recorded_then_replayed(CODEX).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_cli_resumes_its_session_in_a_conversation() {
    a_conversation_resumes_the_session_recorded_then_replayed(GEMINI).await;
}
