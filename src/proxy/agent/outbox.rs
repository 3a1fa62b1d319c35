//! Where the messages of one agent session go: the [`Outbox`] that routes what the
//! session's rmcp service loop sends to where the agent waits for it, and the transport
//! that loop runs on ([`SessionTransport`]).

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetExtensions, GetMeta, JsonRpcRequest, ProgressToken,
    RequestId, ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::OriginatingRequestId;
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use crate::plumbing::lock::lock;

/// How many messages for the standalone stream are kept until the agent opens it.
const BACKLOG: usize = 1024;

/// Where the messages of one session's service loop go.
#[derive(Default)]
pub(crate) struct Outbox {
    state: Mutex<Routing>,
}

#[derive(Default)]
struct Routing {
    /// Open agent requests and the channel of each one's reply.
    requests: HashMap<RequestId, OpenRequest>,
    /// Progress tokens of open requests → the request.
    progress: HashMap<ProgressToken, RequestId>,
    /// Server→client requests sent on a request's reply → that request.
    server_requests: HashMap<RequestId, RequestId>,
    standalone: Option<mpsc::UnboundedSender<ServerJsonRpcMessage>>,
    backlog: VecDeque<ServerJsonRpcMessage>,
    closed: bool,
    /// Requests whose HTTP reply an injected fault breaks, by request id.
    broken: HashMap<RequestId, HttpFault>,
}

/// A fault of the HTTP reply itself, injected on purpose (`faults` rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HttpFault {
    /// The session ends and the reply's connection is closed without an answer.
    Disconnect,
    /// HTTP 200 with a body that is not JSON-RPC.
    Malformed,
}

struct OpenRequest {
    reply: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    progress: Option<ProgressToken>,
}

impl Outbox {
    fn lock(&self) -> MutexGuard<'_, Routing> {
        lock(&self.state)
    }

    /// Registers an agent request before it enters the service loop; its reply arrives
    /// on the returned channel.
    pub(crate) fn open(
        &self,
        request: &JsonRpcRequest<ClientRequest>,
    ) -> mpsc::UnboundedReceiver<ServerJsonRpcMessage> {
        let (reply, replies) = mpsc::unbounded_channel();
        let progress = request.request.get_meta().get_progress_token();
        let mut state = self.lock();
        if state.closed {
            return replies;
        }
        if let Some(token) = &progress {
            state.progress.insert(token.clone(), request.id.clone());
        }
        state
            .requests
            .insert(request.id.clone(), OpenRequest { reply, progress });
        replies
    }

    /// Forgets an open request (the agent cancelled it or hung up); `true` if it was open.
    pub(crate) fn cancelled(&self, id: &RequestId) -> bool {
        let mut state = self.lock();
        state.finish(id).is_some()
    }

    /// Breaks the HTTP reply to request `id` (set before its answer is sent).
    pub(crate) fn break_reply(&self, id: RequestId, fault: HttpFault) {
        self.lock().broken.insert(id, fault);
    }

    /// How the reply to request `id` is to be broken, if it is (asked once, with its answer).
    pub(crate) fn take_broken(&self, id: &RequestId) -> Option<HttpFault> {
        self.lock().broken.remove(id)
    }

    /// The standalone stream: the backlog first, then what comes. A new GET replaces an
    /// earlier one.
    pub(crate) fn open_standalone(&self) -> mpsc::UnboundedReceiver<ServerJsonRpcMessage> {
        let (sender, receiver) = mpsc::unbounded_channel();
        let mut state = self.lock();
        if !state.closed {
            for message in state.backlog.drain(..) {
                let _ = sender.send(message);
            }
            state.standalone = Some(sender);
        }
        receiver
    }

    /// Ends every reply and stream: the session is over.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.requests.clear();
        state.progress.clear();
        state.server_requests.clear();
        state.standalone = None;
        state.backlog.clear();
    }

    /// Sends one message of the service loop where the agent waits for it.
    fn route(&self, message: ServerJsonRpcMessage) {
        let mut state = self.lock();
        let target = match &message {
            ServerJsonRpcMessage::Response(response) => {
                state.finish(&response.id).map(|open| open.reply)
            }
            ServerJsonRpcMessage::Error(error) => error
                .id
                .as_ref()
                .and_then(|id| state.finish(id))
                .map(|open| open.reply),
            ServerJsonRpcMessage::Request(request) => {
                let origin = request
                    .request
                    .extensions()
                    .get::<OriginatingRequestId>()
                    .map(|origin| origin.0.clone());
                origin.and_then(|origin| {
                    let reply = state.requests.get(&origin)?.reply.clone();
                    state.server_requests.insert(request.id.clone(), origin);
                    Some(reply)
                })
            }
            ServerJsonRpcMessage::Notification(notification) => {
                let owner = match &notification.notification {
                    ServerNotification::ProgressNotification(progress) => {
                        state.progress.get(&progress.params.progress_token).cloned()
                    }
                    ServerNotification::CancelledNotification(cancelled) => cancelled
                        .params
                        .request_id
                        .as_ref()
                        .and_then(|id| state.server_requests.get(id))
                        .cloned(),
                    _ => None,
                };
                owner
                    .and_then(|owner| state.requests.get(&owner))
                    .map(|open| open.reply.clone())
            }
        };
        match target {
            Some(reply) => {
                let _ = reply.send(message);
            }
            None => state.standalone(message),
        }
    }
}

impl Routing {
    fn finish(&mut self, id: &RequestId) -> Option<OpenRequest> {
        let open = self.requests.remove(id)?;
        if let Some(token) = &open.progress {
            self.progress.remove(token);
        }
        self.server_requests.retain(|_, origin| origin != id);
        Some(open)
    }

    fn standalone(&mut self, message: ServerJsonRpcMessage) {
        if self.closed {
            return;
        }
        if let Some(stream) = &self.standalone {
            match stream.send(message) {
                Ok(()) => return,
                Err(unsent) => {
                    self.standalone = None;
                    self.backlog.push_back(unsent.0);
                }
            }
        } else {
            self.backlog.push_back(message);
        }
        while self.backlog.len() > BACKLOG {
            self.backlog.pop_front();
        }
    }
}

/// The transport one session's rmcp service loop runs on: messages from the agent's POSTs
/// in, the loop's messages out to the [`Outbox`].
pub(crate) struct SessionTransport {
    inbox: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    outbox: Arc<Outbox>,
}

impl SessionTransport {
    pub(crate) fn new(
        inbox: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
        outbox: Arc<Outbox>,
    ) -> Self {
        Self { inbox, outbox }
    }
}

impl Transport<RoleServer> for SessionTransport {
    type Error = Infallible;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Infallible>> + Send + 'static {
        self.outbox.route(message);
        std::future::ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.inbox.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Infallible>> + Send {
        self.inbox.close();
        std::future::ready(Ok(()))
    }
}
