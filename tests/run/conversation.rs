//! Conversations (`spec.followUps`), as their authors test them: `mcpeval check` runs
//! tests/fixtures/conversation (a stateful server of ours that would lose its deployments if
//! restarted) through the script agent. The same server answers every turn; each later turn
//! is checked right after it on its own calls; a failed turn stops the conversation unless
//! `continueOnFailure`; a fault's `call` counts through the whole conversation; a variant's
//! tool override holds in every turn; a file agent gets its turn and the earlier answers in
//! its variables; the llm-agent (recorded, replayed, diverging in turn 2) and an ACP agent
//! continue their sessions through three turns.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::cli::{failure_of, mcpeval, result_file, text};
use support::results_schema::violations;

fn result(output: &Path, stem: &str) -> Value {
    let result = result_file(output, stem);
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    result
}

/// Each tool call's name, turn and answer.
fn calls(result: &Value) -> Vec<(String, u64, String)> {
    (result["callHistory"]["toolCalls"]
        .as_array()
        .unwrap()
        .iter())
    .map(|call| {
        (
            call["name"].as_str().unwrap().to_owned(),
            call["turn"].as_u64().unwrap_or(0),
            call["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    })
    .collect()
}

#[test]
fn a_three_turn_conversation_keeps_its_server_and_checks_each_turn() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/conversation/eval.yaml"],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 2 passed; 2 failed;"),
        "{stdout}"
    );

    // Create, scale, undo: one server process for the three turns (its call count goes on
    // and the undo finds the scale of turn 2), each turn's checks and the task set's
    // callOrder over the whole conversation held.
    let deploy = result(output.path(), "conversation__deploy");
    assert_eq!(deploy["taskPassed"], true, "{deploy:#}");
    let owned = |name: &str, turn: u64, text: &str| (name.to_owned(), turn, text.to_owned());
    assert_eq!(
        calls(&deploy),
        [
            owned("create", 1, "created web with 1 replica (call 1)"),
            owned("scale", 2, "scaled web to 3 replicas (call 2)"),
            owned("undo", 3, "undone: web=1 (call 3)"),
            owned("status", 3, "web: 1 replicas (call 4)"),
        ]
    );
    let log = output
        .path()
        .join("runs/conversation__deploy/deploy.stderr.log");
    let log = std::fs::read_to_string(log).unwrap();
    assert_eq!(log.matches("started").count(), 1, "{log}");
    let turns = deploy["turns"].as_array().unwrap();
    let summary: Vec<(u64, &str, bool, u64)> = (turns.iter())
        .map(|turn| {
            (
                turn["turn"].as_u64().unwrap(),
                turn["answer"].as_str().unwrap(),
                turn["passed"].as_bool().unwrap(),
                turn["calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "Created web.", true, 1),
            (2, "Scaled web to 3.", true, 1),
            (3, "Back to 1 replica.", true, 2)
        ]
    );

    // A turn that fails its own assertion stops the conversation; the failure names the
    // turn and the call trace shows the calls by turn.
    let broken = failure_of(&stdout, "conversation::broken");
    assert!(
        broken.contains("turn 2: toolsUsed (spec.followUps[0]): expected a tool call matching each of: deploy/scale; actual none of them; tool calls made: deploy/status"),
        "{broken}"
    );
    assert!(
        broken.contains("turn 3: not run (turn 2 failed)"),
        "{broken}"
    );
    assert!(
        broken.contains("call trace:\n  turn 1:\n  #1 tool deploy/create"),
        "{broken}"
    );
    let stopped = result(output.path(), "conversation__broken");
    assert_eq!(stopped["turns"][2]["notRun"], true, "{stopped:#}");
    assert_eq!(calls(&stopped).len(), 2);

    // `continueOnFailure: true`: turn 3 runs after the failed turn 2; the run still fails.
    let carried = result(output.path(), "conversation__carry-on");
    assert_eq!(carried["taskPassed"], false);
    assert_eq!(
        calls(&carried).last().unwrap(),
        &owned("undo", 3, "undone: nothing left (call 3)")
    );
    assert_eq!(carried["turns"][1]["passed"], false);
    assert_eq!(carried["turns"][2]["passed"], true);

    // A fault's `call: 2` counts through the conversation: the second `status` is turn 2's.
    let faulted = result(output.path(), "conversation__faulted");
    let injected: Vec<(u64, bool)> = (faulted["callHistory"]["toolCalls"].as_array())
        .unwrap()
        .iter()
        .map(|call| {
            (
                call["turn"].as_u64().unwrap(),
                call.get("injected").is_some(),
            )
        })
        .collect();
    assert_eq!(injected, [(1, false), (1, false), (2, true), (2, false)]);
}

#[test]
fn a_file_agent_gets_its_turn_and_the_earlier_answers() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/conversation/echo/eval.yaml"],
        Some(output.path()),
    );
    assert!(out.status.success(), "{}", text(&out.stdout));
    let remember = result(output.path(), "echo__remember");
    let answers: Vec<&str> = (remember["turns"].as_array().unwrap().iter())
        .map(|turn| turn["answer"].as_str().unwrap())
        .collect();
    assert_eq!(
        answers,
        [
            "first: turn 1 of 3 after []",
            r#"second: turn 2 of 3 after ["first: turn 1 of 3 after []"]"#,
            r#"third: turn 3 of 3 after ["first: turn 1 of 3 after []","second: turn 2 of 3 after [\"first: turn 1 of 3 after []\"]"]"#,
        ]
    );
}

#[test]
fn bad_follow_ups_are_load_errors_at_their_key_paths() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conversation");
    for file in ["agent.yaml", "mcp.yaml", "server.py"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    std::fs::write(
        dir.path().join("eval.yaml"),
        "kind: Eval\nmetadata: {name: bad}\nconfig:\n  agent: {type: file, path: agent.yaml}\n  \
         mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: task.yaml\n",
    )
    .unwrap();
    let validate = |spec: &str| {
        let task = format!(
            "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: bad}}\nspec:\n  \
             prompt: {{inline: hi}}\n{spec}"
        );
        std::fs::write(dir.path().join("task.yaml"), task).unwrap();
        let eval = dir.path().join("eval.yaml");
        let out = mcpeval(&["validate", eval.to_str().unwrap()], None);
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(!out.status.success(), "{all}");
        all
    };
    let all = validate("  continueOnFailure: sometimes\n")
        + &validate("  followUps:\n    - prompt: {inline: again}\n      asserts: {}\n")
        + &validate(
            "  followUps:\n    - {}\n    - prompt: {inline: judge}\n      verify:\n        \
             - llmJudge: {contains: x}\n      assertions:\n        toolsUsed:\n          \
             - {server: deploi, tool: create}\n          - {server: deploy, tool: create, turn: 0}\n        \
             callOrder:\n          - {type: tool, server: deploy, name: create, turn: -1}\n        \
             elicitations:\n          - {server: deploy, turn: 0}\n",
        );
    for expected in [
        "spec.continueOnFailure: invalid boolean",
        "spec.followUps[0].asserts",
        "spec.followUps[0].prompt: the task has no prompt",
        "spec.followUps[1].verify[0].llmJudge: an llmJudge step is checked with the whole conversation: put it in spec.verify",
        "spec.followUps[1].assertions.toolsUsed[0].server: unknown MCP server `deploi`; did you mean deploy?",
        "spec.followUps[1].assertions.toolsUsed[1].turn: turns count from 1 (the task's prompt)",
        "spec.followUps[1].assertions.callOrder[0].turn:",
        "spec.followUps[1].assertions.elicitations[0].turn: turns count from 1 (the task's prompt)",
    ] {
        assert!(all.contains(expected), "lacks {expected:?}:\n{all}");
    }
}

/// A copy of the llm-agent conversation eval (tests/fixtures/conversation/llm) with the
/// server, in a fresh directory: its cassette is written there.
fn llm_eval_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conversation");
    for (from, to) in [
        ("llm/task.yaml", "task.yaml"),
        ("mcp.yaml", "mcp.yaml"),
        ("server.py", "server.py"),
    ] {
        std::fs::copy(fixture.join(from), dir.path().join(to)).unwrap();
    }
    let eval = std::fs::read_to_string(fixture.join("llm/eval.yaml")).unwrap();
    let eval = eval.replace("mcpConfigFile: ../mcp.yaml", "mcpConfigFile: mcp.yaml");
    std::fs::write(dir.path().join("eval.yaml"), eval).unwrap();
    dir
}

