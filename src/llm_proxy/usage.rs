//! What one model call used, read from the API's answer (live or replayed) as each API
//! reports it: the model, input and output tokens, and the cache's reads and writes, which
//! are priced apart.
//!
//! | API | input | output | cache read | cache write |
//! |---|---|---|---|---|
//! | Anthropic (`usage`, streamed in `message_start` and `message_delta`) | `input_tokens` | `output_tokens` | `cache_read_input_tokens` | `cache_creation_input_tokens` |
//! | OpenAI Chat (`usage`) | `prompt_tokens` less cached | `completion_tokens` | `prompt_tokens_details.cached_tokens` | — |
//! | OpenAI Responses (`response.usage`) | `input_tokens` less cached | `output_tokens` | `input_tokens_details.cached_tokens` | — |
//! | Gemini (`usageMetadata`, the last chunk's) | `promptTokenCount` less cached | `candidatesTokenCount` + `thoughtsTokenCount` | `cachedContentTokenCount` | — |
//!
//! The model is the one the answer names (`model`, Gemini's `modelVersion`), else the
//! request's (its `model`, or Gemini's path `models/<model>:…`).

use serde_json::Value;

use crate::llm::ModelUsage;

use super::LlmApi;
use super::cassette::RecordedResponse;

/// What the call answered with `response` used, when the answer says (a refusal or an
/// answer without usage says nothing).
pub(crate) fn call_usage(
    api: LlmApi,
    path: &str,
    request: &Value,
    response: &RecordedResponse,
) -> Option<ModelUsage> {
    if response.status >= 400 {
        return None;
    }
    let bodies: Vec<&Value> = match (&response.json, &response.sse) {
        (Some(json), _) => vec![json],
        (None, Some(events)) => events.iter().filter_map(|e| e.data.as_ref()).collect(),
        (None, None) => return None,
    };
    let mut usage = ModelUsage {
        calls: 1,
        ..ModelUsage::default()
    };
    let mut model = None;
    let mut found = false;
    for body in bodies {
        let (said, counted) = match api {
            LlmApi::Anthropic => anthropic(body, &mut usage),
            LlmApi::OpenAiChat => chat(body, &mut usage),
            LlmApi::OpenAiResponses => responses(body, &mut usage),
            LlmApi::Gemini => gemini(body, &mut usage),
        };
        model = said.or(model);
        found |= counted;
    }
    if !found {
        return None;
    }
    usage.model = model
        .or_else(|| request["model"].as_str().map(str::to_owned))
        .or_else(|| gemini_path_model(path))
        .unwrap_or_else(|| "unknown".to_owned());
    Some(usage)
}

fn count(value: &Value) -> u64 {
    value.as_u64().unwrap_or(0)
}

/// A message (`message_start`'s `message`, or the whole answer) and `message_delta`: input
/// and cache counts come first, output counts grow (the last is the total).
fn anthropic(body: &Value, usage: &mut ModelUsage) -> (Option<String>, bool) {
    let message = if body["type"] == "message_start" {
        &body["message"]
    } else {
        body
    };
    let model = message["model"].as_str().map(str::to_owned);
    let counts = if message["usage"].is_object() {
        &message["usage"]
    } else {
        &body["usage"]
    };
    if !counts.is_object() {
        return (model, false);
    }
    for (field, slot) in [
        ("input_tokens", &mut usage.input_tokens),
        ("cache_read_input_tokens", &mut usage.cache_read_tokens),
        ("cache_creation_input_tokens", &mut usage.cache_write_tokens),
        ("output_tokens", &mut usage.output_tokens),
    ] {
        if let Some(n) = counts[field].as_u64() {
            *slot = n;
        }
    }
    (model, true)
}

fn chat(body: &Value, usage: &mut ModelUsage) -> (Option<String>, bool) {
    let model = body["model"].as_str().map(str::to_owned);
    let counts = &body["usage"];
    if !counts.is_object() {
        return (model, false);
    }
    let cached = count(&counts["prompt_tokens_details"]["cached_tokens"]);
    usage.cache_read_tokens = cached;
    usage.input_tokens = count(&counts["prompt_tokens"]).saturating_sub(cached);
    usage.output_tokens = count(&counts["completion_tokens"]);
    (model, true)
}

/// The whole answer, or the stream's `response.completed` (whose `response` holds it).
fn responses(body: &Value, usage: &mut ModelUsage) -> (Option<String>, bool) {
    let answer = if body["response"].is_object() {
        &body["response"]
    } else {
        body
    };
    let model = answer["model"].as_str().map(str::to_owned);
    let counts = &answer["usage"];
    if !counts.is_object() {
        return (model, false);
    }
    let cached = count(&counts["input_tokens_details"]["cached_tokens"]);
    usage.cache_read_tokens = cached;
    usage.input_tokens = count(&counts["input_tokens"]).saturating_sub(cached);
    usage.output_tokens = count(&counts["output_tokens"]);
    (model, true)
}

