//! Token counts (README, "Token cost"). The expected counts were checked against OpenAI's
//! Python tiktoken (`encode_ordinary` with o200k_base's ranks and pattern).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::trace::Advertised;

fn call(kind: CallKind, server: &str, name: &str, outcome: Outcome) -> RecordedCall {
    RecordedCall {
        server: server.into(),
        kind,
        name: name.into(),
        arguments: None,
        outcome,
        start_offset: Duration::ZERO,
        duration: Duration::ZERO,
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    }
}

fn text_result(text: &str) -> Outcome {
    Outcome::Ok {
        result: json!({"content": [{"type": "text", "text": text}]}),
    }
}

#[test]
fn known_strings_have_their_o200k_base_counts() {
    assert_eq!(count(""), 0);
    assert_eq!(count("hello world"), 2);
    assert_eq!(count("Hello, world!"), 4);
    assert_eq!(count("The quick brown fox jumps over the lazy dog."), 10);
    assert_eq!(count("héllo wörld 你好"), 7);
    // A special-token marker in a result is text, not one special token.
    assert_eq!(count("<|endoftext|>"), 7);
}

#[test]
fn a_definition_is_its_name_description_and_input_schema_as_compact_json() {
    let tool = json!({
        "name": "echo",
        "title": "Echo",
        "description": "Echoes its text",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true}
    });
    assert_eq!(
        definition_text(&tool),
        r#"{"name":"echo","description":"Echoes its text","input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}"#
    );
    assert_eq!(definition_tokens(&tool), 33);
    let bare = json!({"name": "ping", "description": null});
    assert_eq!(definition_text(&bare), r#"{"name":"ping"}"#);
}

#[test]
fn a_tool_result_counts_the_text_the_model_receives() {
    let ok = call(CallKind::Tool, "demo", "echo", text_result("hello world"));
    assert_eq!(result_tokens(&ok), Some(2));
    let is_error = call(
        CallKind::Tool,
        "demo",
        "flaky",
        Outcome::IsError {
            result: json!({"content": [{"type": "text", "text": "the service is unavailable"}], "isError": true}),
        },
    );
    assert_eq!(result_tokens(&is_error), Some(4));
    let structured = Outcome::Ok {
        result: json!({"content": [], "structuredContent": {"greeting": "hello world"}}),
    };
    let structured = call(CallKind::Tool, "demo", "greet", structured);
    assert_eq!(
        result_tokens(&structured),
        Some(count(r#"{"greeting":"hello world"}"#))
    );
    let protocol = Outcome::Error {
        code: -32602,
        message: "unknown tool `no_such_tool`".into(),
    };
    assert_eq!(
        result_tokens(&call(CallKind::Tool, "demo", "no_such_tool", protocol)),
        Some(8)
    );
    let read = call(
        CallKind::Resource,
        "demo",
        "demo://readme",
        text_result("a"),
    );
    assert_eq!(result_tokens(&read), None);
}

#[test]
fn trace_tokens_add_up_per_server_and_keep_each_call() {
    let demo = Advertised {
        tools: vec![
            json!({"name": "echo", "description": "Echoes its text", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}),
            json!({"name": "flaky", "description": "Always reports a failure", "inputSchema": {"type": "object", "properties": {}, "required": []}}),
        ],
        ..Advertised::default()
    };
    let only_prompts = Advertised {
        prompts: vec![json!({"name": "summarize"})],
        ..Advertised::default()
    };
    let trace = CallTrace {
        calls: vec![
            call(CallKind::Tool, "demo", "echo", text_result("hello world")),
            call(
                CallKind::Resource,
                "demo",
                "demo://readme",
                text_result("x"),
            ),
            call(CallKind::Tool, "demo", "echo", text_result("Hello, world!")),
            call(CallKind::Tool, "other", "t", text_result("")),
        ],
        discovery: vec![],
        advertised: BTreeMap::from([("demo".into(), demo), ("prompts".into(), only_prompts)]),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    };
    let tokens = TraceTokens::of(&trace);
    assert_eq!(tokens.results, [Some(2), None, Some(4), Some(0)]);
    assert_eq!(
        tokens.servers["demo"],
        ServerTokens {
            tools: 2,
            definition_tokens: 33 + 27,
            tool_calls: 2,
            result_tokens: 6,
            biggest_result_tokens: 4,
        }
    );
    assert_eq!(tokens.servers["other"].tool_calls, 1);
    assert_eq!(tokens.servers["other"].tools, 0);
    // A server that advertised no tools and was never called has no figures.
    assert!(!tokens.servers.contains_key("prompts"));
}

#[test]
fn counts_are_grouped_by_thousands() {
    assert_eq!(grouped(0), "0");
    assert_eq!(grouped(999), "999");
    assert_eq!(grouped(1000), "1,000");
    assert_eq!(grouped(1234567), "1,234,567");
    assert_eq!(describe(1), "1 token");
    assert_eq!(describe(12345), "12,345 tokens");
}

#[test]
fn answers_the_proxy_injected_are_not_counted() {
    use crate::trace::{FaultKind, Injected};
    let injected = |fault| RecordedCall {
        injected: Some(Injected {
            fault,
            rule: "spec.faults[0]".into(),
        }),
        ..call(CallKind::Tool, "demo", "echo", text_result("hello world"))
    };
    assert_eq!(result_tokens(&injected(FaultKind::Replace)), None);
    assert_eq!(result_tokens(&injected(FaultKind::ToolError)), None);
    // A delayed answer is the server's.
    assert_eq!(result_tokens(&injected(FaultKind::Delay)), Some(2));
    let trace = CallTrace {
        calls: vec![
            injected(FaultKind::Replace),
            call(CallKind::Tool, "demo", "echo", text_result("Hello, world!")),
        ],
        discovery: vec![],
        advertised: BTreeMap::new(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    };
    let tokens = TraceTokens::of(&trace);
    assert_eq!(tokens.results, [None, Some(4)]);
    assert_eq!(
        (
            tokens.servers["demo"].tool_calls,
            tokens.servers["demo"].result_tokens
        ),
        (1, 4)
    );
}
