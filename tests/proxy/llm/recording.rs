//! Recording: the same file twice, secrets refused, other paths refused, an unreachable
//! upstream, the cassette's schema, and streams passed on as they arrive.

use std::path::Path;

use crate::support::fake_llm::{FakeLlm, Reply};

use mcpeval::llm_proxy::{LlmApi, LlmProxy, LlmProxyError, RecordMode};
use serde_json::{Value, json};

use super::{KEY, cassette_in, closed_port, config, conversation, machine, record, run, script};

#[tokio::test]
async fn recording_the_same_conversation_twice_gives_the_same_file() {
    for api in LlmApi::ALL {
        let dir = tempfile::tempdir().unwrap();
        let (first, second) = (
            dir.path().join("first.json"),
            dir.path().join("second.json"),
        );
        record(api, true, &first, RecordMode::All).await;
        record(api, true, &second, RecordMode::All).await;
        let first = std::fs::read(&first).unwrap();
        assert_eq!(first, std::fs::read(&second).unwrap(), "{api}");
    }
}

#[tokio::test]
async fn a_secret_in_the_recording_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(vec![Reply::Text(format!("your key is {KEY}"))]).await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (answers, outcome) = run(recording, false, &requests[..1], Some(KEY)).await;
    assert_eq!(answers[0].status, 200);
    let error = outcome.unwrap_err();
    assert!(matches!(error, LlmProxyError::SecretInCassette { .. }));
    let message = error.to_string();
    assert!(
        message.contains("the API key") && !message.contains(KEY),
        "{message}"
    );
    assert!(!format!("{error:?}").contains(KEY));
    assert!(!cassette.exists());
    assert_eq!(
        std::fs::read_dir(cassette.parent().unwrap())
            .map(|d| d.count())
            .unwrap_or(0),
        0
    );
}

#[tokio::test]
async fn other_paths_get_404_and_never_reach_the_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let proxy = LlmProxy::start(recording).unwrap();
    let client = mcpeval::tls::client_builder().build().unwrap();
    let base = proxy.base_url().to_owned();
    let answers = [
        client
            .post(format!("{base}/api/event_logging/batch"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        client
            .post(format!("{base}/v1/messages/count_tokens"))
            .body("{}")
            .send()
            .await
            .unwrap(),
        client
            .get(format!("{base}/v1/messages"))
            .send()
            .await
            .unwrap(),
    ];
    for answer in answers {
        assert_eq!(answer.status(), 404);
    }
    let outcome = proxy.finish().await.unwrap();
    assert!(fake.seen().is_empty());
    assert_eq!(
        outcome.refused,
        [
            "POST /api/event_logging/batch",
            "POST /v1/messages/count_tokens",
            "GET /v1/messages"
        ]
    );
}

#[tokio::test]
async fn an_unreachable_upstream_is_answered_502_and_noted() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let requests = conversation(LlmApi::Gemini, false, &machine(), "5");
    let recording = config(
        LlmApi::Gemini,
        &closed_port(),
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (answers, outcome) = run(recording, false, &requests[..1], Some(KEY)).await;
    assert_eq!(answers[0].status, 502);
    assert_eq!(answers[0].json()["error"]["status"], "UNAVAILABLE");
    let outcome = outcome.unwrap();
    assert_eq!(outcome.problems.len(), 2, "{:?}", outcome.problems);
    assert!(
        outcome.problems[0].contains("cannot reach the LLM API"),
        "{:?}",
        outcome.problems
    );
    assert!(!outcome.problems.concat().contains(KEY));
}

#[tokio::test]
async fn a_recorded_cassette_is_valid_against_the_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/cassette.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for api in LlmApi::ALL {
        for stream in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let cassette = cassette_in(&dir);
            record(api, stream, &cassette, RecordMode::Once).await;
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&file)
                .map(|e| format!("{e} at {}", e.instance_path()))
                .collect();
            assert!(errors.is_empty(), "{api} stream={stream}: {errors:#?}");
        }
    }
    let mut broken: Value = json!({"version": 1, "meta": {"agent": "a", "api": "anthropic"}, "interactions": [
        {"seq": 1, "request": {"method": "POST", "path": "/v1/messages", "key": "sha256:00", "normalized": {}},
         "response": {"status": 200, "json": {}, "text": "both"}}]});
    assert!(!validator.is_valid(&broken));
    broken["interactions"][0]["response"]["headers"] = json!({});
    assert!(!validator.is_valid(&broken));
}

#[tokio::test]
async fn a_stream_reaches_the_agent_as_it_arrives_and_is_recorded_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let fake = FakeLlm::start(vec![Reply::Gated("slow".into(), gate.clone())]).await;
    let requests = conversation(LlmApi::Anthropic, true, &machine(), "5");
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let proxy = LlmProxy::start(recording).unwrap();
    let url = format!("{}/v1/messages", proxy.base_url());
    let first_event = async {
        let mut response = mcpeval::tls::client_builder()
            .build()
            .unwrap()
            .post(url)
            .json(&requests[0])
            .send()
            .await
            .unwrap();
        let first = response.chunk().await.unwrap().unwrap();
        (response, first)
    };
    let (mut response, first) =
        tokio::time::timeout(std::time::Duration::from_secs(10), first_event)
            .await
            .expect("the first event arrives while the upstream holds the rest");
    assert!(String::from_utf8_lossy(&first).contains("message_start"));
    let held = std::time::Duration::from_millis(300);
    tokio::time::sleep(held).await;
    gate.notify_one();
    let mut rest = String::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        rest.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(rest.contains("message_stop"), "{rest}");
    let outcome = proxy.finish().await.unwrap();
    assert_eq!(outcome.recorded, 1);
    // The call's time runs to the stream's last byte, not to its first.
    let took = outcome.turn_times[0].took.expect("a live answer is timed");
    assert!(took >= held, "{took:?}");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&cassette).unwrap()).unwrap();
    assert_eq!(
        file["interactions"][0]["response"]["sse"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
}
