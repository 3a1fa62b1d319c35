//! `http` steps against a fake server on loopback: what is sent (method, headers, raw and JSON
//! bodies), status, body regex and JSON field checks, timeouts, refused connections, and
//! header values that never show.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use mcpeval::config::{FieldCheck, HttpBody, HttpStep, JsonType, Step};
use mcpeval::steps::{Phase, StepContext, StepResult, run_phase};
use regex::Regex;
use serde_json::json;

/// A request as the fake server received it.
#[derive(Debug, Clone)]
struct Received {
    method: Method,
    path: String,
    headers: HeaderMap,
    body: String,
}

struct FakeServer {
    base: String,
    received: Arc<Mutex<Vec<Received>>>,
}

const USERS: &str = r#"{"data": {"users": [{"email": "alice@example.com", "age": 30, "admin": true, "tags": [], "manager": null}, {"email": "bob"}]}, "items": [{"id": 7}], "total": 2.0}"#;

async fn respond(path: &str, body: &str) -> axum::response::Response {
    match path {
        "/users" => ([("content-type", "application/json")], USERS).into_response(),
        "/down" => (StatusCode::SERVICE_UNAVAILABLE, "maintenance").into_response(),
        "/text" => "hello, world".into_response(),
        "/empty" => StatusCode::OK.into_response(),
        "/big" => "x".repeat(10_000).into_response(),
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(10)).await;
            "late".into_response()
        }
        _ => body.to_owned().into_response(),
    }
}