/// `mcpeval check` of the llm-agent conversation eval in `dir`, against `base_url`.
fn check_llm(
    dir: &Path,
    output: &Path,
    base_url: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    support::cli::check_with_openai(&dir.join("eval.yaml"), output, base_url, env)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_agent_keeps_its_messages_across_turns_recorded_then_replayed() {
    use support::fake_llm::{FakeLlm, Reply};
    let fake = FakeLlm::start(vec![
        Reply::ToolCall {
            name: "create".into(),
            args: serde_json::json!({"name": "web"}),
        },
        Reply::Text("Created web.".into()),
        Reply::ToolCall {
            name: "scale".into(),
            args: serde_json::json!({"name": "web", "replicas": 3}),
        },
        Reply::Text("Scaled web to 3.".into()),
        Reply::ToolCall {
            name: "undo".into(),
            args: serde_json::json!({}),
        },
        Reply::ToolCall {
            name: "status".into(),
            args: serde_json::json!({"name": "web"}),
        },
        Reply::Text("web has 1 replica.".into()),
    ])
    .await;
    let dir = llm_eval_copy();

    // Recorded: turn 2's first request carries turn 1's messages, turn 3's both, and one
    // cassette keeps the three turns.
    let output = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().to_owned(), output.path().to_owned());
    let url = format!("{}/v1", fake.url);
    let recorded = tokio::task::spawn_blocking(move || {
        check_llm(
            &root,
            &out,
            &url,
            &[
                ("MCPEVAL_RECORD_MODE", "all"),
                ("OPENAI_API_KEY", "sk-conversation-test-key-0123456789"),
            ],
        )
    })
    .await
    .unwrap();
    assert!(recorded.status.success(), "{}", text(&recorded.stdout));
    let seen = fake.seen();
    assert_eq!(seen.len(), 7, "{seen:#?}");
    let turn_two = seen[2].body["messages"].to_string();
    assert!(
        turn_two.contains("Create the deployment web.")
            && turn_two.contains("Created web.")
            && turn_two.contains("Now scale it to 3 replicas."),
        "{turn_two}"
    );
    let scale = result(output.path(), "llm-conversation__scale");
    let answers: Vec<&str> = (scale["turns"].as_array().unwrap().iter())
        .map(|turn| turn["answer"].as_str().unwrap())
        .collect();
    assert_eq!(
        answers,
        ["Created web.", "Scaled web to 3.", "web has 1 replica."]
    );
    let turn_three = seen[4].body["messages"].to_string();
    assert!(
        turn_three.contains("Now scale it") && turn_three.contains("Undo that"),
        "{turn_three}"
    );
    let tokens: Vec<u64> = (scale["turns"].as_array().unwrap().iter())
        .map(|turn| turn["tokens"].as_u64().unwrap_or(0))
        .collect();
    assert!(
        tokens.iter().all(|t| *t > 0),
        "each turn's tokens: {scale:#}"
    );
    assert_eq!(calls(&scale).last().unwrap().2, "web: 1 replicas (call 4)");

    // Replayed: no API, no key, the same conversation.
    drop(fake);
    let output = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().to_owned(), output.path().to_owned());
    let replayed = tokio::task::spawn_blocking(move || {
        let closed = "http://127.0.0.1:9/v1";
        check_llm(&root, &out, closed, &[("MCPEVAL_RECORD_MODE", "none")])
    })
    .await
    .unwrap();
    let cassette = dir.path().join("cassettes/llm-conversation__scale.json");
    let stored = std::fs::read_to_string(&cassette).unwrap();
    assert!(
        stored.contains("Created web.")
            && stored.contains("Scaled web to 3.")
            && stored.contains("web has 1 replica."),
        "one cassette, the three turns: {stored}"
    );
    assert!(replayed.status.success(), "{}", text(&replayed.stdout));
    let scale = result(output.path(), "llm-conversation__scale");
    assert_eq!(scale["turns"][2]["answer"], "web has 1 replica.");

    // The server answers turn 2's call differently: the replay diverges there, and the
    // failure says turn 2 (turn 1 replayed as recorded).
    let server = dir.path().join("server.py");
    let changed = std::fs::read_to_string(&server)
        .unwrap()
        .replace("scaled %s to %d replicas", "resized %s to %d replicas");
    std::fs::write(&server, changed).unwrap();
    let output = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().to_owned(), output.path().to_owned());
    let diverged = tokio::task::spawn_blocking(move || {
        let closed = "http://127.0.0.1:9/v1";
        check_llm(&root, &out, closed, &[("MCPEVAL_RECORD_MODE", "none")])
    })
    .await
    .unwrap();
    let stdout = text(&diverged.stdout);
    assert_eq!(diverged.status.code(), Some(101), "{stdout}");
    let failure = failure_of(&stdout, "llm-conversation::scale");
    assert!(
        failure.contains(
            "agent failed in turn 2: stopped by mcpeval at its first LLM request that matches no recording"
        ) && failure.contains("first difference at $.messages[6].content"),
        "{failure}"
    );
    let scale = result(output.path(), "llm-conversation__scale");
    assert_eq!(scale["turns"][0]["passed"], true, "{scale:#}");
    let reasons = scale["reasons"].to_string();
    assert!(
        reasons.contains("agent (turn 2): stopped by mcpeval"),
        "{reasons}"
    );
}

