//! A server asking the user back (`elicitation/create`): answered by the run's scripted
//! user (a task's `elicitation` rules) or relayed to the agent, and recorded either way.
//! Its sampling requests are answered the same way, by the scripted model (`sampling.rs`).

// Sampling and roots are deprecated by the 2026-07-28 protocol; servers still use them.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{ClientResult, ElicitRequestParams, ElicitResult, ListRootsResult, Root};

use super::routes::CallOrigin;
use crate::fault::{ELICITATION, FaultAction, FaultRule};
use crate::llm::Sampler;
use crate::proxy::inputs::FaultPlan;
use crate::proxy::record::CallRecorder;
use crate::trace::{
    AnsweredBy, ElicitationAction, ElicitationMode, Injected, RecordedElicitation, RecordedSampling,
};
use crate::user::{Asked, ScriptedModel, ScriptedUser, Unmatched, UserDecision};

/// What a connection needs to answer and record the elicitations of its server.
#[derive(Debug, Clone)]
pub(crate) struct Asking {
    /// The server's name in the MCP config.
    pub(crate) server: String,
    /// The run's recorder.
    pub(crate) recorder: CallRecorder,
    /// The run's scripted user, when its task scripts elicitations.
    pub(crate) user: Option<Arc<ScriptedUser>>,
    /// The run's scripted model, when its task scripts sampling.
    pub(crate) model: Option<Arc<ScriptedModel>>,
    /// The judge model that answers for rules with `llm: judge`.
    pub(crate) sampler: Option<Arc<Sampler>>,
    /// The run's faults: a rule on `elicitation/create` answers for the user.
    pub(crate) faults: Option<Arc<FaultPlan>>,
    /// The roots an input round's `roots/list` gets: the agent's working directory.
    pub(crate) roots: Vec<String>,
}

/// How an elicitation is answered.
pub(crate) enum Answer {
    /// Now, by the scripted user or a fault.
    Now(ClientResult),
    /// Never (a `timeout` fault): the server waits until it gives up.
    Never,
    /// By the agent; recorded once it answered.
    Relay(Box<Relayed>),
    /// With an error: a sampling request the scripted model refuses or cannot answer.
    Refuse(McpError),
}

/// A request relayed to the agent, recorded once the agent answered.
pub(crate) struct Relayed {
    recorder: CallRecorder,
    seq: u64,
    call_seq: Option<u64>,
    record: RelayedRecord,
}

/// The record of a relayed request, the agent's answer still to come.
pub(crate) enum RelayedRecord {
    /// An `elicitation/create`.
    Elicitation(RecordedElicitation),
    /// A `sampling/createMessage`.
    Sampling(RecordedSampling),
}

impl Asking {
    /// Whether the proxy answers the server's classic `roots/list` itself (with the
    /// agent's working directory, as in an input round): when the run scripts the user or
    /// the model, so that the server meets the same client whatever the agent.
    pub(crate) fn answers_roots(&self) -> bool {
        self.user.is_some() || self.model.is_some()
    }

    /// The agent's working directory as a `roots/list` result.
    pub(crate) fn roots_result(&self) -> ListRootsResult {
        let roots = (self.roots.iter())
            .map(|uri| Root::new(uri.clone()).with_name("the agent's working directory"))
            .collect();
        ListRootsResult::new(roots)
    }

    /// Notes an elicitation the server sent while `call` was in flight: the answer of a
    /// `faults` rule that hits it or of the scripted user, recorded, or (no script, or
    /// `unmatched: agent`) the record to finish once the agent answered.
    pub(crate) fn receive(&self, params: &ElicitRequestParams, call: Option<CallOrigin>) -> Answer {
        self.answer(params, call, true)
    }

    /// [`receive`](Self::receive) for an elicitation of an input round: there is no agent
    /// request to relay it on, so one no rule answers fails as under `unmatched: fail`.
    pub(crate) fn receive_in_round(
        &self,
        params: &ElicitRequestParams,
        call: Option<CallOrigin>,
    ) -> Answer {
        self.answer(params, call, false)
    }

