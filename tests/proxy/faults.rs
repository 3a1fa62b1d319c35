//! The proxy's faults on purpose as an HTTP client sees them, byte for byte: a disconnect
//! closes the connection without an answer and ends the session (its next request gets
//! 404, a new `initialize` works), a malformed answer is an HTTP 200 whose body is not
//! JSON-RPC, and a tool-list change is declared in `initialize`, sent as
//! `notifications/tools/list_changed` and seen by the next `tools/list`.

use std::sync::Arc;
use std::time::Duration;

use mcpeval::fault::{FaultAction, FaultRule, FaultTarget, FaultWhen, ToolsChange};
use mcpeval::proxy::{CallRecorder, FaultPlan, Proxy, ProxyOptions, Upstream};
use mcpeval::trace::FaultKind;
use serde_json::{Value, json};

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

fn rule(i: usize, tool: &str, call: u32, action: FaultAction) -> FaultRule {
    FaultRule {
        key_path: format!("spec.faults[{i}]"),
        server: Some("demo".into()),
        target: FaultTarget::Tool(tool.into()),
        when: FaultWhen::Call(call),
        action,
    }
}

struct Client {
    http: reqwest::Client,
    url: String,
}

impl Client {
    async fn post(&self, session: Option<&str>, body: Value) -> reqwest::Response {
        self.try_post(session, body).await.unwrap()
    }

    async fn try_post(
        &self,
        session: Option<&str>,
        body: Value,
    ) -> reqwest::Result<reqwest::Response> {
        let mut request = (self.http.post(&self.url))
            .header("accept", ACCEPT_BOTH)
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send().await
    }

    /// `initialize`: the session id and the answer.
    async fn initialize(&self) -> (String, Value) {
        let response = self
            .post(
                None,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1.0.0"}}}),
            )
            .await;
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let answer: Value = response.json().await.unwrap();
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.post(Some(&session), initialized).await;
        (session, answer)
    }

    fn call(id: u64, tool: &str, arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}})
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_replies_end_sessions_and_tool_lists_change_as_an_http_client_sees_them() {
    let multiply =
        json!({"name": "multiply", "description": "Multiplies", "inputSchema": {"type": "object"}});
    let change = ToolsChange {
        add: vec![multiply.as_object().unwrap().clone()],
        remove: vec!["delete_user".into()],
    };
    let rules = vec![
        rule(0, "add", 1, FaultAction::Disconnect),
        rule(1, "add", 2, FaultAction::Malformed),
        rule(2, "echo", 1, FaultAction::ToolsChanged(change)),
    ];
    let plan = Arc::new(FaultPlan::new(rules, 0, "t"));
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let upstream = Upstream::Stdio {
        command: env!("CARGO_BIN_EXE_mcpeval").into(),
        args: vec!["demo-server".into()],
        env: vec![],
        cwd: None,
    };
    let options = ProxyOptions {
        faults: Some(plan.clone()),
        ..ProxyOptions::default()
    };
    let proxy = Proxy::start_with_options("demo", upstream, &recorder, logs.path(), options)
        .await
        .unwrap();
    let client = Client {
        http: mcpeval::tls::client_builder().build().unwrap(),
        url: proxy.url().to_owned(),
    };

    // A server that may change its tools says so; the demo server itself does not.
    let (first, answer) = client.initialize().await;
    assert_eq!(
        answer["result"]["capabilities"]["tools"]["listChanged"], true,
        "{answer}"
    );

    // disconnect: no answer, the connection closed.
    let add = Client::call(1, "add", json!({"a": 1, "b": 2}));
    let reply = match client.try_post(Some(&first), add.clone()).await {
        Ok(reply) => reply.text().await.map(|_| ()),
        Err(error) => Err(error),
    };
    let error = reply.expect_err("the connection closed without an answer");
    assert!(
        format!("{error:?}").contains("IncompleteMessage"),
        "{error:?}"
    );
    // The session is gone: its next request is refused.
    let echo = Client::call(2, "echo", json!({"text": "hi"}));
    let refused = client.post(Some(&first), echo.clone()).await;
    assert_eq!(refused.status(), 404);

    // A new initialize works; malformed: HTTP 200, a body that is not JSON-RPC.
    let (second, _) = client.initialize().await;
    let reply = client.post(Some(&second), add.clone()).await;
    assert_eq!(reply.status(), 200);
    let body = reply.text().await.unwrap();
    assert!(
        serde_json::from_str::<Value>(&body).is_err(),
        "not JSON: {body}"
    );
    assert!(body.contains("injected malformed"), "{body}");

    // toolsChanged: the call is the server's; the agent is told; the next list changed.
    let answer: Value = client.post(Some(&second), echo).await.json().await.unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "hi");
    let stream = (client.http.get(&client.url))
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &second)
        .send()
        .await
        .unwrap();
    let mut stream = stream.bytes_stream();
    let first_event = tokio::time::timeout(
        Duration::from_secs(10),
        futures::StreamExt::next(&mut stream),
    )
    .await
    .expect("an event on the standalone stream")
    .unwrap()
    .unwrap();
    let event = String::from_utf8_lossy(&first_event);
    assert!(
        event.contains("notifications/tools/list_changed"),
        "{event}"
    );
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let listed: Value = client.post(Some(&second), list).await.json().await.unwrap();
    let names: Vec<&str> = (listed["result"]["tools"].as_array().unwrap().iter())
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"multiply") && !names.contains(&"delete_user"),
        "{names:?}"
    );
    let deleted = Client::call(4, "delete_user", json!({"id": "1"}));
    let answer: Value = client
        .post(Some(&second), deleted)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer["error"]["message"], "Unknown tool: delete_user",
        "{answer}"
    );

    drop(stream);
    proxy.shutdown().await;
    let trace = recorder.trace();
    let faults: Vec<(String, Option<FaultKind>)> = (trace.calls.iter())
        .map(|call| (call.name.clone(), call.injected.as_ref().map(|i| i.fault)))
        .collect();
    assert_eq!(
        faults,
        [
            ("add".to_owned(), Some(FaultKind::Disconnect)),
            ("add".to_owned(), Some(FaultKind::Malformed)),
            ("echo".to_owned(), Some(FaultKind::ToolsChanged)),
            ("delete_user".to_owned(), Some(FaultKind::RemovedTool)),
        ]
    );
    let listed = &trace.discovery[0];
    assert_eq!(
        listed.injected.as_ref().map(|i| i.fault),
        Some(FaultKind::ToolsChanged)
    );
    let notes = plan.notes();
    assert_eq!((notes[0].matched, notes[0].injected), (2, 1));
}