async fn fake_server() -> FakeServer {
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = received.clone();
    let app = Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let log = log.clone();
            async move {
                let body = String::from_utf8_lossy(&body).into_owned();
                log.lock().unwrap().push(Received {
                    method,
                    path: uri.path().to_owned(),
                    headers,
                    body: body.clone(),
                });
                respond(uri.path(), &body).await
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    FakeServer { base, received }
}

impl FakeServer {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn request(url: String) -> HttpStep {
    HttpStep {
        url,
        method: "GET".into(),
        headers: BTreeMap::new(),
        body: None,
        timeout: Duration::from_secs(10),
        expect_status: None,
        expect_body_match: None,
        expect_fields: Vec::new(),
    }
}

fn field(path: &str) -> FieldCheck {
    FieldCheck {
        path: path.into(),
        equals: None,
        kind: None,
        pattern: None,
        exists: None,
    }
}

async fn run(step: HttpStep) -> StepResult {
    let dir = std::env::temp_dir();
    let context = StepContext {
        task_dir: dir.clone(),
        run_dir: dir,
        env: Vec::new(),
        live: false,
        prompt: "the task".into(),
        agent_output: None,
        judge: None,
        extensions: None,
    };
    let mut results = run_phase(
        Phase::Verify,
        &[Step::Http(Box::new(step)).into()],
        &context,
        &mut Vec::new(),
    )
    .await;
    assert_eq!(results.len(), 1);
    results.remove(0)
}

#[tokio::test]
async fn a_matching_response_passes_and_its_status_line_and_body_are_the_output() {
    let server = fake_server().await;
    let mut step = request(server.url("/text"));
    step.expect_status = Some(200);
    step.expect_body_match = Some(Regex::new("lo, wor").unwrap());
    let result = run(step).await;
    assert!(result.passed(), "{result:?}");
    assert_eq!(result.reason(), "");
    assert_eq!(result.output, "HTTP/1.1 200 OK\nhello, world");
    assert_eq!(
        result.label,
        format!("verify[0] http GET {}", server.url("/text"))
    );
    assert_eq!(server.requests()[0].method, Method::GET);
}

#[tokio::test]
async fn a_status_mismatch_says_expected_and_actual() {
    let server = fake_server().await;
    let mut step = request(server.url("/down"));
    step.expect_status = Some(200);
    let result = run(step).await;
    assert!(!result.passed());
    assert_eq!(result.reason(), "status: expected 200, got 503");
    assert_eq!(
        result.output,
        "HTTP/1.1 503 Service Unavailable\nmaintenance"
    );
}

#[tokio::test]
async fn a_response_without_expectations_passes_whatever_its_status() {
    let server = fake_server().await;
    let result = run(request(server.url("/down"))).await;
    assert!(result.passed(), "{result:?}");
}

#[tokio::test]
async fn a_body_that_does_not_match_the_regex_fails_with_the_pattern_and_the_body() {
    let server = fake_server().await;
    let mut step = request(server.url("/text"));
    step.expect_body_match = Some(Regex::new(r"^world").unwrap());
    let result = run(step).await;
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        r#"body: expected to match "^world", got "hello, world""#
    );
}

#[tokio::test]
async fn the_output_keeps_the_first_two_kilobytes_of_the_body() {
    let server = fake_server().await;
    let result = run(request(server.url("/big"))).await;
    assert_eq!(
        result.output,
        format!("HTTP/1.1 200 OK\n{}… (7952 more bytes)", "x".repeat(2048))
    );
}

#[tokio::test]
async fn field_checks_pass_on_nested_paths_indexes_and_numbers_by_value() {
    let server = fake_server().await;
    let mut step = request(server.url("/users"));
    let mut email = field("data.users[0].email");
    email.pattern = Some(Regex::new(r"@example\.com").unwrap());
    email.kind = Some(JsonType::String);
    let mut age = field("data.users[0].age");
    age.equals = Some(json!(30.0));
    age.kind = Some(JsonType::Number);
    let mut total = field("total");
    total.equals = Some(json!(2));
    let mut dotted_index = field("items.0.id");
    dotted_index.equals = Some(json!(7));
    let mut admin = field("data.users[0].admin");
    admin.kind = Some(JsonType::Bool);
    admin.equals = Some(json!(true));
    let mut tags = field("data.users[0].tags");
    tags.kind = Some(JsonType::Array);
    tags.equals = Some(json!([]));
    let mut user = field("data.users[1]");
    user.kind = Some(JsonType::Object);
    user.equals = Some(json!({"email": "bob"}));
    let mut manager = field("data.users[0].manager");
    manager.kind = Some(JsonType::Null);
    manager.exists = Some(true);
    let mut absent = field("data.users[2]");
    absent.exists = Some(false);
    step.expect_fields = vec![
        email,
        age,
        total,
        dotted_index,
        admin,
        tags,
        user,
        manager,
        absent,
    ];
    let result = run(step).await;
    assert!(result.passed(), "{result:?}");
}

#[tokio::test]
async fn every_failed_field_check_is_reported_with_expected_and_actual() {
    let server = fake_server().await;
    let mut step = request(server.url("/users"));
    step.expect_status = Some(201);
    let mut email = field("data.users[1].email");
    email.pattern = Some(Regex::new(r".*@example\.com").unwrap());
    let mut age = field("data.users[0].age");
    age.equals = Some(json!(31));
    let mut kind = field("items");
    kind.kind = Some(JsonType::Object);
    let mut missing = field("data.groups");
    missing.exists = Some(true);
    let mut present = field("items[0].id");
    present.exists = Some(false);
    let mut gone = field("data.users[5].email");
    gone.equals = Some(json!("x"));
    let mut not_a_string = field("total");
    not_a_string.pattern = Some(Regex::new("2").unwrap());
    step.expect_fields = vec![email, age, kind, missing, present, gone, not_a_string];
    let result = run(step).await;
    assert!(!result.passed());
    let failures: Vec<&str> = result.reason().split("; ").collect();
    assert_eq!(
        failures,
        [
            "status: expected 201, got 200",
            r#"field data.users[1].email: expected to match ".*@example\.com", got "bob""#,
            "field data.users[0].age: expected 31, got 30",
            r#"field items: expected type object, got array [{"id":7}]"#,
            "field data.groups: expected to exist, it does not",
            "field items[0].id: expected not to exist, got 7",
            r#"field data.users[5].email: expected "x", it does not exist"#,
            r#"field total: expected to match "2", got 2.0"#,
        ]
    );
}

#[tokio::test]
async fn field_checks_on_a_body_that_is_not_json_fail_clearly() {
    let server = fake_server().await;
    let mut step = request(server.url("/text"));
    step.expect_fields = vec![field("a")];
    let result = run(step).await;
    assert!(!result.passed());
    assert!(
        result
            .reason()
            .starts_with("body: expected JSON for the field checks, got invalid JSON ("),
        "{}",
        result.reason()
    );
    let mut step = request(server.url("/empty"));
    step.expect_fields = vec![field("a")];
    let result = run(step).await;
    assert_eq!(
        result.reason(),
        "body: expected JSON for the field checks, got an empty body"
    );
}

#[tokio::test]
async fn a_raw_body_is_sent_as_is_with_the_method_and_headers() {
    let server = fake_server().await;
    let mut step = request(server.url("/echo"));
    step.method = "PUT".into();
    step.body = Some(HttpBody::Raw("name=nginx&x=1".into()));
    step.headers
        .insert("Content-Type".into(), "text/plain".into());
    step.headers.insert("X-Trace".into(), "abc".into());
    let result = run(step).await;
    assert!(result.passed(), "{result:?}");
    let sent = &server.requests()[0];
    assert_eq!(sent.method, Method::PUT);
    assert_eq!(sent.path, "/echo");
    assert_eq!(sent.body, "name=nginx&x=1");
    assert_eq!(sent.headers["content-type"], "text/plain");
    assert_eq!(sent.headers["x-trace"], "abc");
}

#[tokio::test]
async fn a_json_body_is_sent_as_json_with_its_content_type() {
    let server = fake_server().await;
    let mut step = request(server.url("/echo"));
    step.method = "POST".into();
    step.body = Some(HttpBody::Json(json!({"name": "nginx", "replicas": 2})));
    let mut echoed = field("replicas");
    echoed.equals = Some(json!(2));
    step.expect_fields = vec![echoed];
    let result = run(step).await;
    assert!(result.passed(), "{result:?}");
    let sent = &server.requests()[0];
    assert_eq!(sent.method, Method::POST);
    assert_eq!(sent.headers["content-type"], "application/json");
    let body: serde_json::Value = serde_json::from_str(&sent.body).unwrap();
    assert_eq!(body, json!({"name": "nginx", "replicas": 2}));
}

#[tokio::test]
async fn header_values_are_sent_but_never_shown() {
    let server = fake_server().await;
    let secret = "Bearer s3cr3t-t0ken";
    let mut step = request(server.url("/echo"));
    step.headers.insert("Authorization".into(), secret.into());
    step.expect_status = Some(204);
    let result = run(step).await;
    assert!(!result.passed());
    assert_eq!(server.requests()[0].headers["authorization"], secret);
    assert!(!format!("{result:?}").contains("s3cr3t"), "{result:?}");

    let mut bad = request(server.url("/echo"));
    bad.headers
        .insert("Authorization".into(), "s3cr3t\nvalue".into());
    let result = run(bad).await;
    assert!(!result.passed());
    assert!(
        result
            .reason()
            .contains("the value of header `Authorization` is not a valid header value"),
        "{}",
        result.reason()
    );
    assert!(!format!("{result:?}").contains("s3cr3t"), "{result:?}");
}

#[tokio::test]
async fn a_slow_server_fails_after_the_step_timeout_naming_the_url() {
    let server = fake_server().await;
    let mut step = request(server.url("/slow"));
    step.timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let result = run(step).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!result.passed());
    assert_eq!(
        result.reason(),
        format!("GET {} timed out after 300ms", server.url("/slow"))
    );
}

#[tokio::test]
async fn a_refused_connection_fails_naming_the_url() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/health", listener.local_addr().unwrap());
    drop(listener);
    let mut step = request(url.clone());
    step.headers
        .insert("Authorization".into(), "Bearer s3cr3t".into());
    let result = run(step).await;
    assert!(!result.passed());
    assert!(
        result
            .reason()
            .starts_with(&format!("cannot connect to GET {url}: ")),
        "{}",
        result.reason()
    );
    assert!(!format!("{result:?}").contains("s3cr3t"));
}
