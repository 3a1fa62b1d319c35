//! A server under test that fails fails the task (issue 14, point 1). Each case runs a
//! whole task through `mcpeval check` with the `script-agent`, which tolerates tool errors
//! and exits 0.
//!
//! Expected: the task fails, its failure message opens with `server failed:` naming the
//! server, what happened (the command and the OS error; the exit code and the last lines of
//! its stderr; the HTTP status and the first bytes of the body) and its log; the results
//! file lists it under `serverFailures`; assertions still run and are reported. A tool call
//! answered with `isError: true` (or a JSON-RPC error) is the server working: the task
//! passes.
//!
//! Observed before the fix: the cases during a call passed, the cause visible only in the
//! agent's answer; the cases at start failed as the agent's failure to connect, the cause
//! only in its stderr.

use std::time::Duration;

use serde_json::Value;

use crate::support::eval_run::{
    RunAgent, TaskRun, http_server, run_task, run_task_as, stdio_server,
};
use crate::support::faulty_http::{self, ERROR_BODY, FailAt, HttpFault};
use crate::support::faulty_stdio;

/// At least one tool call: still checked, and reported, when a server fails.
const ASSERT_ONE_CALL: &str = "        minToolCalls: 1";

/// Runs `prompt` against the faulty stdio server started with `args`, as server `db`.
async fn with_stdio(args: &[&str], prompt: &str, assertions: &str) -> TaskRun {
    let dir = tempfile::tempdir().unwrap();
    let script = faulty_stdio::script(dir.path()).display().to_string();
    let args: Vec<&str> = std::iter::once(script.as_str())
        .chain(args.iter().copied())
        .collect();
    let servers = stdio_server("db", "python3", &args);
    run_task(dir, &servers, prompt, assertions).await
}

/// Runs `prompt` against the HTTP server at `url`, as server `web`.
async fn with_http(url: &str, prompt: &str) -> TaskRun {
    let dir = tempfile::tempdir().unwrap();
    run_task(dir, &http_server("web", url), prompt, ASSERT_ONE_CALL).await
}

/// The task failed, its message has `parts` (in its `server failed:` lines) and its results
/// file one server failure of `server`.
fn assert_server_failed(run: &TaskRun, server: &str, parts: &[&str]) {
    let message = run.message();
    assert!(
        !run.passed(),
        "expected: the task fails; observed: it passed\n{}",
        run.stdout
    );
    assert_eq!(
        run.code,
        Some(101),
        "expected exit code 101\n{}",
        run.stdout
    );
    assert!(
        message.starts_with("server failed: "),
        "expected: the message opens with the server's failure; observed:\n{message}"
    );
    for part in parts {
        assert!(
            message.contains(part),
            "expected the message to contain {part:?}; observed:\n{message}"
        );
    }
    let failures = run.result["serverFailures"].as_array().cloned();
    let failures = failures.unwrap_or_default();
    assert!(
        failures.iter().any(|f| f["server"] == server),
        "expected serverFailures to name `{server}`; observed: {failures:?}"
    );
    let reasons = run.result["reasons"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        reasons.iter().any(|r| r
            .as_str()
            .is_some_and(|r| r.starts_with(&format!("server failed: mcp server `{server}`")))),
        "expected a reason naming the server; observed: {reasons:?}"
    );
    run.assert_result_matches_schema();
}

/// The path of the server's stderr log, as the results file gives it.
fn log_of(run: &TaskRun) -> String {
    run.result["serverFailures"][0]["log"]
        .as_str()
        .unwrap_or_else(|| panic!("expected a log path; observed {:#}", run.result))
        .to_owned()
}

/// Expected: a stdio server whose command does not exist fails the task with the command
/// and the OS error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_server_command_fails_the_task_with_the_os_error() {
    let dir = tempfile::tempdir().unwrap();
    let servers = stdio_server("db", "/nonexistent/db-server", &["--flag"]);
    let run = run_task(dir, &servers, "call db echo {}", ASSERT_ONE_CALL).await;
    assert_server_failed(
        &run,
        "db",
        &[
            "mcp server `db`: could not start `/nonexistent/db-server --flag`",
            "No such file or directory (os error 2)",
            "1 assertion failed:\n  minToolCalls",
        ],
    );
}

