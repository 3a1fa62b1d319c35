//! What the proxy records: calls in the order received with their outcomes, list calls as
//! discovery events, nothing secret.

use crate::support;

use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
use mcpeval::trace::{CallKind, ListKind, Outcome};
use serde_json::json;
use support::agent::{TestAgent, connect, ok, request};
use support::setup::Proxied;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_recorded_in_order_with_their_outcomes() {
    let setup = Proxied::start().await;
    let agent = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    ok(&agent, "tools/list", json!({})).await;
    ok(&agent, "resources/list", json!({"cursor": "2"})).await;
    ok(
        &agent,
        "tools/call",
        json!({"name": "echo", "arguments": {"zeta": "z", "text": "hi"}}),
    )
    .await;
    ok(&agent, "tools/call", json!({"name": "fail"})).await;
    request(&agent, "tools/call", json!({"name": "broken"}))
        .await
        .unwrap_err();
    ok(&agent, "resources/read", json!({"uri": "test://doc/0"})).await;
    ok(
        &agent,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    )
    .await;
    ok(&agent, "prompts/list", json!({})).await;
    let trace = setup.recorder.trace();

    let summary: Vec<(CallKind, &str, &str)> = trace
        .calls
        .iter()
        .map(|c| (c.kind, c.name.as_str(), c.outcome.label()))
        .collect();
    assert_eq!(
        summary,
        [
            (CallKind::Tool, "echo", "ok"),
            (CallKind::Tool, "fail", "is_error"),
            (CallKind::Tool, "broken", "error"),
            (CallKind::Resource, "test://doc/0", "ok"),
            (CallKind::Prompt, "greet", "ok"),
        ]
    );
    assert!(trace.calls.iter().all(|c| c.server == "test"));
    let echo = &trace.calls[0];
    assert_eq!(
        serde_json::to_string(&echo.arguments).unwrap(),
        r#"{"zeta":"z","text":"hi"}"#
    );
    match &echo.outcome {
        Outcome::Ok { result } => assert_eq!(result["content"][0]["text"], "echo: hi"),
        other => panic!("{other:?}"),
    }
    match &trace.calls[2].outcome {
        Outcome::Error { code, message } => {
            assert_eq!((*code, message.as_str()), (-32042, "broken on purpose"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(trace.calls[3].arguments, None);
    assert_eq!(trace.calls[4].arguments, Some(json!({"name": "Ada"})));
    for pair in trace.calls.windows(2) {
        assert!(pair[0].start_offset <= pair[1].start_offset);
    }

    let lists: Vec<(ListKind, Option<&str>, Option<usize>)> = trace
        .discovery
        .iter()
        .map(|d| (d.list, d.cursor.as_deref(), d.items))
        .collect();
    assert_eq!(
        lists,
        [
            (ListKind::Tools, None, Some(11)),
            (ListKind::Resources, Some("2"), Some(2)),
            (ListKind::Prompts, None, Some(1)),
        ]
    );
    let _ = agent.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_secret_is_recorded() {
    let setup = Proxied::start().await;
    let agent = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    ok(
        &agent,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .await;
    let json = setup.recorder.trace().to_json_pretty();
    assert!(!json.contains("secret-value"), "{json}");
    assert!(!json.contains("x-test-token"), "{json}");
    let _ = agent.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxies_sharing_a_recorder_record_in_the_order_received_across_servers() {
    let first = Proxied::start().await;
    let second = Proxied::start().await;
    let recorder = CallRecorder::new();
    let logs = tempfile::tempdir().unwrap();
    let mut proxies = Vec::new();
    for (name, url) in [("alpha", &first.server_url), ("beta", &second.server_url)] {
        let upstream = Upstream::Http {
            url: url.clone(),
            headers: vec![],
        };
        proxies.push(
            Proxy::start(name, upstream, &recorder, logs.path())
                .await
                .unwrap(),
        );
    }
    let a = connect(TestAgent::new("a"), proxies[0].url()).await;
    let b = connect(TestAgent::new("b"), proxies[1].url()).await;
    ok(
        &b,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "1"}}),
    )
    .await;
    ok(
        &a,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "2"}}),
    )
    .await;
    ok(
        &b,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "3"}}),
    )
    .await;
    let order: Vec<(String, serde_json::Value)> = recorder
        .trace()
        .calls
        .into_iter()
        .map(|c| (c.server, c.arguments.unwrap()["text"].clone()))
        .collect();
    assert_eq!(
        order,
        [
            ("beta".to_owned(), json!("1")),
            ("alpha".to_owned(), json!("2")),
            ("beta".to_owned(), json!("3")),
        ]
    );
    let _ = a.cancel().await;
    let _ = b.cancel().await;
    for proxy in proxies {
        proxy.shutdown().await;
    }
    first.stop().await;
    second.stop().await;
}

/// Claude Code 2.1.3xx opens with `server/discover` (protocol 2026-07-28) and falls back to
/// `initialize` on HTTP 400 or JSON-RPC -32601.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_discover_is_rejected_so_the_client_falls_back_to_initialize() {
    let setup = Proxied::start().await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.330"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = mcpeval::tls::client_builder()
        .build()
        .unwrap()
        .post(setup.proxy.url())
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    eprintln!("server/discover: HTTP {status}: {text}");
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("-32601"), "{text}");
    // …and the fallback works.
    let agent = connect(TestAgent::new("after-discover"), setup.proxy.url()).await;
    ok(&agent, "tools/list", json!({})).await;
    let _ = agent.cancel().await;
    setup.stop().await;
}
