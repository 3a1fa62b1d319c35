//! Tool calls through the recording proxies: results, errors and bad arguments fed back,
//! several calls, turns and servers, `maxSteps`, and an MCP server that cannot be reached.

use crate::support;

use mcpeval::agent::ProxiedServer;
use mcpeval::llm::TokenUsage;
use serde_json::json;
use support::fake_openai::{FakeOpenAi, Reply, args, text, tool_calls};
use support::setup::Proxied;

use super::{KEY, call, calls, offered, run_with, server, tool_messages};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_tool_call_goes_through_the_proxy_and_its_result_is_fed_back() {
    let setup = Proxied::start().await;
    let fake = FakeOpenAi::start(vec![
        tool_calls(&[("c1", "echo", args(json!({"text": "hi"})))]),
        text("done"),
    ])
    .await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        (run.answer.as_str(), run.turns, run.tool_calls),
        ("done", 2, 1)
    );
    assert_eq!(
        run.usage,
        TokenUsage {
            prompt_tokens: 30,
            completion_tokens: 7,
            total_tokens: 37
        }
    );
    assert_eq!(
        calls(&setup.recorder),
        [call("echo", json!({"text": "hi"}), "ok")]
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    let first = &requests[0].body;
    assert_eq!(first["model"], "gpt-test");
    assert_eq!(
        first["messages"],
        json!([{"role": "user", "content": "Do the task."}])
    );
    assert_eq!(
        offered(first),
        [
            "echo", "fail", "broken", "slow", "ask", "confirm", "withdraw", "notify", "ordered",
            "deploy", "sign_in"
        ]
    );
    assert_eq!(
        first["tools"][0],
        json!({"type": "function", "function": {
            "name": "echo", "description": "Echoes its text",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}}}})
    );
    let second = &requests[1].body;
    assert_eq!(second["messages"][1]["role"], "assistant");
    assert_eq!(second["messages"][1]["tool_calls"][0]["id"], "c1");
    assert_eq!(
        tool_messages(second),
        [("c1".to_owned(), "echo: hi".to_owned())]
    );
    assert!(run.to_outcome().passed());
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_calls_in_one_turn_are_made_in_order() {
    let setup = Proxied::start().await;
    let fake = FakeOpenAi::start(vec![
        tool_calls(&[
            ("a", "echo", args(json!({"text": "1"}))),
            ("b", "echo", args(json!({"text": "2"}))),
        ]),
        text("both done"),
    ])
    .await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        calls(&setup.recorder),
        [
            call("echo", json!({"text": "1"}), "ok"),
            call("echo", json!({"text": "2"}), "ok")
        ]
    );
    assert_eq!(
        tool_messages(&fake.bodies()[1]),
        [
            ("a".to_owned(), "echo: 1".to_owned()),
            ("b".to_owned(), "echo: 2".to_owned())
        ]
    );
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_turns_carry_the_whole_conversation() {
    let setup = Proxied::start().await;
    let fake = FakeOpenAi::start(vec![
        tool_calls(&[("t1", "echo", args(json!({"text": "first"})))]),
        tool_calls(&[("t2", "echo", args(json!({"text": "second"})))]),
        text("all done"),
    ])
    .await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!((run.turns, run.answer.as_str()), (3, "all done"));
    assert_eq!(run.usage.total_tokens, 25 + 25 + 12);
    let bodies = fake.bodies();
    assert_eq!(bodies[2]["messages"].as_array().map(Vec::len), Some(5));
    assert_eq!(
        tool_messages(&bodies[2]),
        [
            ("t1".to_owned(), "echo: first".to_owned()),
            ("t2".to_owned(), "echo: second".to_owned())
        ]
    );
    assert_eq!(calls(&setup.recorder).len(), 2);
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_of_two_servers_are_offered_with_prefixes_only_for_shared_names() {
    let alpha = Proxied::start().await;
    let beta = Proxied::start().await;
    let fake = FakeOpenAi::start(vec![
        tool_calls(&[
            ("1", "beta__echo", args(json!({"text": "to beta"}))),
            ("2", "alpha__echo", args(json!({"text": "to alpha"}))),
            ("3", "fail", args(json!({}))),
        ]),
        text("done"),
    ])
    .await;
    let servers = [
        server("alpha", &alpha, &["echo", "fail"]),
        server("beta", &beta, &["echo"]),
    ];
    let run = run_with(&fake, &servers, 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        offered(&fake.bodies()[0]),
        ["alpha__echo", "fail", "beta__echo"]
    );
    assert_eq!(
        calls(&alpha.recorder),
        [
            call("echo", json!({"text": "to alpha"}), "ok"),
            call("fail", json!({}), "is_error")
        ]
    );
    assert_eq!(
        calls(&beta.recorder),
        [call("echo", json!({"text": "to beta"}), "ok")]
    );
    alpha.stop().await;
    beta.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_errors_and_protocol_errors_are_fed_back_as_text() {
    let setup = Proxied::start().await;
    let fake = FakeOpenAi::start(vec![
        tool_calls(&[
            ("f", "fail", args(json!({}))),
            ("b", "broken", args(json!({}))),
            ("n", "no_such_tool", args(json!({}))),
        ]),
        text("I could not do it"),
    ])
    .await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 20).await;

    assert!(run.passed(), "{}", run.reason());
    let fed_back = tool_messages(&fake.bodies()[1]);
    assert_eq!(fed_back[0], ("f".to_owned(), "Error: it failed".to_owned()));
    assert_eq!(
        fed_back[1],
        ("b".to_owned(), "Error: broken on purpose".to_owned())
    );
    assert!(
        fed_back[2]
            .1
            .starts_with("Error: there is no tool `no_such_tool`"),
        "{fed_back:?}"
    );
    assert_eq!(
        calls(&setup.recorder),
        [
            call("fail", json!({}), "is_error"),
            call("broken", json!({}), "error")
        ]
    );
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_may_be_a_string_or_an_object_and_bad_json_is_fed_back() {
    let setup = Proxied::start().await;
    // A sparse but compatible reply: no id, created, index or type; an unknown finish_reason.
    let sparse = Reply::Json(json!({"choices": [{"message": {"tool_calls": [
        {"function": {"name": "echo", "arguments": {"text": "object"}}},
        {"function": {"name": "echo", "arguments": "{\"text\": \"string\"}"}},
        {"function": {"name": "echo", "arguments": "{oops"}}
    ]}, "finish_reason": "brand_new_reason"}]}));
    let fake = FakeOpenAi::start(vec![sparse, text("ok")]).await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        calls(&setup.recorder),
        [
            call("echo", json!({"text": "object"}), "ok"),
            call("echo", json!({"text": "string"}), "ok")
        ]
    );
    let body = &fake.bodies()[1];
    let fed_back = tool_messages(body);
    assert_eq!(
        fed_back[0],
        ("call_1_1".to_owned(), "echo: object".to_owned())
    );
    assert_eq!(fed_back[1].1, "echo: string");
    assert!(fed_back[2].1.contains("not valid JSON"), "{fed_back:?}");
    // Sent back in the canonical form: a type and string arguments.
    let echoed = &body["messages"][1]["tool_calls"][0];
    assert_eq!(echoed["type"], "function");
    assert_eq!(echoed["function"]["arguments"], r#"{"text":"object"}"#);
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_fails_when_max_steps_are_reached() {
    let setup = Proxied::start().await;
    let again = || tool_calls(&[("x", "echo", args(json!({"text": "again"})))]);
    let fake = FakeOpenAi::start(vec![again(), again(), again()]).await;
    let run = run_with(&fake, &[server("test", &setup, &[])], 2).await;

    assert!(!run.passed());
    assert!(
        run.reason().contains("maxSteps (2) reached"),
        "{}",
        run.reason()
    );
    assert_eq!((run.turns, fake.requests().len()), (2, 2));
    assert_eq!(calls(&setup.recorder).len(), 2);
    assert!(!run.to_outcome().passed());
    setup.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_mcp_server_fails_the_run_with_its_name() {
    let fake = FakeOpenAi::start(vec![text("never")]).await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    let servers = [ProxiedServer {
        name: "gone".into(),
        url,
        allowed_tools: vec![],
    }];
    let run = run_with(&fake, &servers, 20).await;

    assert!(!run.passed());
    assert!(
        run.reason().contains("cannot connect to `gone`"),
        "{}",
        run.reason()
    );
    assert!(fake.requests().is_empty());
}
