//! The record modes: `once`, `new_episodes`, `all` and `passthrough`.

use crate::support::fake_llm::{FakeLlm, Reply};

use mcpeval::llm_proxy::{LlmApi, LlmProxy, ModeUsed, RecordMode};
use serde_json::json;

use super::{
    KEY, cassette_in, closed_port, config, conversation, machine, record, run, script, send,
};

#[tokio::test]
async fn once_records_when_missing_and_replays_when_present() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let (_, outcome) = record(LlmApi::Gemini, true, &cassette, RecordMode::Once).await;
    assert_eq!(outcome.used, ModeUsed::Recorded);
    let fake = FakeLlm::start(script()).await;
    let requests = conversation(LlmApi::Gemini, true, &machine(), "5");
    let again = config(
        LlmApi::Gemini,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (_, outcome) = run(again, true, &requests, Some(KEY)).await;
    let outcome = outcome.unwrap();
    assert_eq!(
        (outcome.used, outcome.replayed, outcome.recorded),
        (ModeUsed::Replayed, 2, 0)
    );
    assert!(
        fake.seen().is_empty(),
        "replaying never contacts the upstream"
    );
}

#[tokio::test]
async fn new_episodes_replays_then_records_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let fake = FakeLlm::start(script()).await;
    let first_only = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    run(first_only, false, &requests[..1], Some(KEY))
        .await
        .1
        .unwrap();

    let fake = FakeLlm::start(vec![Reply::Text("The sum is 5.".into())]).await;
    let extend = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::NewEpisodes,
        &machine(),
    );
    let proxy = LlmProxy::start(extend).unwrap();
    let signal = proxy.divergence_signal();
    for request in &requests {
        let answer = send(
            proxy.base_url(),
            LlmApi::Anthropic,
            false,
            request,
            Some(KEY),
        )
        .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    let outcome = proxy.finish().await.unwrap();
    assert_eq!(
        (outcome.used, outcome.replayed, outcome.recorded),
        (ModeUsed::Extended, 1, 1)
    );
    // Timed by their number in the cassette written: the replayed call took no time.
    let times: Vec<(usize, bool)> = (outcome.turn_times.iter())
        .map(|t| (t.seq, t.took.is_some()))
        .collect();
    assert_eq!(times, [(1, false), (2, true)]);
    assert!(outcome.turn_times[0].asked <= outcome.turn_times[1].asked);
    assert!(
        !signal.is_cancelled(),
        "new_episodes goes live instead of failing"
    );
    assert_eq!(outcome.failure(), None);
    assert_eq!(fake.seen().len(), 1, "only the new request went upstream");

    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (answers, outcome) = run(replay, false, &requests, None).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.replayed, 2);
    assert_eq!(answers[1].json()["content"][1]["text"], "The sum is 5.");
    let times: Vec<(usize, bool)> = (outcome.turn_times.iter())
        .map(|t| (t.seq, t.took.is_some()))
        .collect();
    assert_eq!(times, [(1, false), (2, false)]);
}

#[tokio::test]
async fn all_re_records() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::OpenAiResponses, false, &cassette, RecordMode::Once).await;
    let fake = FakeLlm::start(vec![
        Reply::ToolCall {
            name: "add".into(),
            args: json!({"a": 2, "b": 3}),
        },
        Reply::Text("Five.".into()),
    ])
    .await;
    let requests = conversation(LlmApi::OpenAiResponses, false, &machine(), "5");
    let again = config(
        LlmApi::OpenAiResponses,
        &fake.url,
        &cassette,
        RecordMode::All,
        &machine(),
    );
    let (answers, outcome) = run(again, false, &requests, Some(KEY)).await;
    assert_eq!(outcome.unwrap().used, ModeUsed::Recorded);
    assert_eq!(fake.seen().len(), 2);
    assert_eq!(
        answers[1].json()["output"][1]["content"][0]["text"],
        "Five."
    );
    assert!(
        std::fs::read_to_string(&cassette)
            .unwrap()
            .contains("Five.")
    );
}

#[tokio::test]
async fn passthrough_reads_and_writes_no_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let requests = conversation(LlmApi::OpenAiChat, true, &machine(), "5");
    let live = config(
        LlmApi::OpenAiChat,
        &fake.url,
        &cassette,
        RecordMode::Passthrough,
        &machine(),
    );
    let (answers, outcome) = run(live, true, &requests, Some(KEY)).await;
    let outcome = outcome.unwrap();
    assert_eq!(
        (outcome.used, outcome.passed_through),
        (ModeUsed::Passthrough, 2)
    );
    assert_eq!(answers[1].events().last().unwrap().1, json!("[DONE]"));
    assert!(!cassette.exists() && !cassette.parent().unwrap().exists());
    let seen = fake.seen();
    let auth = seen[0]
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(auth, format!("Bearer {KEY}"), "headers pass through");
}