/// Expected: a stdio server that exits at start fails the task with its exit code, the last
/// lines of its stderr and its log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_start_fails_the_task_with_its_exit_code_and_stderr() {
    let run = with_stdio(&["--exit-at-start"], "call db echo {}", ASSERT_ONE_CALL).await;
    assert_server_failed(
        &run,
        "db",
        &[
            "mcp server `db` (`python3 ",
            "exited with code 4 during initialize",
            "faulty server: cannot open its database",
        ],
    );
    assert!(run.message().contains(&log_of(&run)), "{}", run.message());
}

/// Expected: a stdio server that exits during a `tools/call` fails the task at once (the
/// call does not wait for the task timeout), naming the call, the exit code and stderr;
/// the call is recorded with that error; the assertions still run (and hold here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_during_a_call_fails_the_task_and_ends_the_call_at_once() {
    let prompt = "call db echo {\"text\": \"before\"}\ncall db crash {\"code\": 3}";
    let run = with_stdio(&[], prompt, "        minToolCalls: 2").await;
    assert_server_failed(
        &run,
        "db",
        &[
            "exited with code 3 during tools/call `crash`",
            "faulty server: lost its connection pool",
        ],
    );
    assert!(run.message().contains(&log_of(&run)), "{}", run.message());
    assert!(
        run.took < Duration::from_secs(30),
        "expected the call to end at once; observed: the run took {:?}",
        run.took
    );
    let calls = &run.result["callHistory"]["toolCalls"];
    assert_eq!(calls[1]["outcome"], "error", "{calls:#}");
    let recorded = calls[1]["result"]["message"].as_str().unwrap_or("");
    assert!(
        recorded.contains("exited with code 3"),
        "expected the trace to record the exit; observed {recorded:?}"
    );
    assert_eq!(
        run.result["assertionResults"]["minToolCalls"]["passed"], true,
        "expected the assertion to run and hold"
    );
}

/// Expected: an HTTP server that refuses the connection fails the task, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_refuses_the_connection_fails_the_task() {
    let url = faulty_http::refused_url();
    let run = with_http(&url, "call web echo {}").await;
    let who = format!("mcp server `web` (`{url}`)");
    assert_server_failed(&run, "web", &[&who, "could not be reached", "refused"]);
}

/// Expected: an HTTP server that answers `initialize` with 500 fails the task with the
/// status and the start of the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_answering_500_at_initialize_fails_the_task_with_status_and_body() {
    let server = faulty_http::serve(HttpFault::Status500, FailAt::Initialize).await;
    let run = with_http(&server.url, "call web echo {}").await;
    let parts = [
        "answered initialize with HTTP 500 Internal Server Error",
        ERROR_BODY,
    ];
    assert_server_failed(&run, "web", &parts);
}

/// Expected: an HTTP server that answers a `tools/call` with 500 fails the task with the
/// call, the status and the start of the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_answering_500_to_a_call_fails_the_task_with_status_and_body() {
    let server = faulty_http::serve(HttpFault::Status500, FailAt::Call).await;
    let run = with_http(&server.url, "call web echo {}").await;
    let parts = [
        "answered tools/call `echo` with HTTP 500 Internal Server Error",
        ERROR_BODY,
    ];
    assert_server_failed(&run, "web", &parts);
    assert_eq!(
        run.result["callHistory"]["toolCalls"][0]["outcome"],
        "error"
    );
}

/// Expected: an HTTP server that answers a `tools/call` with 200 and a body that is not
/// JSON fails the task, showing the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_answering_200_with_a_body_that_is_not_json_fails_the_task() {
    let server = faulty_http::serve(HttpFault::NotJson, FailAt::Call).await;
    let run = with_http(&server.url, "call web echo {}").await;
    let parts = [
        "answered tools/call `echo` with HTTP 200 OK and a body that is not JSON-RPC (not JSON",
        "this is not json",
    ];
    assert_server_failed(&run, "web", &parts);
}

/// Expected: a tool call answered with `isError: true`, and one answered with a JSON-RPC
/// error, are the server working: recorded outcomes, and the task passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn is_error_results_and_json_rpc_errors_leave_the_task_passed() {
    let prompt = "call db fail {}\ncall db no_such_tool {}";
    let run = with_stdio(&[], prompt, "        minToolCalls: 2").await;
    assert!(
        run.passed(),
        "expected: the task passes; observed:\n{}",
        run.message()
    );
    let calls = &run.result["callHistory"]["toolCalls"];
    let outcomes: Vec<&Value> = (0..2).map(|i| &calls[i]["outcome"]).collect();
    assert_eq!(outcomes, ["is_error", "error"], "{calls:#}");
    assert!(
        run.result.get("serverFailures").is_none(),
        "{:#}",
        run.result
    );
}

