//! `config.taskSets` of an Eval file: which task files, filtered by labels, and the
//! assertions they get.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::assertions::block::{Assertions, RawAssertions};
use super::files::check::Checker;
use super::files::error::did_you_mean;
use super::task::elicitation::{RawElicitation, elicitation_script};
use super::task::faults::{RawFaultRule, fault_rules};
use super::task::sampling::{RawSampling, sampling_script};
use crate::fault::FaultRule;
use crate::user::{ElicitationScript, SamplingScript};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct RawTaskSet {
    path: Option<String>,
    glob: Option<String>,
    #[serde(default)]
    label_selector: BTreeMap<String, String>,
    min_pass_rate: Option<f64>,
    schema_violations: Option<String>,
    assertions: Option<RawAssertions>,
    #[serde(default)]
    faults: Vec<RawFaultRule>,
    elicitation: Option<RawElicitation>,
    sampling: Option<RawSampling>,
    source: Option<IgnoredAny>,
}

/// One task set: which task files, filtered by labels, and the assertions they get.
#[derive(Debug, Clone)]
pub struct TaskSet {
    /// Where it is written, e.g. `config.taskSets[1]`.
    pub key_path: String,
    /// The task files it names.
    pub source: TaskSource,
    /// Labels a task must all have to be selected.
    pub label_selector: BTreeMap<String, String>,
    /// `minPassRate`: the share of a task's runs that must pass.
    pub min_pass_rate: Option<f64>,
    /// `schemaViolations`: whether tool arguments that break the tool's input schema fail
    /// the task.
    pub schema_violations: SchemaViolations,
    /// Assertions for every task of the set.
    pub assertions: Assertions,
    /// `faults`: what the proxy does to chosen calls of every task of the set.
    pub faults: Vec<FaultRule>,
    /// `elicitation`: how the scripted user answers the servers' elicitations in every
    /// task of the set (after the task's own rules).
    pub elicitation: Option<ElicitationScript>,
    /// `sampling`: how the scripted model answers the servers' sampling requests in every
    /// task of the set (after the task's own rules).
    pub sampling: Option<SamplingScript>,
}

/// What tool calls whose arguments break the tool's `inputSchema` mean for a task (a task
/// set's `schemaViolations`). Results that break the output schema always fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum SchemaViolations {
    /// `warn` (the default): counted and shown, the task still passes.
    #[default]
    Warn,
    /// `fail`: any such call fails the task.
    Fail,
}

/// The task files of a task set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskSource {
    /// One file (exists; checked at load).
    Path(PathBuf),
    /// A glob relative to the eval's directory; `**` crosses directories.
    Glob(String),
}

/// A task set's `schemaViolations`: `warn` when absent.
fn schema_violations(
    check: &mut Checker<'_>,
    key_path: &str,
    mode: Option<&str>,
) -> SchemaViolations {
    match mode {
        None | Some("warn") => SchemaViolations::Warn,
        Some("fail") => SchemaViolations::Fail,
        Some(other) => {
            check.error(
                key_path,
                format!(
                    "unknown value `{other}`; expected warn or fail{}",
                    did_you_mean(other, ["warn", "fail"])
                ),
            );
            SchemaViolations::Warn
        }
    }
}

/// `config.taskSets`, each validated; at least one is required.
pub(super) fn task_sets(
    check: &mut Checker<'_>,
    sets: Option<Vec<RawTaskSet>>,
    servers: Option<&[&str]>,
) -> Vec<TaskSet> {
    let mut task_sets = Vec::new();
    match sets {
        None => check.error(
            "config.taskSets",
            "missing required field; expected a list of task sets",
        ),
        Some(sets) if sets.is_empty() => {
            check.error("config.taskSets", "expected at least one task set")
        }
        Some(sets) => {
            for (i, set) in sets.into_iter().enumerate() {
                if let Some(set) = set.validate(check, i, servers) {
                    task_sets.push(set);
                }
            }
        }
    }
    task_sets
}

impl RawTaskSet {
    fn validate(
        self,
        check: &mut Checker<'_>,
        index: usize,
        servers: Option<&[&str]>,
    ) -> Option<TaskSet> {
        let key_path = format!("config.taskSets[{index}]");
        if self.source.is_some() {
            check.error(
                format!("{key_path}.source"),
                "task sources of mcpchecker (git repositories) are not supported by mcpeval yet",
            );
        }
        let source = match (self.path, self.glob) {
            (Some(path), None) => check
                .existing_file(&format!("{key_path}.path"), &path)
                .map(TaskSource::Path),
            (None, Some(glob)) => {
                if glob.trim().is_empty() {
                    check.error(format!("{key_path}.glob"), "must not be empty");
                    None
                } else if let Err(e) = globset_check(&glob) {
                    check.error(
                        format!("{key_path}.glob"),
                        format!("invalid glob {glob:?}: {e}"),
                    );
                    None
                } else {
                    Some(TaskSource::Glob(glob))
                }
            }
            (Some(_), Some(_)) => {
                check.error(
                    key_path.clone(),
                    "both `path` and `glob` are set; expected exactly one",
                );
                None
            }
            (None, None) => {
                check.error(
                    key_path.clone(),
                    "neither `path` nor `glob` is set; expected exactly one",
                );
                None
            }
        };
        for (key, value) in &self.label_selector {
            if key.trim().is_empty() || value.trim().is_empty() {
                check.error(
                    format!("{key_path}.labelSelector"),
                    "label keys and values must not be empty",
                );
            }
        }
        let min_pass_rate = self
            .min_pass_rate
            .and_then(|r| check.rate(&format!("{key_path}.minPassRate"), r));
        let schema_violations = schema_violations(
            check,
            &format!("{key_path}.schemaViolations"),
            self.schema_violations.as_deref(),
        );
        let assertions = self.assertions.unwrap_or_default().validate(
            check,
            &format!("{key_path}.assertions"),
            servers,
        );
        let faults = fault_rules(check, &format!("{key_path}.faults"), self.faults, servers);
        let elicitation_key = format!("{key_path}.elicitation");
        let elicitation = elicitation_script(check, &elicitation_key, self.elicitation, servers);
        let sampling_key = format!("{key_path}.sampling");
        let sampling = sampling_script(check, &sampling_key, self.sampling, servers);
        Some(TaskSet {
            faults,
            elicitation,
            sampling,
            key_path,
            source: source?,
            label_selector: self.label_selector,
            min_pass_rate,
            schema_violations,
            assertions,
        })
    }
}

fn globset_check(glob: &str) -> Result<(), String> {
    globwalk::GlobWalkerBuilder::from_patterns(".", &[glob])
        .build()
        .map(|_| ())
        .map_err(|e| e.to_string())
}
