//! The tasks a connection follows for its agent (see `tasks.rs`), as the connection holds
//! them: ended when the run ends, before the connection closes.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::RwLock;
use tokio_util::sync::CancellationToken;

/// The tasks a connection follows for its agent: ended (cancelled at the server, noted)
/// when the run ends, before the connection closes.
#[derive(Debug, Default)]
pub(crate) struct TasksInFlight {
    pub(super) run_ended: CancellationToken,
    /// Held (read) by each task followed and by each `tasks/cancel` on its way; taken
    /// (write) once they all have ended.
    pub(super) following: Arc<RwLock<()>>,
}

impl TasksInFlight {
    /// Ends the tasks still followed: each is cancelled at the server and its call notes
    /// it. Returns once they have (at most [`END_WAIT`] later).
    pub(crate) async fn end(&self) {
        self.run_ended.cancel();
        let _ = tokio::time::timeout(END_WAIT, self.following.write()).await;
    }
}

/// How long the end of a run waits for the tasks still followed to be cancelled.
pub(super) const END_WAIT: Duration = Duration::from_secs(5);
