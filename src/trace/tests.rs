use super::*;
use serde_json::json;

#[test]
fn result_text_reads_tool_resource_and_prompt_results() {
    let tool = json!({"content": [
        {"type": "text", "text": "a"},
        {"type": "resource", "resource": {"uri": "x://y", "text": "b"}},
        {"type": "image", "data": "AA==", "mimeType": "image/png"}
    ]});
    assert_eq!(
        result_text(&tool),
        "a\nb\n{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"}"
    );
    let structured = json!({"content": [], "structuredContent": {"n": 1}});
    assert_eq!(result_text(&structured), r#"{"n":1}"#);
    let resource = json!({"contents": [{"uri": "x://y", "text": "readme"}]});
    assert_eq!(result_text(&resource), "readme");
    let prompt = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
    assert_eq!(result_text(&prompt), "hi");
    assert_eq!(result_text(&json!({"tools": 3})), r#"{"tools":3}"#);
}

#[test]
fn trace_round_trips_through_camel_case_json() {
    let trace = CallTrace {
        calls: vec![RecordedCall {
            server: "docs".into(),
            kind: CallKind::Tool,
            name: "search".into(),
            arguments: Some(json!({"zeta": 1, "alpha": 2})),
            outcome: Outcome::IsError {
                result: json!({"content": [], "isError": true}),
            },
            start_offset: Duration::from_micros(1500),
            duration: Duration::from_millis(3),
            injected: None,
            rounds: Vec::new(),
            task: Vec::new(),
            turn: None,
        }],
        discovery: vec![],
        advertised: BTreeMap::new(),
        elicitations: Vec::new(),
        sampling: Vec::new(),
    };
    let text = trace.to_json_pretty();
    assert!(!text.contains("advertised"), "{text}");
    assert!(text.contains("\"startOffset\": 1.5"), "{text}");
    assert!(text.contains("\"status\": \"isError\""), "{text}");
    // Key order of free-form JSON is kept.
    assert!(text.find("zeta") < text.find("alpha"), "{text}");
    let back: CallTrace = serde_json::from_str(&text).unwrap();
    assert_eq!(back, trace);
}
