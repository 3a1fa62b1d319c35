//! Starting a stdio MCP server in its own process group, knowing how it ended, and making
//! sure it goes away.

use std::fs::OpenOptions;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use crate::plumbing::lock::lock;
use crate::plumbing::process::{KILL_GRACE, ProcessGroupGuard, spawn_in_group};
use crate::proxy::inputs::Upstream;
use crate::proxy::record::ProxyError;

/// How long a killed server gets to be reaped before the proxy moves on.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// A started stdio server: its pipes, and the process itself.
pub(crate) struct Spawned {
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
    pub(crate) process: ServerProcess,
}

/// A running server process. A task of its own waits for it (so it is always reaped) and
/// publishes its exit status; the process group is killed on [`ServerProcess::kill`] and on
/// drop.
pub(crate) struct ServerProcess {
    group: Mutex<ProcessGroupGuard>,
    exit: watch::Receiver<Option<ExitStatus>>,
    stopping: AtomicBool,
}

/// Starts `command` as the leader of a new process group, stdin/stdout piped, stderr
/// appended to `log`.
pub(crate) fn spawn_stdio(
    server: &str,
    upstream: &Upstream,
    log: &Path,
) -> Result<Spawned, ProxyError> {
    let spawn_error = |source| ProxyError::Spawn {
        server: server.to_owned(),
        command: upstream.describe(),
        source,
    };
    let Upstream::Stdio {
        command,
        args,
        env,
        cwd,
    } = upstream
    else {
        return Err(spawn_error(std::io::Error::other("not a stdio server")));
    };
    let stderr = OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|source| ProxyError::Log {
            server: server.to_owned(),
            log: log.to_owned(),
            source,
        })?;
    let mut cmd = Command::new(command);
    cmd.args(args)
        .envs(env.iter().map(|(key, value)| (key, value)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(stderr));
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let (mut child, group) = spawn_in_group(&mut cmd).map_err(spawn_error)?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(spawn_error(std::io::Error::other("its pipes are missing")));
    };
    let (published, exit) = watch::channel(None);
    tokio::spawn(async move {
        if let Ok(status) = child.wait().await {
            let _ = published.send(Some(status));
        }
    });
    Ok(Spawned {
        stdin,
        stdout,
        process: ServerProcess {
            group: Mutex::new(group),
            exit,
            stopping: AtomicBool::new(false),
        },
    })
}

impl ServerProcess {
    /// The process group id, until the group is killed.
    pub(crate) fn pgid(&self) -> Option<u32> {
        lock(&self.group).pgid()
    }

    /// Whether the proxy is stopping the server (its end is then no failure).
    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    /// Marks the server as being stopped by the proxy.
    pub(crate) fn begin_stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// The exit status, waiting up to `within` for it; `None` while it still runs.
    pub(crate) async fn exit_status(&self, within: Duration) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(within, exit.wait_for(Option::is_some)).await;
        match waited {
            Ok(Ok(status)) => *status,
            _ => None,
        }
    }

    /// Stops the server: waits up to `grace` for it to exit (its stdin closed by the
    /// caller), then sends its process group SIGTERM and, after [`KILL_GRACE`], SIGKILL,
    /// and waits briefly for it to be reaped. Whatever it left in its group is killed.
    pub(crate) async fn stop(&self, grace: Duration) {
        self.begin_stop();
        if self.exit_status(grace).await.is_none() {
            lock(&self.group).signal(Signal::SIGTERM);
            if self.exit_status(KILL_GRACE).await.is_none() {
                self.kill();
                let _ = self.exit_status(REAP_WAIT).await;
            }
        }
        self.kill();
    }

    /// Kills the server's process group now (whatever the server left running in it too).
    pub(crate) fn kill(&self) {
        self.begin_stop();
        lock(&self.group).kill();
    }
}

/// `exited with code 3`, `was killed by signal 9`, or, without a status, that it closed
/// its stdout and kept running.
pub(crate) fn describe_exit(status: Option<ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.map(|status| (status.code(), status.signal())) {
        Some((Some(code), _)) => format!("exited with code {code}"),
        Some((None, Some(signal))) => format!("was killed by signal {signal}"),
        Some((None, None)) => "ended abnormally".into(),
        None => "closed its stdout (it still runs)".into(),
    }
}
