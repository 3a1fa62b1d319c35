//! One line from a stdio server, decoded into the JSON-RPC message rmcp expects, or what is
//! wrong with it and which request it seems to answer, so that the call can end at once
//! instead of waiting for an answer that will never be read.

use rmcp::model::{NumberOrString, RequestId, ServerJsonRpcMessage};
use serde_json::Value;

/// UTF-8 byte order mark, which JSON parsers may ignore (RFC 8259 §8.1).
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a line holds.
#[derive(Debug)]
pub(crate) enum Decoded {
    /// A JSON-RPC message.
    Message(Box<ServerJsonRpcMessage>),
    /// Nothing for the client: an empty line, or a notification outside MCP that is not even
    /// JSON-RPC (rmcp ignores those too, for servers that also speak other protocols).
    Skip,
    /// Not a JSON-RPC message: what is wrong, and the request ids it may answer.
    Malformed {
        /// e.g. `invalid UTF-8 at byte 17`, `not JSON: expected value at line 1 column 1`.
        problem: String,
        /// Ids found in it, best guess first; match them against the requests waiting.
        ids: Vec<RequestId>,
    },
}

/// Decodes one line (without its newline).
pub(crate) fn decode(line: &[u8]) -> Decoded {
    let line = line.strip_prefix(BOM).unwrap_or(line).trim_ascii();
    if line.is_empty() {
        return Decoded::Skip;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(error) => {
            return Decoded::Malformed {
                problem: format!("invalid UTF-8 at byte {}", error.valid_up_to()),
                ids: ids_of_lossy(line),
            };
        }
    };
    match serde_json::from_str::<ServerJsonRpcMessage>(text) {
        Ok(message) => Decoded::Message(Box::new(message)),
        Err(error) => match serde_json::from_str::<Value>(text) {
            Err(syntax) => Decoded::Malformed {
                problem: format!("not JSON: {syntax}"),
                ids: scan_ids(line),
            },
            Ok(value) if is_foreign_notification(&value) => Decoded::Skip,
            Ok(value) => Decoded::Malformed {
                problem: not_json_rpc(&value, &error),
                ids: value.get("id").and_then(request_id).into_iter().collect(),
            },
        },
    }
}

/// Why a JSON value is not a JSON-RPC message rmcp can take.
fn not_json_rpc(value: &Value, error: &serde_json::Error) -> String {
    let Some(object) = value.as_object() else {
        return "not a JSON-RPC message: not a JSON object".into();
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return "not a JSON-RPC message: no \"jsonrpc\": \"2.0\"".into();
    }
    format!("not a valid JSON-RPC message: {error}")
}

/// A notification whose method is not MCP's (no id, a method that is not MCP's): rmcp
/// ignores these, and so does the proxy.
fn is_foreign_notification(value: &Value) -> bool {
    let method = value.get("method").and_then(Value::as_str);
    value.get("id").is_none() && method.is_some_and(|method| !is_mcp_method(method))
}

fn is_mcp_method(method: &str) -> bool {
    const MCP: &[&str] = &[
        "notifications/cancelled",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/tools/list_changed",
        "notifications/elicitation/complete",
        "notifications/tasks/status",
    ];
    MCP.contains(&method)
}

fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::Number(number) => number.as_i64().map(NumberOrString::Number),
        Value::String(text) => Some(NumberOrString::String(text.as_str().into())),
        _ => None,
    }
}

/// The id of a line that is not UTF-8: read with replacement characters it is often still
/// JSON; else scanned for.
fn ids_of_lossy(line: &[u8]) -> Vec<RequestId> {
    let lossy = String::from_utf8_lossy(line);
    match serde_json::from_str::<Value>(&lossy) {
        Ok(value) => value.get("id").and_then(request_id).into_iter().collect(),
        Err(_) => scan_ids(line),
    }
}

/// Every `"id": <number or string>` in `bytes`, first to last: a lenient look for the id
/// of a line that cannot be parsed (or is only partly kept), whichever end it is at.
pub(crate) fn scan_ids(bytes: &[u8]) -> Vec<RequestId> {
    const KEY: &[u8] = b"\"id\"";
    let mut ids = Vec::new();
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], KEY) {
        let rest = &bytes[from + at + KEY.len()..];
        if let Some(id) = rest
            .trim_ascii_start()
            .strip_prefix(b":")
            .and_then(|value| id_at(value.trim_ascii_start()))
        {
            ids.push(id);
        }
        from += at + KEY.len();
    }
    ids
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// A JSON number or plain string at the start of `bytes`.
fn id_at(bytes: &[u8]) -> Option<RequestId> {
    if let Some(quoted) = bytes.strip_prefix(b"\"") {
        let end = quoted.iter().position(|&b| b == b'"' || b == b'\\')?;
        let text = std::str::from_utf8(&quoted[..end]).ok()?;
        return (quoted[end] == b'"').then(|| NumberOrString::String(text.into()));
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'-'))
        .unwrap_or(bytes.len());
    let number = std::str::from_utf8(&bytes[..end]).ok()?.parse().ok()?;
    Some(NumberOrString::Number(number))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed(line: &[u8]) -> (String, Vec<RequestId>) {
        match decode(line) {
            Decoded::Malformed { problem, ids } => (problem, ids),
            other => panic!("not malformed: {other:?}"),
        }
    }

    #[test]
    fn a_response_decodes_and_blank_lines_and_foreign_notifications_are_skipped() {
        let ok = decode(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r");
        assert!(matches!(ok, Decoded::Message(_)), "{ok:?}");
        assert!(matches!(decode(b"  "), Decoded::Skip));
        let custom = b"{\"jsonrpc\":\"2.0\",\"method\":\"window/logMessage\",\"params\":{}}";
        assert!(matches!(decode(custom), Decoded::Message(_)));
        let foreign = b"{\"method\":\"window/logMessage\",\"params\":{}}";
        assert!(matches!(decode(foreign), Decoded::Skip));
    }

    #[test]
    fn invalid_utf8_names_the_byte_and_keeps_the_id() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"text\":\"ab\xFF\"}}";
        let (problem, ids) = malformed(line);
        let at = line.iter().position(|&b| b == 0xFF).unwrap();
        assert_eq!(problem, format!("invalid UTF-8 at byte {at}"));
        assert_eq!(ids, [NumberOrString::Number(4)]);
    }

    #[test]
    fn text_that_is_not_json_is_scanned_for_ids() {
        let (problem, ids) = malformed(b"oops {\"id\": \"r-1\", \"id\":-2 garbage");
        assert!(problem.starts_with("not JSON: "), "{problem}");
        assert_eq!(
            ids,
            [
                NumberOrString::String("r-1".into()),
                NumberOrString::Number(-2)
            ]
        );
    }

    #[test]
    fn json_that_is_not_json_rpc_says_what_is_missing() {
        let (problem, ids) = malformed(b"{\"id\":3,\"result\":{}}");
        assert_eq!(problem, "not a JSON-RPC message: no \"jsonrpc\": \"2.0\"");
        assert_eq!(ids, [NumberOrString::Number(3)]);
        let (problem, _) = malformed(b"[1,2]");
        assert_eq!(problem, "not a JSON-RPC message: not a JSON object");
    }

    #[test]
    fn scanning_skips_keys_without_a_scalar_value() {
        assert_eq!(
            scan_ids(b"\"id\": {\"x\":1}, \"id\" :9}"),
            [NumberOrString::Number(9)]
        );
        assert!(scan_ids(b"\"id\": \"esc\\\"aped\"").is_empty());
        assert!(scan_ids(b"\"id\"").is_empty());
    }
}
