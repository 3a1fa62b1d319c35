//! Calls answered with a task handle (the 2026-07-28 Tasks extension): the proxy follows the
//! task for the agent (`tasks/get` at the server's poll interval, its input requests
//! fulfilled through `tasks/update`, `tasks/cancel` when the agent gives up) and the agent,
//! on any protocol version, gets the task's final result. The call's recorded result is
//! that result, with the statuses the task went through. A task still running when the run
//! ends is cancelled at the server before the connection closes ([`TasksInFlight`]), and
//! its call records so.

use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientRequest, CreateTaskResult, ErrorCode, GetTaskParams,
    GetTaskRequest, InputResponses, ServerResult, TaskPayload, UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use tokio::sync::OwnedRwLockReadGuard;
use tokio_util::sync::CancellationToken;

use super::connection::Connection;
use super::forward::forward;
use super::in_flight::END_WAIT;
use super::input_rounds::respond;
use super::routes::CallOrigin;
use crate::proxy::record::{CANCELLED_CODE, CallRecorder};
use crate::trace::TaskStatusStep;

/// How often the task is polled when the server suggests nothing, and at most.
const DEFAULT_POLL: Duration = Duration::from_millis(100);
const MAX_POLL: Duration = Duration::from_secs(2);

/// Follows the task `created` to its end and returns its result as the call's answer.
pub(crate) async fn follow(
    connection: &Connection,
    created: CreateTaskResult,
    context: RequestContext<RoleServer>,
) -> Result<ServerResult, McpError> {
    let call = context.extensions.get::<CallOrigin>().cloned();
    let task_id = created.task.task_id.clone();
    let mut followed = Followed {
        task_id: task_id.clone(),
        call_seq: call.as_ref().map(|call| call.seq),
        recorder: connection.asking.recorder.clone(),
        peer: connection.peer.clone(),
        following: Some(connection.tasks.following.clone().read_owned().await),
        agent_gone: context.ct.clone(),
        run_ended: connection.tasks.run_ended.clone(),
    };
    followed.note(
        status_name(&created.task.status),
        created.task.status_message.clone(),
    );
    let mut poll = poll_interval(created.task.poll_interval_ms);
    loop {
        tokio::select! {
            biased;
            () = connection.tasks.run_ended.cancelled() => return Err(followed.stopped()),
            () = context.ct.cancelled() => return Err(followed.stopped()),
            () = tokio::time::sleep(poll) => {}
        }
        let get = GetTaskRequest::new(GetTaskParams::new(task_id.clone()));
        let answer = forward(
            connection,
            ClientRequest::GetTaskRequest(get),
            context.clone(),
        )
        .await;
        let answer = followed.ended_with(answer)?;
        let ServerResult::GetTaskResult(got) = answer else {
            followed.following = None;
            return Err(McpError::internal_error(
                format!("tasks/get of task `{task_id}` answered with another result"),
                None,
            ));
        };
        let task = got.task.task;
        followed.note(status_name(&task.status), task.status_message.clone());
        poll = poll_interval(task.poll_interval_ms);
        match got.task.payload {
            TaskPayload::Completed { result } => {
                followed.following = None;
                return Ok(result_of(Value::Object(result)));
            }
            TaskPayload::Failed { error } => {
                followed.following = None;
                return Err(error_of(Value::Object(error)));
            }
            TaskPayload::Cancelled => {
                followed.following = None;
                return Err(McpError::internal_error(
                    format!("the server cancelled task `{task_id}`"),
                    None,
                ));
            }
            TaskPayload::InputRequired { input_requests } => {
                let mut responses = InputResponses::new();
                for (key, input) in input_requests {
                    let response = respond(connection, &input, call.clone(), &context).await;
                    responses.insert(key, followed.ended_with(response)?);
                }
                let update =
                    UpdateTaskRequest::new(UpdateTaskParams::new(task_id.clone(), responses));
                let updated = forward(
                    connection,
                    ClientRequest::UpdateTaskRequest(update),
                    context.clone(),
                )
                .await;
                followed.ended_with(updated)?;
            }
            _ => {}
        }
    }
}

