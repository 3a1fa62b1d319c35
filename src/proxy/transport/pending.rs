//! The requests sent to a server and not answered yet, as a transport sees them: so that a
//! server that fails can be told which calls it failed, and those calls end at once.

use std::sync::Mutex;

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorData, RequestId,
    ServerJsonRpcMessage,
};

use crate::plumbing::lock::lock;

/// Requests on their way, in the order sent, each described (`tools/call `echo``).
#[derive(Debug, Default)]
pub(crate) struct Pending(Mutex<Vec<(RequestId, String)>>);

impl Pending {
    /// Notes a message sent to the server: a request waits from now; one the client
    /// cancelled does not any more.
    pub(crate) fn sent(&self, message: &ClientJsonRpcMessage) {
        match message {
            ClientJsonRpcMessage::Request(request) => {
                let what = describe_request(&request.request);
                lock(&self.0).push((request.id.clone(), what));
            }
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancel) =
                    &notification.notification
                    && let Some(id) = &cancel.params.request_id
                {
                    self.remove(id);
                }
            }
            _ => {}
        }
    }

    /// Notes a message from the server: an answer ends its request's wait.
    pub(crate) fn received(&self, message: &ServerJsonRpcMessage) {
        let id = match message {
            ServerJsonRpcMessage::Response(response) => Some(&response.id),
            ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        if let Some(id) = id {
            self.remove(id);
        }
    }

    fn remove(&self, id: &RequestId) -> Option<(RequestId, String)> {
        let mut pending = lock(&self.0);
        let at = pending.iter().position(|(waiting, _)| waiting == id)?;
        Some(pending.remove(at))
    }

    /// The first of `ids` that is waiting, removed, with its description.
    pub(crate) fn take_first(&self, ids: &[RequestId]) -> Option<(RequestId, String)> {
        ids.iter().find_map(|id| self.remove(id))
    }

    /// The one request waiting, removed, when exactly one is.
    pub(crate) fn take_only(&self) -> Option<(RequestId, String)> {
        let mut pending = lock(&self.0);
        (pending.len() == 1).then(|| pending.remove(0))
    }

    /// Every request waiting, removed, in the order sent.
    pub(crate) fn drain(&self) -> Vec<(RequestId, String)> {
        std::mem::take(&mut *lock(&self.0))
    }
}

/// `tools/call `echo``, `resources/read `file:///x``, `prompts/get `p``, or the method.
pub(crate) fn describe_request(request: &ClientRequest) -> String {
    match request {
        ClientRequest::CallToolRequest(call) => format!("tools/call `{}`", call.params.name),
        ClientRequest::ReadResourceRequest(read) => {
            format!("resources/read `{}`", read.params.uri)
        }
        ClientRequest::GetPromptRequest(get) => format!("prompts/get `{}`", get.params.name),
        other => other.method().to_owned(),
    }
}

/// The answer that ends a request the server failed: a JSON-RPC error (internal error)
/// carrying `message`, which names the server and what went wrong.
pub(crate) fn failed_answer(id: RequestId, message: &str) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        ErrorData::internal_error(message.to_owned(), None),
        Some(id),
    )
}
