//! The proxies refuse requests from web pages: a foreign `Origin` or `Host` gets 403.
//!
//! Both proxies listen on 127.0.0.1, where a page served from a name that resolves there
//! (DNS rebinding) could reach them. Observed before: the MCP proxy answered a foreign
//! `Origin` with 200 and a session, and the LLM proxy checked neither header. Agent
//! programs send no `Origin`; that stays allowed.

use mcpeval::llm_proxy::{LlmApi, LlmProxy, LlmProxyConfig, RecordMode};
use serde_json::json;

use crate::support::setup::Proxied;

/// A case: what is sent, its extra headers, the expected status.
type Case = (&'static str, &'static [(&'static str, &'static str)], u16);

/// The same table for every request kind.
const TABLE: &[Case] = &[
    ("no Origin, as agent programs send", &[], 200),
    (
        "a loopback Origin",
        &[("origin", "http://localhost:5173")],
        200,
    ),
    (
        "a loopback IPv6 Origin",
        &[("origin", "http://[::1]:8080")],
        200,
    ),
    ("a loopback Host", &[("host", "localhost")], 200),
    (
        "a foreign Origin",
        &[("origin", "https://evil.example")],
        403,
    ),
    (
        "a foreign Origin on a loopback-looking name",
        &[("origin", "http://localhost.evil.example")],
        403,
    ),
    ("an opaque Origin", &[("origin", "null")], 403),
    (
        "a foreign Host (DNS rebinding)",
        &[("host", "evil.example")],
        403,
    ),
    (
        "a foreign Origin with a loopback Host",
        &[("host", "127.0.0.1"), ("origin", "http://evil.example")],
        403,
    ),
];

fn with_headers(
    mut request: reqwest::RequestBuilder,
    headers: &[(&str, &str)],
) -> reqwest::RequestBuilder {
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
}

/// Expected: the MCP proxy's `initialize` (POST), the session's stream (GET) and its end
/// (DELETE) follow the table; a refused `initialize` opens no session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_proxy_refuses_foreign_origins_and_hosts() {
    let setup = Proxied::start().await;
    let url = setup.proxy.url().to_owned();
    let client = mcpeval::tls::client_builder().build().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "origin-test", "version": "1"}}});
    for (what, headers, expected) in TABLE {
        let post = client
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize);
        let response = with_headers(post, headers).send().await.unwrap();
        let status = response.status().as_u16();
        let session = response.headers().get("mcp-session-id").cloned();
        let body = response.text().await.unwrap();
        assert_eq!(
            status, *expected,
            "POST initialize with {what}: observed {body}"
        );
        assert_eq!(
            session.is_some(),
            *expected == 200,
            "{what}: a session only when accepted"
        );
        if *expected == 403 {
            assert!(body.starts_with("Forbidden: "), "{what}: {body}");
            continue;
        }
        let session = session.unwrap();
        let get = client
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session);
        let foreign = get
            .header("origin", "https://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status().as_u16(), 403, "GET with a foreign Origin");
        let delete = client.delete(&url).header("mcp-session-id", &session);
        let foreign = delete
            .header("origin", "https://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(
            foreign.status().as_u16(),
            403,
            "DELETE with a foreign Origin"
        );
    }
    setup.stop().await;
}

/// Expected: the LLM proxy refuses by the same table before anything else: a refused model
/// call is answered 403 in the API's error shape and never forwarded; an accepted one goes
/// on (here to an upstream that is not listening, so 502).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_llm_proxy_refuses_foreign_origins_and_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = LlmProxyConfig::new(
        LlmApi::Anthropic,
        dir.path().join("cassette.json"),
        "origin::llm",
    );
    config.mode = RecordMode::Passthrough;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    config.upstream_base_url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let proxy = LlmProxy::start(config).unwrap();
    let url = format!("{}/v1/messages", proxy.base_url());
    let client = mcpeval::tls::client_builder().build().unwrap();
    let body =
        json!({"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "hi"}]});
    for (what, headers, expected) in TABLE {
        let response = with_headers(client.post(&url).json(&body), headers)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        if *expected == 403 {
            assert_eq!(status, 403, "{what}: observed {text}");
            assert!(text.contains("Forbidden: "), "{what}: {text}");
        } else {
            assert_ne!(status, 403, "{what}: refused, observed {text}");
        }
    }
    let outcome = proxy.finish().await;
    let refused = outcome.map(|o| o.refused).unwrap_or_default();
    assert_eq!(
        refused.len(),
        TABLE.iter().filter(|(_, _, status)| *status == 403).count(),
        "every refusal is reported: {refused:?}"
    );
}
