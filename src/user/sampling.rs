//! The scripted user's model: a task's `sampling` rules, which answer a server's
//! `sampling/createMessage` (asked classically or in a 2026-07-28 input round) with a
//! scripted reply, the same for every agent, so that a server that samples is tested
//! deterministically and offline.
//!
//! A rule says which request it answers (`server`, the `tool` being called, a `message`
//! pattern some message of the request matches) and with what: a scripted `reply` (the
//! `model` named in the result, its `stopReason`), or `llm: judge`, the eval's judge model
//! asked through mcpeval's own LLM client, its calls recorded in the run's cassette. The
//! first rule that matches answers; `unmatched` says what happens to any other request.

use regex::Regex;
use serde_json::{Value, json};

/// The model a scripted reply names when its rule names none.
pub const SCRIPTED_MODEL: &str = "mcpeval-scripted";

/// One `sampling.rules` entry.
#[derive(Debug, Clone)]
pub struct ReplyRule {
    /// Where it is written: `spec.sampling.rules[0]` or `config.taskSets[0].sampling.rules[1]`.
    pub key_path: String,
    /// `server`: only this server's requests.
    pub server: Option<String>,
    /// `tool`: only requests made while this tool is being called.
    pub tool: Option<String>,
    /// `message`: a pattern the text of some message of the request must contain a match of.
    pub message: Option<Regex>,
    /// What answers: a scripted text or the judge's model.
    pub reply: ReplySource,
    /// `model`: the model the result names ([`SCRIPTED_MODEL`] unless written).
    pub model: String,
    /// `stopReason`: why the reply ended (`endTurn` unless written).
    pub stop_reason: String,
}

/// What answers a request a rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplySource {
    /// `reply`: this text, "answered" by the rule's `model`.
    Text(String),
    /// `llm: judge`: the eval's judge model (`config.llmJudge`), through mcpeval's own LLM
    /// client and the run's cassette (its `sampling` section).
    Judge,
}

/// What happens to a sampling request no rule matches (`sampling.unmatched`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SamplingUnmatched {
    /// `fail` (the default): the server gets an error, and the run fails naming what the
    /// server asked.
    #[default]
    Fail,
    /// `decline`: the server gets the user's refusal (error code -1), the run goes on.
    Decline,
    /// `agent`: relayed to the agent, as without rules (in an input round, where there is
    /// no agent request to relay it on, as `fail`).
    Agent,
}

impl SamplingUnmatched {
    /// The values `unmatched` takes, as written.
    pub const NAMES: [&'static str; 3] = ["fail", "decline", "agent"];

    /// The value named `name`, as written.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "fail" => Some(Self::Fail),
            "decline" => Some(Self::Decline),
            "agent" => Some(Self::Agent),
            _ => None,
        }
    }
}

/// A task's `sampling`, or a task set's, as written there.
#[derive(Debug, Clone, Default)]
pub struct SamplingScript {
    /// The rules, in order.
    pub rules: Vec<ReplyRule>,
    /// `unmatched`, when written.
    pub unmatched: Option<SamplingUnmatched>,
}

/// The model of one run: the task's `sampling` rules, then its task sets', and one
/// `unmatched`.
#[derive(Debug, Clone, Default)]
pub struct ScriptedModel {
    /// The rules, in the order they are tried.
    pub rules: Vec<ReplyRule>,
    /// What happens to a request no rule matches.
    pub unmatched: SamplingUnmatched,
}

/// A sampling request as the scripted model sees it.
#[derive(Debug, Clone, Copy)]
pub struct Sampled<'a> {
    /// The server asking.
    pub server: &'a str,
    /// The tool being called when it asked, if a tool call was in flight.
    pub tool: Option<&'a str>,
    /// The texts of the request's messages, in order.
    pub texts: &'a [String],
}

impl ScriptedModel {
    /// The model of a run whose task has `task` and whose task sets have `sets`; `None`
    /// when none of them scripts sampling.
    pub fn of<'a>(
        task: Option<&'a SamplingScript>,
        sets: impl IntoIterator<Item = &'a SamplingScript>,
    ) -> Option<Self> {
        let scripts: Vec<&SamplingScript> = task.into_iter().chain(sets).collect();
        if scripts.is_empty() {
            return None;
        }
        Some(Self {
            rules: (scripts.iter())
                .flat_map(|script| script.rules.iter().cloned())
                .collect(),
            unmatched: (scripts.iter())
                .find_map(|script| script.unmatched)
                .unwrap_or_default(),
        })
    }

    /// The first rule that answers `sampled`, if any.
    pub fn decide(&self, sampled: &Sampled<'_>) -> Option<&ReplyRule> {
        self.rules.iter().find(|rule| rule.matches(sampled))
    }

    /// The first rule answered by the judge's model (`llm: judge`), if any: the run needs
    /// the judge then.
    pub fn judge_rule(&self) -> Option<&ReplyRule> {
        (self.rules.iter()).find(|rule| rule.reply == ReplySource::Judge)
    }
}

