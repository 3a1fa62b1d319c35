//! `llmJudge` steps against a fake Chat Completions API on loopback: the request asks for a
//! structured verdict about the agent's answer; pass, fail with the judge's reason, API
//! errors and retries, fenced and non-verdict replies, and settings read from the environment.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use mcpeval::config::{JudgeConfig, JudgeStep, Step};
use mcpeval::steps::{JudgeSettings, Phase, StepContext, StepResult, resolve_judge, run_phase};
use serde_json::{Value, json};

const KEY: &str = "sk-test-s3cr3t";

/// A request as the fake API received it.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    headers: HeaderMap,
    body: Value,
}

struct FakeApi {
    base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

/// A fake API that answers with `replies` in turn (status, body).
async fn fake_api(replies: Vec<(u16, String)>) -> FakeApi {
    let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = received.clone();
    let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
        let (log, replies) = (log.clone(), replies.clone());
        async move {
            log.lock().unwrap().push(Received {
                path: uri.path().to_owned(),
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            });
            let (status, body) = replies
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or((500, "no more replies".into()));
            (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                body,
            )
                .into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    FakeApi { base_url, received }
}

impl FakeApi {
    fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// A Chat Completions answer whose message content is `content`.
fn completion(content: &str) -> (u16, String) {
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "judge-model",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    (200, body.to_string())
}

fn verdict(passed: bool, reason: &str) -> (u16, String) {
    completion(&json!({"passed": passed, "reason": reason}).to_string())
}

fn context(judge: Option<JudgeSettings>, answer: Option<&str>) -> StepContext {
    let dir = std::env::temp_dir();
    StepContext {
        task_dir: dir.clone(),
        run_dir: dir,
        env: Vec::new(),
        live: false,
        prompt: "What is 2 + 40?".into(),
        agent_output: answer.map(str::to_owned),
        judge,
        extensions: None,
    }
}

fn settings(api: &FakeApi) -> JudgeSettings {
    JudgeSettings {
        base_url: api.base_url.clone(),
        api_key: KEY.into(),
        model: "judge-model".into(),
    }
}

async fn judge(step: JudgeStep, context: &StepContext) -> StepResult {
    let mut results = run_phase(
        Phase::Verify,
        &[Step::LlmJudge(step).into()],
        context,
        &mut Vec::new(),
    )
    .await;
    assert_eq!(results.len(), 1);
    results.remove(0)
}

fn contains(text: &str) -> JudgeStep {
    JudgeStep::Contains(text.into())
}

fn assert_no_key(result: &StepResult) {
    assert!(!format!("{result:?}").contains(KEY), "{result:?}");
}

#[tokio::test]
async fn the_step_passes_when_the_judge_says_yes_and_asks_for_a_structured_verdict() {
    let api = fake_api(vec![verdict(true, "the image is mysql:8.0.36")]).await;
    let answer = "The web-server pod runs the image mysql:8.0.36.";
    let result = judge(
        contains("mysql:8.0.36"),
        &context(Some(settings(&api)), Some(answer)),
    )
    .await;
    assert!(result.passed(), "{result:?}");
    assert_eq!(result.reason(), "");
    assert_eq!(
        result.output,
        "judge judge-model: yes: the image is mysql:8.0.36"
    );
    assert_eq!(
        result.label,
        r#"verify[0] llmJudge contains "mysql:8.0.36""#
    );

    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(sent.body["model"], "judge-model");
    assert_eq!(sent.body["response_format"]["type"], "json_schema");
    let schema = &sent.body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["properties"]["passed"]["type"], "boolean");
    assert_eq!(schema["properties"]["reason"]["type"], "string");
    assert_eq!(schema["required"], json!(["passed", "reason"]));
    let prompt = sent.body["messages"].to_string();
    assert!(prompt.contains("mysql:8.0.36"), "{prompt}");
    assert!(prompt.contains(answer), "{prompt}");
    assert!(prompt.contains("CONTAINS"), "{prompt}");
    // The judge sees the task's prompt, as mcpchecker's does.
    assert!(
        prompt.contains("<task>\\nWhat is 2 + 40?\\n</task>"),
        "{prompt}"
    );
}

#[tokio::test]
async fn exact_steps_ask_for_semantic_equivalence() {
    let api = fake_api(vec![verdict(true, "same meaning")]).await;
    let step = JudgeStep::Exact("Paris is the capital".into());
    let result = judge(
        step,
        &context(Some(settings(&api)), Some("The capital is Paris")),
    )
    .await;
    assert!(result.passed(), "{result:?}");
    let prompt = api.requests()[0].body["messages"].to_string();
    assert!(prompt.contains("EXACT"), "{prompt}");
    assert!(!prompt.contains("CONTAINS"), "{prompt}");
}

#[tokio::test]
async fn the_step_fails_with_the_judges_reason_when_it_says_no() {
    let api = fake_api(vec![verdict(false, "the answer names mysql:5.7")]).await;
    let result = judge(
        contains("mysql:8.0.36"),
        &context(Some(settings(&api)), Some("It runs mysql:5.7")),
    )
    .await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        "the judge says no: the answer names mysql:5.7"
    );
    assert_eq!(
        result.output,
        "judge judge-model: no: the answer names mysql:5.7"
    );
}

#[tokio::test]
async fn a_verdict_wrapped_in_code_fences_is_understood() {
    let fenced = "```json\n{\"passed\": true, \"reason\": \"fenced but fine\"}\n```";
    let api = fake_api(vec![completion(fenced)]).await;
    let result = judge(contains("x"), &context(Some(settings(&api)), Some("x"))).await;
    assert!(result.passed(), "{result:?}");
    assert!(result.output.ends_with("fenced but fine"));
}

#[tokio::test]
async fn a_reply_that_is_not_a_verdict_fails_clearly() {
    let api = fake_api(vec![completion("I think it looks good!")]).await;
    let result = judge(contains("x"), &context(Some(settings(&api)), Some("x"))).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        r#"the judge's reply is not a verdict: "I think it looks good!""#
    );
}

