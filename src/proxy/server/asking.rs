//! A server asking the user back (`elicitation/create`): answered by the run's scripted
//! user (a task's `elicitation` rules) or relayed to the agent, and recorded either way.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{ClientResult, ElicitRequestParams, ElicitResult};

use super::routes::CallOrigin;
use crate::fault::{ELICITATION, FaultAction};
use crate::proxy::inputs::FaultPlan;
use crate::proxy::record::CallRecorder;
use crate::trace::{
    AnsweredBy, During, ElicitationAction, ElicitationMode, Injected, RecordedElicitation,
};
use crate::user::{Asked, ScriptedUser, Unmatched, UserDecision};

/// What a connection needs to answer and record the elicitations of its server.
#[derive(Debug, Clone)]
pub(crate) struct Asking {
    /// The server's name in the MCP config.
    pub(crate) server: String,
    /// The run's recorder.
    pub(crate) recorder: CallRecorder,
    /// The run's scripted user, when its task scripts elicitations.
    pub(crate) user: Option<Arc<ScriptedUser>>,
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
}

/// An elicitation relayed to the agent, recorded once the agent answered.
pub(crate) struct Relayed {
    recorder: CallRecorder,
    seq: u64,
    call_seq: Option<u64>,
    record: RecordedElicitation,
}

impl Asking {
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
        // Read as the wire has it: rmcp's enum of the modes may grow.
        let wire = serde_json::to_value(params).unwrap_or_default();
        let text = |key: &str| wire[key].as_str().map(str::to_owned);
        let mode = match wire["mode"].as_str() {
            Some("url") => ElicitationMode::Url,
            _ => ElicitationMode::Form,
        };
        let message = text("message").unwrap_or_default();
        let requested_schema = Some(wire["requestedSchema"].clone()).filter(|s| !s.is_null());
        let url = text("url");
        let mut record = RecordedElicitation {
            server: self.server.clone(),
            mode,
            message,
            requested_schema,
            url,
            during: call.map(|call| During {
                kind: call.kind,
                name: call.name,
                position: None,
            }),
            answered_by: AnsweredBy::Script,
            rule: None,
            action: None,
            content: None,
            injected: None,
            failure: None,
            start_offset,
        };
        let fault = (self.faults.as_ref())
            .and_then(|plan| plan.hit(&self.server, ELICITATION, None).cloned());
        if let Some(rule) = fault {
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
            return Answer::Now(ClientResult::ElicitResult(ElicitResult::new(rmcp_action(
                action,
            ))));
        }
        let relayed = |mut record: RecordedElicitation| {
            record.answered_by = AnsweredBy::Agent;
            Box::new(Relayed {
                recorder: self.recorder.clone(),
                seq,
                call_seq,
                record,
            })
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

impl Relayed {
    /// Records the elicitation with the agent's answer.
    pub(crate) fn finish(mut self, response: &Result<ClientResult, McpError>) {
        match response {
            Ok(ClientResult::ElicitResult(result)) => {
                self.record.action = our_action(&result.action);
                self.record.content.clone_from(&result.content);
            }
            Ok(_) => self.record.failure = Some("the agent answered with another result".into()),
            Err(error) => {
                self.record.failure = Some(format!("the agent answered: {}", error.message))
            }
        }
        self.recorder
            .record_elicitation(self.seq, self.call_seq, self.record);
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
