//! Setup, verify and cleanup steps of a task: `script`, `http`, `llmJudge` and the
//! `<alias>.<operation>` steps of extensions (`extensions.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::http_step::{HttpStep, RawHttp};
use crate::config::extensions::{ExtensionStep, RawExtensionStep};
use crate::config::files::check::Checker;

/// One step of a v1alpha2 task: a map with one key naming the step type (deserialized in
/// `raw_step.rs`).
#[derive(Debug)]
pub enum RawStep {
    /// `script: {file|inline, timeout, env, continueOnError}`
    Script(RawScript),
    /// `http: {url, method, headers, body, timeout, expect}`
    Http(RawHttp),
    /// `llmJudge: {contains|exact}`
    LlmJudge(RawJudge),
    /// `<alias>.<operation>: {arguments}`
    Extension(RawExtensionStep),
}

/// One entry of a v1alpha2 phase: the step (one key naming its type) and mcpchecker's
/// optional `id:` beside it (`- id: check-pod` / `  script: …`).
#[derive(Debug)]
pub struct RawStepEntry {
    pub(in crate::config) id: Option<String>,
    pub(in crate::config) step: Option<RawStep>,
    /// Every type key written (more than one is an error).
    pub(in crate::config) types: Vec<String>,
}

impl RawStepEntry {
    /// Validates the entry written at `path`; an extension step's alias comes from the
    /// task's `spec.requires` (`aliases`).
    pub fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        aliases: &BTreeMap<String, String>,
    ) -> Option<TaskStep> {
        if self.types.len() > 1 {
            check.error(
                path,
                format!(
                    "one step has one type, found {}; write each as its own `- …` entry",
                    self.types.join(" and ")
                ),
            );
            return None;
        }
        let Some(step) = self.step else {
            check.error(
                path,
                "missing the step type; expected one of script, http, llmJudge, <alias>.<operation>",
            );
            return None;
        };
        let id = match self.id {
            Some(id) if id.trim().is_empty() => {
                check.error(format!("{path}.id"), "must not be empty");
                None
            }
            id => id,
        };
        let step = match step {
            RawStep::Extension(raw) => raw.validate(check, path, aliases).map(Step::Extension)?,
            step => step.validate(check, path)?,
        };
        Some(TaskStep { id, step })
    }
}

/// A script step (also the v1alpha1 `{file}` / `{inline}` form).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawScript {
    pub(in crate::config) file: Option<String>,
    pub(in crate::config) inline: Option<String>,
    pub(in crate::config) timeout: Option<String>,
    #[serde(default)]
    pub(in crate::config) env: BTreeMap<String, String>,
    #[serde(default)]
    pub(in crate::config) continue_on_error: bool,
}

/// An LLM-judge step (also the v1alpha1 `verify: {contains|exact}` form).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawJudge {
    pub(in crate::config) contains: Option<String>,
    pub(in crate::config) exact: Option<String>,
}

/// A validated step.
#[derive(Debug, Clone)]
pub enum Step {
    /// Run a script.
    Script(ScriptStep),
    /// Make an HTTP request and check the response.
    Http(Box<HttpStep>),
    /// Ask the eval's LLM judge about the agent's answer.
    LlmJudge(JudgeStep),
    /// Run an operation of an extension.
    Extension(ExtensionStep),
}

/// A step of a task with its optional `id` (mcpchecker's; used in messages and results).
#[derive(Debug, Clone)]
pub struct TaskStep {
    /// `id:`, when written.
    pub id: Option<String>,
    /// The step.
    pub step: Step,
}

impl From<Step> for TaskStep {
    fn from(step: Step) -> Self {
        TaskStep { id: None, step }
    }
}

/// Where a script comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptSource {
    /// A file, resolved against the task file's directory.
    File(PathBuf),
    /// The script text itself.
    Inline(String),
}

/// Default bound on one script or HTTP step.
pub const DEFAULT_STEP_TIMEOUT: Duration = Duration::from_secs(300);

/// A script step.
#[derive(Debug, Clone)]
pub struct ScriptStep {
    /// The script.
    pub source: ScriptSource,
    /// Bound on its run.
    pub timeout: Duration,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// A failure does not stop the phase.
    pub continue_on_error: bool,
}

/// An LLM-judge step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeStep {
    /// The answer semantically contains this.
    Contains(String),
    /// The answer is semantically equivalent to this.
    Exact(String),
}

impl RawStep {
    /// Validates the step written at `path`.
    pub fn validate(self, check: &mut Checker<'_>, path: &str) -> Option<Step> {
        match self {
            RawStep::Script(raw) => raw
                .validate(check, &format!("{path}.script"))
                .map(Step::Script),
            RawStep::Http(raw) => raw
                .validate(check, &format!("{path}.http"), DEFAULT_STEP_TIMEOUT)
                .map(|s| Step::Http(Box::new(s))),
            RawStep::LlmJudge(raw) => raw
                .validate(check, &format!("{path}.llmJudge"))
                .map(Step::LlmJudge),
            // Without the task's `spec.requires` no alias is known (see task_file.rs).
            RawStep::Extension(raw) => raw
                .validate(check, path, &BTreeMap::new())
                .map(Step::Extension),
        }
    }
}

impl RawScript {
    /// Validates the script step written at `path`; a script file must exist.
    pub fn validate(self, check: &mut Checker<'_>, path: &str) -> Option<ScriptStep> {
        let source = match (self.file, self.inline) {
            (Some(file), None) => {
                ScriptSource::File(check.existing_file(&format!("{path}.file"), &file)?)
            }
            (None, Some(inline)) => ScriptSource::Inline(inline),
            (Some(_), Some(_)) => {
                check.error(
                    path,
                    "both `file` and `inline` are set; expected exactly one",
                );
                return None;
            }
            (None, None) => {
                check.error(
                    path,
                    "neither `file` nor `inline` is set; expected exactly one",
                );
                return None;
            }
        };
        let timeout = match self.timeout {
            Some(text) => check.duration(&format!("{path}.timeout"), &text)?,
            None => DEFAULT_STEP_TIMEOUT,
        };
        Some(ScriptStep {
            source,
            timeout,
            env: self.env,
            continue_on_error: self.continue_on_error,
        })
    }
}

impl RawJudge {
    /// Validates the judge step written at `path`.
    pub fn validate(self, check: &mut Checker<'_>, path: &str) -> Option<JudgeStep> {
        match (self.contains, self.exact) {
            (Some(text), None) => Some(JudgeStep::Contains(text)),
            (None, Some(text)) => Some(JudgeStep::Exact(text)),
            (Some(_), Some(_)) => {
                check.error(
                    path,
                    "both `contains` and `exact` are set; expected exactly one",
                );
                None
            }
            (None, None) => {
                check.error(
                    path,
                    "neither `contains` nor `exact` is set; expected exactly one",
                );
                None
            }
        }
    }
}
