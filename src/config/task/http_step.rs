//! `http` steps of a task: the request, and what its answer must show.

use std::collections::BTreeMap;
use std::time::Duration;

use regex::Regex;
use serde::Deserialize;

use crate::config::files::check::Checker;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHttp {
    url: Option<String>,
    method: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    body: Option<RawHttpBody>,
    timeout: Option<String>,
    expect: Option<RawExpect>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHttpBody {
    raw: Option<String>,
    json: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpect {
    status: Option<u16>,
    body: Option<RawExpectBody>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExpectBody {
    #[serde(rename = "match")]
    pattern: Option<String>,
    #[serde(default)]
    fields: Vec<RawField>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawField {
    path: Option<String>,
    equals: Option<serde_json::Value>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "match")]
    pattern: Option<String>,
    exists: Option<bool>,
}

/// An HTTP step.
#[derive(Debug, Clone)]
pub struct HttpStep {
    /// The URL.
    pub url: String,
    /// The method, upper case (default GET).
    pub method: String,
    /// Request headers.
    pub headers: BTreeMap<String, String>,
    /// The request body.
    pub body: Option<HttpBody>,
    /// Bound on the request.
    pub timeout: Duration,
    /// Expected status code.
    pub expect_status: Option<u16>,
    /// Regex the raw body must match.
    pub expect_body_match: Option<Regex>,
    /// Checks on fields of a JSON body.
    pub expect_fields: Vec<FieldCheck>,
}

/// An HTTP request body.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpBody {
    /// Sent as is.
    Raw(String),
    /// Sent as JSON.
    Json(serde_json::Value),
}

/// A check on one field of a JSON response body.
#[derive(Debug, Clone)]
pub struct FieldCheck {
    /// Dot path, e.g. `data.users[0].email`.
    pub path: String,
    /// The field equals this value.
    pub equals: Option<serde_json::Value>,
    /// The field has this JSON type.
    pub kind: Option<JsonType>,
    /// A string field matches this regex.
    pub pattern: Option<Regex>,
    /// The field is present (or absent).
    pub exists: Option<bool>,
}

/// A JSON type name used by `expect.body.fields[].type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `string`
    String,
    /// `number`
    Number,
    /// `array`
    Array,
    /// `object`
    Object,
    /// `bool`
    Bool,
    /// `null`
    Null,
}

impl RawHttp {
    /// Validates the step written at `path`; `default_timeout` bounds it unless it says.
    pub(in crate::config) fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        default_timeout: Duration,
    ) -> Option<HttpStep> {
        let url = check
            .non_empty(&format!("{path}.url"), self.url.as_deref())?
            .to_owned();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            check.error(
                format!("{path}.url"),
                format!("expected an http:// or https:// URL, found {url:?}"),
            );
        }
        let method = http_method(check, path, self.method);
        let body = self.body.and_then(|body| http_body(check, path, body));
        let timeout = match self.timeout {
            Some(text) => check.duration(&format!("{path}.timeout"), &text)?,
            None => default_timeout,
        };
        let (mut expect_status, mut expect_body_match, mut expect_fields) =
            (None, None, Vec::new());
        if let Some(expect) = self.expect {
            expect_status = expect.status;
            if let Some(status) = expect_status.filter(|s| !(100..=599).contains(s)) {
                check.error(
                    format!("{path}.expect.status"),
                    format!("{status} is not an HTTP status; expected 100 to 599"),
                );
            }
            if let Some(body) = expect.body {
                expect_body_match = body
                    .pattern
                    .and_then(|p| check.regex(&format!("{path}.expect.body.match"), &p));
                for (i, field) in body.fields.into_iter().enumerate() {
                    if let Some(f) =
                        field.validate(check, &format!("{path}.expect.body.fields[{i}]"))
                    {
                        expect_fields.push(f);
                    }
                }
            }
        }
        Some(HttpStep {
            url,
            method,
            headers: self.headers,
            body,
            timeout,
            expect_status,
            expect_body_match,
            expect_fields,
        })
    }
}

/// `method`, upper-cased (`GET` when absent); an error unless it is one HTTP knows.
fn http_method(check: &mut Checker<'_>, path: &str, method: Option<String>) -> String {
    let method = method
        .unwrap_or_else(|| "GET".to_owned())
        .to_ascii_uppercase();
    const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
    if !METHODS.contains(&method.as_str()) {
        check.error(
            format!("{path}.method"),
            format!(
                "unknown method `{method}`; expected one of {}",
                METHODS.join(", ")
            ),
        );
    }
    method
}

/// `body`: exactly one of `raw` or `json`.
fn http_body(check: &mut Checker<'_>, path: &str, body: RawHttpBody) -> Option<HttpBody> {
    match body {
        RawHttpBody {
            raw: Some(raw),
            json: None,
        } => Some(HttpBody::Raw(raw)),
        RawHttpBody {
            raw: None,
            json: Some(json),
        } => Some(HttpBody::Json(json)),
        _ => {
            check.error(
                format!("{path}.body"),
                "expected exactly one of `raw` or `json`",
            );
            None
        }
    }
}

impl RawField {
    fn validate(self, check: &mut Checker<'_>, path: &str) -> Option<FieldCheck> {
        let field_path = check
            .non_empty(&format!("{path}.path"), self.path.as_deref())?
            .to_owned();
        let kind = match self.kind.as_deref() {
            None => None,
            Some("string") => Some(JsonType::String),
            Some("number") => Some(JsonType::Number),
            Some("array") => Some(JsonType::Array),
            Some("object") => Some(JsonType::Object),
            Some("bool" | "boolean") => Some(JsonType::Bool),
            Some("null") => Some(JsonType::Null),
            Some(other) => {
                check.error(
                    format!("{path}.type"),
                    format!("unknown JSON type `{other}`; expected one of string, number, array, object, bool, null"),
                );
                return None;
            }
        };
        let pattern = match self.pattern {
            Some(p) => Some(check.regex(&format!("{path}.match"), &p)?),
            None => None,
        };
        Some(FieldCheck {
            path: field_path,
            equals: self.equals,
            kind,
            pattern,
            exists: self.exists,
        })
    }
}
