//! Child processes of a task run (agents, scripts): each in its own process group, bounded by
//! a timeout, its output captured, and the whole group killed on timeout, on cancellation and
//! on drop, so no process of ours outlives the run. Every group a [`ProcessGroupGuard`] holds
//! is also in a process-wide registry, which [`kill_all_groups`] kills at once (a second
//! SIGINT, see [`interrupt`](crate::plumbing::interrupt)).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

use crate::plumbing::lock::lock;

/// How long a process group gets between SIGTERM and SIGKILL.
pub const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long output may keep arriving after the process ended.
const PIPE_GRACE: Duration = Duration::from_millis(300);

/// Output kept per stream; the start and end of longer output are kept, the middle dropped.
const MAX_CAPTURE: usize = 1 << 20;

/// What to run.
#[derive(Debug, Clone)]
pub struct ProcessSpec {
    /// The program.
    pub program: OsString,
    /// Its arguments, passed as they are (no shell).
    pub args: Vec<OsString>,
    /// Environment variables added to the parent's.
    pub env: Vec<(OsString, OsString)>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Copy the output to our stderr as it arrives (`MCPEVAL_LIVE=1`).
    pub live: bool,
}

/// How a process ended.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The exit status; `None` when the timeout killed it.
    pub status: Option<ExitStatus>,
    /// Captured stdout (lossy UTF-8).
    pub stdout: String,
    /// Captured stderr (lossy UTF-8).
    pub stderr: String,
}

impl Finished {
    /// Exited with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// Killed by the timeout.
    pub fn timed_out(&self) -> bool {
        self.status.is_none()
    }

    /// `exit code 3`, `killed by signal 9` or `timed out after 30s`.
    pub fn describe(&self, timeout: Duration) -> String {
        match self.status {
            None => format!("timed out after {}", humantime::format_duration(timeout)),
            Some(status) => match (
                status.code(),
                std::os::unix::process::ExitStatusExt::signal(&status),
            ) {
                (Some(code), _) => format!("exit code {code}"),
                (None, Some(signal)) => format!("killed by signal {signal}"),
                (None, None) => "ended abnormally".to_owned(),
            },
        }
    }
}

/// Kills a process group when dropped (SIGKILL), unless it was already reaped. While it holds
/// the group, the group is in the registry [`kill_all_groups`] kills.
#[derive(Debug)]
pub struct ProcessGroupGuard {
    pgid: Option<Pid>,
}

impl ProcessGroupGuard {
    /// Guards the group led by `pid` (0, no process, guards nothing).
    pub fn new(pid: u32) -> Self {
        let pgid = i32::try_from(pid)
            .ok()
            .filter(|pid| *pid > 0)
            .map(Pid::from_raw);
        if let Some(pgid) = pgid {
            register(pgid);
        }
        ProcessGroupGuard { pgid }
    }

    /// The process group id (the leader's pid), while the guard still owns the group.
    pub fn pgid(&self) -> Option<u32> {
        self.pgid.and_then(|pgid| u32::try_from(pgid.as_raw()).ok())
    }