/// Assertions that hold whatever the agent lists.
const ASSERT_FEW_CALLS: &str = "        maxToolCalls: 5";

/// Expected: a server that cannot list its tools (a JSON-RPC error to `tools/list`, an
/// exit while the list waits, an answer with no tool list) fails the task, and its results
/// file names the server, the method and what it answered; the agent goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_tool_list_fails_fails_the_task() {
    let cases: [(&str, &[&str]); 3] = [
        (
            "error",
            &["answered tools/list with an error: tool registry unavailable (code -32603)"],
        ),
        (
            "crash",
            &[
                "exited with code 5 during tools/list",
                "faulty server: its tool registry is corrupt",
            ],
        ),
        ("garbage", &["answered tools/list with no tool list: "]),
    ];
    for (how, parts) in cases {
        let run = with_stdio(&["--list-fails", how], "list db", ASSERT_FEW_CALLS).await;
        assert_server_failed(&run, "db", parts);
        let message = run.result["serverFailures"][0]["message"].as_str();
        let message = message.unwrap_or_default();
        assert!(
            message.contains(parts[0]),
            "{how}: expected serverFailures to say {:?}; observed {message:?}",
            parts[0]
        );
    }
}

/// An Agent file whose command line lists the allowed tools, so that mcpeval lists a
/// server's tools itself before the agent starts.
const LISTING_AGENT: &str = r#"kind: Agent
metadata:
  name: listing-agent
commands:
  shell: true
  timeout: 60s
  argTemplateAllowedTools: "{{ .ToolName }}"
  runPrompt: 'echo {{ .Prompt }} {{ .AllowedToolArgs }}'
"#;

/// Expected: when mcpeval's own listing of a server's tools (for an agent that takes its
/// allowed tools on its command line) fails, the results file lists the server under
/// `serverFailures` with what it answered, as a failing listing of the agent's own does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_listing_of_the_allowed_tools_is_a_server_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("listing-agent.yaml"), LISTING_AGENT).unwrap();
    let script = faulty_stdio::script(dir.path()).display().to_string();
    let servers = stdio_server("db", "python3", &[&script, "--list-fails", "error"]);
    let agent = RunAgent {
        config: "{type: file, path: listing-agent.yaml}".into(),
        env: Vec::new(),
    };
    let run = run_task_as(&agent, dir, &servers, "list db", ASSERT_FEW_CALLS).await;
    let said = "answered tools/list with an error: tool registry unavailable (code -32603)";
    assert_server_failed(&run, "db", &[said]);
    let message = run.result["serverFailures"][0]["message"].as_str();
    assert!(
        message.unwrap_or_default().contains(said),
        "expected serverFailures to say {said:?}; observed {:#}",
        run.result["serverFailures"]
    );
}

/// Expected: a server that declares no tools may answer `tools/list` with an error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_tools_may_refuse_to_list_them() {
    let args = ["--no-tools", "--list-fails", "error"];
    let run = with_stdio(&args, "list db", ASSERT_FEW_CALLS).await;
    assert!(
        run.passed(),
        "expected: the task passes; observed:\n{}",
        run.message()
    );
    assert!(
        run.result.get("serverFailures").is_none(),
        "{:#}",
        run.result
    );
}

/// Expected: an `error` fault injected on `tools/list` is on purpose, not the server
/// failing: the task passes and no server failure is noted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injected_tool_list_error_is_no_server_failure() {
    let faults = "\n      faults:\n        - server: db\n          method: tools/list\n          \
                  every: true\n          error: {code: -32000, message: \"on purpose\"}";
    let assertions = format!("{ASSERT_FEW_CALLS}{faults}");
    let run = with_stdio(&[], "list db", &assertions).await;
    assert!(
        run.passed(),
        "expected: the task passes; observed:\n{}",
        run.message()
    );
    assert!(
        run.result.get("serverFailures").is_none(),
        "{:#}",
        run.result
    );
}
