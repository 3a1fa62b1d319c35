//! The proxy's face towards the agent: MCP's streamable HTTP transport, served by axum.
//!
//! Each `initialize` POST opens a session (`Mcp-Session-Id`) that runs an [`AgentSession`]
//! under rmcp's service loop, fed through a [`SessionTransport`]. What the loop sends back
//! is routed by [`Outbox`] to where the agent waits for it:
//!
//! - the answer to a request, and the progress notifications and server→client requests
//!   made on its behalf, go to that request's own POST reply;
//! - everything else goes to the session's standalone stream (the agent's GET), kept in a
//!   backlog until the agent opens one.
//!
//! A POST whose answer is the first thing the server sends back, and comes within
//! [`JSON_WINDOW`], is answered with one `application/json` body; otherwise the reply
//! becomes an SSE stream, with keep-alive comments while the request runs. Both are
//! allowed by the transport, and clients must accept both. A plain JSON answer keeps the
//! connection reusable and spares the agent an SSE parse per call, which is most of what
//! a proxied call costs over HTTP (see the README's performance section).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientJsonRpcMessage, ClientNotification,
    ClientRequest, ErrorData, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::serve_server_with_ct;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::fault_layer::FaultLayer;
use super::http_checks::{
    EVENT_STREAM, HttpRefusal, SESSION_ID, SESSION_NOT_FOUND, SESSION_REQUIRED, accepts,
    check_loopback, check_post, json, jsonrpc_error, parse_message, plain,
};
use super::outbox::{HttpFault, Outbox, SessionTransport};
use super::shared::ProxyState;
use crate::plumbing::lock::lock;

/// How long a POST waits for its answer before the reply turns into an SSE stream.
const JSON_WINDOW: Duration = Duration::from_millis(500);
/// The interval of SSE keep-alive comments.
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// The largest request body accepted (rmcp's own limit).
const MAX_BODY: usize = 4 * 1024 * 1024;

/// The sessions of one proxy.
pub(crate) struct AgentHttp {
    shared: Arc<ProxyState>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The proxy's stop signal: ends every session and stream.
    stop: CancellationToken,
}

struct Session {
    inbox: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    outbox: Arc<Outbox>,
    ct: CancellationToken,
}

impl AgentHttp {
    pub(crate) fn new(shared: Arc<ProxyState>, stop: CancellationToken) -> Arc<Self> {
        Arc::new(Self {
            shared,
            sessions: Mutex::new(HashMap::new()),
            stop,
        })
    }

    /// The axum router serving `/mcp`.
    pub(crate) fn router(self: Arc<Self>) -> axum::Router {
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::post(post)
                    .get(get)
                    .delete(delete)
                    .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY)),
            )
            .with_state(self)
    }

    fn session(&self, headers: &HeaderMap) -> Result<Arc<Session>, HttpRefusal> {
        let Some(id) = headers.get(SESSION_ID) else {
            return Err(HttpRefusal(
                StatusCode::BAD_REQUEST,
                SESSION_REQUIRED.into(),
            ));
        };
        let id = id.to_str().unwrap_or_default();
        lock(&self.sessions)
            .get(id)
            .filter(|session| !session.ct.is_cancelled())
            .cloned()
            .ok_or_else(|| HttpRefusal(StatusCode::NOT_FOUND, SESSION_NOT_FOUND.into()))
    }

    /// Opens a session for an `initialize` request and starts its service loop.
    fn open_session(self: &Arc<Self>) -> (String, Arc<Session>, SessionTransport) {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let (inbox, receiver) = mpsc::unbounded_channel();
        let outbox = Arc::new(Outbox::default());
        let session = Arc::new(Session {
            inbox,
            outbox: outbox.clone(),
            ct: self.stop.child_token(),
        });
        lock(&self.sessions).insert(id.clone(), session.clone());
        let transport = SessionTransport::new(receiver, outbox);
        (id, session, transport)
    }

    fn run_session(self: &Arc<Self>, id: String, session: &Session, transport: SessionTransport) {
        let http = self.clone();
        let ct = session.ct.clone();
        let outbox = session.outbox.clone();
        let service = FaultLayer::new(self.shared.clone(), outbox.clone());
        tokio::spawn(async move {
            if let Ok(running) = serve_server_with_ct(service, transport, ct.clone()).await {
                let _ = running.waiting().await;
            }
            ct.cancel();
            lock(&http.sessions).remove(&id);
            outbox.close();
        });
    }
}

async fn post(State(http): State<Arc<AgentHttp>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(refusal) = check_post(&headers) {
        return refusal.into_response();
    }
    let message = match parse_message(&headers, &body) {
        Ok(message) => message,
        Err(refusal) => return refusal.into_response(),
    };
    if !headers.contains_key(SESSION_ID) {
        return initialize(&http, message).await;
    }
    let session = match http.session(&headers) {
        Ok(session) => session,
        Err(refusal) => return refusal.into_response(),
    };
    match message {
        ClientJsonRpcMessage::Request(request) => {
            let id = request.id.clone();
            let replies = session.outbox.open(&request);
            if session
                .inbox
                .send(ClientJsonRpcMessage::Request(request))
                .is_err()
            {
                return plain(StatusCode::NOT_FOUND, SESSION_NOT_FOUND);
            }
            reply(id, replies, &session, &http.stop).await
        }
        other => {
            if let ClientJsonRpcMessage::Notification(notification) = &other
                && let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                && let Some(id) = &cancelled.params.request_id
            {
                session.outbox.cancelled(id);
            }
            match session.inbox.send(other) {
                Ok(()) => StatusCode::ACCEPTED.into_response(),
                Err(_) => plain(StatusCode::NOT_FOUND, SESSION_NOT_FOUND),
            }
        }
    }
}

