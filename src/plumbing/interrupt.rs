//! SIGINT and SIGTERM during a run, as one process-wide state that every trial sees.
//!
//! [`install`] (called by [`Harness::run`](crate::Harness::run), so also by
//! `mcpeval check`) listens for both signals on a thread of its own. The first one is
//! graceful: it is recorded ([`interrupted`]) and wakes every [`wait`]er, so each running task
//! ends its timed part as on a timeout and still runs its cleanup, trials not yet started
//! fail at once as not run, and the harness exits with the signal's code
//! ([`exit::INTERRUPTED`], [`exit::TERMINATED`]). A second SIGINT or SIGTERM stops at once:
//! every process group mcpeval started is killed
//! ([`kill_all_groups`](crate::plumbing::process::kill_all_groups)) and the process exits with the
//! first signal's code, cleanup or not.

use std::fmt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::plumbing::exit;

/// The signal that interrupted the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// SIGINT (Ctrl-C).
    Sigint,
    /// SIGTERM (`kill`, nextest's `terminate-after`, CI cancelling a job).
    Sigterm,
}

impl Interrupt {
    /// `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Interrupt::Sigint => "SIGINT",
            Interrupt::Sigterm => "SIGTERM",
        }
    }

    /// The exit code of a run it interrupted: 130 or 143 (128 + the signal's number, as
    /// shells report a process killed by it).
    pub fn exit_code(self) -> u8 {
        match self {
            Interrupt::Sigint => exit::INTERRUPTED,
            Interrupt::Sigterm => exit::TERMINATED,
        }
    }

    fn code(self) -> u8 {
        match self {
            Interrupt::Sigint => 1,
            Interrupt::Sigterm => 2,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        match code {
            1 => Some(Interrupt::Sigint),
            2 => Some(Interrupt::Sigterm),
            _ => None,
        }
    }
}

impl fmt::Display for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The first signal received (0: none yet).
static FIRST: AtomicU8 = AtomicU8::new(0);

/// Cancelled on the first signal.
fn token() -> &'static CancellationToken {
    static TOKEN: OnceLock<CancellationToken> = OnceLock::new();
    TOKEN.get_or_init(CancellationToken::new)
}

/// The signal that interrupted this process, once one did.
pub fn interrupted() -> Option<Interrupt> {
    Interrupt::from_code(FIRST.load(Ordering::SeqCst))
}

/// Resolves when the first signal arrives (at once when it already has); any runtime.
pub async fn wait() -> Interrupt {
    token().cancelled().await;
    interrupted().unwrap_or(Interrupt::Sigterm)
}

/// Listens for SIGINT and SIGTERM from now on (once per process; later calls only report
/// how the first went). The signals' default action, ending the process on the spot, no
/// longer applies.
pub fn install() -> Result<(), String> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED.get_or_init(start_listener).clone()
}

/// Starts the listening thread with a small runtime of its own, and waits until both
/// signals are registered.
fn start_listener() -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the signal listener: {e}"))?;
    let (sigint, sigterm) = runtime
        .block_on(async {
            Ok::<_, std::io::Error>((
                signal(SignalKind::interrupt())?,
                signal(SignalKind::terminate())?,
            ))
        })
        .map_err(|e| format!("cannot listen for SIGINT and SIGTERM: {e}"))?;
    std::thread::Builder::new()
        .name("mcpeval-signals".into())
        .spawn(move || runtime.block_on(listen(sigint, sigterm)))
        .map(drop)
        .map_err(|e| format!("cannot start the signal listener: {e}"))
}

async fn listen(mut sigint: tokio::signal::unix::Signal, mut sigterm: tokio::signal::unix::Signal) {
    loop {
        let received = tokio::select! {
            Some(()) = sigint.recv() => Interrupt::Sigint,
            Some(()) = sigterm.recv() => Interrupt::Sigterm,
            else => return,
        };
        on_signal(received);
    }
}

/// The first signal asks the run to stop after cleanup; a second one stops it now.
fn on_signal(received: Interrupt) {
    match FIRST.compare_exchange(0, received.code(), Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => {
            eprintln!(
                "\nmcpeval: {received}: stopping the running tasks after their cleanup; \
                 tasks not started will not run (send it again to stop at once)"
            );
            token().cancel();
        }
        Err(first) => {
            let first = Interrupt::from_code(first).unwrap_or(received);
            eprintln!("\nmcpeval: {received} again: stopping now, without cleanup");
            crate::plumbing::process::kill_all_groups();
            // Stopping at once is the point: no destructor, no cleanup, no summary.
            std::process::exit(i32::from(first.exit_code()));
        }
    }
}