    fn answer(
        &self,
        params: &ElicitRequestParams,
        call: Option<CallOrigin>,
        relay: bool,
    ) -> Answer {
        let (seq, start_offset) = self.recorder.stamp();
        let call_seq = call.as_ref().map(|call| call.seq);
        let mut record = self.record_of(params, call, start_offset);
        let mode = record.mode;
        let fault = (self.faults.as_ref())
            .and_then(|plan| plan.hit(&self.server, ELICITATION, None).cloned());
        if let Some(rule) = fault {
            return self.answer_by_fault(&rule, record, (seq, call_seq));
        }
        let relayed = |mut record: RecordedElicitation| {
            record.answered_by = AnsweredBy::Agent;
            let pending = RelayedRecord::Elicitation(record);
            Box::new(Relayed::new(&self.recorder, seq, call_seq, pending))
        };
        let unscripted = ScriptedUser::default();
        let user = match &self.user {
            Some(user) => user.as_ref(),
            None if relay => return Answer::Relay(relayed(record)),
            None => &unscripted,
        };
        let asked = Asked {
            server: &record.server,
            tool: record.tool(),
            mode,
            message: &record.message,
            schema: record.requested_schema.as_ref(),
        };
        let (action, content, rule, failure) = match user.decide(&asked) {
            UserDecision::Rule(rule) => match rule.content_for(&asked) {
                Ok(content) => (rule.action, content, Some(rule), None),
                Err(why) => {
                    let failure = format!("{}: {why}", rule.key_path);
                    (ElicitationAction::Cancel, None, Some(rule), Some(failure))
                }
            },
            UserDecision::Unmatched(Unmatched::Agent) if relay => {
                return Answer::Relay(relayed(record));
            }
            UserDecision::Unmatched(Unmatched::Fail | Unmatched::Agent) => {
                let failure = format!("no `elicitation` rule answers {}", describe_asked(&asked));
                (ElicitationAction::Cancel, None, None, Some(failure))
            }
            UserDecision::Unmatched(Unmatched::Decline) => {
                (ElicitationAction::Decline, None, None, None)
            }
            UserDecision::Unmatched(Unmatched::Cancel) => {
                (ElicitationAction::Cancel, None, None, None)
            }
        };
        record.rule = rule.map(|rule| rule.key_path.clone());
        record.action = Some(action);
        record.content.clone_from(&content);
        record.failure = failure;
        self.recorder.record_elicitation(seq, call_seq, record);
        let mut result = ElicitResult::new(rmcp_action(action));
        result.content = content;
        Answer::Now(ClientResult::ElicitResult(result))
    }
}

impl Asking {
    /// The record of an elicitation, read as the wire has it (rmcp's enum of the modes may
    /// grow), not answered yet.
    fn record_of(
        &self,
        params: &ElicitRequestParams,
        call: Option<CallOrigin>,
        start_offset: Duration,
    ) -> RecordedElicitation {
        let wire = serde_json::to_value(params).unwrap_or_default();
        let text = |key: &str| wire[key].as_str().map(str::to_owned);
        RecordedElicitation {
            server: self.server.clone(),
            // No mode, or one this build does not know: a form, as the spec's default.
            mode: (wire["mode"].as_str())
                .and_then(ElicitationMode::from_name)
                .unwrap_or(ElicitationMode::Form),
            message: text("message").unwrap_or_default(),
            requested_schema: Some(wire["requestedSchema"].clone()).filter(|s| !s.is_null()),
            url: text("url"),
            during: call.map(CallOrigin::during),
            turn: None,
            answered_by: AnsweredBy::Script,
            rule: None,
            action: None,
            content: None,
            injected: None,
            failure: None,
            start_offset,
        }
    }

