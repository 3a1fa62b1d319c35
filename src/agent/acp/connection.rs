//! The ACP agent's process and its newline-delimited JSON-RPC over stdio: messages written
//! to its stdin, its stdout read line by line by a task of its own, its stderr kept for
//! messages. The process runs in its own process group, killed with it when this ends.

use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::mpsc;

use crate::plumbing::process::{Captured, ProcessGroupGuard, capture, spawn_in_group};
use crate::proxy::{Line, LineReader};

/// The longest line read whole from the agent; a longer one is reported, not parsed.
const MAX_LINE: usize = 64 * 1024 * 1024;

/// How long the processes an agent started get to end after the agent itself exited.
const GROUP_GRACE: Duration = Duration::from_secs(5);

/// What to start.
pub(super) struct AcpLaunch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub live: bool,
}

/// What the agent sent, one line at a time.
#[derive(Debug)]
pub(super) enum AcpIncoming {
    /// A JSON-RPC message.
    Message(Value),
    /// A line that is not JSON, or too long: what to say about it.
    Unreadable(String),
    /// Its stdout ended (or could not be read).
    Closed,
}

/// A running ACP agent.
pub(super) struct AgentProcess {
    child: Child,
    group: ProcessGroupGuard,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<AcpIncoming>,
    stderr: Arc<Mutex<Captured>>,
    next_id: u64,
}

impl AgentProcess {
    /// Starts `launch` in a process group of its own.
    pub(super) fn spawn(launch: &AcpLaunch) -> std::io::Result<Self> {
        let (mut child, group) = spawn_in_group(
            Command::new(&launch.program)
                .args(&launch.args)
                .envs(launch.env.iter().map(|(k, v)| (k, v)))
                .current_dir(&launch.cwd)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )?;
        let (sender, incoming) = mpsc::channel(256);
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_stdout(stdout, sender));
        }
        let stderr = Arc::new(Mutex::new(Captured::default()));
        tokio::spawn(capture(child.stderr.take(), stderr.clone(), launch.live));
        Ok(AgentProcess {
            stdin: child.stdin.take(),
            child,
            group,
            incoming,
            stderr,
            next_id: 0,
        })
    }

    /// Sends a request; its id, for the answer.
    pub(super) async fn request(&mut self, method: &str, params: Value) -> std::io::Result<u64> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write(&message).await?;
        Ok(id)
    }

    /// Sends a notification.
    pub(super) async fn notify(&mut self, method: &str, params: Value) -> std::io::Result<()> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Answers the agent's request `id`: a result, or an error code and message.
    pub(super) async fn respond(
        &mut self,
        id: Value,
        answer: Result<Value, (i64, String)>,
    ) -> std::io::Result<()> {
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        self.write(&message).await
    }

    async fn write(&mut self, message: &Value) -> std::io::Result<()> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(std::io::Error::other("the agent's stdin is closed"));
        };
        let line = format!("{message}\n");
        stdin.write_all(line.as_bytes()).await?;
        stdin.flush().await
    }

    /// The next message of the agent; [`AcpIncoming::Closed`] for ever once its stdout ended.
    pub(super) async fn next(&mut self) -> AcpIncoming {
        self.incoming.recv().await.unwrap_or(AcpIncoming::Closed)
    }

    /// Closes its stdin, waits up to `grace` for it to exit, then kills its group. Its
    /// exit status, unless it had to be killed. An agent that exited by itself leaves the
    /// processes it started up to [`GROUP_GRACE`] to end too: Claude Code's ACP adapter
    /// exits at once, and the Claude Code it started saves the session's last turn in the
    /// second after (killed sooner, the next turn resumes a session missing its end).
    pub(super) async fn finish(&mut self, grace: Duration) -> Option<ExitStatus> {
        self.stdin = None;
        let status = tokio::time::timeout(grace, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok);
        if status.is_some() {
            self.group.wait_empty(GROUP_GRACE).await;
        }
        self.group.kill();
        let _ = self.child.wait().await;
        status
    }

    /// What it wrote to stderr so far.
    pub(super) fn stderr(&self) -> String {
        crate::plumbing::lock::lock(&self.stderr).text()
    }
}

/// Reads the agent's stdout to its end, one message per line.
async fn read_stdout(stdout: ChildStdout, sender: mpsc::Sender<AcpIncoming>) {
    let mut lines = LineReader::new(BufReader::new(stdout), MAX_LINE);
    loop {
        let incoming = match lines.next_line().await {
            Line::Whole(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Whole(line) => match serde_json::from_slice::<Value>(&line) {
                Ok(message) => AcpIncoming::Message(message),
                Err(error) => AcpIncoming::Unreadable(format!(
                    "a line that is not JSON ({error}): {}",
                    crate::plumbing::text::shorten(&String::from_utf8_lossy(&line), 200)
                )),
            },
            Line::Oversized { size, .. } => {
                AcpIncoming::Unreadable(format!("a line of {size} bytes (over the limit)"))
            }
            Line::End(_) => {
                let _ = sender.send(AcpIncoming::Closed).await;
                return;
            }
        };
        if sender.send(incoming).await.is_err() {
            return;
        }
    }
}
