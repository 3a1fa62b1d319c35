//! Forwarding one agent request to the real server and its answer back.

use std::sync::Arc;

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientNotification, ClientRequest,
    ErrorCode, ListToolsResult, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServiceError};
use serde::de::DeserializeOwned;

use super::connection::Connection;
use super::routes::CallOrigin;
use crate::proxy::record::CANCELLED_CODE;
use crate::proxy::transport::describe_request;

/// Sends `request` to the server with the agent's `_meta` (progress token translated),
/// waits for the answer, and relays a cancellation by the agent to the server under the
/// server-side request id. A JSON-RPC error of the server comes back unchanged (to
/// `tools/list` it is noted as a failure too); no answer at all is a failure of the server
/// (unless its transport noted one already).
pub(crate) async fn forward(
    connection: &Connection,
    request: ClientRequest,
    context: RequestContext<RoleServer>,
) -> Result<ServerResult, McpError> {
    let noted = connection.failures.count();
    let call = describe_request(&request);
    let upstream_error = |error: &ServiceError| upstream_error(connection, &call, noted, error);
    let agent_token = context.meta.get_progress_token();
    let options = PeerRequestOptions::no_options().with_meta(context.meta.clone());
    let handle = connection
        .peer
        .send_request_with_option(request, options)
        .await
        .map_err(|error| upstream_error(&error))?;
    let upstream_id = handle.id.clone();
    let upstream_token = handle.progress_token.clone();
    connection.routes.open(
        upstream_id.clone(),
        context.id.clone(),
        context.extensions.get::<CallOrigin>().cloned(),
        agent_token.map(|agent_token| (upstream_token.clone(), agent_token)),
    );
    let outcome = tokio::select! {
        response = handle.await_response() => response.map_err(|error| upstream_error(&error)),
        () = context.ct.cancelled() => {
            let cancel = CancelledNotification::new(CancelledNotificationParam::new(
                    Some(upstream_id.clone()),
                    Some("cancelled by the client".into()),
                ));
            let _ = connection
                .peer
                .send_notification(ClientNotification::CancelledNotification(cancel))
                .await;
            Err(McpError::new(ErrorCode(CANCELLED_CODE), "cancelled by the client", None))
        }
    };
    connection.routes.close(&upstream_id, Some(&upstream_token));
    outcome
}

/// A failure to get an answer to `call`, as the JSON-RPC error the agent receives. Noted
/// as a failure of the server unless its transport noted one since the call began (`noted`
/// failures before it) or the server is gone (its exit was noted). A JSON-RPC error of the
/// server is its answer, and a failure only for `tools/list`.
fn upstream_error(
    connection: &Connection,
    call: &str,
    noted: usize,
    error: &ServiceError,
) -> McpError {
    let failures = &connection.failures;
    let unnoted = failures.count() == noted && !failures.is_gone();
    let why = match error {
        // The server working, except for the tool list of a server that declares tools:
        // one that cannot list them offers the agent nothing to call.
        ServiceError::McpError(error) => {
            let offers_tools = connection.init.capabilities.tools.is_some();
            if call == "tools/list" && offers_tools && unnoted {
                failures.note(
                    &format!(
                        "answered tools/list with an error: {} (code {})",
                        error.message, error.code.0
                    ),
                    String::new(),
                );
            }
            return error.clone();
        }
        ServiceError::TransportClosed => {
            "closed the connection (did it exit? see its stderr log)".to_owned()
        }
        other => format!("did not answer: {other}"),
    };
    if unnoted {
        failures.note(&format!("{why} (during {call})"), String::new());
    }
    McpError::internal_error(format!("the MCP server {why}"), None)
}

/// Reads a result that rmcp's untagged decoding filed under another variant as `T`.
pub(crate) fn result_as<T: DeserializeOwned>(result: ServerResult) -> Result<T, McpError> {
    let value = serde_json::to_value(&result)
        .map_err(|error| McpError::internal_error(error.to_string(), None))?;
    serde_json::from_value(value).map_err(|error| {
        McpError::internal_error(
            format!(
                "the MCP server's answer is not a valid {}: {error}",
                std::any::type_name::<T>()
            ),
            None,
        )
    })
}

/// A `tools/list` answer that rmcp filed under another variant, as a tool list; one that
/// holds none is noted as a failure of the server (the agent has nothing to call).
pub(crate) fn tool_list_as(
    connection: Option<&Arc<Connection>>,
    result: ServerResult,
) -> Result<ListToolsResult, McpError> {
    result_as(result).inspect_err(|error| {
        if let Some(connection) = connection
            && connection.init.capabilities.tools.is_some()
        {
            let what = format!("answered tools/list with no tool list: {}", error.message);
            connection.failures.note(&what, String::new());
        }
    })
}
