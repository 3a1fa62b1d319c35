//! The scripted user as an rmcp server meets it: the test server asks with rmcp's own typed
//! elicitation (`Peer::elicit`) and URL elicitation (`Peer::elicit_url`), which check what
//! the client declared. With a scripted user the proxy declares both modes and answers
//! itself (the agent, which declares only forms, is never asked); without one the agent's
//! own capabilities stand, its answers are relayed, and every elicitation is recorded.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use mcpeval::proxy::{CallRecorder, Proxy, ProxyHandle, ProxyOptions, Upstream};
use mcpeval::trace::{AnsweredBy, ElicitationAction, ElicitationMode};
use mcpeval::user::{ScriptedUser, Unmatched, UserRule};
use serde_json::{Value, json};
use support::agent::{TestAgent, connect, ok};
use support::peers::test_server_binary;

fn rule(key: &str, tool: &str, action: ElicitationAction, content: Option<Value>) -> UserRule {
    UserRule {
        key_path: key.into(),
        server: Some("local".into()),
        tool: Some(tool.into()),
        mode: None,
        message: None,
        properties: Vec::new(),
        action,
        content: content.and_then(|c| c.as_object().cloned()),
    }
}

async fn start(user: Option<ScriptedUser>, logs: &Path, recorder: &CallRecorder) -> ProxyHandle {
    let upstream = Upstream::Stdio {
        command: test_server_binary().display().to_string(),
        args: Vec::new(),
        env: Vec::new(),
        cwd: None,
    };
    let options = ProxyOptions {
        user: user.map(Arc::new),
        ..ProxyOptions::default()
    };
    Proxy::start_with_options("local", upstream, recorder, logs, options)
        .await
        .unwrap()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_user_answers_an_rmcp_servers_typed_and_url_elicitations() {
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let user = ScriptedUser {
        rules: vec![
            rule(
                "spec.elicitation.rules[0]",
                "deploy",
                ElicitationAction::Accept,
                Some(json!({"confirm": true, "target": "staging"})),
            ),
            rule(
                "spec.elicitation.rules[1]",
                "sign_in",
                ElicitationAction::Accept,
                None,
            ),
        ],
        unmatched: Unmatched::Fail,
    };
    let proxy = start(Some(user), logs.path(), &recorder).await;
    let agent = TestAgent::new("scripted");
    let received = agent.received.clone();
    let agent = connect(agent, proxy.url()).await;
    let deployed = ok(&agent, "tools/call", json!({"name": "deploy"})).await;
    assert_eq!(text(&deployed), "deployed to staging", "{deployed}");
    // The agent declares forms only; the proxy declared URLs too, and answered.
    let signed = ok(&agent, "tools/call", json!({"name": "sign_in"})).await;
    assert_eq!(text(&signed), "sign-in: Accept", "{signed}");
    assert!(
        received.requests.lock().unwrap().is_empty(),
        "the agent was asked"
    );
    let _ = agent.cancel().await;
    proxy.shutdown().await;

    let asked = recorder.trace().elicitations;
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert_eq!(asked[0].mode, ElicitationMode::Form);
    assert_eq!(asked[0].message, "Deploy to production?");
    let schema = asked[0].requested_schema.as_ref().unwrap();
    assert!(schema["properties"]["confirm"].is_object(), "{schema}");
    assert_eq!(asked[0].tool(), Some("deploy"));
    assert_eq!(asked[0].during.as_ref().unwrap().position, Some(1));
    assert_eq!(asked[0].rule.as_deref(), Some("spec.elicitation.rules[0]"));
    assert_eq!(
        asked[0].content,
        Some(json!({"confirm": true, "target": "staging"}))
    );
    assert_eq!(asked[1].mode, ElicitationMode::Url);
    assert_eq!(
        asked[1].url.as_deref(),
        Some("https://example.test/sign-in")
    );
    assert_eq!(asked[1].action, Some(ElicitationAction::Accept));
    assert!(asked.iter().all(|e| e.answered_by == AnsweredBy::Script));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_scripted_user_the_agent_answers_and_its_capabilities_stand() {
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let proxy = start(None, logs.path(), &recorder).await;
    let agent = TestAgent::new("unscripted");
    let received = agent.received.clone();
    let agent = connect(agent, proxy.url()).await;
    let deployed = ok(&agent, "tools/call", json!({"name": "deploy"})).await;
    // The test agent accepts with `confirm: true` and no target.
    assert_eq!(text(&deployed), "deployed to production", "{deployed}");
    let signed = ok(&agent, "tools/call", json!({"name": "sign_in"})).await;
    assert!(text(&signed).starts_with("sign-in failed"), "{signed}");
    assert_eq!(received.requests.lock().unwrap().len(), 1);
    let _ = agent.cancel().await;
    proxy.shutdown().await;

    let asked = recorder.trace().elicitations;
    assert_eq!(asked.len(), 1, "{asked:#?}");
    assert_eq!(asked[0].answered_by, AnsweredBy::Agent);
    assert_eq!(asked[0].action, Some(ElicitationAction::Accept));
    assert_eq!(asked[0].content, Some(json!({"confirm": true})));
}
