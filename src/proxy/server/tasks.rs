//! Calls answered with a task handle (the 2026-07-28 Tasks extension): the proxy follows the
//! task for the agent (`tasks/get` at the server's poll interval, its input requests
//! fulfilled through `tasks/update`, `tasks/cancel` when the agent gives up) and the agent,
//! on any protocol version, gets the task's final result. The call's recorded result is
//! that result, with the statuses the task went through.

use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, CancelTaskRequest, ClientRequest, CreateTaskResult, ErrorCode, GetTaskParams,
    GetTaskRequest, InputResponses, ServerResult, TaskPayload, UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;

use super::connection::Connection;
use super::forward::forward;
use super::input_rounds::respond;
use super::routes::CallOrigin;
use crate::proxy::record::CANCELLED_CODE;
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
    let note = |status: String, message: Option<String>| {
        if let Some(call) = &call {
            let step = TaskStatusStep {
                task_id: task_id.clone(),
                status,
                message,
            };
            connection.asking.recorder.record_task_step(call.seq, step);
        }
    };
    note(
        status_name(&created.task.status),
        created.task.status_message.clone(),
    );
    let mut poll = poll_interval(created.task.poll_interval_ms);
    loop {
        tokio::select! {
            () = tokio::time::sleep(poll) => {}
            () = context.ct.cancelled() => {
                let cancel = CancelTaskRequest::new(CancelTaskParams::new(task_id.clone()));
                let _ = connection.peer.send_request(ClientRequest::CancelTaskRequest(cancel)).await;
                note("cancelled".into(), Some("the agent gave up on the call: tasks/cancel sent".into()));
                return Err(McpError::new(ErrorCode(CANCELLED_CODE), "cancelled by the client", None));
            }
        }
        let get = GetTaskRequest::new(GetTaskParams::new(task_id.clone()));
        let answer = forward(
            connection,
            ClientRequest::GetTaskRequest(get),
            context.clone(),
        )
        .await?;
        let ServerResult::GetTaskResult(got) = answer else {
            return Err(McpError::internal_error(
                format!("tasks/get of task `{task_id}` answered with another result"),
                None,
            ));
        };
        let task = got.task.task;
        note(status_name(&task.status), task.status_message.clone());
        poll = poll_interval(task.poll_interval_ms);
        match got.task.payload {
            TaskPayload::Completed { result } => return Ok(result_of(Value::Object(result))),
            TaskPayload::Failed { error } => return Err(error_of(Value::Object(error))),
            TaskPayload::Cancelled => {
                return Err(McpError::internal_error(
                    format!("the server cancelled task `{task_id}`"),
                    None,
                ));
            }
            TaskPayload::InputRequired { input_requests } => {
                let mut responses = InputResponses::new();
                for (key, input) in input_requests {
                    let response = respond(connection, &input, call.clone(), &context).await?;
                    responses.insert(key, response);
                }
                let update =
                    UpdateTaskRequest::new(UpdateTaskParams::new(task_id.clone(), responses));
                forward(
                    connection,
                    ClientRequest::UpdateTaskRequest(update),
                    context.clone(),
                )
                .await?;
            }
            _ => {}
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
