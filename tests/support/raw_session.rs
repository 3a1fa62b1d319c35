//! A bare streamable HTTP MCP client holding one session with a proxy: plain reqwest, no
//! size limit on answers (rmcp's client stops at 16 MiB), for tests of large answers.
#![allow(dead_code)]

use std::time::Duration;

use serde_json::{Value, json};

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

/// One session.
pub struct RawSession {
    client: reqwest::Client,
    url: String,
    session: String,
}

impl RawSession {
    /// Initializes a session with the proxy at `url`; panics if that fails.
    pub async fn open(url: &str) -> Self {
        let client = mcpeval::tls::client_builder().build().unwrap();
        let response = client
            .post(url)
            .header("accept", ACCEPT_BOTH)
            .json(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1.0.0"}}}),
            )
            .send()
            .await
            .unwrap();
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = Self {
            client,
            url: url.to_owned(),
            session,
        };
        session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
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

    /// Calls `tool`; the JSON-RPC answer (`result` or `error`), from a JSON body or an SSE
    /// stream. Panics when no answer comes within 30 s.
    pub async fn call(&self, id: u64, tool: &str, arguments: Value) -> Value {
        let call = self.call_waiting(id, tool, arguments);
        tokio::time::timeout(Duration::from_secs(30), call)
            .await
            .unwrap_or_else(|_| panic!("no answer to tools/call `{tool}` within 30 s"))
    }

    async fn call_waiting(&self, id: u64, tool: &str, arguments: Value) -> Value {
        let response = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}}))
            .await;
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        let body = response.text().await.unwrap();
        if !sse {
            return serde_json::from_str(&body).unwrap();
        }
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|message| message["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id} in the stream"))
    }
}
