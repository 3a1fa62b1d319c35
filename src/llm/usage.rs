//! Token usage as the LLM APIs report it.

use serde_json::Value;

/// Tokens used by an agent run, summed over every reply's `usage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// `prompt_tokens`.
    pub prompt_tokens: u64,
    /// `completion_tokens`.
    pub completion_tokens: u64,
    /// `total_tokens` (prompt plus completion when the API does not say).
    pub total_tokens: u64,
}

impl TokenUsage {
    /// Usage of `prompt` and `completion` tokens, `total` when the API says it (else their
    /// sum).
    pub fn new(prompt: u64, completion: u64, total: Option<u64>) -> Self {
        Self {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: total.unwrap_or(prompt + completion),
        }
    }

    /// Adds `other` to these counts.
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
    }

    /// Adds the `usage` of one Chat Completions reply; a reply without one adds nothing.
    pub fn add_reply(&mut self, reply: &Value) {
        let usage = &reply["usage"];
        let count = |key: &str| usage[key].as_u64().unwrap_or(0);
        let (prompt, completion) = (count("prompt_tokens"), count("completion_tokens"));
        let total = usage["total_tokens"]
            .as_u64()
            .unwrap_or(prompt + completion);
        self.prompt_tokens += prompt;
        self.completion_tokens += completion;
        self.total_tokens += total;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_is_summed_over_replies() {
        let mut usage = TokenUsage::default();
        usage.add_reply(
            &json!({"usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}),
        );
        usage.add_reply(&json!({"usage": {"prompt_tokens": 7, "completion_tokens": 3}}));
        usage.add_reply(&json!({"choices": []}));
        assert_eq!(
            usage,
            TokenUsage {
                prompt_tokens: 17,
                completion_tokens: 8,
                total_tokens: 25
            }
        );
    }
}

/// The tokens of one or more model calls of one model.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    /// The model.
    pub model: String,
    /// The calls counted.
    pub calls: u64,
    /// Input tokens not read from the cache (cache writes included for APIs that count them
    /// apart: Anthropic's are in `cache_write_tokens`).
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache (Anthropic).
    #[serde(default)]
    pub cache_write_tokens: u64,
}

impl ModelUsage {
    /// Adds `other`'s counts (of the same model).
    pub fn add(&mut self, other: &ModelUsage) {
        self.calls += other.calls;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }

    /// `usages` summed per model, in the order each model first came.
    pub fn per_model<'a>(usages: impl IntoIterator<Item = &'a ModelUsage>) -> Vec<ModelUsage> {
        let mut summed: Vec<ModelUsage> = Vec::new();
        for usage in usages {
            match summed.iter_mut().find(|u| u.model == usage.model) {
                Some(sum) => sum.add(usage),
                None => summed.push(usage.clone()),
            }
        }
        summed
    }
}
