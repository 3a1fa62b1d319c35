//! The tools that ask the client back mid-call: `ask` (a sampling and a roots request),
//! `confirm` (an elicitation), `deploy` and `sign_in` (rmcp's typed and URL elicitations),
//! `withdraw` (a sampling request cancelled while the client holds it).

use std::time::Duration;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

use super::{TestServer, from_json, text_result};

impl TestServer {
    /// `ask`: a sampling request and a roots request to the client, mid-call.
    pub(super) async fn ask(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let sampled = context
            .peer
            .create_message(from_json(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "what is 2+2?"}}],
                "maxTokens": 10
            })))
            .await
            .map_err(|e| McpError::internal_error(format!("sampling failed: {e}"), None))?;
        let roots = context
            .peer
            .list_roots()
            .await
            .map_err(|e| McpError::internal_error(format!("roots failed: {e}"), None))?;
        let sampled = serde_json::to_value(&sampled).unwrap();
        let roots = serde_json::to_value(&roots).unwrap();
        Ok(CallToolResponse::Complete(from_json(json!({
            "content": [{"type": "text", "text": "asked"}],
            "structuredContent": {"sampled": sampled, "roots": roots}
        }))))
    }
}

impl TestServer {
    /// `confirm`: an elicitation request to the client, mid-call; its answer comes back as
    /// structured content.
    pub(super) async fn confirm(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let request: ServerRequest = from_json(json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Deploy to production?",
                "requestedSchema": {"type": "object",
                    "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
            }
        }));
        let answer = context
            .peer
            .send_request(request)
            .await
            .map_err(|e| McpError::internal_error(format!("elicitation failed: {e}"), None))?;
        let answer = serde_json::to_value(&answer).unwrap();
        Ok(CallToolResponse::Complete(from_json(json!({
            "content": [{"type": "text", "text": "confirmed"}],
            "structuredContent": {"answer": answer}
        }))))
    }
}

/// What `deploy` asks the user to fill in.
#[derive(Debug, serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct Deployment {
    /// Deploy now.
    confirm: bool,
    /// Where to.
    target: Option<String>,
}

rmcp::elicit_safe!(Deployment);

/// `deploy`: rmcp's typed elicitation (`Peer::elicit`); the answer as text.
pub(super) async fn deploy(context: &RequestContext<RoleServer>) -> CallToolResult {
    let answer = match context
        .peer
        .elicit::<Deployment>("Deploy to production?")
        .await
    {
        Ok(Some(Deployment {
            confirm: true,
            target,
        })) => {
            format!("deployed to {}", target.as_deref().unwrap_or("production"))
        }
        Ok(Some(_)) => "not deployed: not confirmed".to_owned(),
        Ok(None) => "not deployed: no content".to_owned(),
        Err(error) => format!("not deployed: {error}"),
    };
    text_result(&answer)
}

/// `sign_in`: rmcp's URL elicitation (`Peer::elicit_url`); the user's action as text.
pub(super) async fn sign_in(context: &RequestContext<RoleServer>) -> CallToolResult {
    let url = url::Url::parse("https://example.test/sign-in").expect("a URL");
    match context
        .peer
        .elicit_url("Sign in to deploy", url, "sign-in-1")
        .await
    {
        Ok(action) => text_result(&format!("sign-in: {action:?}")),
        Err(error) => text_result(&format!("sign-in failed: {error}")),
    }
}

impl TestServer {
    /// `withdraw`: a sampling request the client is to hold, cancelled 200 ms later.
    pub(super) async fn withdraw(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let request: ServerRequest = from_json(json!({
            "method": "sampling/createMessage",
            "params": {"maxTokens": 10, "messages": [{"role": "user",
                "content": {"type": "text", "text": "wait for cancellation"}}]}
        }));
        let handle = context
            .peer
            .send_request_with_option(request, rmcp::service::PeerRequestOptions::no_options())
            .await
            .map_err(|e| McpError::internal_error(format!("sampling failed: {e}"), None))?;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let _ = handle.cancel(Some("not needed any more".into())).await;
        Ok(CallToolResponse::Complete(text_result("withdrawn")))
    }
}
