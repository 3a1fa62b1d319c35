//! One extension process and the JSON-RPC connection to it: requests written to its stdin,
//! answers and `log` notifications read from its stdout by a task of its own, stderr kept
//! for messages. The process runs in its own process group, killed with it on drop.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;

use super::error::ExtensionError;
use super::protocol::{Incoming, LogParams, method_not_found_line, parse_line, request_line};
use crate::plumbing::lock::lock;
use crate::plumbing::process::{Captured, ProcessGroupGuard, capture, spawn_in_group};

/// How long a process that lost its connection gets to exit before its status is read.
const EXIT_WAIT: Duration = Duration::from_secs(1);

type RpcAnswer = Result<Value, (i64, String)>;

/// What the client and the reading task share.
#[derive(Default)]
struct RpcConnection {
    pending: HashMap<u64, oneshot::Sender<RpcAnswer>>,
    logs: Vec<String>,
    /// Why no answer can come any more.
    broken: Option<String>,
}

/// How to start an extension.
pub struct ExtensionLaunch<'a> {
    /// The executable.
    pub program: &'a Path,
    /// Variables added to the environment.
    pub env: Vec<(String, String)>,
    /// The working directory (the eval file's directory).
    pub cwd: &'a Path,
    /// Copy its stderr to ours as it arrives.
    pub live: bool,
}

/// A running extension process.
pub struct RpcProcess {
    connection: Arc<Mutex<RpcConnection>>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    child: tokio::sync::Mutex<Child>,
    group: Mutex<ProcessGroupGuard>,
    stderr: Arc<Mutex<Captured>>,
    /// The task reading stderr: done once the stream ends.
    stderr_read: tokio::sync::Mutex<Option<tokio::task::JoinHandle<()>>>,
    next_id: AtomicU64,
}

impl RpcProcess {
    /// Starts the program in a process group of its own.
    pub fn spawn(launch: &ExtensionLaunch<'_>) -> Result<Self, ExtensionError> {
        let (mut child, group) = spawn_in_group(
            Command::new(launch.program)
                .envs(launch.env.iter().map(|(k, v)| (k, v)))
                .current_dir(launch.cwd)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
        )
        .map_err(|source| ExtensionError::Spawn {
            program: launch.program.display().to_string(),
            source,
        })?;
        let connection = Arc::new(Mutex::new(RpcConnection::default()));
        let stdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let stderr = Arc::new(Mutex::new(Captured::default()));
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_stdout(stdout, connection.clone(), stdin.clone()));
        }
        let stderr_read = child
            .stderr
            .take()
            .map(|err| tokio::spawn(capture(Some(err), stderr.clone(), launch.live)));
        Ok(RpcProcess {
            connection,
            stdin,
            child: tokio::sync::Mutex::new(child),
            group: Mutex::new(group),
            stderr,
            stderr_read: tokio::sync::Mutex::new(stderr_read),
            next_id: AtomicU64::new(1),
        })
    }

    /// Sends a request and waits for its answer (unbounded: callers bound it).
    pub async fn call(&self, method: &str, params: &Value) -> Result<Value, ExtensionError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        {
            let mut connection = lock(&self.connection);
            if let Some(why) = &connection.broken {
                return Err(ExtensionError::Gone(why.clone()));
            }
            connection.pending.insert(id, sender);
        }
        let _forget = ForgetOnDrop(&self.connection, id);
        self.write_line(&request_line(id, method, params)).await?;
        match receiver.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err((code, message))) => Err(ExtensionError::Rpc {
                method: method.to_owned(),
                code,
                message,
            }),
            Err(_) => Err(ExtensionError::Gone(self.why_gone().await)),
        }
    }

    async fn write_line(&self, line: &str) -> Result<(), ExtensionError> {
        let mut stdin = self.stdin.lock().await;
        let written = match stdin.as_mut() {
            Some(stdin) => {
                let bytes = format!("{line}\n");
                match stdin.write_all(bytes.as_bytes()).await {
                    Ok(()) => stdin.flush().await,
                    Err(e) => Err(e),
                }
            }
            None => Err(std::io::Error::other("its stdin is closed")),
        };
        drop(stdin);
        match written {
            Ok(()) => Ok(()),
            Err(_) => Err(ExtensionError::Gone(self.why_gone().await)),
        }
    }

    /// The `log` lines received since the last call of this.
    pub fn take_logs(&self) -> Vec<String> {
        std::mem::take(&mut lock(&self.connection).logs)
    }

    /// Why the connection ended: the protocol problem or the exit status, and the end of
    /// stderr.
    async fn why_gone(&self) -> String {
        let broken = lock(&self.connection).broken.clone();
        let status = {
            let mut child = self.child.lock().await;
            match tokio::time::timeout(EXIT_WAIT, child.wait()).await {
                Ok(Ok(status)) => Some(describe_status(status)),
                _ => None,
            }
        };
        if status.is_some() {
            // It exited: what it wrote last is still on its way through the pipe.
            if let Some(reading) = self.stderr_read.lock().await.take() {
                let _ = tokio::time::timeout(EXIT_WAIT, reading).await;
            }
        }
        let mut why = match (broken, status) {
            (Some(broken), Some(status)) => format!("{broken}; it {status}"),
            (Some(broken), None) => broken,
            (None, Some(status)) => status,
            (None, None) => "stopped answering".to_owned(),
        };
        let stderr = lock(&self.stderr).text();
        if !stderr.trim().is_empty() {
            why.push_str(&format!(
                "\nits stderr (end):\n{}",
                crate::plumbing::process::tail(&stderr, 20)
            ));
        }
        why
    }

    /// Closes its stdin, waits up to `grace` for it to exit, then kills its process group;
    /// the process is always reaped. Says how it ended.
    pub async fn stop(&self, grace: Duration) -> String {
        self.stdin.lock().await.take();
        let mut child = self.child.lock().await;
        let ended = match tokio::time::timeout(grace, child.wait()).await {
            Ok(Ok(status)) => describe_status(status),
            _ => {
                lock(&self.group).signal(nix::sys::signal::Signal::SIGKILL);
                let _ = child.wait().await;
                match grace.as_secs() {
                    0 => "was killed".to_owned(),
                    secs => format!("did not exit within {secs}s and was killed"),
                }
            }
        };
        // Whatever it left running in its group goes too.
        lock(&self.group).kill();
        ended
    }
}

