//! The real reference server `@modelcontextprotocol/server-everything@2026.8.31`, proxied
//! over stdio and over streamable HTTP, checked against talking to it directly.
//! Skipped (with a message) when `.ci/install-peers.sh` has not run, unless `CI` is set.

use crate::support;

use std::time::Duration;

use mcpeval::proxy::{CANCELLED_CODE, CallRecorder, Proxy, Upstream};
use mcpeval::trace::Outcome;
use rmcp::model::ClientRequest;
use rmcp::service::{PeerRequestOptions, serve_client};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use support::agent::{Agent, TestAgent, connect, ok, request};
use support::everything::{self, HttpEverything};
use support::server::from_json;

async fn direct_stdio(binary: &std::path::Path) -> Agent {
    let mut command = tokio::process::Command::new(binary);
    command.arg("stdio");
    let transport = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
        .0;
    tokio::time::timeout(
        Duration::from_secs(60),
        serve_client(TestAgent::new("direct"), transport),
    )
    .await
    .unwrap()
    .unwrap()
}

fn names(list: &Value, key: &str, field: &str) -> Vec<String> {
    let mut names: Vec<String> = list[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// The same surface and answers through the proxy as directly.
async fn compare_surface(direct: &Agent, proxied: &Agent) {
    let d = serde_json::to_value(direct.peer().peer_info().unwrap()).unwrap();
    let p = serde_json::to_value(proxied.peer().peer_info().unwrap()).unwrap();
    assert_eq!(p, d, "initialize result");
    for (method, key) in [
        ("tools/list", "tools"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
        ("prompts/list", "prompts"),
    ] {
        let d = ok(direct, method, json!({})).await;
        let p = ok(proxied, method, json!({})).await;
        assert_eq!(p, d, "{method}");
        assert!(!d[key].as_array().unwrap().is_empty(), "{method}: {d}");
    }
    let tools = ok(proxied, "tools/list", json!({})).await;
    let tools = names(&tools, "tools", "name");
    for tool in ["echo", "get-sum", "trigger-long-running-operation"] {
        assert!(tools.contains(&tool.to_owned()), "{tools:?}");
    }
    for (method, params) in [
        (
            "tools/call",
            json!({"name": "echo", "arguments": {"message": "hello"}}),
        ),
        (
            "tools/call",
            json!({"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        ),
        (
            "tools/call",
            json!({"name": "get-structured-content", "arguments": {"location": "New York"}}),
        ),
        ("tools/call", json!({"name": "no-such-tool"})),
        ("prompts/get", json!({"name": "simple-prompt"})),
        (
            "prompts/get",
            json!({"name": "args-prompt", "arguments": {"city": "Paris", "state": "TX"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "completable-prompt"},
                                        "argument": {"name": "department", "value": "E"}}),
        ),
    ] {
        let d = request(direct, method, params.clone()).await;
        let p = request(proxied, method, params.clone()).await;
        assert_eq!(p, d, "{method} {params}");
    }
    let resources = ok(direct, "resources/list", json!({})).await;
    let uri = resources["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    let d = ok(direct, "resources/read", json!({"uri": uri})).await;
    let p = ok(proxied, "resources/read", json!({"uri": uri})).await;
    assert_eq!(p, d, "resources/read {uri}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_answers_the_same_through_the_proxy() {
    let Some(binary) = everything::binary() else {
        return;
    };
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let proxy = Proxy::start(
        "everything",
        everything::stdio(&binary),
        &recorder,
        logs.path(),
    )
    .await
    .unwrap();
    let direct = direct_stdio(&binary).await;
    let proxied = connect(TestAgent::new("direct"), proxy.url()).await;
    compare_surface(&direct, &proxied).await;
    let trace = recorder.trace();
    let echo = &trace.calls[0];
    assert_eq!(
        (echo.server.as_str(), echo.name.as_str()),
        ("everything", "echo")
    );
    assert!(matches!(echo.outcome, Outcome::Ok { .. }), "{echo:?}");
    assert!(!trace.discovery.is_empty());
    let _ = direct.cancel().await;
    let _ = proxied.cancel().await;
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_http_answers_the_same_through_the_proxy() {
    let Some(binary) = everything::binary() else {
        return;
    };
    let server = HttpEverything::start(&binary).await;
    let logs = tempfile::tempdir().unwrap();
    let upstream = Upstream::Http {
        url: server.url.clone(),
        headers: vec![("authorization".into(), "Bearer not-checked".into())],
    };
    let proxy = Proxy::start("everything", upstream, &CallRecorder::new(), logs.path())
        .await
        .unwrap();
    let direct = connect(TestAgent::new("direct"), &server.url).await;
    let proxied = connect(TestAgent::new("direct"), proxy.url()).await;
    compare_surface(&direct, &proxied).await;
    let _ = direct.cancel().await;
    let _ = proxied.cancel().await;
    proxy.shutdown().await;
}

async fn long_running_progress_and_cancellation(upstream: Upstream) {
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let proxy = Proxy::start("everything", upstream, &recorder, logs.path())
        .await
        .unwrap();
    let agent = TestAgent::new("agent");
    let received = agent.received.clone();
    let proxied = connect(agent, proxy.url()).await;

    // Progress, under the agent's own token.
    let call: ClientRequest = from_json(json!({"method": "tools/call", "params": {
        "name": "trigger-long-running-operation", "arguments": {"duration": 1, "steps": 4}}}));
    let handle = proxied
        .peer()
        .send_request_with_option(call, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = serde_json::to_value(&handle.progress_token).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(60), handle.await_response())
        .await
        .unwrap()
        .unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
    assert!(text.as_str().unwrap().contains("completed"), "{text}");
    let progress = received.wait_for("notifications/progress", 4).await;
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == token),
        "{progress:?}"
    );

    // Cancellation: the agent gives up on a 60 s operation.
    let call: ClientRequest = from_json(json!({"method": "tools/call", "params": {
        "name": "trigger-long-running-operation", "arguments": {"duration": 60, "steps": 60}}}));
    let handle = proxied
        .peer()
        .send_request_with_option(call, PeerRequestOptions::no_options())
        .await
        .unwrap();
    received.wait_for("notifications/progress", 5).await;
    handle.cancel(Some("test cancels".into())).await.unwrap();
    // The server keeps serving after the cancellation.
    let echo = ok(
        &proxied,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "still here"}}),
    )
    .await;
    assert_eq!(echo["content"][0]["text"], "Echo: still here");
    let mut cancelled = None;
    for _ in 0..200 {
        let trace = recorder.trace();
        cancelled = trace
            .calls
            .iter()
            .find(|c| {
                matches!(
                    c.outcome,
                    Outcome::Error {
                        code: CANCELLED_CODE,
                        ..
                    }
                )
            })
            .cloned();
        if cancelled.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cancelled = cancelled.expect("the cancelled call is recorded as cancelled");
    assert_eq!(cancelled.name, "trigger-long-running-operation");
    assert!(
        cancelled.duration < Duration::from_secs(55),
        "{cancelled:?}"
    );

    // A sampling request from the server mid-call is answered by the agent.
    let sampled = ok(
        &proxied,
        "tools/call",
        json!({"name": "trigger-sampling-request",
        "arguments": {"prompt": "what is 2+2?", "maxTokens": 10}}),
    )
    .await;
    assert!(sampled.to_string().contains("fake-model"), "{sampled}");
    let _ = proxied.cancel().await;
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio_long_running_tool_reports_progress_and_can_be_cancelled() {
    let Some(binary) = everything::binary() else {
        return;
    };
    long_running_progress_and_cancellation(everything::stdio(&binary)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_http_long_running_tool_reports_progress_and_can_be_cancelled() {
    let Some(binary) = everything::binary() else {
        return;
    };
    let server = HttpEverything::start(&binary).await;
    let upstream = Upstream::Http {
        url: server.url.clone(),
        headers: vec![],
    };
    long_running_progress_and_cancellation(upstream).await;
}
