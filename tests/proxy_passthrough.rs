//! Everything passes through the proxy unchanged: each behaviour is checked through the
//! proxy against the direct answer of the same server.

mod support;

use serde_json::{Value, json};
use support::agent::{TestAgent, connect, ok, request};
use support::setup::Proxied;

/// Sends the same request directly and through the proxy; returns both answers.
async fn both(setup: &Proxied, method: &str, params: Value) -> (Result<Value, Value>, Result<Value, Value>) {
    let direct = connect(TestAgent::new("direct"), &setup.server_url).await;
    let proxied = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    let d = request(&direct, method, params.clone()).await;
    let p = request(&proxied, method, params).await;
    let _ = direct.cancel().await;
    let _ = proxied.cancel().await;
    (d, p)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_shows_the_real_servers_identity_capabilities_and_instructions() {
    let setup = Proxied::start().await;
    let direct = connect(TestAgent::new("direct"), &setup.server_url).await;
    let proxied = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    let d = serde_json::to_value(direct.peer().peer_info().unwrap()).unwrap();
    let p = serde_json::to_value(proxied.peer().peer_info().unwrap()).unwrap();
    assert_eq!(p, d);
    assert_eq!(p["serverInfo"]["name"], "mcpeval-test-server");
    assert_eq!(p["instructions"], "Use the echo tool.");
    assert_eq!(p["protocolVersion"], "2025-06-18");
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_call_results_pass_through() {
    let setup = Proxied::start().await;
    for params in [
        json!({"name": "echo", "arguments": {"text": "hi"}}),
        json!({"name": "fail", "arguments": {}}),
        json!({"name": "ordered"}),
    ] {
        let (d, p) = both(&setup, "tools/call", params.clone()).await;
        assert_eq!(p, d, "{params}");
        assert!(p.is_ok(), "{params}: {p:?}");
    }
    setup.stop().await;
}
