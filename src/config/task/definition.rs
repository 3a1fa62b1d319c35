//! A task as the runner uses it: loaded from either mcpchecker version (see `task_file.rs`)
//! into one [`Task`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::steps::{Step, TaskStep};
use crate::config::extensions::ExtensionStep;
use crate::config::files::check::Checker;
use crate::fault::FaultRule;
use crate::user::{ElicitationScript, SamplingScript};

/// `limits` of a task, or `defaultTaskLimits` of an eval, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawLimits {
    timeout: Option<String>,
    cleanup_timeout: Option<String>,
}

/// Time limits of a task run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Bound on setup + agent + verify.
    pub timeout: Option<Duration>,
    /// Bound on cleanup.
    pub cleanup_timeout: Option<Duration>,
}

impl RawLimits {
    /// Validates limits written at `path`.
    pub fn validate(self, check: &mut Checker<'_>, path: &str) -> Limits {
        Limits {
            timeout: self
                .timeout
                .and_then(|t| check.duration(&format!("{path}.timeout"), &t)),
            cleanup_timeout: self
                .cleanup_timeout
                .and_then(|t| check.duration(&format!("{path}.cleanupTimeout"), &t)),
        }
    }
}

/// The task version a file was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskVersion {
    /// `steps` (no `apiVersion`, or `mcpchecker/v1alpha1`).
    V1Alpha1,
    /// `spec` (`apiVersion: mcpchecker/v1alpha2`).
    V1Alpha2,
}

/// How hard a task is, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Difficulty {
    /// `easy`
    Easy,
    /// `medium`
    Medium,
    /// `hard`
    Hard,
}

/// A loaded and validated task.
#[derive(Debug, Clone)]
pub struct Task {
    /// The task file.
    pub path: PathBuf,
    /// Which format it was written in.
    pub version: TaskVersion,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.difficulty`.
    pub difficulty: Option<Difficulty>,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
    /// `metadata.parallel`.
    pub parallel: bool,
    /// `metadata.runs`.
    pub runs: Option<u32>,
    /// `metadata.minPassRate`: the share of runs that must pass.
    pub min_pass_rate: Option<f64>,
    /// The prompt text given to the agent.
    pub prompt: String,
    /// Steps before the agent.
    pub setup: Vec<TaskStep>,
    /// Steps after the agent that decide the verdict.
    pub verify: Vec<TaskStep>,
    /// Steps that always run at the end once setup started.
    pub cleanup: Vec<TaskStep>,
    /// `spec.limits` (v1alpha2 only).
    pub limits: Limits,
    /// `spec.faults` (v1alpha2 only): faults on purpose in this task's calls, after its
    /// task sets' rules.
    pub faults: Vec<FaultRule>,
    /// `spec.elicitation` (v1alpha2 only): how the scripted user answers the servers'
    /// elicitations in this task, before its task sets' rules.
    pub elicitation: Option<ElicitationScript>,
    /// `spec.sampling` (v1alpha2 only): how the scripted model answers the servers'
    /// sampling requests in this task, before its task sets' rules.
    pub sampling: Option<SamplingScript>,
    /// `spec.followUps` (v1alpha2 only): the turns after the first (`prompt`), in order, in
    /// the same conversation with the same server.
    pub follow_ups: Vec<FollowUp>,
    /// `spec.continueOnFailure`: a failed turn does not stop the conversation.
    pub continue_on_failure: bool,
}

/// One `spec.followUps` entry: a later turn of the task's conversation.
#[derive(Debug, Clone)]
pub struct FollowUp {
    /// What the user says in this turn.
    pub prompt: String,
    /// Checked right after this turn: steps that see the trace so far.
    pub verify: Vec<TaskStep>,
    /// Checked right after this turn, over this turn's calls.
    pub assertions: crate::config::Assertions,
}

impl Task {
    /// The prompts of the conversation's turns, from the first (`prompt`).
    pub fn turn_prompts(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.prompt.as_str())
            .chain(self.follow_ups.iter().map(|turn| turn.prompt.as_str()))
    }

    /// The directory scripts run in and relative paths resolve against.
    pub fn dir(&self) -> &Path {
        crate::config::files::check::dir_of(&self.path)
    }

    /// Every extension step of the task: setup, verify, then cleanup.
    pub fn extension_steps(&self) -> impl Iterator<Item = &ExtensionStep> {
        let steps = self.setup.iter().chain(&self.verify).chain(&self.cleanup);
        steps.filter_map(|step| match &step.step {
            Step::Extension(step) => Some(step),
            _ => None,
        })
    }
}

/// What loading a task needs to know of the eval that runs it.
#[derive(Debug, Clone, Default)]
pub struct TaskContext {
    /// Whether the eval configures an LLM judge (`config.llmJudge`).
    pub has_judge: bool,
    /// The names of the eval's extensions (`config.extensions`).
    pub extensions: Vec<String>,
    /// The MCP config's server names (`None` when unknown: nothing checks them).
    pub servers: Option<Vec<String>>,
}
