//! A task file: the task as the runner uses it (`definition`), the file read and validated
//! (`file`), its header read leniently for planning (`header`, from the parser's events in
//! `header_events`), its setup, verify and cleanup steps (`steps`, `raw_step`, `http_step`)
//! and its `faults` rules (`faults`, shared with the task sets of an eval).

pub(crate) mod definition;
pub(crate) mod elicitation;
pub(crate) mod faults;
pub(crate) mod file;
mod header;
mod header_events;
pub(crate) mod http_step;
mod raw_step;
pub(crate) mod sampling;
pub(crate) mod steps;

pub use definition::{Difficulty, FollowUp, Limits, Task, TaskContext, TaskVersion};
pub use file::load_task;
pub use header::{TaskHeader, read_task_header, task_header};
pub use http_step::{FieldCheck, HttpBody, HttpStep, JsonType};
pub use steps::{DEFAULT_STEP_TIMEOUT, JudgeStep, ScriptSource, ScriptStep, Step, TaskStep};
