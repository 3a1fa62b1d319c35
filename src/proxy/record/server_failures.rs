//! The server under test failing: what the proxy notes when a server cannot be started or
//! reached, exits, answers with an HTTP error or sends something that is not MCP. Each is a
//! [`ServerFailure`], and each fails the task (`verdict`). So does a `tools/list` it
//! answers with a JSON-RPC error or with no tool list (the agent has nothing to call). Any
//! other JSON-RPC error, or an `isError` result, is the server working, and is never one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::plumbing::lock::lock;

/// Bytes of a stdio server's stderr log shown with a failure (its end).
const STDERR_TAIL: usize = 1500;

/// The server under test failed. Its message names the server, its command or URL and what
/// happened, and points to the stderr log of a stdio server; never header or environment
/// values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// The server's name in the MCP config.
    pub server: String,
    /// What happened, on one line: `mcp server `x` (`cmd`): exited with code 3 during
    /// tools/call `t` (server stderr: <log>)`.
    pub message: String,
    /// What helps to see why, on the following lines: the last lines of the server's stderr,
    /// the first bytes of an HTTP body. Empty when there is nothing.
    pub detail: String,
    /// The stderr log of a stdio server.
    pub log: Option<PathBuf>,
}

impl fmt::Display for ServerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.detail.is_empty() {
            write!(f, "\n{}", self.detail)?;
        }
        Ok(())
    }
}

/// The failures noted for one connection to a server (one agent session), by the transport
/// that saw them.
#[derive(Debug)]
pub(crate) struct ServerFailures {
    server: String,
    upstream: String,
    log: Option<PathBuf>,
    noted: Mutex<Vec<ServerFailure>>,
    gone: AtomicBool,
}

impl ServerFailures {
    /// Failures of the server `server`, reached by `upstream` (its command line or URL),
    /// whose stderr goes to `log` (stdio servers).
    pub(crate) fn new(server: &str, upstream: String, log: Option<PathBuf>) -> Self {
        Self {
            server: server.to_owned(),
            upstream,
            log,
            noted: Mutex::new(Vec::new()),
            gone: AtomicBool::new(false),
        }
    }

    /// Notes that the server failed: `what` happened (one line, without the server's name),
    /// `detail` shows why (may be empty).
    pub(crate) fn note(&self, what: &str, detail: String) -> ServerFailure {
        let failure = ServerFailure {
            server: self.server.clone(),
            message: format!("{}: {what}{}", self.who(), log_hint(self.log.as_deref())),
            detail,
            log: self.log.clone(),
        };
        lock(&self.noted).push(failure.clone());
        failure
    }

    /// `mcp server `x` (`cmd`)`.
    pub(crate) fn who(&self) -> String {
        format!("mcp server `{}` (`{}`)", self.server, self.upstream)
    }

    /// Notes that the server is gone for good (it exited): later calls fail for the reason
    /// already noted.
    pub(crate) fn mark_gone(&self) {
        self.gone.store(true, Ordering::SeqCst);
    }

    /// Whether the server is gone for good.
    pub(crate) fn is_gone(&self) -> bool {
        self.gone.load(Ordering::SeqCst)
    }

    /// How many failures were noted.
    pub(crate) fn count(&self) -> usize {
        lock(&self.noted).len()
    }

    /// Every failure noted so far.
    pub(crate) fn all(&self) -> Vec<ServerFailure> {
        lock(&self.noted).clone()
    }

    /// The failures noted so far, removed.
    pub(crate) fn take(&self) -> Vec<ServerFailure> {
        std::mem::take(&mut *lock(&self.noted))
    }

    /// The end of the server's stderr log, headed, or empty.
    pub(crate) fn stderr_tail(&self) -> String {
        stderr_tail(self.log.as_deref())
    }
}

/// ` (server stderr: <log>)`, or empty without a log.
pub(crate) fn log_hint(log: Option<&Path>) -> String {
    match log {
        Some(path) => format!(" (server stderr: {})", path.display()),
        None => String::new(),
    }
}

/// The last lines the server wrote to stderr, which usually say why it failed, headed;
/// empty when there are none.
pub(crate) fn stderr_tail(log: Option<&Path>) -> String {
    let Some(text) = log.and_then(|path| std::fs::read(path).ok()) else {
        return String::new();
    };
    let start = text.len().saturating_sub(STDERR_TAIL);
    let text = String::from_utf8_lossy(&text[start..]);
    let text = text.trim_end();
    if text.is_empty() {
        return String::new();
    }
    // Start at a whole line when the log was cut.
    let text = match (start > 0, text.split_once('\n')) {
        (true, Some((_, rest))) => rest,
        _ => text,
    };
    format!("--- last lines of the server's stderr ---\n{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_server_its_command_and_its_log() {
        let failures =
            ServerFailures::new("db", "db-server --x".into(), Some("/logs/db.log".into()));
        let failure = failures.note("exited with code 3 during tools/call `q`", "tail".into());
        assert_eq!(
            failure.message,
            "mcp server `db` (`db-server --x`): exited with code 3 during tools/call `q` \
             (server stderr: /logs/db.log)"
        );
        assert_eq!(failure.to_string(), format!("{}\ntail", failure.message));
        assert_eq!(failures.count(), 1);
        assert_eq!(failures.take().len(), 1);
        assert_eq!(failures.count(), 0);
    }

    #[test]
    fn the_stderr_tail_starts_at_a_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.log");
        let lines: String = (0..500).map(|i| format!("line {i}\n")).collect();
        std::fs::write(&log, lines).unwrap();
        let tail = stderr_tail(Some(&log));
        let body = tail.lines().nth(1).unwrap();
        assert!(body.starts_with("line "), "{tail}");
        assert!(tail.ends_with("line 499"), "{tail}");
        assert_eq!(stderr_tail(None), "");
    }
}
