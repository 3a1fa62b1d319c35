//! The proxy's streamable HTTP endpoint as an agent's HTTP client sees it: a quick answer
//! comes back as one JSON body, anything sent before the answer (or a slow answer) as an
//! SSE stream, a server's requests made for a call on that call's stream, messages outside
//! a request on the standalone GET stream, and the HTTP errors of the transport. Plain
//! HTTP requests, no MCP client library.

use crate::support;

use std::time::Duration;

use mcpeval::proxy::{CallRecorder, Proxy};
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};
use support::peers::test_server_upstream;
use support::setup::Proxied;

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// A bare streamable HTTP client holding one session.
struct Raw {
    client: reqwest::Client,
    url: String,
    session: String,
}

impl Raw {
    async fn open(url: &str) -> Self {
        let client = mcpeval::tls::client_builder().build().unwrap();
        let response = client
            .post(url)
            .header("accept", ACCEPT_BOTH)
            .json(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"sampling": {}, "roots": {}},
                "clientInfo": {"name": "raw", "version": "1.0.0"}}}),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(content_type(&response), "application/json");
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let init: Value = response.json().await.unwrap();
        assert_eq!(init["id"], 0);
        assert!(init["result"]["serverInfo"].is_object(), "{init}");
        let raw = Self {
            client,
            url: url.to_owned(),
            session,
        };
        let initialized = raw
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(initialized.status(), 202);
        raw
    }

    async fn post(&self, body: Value) -> reqwest::Response {
        self.client
            .post(&self.url)
            .header("accept", ACCEPT_BOTH)
            .header("mcp-session-id", &self.session)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Opens the standalone SSE stream (GET).
    async fn open_stream(&self) -> reqwest::Response {
        let stream = self
            .client
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &self.session)
            .send()
            .await
            .unwrap();
        assert_eq!(stream.status(), 200);
        assert!(content_type(&stream).starts_with("text/event-stream"));
        stream
    }

    async fn call(&self, id: u64, name: &str, arguments: Value, meta: Value) -> reqwest::Response {
        self.post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}}))
            .await
    }
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// The JSON messages of a finished SSE body.
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

/// Reads an SSE response until a message matching `wanted` arrives (within 10 s). `text`
/// holds what was read so far; what it returns is taken out of it.
async fn read_until(
    response: &mut reqwest::Response,
    text: &mut String,
    mut wanted: impl FnMut(&Value) -> bool,
) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        // Only complete events (ending in a blank line) are parsed.
        if let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            match events(&event).into_iter().find(&mut wanted) {
                Some(found) => return found,
                None => continue,
            }
        }
        let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(chunk) => chunk.unwrap(),
            Err(_) => panic!("the message did not arrive within 10 s; unread: {text:?}"),
        };
        let Some(chunk) = chunk else {
            panic!("the stream ended before the message arrived; unread: {text:?}")
        };
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quick_answer_comes_back_as_one_json_body() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    let response = raw.call(1, "echo", json!({"text": "hi"}), json!({})).await;
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "application/json");
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["content"][0]["text"], "echo: hi",
        "{answer}"
    );
    // A JSON-RPC error of the server is a JSON answer too.
    let response = raw.call(2, "broken", json!({}), json!({})).await;
    assert_eq!(content_type(&response), "application/json");
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["id"], 2);
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_before_the_answer_makes_the_reply_an_sse_stream() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    let response = raw
        .call(
            7,
            "slow",
            json!({"steps": 3, "ms": 20}),
            json!({"progressToken": "agent-token"}),
        )
        .await;
    assert_eq!(response.status(), 200);
    assert!(content_type(&response).starts_with("text/event-stream"));
    let messages = events(&response.text().await.unwrap());
    assert_eq!(messages.len(), 4, "{messages:?}");
    for (step, message) in messages[..3].iter().enumerate() {
        assert_eq!(message["method"], "notifications/progress");
        assert_eq!(message["params"]["progressToken"], "agent-token");
        assert_eq!(
            message["params"]["progress"].as_f64(),
            Some(step as f64 + 1.0)
        );
    }
    assert_eq!(messages[3]["id"], 7);
    assert_eq!(messages[3]["result"]["content"][0]["text"], "done");
    setup.stop().await;
}

