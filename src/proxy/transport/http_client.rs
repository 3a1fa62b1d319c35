//! The streamable HTTP client the proxy reaches HTTP servers with: reqwest, as rmcp's own
//! client, but it keeps what a failing server answered. A server that cannot be reached,
//! answers a request with an HTTP error (and no JSON-RPC error in the body), or answers it
//! with a body that is not a JSON-RPC message, fails: the failure is noted with the status
//! and the first bytes of the body, and the request ends at once with a JSON-RPC error
//! saying so. A JSON-RPC error in the answer is the server working, and passes through.
//! The standalone GET stream and the session's DELETE are plain requests, as rmcp's own
//! reqwest client makes them. The script agent and the llm-agent reach the proxy with the
//! same client ([`client_transport`]): rmcp's reqwest client is not built into the library.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue, Method, StatusCode};
use rmcp::model::{ClientJsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse,
};
use sse_stream::Sse;

use super::http_sse::{SseCheck, bounded_sse, checked_sse};
use super::pending::{describe_request, failed_answer};
use super::server_line::{Decoded, decode};
use super::stdio::MAX_MESSAGE_SIZE;
use crate::plumbing::error_text::request_causes;
use crate::proxy::record::ServerFailures;

/// Bytes of an HTTP error's body read (for a JSON-RPC error in it).
const ERROR_BODY: usize = 64 * 1024;
/// Bytes of a body shown with a failure.
const PREVIEW: usize = 300;

type PostAnswer = Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>>;

/// The transport to the HTTP server at `url`, sending `headers` with every request and
/// noting the server's failures in `failures`.
pub(crate) fn http_transport(
    url: &str,
    headers: HashMap<HeaderName, HeaderValue>,
    failures: Arc<ServerFailures>,
) -> StreamableHttpClientTransport<HttpUpstream> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(headers)
        .max_sse_event_size(MAX_MESSAGE_SIZE);
    // Transparent: no hidden second handshake when the server forgets the session.
    config.reinit_on_expired_session = false;
    crate::plumbing::tls::install_provider();
    let client = HttpUpstream {
        client: reqwest::Client::new(),
        failures,
    };
    StreamableHttpClientTransport::with_client(client, config)
}

/// The transport of an MCP client of our own (the script agent's, the llm-agent's) to the
/// server `name` at `url` (a proxy's endpoint): what goes wrong ends the call with a
/// JSON-RPC error naming the server, as it does for the proxy.
pub(crate) fn client_transport(
    name: &str,
    url: &str,
) -> StreamableHttpClientTransport<HttpUpstream> {
    let config =
        StreamableHttpClientTransportConfig::with_uri(url).max_sse_event_size(MAX_MESSAGE_SIZE);
    crate::plumbing::tls::install_provider();
    let client = HttpUpstream {
        client: reqwest::Client::new(),
        failures: Arc::new(ServerFailures::new(name, url.to_owned(), None)),
    };
    StreamableHttpClientTransport::with_client(client, config)
}

/// The client: reqwest, and where the server's failures are noted.
#[derive(Clone)]
pub(crate) struct HttpUpstream {
    client: reqwest::Client,
    failures: Arc<ServerFailures>,
}

impl StreamableHttpClient for HttpUpstream {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> PostAnswer {
        self.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            MAX_MESSAGE_SIZE,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> PostAnswer {
        let post = Post::of(&message, self.failures.clone(), max_sse_event_size);
        let attached = session_id.is_some();
        let request = self
            .request(Method::POST, &uri, session_id, auth_header, custom_headers)
            .header(http::header::ACCEPT, accept_both());
        match request.json(&message).send().await {
            Ok(response) => post.answer(response, attached).await,
            Err(error) => {
                let what = format!("could not be reached for {}", post.call);
                post.failed(
                    &format!("{what}: {}", request_causes(&error)),
                    String::new(),
                )
            }
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        let request = self.request(
            Method::DELETE,
            &uri,
            Some(session_id),
            auth_header,
            custom_headers,
        );
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            // The server keeps no sessions to end.
            return Ok(());
        }
        response
            .error_for_status()
            .map(drop)
            .map_err(StreamableHttpError::Client)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<reqwest::Error>>
    {
        let mut request = self
            .request(Method::GET, &uri, session_id, auth_header, custom_headers)
            .header(http::header::ACCEPT, accept_both());
        if let Some(event) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, event);
        }
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let response = response
            .error_for_status()
            .map_err(StreamableHttpError::Client)?;
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        match content_type {
            Some(kind)
                if kind.starts_with(EVENT_STREAM_MIME_TYPE) || kind.starts_with(JSON_MIME_TYPE) =>
            {
                Ok(bounded_sse(response.bytes_stream(), MAX_MESSAGE_SIZE))
            }
            other => Err(StreamableHttpError::UnexpectedContentType(other)),
        }
    }
}

impl HttpUpstream {
    /// `method` on `uri` with what every request of the session carries: the caller's
    /// headers, the session id once there is one, the bearer token when given.
    fn request(
        &self,
        method: Method,
        uri: &str,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .request(method, uri)
            .headers(custom_headers.into_iter().collect());
        if let Some(session) = session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        request
    }
}

/// The `Accept` of a POST and of the GET stream: an SSE stream or one JSON body.
fn accept_both() -> String {
    format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}")
}

