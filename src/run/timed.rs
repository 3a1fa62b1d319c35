//! What the timed part of a task run (setup, the agent's turns, verify, the assertions)
//! shares with the code that waits for it: the phase it is in, its report, the process
//! groups it keeps, its cassette and deadline.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::plumbing::lock::lock;
use crate::plumbing::process::ProcessGroupGuard;
use crate::run::report::{RunPhase, RunReport};

/// What the timed part of a run shares with the code that waits for it.
pub(crate) struct TimedRun {
    pub(crate) phase: Arc<Mutex<RunPhase>>,
    pub(crate) report: Mutex<RunReport>,
    pub(crate) groups: Mutex<Vec<ProcessGroupGuard>>,
    /// The cassette of the run's LLM calls.
    pub(crate) cassette: PathBuf,
    /// The test's name, for the commands that re-record.
    pub(crate) test_name: String,
    /// When the task timeout ends the timed part of the run.
    pub(crate) deadline: std::time::Instant,
}

impl TimedRun {
    pub(crate) fn set_phase(&self, phase: RunPhase) {
        *lock(&self.phase) = phase;
    }

    pub(crate) fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        lock(&self.report)
    }
}
