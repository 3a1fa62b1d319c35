//! Replays that fail and say why: a diverging request, fewer calls than recorded, a missing
//! or malformed cassette.

use mcpeval::llm_proxy::{LlmApi, LlmProxy, LlmProxyError, RecordMode};

use super::{cassette_in, closed_port, config, conversation, machine, record, run, send};

#[tokio::test]
async fn a_changed_tool_result_diverges_and_shows_both_texts() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::Anthropic, true, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::Anthropic, true, &machine(), "6");
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let proxy = LlmProxy::start(replay).unwrap();
    let signal = proxy.divergence_signal();
    let first = send(
        proxy.base_url(),
        LlmApi::Anthropic,
        true,
        &requests[0],
        None,
    )
    .await;
    assert_eq!(first.status, 200);
    assert!(!signal.is_cancelled());
    let second = send(
        proxy.base_url(),
        LlmApi::Anthropic,
        true,
        &requests[1],
        None,
    )
    .await;
    assert_eq!(second.status, 403);
    assert!(signal.is_cancelled(), "the signal fires at the divergence");
    let error = second.json();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "permission_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("matches no recorded request")
    );

    let outcome = proxy.finish().await.unwrap();
    let message = outcome.failure().expect("the run fails");
    let expected = [
        "LLM request #2 (POST /v1/messages?beta=true) matches no recorded request".to_owned(),
        format!(
            "cassette {} (mode none): 2 interactions, 1 played",
            cassette.display()
        ),
        "agent test-agent/1.0 (recorded with test-agent/1.0)".to_owned(),
        "closest recording: #2 (3 conversation items, the first 2 the same)".to_owned(),
        "first difference at $.messages[2].content[0].content[0].text:".to_owned(),
        "recorded: \"5\"".to_owned(),
        "now:      \"6\"".to_owned(),
        "The MCP server's tool result differs from the recording.".to_owned(),
        "If intended, re-record: MCPEVAL_RECORD_MODE=all cargo test -- llm_proxy::case --exact"
            .to_owned(),
    ];
    for line in expected {
        assert!(message.contains(&line), "missing {line:?} in:\n{message}");
    }
    assert_eq!(outcome.divergence.unwrap().request_number, 2);
    assert_eq!(
        outcome.unplayed, None,
        "a divergence is the one failure reported"
    );
}

#[tokio::test]
async fn fewer_calls_than_recorded_fail_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::OpenAiChat, false, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::OpenAiChat, false, &machine(), "5");
    let replay = config(
        LlmApi::OpenAiChat,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (_, outcome) = run(replay, false, &requests[..1], None).await;
    let outcome = outcome.unwrap();
    let message = outcome.failure().expect("the run fails");
    assert!(
        message.starts_with("the agent made fewer LLM calls than recorded: 1 of 2 played"),
        "{message}"
    );
    assert!(
        message.contains("first unplayed: #2 (POST /chat/completions)"),
        "{message}"
    );
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
}

#[tokio::test]
async fn mode_none_without_a_cassette_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let config = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let error = LlmProxy::start(config).unwrap_err();
    assert!(matches!(error, LlmProxyError::CassetteMissing { .. }));
    let message = error.to_string();
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("MCPEVAL_RECORD_MODE=once cargo test -- llm_proxy::case --exact"),
        "{message}"
    );
}

#[tokio::test]
async fn a_malformed_cassette_names_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    std::fs::create_dir_all(cassette.parent().unwrap()).unwrap();
    std::fs::write(&cassette, r#"{"version": 1, "meta": {"agent": "a", "api": "anthropic"}, "interactions": [{"seq": 1}]}"#).unwrap();
    let config = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let message = LlmProxy::start(config).unwrap_err().to_string();
    assert!(
        message.contains(&cassette.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("at interactions[0]: missing field `request`"),
        "{message}"
    );
}