/// One POST: the message's request id and description, for its failures.
struct Post {
    id: Option<RequestId>,
    call: String,
    failures: Arc<ServerFailures>,
    limit: usize,
}

impl Post {
    fn of(message: &ClientJsonRpcMessage, failures: Arc<ServerFailures>, limit: usize) -> Self {
        let (id, call) = match message {
            ClientJsonRpcMessage::Request(request) => {
                (Some(request.id.clone()), describe_request(&request.request))
            }
            ClientJsonRpcMessage::Notification(_) => (None, method_of(message)),
            _ => (None, "a reply to the server".to_owned()),
        };
        Self {
            id,
            call,
            failures,
            limit,
        }
    }

    /// Reads the server's answer.
    async fn answer(self, response: reqwest::Response, attached: bool) -> PostAnswer {
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if !status.is_success() {
            return self.error_status(response, &content_type, session).await;
        }
        if content_type.starts_with(EVENT_STREAM_MIME_TYPE) {
            let check = SseCheck {
                id: self.id.clone(),
                call: self.call.clone(),
                failures: self.failures.clone(),
                limit: self.limit,
            };
            let events = checked_sse(response.bytes_stream(), check);
            return Ok(StreamableHttpPostResponse::Sse(events, session));
        }
        if self.id.is_none() {
            // rmcp accepts whatever answers a notification or a reply.
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if content_type.starts_with(JSON_MIME_TYPE) {
            return self.json(response, session).await;
        }
        let body = read_body(response, PREVIEW).await;
        let what = format!("HTTP {status} and content type `{content_type}`, not JSON or SSE");
        self.failed(&self.answered(&what), preview(&content_type, &body))
    }

    /// An HTTP error: a JSON-RPC error in its body is the server's answer; else a failure.
    async fn error_status(
        self,
        response: reqwest::Response,
        content_type: &str,
        session: Option<String>,
    ) -> PostAnswer {
        let status = response.status();
        let body = read_body(response, ERROR_BODY).await;
        if let Decoded::Message(message) = decode(&body.bytes)
            && let ServerJsonRpcMessage::Error(_) = *message
        {
            return Ok(StreamableHttpPostResponse::Json(*message, session));
        }
        self.failed(
            &self.answered(&format!("HTTP {status}")),
            preview(content_type, &body),
        )
    }

    /// A JSON body: the answer, unless it is over the limit or not JSON-RPC.
    async fn json(self, response: reqwest::Response, session: Option<String>) -> PostAnswer {
        let status = response.status();
        let body = read_body(response, self.limit).await;
        if body.cut {
            let what = format!(
                "a body over mcpeval's limit of {} bytes for one message",
                self.limit
            );
            return self.failed(&self.answered(&what), String::new());
        }
        let problem = match decode(&body.bytes) {
            Decoded::Message(message) => {
                return Ok(StreamableHttpPostResponse::Json(*message, session));
            }
            Decoded::Skip => "no MCP message in it".to_owned(),
            Decoded::Malformed { problem, .. } => problem,
        };
        let what = format!("HTTP {status} and a body that is not JSON-RPC ({problem})");
        self.failed(&self.answered(&what), preview(JSON_MIME_TYPE, &body))
    }

    /// `answered tools/call `echo` with <what>`.
    fn answered(&self, what: &str) -> String {
        format!("answered {} with {what}", self.call)
    }

    /// Notes that the server failed this POST (`what` happened); a request ends with a
    /// JSON-RPC error saying so.
    fn failed(&self, what: &str, detail: String) -> PostAnswer {
        let failure = self.failures.note(what, detail);
        match &self.id {
            Some(id) => Ok(StreamableHttpPostResponse::Json(
                failed_answer(id.clone(), &failure.message),
                None,
            )),
            None => Err(StreamableHttpError::UnexpectedServerResponse(
                failure.message.into(),
            )),
        }
    }
}

/// The `method` of a message, as sent.
fn method_of(message: &ClientJsonRpcMessage) -> String {
    let json = serde_json::to_value(message).unwrap_or_default();
    json["method"]
        .as_str()
        .unwrap_or("a notification")
        .to_owned()
}

/// A body read up to a limit.
struct Body {
    bytes: Vec<u8>,
    /// There was more than the limit.
    cut: bool,
}

/// Reads at most `limit` bytes of the body (a body that breaks off counts as read).
async fn read_body(mut response: reqwest::Response, limit: usize) -> Body {
    let mut bytes = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        if bytes.len() + chunk.len() > limit {
            bytes.extend_from_slice(&chunk[..limit - bytes.len()]);
            return Body { bytes, cut: true };
        }
        bytes.extend_from_slice(&chunk);
    }
    Body { bytes, cut: false }
}

/// The start of a body, headed, for a failure's detail.
fn preview(content_type: &str, body: &Body) -> String {
    if body.bytes.is_empty() && !body.cut {
        return "--- the body was empty ---".into();
    }
    let start = String::from_utf8_lossy(&body.bytes[..body.bytes.len().min(PREVIEW)]);
    let content_type = if content_type.is_empty() {
        "no content type"
    } else {
        content_type
    };
    format!("--- start of the body ({content_type}) ---\n{start}")
}