impl ReplyRule {
    /// Whether the rule answers `sampled`.
    pub fn matches(&self, sampled: &Sampled<'_>) -> bool {
        self.server.as_deref().is_none_or(|s| s == sampled.server)
            && self.tool.as_deref().is_none_or(|t| Some(t) == sampled.tool)
            && (self.message.as_ref())
                .is_none_or(|regex| sampled.texts.iter().any(|text| regex.is_match(text)))
    }

    /// The `sampling/createMessage` result of a reply `text` from `model`, as the wire has
    /// it, ended for the rule's `stopReason`.
    pub fn result(&self, text: &str, model: &str) -> Value {
        json!({
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": model,
            "stopReason": self.stop_reason,
        })
    }
}

/// The texts of a `sampling/createMessage` request's messages (`params` as the wire has
/// it): each message's text content, its text blocks joined by a newline.
pub fn message_texts(params: &Value) -> Vec<String> {
    let texts_of = |content: &Value| -> String {
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            block => vec![block],
        };
        (blocks.iter())
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    (params["messages"].as_array().into_iter().flatten())
        .map(|message| texts_of(&message["content"]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(reply: &str) -> ReplyRule {
        ReplyRule {
            key_path: "spec.sampling.rules[0]".into(),
            server: None,
            tool: None,
            message: None,
            reply: ReplySource::Text(reply.into()),
            model: SCRIPTED_MODEL.into(),
            stop_reason: "endTurn".into(),
        }
    }

    #[test]
    fn a_rule_matches_on_every_key_it_has() {
        let texts = vec!["Summarise: cats".to_owned(), "and dogs".to_owned()];
        let sampled = Sampled {
            server: "notes",
            tool: Some("summarize"),
            texts: &texts,
        };
        let keyed = |edit: &dyn Fn(&mut ReplyRule)| {
            let mut rule = rule("x");
            edit(&mut rule);
            rule.matches(&sampled)
        };
        assert!(keyed(&|_| {}));
        assert!(keyed(&|r| r.server = Some("notes".into())));
        assert!(!keyed(&|r| r.server = Some("files".into())));
        assert!(keyed(&|r| r.tool = Some("summarize".into())));
        assert!(!keyed(&|r| r.tool = Some("delete".into())));
        assert!(keyed(&|r| r.message = Regex::new("^and").ok()));
        assert!(!keyed(&|r| r.message = Regex::new("birds").ok()));
    }

    #[test]
    fn the_task_s_rules_come_first_and_its_unmatched_wins() {
        let task = SamplingScript {
            rules: vec![rule("from the task")],
            unmatched: None,
        };
        let set = SamplingScript {
            rules: vec![rule("from the set")],
            unmatched: Some(SamplingUnmatched::Decline),
        };
        let model = ScriptedModel::of(Some(&task), [&set]).unwrap();
        let sampled = Sampled {
            server: "notes",
            tool: None,
            texts: &[],
        };
        assert_eq!(
            model.decide(&sampled).unwrap().reply,
            ReplySource::Text("from the task".into())
        );
        assert_eq!(model.unmatched, SamplingUnmatched::Decline);
        assert!(ScriptedModel::of(None, []).is_none());
    }

    #[test]
    fn texts_are_read_from_text_blocks_and_block_lists() {
        let params = json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "one"}},
            {"role": "user", "content": [
                {"type": "text", "text": "two"},
                {"type": "image", "data": "…"},
                {"type": "text", "text": "three"}
            ]}
        ]});
        assert_eq!(message_texts(&params), ["one", "two\nthree"]);
        let result = rule("Cats.").result("Cats.", SCRIPTED_MODEL);
        assert_eq!(result["content"]["text"], "Cats.");
        assert_eq!(result["model"], SCRIPTED_MODEL);
        assert_eq!(result["stopReason"], "endTurn");
    }
}
