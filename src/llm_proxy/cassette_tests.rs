use serde_json::json;

use super::*;

fn interaction(seq: usize, normalized: Value, response: RecordedResponse) -> Interaction {
    let path = "/v1/messages".to_owned();
    Interaction {
        seq,
        key: request_key("POST", &path, &normalized),
        method: "POST".into(),
        path,
        normalized,
        response,
    }
}

fn sample() -> Cassette {
    let system = json!([{"type": "text", "text": "You are a careful agent. ".repeat(4)}]);
    let first =
        json!({"model": "m", "system": system, "messages": [{"role": "user", "content": "hi"}]});
    let second = json!({"model": "m", "system": system, "messages": [{"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"}, {"role": "user", "content": "bye"}]});
    let sse = "event: message_start\ndata: {\"type\":\"message_start\"}\n\ndata: [DONE]\n\n";
    Cassette {
        meta: CassetteMeta {
            agent: "claude-code".into(),
            agent_version: Some("claude-cli/2.1.330".into()),
            api: "anthropic".into(),
        },
        interactions: vec![
            interaction(
                1,
                first,
                RecordedResponse::capture(
                    200,
                    Some("application/json".into()),
                    br#"{"id":"msg_1","content":[{"type":"thinking","signature":"EqQBCkYIBx=="}]}"#,
                ),
            ),
            interaction(
                2,
                second,
                RecordedResponse::capture(200, Some("text/event-stream".into()), sse.as_bytes()),
            ),
        ],
    }
}

#[test]
fn round_trips_through_its_text_with_the_system_prompt_stored_once() {
    let cassette = sample();
    let text = cassette.to_json();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["blobs"].as_object().unwrap().len(), 1, "{text}");
    let reference = &file["interactions"][1]["request"]["normalized"]["system"];
    assert!(
        reference["$blob"].as_str().unwrap().starts_with("sha256:"),
        "{text}"
    );
    assert_eq!(Cassette::parse(&text).unwrap(), cassette);
    assert_eq!(cassette.to_json(), text);
}

#[test]
fn replayed_bodies_are_the_recorded_ones() {
    let cassette = sample();
    assert_eq!(
        cassette.interactions[0].response.body(),
        r#"{"id":"msg_1","content":[{"type":"thinking","signature":"EqQBCkYIBx=="}]}"#
    );
    assert_eq!(
        cassette.interactions[1].response.body(),
        "event: message_start\ndata: {\"type\":\"message_start\"}\n\ndata: [DONE]\n\n"
    );
    let text = RecordedResponse::capture(500, Some("text/plain".into()), b"upstream broke");
    assert_eq!(text.text.as_deref(), Some("upstream broke"));
    let bad_json = RecordedResponse::capture(200, Some("application/json".into()), b"{oops");
    assert_eq!(bad_json.body(), "{oops");
}

#[test]
fn problems_name_the_json_path() {
    let file: Value = serde_json::from_str(&sample().to_json()).unwrap();
    type Edit = fn(&mut Value);
    let cases: [(Edit, &str); 4] = [
        (
            |f| f["interactions"][0]["response"]["status"] = json!("200"),
            "at interactions[0].response.status: invalid type",
        ),
        (|f| f["version"] = json!(2), "version 2 is not supported"),
        (
            |f| f["interactions"][1]["response"]["text"] = json!("x"),
            "at interactions[1].response: exactly one of",
        ),
        (
            |f| f["blobs"] = json!({}),
            "at interactions[0].request.normalized: no blob `sha256:",
        ),
    ];
    for (change, expected) in cases {
        let mut changed = file.clone();
        change(&mut changed);
        let problem = Cassette::parse(&changed.to_string()).unwrap_err();
        assert!(problem.starts_with(expected), "{expected}: {problem}");
    }
    assert!(
        Cassette::parse("not json")
            .unwrap_err()
            .contains("expected")
    );
}

#[test]
fn loading_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    assert!(Cassette::load(&path).unwrap().is_none());
    std::fs::write(&path, "{\"version\": 1}").unwrap();
    let error = Cassette::load(&path).unwrap_err().to_string();
    assert!(
        error.contains("broken.json") && error.contains("missing field `meta`"),
        "{error}"
    );
}

#[test]
fn writes_through_a_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cassettes/a.json");
    write_atomically(&path, "one").unwrap();
    write_atomically(&path, "two").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    let names: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn a_section_is_read_and_written_beside_the_main_part() {
    let mut parts = CassetteParts::default();
    parts.set(None, sample());
    let mut judge = sample();
    judge.meta.agent = "llm-judge".into();
    judge.interactions.truncate(1);
    parts.set(Some("judge"), judge.clone());
    let text = parts.to_json();
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["sections"]["judge"]["meta"]["agent"], "llm-judge");
    // Shared content is stored once for both parts.
    let blobs = file["blobs"].as_object().unwrap().len();
    assert_eq!(
        blobs,
        serde_json::from_str::<Value>(&sample().to_json()).unwrap()["blobs"]
            .as_object()
            .unwrap()
            .len()
    );
    let read = CassetteParts::parse(&text).unwrap();
    assert_eq!(read, parts);
    assert_eq!(read.clone().take(Some("judge")), Some(judge));
    assert_eq!(read.clone().take(None), Some(sample()));
    assert_eq!(read.take(Some("other")), None);
}

/// The main part of a cassette alone, as these tests read and write it.
impl Cassette {
    /// Reads the main part of a cassette file; `None` when the file does not exist.
    fn load(path: &Path) -> Result<Option<Self>, LlmProxyError> {
        Ok(CassetteParts::load(path)?.and_then(|parts| parts.main))
    }

    /// The main part of a cassette file from its text, or what is wrong with it.
    fn parse(text: &str) -> Result<Self, String> {
        CassetteParts::parse(text)?
            .main
            .ok_or_else(|| "it has no `meta`: only sections".to_owned())
    }

    /// A file holding only this cassette, as pretty JSON.
    fn to_json(&self) -> String {
        let parts = CassetteParts {
            main: Some(self.clone()),
            sections: BTreeMap::new(),
        };
        parts.to_json()
    }
}
