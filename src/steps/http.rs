//! `http` steps: one request, bounded by the step's timeout, and checks on the response's
//! status, raw body and JSON fields. Every failed check is reported, expected beside actual.
//! Request header values may be secrets: they never appear in the output or the reason.

use crate::plumbing::ended::Ended;
use crate::plumbing::error_text::{error_chain, request_causes as causes};
use std::time::Duration;

use regex::Regex;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::{Phase, StepResult};
use crate::config::{FieldCheck, HttpBody, HttpStep, JsonType};
use crate::plumbing::text::shorten;

/// How much of the response body the step's output keeps.
const OUTPUT_BODY_LIMIT: usize = 2048;
/// How much of the body a failed `expect.body.match` quotes.
const REASON_BODY_LIMIT: usize = 200;

pub(super) async fn run_http(phase: Phase, index: usize, step: &HttpStep) -> StepResult {
    let label = format!(
        "{}[{index}] http {} {}",
        phase.name(),
        step.method,
        step.url
    );
    let mut result = StepResult::new(label, false);
    match send(step).await {
        Ok((status_line, status, body)) => {
            let failures = check_response(step, status, &body);
            result.ended = Ended::unless(&failures);
            result.output = format!("{status_line}\n{}", shorten(&body, OUTPUT_BODY_LIMIT));
        }
        Err(reason) => result.fail(reason),
    }
    result
}

/// Sends the request; the status line, the status and the body, or why there is none.
async fn send(step: &HttpStep) -> Result<(String, u16, String), String> {
    let target = format!("{} {}", step.method, step.url);
    let method = reqwest::Method::from_bytes(step.method.as_bytes())
        .map_err(|_| format!("{target}: `{}` is not an HTTP method", step.method))?;
    let client = crate::plumbing::tls::client_builder()
        .timeout(step.timeout)
        .build()
        .map_err(|e| format!("{target}: cannot make an HTTP client: {}", error_chain(&e)))?;
    let mut request = client
        .request(method, &step.url)
        .headers(headers(step).map_err(|e| format!("{target}: {e}"))?);
    request = match &step.body {
        None => request,
        Some(HttpBody::Raw(text)) => request.body(text.clone()),
        Some(HttpBody::Json(value)) => {
            if step
                .headers
                .keys()
                .any(|k| k.eq_ignore_ascii_case("content-type"))
            {
                request.body(value.to_string())
            } else {
                request
                    .header(CONTENT_TYPE, "application/json")
                    .body(value.to_string())
            }
        }
    };
    let failed = |e: reqwest::Error| describe_error(&target, step.timeout, &e);
    let response = request.send().await.map_err(failed)?;
    let status = response.status();
    let status_line = format!("{:?} {status}", response.version());
    let bytes = response.bytes().await.map_err(failed)?;
    Ok((
        status_line,
        status.as_u16(),
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}

/// The step's headers, values marked sensitive; an invalid one is named, its value never shown.
fn headers(step: &HttpStep) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in &step.headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid header name"))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of header `{name}` is not a valid header value"))?;
        value.set_sensitive(true);
        map.insert(header, value);
    }
    Ok(map)
}

fn describe_error(target: &str, timeout: Duration, error: &reqwest::Error) -> String {
    if error.is_timeout() {
        format!(
            "{target} timed out after {}",
            humantime::format_duration(timeout)
        )
    } else if error.is_connect() {
        format!("cannot connect to {target}: {}", causes(error))
    } else {
        format!("{target} failed: {}", causes(error))
    }
}

/// Every failed check of the step's `expect` against a response.
fn check_response(step: &HttpStep, status: u16, body: &str) -> Vec<String> {
    let mut failures = Vec::new();
    if let Some(expected) = step.expect_status.filter(|&s| s != status) {
        failures.push(format!("status: expected {expected}, got {status}"));
    }
    if let Some(pattern) = step
        .expect_body_match
        .as_ref()
        .filter(|p| !p.is_match(body))
    {
        failures.push(format!(
            "body: expected to match \"{}\", got {:?}",
            pattern.as_str(),
            shorten(body, REASON_BODY_LIMIT)
        ));
    }
    if step.expect_fields.is_empty() {
        return failures;
    }
    if body.trim().is_empty() {
        failures.push("body: expected JSON for the field checks, got an empty body".to_owned());
        return failures;
    }
    match serde_json::from_str::<Value>(body) {
        Ok(json) => {
            for check in &step.expect_fields {
                failures.extend(check_field(check, &json));
            }
        }
        Err(e) => failures.push(format!(
            "body: expected JSON for the field checks, got invalid JSON ({e})"
        )),
    }
    failures
}