#[tokio::test]
async fn an_api_error_fails_with_the_apis_message_and_never_the_key() {
    let error = json!({"error": {"message": format!("Incorrect API key provided: {KEY}"),
                                 "type": "invalid_request_error"}});
    let api = fake_api(vec![(401, error.to_string()), verdict(true, "unused")]).await;
    let result = judge(contains("x"), &context(Some(settings(&api)), Some("x"))).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        format!(
            "the judge API at {}/chat/completions answered 401 Unauthorized: Incorrect API key provided: <redacted>",
            api.base_url
        )
    );
    assert_eq!(
        api.requests().len(),
        1,
        "a 4xx other than 429 is not retried"
    );
    assert_no_key(&result);
}

#[tokio::test]
async fn server_errors_and_rate_limits_are_retried() {
    let api = fake_api(vec![
        (500, r#"{"error": {"message": "overloaded"}}"#.into()),
        (429, r#"{"error": {"message": "slow down"}}"#.into()),
        verdict(true, "fine"),
    ])
    .await;
    let result = judge(contains("x"), &context(Some(settings(&api)), Some("x"))).await;
    assert!(result.passed(), "{result:?}");
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn a_server_error_that_persists_fails_after_the_retries() {
    let api = fake_api(vec![(503, "".into()); 5]).await;
    let result = judge(contains("x"), &context(Some(settings(&api)), Some("x"))).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        format!(
            "the judge API at {}/chat/completions answered 503 Service Unavailable after 3 attempts: (empty body)",
            api.base_url
        )
    );
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn an_unreachable_api_fails_naming_its_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let settings = JudgeSettings {
        base_url: base_url.clone(),
        api_key: KEY.into(),
        model: "m".into(),
    };
    let result = judge(contains("x"), &context(Some(settings), Some("x"))).await;
    assert!(!result.passed());
    assert!(
        result.reason().starts_with(&format!(
            "cannot reach the judge API at {base_url}/chat/completions after 3 attempts: "
        )),
        "{}",
        result.reason()
    );
    assert_no_key(&result);
}

#[tokio::test]
async fn without_a_judge_or_an_answer_the_step_fails_instead_of_passing() {
    let result = judge(contains("x"), &context(None, Some("x"))).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        "no LLM judge is configured: set config.llmJudge in the eval file"
    );
    let api = fake_api(vec![verdict(true, "unused")]).await;
    let result = judge(contains("x"), &context(Some(settings(&api)), None)).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        "there is no agent answer to judge (llmJudge steps belong in verify)"
    );
    assert!(api.requests().is_empty());
}

fn judge_config() -> JudgeConfig {
    JudgeConfig::Env {
        base_url_key: "JUDGE_BASE_URL".into(),
        api_key_key: "JUDGE_API_KEY".into(),
        model_name_key: "JUDGE_MODEL_NAME".into(),
    }
}

#[test]
fn a_judge_ref_to_the_llm_agent_reads_the_openai_variables() {
    let model = JudgeConfig::Model("gpt-4o".into());
    let settings = resolve_judge(&model, &|name| match name {
        "MODEL_KEY" => Some(KEY.into()),
        _ => None,
    })
    .unwrap();
    assert_eq!(settings.base_url, "https://api.openai.com/v1");
    assert_eq!(settings.model, "gpt-4o");
    let settings = resolve_judge(&model, &|name| match name {
        "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
        "OPENAI_API_KEY" => Some(KEY.into()),
        _ => None,
    })
    .unwrap();
    assert_eq!(settings.base_url, "http://127.0.0.1:9/v1");
    let error = resolve_judge(&model, &|_| None).unwrap_err();
    assert!(error.contains("OPENAI_API_KEY"), "{error}");
}

#[test]
fn judge_settings_come_from_the_variables_the_eval_names() {
    let settings = resolve_judge(&judge_config(), &|name| match name {
        "JUDGE_BASE_URL" => Some("https://api.example.com/v1".into()),
        "JUDGE_API_KEY" => Some(KEY.into()),
        "JUDGE_MODEL_NAME" => Some("gpt-4o".into()),
        _ => None,
    })
    .unwrap();
    assert_eq!(
        settings,
        JudgeSettings {
            base_url: "https://api.example.com/v1".into(),
            api_key: KEY.into(),
            model: "gpt-4o".into(),
        }
    );
    assert!(!format!("{settings:?}").contains(KEY));
}

#[test]
fn a_missing_judge_variable_is_an_error_naming_it() {
    let error = resolve_judge(&judge_config(), &|name| match name {
        "JUDGE_BASE_URL" => Some("https://api.example.com/v1".into()),
        "JUDGE_MODEL_NAME" => Some("  ".into()),
        _ => None,
    })
    .unwrap_err();
    assert_eq!(
        error,
        "the LLM judge needs environment variables that are not set: \
         JUDGE_API_KEY (API key, config.llmJudge.env.apiKeyKey), \
         JUDGE_MODEL_NAME (model name, config.llmJudge.env.modelNameKey)"
    );
}
