use serde_json::json;

use super::*;
use crate::llm_proxy::cassette::RecordedResponse;
use crate::llm_proxy::normalize::request_key;

fn recorded(seq: usize, normalized: Value) -> Interaction {
    Interaction {
        seq,
        method: "POST".into(),
        path: "/v1/messages".into(),
        key: request_key("POST", "/v1/messages", &normalized),
        normalized,
        response: RecordedResponse::capture(200, None, b"ok"),
    }
}

fn turn(messages: &[&str]) -> Value {
    json!({"model": "m", "messages": messages.iter().map(|m| json!({"role": "user", "content": m})).collect::<Vec<_>>()})
}

#[test]
fn requests_with_the_same_key_replay_in_recorded_order() {
    let mut replay = Replay::new(vec![
        recorded(1, turn(&["a"])),
        recorded(2, turn(&["a"])),
        recorded(3, turn(&["b"])),
    ]);
    let key_a = request_key("POST", "/v1/messages", &turn(&["a"]));
    let key_b = request_key("POST", "/v1/messages", &turn(&["b"]));
    assert_eq!(replay.take(&key_b).map(|i| i.seq), Some(3));
    assert_eq!(replay.take(&key_a).map(|i| i.seq), Some(1));
    assert_eq!(replay.take(&key_a).map(|i| i.seq), Some(2));
    assert_eq!(replay.take(&key_a).map(|i| i.seq), None);
    assert_eq!(replay.played_count(), 3);
    assert_eq!(replay.unplayed().count(), 0);
}

#[test]
fn the_closest_recording_shares_the_longest_conversation_prefix() {
    let replay = Replay::new(vec![
        recorded(1, turn(&["a"])),
        recorded(2, turn(&["a", "b", "c"])),
        recorded(3, turn(&["a", "b", "x"])),
    ]);
    let closest = replay
        .closest("/v1/messages?beta=true", &turn(&["a", "b", "d"]))
        .unwrap();
    assert_eq!(
        (closest.seq, closest.conversation_len, closest.same_prefix),
        (2, 3, 2)
    );
    let difference = closest.difference.unwrap();
    assert_eq!(difference.path, "$.messages[2].content");
    assert_eq!(
        (difference.recorded.as_str(), difference.now.as_str()),
        ("\"c\"", "\"d\"")
    );
    assert!(replay.closest("/other", &turn(&["a"])).is_none());
}

#[test]
fn first_differences() {
    let tool_result = |text: &str| {
        json!({"tools": [{"name": "add"}], "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "<ID1>", "content": [{"type": "text", "text": text}]}]}]})
    };
    let long_a = format!("{}A{}", "x".repeat(300), "y".repeat(300));
    let long_b = format!("{}B{}", "x".repeat(300), "y".repeat(300));
    let cases = [
        (
            tool_result("5"),
            tool_result("6"),
            "$.messages[0].content[0].content[0].text",
            "\"5\"",
            "\"6\"",
            Some(DifferenceAbout::ToolResult),
        ),
        (
            json!({"tools": [{"name": "add"}], "messages": []}),
            json!({"tools": [{"name": "sub"}], "messages": []}),
            "$.tools[0].name",
            "\"add\"",
            "\"sub\"",
            Some(DifferenceAbout::ToolsOffered),
        ),
        (
            turn(&["a"]),
            turn(&["a", "b"]),
            "$.messages[1]",
            "(absent)",
            "{\"role\":\"user\",\"content\":\"b\"}",
            None,
        ),
        (
            json!({"model": "m", "a b": 1}),
            json!({"model": "m", "a b": 2}),
            "$[\"a b\"]",
            "1",
            "2",
            None,
        ),
        (
            json!({"model": "m"}),
            json!({"model": "m", "temperature": 0}),
            "$.temperature",
            "(absent)",
            "0",
            None,
        ),
    ];
    for (recorded, now, path, was, is, about) in cases {
        let difference = first_difference(&recorded, &now).unwrap();
        assert_eq!(difference.path, path);
        assert_eq!(
            (difference.recorded.as_str(), difference.now.as_str()),
            (was, is),
            "{path}"
        );
        assert_eq!(difference.about, about, "{path}");
    }
    let difference = first_difference(&json!({"t": long_a}), &json!({"t": long_b})).unwrap();
    assert!(
        difference.recorded.contains("xA") && difference.now.contains("xB"),
        "{difference:?}"
    );
    assert!(
        difference.recorded.starts_with('…') && difference.recorded.ends_with("(601 characters)")
    );
    assert!(first_difference(&turn(&["a"]), &turn(&["a"])).is_none());
}
