//! Why a request to an LLM API failed, and the API's own words for it.

use serde_json::Value;

/// How much of an API's answer an error quotes.
pub(super) const QUOTE_LIMIT: usize = 2000;

/// Why a request to the LLM API failed. `api` names the API the way messages say it
/// (`the LLM API`, `the judge API`); no variant ever holds the API key.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No API key in the environment.
    #[error("no API key for {api}: set {vars}")]
    MissingKey {
        /// How messages name the API, e.g. `the Anthropic API`.
        api: &'static str,
        /// The variables that may hold the key, e.g. `GEMINI_API_KEY (or GOOGLE_API_KEY)`.
        vars: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client for the LLM API: {0}")]
    Client(#[source] reqwest::Error),
    /// The API answered with an error status (after the retries, for retryable ones).
    #[error("{api} at {url} answered {}{}: {message}", status_text(*.status), after(*.attempts))]
    Status {
        /// How messages name the API.
        api: &'static str,
        /// The endpoint.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The API's `error.message`, else the body text (trimmed, shortened).
        message: String,
        /// How many requests were sent.
        attempts: u32,
    },
    /// The API could not be reached or did not answer in time (after the retries).
    #[error("cannot reach {api} at {url}{}: {message}", after(*.attempts))]
    Transport {
        /// How messages name the API.
        api: &'static str,
        /// The endpoint.
        url: String,
        /// What went wrong, with its causes.
        message: String,
        /// How many requests were sent.
        attempts: u32,
    },
    /// The reply is not JSON.
    #[error("{api} at {url} sent a malformed reply: {problem}; the reply was: {body}")]
    Malformed {
        /// How messages name the API.
        api: &'static str,
        /// The endpoint.
        url: String,
        /// What is wrong with it.
        problem: String,
        /// The reply (shortened).
        body: String,
    },
}

/// `503 Service Unavailable`: the code and its reason phrase, when the code has one.
fn status_text(status: u16) -> String {
    match reqwest::StatusCode::from_u16(status) {
        Ok(code) => code.to_string(),
        Err(_) => status.to_string(),
    }
}

/// ` after N attempts` when the request was retried, else nothing.
fn after(attempts: u32) -> String {
    if attempts > 1 {
        format!(" after {attempts} attempts")
    } else {
        String::new()
    }
}

/// The API's `error.message` (or a string `error`, or a `message`), else the body text;
/// trimmed and shortened.
pub(super) fn api_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|json| {
        json["error"]["message"]
            .as_str()
            .or_else(|| json["error"].as_str())
            .or_else(|| json["message"].as_str())
    });
    let text = message.unwrap_or(body).trim();
    if text.is_empty() {
        "(empty body)".to_owned()
    } else {
        crate::plumbing::text::shorten(text, QUOTE_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_messages_come_from_error_message_else_the_body() {
        assert_eq!(
            api_message(r#"{"error": {"message": " bad key ", "type": "auth"}}"#),
            "bad key"
        );
        assert_eq!(api_message(r#"{"error": "nope"}"#), "nope");
        assert_eq!(api_message("  gateway down \n"), "gateway down");
        assert_eq!(api_message(""), "(empty body)");
    }

    #[test]
    fn statuses_read_with_their_reason_and_retries_are_counted() {
        let error = LlmError::Status {
            api: "the judge API",
            url: "http://x/chat/completions".into(),
            status: 503,
            message: "(empty body)".into(),
            attempts: 3,
        };
        assert_eq!(
            error.to_string(),
            "the judge API at http://x/chat/completions answered 503 Service Unavailable after 3 attempts: (empty body)"
        );
        let error = LlmError::Transport {
            api: "the LLM API",
            url: "http://x".into(),
            message: "connection refused".into(),
            attempts: 1,
        };
        assert_eq!(
            error.to_string(),
            "cannot reach the LLM API at http://x: connection refused"
        );
    }
}
