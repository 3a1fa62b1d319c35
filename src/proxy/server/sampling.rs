//! A server asking for a model completion (`sampling/createMessage`): answered by the
//! run's scripted model (a task's `sampling` rules) or relayed to the agent, and recorded
//! either way. The same answer serves a classic request and an input round's.

// Sampling and roots are deprecated by the 2026-07-28 protocol; servers still use them.
#![allow(deprecated)]

use rmcp::ErrorData as McpError;
use rmcp::model::{ClientResult, CreateMessageRequestParams, ErrorCode};
use serde_json::Value;

use super::asking::{Answer, Asking, Relayed, RelayedRecord};
use super::routes::CallOrigin;
use crate::trace::{AnsweredBy, RecordedSampling};
use crate::user::{ReplySource, Sampled, SamplingUnmatched, message_texts};

/// The error a client answers a refused sampling request with (the MCP specification's
/// "User rejected sampling request").
const USER_REJECTED: i32 = -1;

impl Asking {
    /// Notes a sampling request the server sent while `call` was in flight: the scripted
    /// model's reply, recorded, or (no script, or `unmatched: agent` when `relay`) the
    /// record to finish once the agent answered.
    pub(crate) async fn sample(
        &self,
        params: &CreateMessageRequestParams,
        call: Option<CallOrigin>,
        relay: bool,
    ) -> Answer {
        let (seq, start_offset) = self.recorder.stamp();
        let call_seq = call.as_ref().map(|call| call.seq);
        let wire = serde_json::to_value(params).unwrap_or_default();
        let mut record = RecordedSampling {
            server: self.server.clone(),
            messages: message_texts(&wire),
            system_prompt: wire["systemPrompt"].as_str().map(str::to_owned),
            during: call.map(CallOrigin::during),
            turn: None,
            answered_by: AnsweredBy::Script,
            rule: None,
            reply: None,
            model: None,
            declined: false,
            failure: None,
            start_offset,
        };
        let relayed = |mut record: RecordedSampling| {
            record.answered_by = AnsweredBy::Agent;
            let pending = RelayedRecord::Sampling(record);
            Answer::Relay(Box::new(Relayed::new(
                &self.recorder,
                seq,
                call_seq,
                pending,
            )))
        };
        let unmatched = match &self.model {
            None if relay => return relayed(record),
            None => SamplingUnmatched::Fail,
            Some(model) => {
                let sampled = Sampled {
                    server: &record.server,
                    tool: record.tool(),
                    texts: &record.messages,
                };
                match model.decide(&sampled).cloned() {
                    Some(rule) => {
                        record.rule = Some(rule.key_path.clone());
                        let reply = match &rule.reply {
                            ReplySource::Text(text) => Ok((text.clone(), rule.model.clone())),
                            ReplySource::Judge => self.ask_judge(&wire).await,
                        };
                        let (text, model) = match reply {
                            Ok(reply) => reply,
                            Err(why) => {
                                let failure = format!("{}: {why}", rule.key_path);
                                record.failure = Some(failure.clone());
                                self.recorder.record_sampling(seq, call_seq, record);
                                return Answer::Refuse(McpError::internal_error(failure, None));
                            }
                        };
                        let result = rule.result(&text, &model);
                        record.reply = Some(text);
                        record.model = Some(model);
                        self.recorder.record_sampling(seq, call_seq, record);
                        return match serde_json::from_value(result) {
                            Ok(result) => Answer::Now(ClientResult::CreateMessageResult(result)),
                            Err(error) => Answer::Refuse(McpError::internal_error(
                                format!("the reply does not read as a result: {error}"),
                                None,
                            )),
                        };
                    }
                    None => model.unmatched,
                }
            }
        };
        let refusal = match unmatched {
            SamplingUnmatched::Agent if relay => return relayed(record),
            SamplingUnmatched::Decline => {
                record.declined = true;
                McpError::new(
                    ErrorCode(USER_REJECTED),
                    "User rejected sampling request",
                    None,
                )
            }
            SamplingUnmatched::Fail | SamplingUnmatched::Agent => {
                let failure = format!("no `sampling` rule answers {}", describe(&record));
                record.failure = Some(failure.clone());
                McpError::internal_error(failure, None)
            }
        };
        self.recorder.record_sampling(seq, call_seq, record);
        Answer::Refuse(refusal)
    }
}

impl Asking {
    /// The judge model's reply to the request `wire` (a rule's `llm: judge`).
    async fn ask_judge(&self, wire: &Value) -> Result<(String, String), String> {
        match &self.sampler {
            Some(sampler) => (sampler.complete(wire).await)
                .map_err(|why| format!("the judge model did not answer: {why}")),
            None => Err("`llm: judge` needs the eval's config.llmJudge".to_owned()),
        }
    }
}

/// `server `notes` "Summarise: …" during tool `summarize``: what a server asked, as an
/// unanswered request's failure says it.
fn describe(record: &RecordedSampling) -> String {
    let last = record.messages.last().map_or("", String::as_str);
    let mut text = format!("server `{}` {:?}", record.server, shorten(last));
    if let Some(tool) = record.tool() {
        text.push_str(&format!(" during tool `{tool}`"));
    }
    text
}

/// The first 120 characters of `text`, with an ellipsis when there were more.
fn shorten(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(120).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}
