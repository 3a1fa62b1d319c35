//! A server's `sampling/createMessage` answered by a real model: the request's messages
//! (their text) and system prompt sent to an OpenAI-compatible Chat Completions API, the
//! reply's text and model given back. What the eval's judge model does for a task's
//! `sampling` rule `llm: judge`.

use serde_json::{Value, json};

use super::ChatClient;

/// A Chat Completions model that answers sampling requests.
pub struct Sampler {
    client: Box<dyn ChatClient>,
    model: String,
}

impl std::fmt::Debug for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampler")
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Sampler {
    /// `model`, reached through `client`.
    pub fn new(client: Box<dyn ChatClient>, model: impl Into<String>) -> Self {
        Self {
            client,
            model: model.into(),
        }
    }

    /// The reply's text and the model that gave it, for the sampling request `params`
    /// (as the wire has them); an error saying why there is none.
    pub async fn complete(&self, params: &Value) -> Result<(String, String), String> {
        let request = chat_request(&self.model, params);
        let reply = (self.client.complete(&request).await).map_err(|error| error.to_string())?;
        let text = reply
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or("the model's answer has no message content")?;
        let model = reply["model"].as_str().unwrap_or(&self.model);
        Ok((text.to_owned(), model.to_owned()))
    }
}

/// The Chat Completions request of a sampling request: its system prompt first, then each
/// message with its role and its text blocks, its token limit, temperature and stop
/// sequences.
fn chat_request(model: &str, params: &Value) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = params["systemPrompt"].as_str() {
        messages.push(json!({"role": "system", "content": system}));
    }
    let texts = crate::user::message_texts(params);
    let roles = (params["messages"].as_array().into_iter().flatten())
        .map(|message| message["role"].as_str().unwrap_or("user"));
    for (role, text) in roles.zip(texts) {
        messages.push(json!({"role": role, "content": text}));
    }
    let mut request = json!({"model": model, "messages": messages});
    if let Some(max) = params["maxTokens"].as_u64() {
        request["max_tokens"] = json!(max);
    }
    if let Some(temperature) = params.get("temperature").filter(|t| t.is_number()) {
        request["temperature"] = temperature.clone();
    }
    if let Some(stop) = params.get("stopSequences").filter(|s| s.is_array()) {
        request["stop"] = stop.clone();
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sampling_request_becomes_a_chat_request() {
        let params = json!({
            "systemPrompt": "Be brief.",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarise: a, b"}},
                {"role": "assistant", "content": [{"type": "text", "text": "Two."}]}
            ],
            "maxTokens": 50,
            "temperature": 0.2,
            "stopSequences": ["\n"]
        });
        assert_eq!(
            chat_request("gpt-4o-mini", &params),
            json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "Summarise: a, b"},
                    {"role": "assistant", "content": "Two."}
                ],
                "max_tokens": 50,
                "temperature": 0.2,
                "stop": ["\n"]
            })
        );
    }
}
