//! An HTTP server's SSE answer to one POST, checked on its way to rmcp: an event over
//! [`MAX_MESSAGE_SIZE`](super::stdio::MAX_MESSAGE_SIZE) (never kept whole), an event whose
//! data is not a JSON-RPC message, or a broken stream is noted as a failure of the server,
//! and the request's answer becomes a JSON-RPC error saying so, so the call ends at once.

use std::sync::Arc;

use axum::body::Bytes;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt};
use rmcp::model::RequestId;
use rmcp::transport::streamable_http_client::SseError;
use sse_stream::{Sse, SseStream};

use super::pending::failed_answer;
use super::server_line::{Decoded, decode};
use crate::proxy::record::ServerFailures;

/// What a POST's SSE answer is checked for.
pub(crate) struct SseCheck {
    /// The request's id: its answer is replaced when the stream fails.
    pub(crate) id: Option<RequestId>,
    /// The request, described (`tools/call `echo``).
    pub(crate) call: String,
    /// Where failures are noted.
    pub(crate) failures: Arc<ServerFailures>,
    /// The largest event.
    pub(crate) limit: usize,
}

/// An event's raw size went over the limit.
#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error(transparent)]
    Http(#[from] reqwest::Error),
    #[error("an SSE event over the limit")]
    TooLarge,
}

/// The events of `bytes`, checked; the stream ends after a failure.
pub(crate) fn checked_sse<S>(bytes: S, check: SseCheck) -> BoxStream<'static, Result<Sse, SseError>>
where
    S: Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
{
    SseStream::from_bytes_stream(bounded(bytes, check.limit))
        .scan(Some(check), |state, item| {
            let checked = state.as_ref().map(|check| check.event(item));
            let next = match checked {
                Some(Checked::Pass(item)) => Some(item),
                Some(Checked::Last(item)) => {
                    *state = None;
                    Some(item)
                }
                None => None,
            };
            std::future::ready(next)
        })
        .boxed()
}

/// The events of `bytes` unchecked but for their size: the standalone GET stream's (an event
/// over `limit` ends the stream with an error, as rmcp's own client does).
pub(crate) fn bounded_sse<S>(bytes: S, limit: usize) -> BoxStream<'static, Result<Sse, SseError>>
where
    S: Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
{
    SseStream::from_bytes_stream(bounded(bytes, limit)).boxed()
}

enum Checked {
    Pass(Result<Sse, SseError>),
    Last(Result<Sse, SseError>),
}

impl SseCheck {
    fn event(&self, item: Result<Sse, SseError>) -> Checked {
        let problem = match item {
            Ok(event) => match event.data.as_deref().map(str::trim) {
                None | Some("") => return Checked::Pass(Ok(event)),
                Some(data) => match decode(data.as_bytes()) {
                    Decoded::Message(_) => return Checked::Pass(Ok(event)),
                    Decoded::Skip => {
                        return Checked::Pass(Ok(Sse {
                            data: None,
                            ..event
                        }));
                    }
                    Decoded::Malformed { problem, .. } => {
                        format!("an SSE event that is not JSON-RPC ({problem})")
                    }
                },
            },
            Err(SseError::Body(error))
                if matches!(error.downcast_ref(), Some(BodyError::TooLarge)) =>
            {
                format!(
                    "an SSE event over mcpeval's limit of {} bytes for one message",
                    self.limit
                )
            }
            Err(error) => format!("a broken SSE stream ({error})"),
        };
        let failure = self.failures.note(
            &format!("answered {} with {problem}", self.call),
            String::new(),
        );
        let answer = self
            .id
            .clone()
            .map(|id| failed_answer(id, &failure.message));
        match answer.and_then(|answer| serde_json::to_string(&answer).ok()) {
            Some(data) => Checked::Last(Ok(Sse::default().data(data))),
            None => Checked::Last(Err(SseError::InvalidLine)),
        }
    }
}

