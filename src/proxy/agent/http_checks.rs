//! What the proxy's HTTP face checks of a request before it reaches a session: the Host
//! and Origin (loopback only), `Accept`, `Content-Type`, `MCP-Protocol-Version`, the JSON-RPC body,
//! and the `server/discover` probe of newer clients; and the plain and JSON-RPC answers it
//! refuses with.

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, ProtocolVersion, RequestId,
    ServerJsonRpcMessage,
};

pub(super) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
const JSON: &str = "application/json";
pub(super) const EVENT_STREAM: &str = "text/event-stream";
pub(super) const SESSION_REQUIRED: &str = "Bad Request: Session ID is required";
pub(super) const SESSION_NOT_FOUND: &str = "Not Found: Session not found";

/// The header checks of a POST, in the order the transport specifies them.
pub(super) fn check_post(headers: &HeaderMap) -> Result<(), HttpRefusal> {
    check_loopback(headers)?;
    if !(accepts(headers, JSON) && accepts(headers, EVENT_STREAM)) {
        return Err(HttpRefusal(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Client must accept both application/json and text/event-stream".into(),
        ));
    }
    if !content_type_is_json(headers) {
        return Err(HttpRefusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json".into(),
        ));
    }
    check_protocol_version(headers)
}

/// The POST's JSON-RPC message. Protocol 2026-07-28 clients probe with `server/discover`
/// and fall back to `initialize` on HTTP 400 / "method not found", which they get here.
pub(super) fn parse_message(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<ClientJsonRpcMessage, JsonRpcRefusal> {
    let message: ClientJsonRpcMessage = serde_json::from_slice(body).map_err(|error| {
        JsonRpcRefusal(
            None,
            Box::new(ErrorData::new(
                ErrorCode::PARSE_ERROR,
                format!("Parse error: {error}"),
                None,
            )),
        )
    })?;
    if !is_discover(headers, &message) {
        return Ok(message);
    }
    let id = match &message {
        ClientJsonRpcMessage::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    Err(JsonRpcRefusal(
        id,
        Box::new(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "server/discover is not supported by this server: use initialize",
            None,
        )),
    ))
}

/// A POST refused with HTTP 400 and a JSON-RPC error (for the request's id, if known).
pub(super) struct JsonRpcRefusal(Option<RequestId>, Box<ErrorData>);

impl IntoResponse for JsonRpcRefusal {
    fn into_response(self) -> Response {
        jsonrpc_error(StatusCode::BAD_REQUEST, self.0, *self.1)
    }
}

fn is_discover(headers: &HeaderMap, message: &ClientJsonRpcMessage) -> bool {
    headers
        .get(MCP_METHOD)
        .is_some_and(|method| method.as_bytes() == b"server/discover".as_slice())
        || matches!(message, ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::DiscoverRequest(_)))
}

/// Whether the `Accept` header names `media` (or a wildcard covering it).
pub(super) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|item| item.split(';').next().unwrap_or_default().trim())
        .any(|item| {
            item.eq_ignore_ascii_case(media)
                || item == "*/*"
                || item
                    .strip_suffix("/*")
                    .is_some_and(|prefix| prefix.eq_ignore_ascii_case(kind))
        })
}

fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(JSON))
}

/// Loopback `Host` and `Origin` only, against DNS rebinding (see [`crate::plumbing::loopback`]).
pub(super) fn check_loopback(headers: &HeaderMap) -> Result<(), HttpRefusal> {
    crate::plumbing::loopback::check(headers)
        .map_err(|refusal| HttpRefusal(refusal.status, refusal.reason.into()))
}

/// A `MCP-Protocol-Version` header, when sent, must name a version this proxy knows.
fn check_protocol_version(headers: &HeaderMap) -> Result<(), HttpRefusal> {
    let Some(version) = headers.get(PROTOCOL_VERSION) else {
        return Ok(());
    };
    let version = version.to_str().unwrap_or_default();
    if ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|known| known.as_str() == version)
    {
        return Ok(());
    }
    Err(HttpRefusal(
        StatusCode::BAD_REQUEST,
        format!("Bad Request: Unsupported MCP-Protocol-Version: {version}").into(),
    ))
}

pub(super) fn json(message: &ServerJsonRpcMessage) -> Response {
    match serde_json::to_vec(message) {
        Ok(body) => ([(header::CONTENT_TYPE, JSON)], body).into_response(),
        Err(error) => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot encode the answer: {error}"),
        ),
    }
}

pub(super) fn jsonrpc_error(
    status: StatusCode,
    id: Option<RequestId>,
    error: ErrorData,
) -> Response {
    let mut response = json(&ServerJsonRpcMessage::error(error, id));
    *response.status_mut() = status;
    response
}

/// An HTTP-level refusal: a status and a plain-text reason.
pub(super) struct HttpRefusal(pub(super) StatusCode, pub(super) Cow<'static, str>);

impl IntoResponse for HttpRefusal {
    fn into_response(self) -> Response {
        (self.0, self.1.into_owned()).into_response()
    }
}

pub(super) fn plain(status: StatusCode, text: &str) -> Response {
    (status, text.to_owned()).into_response()
}
