//! The fake OpenAI API misbehaving: retries of rate limits and server errors, their bound,
//! errors and malformed replies, timeouts, an unreachable API, and the base URL and key taken
//! from the environment.

use crate::support;

use std::time::Duration;

use mcpeval::agent::llm_agent::{run_llm_agent, run_llm_agent_from_env};
use mcpeval::llm::{ApiClient, ApiKey, OpenAiConfig, Provider, RetryPolicy};
use serde_json::json;
use support::fake_openai::{FakeOpenAi, Reply, text};

use super::{KEY, client, options, run_with};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_and_server_errors_are_retried() {
    let fake = FakeOpenAi::start(vec![
        Reply::RetryAfter(429, 0),
        Reply::Status(503, "overloaded".into()),
        text("finally"),
    ])
    .await;
    let run = run_with(&fake, &[], 20).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(run.answer, "finally");
    assert_eq!(fake.requests().len(), 3);
    assert!(fake.bodies()[0].get("tools").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_are_bounded() {
    let fake = FakeOpenAi::start(vec![Reply::Status(500, "down".into()); 6]).await;
    let run = run_with(&fake, &[], 20).await;

    assert!(!run.passed());
    assert!(
        run.reason().contains("answered 500 Internal Server Error"),
        "{}",
        run.reason()
    );
    assert!(
        run.reason().contains("after 5 attempts"),
        "{}",
        run.reason()
    );
    assert!(run.reason().contains("down"), "{}", run.reason());
    assert_eq!(fake.replies_left(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthorized_reply_shows_the_api_message_and_is_not_retried() {
    let body = json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}});
    let fake = FakeOpenAi::start(vec![Reply::Status(401, body.to_string()), text("never")]).await;
    let run = run_with(&fake, &[], 20).await;

    assert!(!run.passed());
    assert!(
        run.reason().contains("answered 401 Unauthorized"),
        "{}",
        run.reason()
    );
    assert!(
        run.reason().contains("Incorrect API key provided"),
        "{}",
        run.reason()
    );
    assert!(!run.reason().contains(KEY), "{}", run.reason());
    assert!(!run.log.contains(KEY), "{}", run.log);
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_that_is_not_json_is_a_clear_error() {
    let fake = FakeOpenAi::start(vec![Reply::Raw("<html>gateway</html>".into())]).await;
    let run = run_with(&fake, &[], 20).await;

    assert!(!run.passed());
    assert!(run.reason().contains("malformed reply"), "{}", run.reason());
    assert!(run.reason().contains("not JSON"), "{}", run.reason());
    assert!(
        run.reason().contains("<html>gateway</html>"),
        "{}",
        run.reason()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_without_choices_is_a_clear_error() {
    let fake = FakeOpenAi::start(vec![Reply::Json(json!({"id": "x", "object": "oops"}))]).await;
    let run = run_with(&fake, &[], 20).await;

    assert!(!run.passed());
    assert!(run.reason().contains("malformed reply"), "{}", run.reason());
    assert!(run.reason().contains("no `choices`"), "{}", run.reason());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reply_times_out_and_is_retried() {
    let fake = FakeOpenAi::start(vec![
        Reply::Slow(Duration::from_secs(3), json!({})),
        text("quick"),
    ])
    .await;
    let llm = client(&fake.base_url, Duration::from_millis(300));
    let run = run_llm_agent(&options(), "p", &[], &llm).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(run.answer, "quick");
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_api_is_retried_then_named() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let llm = client(&base_url, Duration::from_secs(2));
    let run = run_llm_agent(&options(), "p", &[], &llm).await;

    assert!(!run.passed());
    assert!(
        run.reason().contains("cannot reach the LLM API"),
        "{}",
        run.reason()
    );
    assert!(run.reason().contains(&base_url), "{}", run.reason());
    assert!(
        run.reason().contains("after 5 attempts"),
        "{}",
        run.reason()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_after_seconds_are_honoured() {
    let fake = FakeOpenAi::start(vec![Reply::RetryAfter(429, 1), text("after waiting")]).await;
    let mut config = OpenAiConfig::new(&fake.base_url, ApiKey::new(KEY));
    config.retry = RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_secs(5),
    };
    let llm = ApiClient::new(Provider::OpenAi, config, "").unwrap();
    let started = std::time::Instant::now();
    let run = run_llm_agent(&options(), "p", &[], &llm).await;

    assert!(run.passed(), "{}", run.reason());
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_environment_gives_the_base_url_and_key() {
    let fake = FakeOpenAi::start(vec![text("from env")]).await;
    let base_url = fake.base_url.clone();
    let env = move |name: &str| match name {
        "MODEL_BASE_URL" => Some(base_url.clone()),
        "MODEL_KEY" => Some("sk-from-env".to_owned()),
        _ => None,
    };
    let run = run_llm_agent_from_env(&options(), "p", &[], env).await;

    assert!(run.passed(), "{}", run.reason());
    assert_eq!(
        fake.requests()[0].authorization.as_deref(),
        Some("Bearer sk-from-env")
    );
    let missing = run_llm_agent_from_env(&options(), "p", &[], |_| None).await;
    assert!(!missing.passed());
    assert!(
        missing.reason().contains("OPENAI_API_KEY") && missing.reason().contains("MODEL_KEY"),
        "{}",
        missing.reason()
    );
}