/// A POST without a session: only `initialize` may open one.
async fn initialize(http: &Arc<AgentHttp>, message: ClientJsonRpcMessage) -> Response {
    match message {
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
        {
            let (session_id, session, transport) = http.open_session();
            let id = request.id.clone();
            let replies = session.outbox.open(&request);
            let _ = session.inbox.send(ClientJsonRpcMessage::Request(request));
            http.run_session(session_id.clone(), &session, transport);
            let mut response = reply(id, replies, &session, &http.stop).await;
            if let Ok(value) = HeaderValue::from_str(&session_id) {
                response.headers_mut().insert(SESSION_ID, value);
            }
            response
        }
        _ => plain(StatusCode::BAD_REQUEST, SESSION_REQUIRED),
    }
}

async fn get(State(http): State<Arc<AgentHttp>>, headers: HeaderMap) -> Response {
    if let Err(refusal) = check_loopback(&headers) {
        return refusal.into_response();
    }
    if !accepts(&headers, EVENT_STREAM) {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Client must accept text/event-stream",
        );
    }
    let session = match http.session(&headers) {
        Ok(session) => session,
        Err(refusal) => return refusal.into_response(),
    };
    let messages = session.outbox.open_standalone();
    sse(None, messages, None)
}

async fn delete(State(http): State<Arc<AgentHttp>>, headers: HeaderMap) -> Response {
    if let Err(refusal) = check_loopback(&headers) {
        return refusal.into_response();
    }
    match http.session(&headers) {
        Ok(session) => {
            session.ct.cancel();
            StatusCode::ACCEPTED.into_response()
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// Waits for the first message for request `id`: its answer comes back as JSON, anything
/// before it (or a slow answer) makes the reply an SSE stream.
async fn reply(
    id: RequestId,
    mut replies: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    session: &Session,
    stop: &CancellationToken,
) -> Response {
    // Cancels the request if the agent hangs up before the answer.
    let guard = Unanswered {
        id: id.clone(),
        outbox: session.outbox.clone(),
        inbox: session.inbox.clone(),
        session: session.ct.clone(),
    };
    let first = tokio::select! {
        first = tokio::time::timeout(JSON_WINDOW, replies.recv()) => first,
        () = stop.cancelled() => Ok(None),
    };
    match first {
        Ok(Some(message)) if is_final(&message) => {
            drop(guard);
            match session.outbox.take_broken(&id) {
                Some(fault) => broken_reply(fault, &session.ct),
                None => json(&message),
            }
        }
        Ok(Some(message)) => sse(Some(message), replies, Some(guard)),
        Ok(None) => {
            drop(guard);
            jsonrpc_error(
                StatusCode::OK,
                Some(id),
                ErrorData::internal_error(
                    "the request was cancelled, or the proxy's session ended, before it was answered",
                    None,
                ),
            )
        }
        Err(_slow) => sse(None, replies, Some(guard)),
    }
}

/// The body of a reply made malformed on purpose: HTTP 200, not JSON-RPC.
pub(crate) const MALFORMED_BODY: &str =
    "mcpeval: an injected malformed answer; this body is not JSON-RPC";

/// A reply broken on purpose (a `faults` rule): a malformed body, or the session ended and
/// the connection closed before the reply's body (the body fails, so the server aborts the
/// connection).
fn broken_reply(fault: HttpFault, session: &CancellationToken) -> Response {
    match fault {
        HttpFault::Malformed => (
            StatusCode::OK,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            MALFORMED_BODY,
        )
            .into_response(),
        HttpFault::Disconnect => {
            session.cancel();
            let failing = futures::stream::once(async {
                Err::<Bytes, _>(std::io::Error::other("injected disconnect"))
            });
            let mut response = axum::body::Body::from_stream(failing).into_response();
            response.headers_mut().insert(
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
    }
}

/// An SSE stream of `first` and then what arrives on `rest`, with keep-alive comments;
/// it ends when `rest` closes: after the answer, or when the session ends.
fn sse(
    first: Option<ServerJsonRpcMessage>,
    rest: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    guard: Option<Unanswered>,
) -> Response {
    let rest = futures::stream::unfold(rest, |mut rest| async move {
        rest.recv().await.map(|message| (message, rest))
    });
    let events = futures::stream::iter(first)
        .chain(rest)
        .map(move |message| {
            let fault = match &guard {
                Some(guard) if is_final(&message) => guard.outbox.take_broken(&guard.id),
                _ => None,
            };
            let data = match fault {
                None => serde_json::to_string(&message).unwrap_or_default(),
                Some(HttpFault::Malformed) => MALFORMED_BODY.to_owned(),
                Some(HttpFault::Disconnect) => {
                    if let Some(guard) = &guard {
                        guard.session.cancel();
                    }
                    return Err(std::io::Error::other("injected disconnect"));
                }
            };
            Ok(Event::default().event("message").data(data))
        });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

/// Notes that a request is still unanswered when the agent's reply is dropped, and then
/// tells the service it was cancelled, so the server's work stops too.
struct Unanswered {
    id: RequestId,
    outbox: Arc<Outbox>,
    inbox: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    /// The session's token: a reply broken by a disconnect ends the session.
    session: CancellationToken,
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if !self.outbox.cancelled(&self.id) {
            return;
        }
        let cancel = CancelledNotification::new(CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some("the agent closed the connection".into()),
        ));
        let cancel =
            ClientJsonRpcMessage::notification(ClientNotification::CancelledNotification(cancel));
        let _ = self.inbox.send(cancel);
    }
}

fn is_final(message: &ServerJsonRpcMessage) -> bool {
    matches!(
        message,
        ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
    )
}