    /// Sends `signal` to every process of the group; a group already gone is fine.
    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            let _ = killpg(pgid, signal);
        }
    }

    /// Whether a process of the group is still there (a zombie counts until it is reaped).
    pub fn alive(&self) -> bool {
        self.pgid.is_some_and(|pgid| killpg(pgid, None).is_ok())
    }

    /// Waits up to `grace` for every process of the group to end by itself (the leader
    /// reaped, the processes it started exited); whether they did.
    pub async fn wait_empty(&self, grace: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + grace;
        while self.alive() {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        true
    }

    /// SIGKILL to the group, once.
    pub fn kill(&mut self) {
        self.signal(Signal::SIGKILL);
        if let Some(pgid) = self.pgid.take() {
            unregister(pgid);
        }
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The process groups guards hold now, each with how many guards hold it.
static GROUPS: Mutex<BTreeMap<Pid, usize>> = Mutex::new(BTreeMap::new());

/// Set by [`kill_all_groups`]: a group guarded afterwards is killed at once.
static CLOSED: AtomicBool = AtomicBool::new(false);

fn register(pgid: Pid) {
    if CLOSED.load(Ordering::SeqCst) {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    *lock(&GROUPS).entry(pgid).or_insert(0) += 1;
}

fn unregister(pgid: Pid) {
    let mut groups = lock(&GROUPS);
    if let Some(count) = groups.get_mut(&pgid) {
        *count -= 1;
        if *count == 0 {
            groups.remove(&pgid);
        }
    }
}

/// SIGKILL to every process group a guard holds now, and to any guarded later: for a
/// process about to exit without running destructors (a second SIGINT).
pub fn kill_all_groups() {
    CLOSED.store(true, Ordering::SeqCst);
    for pgid in lock(&GROUPS).keys() {
        let _ = killpg(*pgid, Signal::SIGKILL);
    }
}

#[cfg(test)]
fn is_guarded(pgid: u32) -> bool {
    i32::try_from(pgid).is_ok_and(|pgid| lock(&GROUPS).contains_key(&Pid::from_raw(pgid)))
}

/// Runs `spec` to completion or until `timeout`; then SIGTERM to its group, and SIGKILL after
/// [`KILL_GRACE`]. Stdin is closed. Every process left in the group when the leader exits is
/// killed too. Dropping the future kills the group.
pub async fn run(spec: &ProcessSpec, timeout: Duration) -> std::io::Result<Finished> {
    let (finished, mut group) = run_leaving_group(spec, timeout).await?;
    group.kill();
    Ok(finished)
}

/// Starts `command` as the leader of a process group of its own, killed on drop: the one way
/// mcpeval starts a process. The guard signals the whole group, what the leader started too.
pub fn spawn_in_group(command: &mut Command) -> std::io::Result<(Child, ProcessGroupGuard)> {
    let child = command.process_group(0).kill_on_drop(true).spawn()?;
    let group = ProcessGroupGuard::new(child.id().unwrap_or(0));
    Ok((child, group))
}

/// Like [`run`], but processes the leader left running in its group (a service a setup script
/// started in the background) live on until the returned guard is dropped or killed.
pub async fn run_leaving_group(
    spec: &ProcessSpec,
    timeout: Duration,
) -> std::io::Result<(Finished, ProcessGroupGuard)> {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (mut child, mut group) = spawn_in_group(&mut command)?;
    let (out, err) = (
        Arc::new(Mutex::new(Captured::default())),
        Arc::new(Mutex::new(Captured::default())),
    );
    let stdout = tokio::spawn(capture(child.stdout.take(), out.clone(), spec.live));
    let stderr = tokio::spawn(capture(child.stderr.take(), err.clone(), spec.live));

    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => Some(status?),
        Err(_) => {
            group.signal(Signal::SIGTERM);
            if tokio::time::timeout(KILL_GRACE, child.wait())
                .await
                .is_err()
            {
                group.signal(Signal::SIGKILL);
                let _ = child.wait().await;
            }
            None
        }
    };
    if status.is_none() {
        group.kill();
    }
    // The pipes close when the last process holding them exits; one left running in the
    // background keeps them open, so wait briefly and keep what arrived.
    let _ = tokio::time::timeout(PIPE_GRACE, async {
        let _ = stdout.await;
        let _ = stderr.await;
    })
    .await;
    let text = |captured: &Arc<Mutex<Captured>>| lock(captured).text();
    let finished = Finished {
        status,
        stdout: text(&out),
        stderr: text(&err),
    };
    Ok((finished, group))
}

/// Output read so far from one stream; shared so that what arrived is kept even when a
/// process left behind holds the pipe open and EOF never comes.
#[derive(Default)]
pub(crate) struct Captured {
    kept: Vec<u8>,
    dropped: usize,
}

impl Captured {
    fn push(&mut self, bytes: &[u8]) {
        self.kept.extend_from_slice(bytes);
        if self.kept.len() > MAX_CAPTURE {
            // Keep the first half and the most recent output.
            let cut = self.kept.len() - MAX_CAPTURE / 2;
            self.dropped += cut - MAX_CAPTURE / 2;
            self.kept.drain(MAX_CAPTURE / 2..cut);
        }
    }

    /// What was kept, with a note where output was dropped.
    pub(crate) fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            let middle = crate::plumbing::text::boundary(&text, MAX_CAPTURE / 2);
            text.insert_str(
                middle,
                &format!("\n[… {} bytes of output dropped …]\n", self.dropped),
            );
        }
        text
    }
}

/// Reads `stream` to its end into `into` (bounded: the first and the latest output are
/// kept), copying it to our stderr as it arrives when `live`.
pub(crate) async fn capture(
    stream: Option<impl AsyncRead + Unpin>,
    into: Arc<Mutex<Captured>>,
    live: bool,
) {
    let Some(mut stream) = stream else { return };
    let mut buffer = [0u8; 8192];
    loop {
        let n = match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if live {
            use std::io::Write;
            let _ = std::io::stderr().write_all(&buffer[..n]);
        }
        lock(&into).push(&buffer[..n]);
    }
}

/// The last `max_lines` lines of `text`, with a note of how many were cut.
pub fn tail(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    if lines.len() <= max_lines {
        return lines.join("\n");
    }
    format!(
        "[… {} earlier lines …]\n{}",
        lines.len() - max_lines,
        lines[lines.len() - max_lines..].join("\n")
    )
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
