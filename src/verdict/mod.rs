//! The verdict of one task run and what says it: `decide.rs` ([`Verdict::of`]: every reason a
//! run failed, typed), `message.rs` (the failure message a test prints), `results.rs` (the
//! run's results file, [`TaskResult`](crate::report::TaskResult)).

pub(crate) mod decide;
pub(crate) mod message;
pub(crate) mod results;

pub use decide::{AgentVerdict, SnapshotFailure, StepFailure, Verdict};
pub use message::failure_message;
pub use results::{ResultInput, task_result};
