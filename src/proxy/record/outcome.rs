//! Turning a forwarded answer into the outcome the trace records.

use rmcp::ErrorData as McpError;
use serde::Serialize;

use crate::trace::Outcome;

/// The outcome of a call: the result as JSON and whether it is an `isError` result (as
/// `describe` tells), or the JSON-RPC error.
pub(crate) fn call_outcome<T>(
    response: &Result<T, McpError>,
    describe: impl Fn(&T) -> (serde_json::Value, bool),
) -> Outcome {
    match response {
        Ok(result) => match describe(result) {
            (json, true) => Outcome::IsError { result: json },
            (json, false) => Outcome::Ok { result: json },
        },
        Err(error) => Outcome::Error {
            code: error.code.0,
            message: error.message.to_string(),
        },
    }
}

/// A result as JSON (`null` if it cannot be serialised, which plain data never fails).
pub(crate) fn json(value: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// The outcome of a list call: the page's items as JSON, or the error message.
pub(crate) fn list_outcome<T, I: Serialize>(
    response: &Result<T, McpError>,
    items: impl Fn(&T) -> &[I],
) -> Result<Vec<serde_json::Value>, String> {
    match response {
        Ok(result) => Ok(items(result).iter().map(json).collect()),
        Err(error) => Err(error.message.to_string()),
    }
}
