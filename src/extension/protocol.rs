//! The messages of mcpchecker's extension protocol (version 0.0.1): JSON-RPC 2.0, one message
//! per line on the extension's stdin and stdout. `initialize` sends the eval's configuration
//! and returns the manifest (the operations and the JSON Schema of their arguments),
//! `execute` runs an operation (`log` notifications may come meanwhile), `shutdown` ends it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version mcpeval speaks.
pub const PROTOCOL_VERSION: &str = "0.0.1";

/// `initialize` parameters.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams<'a> {
    /// Always [`PROTOCOL_VERSION`].
    pub protocol_version: &'static str,
    /// The eval's `config` of the extension, its variables expanded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<&'a Map<String, Value>>,
}

/// The `initialize` result: what the extension is and which operations it offers. Fields
/// it leaves out are empty, as mcpchecker reads them; only `operations` is required.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// The extension's name.
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// The protocol version it speaks.
    #[serde(default)]
    pub protocol_version: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Its operations by name.
    pub operations: BTreeMap<String, Operation>,
}

/// One operation of a manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct Operation {
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of its arguments; absent means any arguments.
    #[serde(default)]
    pub params: Value,
}

/// `execute` parameters.
#[derive(Debug, Serialize)]
pub struct ExecuteParams<'a> {
    /// The operation.
    pub operation: &'a str,
    /// Its arguments (a JSON object).
    pub args: &'a Value,
    /// Where and when it runs.
    pub context: ExecuteContext<'a>,
}

/// The `context` of `execute`.
#[derive(Debug, Serialize)]
pub struct ExecuteContext<'a> {
    /// The task file's directory, for relative paths.
    pub workdir: String,
    /// `setup`, `verify` or `cleanup`.
    pub phase: &'static str,
    /// The step's time bound, as a Go duration (`300s`).
    pub timeout: String,
    /// The prompt and the agent's answer (verify only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentContext<'a>>,
}

/// What the agent was asked and answered.
#[derive(Debug, Serialize)]
pub struct AgentContext<'a> {
    /// The task's prompt.
    pub prompt: &'a str,
    /// The agent's answer.
    pub output: &'a str,
}

/// The `execute` result. A failed operation is `success: false` with `error`; protocol
/// problems are JSON-RPC errors instead.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ExecuteResult {
    /// Whether the operation succeeded.
    #[serde(default)]
    pub success: bool,
    /// A summary.
    #[serde(default)]
    pub message: String,
    /// Why it failed.
    #[serde(default)]
    pub error: String,
    /// Named string outputs.
    #[serde(default)]
    pub outputs: BTreeMap<String, String>,
}

/// A `log` notification's parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct LogParams {
    /// `debug`, `info`, `warn` or `error`.
    #[serde(default)]
    pub level: String,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// Structured details.
    #[serde(default)]
    pub data: Option<Value>,
}

impl LogParams {
    /// `[info] message {"data":…}`
    pub fn line(&self) -> String {
        match &self.data {
            Some(data) if !data.is_null() => format!("[{}] {} {data}", self.level, self.message),
            _ => format!("[{}] {}", self.level, self.message),
        }
    }
}

/// One line the extension wrote on stdout, read as JSON-RPC.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// The answer to our request `id`: its result, or its error.
    Response {
        /// The request's id.
        id: u64,
        /// The result, or the error's code and message.
        outcome: Result<Value, (i64, String)>,
    },
    /// A notification (`log`).
    Notification {
        /// The method.
        method: String,
        /// Its parameters.
        params: Value,
    },
    /// A request from the extension (the protocol has none; it gets "method not found").
    Request {
        /// Its id, echoed in the answer.
        id: Value,
        /// The method.
        method: String,
    },
}

/// Reads one line; `Err` says why it is not a JSON-RPC message.
pub fn parse_line(line: &str) -> Result<Incoming, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(mut message) = value else {
        return Err("not a JSON-RPC message (not an object)".into());
    };
    let id = message.remove("id").filter(|id| !id.is_null());
    if let Some(Value::String(method)) = message.remove("method") {
        return Ok(match id {
            Some(id) => Incoming::Request { id, method },
            None => Incoming::Notification {
                method,
                params: message.remove("params").unwrap_or(Value::Null),
            },
        });
    }
    let Some(id) = id.as_ref().and_then(Value::as_u64) else {
        return Err("neither a response to one of our requests nor a notification".into());
    };
    let outcome = match (message.remove("result"), message.remove("error")) {
        (_, Some(error)) if !error.is_null() => Err((
            error.get("code").and_then(Value::as_i64).unwrap_or(0),
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        )),
        (Some(result), _) => Ok(result),
        (None, _) => return Err("a response with neither `result` nor `error`".into()),
    };
    Ok(Incoming::Response { id, outcome })
}

/// A request line: `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
pub fn request_line(id: u64, method: &str, params: &Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The answer to a request the protocol does not have.
pub fn method_not_found_line(id: &Value, method: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32601, "message": format!("method not found: {method}")}
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_read_as_responses_notifications_requests_or_garbage() {
        let cases: &[(&str, Result<Incoming, &str>)] = &[
            (
                r#"{"jsonrpc":"2.0","id":2,"result":{"success":true}}"#,
                Ok(Incoming::Response {
                    id: 2,
                    outcome: Ok(json!({"success": true})),
                }),
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}"#,
                Ok(Incoming::Response {
                    id: 3,
                    outcome: Err((-32602, "bad".into())),
                }),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"hi"}}"#,
                Ok(Incoming::Notification {
                    method: "log".into(),
                    params: json!({"level": "info", "message": "hi"}),
                }),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"ask"}"#,
                Ok(Incoming::Request {
                    id: json!("x"),
                    method: "ask".into(),
                }),
            ),
            ("hello", Err("not JSON")),
            ("[1]", Err("not an object")),
            (r#"{"id":4}"#, Err("neither `result` nor `error`")),
            (r#"{"result":1}"#, Err("neither a response")),
        ];
        for (line, expected) in cases {
            match (parse_line(line), expected) {
                (Ok(found), Ok(expected)) => assert_eq!(&found, expected, "{line}"),
                (Err(found), Err(words)) => assert!(found.contains(words), "{line}: {found}"),
                (found, _) => panic!("{line}: {found:?}"),
            }
        }
    }

    #[test]
    fn requests_are_one_line_of_json_rpc() {
        let line = request_line(
            1,
            "initialize",
            &json!({"protocolVersion": PROTOCOL_VERSION}),
        );
        assert_eq!(
            line,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"0.0.1"}}"#
        );
        assert!(!line.contains('\n'));
    }
}