/// A task being followed, with its call. Dropped while it still runs (the agent's request
/// given up before the proxy saw it), it is cancelled as when the agent cancels.
struct Followed {
    task_id: String,
    call_seq: Option<u64>,
    recorder: CallRecorder,
    peer: Peer<RoleClient>,
    /// Held while the task runs (the end of the run waits for it); `None` once it ended.
    following: Option<OwnedRwLockReadGuard<()>>,
    /// Cancelled when the agent cancels its call or goes away.
    agent_gone: CancellationToken,
    /// Cancelled when the run ends.
    run_ended: CancellationToken,
}

impl Followed {
    /// Records a status of the task with its call.
    fn note(&self, status: String, message: Option<String>) {
        if let Some(call_seq) = self.call_seq {
            let step = TaskStatusStep {
                task_id: self.task_id.clone(),
                status,
                message,
            };
            self.recorder.record_task_step(call_seq, step);
        }
    }

    /// `outcome`; when it is an error, the task is no longer followed: cancelled when the
    /// run ended or the agent gave up meanwhile (the error says so), else given up as the
    /// server's (or the proxy's inability to go on).
    fn ended_with<T>(&mut self, outcome: Result<T, McpError>) -> Result<T, McpError> {
        if outcome.is_err() {
            if self.run_ended.is_cancelled() || self.agent_gone.is_cancelled() {
                return Err(self.stopped());
            }
            self.following = None;
        }
        outcome
    }

    /// The run ended, or the agent cancelled its call or went away: the task is cancelled.
    fn stopped(&mut self) -> McpError {
        let why = if self.run_ended.is_cancelled() {
            "the run ended"
        } else {
            "the agent cancelled the call, or went away,"
        };
        let why = format!("{why} while task `{}` was still running", self.task_id);
        self.cancel(why)
    }

    /// Cancels the task at the server (`tasks/cancel`, sent from a task of its own that the
    /// end of the run waits for) and notes why; the call's error.
    fn cancel(&mut self, why: String) -> McpError {
        let Some(following) = self.following.take() else {
            return McpError::new(ErrorCode(CANCELLED_CODE), why, None);
        };
        self.note(
            "cancelled".into(),
            Some(format!("{why}: tasks/cancel sent")),
        );
        let request = CancelTaskRequest::new(CancelTaskParams::new(self.task_id.clone()));
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _following = following;
                let request = ClientRequest::CancelTaskRequest(request);
                let _ = tokio::time::timeout(END_WAIT, peer.send_request(request)).await;
            });
        }
        McpError::new(ErrorCode(CANCELLED_CODE), why, None)
    }
}

impl Drop for Followed {
    fn drop(&mut self) {
        if self.following.is_some() {
            self.stopped();
        }
    }
}

fn poll_interval(suggested: Option<u64>) -> Duration {
    suggested
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .min(MAX_POLL)
}

/// `working`, `input_required`, `completed`, …: a status as the wire spells it.
fn status_name(status: &rmcp::model::TaskStatus) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// A completed task's result as the call's answer (a tool result when it reads as one).
fn result_of(result: Value) -> ServerResult {
    match serde_json::from_value(result.clone()) {
        Ok(tool_result) => ServerResult::CallToolResult(tool_result),
        Err(_) => ServerResult::CustomResult(rmcp::model::CustomResult(result)),
    }
}

/// A failed task's JSON-RPC error as the call's error.
fn error_of(error: Value) -> McpError {
    let code = error["code"]
        .as_i64()
        .and_then(|c| i32::try_from(c).ok())
        .unwrap_or(-32603);
    let message = error["message"]
        .as_str()
        .unwrap_or("the task failed")
        .to_owned();
    McpError::new(ErrorCode(code), message, error.get("data").cloned())
}
