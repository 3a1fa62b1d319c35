//! Replaying what was recorded: every API streaming and not, opaque fields, another machine,
//! ignore patterns added later, and requests with the same key in recorded order.

use crate::support::fake_llm::{FakeLlm, Reply};

use mcpeval::llm_proxy::{LlmApi, ModeUsed, RecordMode};
use serde_json::json;

use super::{
    KEY, cassette_in, closed_port, config, conversation, machine, other_machine, record, run,
    script,
};

#[tokio::test]
async fn each_api_replays_what_it_recorded_streaming_and_not() {
    for api in LlmApi::ALL {
        for stream in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let cassette = cassette_in(&dir);
            let (recorded, outcome) = record(api, stream, &cassette, RecordMode::Once).await;
            let case = format!("{api} stream={stream}");
            assert_eq!(
                (outcome.used, outcome.recorded),
                (ModeUsed::Recorded, 2),
                "{case}"
            );
            assert!(
                recorded.iter().all(|a| a.status == 200),
                "{case}: {recorded:?}"
            );
            let text = std::fs::read_to_string(&cassette).unwrap();
            assert!(!text.contains(KEY), "{case}: the key is in the cassette");

            let requests = conversation(api, stream, &machine(), "5");
            let replay = config(api, &closed_port(), &cassette, RecordMode::None, &machine());
            let (replayed, outcome) = run(replay, stream, &requests, None).await;
            let outcome = outcome.unwrap();
            assert_eq!(
                (outcome.used, outcome.replayed),
                (ModeUsed::Replayed, 2),
                "{case}"
            );
            assert_eq!(outcome.failure(), None, "{case}");
            for (recorded, replayed) in recorded.iter().zip(&replayed) {
                assert_eq!(replayed.status, recorded.status, "{case}");
                assert_eq!(replayed.content_type, recorded.content_type, "{case}");
                if stream {
                    assert_eq!(replayed.events(), recorded.events(), "{case}");
                    assert!(replayed.events().len() > 1, "{case}");
                } else {
                    assert_eq!(
                        replayed.body, recorded.body,
                        "{case}: the same bytes of JSON"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn opaque_fields_round_trip_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    record(LlmApi::Anthropic, false, &cassette, RecordMode::Once).await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (answers, _) = run(replay, false, &requests, None).await;
    assert_eq!(
        answers[0].json()["content"][0]["signature"],
        "EqQBCkYIBxgCKkD+/opaque=="
    );
}

#[tokio::test]
async fn another_work_dir_home_and_date_still_match() {
    for api in LlmApi::ALL {
        let dir = tempfile::tempdir().unwrap();
        let cassette = cassette_in(&dir);
        record(api, true, &cassette, RecordMode::Once).await;
        let elsewhere = other_machine();
        let requests = conversation(api, true, &elsewhere, "5");
        let replay = config(api, &closed_port(), &cassette, RecordMode::None, &elsewhere);
        let (_, outcome) = run(replay, true, &requests, None).await;
        let outcome = outcome.unwrap();
        assert_eq!(outcome.failure(), None, "{api}");
        assert_eq!(outcome.replayed, 2, "{api}");
    }
}

#[tokio::test]
async fn a_cassette_recorded_before_an_ignore_pattern_was_added_matches_with_it() {
    let api = LlmApi::Anthropic;
    let with_request_id = |id: &str| {
        conversation(api, false, &machine(), "5").map(|mut request| {
            request["messages"][0]["content"] = json!(format!("add 2 and 3 (request {id})"));
            request
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let fake = FakeLlm::start(script()).await;
    let recording = config(api, &fake.url, &cassette, RecordMode::Once, &machine());
    let (_, outcome) = run(recording, false, &with_request_id("r-111"), Some(KEY)).await;
    assert_eq!(outcome.unwrap().recorded, 2);
    assert!(
        std::fs::read_to_string(&cassette)
            .unwrap()
            .contains("r-111")
    );

    // The pattern comes later: the stored requests are normalised by it as well.
    let mut replay = config(api, &closed_port(), &cassette, RecordMode::None, &machine());
    replay.ignore = vec![regex::Regex::new(r"r-\d+").unwrap()];
    let (_, outcome) = run(replay, false, &with_request_id("r-222"), None).await;
    let outcome = outcome.unwrap();
    assert_eq!(outcome.failure(), None);
    assert_eq!(outcome.replayed, 2);
}

#[tokio::test]
async fn requests_with_the_same_key_replay_in_recorded_order() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = cassette_in(&dir);
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let fake = FakeLlm::start(vec![
        Reply::Error(529, overloaded.clone()),
        Reply::Text("hi".into()),
    ])
    .await;
    let requests = conversation(LlmApi::Anthropic, false, &machine(), "5");
    let retried = [requests[0].clone(), requests[0].clone()];
    let recording = config(
        LlmApi::Anthropic,
        &fake.url,
        &cassette,
        RecordMode::Once,
        &machine(),
    );
    let (recorded, _) = run(recording, false, &retried, Some(KEY)).await;
    assert_eq!((recorded[0].status, recorded[1].status), (529, 200));
    let replay = config(
        LlmApi::Anthropic,
        &closed_port(),
        &cassette,
        RecordMode::None,
        &machine(),
    );
    let (replayed, outcome) = run(replay, false, &retried, None).await;
    assert_eq!(replayed, recorded);
    assert_eq!(replayed[0].json(), overloaded);
    assert_eq!(outcome.unwrap().failure(), None);
}