/// Variants apply in every turn: the `reworded` variant's description of `status` is what
/// turn 2's (new) agent session lists and picks by, so that variant passes and `plain`
/// fails turn 2; each variant's calls carry their turns.
#[test]
fn a_variants_tool_override_holds_in_a_later_turn() {
    let output = tempfile::tempdir().unwrap();
    let eval = "tests/fixtures/conversation/variants/eval.yaml";
    let out = mcpeval(&["check", eval], Some(output.path()));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let reworded = result(output.path(), "conversation-variants__reworded@reworded");
    assert_eq!(reworded["taskPassed"], true, "{reworded:#}");
    let turns: Vec<(String, u64)> = calls(&reworded)
        .into_iter()
        .map(|(name, turn, _)| (name, turn))
        .collect();
    assert_eq!(turns, [("create".into(), 1), ("status".into(), 2)]);
    let plain = result(output.path(), "conversation-variants__reworded@plain");
    assert_eq!(plain["taskPassed"], false, "{plain:#}");
    assert_eq!(plain["turns"][1]["passed"], false, "{plain:#}");
    let failure = failure_of(&stdout, "conversation-variants::reworded@plain");
    assert!(
        failure.contains("turn 2: toolsUsed (spec.followUps[0])"),
        "{failure}"
    );
}

/// An ACP agent (mcpeval's own) in a three-turn conversation with the stateful server:
/// each turn a new agent process that loads the session of the turn before, the one server
/// process answering all four calls.
#[test]
fn an_acp_agent_loads_its_session_through_three_turns() {
    let output = tempfile::tempdir().unwrap();
    let eval = "tests/fixtures/conversation/acp/eval.yaml";
    let out = mcpeval(&["check", eval], Some(output.path()));
    assert!(out.status.success(), "{}", text(&out.stdout));
    let deploy = result(output.path(), "acp-conversation__deploy");
    let answers: Vec<&str> = (deploy["turns"].as_array().unwrap().iter())
        .map(|turn| turn["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["new session", "loaded session", "loaded session"]);
    let turns: Vec<(String, u64)> = calls(&deploy)
        .into_iter()
        .map(|(name, turn, _)| (name, turn))
        .collect();
    let owned = |name: &str, turn| (name.to_owned(), turn);
    assert_eq!(
        turns,
        [
            owned("create", 1),
            owned("scale", 2),
            owned("undo", 3),
            owned("status", 3)
        ]
    );
}
