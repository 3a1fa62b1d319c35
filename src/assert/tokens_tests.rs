//! `maxToolResultTokens` and `maxToolDefinitionTokens` (README, "Assertions"). Counts are
//! o200k_base's (see `crate::tokens`'s tests).

use serde_json::json;

use super::tests::{failures, only, tool, trace};
use crate::config::Assertions;
use crate::trace::{Advertised, CallKind, Outcome, RecordedCall};

fn answered(mut call: RecordedCall, text: &str) -> RecordedCall {
    call.outcome = Outcome::Ok {
        result: json!({"content": [{"type": "text", "text": text}]}),
    };
    call
}

#[test]
fn max_tool_result_tokens_names_every_result_above_it() {
    let t = trace(vec![
        answered(tool("demo", "echo"), "hello world"),
        answered(
            tool("demo", "echo"),
            "The quick brown fox jumps over the lazy dog.",
        ),
        answered(tool("docs", "search"), "Hello, world!"),
    ]);
    let within = Assertions {
        max_tool_result_tokens: Some(10),
        ..Default::default()
    };
    assert!(failures(within, &t).is_empty());
    let f = only(
        Assertions {
            max_tool_result_tokens: Some(3),
            ..Default::default()
        },
        &t,
    );
    assert_eq!(f.assertion.key(), "maxToolResultTokens");
    assert_eq!(
        f.expected,
        "every tool result at most 3 tokens (o200k_base)"
    );
    assert_eq!(
        f.actual,
        "2 tool results above it: #2 demo/echo 10 tokens, #3 docs/search 4 tokens"
    );
}

#[test]
fn max_tool_result_tokens_ignores_resource_reads() {
    let mut read = answered(tool("demo", "demo://readme"), "hello world hello world");
    read.kind = CallKind::Resource;
    let a = Assertions {
        max_tool_result_tokens: Some(1),
        ..Default::default()
    };
    assert!(failures(a, &trace(vec![read])).is_empty());
}

#[test]
fn max_tool_definition_tokens_names_each_server_above_it_with_its_biggest_tools() {
    let schema = |property: &str| json!({"type": "object", "properties": {property: {"type": "string"}}, "required": [property]});
    let demo = Advertised {
        tools: vec![
            json!({"name": "echo", "description": "Echoes its text", "inputSchema": schema("text")}),
            json!({"name": "lookup_user", "description": "Finds a user by id", "inputSchema": schema("id")}),
        ],
        ..Advertised::default()
    };
    let small = Advertised {
        tools: vec![json!({"name": "ping"})],
        ..Advertised::default()
    };
    let mut t = trace(vec![]);
    t.advertised.insert("demo".into(), demo);
    t.advertised.insert("small".into(), small);
    let within = Assertions {
        max_tool_definition_tokens: Some(69),
        ..Default::default()
    };
    assert!(failures(within, &t).is_empty());
    let f = only(
        Assertions {
            max_tool_definition_tokens: Some(68),
            ..Default::default()
        },
        &t,
    );
    assert_eq!(f.assertion.key(), "maxToolDefinitionTokens");
    assert_eq!(
        f.expected,
        "each server's tool definitions at most 68 tokens together (o200k_base)"
    );
    assert_eq!(
        f.actual,
        "demo: 69 tokens for 2 tools (biggest: lookup_user 36 tokens, echo 33 tokens)"
    );
}

#[test]
fn max_tool_result_tokens_leaves_out_injected_answers() {
    let mut replaced = answered(
        tool("demo", "echo"),
        "The quick brown fox jumps over the lazy dog.",
    );
    replaced.injected = Some(crate::trace::Injected {
        fault: crate::trace::FaultKind::Replace,
        rule: "spec.faults[0]".into(),
    });
    let t = trace(vec![
        replaced,
        answered(tool("demo", "echo"), "hello world"),
    ]);
    let max = Assertions {
        max_tool_result_tokens: Some(3),
        ..Default::default()
    };
    assert!(failures(max, &t).is_empty());
}
