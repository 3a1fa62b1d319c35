//! Everything passes through the proxy unchanged: each behaviour is checked through the
//! proxy against the direct answer of the same server (our own test server, in-process,
//! reached over streamable HTTP).

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ClientRequest;
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};
use support::agent::{Agent, Received, TestAgent, connect, ok, request};
use support::server::from_json;
use support::setup::Proxied;

struct Pair {
    direct: Agent,
    proxied: Agent,
    /// What the proxied agent received from the server side.
    received: Arc<Received>,
}

async fn pair(setup: &Proxied) -> Pair {
    let agent = TestAgent::new("proxied");
    let received = agent.received.clone();
    Pair {
        direct: connect(TestAgent::new("direct"), &setup.server_url).await,
        proxied: connect(agent, setup.proxy.url()).await,
        received,
    }
}

impl Pair {
    /// Sends the same request both ways and checks the answers are equal; returns it.
    async fn same(&self, method: &str, params: Value) -> Result<Value, Value> {
        let direct = request(&self.direct, method, params.clone()).await;
        let proxied = request(&self.proxied, method, params.clone()).await;
        assert_eq!(proxied, direct, "{method} {params}");
        proxied
    }

    async fn close(self) {
        let _ = self.direct.cancel().await;
        let _ = self.proxied.cancel().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_shows_the_real_servers_identity_capabilities_and_instructions() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    let direct = serde_json::to_value(agents.direct.peer().peer_info().unwrap()).unwrap();
    let proxied = serde_json::to_value(agents.proxied.peer().peer_info().unwrap()).unwrap();
    assert_eq!(proxied, direct);
    assert_eq!(proxied["serverInfo"]["name"], "mcpeval-test-server");
    assert_eq!(proxied["serverInfo"]["version"], "1.2.3");
    assert_eq!(proxied["instructions"], "Use the echo tool.");
    assert_eq!(proxied["protocolVersion"], "2025-06-18");
    assert_eq!(proxied["capabilities"]["resources"]["subscribe"], true);
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_client_info_and_capabilities_reach_the_server() {
    let setup = Proxied::start().await;
    let agent = connect(TestAgent::new("the-agent"), setup.proxy.url()).await;
    let clients = setup.observed.clients.lock().unwrap().clone();
    assert_eq!(clients.len(), 1, "{clients:?}");
    assert_eq!(clients[0]["clientInfo"]["name"], "the-agent");
    assert_eq!(clients[0]["clientInfo"]["version"], "0.0.7");
    assert_eq!(clients[0]["capabilities"]["roots"]["listChanged"], true);
    assert!(
        clients[0]["capabilities"]["sampling"].is_object(),
        "{clients:?}"
    );
    assert!(
        clients[0]["capabilities"]["elicitation"]["form"].is_object(),
        "{clients:?}"
    );
    let _ = agent.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_results_pass_through_with_key_order() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    let listed = agents.same("tools/list", json!({})).await.unwrap();
    assert_eq!(listed["tools"].as_array().unwrap().len(), 11);
    let echo = agents
        .same(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await
        .unwrap();
    assert_eq!(echo["content"][0]["text"], "echo: hi");
    let failed = agents
        .same("tools/call", json!({"name": "fail", "arguments": {}}))
        .await
        .unwrap();
    assert_eq!(failed["isError"], true);
    let ordered = agents
        .same("tools/call", json!({"name": "ordered"}))
        .await
        .unwrap();
    let text = serde_json::to_string(&ordered["structuredContent"]).unwrap();
    assert_eq!(text, r#"{"zeta":1,"alpha":{"b":2,"a":1}}"#);
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_errors_reach_the_agent_unchanged() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    let broken = agents
        .same("tools/call", json!({"name": "broken"}))
        .await
        .unwrap_err();
    assert_eq!(broken["code"], -32042);
    assert_eq!(broken["message"], "broken on purpose");
    assert_eq!(
        serde_json::to_string(&broken["data"]).unwrap(),
        r#"{"zeta":1,"alpha":[true,null]}"#
    );
    let missing = agents
        .same("resources/read", json!({"uri": "test://nothing"}))
        .await
        .unwrap_err();
    assert_eq!(missing["code"], -32002);
    assert_eq!(missing["data"]["uri"], "test://nothing");
    let prompt = agents
        .same("prompts/get", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert_eq!(prompt["code"], -32602);
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_templates_paginate_with_the_servers_cursors() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    for (method, key, total) in [
        ("resources/list", "resources", 5),
        ("resources/templates/list", "resourceTemplates", 3),
    ] {
        let mut cursor: Option<String> = None;
        let mut seen = 0;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = agents.same(method, params).await.unwrap();
            seen += page[key].as_array().unwrap().len();
            match page["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        assert_eq!(seen, total, "{method}");
    }
    let read = agents
        .same("resources/read", json!({"uri": "test://doc/3"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "content of test://doc/3");
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_completion_logging_and_ping_pass_through() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    agents.same("prompts/list", json!({})).await.unwrap();
    let prompt = agents
        .same(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        )
        .await
        .unwrap();
    assert_eq!(prompt["messages"][0]["content"]["text"], "Say hello to Ada");
    let completion = agents
        .same(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"},
                   "argument": {"name": "name", "value": "al"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        completion["completion"]["values"],
        json!(["alice", "albert"])
    );
    agents
        .same("logging/setLevel", json!({"level": "warning"}))
        .await
        .unwrap();
    let levels: Vec<String> = setup.observed.notifications.lock().unwrap().clone();
    assert_eq!(levels, ["setLevel \"warning\"", "setLevel \"warning\""]);
    ok(&agents.proxied, "ping", json!({})).await;
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_and_server_notifications_reach_the_agent() {
    let setup = Proxied::start().await;
    let agent = TestAgent::new("proxied");
    let received = agent.received.clone();
    let proxied = connect(agent, setup.proxy.url()).await;
    ok(
        &proxied,
        "resources/subscribe",
        json!({"uri": "test://doc/1"}),
    )
    .await;
    let updated = received
        .wait_for("notifications/resources/updated", 1)
        .await;
    assert_eq!(updated[0]["params"]["uri"], "test://doc/1");
    ok(
        &proxied,
        "resources/unsubscribe",
        json!({"uri": "test://doc/1"}),
    )
    .await;

    ok(&proxied, "tools/call", json!({"name": "notify"})).await;
    let message = received.wait_for("notifications/message", 1).await;
    assert_eq!(message[0]["params"]["level"], "info");
    assert_eq!(
        serde_json::to_string(&message[0]["params"]["data"]).unwrap(),
        r#"{"b":1,"a":2}"#
    );
    for method in [
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    ] {
        received.wait_for(method, 1).await;
    }
    let _ = proxied.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_list_changed_reaches_the_server() {
    let setup = Proxied::start().await;
    let proxied = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    proxied.peer().notify_roots_list_changed().await.unwrap();
    let mut seen = false;
    for _ in 0..400 {
        let notes = setup.observed.notifications.lock().unwrap().clone();
        if notes
            .iter()
            .any(|n| n == "notifications/roots/list_changed")
        {
            seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(seen, "the server never saw roots/list_changed");
    let _ = proxied.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_agent_under_its_own_token() {
    let setup = Proxied::start().await;
    let agent = TestAgent::new("proxied");
    let received = agent.received.clone();
    let proxied = connect(agent, setup.proxy.url()).await;
    // Requests the proxy answers itself move the agent's token counter ahead of the
    // proxy's own, so equal tokens below are not a coincidence.
    for _ in 0..3 {
        request(&proxied, "tasks/get", json!({"taskId": "none"}))
            .await
            .unwrap_err();
    }
    let call: ClientRequest = from_json(json!({"method": "tools/call",
        "params": {"name": "slow", "arguments": {"steps": 3, "ms": 20}}}));
    let handle = proxied
        .peer()
        .send_request_with_option(call, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = serde_json::to_value(&handle.progress_token).unwrap();
    let result = handle.await_response().await.unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        "done"
    );
    let progress = received.wait_for("notifications/progress", 3).await;
    for (step, note) in progress.iter().enumerate() {
        assert_eq!(note["params"]["progressToken"], token, "{progress:?}");
        assert_eq!(note["params"]["total"], 3.0);
        assert_eq!(note["params"]["message"], format!("step {}", step + 1));
    }
    let _ = proxied.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_by_the_agent_reaches_the_server() {
    let setup = Proxied::start().await;
    let agent = TestAgent::new("proxied");
    let received = agent.received.clone();
    let proxied = connect(agent, setup.proxy.url()).await;
    let call: ClientRequest = from_json(json!({"method": "tools/call",
        "params": {"name": "slow", "arguments": {"steps": 600, "ms": 100}}}));
    let handle = proxied
        .peer()
        .send_request_with_option(call, PeerRequestOptions::no_options())
        .await
        .unwrap();
    received.wait_for("notifications/progress", 1).await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    setup.wait_for_cancellation(Duration::from_secs(20)).await;
    let _ = proxied.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_and_roots_requests_are_relayed_to_the_agent_mid_call() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    let received = agents.received.clone();
    let asked = agents
        .same("tools/call", json!({"name": "ask"}))
        .await
        .unwrap();
    assert_eq!(
        asked["structuredContent"]["sampled"]["content"]["text"],
        "4"
    );
    assert_eq!(asked["structuredContent"]["sampled"]["model"], "fake-model");
    assert_eq!(
        asked["structuredContent"]["roots"]["roots"][0]["uri"],
        "file:///work"
    );
    let methods: Vec<Value> = received
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r["method"].clone())
        .collect();
    assert_eq!(methods, ["sampling/createMessage", "roots/list"]);
    agents.close().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_requests_are_relayed_to_the_agent_and_answered() {
    let setup = Proxied::start().await;
    let agents = pair(&setup).await;
    let received = agents.received.clone();
    let confirmed = agents
        .same("tools/call", json!({"name": "confirm"}))
        .await
        .unwrap();
    let answer = &confirmed["structuredContent"]["answer"];
    assert_eq!(answer["action"], "accept", "{confirmed}");
    assert_eq!(answer["content"]["confirm"], true, "{confirmed}");
    let requests = received.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["method"], "elicitation/create");
    assert_eq!(requests[0]["params"]["message"], "Deploy to production?");
    assert_eq!(
        requests[0]["params"]["requestedSchema"]["required"][0],
        "confirm"
    );
    agents.close().await;
    setup.stop().await;
}

/// The server cancels its own sampling request: the agent's handler for it is cancelled.
/// (Both hops number their requests alike here, so this cannot tell the two ids apart.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_by_the_server_reaches_the_agent() {
    let setup = Proxied::start().await;
    let agent = TestAgent::new("proxied");
    let received = agent.received.clone();
    let proxied = connect(agent, setup.proxy.url()).await;
    ok(&proxied, "tools/call", json!({"name": "withdraw"})).await;
    let mut cancelled = Vec::new();
    for _ in 0..200 {
        cancelled = received.cancelled.lock().unwrap().clone();
        if !cancelled.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(cancelled.len(), 1, "the agent never saw the cancellation");
    assert_eq!(cancelled[0]["method"], "sampling/createMessage");
    let _ = proxied.cancel().await;
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_meta_reaches_the_server() {
    let setup = Proxied::start().await;
    let proxied = connect(TestAgent::new("proxied"), setup.proxy.url()).await;
    ok(
        &proxied,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"},
               "_meta": {"claudecode/toolUseId": "toolu_01"}}),
    )
    .await;
    let meta = setup.observed.call_meta.lock().unwrap().clone();
    assert_eq!(meta[0]["claudecode/toolUseId"], "toolu_01", "{meta:?}");
    let _ = proxied.cancel().await;
    setup.stop().await;
}
