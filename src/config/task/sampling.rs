//! `sampling:` of a task set (`config.taskSets[i].sampling`) and of a task file
//! (`spec.sampling`): the scripted model's replies to a server's `sampling/createMessage`,
//! validated into a [`SamplingScript`]. An mcpeval key: mcpchecker ignores it.

use serde::Deserialize;

use crate::config::files::check::Checker;
use crate::user::{ReplyRule, ReplySource, SCRIPTED_MODEL, SamplingScript, SamplingUnmatched};

/// The stop reasons a scripted reply may give, as the protocol spells them.
const STOP_REASONS: [&str; 4] = ["endTurn", "stopSequence", "maxTokens", "toolUse"];

/// `sampling` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::config) struct RawSampling {
    #[serde(default)]
    rules: Vec<RawReplyRule>,
    unmatched: Option<String>,
}

/// One rule as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawReplyRule {
    server: Option<String>,
    tool: Option<String>,
    message: Option<String>,
    reply: Option<String>,
    llm: Option<String>,
    model: Option<String>,
    stop_reason: Option<String>,
}

/// Validates the `sampling` written at `key` (`spec.sampling`, `config.taskSets[0].sampling`);
/// `servers` are the MCP config's server names when known.
pub(in crate::config) fn sampling_script(
    check: &mut Checker<'_>,
    key: &str,
    raw: Option<RawSampling>,
    servers: Option<&[&str]>,
) -> Option<SamplingScript> {
    let raw = raw?;
    let unmatched = (raw.unmatched)
        .filter(|name| check.one_of(&format!("{key}.unmatched"), name, &SamplingUnmatched::NAMES))
        .and_then(|name| SamplingUnmatched::from_name(&name));
    let rules = (raw.rules.into_iter().enumerate())
        .filter_map(|(i, rule)| rule.validate(check, &format!("{key}.rules[{i}]"), servers))
        .collect();
    Some(SamplingScript { rules, unmatched })
}

impl RawReplyRule {
    fn validate(
        self,
        check: &mut Checker<'_>,
        key: &str,
        servers: Option<&[&str]>,
    ) -> Option<ReplyRule> {
        let errors = check.error_count();
        if let Some(server) = &self.server {
            check.known_server(&format!("{key}.server"), server, servers);
        }
        let message = (self.message.as_deref())
            .and_then(|pattern| check.regex(&format!("{key}.message"), pattern));
        let reply = match (self.reply, self.llm.as_deref()) {
            (Some(text), None) => Some(ReplySource::Text(text)),
            (None, Some(llm)) => {
                check.one_of(&format!("{key}.llm"), llm, &["judge"]);
                Some(ReplySource::Judge)
            }
            (None, None) => {
                let expected = "a rule needs `reply` (the text the model answers with) or `llm: judge` (the eval's judge model answers)";
                check.error(format!("{key}.reply"), expected);
                None
            }
            (Some(_), Some(_)) => {
                check.error(
                    format!("{key}.llm"),
                    "a rule has `reply` or `llm`, not both",
                );
                None
            }
        };
        let stop_reason = self.stop_reason.unwrap_or_else(|| "endTurn".to_owned());
        check.one_of(&format!("{key}.stopReason"), &stop_reason, &STOP_REASONS);
        if check.error_count() > errors {
            return None;
        }
        Some(ReplyRule {
            key_path: key.to_owned(),
            server: self.server,
            tool: self.tool,
            message,
            reply: reply?,
            model: self.model.unwrap_or_else(|| SCRIPTED_MODEL.to_owned()),
            stop_reason,
        })
    }
}