/// Each chunk's `usageMetadata` holds the totals so far: the last one counts.
fn gemini(body: &Value, usage: &mut ModelUsage) -> (Option<String>, bool) {
    let model = body["modelVersion"].as_str().map(str::to_owned);
    let counts = &body["usageMetadata"];
    if !counts.is_object() {
        return (model, false);
    }
    let cached = count(&counts["cachedContentTokenCount"]);
    usage.cache_read_tokens = cached;
    usage.input_tokens = count(&counts["promptTokenCount"]).saturating_sub(cached);
    usage.output_tokens =
        count(&counts["candidatesTokenCount"]) + count(&counts["thoughtsTokenCount"]);
    (model, true)
}

/// `gemini-2.5-pro` of `/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`.
fn gemini_path_model(path: &str) -> Option<String> {
    let rest = path.split("models/").nth(1)?;
    let model = rest.split([':', '?', '/']).next()?;
    (!model.is_empty()).then(|| model.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn json_answer(body: Value) -> RecordedResponse {
        RecordedResponse::capture(
            200,
            Some("application/json".into()),
            body.to_string().as_bytes(),
        )
    }

    fn sse_answer(events: &[Value]) -> RecordedResponse {
        let text: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        RecordedResponse::capture(200, Some("text/event-stream".into()), text.as_bytes())
    }

    #[test]
    fn each_api_says_its_tokens_in_its_own_shape() {
        let anthropic = sse_answer(&[
            json!({"type": "message_start", "message": {"model": "claude-sonnet-4-5-20250929",
                "usage": {"input_tokens": 100, "cache_read_input_tokens": 2000,
                          "cache_creation_input_tokens": 300, "output_tokens": 1}}}),
            json!({"type": "message_delta", "usage": {"output_tokens": 42}}),
        ]);
        let usage = call_usage(LlmApi::Anthropic, "/v1/messages", &json!({}), &anthropic);
        assert_eq!(
            usage,
            Some(ModelUsage {
                model: "claude-sonnet-4-5-20250929".into(),
                calls: 1,
                input_tokens: 100,
                output_tokens: 42,
                cache_read_tokens: 2000,
                cache_write_tokens: 300,
            })
        );
        let chat = json_answer(json!({"model": "gpt-4o", "usage": {"prompt_tokens": 1000,
            "completion_tokens": 50, "prompt_tokens_details": {"cached_tokens": 800}}}));
        let usage = call_usage(LlmApi::OpenAiChat, "/chat/completions", &json!({}), &chat).unwrap();
        assert_eq!(
            (
                usage.input_tokens,
                usage.cache_read_tokens,
                usage.output_tokens
            ),
            (200, 800, 50)
        );
        let responses = sse_answer(&[
            json!({"type": "response.created", "response": {"model": "gpt-5"}}),
            json!({"type": "response.completed", "response": {"model": "gpt-5", "usage":
                {"input_tokens": 500, "output_tokens": 70, "input_tokens_details": {"cached_tokens": 100}}}}),
        ]);
        let usage = call_usage(
            LlmApi::OpenAiResponses,
            "/responses",
            &json!({}),
            &responses,
        )
        .unwrap();
        assert_eq!(
            (
                usage.model.as_str(),
                usage.input_tokens,
                usage.cache_read_tokens,
                usage.output_tokens
            ),
            ("gpt-5", 400, 100, 70)
        );
        // Gemini: the last chunk's totals; the model from the path when the answer names none.
        let gemini = sse_answer(&[
            json!({"usageMetadata": {"promptTokenCount": 10}}),
            json!({"usageMetadata": {"promptTokenCount": 300, "cachedContentTokenCount": 100,
                "candidatesTokenCount": 20, "thoughtsTokenCount": 5}}),
        ]);
        let path = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
        let usage = call_usage(LlmApi::Gemini, path, &json!({}), &gemini).unwrap();
        assert_eq!(
            (
                usage.model.as_str(),
                usage.input_tokens,
                usage.cache_read_tokens,
                usage.output_tokens
            ),
            ("gemini-2.5-pro", 200, 100, 25)
        );
        // The request's model when the answer names none; nothing for a refusal.
        let bare = json_answer(json!({"usage": {"prompt_tokens": 1, "completion_tokens": 1}}));
        let usage = call_usage(
            LlmApi::OpenAiChat,
            "/chat/completions",
            &json!({"model": "m"}),
            &bare,
        );
        assert_eq!(usage.unwrap().model, "m");
        let refused = RecordedResponse::capture(401, None, b"{}");
        assert_eq!(
            call_usage(LlmApi::OpenAiChat, "/x", &json!({}), &refused),
            None
        );
    }
}
