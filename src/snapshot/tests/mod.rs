//! Unit tests of the snapshot module, with the sample traces several of them share.

use std::time::Duration;

use serde_json::{Value, json};

use crate::trace::{CallKind, CallTrace, Outcome, RecordedCall};

mod elicitations;
mod faults;
mod render;
mod update;

pub(super) fn call(
    kind: CallKind,
    server: &str,
    name: &str,
    arguments: Option<Value>,
    outcome: Outcome,
) -> RecordedCall {
    RecordedCall {
        server: server.into(),
        kind,
        name: name.into(),
        arguments,
        outcome,
        start_offset: Duration::from_millis(5),
        duration: Duration::from_millis(12),
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    }
}

pub(super) fn sample() -> CallTrace {
    CallTrace {
        calls: vec![
            call(
                CallKind::Tool,
                "kubernetes",
                "pods_list",
                Some(json!({"namespace": "default", "at": "http://127.0.0.1:4242/x"})),
                Outcome::Ok {
                    result: json!({"content": []}),
                },
            ),
            call(
                CallKind::Resource,
                "docs",
                "file:///readme.md",
                None,
                Outcome::Ok { result: json!({}) },
            ),
            call(
                CallKind::Tool,
                "kubernetes",
                "pods_delete",
                Some(json!({})),
                Outcome::IsError {
                    result: json!({"content": [{"type": "text", "text": "forbidden"}], "isError": true}),
                },
            ),
            call(
                CallKind::Prompt,
                "docs",
                "review",
                Some(json!({"file": "/tmp/.tmpQ1/a.rs"})),
                Outcome::Error {
                    code: -32602,
                    message: "unknown prompt: review".into(),
                },
            ),
        ],
        discovery: vec![],
        advertised: Default::default(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    }
}
