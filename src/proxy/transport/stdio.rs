//! The proxy's own stdio transport to a server: JSON-RPC messages as lines on the server's
//! stdin and stdout, with what rmcp's line codec would drop in silence (and leave the call
//! waiting until the task times out) turned into failures that end the call at once:
//!
//! - a line over [`MAX_MESSAGE_SIZE`] (not kept: only its size and its two ends, for its id);
//! - a line that is not a JSON-RPC message (invalid UTF-8, not JSON, not JSON-RPC);
//! - the server exiting (or closing its stdout) while the proxy did not stop it.
//!
//! Each is noted in the connection's [`ServerFailures`], naming the server, what was wrong
//! and the call it happened during (with the exit status and the end of its stderr); the
//! call it answers, found by its id, gets a JSON-RPC error saying so, which the trace records.
//! After a bad line the session goes on; after an exit every waiting call ends.

use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::mpsc;

use super::lines::{Line, LineReader};
use super::pending::{Pending, failed_answer};
use super::process::{ServerProcess, Spawned, describe_exit};
use super::server_line::{Decoded, decode, scan_ids};
use crate::proxy::record::ServerFailures;

/// The largest message a stdio server may send: one line of its stdout. Larger ones are
/// not passed on; the call they answer ends with an error naming the size and this limit.
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// How long a server whose stdout closed gets to exit before the failure is noted.
const EXIT_WAIT: Duration = Duration::from_secs(1);
/// How long a server gets to exit after its stdin closed, when the proxy stops it (then
/// SIGTERM, then SIGKILL).
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// Bytes of a bad line shown with its failure.
const PREVIEW: usize = 200;

/// The transport over a started server's pipes.
pub(crate) struct StdioTransport {
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    pending: Arc<Pending>,
    process: Arc<ServerProcess>,
    reader: tokio::task::JoinHandle<()>,
}

impl StdioTransport {
    /// Talks to `spawned`, noting its failures in `failures`. The process stays shared with
    /// the caller, who can kill it.
    pub(crate) fn new(
        spawned: Spawned,
        failures: Arc<ServerFailures>,
    ) -> (Self, Arc<ServerProcess>) {
        let process = Arc::new(spawned.process);
        let pending = Arc::new(Pending::default());
        let (deliver, incoming) = mpsc::channel(16);
        let reader = Reader {
            pending: pending.clone(),
            process: process.clone(),
            failures,
            deliver,
        };
        let transport = Self {
            stdin: Arc::new(tokio::sync::Mutex::new(Some(spawned.stdin))),
            incoming,
            pending,
            process: process.clone(),
            reader: tokio::spawn(reader.run(spawned.stdout)),
        };
        (transport, process)
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.pending.sent(&message);
        let stdin = self.stdin.clone();
        async move {
            let mut line = serde_json::to_vec(&message).map_err(std::io::Error::other)?;
            line.push(b'\n');
            let mut stdin = stdin.lock().await;
            let Some(pipe) = stdin.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the server's stdin is closed",
                ));
            };
            pipe.write_all(&line).await?;
            pipe.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.incoming.recv().await
    }

    /// Closes the server's stdin and gives it [`CLOSE_GRACE`] to exit, then stops it.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.process.begin_stop();
        self.stdin.lock().await.take();
        self.process.stop(CLOSE_GRACE).await;
        Ok(())
    }
}

/// The task reading the server's stdout.
struct Reader {
    pending: Arc<Pending>,
    process: Arc<ServerProcess>,
    failures: Arc<ServerFailures>,
    deliver: mpsc::Sender<ServerJsonRpcMessage>,
}

impl Reader {
    async fn run(self, stdout: ChildStdout) {
        let read = BufReader::with_capacity(64 * 1024, stdout);
        let mut lines = LineReader::new(read, MAX_MESSAGE_SIZE);
        loop {
            let messages = match lines.next_line().await {
                Line::Whole(line) => self.whole(&line),
                Line::Oversized { size, head, tail } => self.oversized(size, &head, &tail),
                Line::End(error) => {
                    let messages = self.ended(error).await;
                    self.deliver_all(messages).await;
                    return;
                }
            };
            if !self.deliver_all(messages).await {
                return;
            }
        }
    }

