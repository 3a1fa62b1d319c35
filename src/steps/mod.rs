//! Setup, verify and cleanup steps of a task run.

mod extension;
mod http;
mod judge;
mod script;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::config::{Step, TaskStep};
use crate::plumbing::process::ProcessGroupGuard;

pub use crate::plumbing::ended::Ended;
pub use extension::{StepExtensions, prepare_extension_steps};
pub use judge::{JudgeSettings, resolve_judge};
pub use script::{ScriptCommand, script_command};

/// Which phase a step belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before the agent.
    Setup,
    /// After the agent; decides the verdict.
    Verify,
    /// Always at the end.
    Cleanup,
}

impl Phase {
    /// `setup`, `verify` or `cleanup`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Verify => "verify",
            Phase::Cleanup => "cleanup",
        }
    }
}

/// What the steps of a run can see.
#[derive(Debug, Clone)]
pub struct StepContext {
    /// The task file's directory: the scripts' working directory.
    pub task_dir: PathBuf,
    /// A private directory of this run (inline scripts are written here).
    pub run_dir: PathBuf,
    /// Environment variables for every script (`MCPEVAL_TRACE`, `MCPEVAL_AGENT_OUTPUT`).
    pub env: Vec<(String, String)>,
    /// Copy output to stderr as it arrives.
    pub live: bool,
    /// The task's prompt, which the judge sees beside the answer.
    pub prompt: String,
    /// The agent's answer, for `llmJudge` steps (verify only).
    pub agent_output: Option<String>,
    /// The eval's LLM judge, for `llmJudge` steps; see [`resolve_judge`].
    pub judge: Option<JudgeSettings>,
    /// The eval's extensions, for `<alias>.<operation>` steps.
    pub extensions: Option<StepExtensions>,
}

/// The result of one step.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// e.g. `setup[0] script setup.sh`, or with an `id`: ``setup[0] `seed` script
    /// setup.sh``.
    pub label: String,
    /// The step's `id:`, when written.
    pub id: Option<String>,
    /// Whether it passed, or why not (`exit code 1`, `timed out after 5m`).
    pub ended: Ended,
    /// Its captured stdout and stderr.
    pub output: String,
    /// A failure does not stop the phase.
    pub continue_on_error: bool,
    /// When it ran (set by [`run_phase`]; `None` for a phase that timed out as a whole).
    pub span: Option<Span>,
}

impl StepResult {
    /// A step labelled `label` that has not finished (yet): each way it ends sets `ended`.
    pub(crate) fn new(label: String, continue_on_error: bool) -> Self {
        StepResult {
            label,
            id: None,
            ended: Ended::Failed("the step did not finish".into()),
            output: String::new(),
            continue_on_error,
            span: None,
        }
    }

    /// Whether it passed.
    pub fn passed(&self) -> bool {
        self.ended.passed()
    }

    /// Why it failed; empty when it passed.
    pub fn reason(&self) -> &str {
        self.ended.reason()
    }

    /// Fails it for `reason`.
    pub(crate) fn fail(&mut self, reason: String) {
        self.ended = Ended::Failed(reason);
    }
}

/// When something of a run started and how long it took.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// When it started.
    pub start: Instant,
    /// How long it took.
    pub duration: Duration,
}

impl Span {
    /// A span from `start` until now.
    pub fn since(start: Instant) -> Self {
        Span {
            start,
            duration: start.elapsed(),
        }
    }
}

/// Runs the steps of one phase in order. A failed step stops the phase unless it has
/// `continueOnError`. Processes a setup step leaves running are added to `keep` and live
/// until the run ends.
pub async fn run_phase(
    phase: Phase,
    steps: &[TaskStep],
    context: &StepContext,
    keep: &mut Vec<ProcessGroupGuard>,
) -> Vec<StepResult> {
    let mut results = Vec::new();
    for (index, TaskStep { id, step }) in steps.iter().enumerate() {
        let start = Instant::now();
        let mut result = match step {
            Step::Script(script) => script::run_script(phase, index, script, context, keep).await,
            Step::Http(http) => http::run_http(phase, index, http).await,
            Step::LlmJudge(judge) => judge::run_judge(phase, index, judge, context).await,
            Step::Extension(step) => extension::run_extension(phase, index, step, context).await,
        };
        result.span = Some(Span::since(start));
        if let Some(id) = id {
            // `verify[0] script check.sh` → `verify[0] `check-pod` script check.sh`.
            let (at, what) = result.label.split_once(' ').unwrap_or((&result.label, ""));
            result.label = format!("{at} `{id}` {what}");
            result.id = Some(id.clone());
        }
        let stop = !result.passed() && !result.continue_on_error;
        results.push(result);
        if stop {
            break;
        }
    }
    results
}

/// Whether every step passed (steps with `continueOnError` may fail).
pub fn phase_passed(results: &[StepResult]) -> bool {
    results.iter().all(|r| r.passed() || r.continue_on_error)
}

fn display_path(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}
