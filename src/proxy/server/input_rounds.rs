//! The 2026-07-28 protocol's input rounds: a `tools/call`, `prompts/get` or
//! `resources/read` the server answers with an `InputRequiredResult` is fulfilled by the
//! proxy (elicitations by the scripted user, sampling by the scripted model, `roots/list`
//! with the agent's working directory) and retried with the responses and the request state, until the server
//! answers for good; the agent, on any protocol version, sees only that final answer.

// Sampling and roots are deprecated by the 2026-07-28 protocol; servers still use them.
#![allow(deprecated)]

use rmcp::model::{
    ClientRequest, ClientResult, DEFAULT_MRTR_MAX_ROUNDS, ErrorCode, InputRequest,
    InputRequiredResult, InputResponses, ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::asking::Answer;
use super::connection::Connection;
use super::forward::forward;
use super::routes::CallOrigin;
use crate::proxy::record::CANCELLED_CODE;
use crate::trace::InputRound;

/// Fulfils the rounds of `request`, first answered with `first`, and returns the server's
/// final answer (or why the rounds could not go on). Each round is recorded with the call.
pub(crate) async fn fulfil(
    connection: &Connection,
    request: ClientRequest,
    first: InputRequiredResult,
    context: RequestContext<RoleServer>,
) -> Result<ServerResult, McpError> {
    let call = context.extensions.get::<CallOrigin>().cloned();
    let asking = &connection.asking;
    let mut asked = first;
    for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
        let requests = asked.input_requests.clone().unwrap_or_default();
        let round = InputRound {
            asked: (requests.iter())
                .map(|(key, request)| (key.clone(), method_of(request)))
                .collect(),
            request_state: asked.request_state.clone(),
        };
        if let Some(call) = &call {
            asking.recorder.record_round(call.seq, round);
        }
        let mut responses = InputResponses::new();
        for (key, input) in requests {
            let response = respond(connection, &input, call.clone(), &context).await?;
            responses.insert(key, response);
        }
        let retry = with_responses(request.clone(), responses, asked.request_state.clone())?;
        match forward(connection, retry, context.clone()).await? {
            ServerResult::InputRequiredResult(next) => asked = next,
            done => return Ok(done),
        }
    }
    Err(McpError::internal_error(
        format!(
            "the server asked for input {DEFAULT_MRTR_MAX_ROUNDS} rounds in a row; the proxy gave up"
        ),
        None,
    ))
}

/// The proxy's response to one input request: the scripted user's answer to an
/// elicitation, the agent's working directory as its roots; an error naming what the
/// server asked for when nothing answers it.
pub(super) async fn respond(
    connection: &Connection,
    input: &InputRequest,
    call: Option<CallOrigin>,
    context: &RequestContext<RoleServer>,
) -> Result<Value, McpError> {
    match input {
        InputRequest::Elicitation(elicit) => {
            match connection.asking.receive_in_round(&elicit.params, call) {
                Answer::Now(ClientResult::ElicitResult(result)) => Ok(json!(result)),
                Answer::Now(_) | Answer::Relay(_) => {
                    Err(unanswered(&format!("an elicitation ({:?})", elicit.params)))
                }
                Answer::Refuse(error) => Err(error),
                Answer::Never => {
                    context.ct.cancelled().await;
                    Err(McpError::new(
                        ErrorCode(CANCELLED_CODE),
                        "no answer (injected timeout): the agent cancelled the call",
                        None,
                    ))
                }
            }
        }
        InputRequest::ListRoots(_) => Ok(json!(connection.asking.roots_result())),
        InputRequest::CreateMessage(sample) => {
            match connection.asking.sample(&sample.params, call, false).await {
                Answer::Now(ClientResult::CreateMessageResult(result)) => Ok(json!(result)),
                Answer::Refuse(error) => Err(error),
                Answer::Now(_) | Answer::Relay(_) | Answer::Never => {
                    Err(unanswered("a sampling request"))
                }
            }
        }
        other => Err(unanswered(&format!(
            "`{}`, which mcpeval does not answer in an input round yet",
            method_of(other)
        ))),
    }
}

/// The MCP method of an input request.
fn method_of(input: &InputRequest) -> String {
    let wire = serde_json::to_value(input).unwrap_or_default();
    wire["method"].as_str().unwrap_or("unknown").to_owned()
}

fn unanswered(what: &str) -> McpError {
    McpError::internal_error(
        format!("the server asked for input the proxy cannot give: {what}"),
        None,
    )
}

/// `request` again, carrying the round's responses and the server's request state.
fn with_responses(
    request: ClientRequest,
    responses: InputResponses,
    state: Option<String>,
) -> Result<ClientRequest, McpError> {
    let mut request = request;
    match &mut request {
        ClientRequest::CallToolRequest(call) => {
            call.params.input_responses = Some(responses);
            call.params.request_state = state;
        }
        ClientRequest::GetPromptRequest(get) => {
            get.params.input_responses = Some(responses);
            get.params.request_state = state;
        }
        ClientRequest::ReadResourceRequest(read) => {
            read.params.input_responses = Some(responses);
            read.params.request_state = state;
        }
        _ => {
            return Err(McpError::internal_error(
                "an input round for a request that cannot carry responses",
                None,
            ));
        }
    }
    Ok(request)
}
