//! Large and malformed answers of a stdio server end the call at once (issue 14, point 3).
//!
//! Expected: a 20 MiB tool result passes through intact, in a few seconds; a result over
//! [`MAX_MESSAGE_SIZE`] (64 MiB) ends its call with an error naming the size and the limit;
//! an answer with invalid UTF-8 inside its JSON, or one that is not JSON, ends its call at
//! once with an error naming the server and what was wrong, recorded in the trace; each is
//! a failure of the server; the session keeps working for the next call.
//!
//! Observed before the fix: rmcp's line codec dropped the over-long line (16 MiB limit) and
//! the undecodable ones in silence, and each call waited until the task timed out.

use std::path::Path;
use std::time::{Duration, Instant};

use mcpeval::proxy::{CallRecorder, MAX_MESSAGE_SIZE, Proxy, ProxyHandle};
use mcpeval::trace::Outcome;
use serde_json::{Value, json};

use crate::support::eval_run::{run_task, stdio_server};
use crate::support::faulty_stdio;
use crate::support::raw_session::RawSession;

/// A proxy for the faulty stdio server, named `db`, and its recorder.
async fn proxy(dir: &Path) -> (ProxyHandle, CallRecorder) {
    let recorder = CallRecorder::new();
    let upstream = faulty_stdio::upstream(dir, &[]);
    let proxy = Proxy::start("db", upstream, &recorder, &dir.join("logs"))
        .await
        .unwrap();
    (proxy, recorder)
}

/// The message of a JSON-RPC error answer; panics on a result.
fn error_message(answer: &Value) -> String {
    answer["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error answer; observed {answer:.300}"))
        .to_owned()
}

/// The call answers `echo: <text>`: the session still works.
async fn echo_works(session: &RawSession, id: u64) {
    let answer = session
        .call(id, "echo", json!({"text": "still here"}))
        .await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "echo: still here",
        "expected the next call to work; observed {answer}"
    );
}

/// Expected: a 20 MiB result arrives whole and quickly, and is no failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_20_mib_result_passes_through_intact_and_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let (proxy, recorder) = proxy(dir.path()).await;
    let session = RawSession::open(proxy.url()).await;
    let size = 20 << 20;
    let started = Instant::now();
    let answer = session.call(1, "big", json!({"bytes": size})).await;
    let took = started.elapsed();
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert_eq!(text.len(), size, "expected {size} bytes of text");
    assert!(text.bytes().all(|b| b == b'x'), "the text arrived changed");
    assert!(
        took < Duration::from_secs(10),
        "expected the 20 MiB answer within 10 s; observed {took:?}"
    );
    assert!(
        proxy.server_failures().is_empty(),
        "{:?}",
        proxy.upstream_failures()
    );
    assert!(matches!(
        recorder.trace().calls[0].outcome,
        Outcome::Ok { .. }
    ));
    proxy.shutdown().await;
}

/// Expected: a result over the limit ends its call with an error naming its size and the
/// limit, whether its id comes first, last, or in the middle of the line (which the proxy
/// does not keep: the one call waiting is the one it answers); the next call works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_the_limit_ends_the_call_naming_the_size_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (proxy, recorder) = proxy(dir.path()).await;
    let session = RawSession::open(proxy.url()).await;
    let size = MAX_MESSAGE_SIZE + (1 << 20);
    for (id, tool) in [(1, "big"), (2, "big_id_last"), (3, "big_id_middle")] {
        let started = Instant::now();
        let message = error_message(&session.call(id, tool, json!({"bytes": size})).await);
        for part in [
            "mcp server `db`".to_owned(),
            format!("answered tools/call `{tool}` with a message of"),
            "MiB), over mcpeval's limit of 67108864 bytes (64.0 MiB)".to_owned(),
        ] {
            assert!(message.contains(&part), "expected {part:?} in: {message}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "expected the call to end at once; observed {:?}",
            started.elapsed()
        );
    }
    echo_works(&session, 4).await;
    assert_eq!(
        proxy.server_failures().len(),
        3,
        "{:?}",
        proxy.upstream_failures()
    );
    let calls = recorder.trace().calls;
    assert!(
        matches!(&calls[0].outcome, Outcome::Error { message, .. } if message.contains("limit"))
    );
    proxy.shutdown().await;
}

/// Expected: an answer with invalid UTF-8 inside its JSON ends the call at once with an
/// error naming the server and the byte, recorded in the trace; the next call works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_in_an_answer_ends_the_call_at_once_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (proxy, recorder) = proxy(dir.path()).await;
    let session = RawSession::open(proxy.url()).await;
    let started = Instant::now();
    let message = error_message(&session.call(1, "bad_utf8", json!({})).await);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "expected the call to end at once; observed {:?}",
        started.elapsed()
    );
    let expected = "answered tools/call `bad_utf8` with a line that is not JSON-RPC \
                    (invalid UTF-8 at byte 71)";
    assert!(message.contains("mcp server `db`"), "{message}");
    assert!(
        message.contains(expected),
        "expected {expected:?} in: {message}"
    );
    echo_works(&session, 2).await;
    let calls = recorder.trace().calls;
    assert!(
        matches!(&calls[0].outcome, Outcome::Error { message, .. } if message.contains(expected)),
        "expected the trace to record the error; observed {:?}",
        calls[0].outcome
    );
    assert!(matches!(calls[1].outcome, Outcome::Ok { .. }));
    let failures = proxy.server_failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].detail.contains("\"text\":\"caf"),
        "{failures:?}"
    );
    proxy.shutdown().await;
}

/// Expected: an answer line that is not JSON ends the call at once the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_is_not_json_ends_the_call_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (proxy, _recorder) = proxy(dir.path()).await;
    let session = RawSession::open(proxy.url()).await;
    let message = error_message(&session.call(1, "not_json", json!({})).await);
    let expected = "answered tools/call `not_json` with a line that is not JSON-RPC (not JSON: ";
    assert!(
        message.contains(expected),
        "expected {expected:?} in: {message}"
    );
    echo_works(&session, 2).await;
    proxy.shutdown().await;
}

/// Expected, through a whole task: the malformed answer fails the task with the server's
/// failure, and the call after it is recorded as answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_answer_fails_the_task_and_later_calls_are_still_answered() {
    let dir = tempfile::tempdir().unwrap();
    let script = faulty_stdio::script(dir.path()).display().to_string();
    let servers = stdio_server("db", "python3", &[&script]);
    let prompt = "call db bad_utf8 {}\ncall db echo {\"text\": \"after\"}";
    let run = run_task(dir, &servers, prompt, "        minToolCalls: 2").await;
    let message = run.message();
    assert!(
        !run.passed(),
        "expected the task to fail; observed it passed"
    );
    assert!(
        message.starts_with("server failed: mcp server `db`")
            && message.contains("(invalid UTF-8 at byte 71)"),
        "expected the server's failure first; observed:\n{message}"
    );
    let calls = &run.result["callHistory"]["toolCalls"];
    assert_eq!(calls[0]["outcome"], "error", "{calls:#}");
    assert_eq!(calls[1]["outcome"], "ok", "{calls:#}");
}