/// Removes a request from the pending ones when its caller stops waiting (a timeout).
struct ForgetOnDrop<'a>(&'a Mutex<RpcConnection>, u64);

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        lock(self.0).pending.remove(&self.1);
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with exit code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "ended abnormally".to_owned(),
    }
}

async fn read_stdout(
    stdout: ChildStdout,
    connection: Arc<Mutex<RpcConnection>>,
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
) {
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                break_connection(&connection, format!("its stdout could not be read: {e}"));
                return;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(&line) {
            Ok(Incoming::Response { id, outcome }) => {
                if let Some(waiting) = lock(&connection).pending.remove(&id) {
                    let _ = waiting.send(outcome);
                }
            }
            Ok(Incoming::Notification { method, params }) => {
                if method == "log"
                    && let Ok(log) = serde_json::from_value::<LogParams>(params)
                {
                    lock(&connection).logs.push(log.line());
                }
            }
            Ok(Incoming::Request { id, method }) => {
                if let Some(stdin) = stdin.lock().await.as_mut() {
                    let answer = format!("{}\n", method_not_found_line(&id, &method));
                    let _ = stdin.write_all(answer.as_bytes()).await;
                }
            }
            Err(why) => {
                let shown = crate::plumbing::text::shorten(&line, 200);
                let message = format!(
                    "broke the protocol: it wrote a line on stdout that is {why}: {shown:?} (stdout is for JSON-RPC only; logs go to stderr or `log` notifications)"
                );
                break_connection(&connection, message);
                return;
            }
        }
    }
    break_connection(&connection, "closed its stdout".to_owned());
}

/// Marks the connection as ended for `why` and wakes every waiting request.
fn break_connection(connection: &Mutex<RpcConnection>, why: String) {
    let mut connection = lock(connection);
    connection.broken.get_or_insert(why);
    connection.pending.clear();
}