/// Every failed check on one field.
fn check_field(check: &FieldCheck, json: &Value) -> Vec<String> {
    let path = &check.path;
    let Some(value) = lookup(json, path) else {
        return match check.exists {
            Some(false) => Vec::new(),
            Some(true) => vec![format!("field {path}: expected to exist, it does not")],
            None if check.equals.is_some() || check.kind.is_some() || check.pattern.is_some() => {
                vec![format!(
                    "field {path}: expected {}, it does not exist",
                    wanted(check)
                )]
            }
            None => Vec::new(),
        };
    };
    let mut failures = Vec::new();
    if check.exists == Some(false) {
        failures.push(format!(
            "field {path}: expected not to exist, got {}",
            render(value)
        ));
    }
    if let Some(kind) = check.kind.filter(|&k| k != type_of(value)) {
        failures.push(format!(
            "field {path}: expected type {}, got {} {}",
            type_name(kind),
            type_name(type_of(value)),
            render(value)
        ));
    }
    if let Some(expected) = check.equals.as_ref().filter(|e| !json_equal(e, value)) {
        failures.push(format!(
            "field {path}: expected {}, got {}",
            render(expected),
            render(value)
        ));
    }
    if let Some(pattern) = check.pattern.as_ref().filter(|p| !matches_string(p, value)) {
        failures.push(format!(
            "field {path}: expected to match \"{}\", got {}",
            pattern.as_str(),
            render(value)
        ));
    }
    failures
}

/// What a check on a missing field wanted, for its failure message.
fn wanted(check: &FieldCheck) -> String {
    let mut parts = Vec::new();
    if let Some(kind) = check.kind {
        parts.push(format!("type {}", type_name(kind)));
    }
    if let Some(expected) = &check.equals {
        parts.push(render(expected));
    }
    if let Some(pattern) = &check.pattern {
        parts.push(format!("to match \"{}\"", pattern.as_str()));
    }
    parts.join(" and ")
}

fn matches_string(pattern: &Regex, value: &Value) -> bool {
    value.as_str().is_some_and(|s| pattern.is_match(s))
}

/// One step of a field path.
#[derive(Debug, PartialEq)]
enum FieldSegment<'a> {
    /// `.name` (a number also indexes an array, as in `items.0.id`).
    Key(&'a str),
    /// `[3]`
    Index(usize),
}

/// Splits `data.users[0].email` into `data`, `users`, `[0]`, `email`.
fn segments(path: &str) -> Vec<FieldSegment<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(FieldSegment::Key(key));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let (index, after) = inner.split_once(']').unwrap_or((inner, ""));
            out.push(match index.trim().parse() {
                Ok(i) => FieldSegment::Index(i),
                Err(_) => FieldSegment::Key(index),
            });
            rest = after;
        }
    }
    out
}

/// The value at `path`, if there is one.
fn lookup<'v>(json: &'v Value, path: &str) -> Option<&'v Value> {
    segments(path)
        .into_iter()
        .try_fold(json, |value, segment| match (segment, value) {
            (FieldSegment::Key(key), Value::Object(map)) => map.get(key),
            (FieldSegment::Key(key), Value::Array(items)) => items.get(key.parse::<usize>().ok()?),
            (FieldSegment::Index(i), Value::Array(items)) => items.get(i),
            _ => None,
        })
}

/// JSON equality where numbers compare by value (`1 == 1.0`).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn type_of(value: &Value) -> JsonType {
    match value {
        Value::Null => JsonType::Null,
        Value::Bool(_) => JsonType::Bool,
        Value::Number(_) => JsonType::Number,
        Value::String(_) => JsonType::String,
        Value::Array(_) => JsonType::Array,
        Value::Object(_) => JsonType::Object,
    }
}

fn type_name(kind: JsonType) -> &'static str {
    match kind {
        JsonType::String => "string",
        JsonType::Number => "number",
        JsonType::Array => "array",
        JsonType::Object => "object",
        JsonType::Bool => "bool",
        JsonType::Null => "null",
    }
}

/// A value as compact JSON, long ones shortened.
fn render(value: &Value) -> String {
    shorten(&value.to_string(), REASON_BODY_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indexes() {
        use FieldSegment::{Index, Key};
        assert_eq!(
            segments("data.users[0].email"),
            [Key("data"), Key("users"), Index(0), Key("email")]
        );
        assert_eq!(segments("items.0.id"), [Key("items"), Key("0"), Key("id")]);
        assert_eq!(segments("m[1][2]"), [Key("m"), Index(1), Index(2)]);
        assert_eq!(segments("[0].a"), [Index(0), Key("a")]);
    }

    #[test]
    fn numbers_compare_by_value() {
        let one: Value = serde_json::json!(1);
        assert!(json_equal(&one, &serde_json::json!(1.0)));
        assert!(!json_equal(&one, &serde_json::json!(1.5)));
        assert!(json_equal(
            &serde_json::json!({"a": [1, {"b": 2}]}),
            &serde_json::json!({"a": [1.0, {"b": 2.0}]})
        ));
        assert!(!json_equal(&serde_json::json!("1"), &one));
    }
}