    /// The answer of a `faults` rule on `elicitation/create` (decline, cancel, or none at
    /// all for `timeout`), recorded as injected.
    fn answer_by_fault(
        &self,
        rule: &FaultRule,
        mut record: RecordedElicitation,
        (seq, call_seq): (u64, Option<u64>),
    ) -> Answer {
        record.injected = Some(Injected {
            fault: rule.action.kind(),
            rule: rule.key_path.clone(),
        });
        let action = match rule.action {
            FaultAction::Decline => ElicitationAction::Decline,
            FaultAction::Cancel => ElicitationAction::Cancel,
            // `timeout`: the only other action a rule on `elicitation/create` may have.
            _ => {
                self.recorder.record_elicitation(seq, call_seq, record);
                return Answer::Never;
            }
        };
        record.action = Some(action);
        self.recorder.record_elicitation(seq, call_seq, record);
        Answer::Now(ClientResult::ElicitResult(ElicitResult::new(rmcp_action(
            action,
        ))))
    }
}

impl Relayed {
    pub(super) fn new(
        recorder: &CallRecorder,
        seq: u64,
        call_seq: Option<u64>,
        record: RelayedRecord,
    ) -> Self {
        Self {
            recorder: recorder.clone(),
            seq,
            call_seq,
            record,
        }
    }

    /// Records the request with the agent's answer.
    pub(crate) fn finish(self, response: &Result<ClientResult, McpError>) {
        let failure = match response {
            Ok(ClientResult::ElicitResult(_) | ClientResult::CreateMessageResult(_)) => None,
            Ok(_) => Some("the agent answered with another result".to_owned()),
            Err(error) => Some(format!("the agent answered: {}", error.message)),
        };
        match self.record {
            RelayedRecord::Elicitation(mut record) => {
                if let Ok(ClientResult::ElicitResult(result)) = response {
                    record.action = our_action(&result.action);
                    record.content.clone_from(&result.content);
                }
                record.failure = failure;
                self.recorder
                    .record_elicitation(self.seq, self.call_seq, record);
            }
            RelayedRecord::Sampling(mut record) => {
                if let Ok(ClientResult::CreateMessageResult(result)) = response {
                    let wire = serde_json::to_value(result).unwrap_or_default();
                    (record.reply, record.model) = agent_reply(&wire);
                }
                record.failure = failure;
                self.recorder
                    .record_sampling(self.seq, self.call_seq, record);
            }
        }
    }
}

/// `server `files` (form) "Delete notes.txt?" during tool `delete_file`, properties
/// confirm`: what a server asked, as an unanswered elicitation's failure says it.
fn describe_asked(asked: &Asked<'_>) -> String {
    let mut text = format!(
        "server `{}` ({}) {:?}",
        asked.server,
        asked.mode.as_str(),
        asked.message
    );
    if let Some(tool) = asked.tool {
        text.push_str(&format!(" during tool `{tool}`"));
    }
    let properties = asked
        .schema
        .and_then(|schema| schema["properties"].as_object());
    if let Some(properties) = properties.filter(|props| !props.is_empty()) {
        let names: Vec<&str> = properties.keys().map(String::as_str).collect();
        text.push_str(&format!(", properties {}", names.join(", ")));
    }
    text
}

fn rmcp_action(action: ElicitationAction) -> rmcp::model::ElicitationAction {
    match action {
        ElicitationAction::Accept => rmcp::model::ElicitationAction::Accept,
        ElicitationAction::Decline => rmcp::model::ElicitationAction::Decline,
        ElicitationAction::Cancel => rmcp::model::ElicitationAction::Cancel,
    }
}

fn our_action(action: &rmcp::model::ElicitationAction) -> Option<ElicitationAction> {
    let name = serde_json::to_value(action).ok()?;
    name.as_str().and_then(ElicitationAction::from_name)
}

/// The reply text and model of the agent's answer to a relayed request, as the wire has it.
fn agent_reply(result: &serde_json::Value) -> (Option<String>, Option<String>) {
    let text = result["content"]["text"].as_str().map(str::to_owned);
    let model = result["model"].as_str().map(str::to_owned);
    (text, model)
}