    /// Hands messages to the client; false once it is gone.
    async fn deliver_all(&self, messages: Vec<ServerJsonRpcMessage>) -> bool {
        for message in messages {
            if self.deliver.send(message).await.is_err() {
                return false;
            }
        }
        true
    }

    fn whole(&self, line: &[u8]) -> Vec<ServerJsonRpcMessage> {
        match decode(line) {
            Decoded::Message(message) => {
                self.pending.received(&message);
                vec![*message]
            }
            Decoded::Skip => Vec::new(),
            Decoded::Malformed { problem, ids } => {
                let preview = String::from_utf8_lossy(&line[..line.len().min(PREVIEW)]);
                let detail = format!("--- start of the line ---\n{preview}");
                self.bad_line(
                    &format!("a line that is not JSON-RPC ({problem})"),
                    &ids,
                    detail,
                )
            }
        }
    }

    fn oversized(&self, size: usize, head: &[u8], tail: &[u8]) -> Vec<ServerJsonRpcMessage> {
        let ids: Vec<RequestId> = scan_ids(head)
            .into_iter()
            .chain(scan_ids(tail).into_iter().rev())
            .collect();
        let what = format!(
            "a message of {size} bytes ({}), over mcpeval's limit of {MAX_MESSAGE_SIZE} bytes \
             ({}) for one message",
            mebibytes(size),
            mebibytes(MAX_MESSAGE_SIZE)
        );
        // Its id may be in the part not kept; a line this big is an answer, and with one
        // call waiting it is that call's.
        let call = (self.pending.take_first(&ids)).or_else(|| self.pending.take_only());
        self.ends_call(call, &what, String::new())
    }

    /// Notes a line that cannot be passed on; the call it answers (found by its id) ends
    /// with an error saying why.
    fn bad_line(&self, what: &str, ids: &[RequestId], detail: String) -> Vec<ServerJsonRpcMessage> {
        self.ends_call(self.pending.take_first(ids), what, detail)
    }

    /// Notes a line that cannot be passed on; `call`, when it answers one, ends with an
    /// error saying why.
    fn ends_call(
        &self,
        call: Option<(RequestId, String)>,
        what: &str,
        detail: String,
    ) -> Vec<ServerJsonRpcMessage> {
        match call {
            Some((id, call)) => {
                let failure = self
                    .failures
                    .note(&format!("answered {call} with {what}"), detail);
                vec![failed_answer(id, &failure.message)]
            }
            None => {
                self.failures.note(&format!("sent {what}"), detail);
                Vec::new()
            }
        }
    }

    /// The server's stdout ended: unless the proxy is stopping it, a failure naming how it
    /// ended and the calls it left waiting, each of which ends with that error.
    async fn ended(&self, error: Option<std::io::Error>) -> Vec<ServerJsonRpcMessage> {
        if self.process.stopping() {
            return Vec::new();
        }
        let status = self.process.exit_status(EXIT_WAIT).await;
        if self.process.stopping() {
            return Vec::new();
        }
        let calls = self.pending.drain();
        let during = match calls.as_slice() {
            [] => "while no request was waiting".to_owned(),
            calls => {
                let names: Vec<&str> = calls.iter().map(|(_, what)| what.as_str()).collect();
                format!("during {}", names.join(", "))
            }
        };
        let ended = match (status, error) {
            (None, Some(error)) => format!("its stdout could not be read ({error})"),
            (status, _) => describe_exit(status),
        };
        let failure = self
            .failures
            .note(&format!("{ended} {during}"), self.failures.stderr_tail());
        self.failures.mark_gone();
        calls
            .into_iter()
            .map(|(id, _)| failed_answer(id, &failure.message))
            .collect()
    }
}

/// `20.0 MiB`.
fn mebibytes(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}