/// `bytes`, ending with [`BodyError::TooLarge`] once an event (the bytes between blank
/// lines) grows over `limit`; nothing more is read after an error.
fn bounded<S>(bytes: S, limit: usize) -> impl Stream<Item = Result<Bytes, BodyError>> + Send
where
    S: Stream<Item = reqwest::Result<Bytes>> + Send,
{
    bytes.scan(Some(EventSize::default()), move |state, chunk| {
        let next = match (state.as_mut(), chunk) {
            (None, _) => None,
            (Some(_), Err(error)) => Some(Err(BodyError::from(error))),
            (Some(size), Ok(chunk)) => match size.add(&chunk) > limit {
                true => Some(Err(BodyError::TooLarge)),
                false => Some(Ok(chunk)),
            },
        };
        if matches!(next, Some(Err(_))) {
            *state = None;
        }
        std::future::ready(next)
    })
}

/// The size of the event being read.
#[derive(Default)]
struct EventSize {
    bytes: usize,
    after_newline: bool,
}

impl EventSize {
    /// Adds a chunk; the size of the event open at its end.
    fn add(&mut self, chunk: &[u8]) -> usize {
        for &byte in chunk {
            match byte {
                b'\r' => {}
                b'\n' if self.after_newline => self.bytes = 0,
                b'\n' => self.after_newline = true,
                _ => {
                    self.after_newline = false;
                    self.bytes += 1;
                }
            }
        }
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{NumberOrString, ServerJsonRpcMessage};

    fn data_of(event: &Sse) -> ServerJsonRpcMessage {
        serde_json::from_str(event.data.as_deref().unwrap()).unwrap()
    }

    fn check(limit: usize) -> (SseCheck, Arc<ServerFailures>) {
        let failures = Arc::new(ServerFailures::new("web", "http://h/mcp".into(), None));
        let check = SseCheck {
            id: Some(NumberOrString::Number(2)),
            call: "tools/call `t`".into(),
            failures: failures.clone(),
            limit,
        };
        (check, failures)
    }

    async fn events(body: &'static [u8], limit: usize) -> (Vec<Sse>, Arc<ServerFailures>) {
        let (check, failures) = check(limit);
        let chunks = body.chunks(7).map(|c| Ok(Bytes::from_static(c)));
        let stream = checked_sse(futures::stream::iter(chunks.collect::<Vec<_>>()), check);
        let events = stream.map(|event| event.unwrap()).collect().await;
        (events, failures)
    }

    #[tokio::test]
    async fn good_events_pass_unchanged() {
        let body = b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
        let (events, failures) = events(body, 1000).await;
        assert_eq!(events.len(), 1);
        assert!(matches!(
            data_of(&events[0]),
            ServerJsonRpcMessage::Response(_)
        ));
        assert_eq!(failures.count(), 0);
    }

    #[tokio::test]
    async fn an_event_that_is_not_json_rpc_ends_the_call_with_an_error() {
        let (events, failures) = events(b"id: 1\ndata: <html>\n\ndata: more\n\n", 1000).await;
        assert_eq!(events.len(), 1, "the stream ends after the failure");
        let ServerJsonRpcMessage::Error(error) = data_of(&events[0]) else {
            panic!("{:?}", events[0]);
        };
        assert_eq!(error.id, Some(NumberOrString::Number(2)));
        assert!(
            error.error.message.contains("not JSON-RPC (not JSON: "),
            "{error:?}"
        );
        assert!(
            error.error.message.contains("mcp server `web`"),
            "{error:?}"
        );
        assert_eq!(failures.count(), 1);
    }

    #[tokio::test]
    async fn an_event_over_the_limit_ends_the_call_naming_the_limit() {
        let body = b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"x\":\"0123456789\"}}\n\n";
        let (events, failures) = events(body, 30).await;
        let ServerJsonRpcMessage::Error(error) = data_of(&events[0]) else {
            panic!("{:?}", events[0]);
        };
        assert!(
            error.error.message.contains("limit of 30 bytes"),
            "{error:?}"
        );
        assert_eq!(failures.count(), 1);
    }
}