/// Calls `ask` and answers its sampling and roots requests, which must arrive on the
/// call's own SSE stream (this client opens no GET stream).
async fn ask_answering_on_the_calls_own_stream(url: &str) {
    let raw = Raw::open(url).await;
    let mut response = raw.call(8, "ask", json!({}), json!({})).await;
    assert!(content_type(&response).starts_with("text/event-stream"));
    let mut body = String::new();
    for (method, answer) in [
        (
            "sampling/createMessage",
            json!({"model": "m", "role": "assistant",
                "content": {"type": "text", "text": "4"}}),
        ),
        (
            "roots/list",
            json!({"roots": [{"uri": "file:///w", "name": "w"}]}),
        ),
    ] {
        let request = read_until(&mut response, &mut body, |m| m["method"] == method).await;
        let answered = raw
            .post(json!({"jsonrpc": "2.0", "id": request["id"], "result": answer}))
            .await;
        assert_eq!(answered.status(), 202);
    }
    let result = read_until(&mut response, &mut body, |m| m["id"] == 8).await;
    assert_eq!(
        result["result"]["structuredContent"]["roots"]["roots"][0]["name"], "w",
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_made_for_a_call_ride_that_calls_own_stream() {
    let setup = Proxied::start().await;
    ask_answering_on_the_calls_own_stream(setup.proxy.url()).await;
    setup.stop().await;
}

/// Over stdio nothing ties a server's request to a call: it rides the latest open one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_of_a_stdio_server_ride_the_open_calls_stream() {
    let logs = tempfile::tempdir().unwrap();
    let upstream = test_server_upstream();
    let proxy = Proxy::start("stdio", upstream, &CallRecorder::new(), logs.path())
        .await
        .unwrap();
    ask_answering_on_the_calls_own_stream(proxy.url()).await;
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_answer_comes_on_an_sse_stream_opened_before_it() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    let started = std::time::Instant::now();
    let response = raw
        .call(3, "slow", json!({"steps": 1, "ms": 1500}), json!({}))
        .await;
    // The headers come before the answer: a client's header timeout never hits a long call.
    assert!(started.elapsed() < Duration::from_millis(1400));
    assert!(content_type(&response).starts_with("text/event-stream"));
    let messages = events(&response.text().await.unwrap());
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["id"], 3);
    assert_eq!(messages[0]["result"]["content"][0]["text"], "done");
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_hangs_up_mid_call_cancels_it_on_the_server() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    let mut response = raw
        .call(
            4,
            "slow",
            json!({"steps": 600, "ms": 50}),
            json!({"progressToken": 1}),
        )
        .await;
    read_until(&mut response, &mut String::new(), |m| {
        m["method"] == "notifications/progress"
    })
    .await;
    drop(response);
    setup.wait_for_cancellation(Duration::from_secs(10)).await;
    setup.stop().await;
}

/// The transport allows an answer only on its request's own stream; rmcp drops the answer
/// to a cancelled request, and the proxy must not put it anywhere else either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_to_a_call_the_agent_hung_up_on_goes_nowhere() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    let mut stream = raw.open_stream().await;
    let mut call = raw
        .call(
            4,
            "slow",
            json!({"steps": 600, "ms": 50}),
            json!({"progressToken": 1}),
        )
        .await;
    read_until(&mut call, &mut String::new(), |m| {
        m["method"] == "notifications/progress"
    })
    .await;
    drop(call);
    setup.wait_for_cancellation(Duration::from_secs(10)).await;
    // Something for the standalone stream after the cancelled call's answer.
    tokio::time::sleep(Duration::from_millis(200)).await;
    raw.post(
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe",
        "params": {"uri": "test://doc/1"}}),
    )
    .await;
    let mut seen = Vec::new();
    read_until(&mut stream, &mut String::new(), |m| {
        seen.push(m.clone());
        m["method"] == "notifications/resources/updated"
    })
    .await;
    assert!(
        seen.iter().all(|m| m.get("id").is_none()),
        "an answer reached the standalone stream: {seen:?}"
    );
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_outside_a_request_wait_for_the_standalone_stream() {
    let setup = Proxied::start().await;
    let raw = Raw::open(setup.proxy.url()).await;
    // The server sends `resources/updated` 50 ms after the subscription, before the
    // agent has a GET stream open: it is kept and delivered once the stream opens.
    let response = raw
        .post(
            json!({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe",
            "params": {"uri": "test://doc/1"}}),
        )
        .await;
    assert_eq!(response.status(), 200);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut stream = raw.open_stream().await;
    let updated = read_until(&mut stream, &mut String::new(), |m| {
        m["method"] == "notifications/resources/updated"
    })
    .await;
    assert_eq!(updated["params"]["uri"], "test://doc/1");
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transport_errors_have_their_http_status() {
    let setup = Proxied::start().await;
    let url = setup.proxy.url().to_owned();
    let client = mcpeval::tls::client_builder().build().unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let send = |request: reqwest::RequestBuilder| async move {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    };

    let post = || client.post(&url).header("accept", ACCEPT_BOTH);
    let cases = [
        ("no session id", post().json(&list), 400),
        (
            "an unknown session id",
            post()
                .header("mcp-session-id", "no-such-session")
                .json(&list),
            404,
        ),
        (
            "a client that does not accept SSE",
            client
                .post(&url)
                .header("accept", "application/json")
                .json(&list),
            406,
        ),
        (
            "a body that is not JSON",
            post().header("content-type", "text/plain").body("hello"),
            415,
        ),
        (
            "a malformed JSON body",
            post()
                .header("content-type", "application/json")
                .body("{not json"),
            400,
        ),
        (
            "a foreign Host (DNS rebinding)",
            post().header("host", "evil.example").json(&list),
            403,
        ),
        (
            "an unknown protocol version",
            post()
                .header("mcp-protocol-version", "1999-01-01")
                .json(&list),
            400,
        ),
        (
            "a GET without a session id",
            client.get(&url).header("accept", "text/event-stream"),
            400,
        ),
    ];
    for (what, request, expected) in cases {
        let (status, body) = send(request).await;
        assert_eq!(status, expected, "{what}: {body}");
        if what == "a malformed JSON body" {
            assert!(body.contains("-32700"), "{body}");
        }
    }

    // DELETE ends the session: its id is unknown afterwards.
    let raw = Raw::open(&url).await;
    let delete = client.delete(&url).header("mcp-session-id", &raw.session);
    assert_eq!(send(delete).await.0, 202);
    let mut status = 0;
    for _ in 0..50 {
        status = raw.post(list.clone()).await.status().as_u16();
        if status == 404 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 404);
    setup.stop().await;
}
