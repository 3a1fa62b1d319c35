//! The results file of one task run: JSON in mcpchecker's documented shape (`taskName`,
//! `taskPath`, `taskPassed`, `assertionResults`, `callHistory`, phase outputs, …) plus our
//! additions (test name, durations, the verdict's reasons), written atomically under
//! `<output dir>/results/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::run::RunReport;
use crate::assert::AssertionFailure;
use crate::config::{Assertions, Difficulty, Task};
use crate::plan::TaskCase;
use crate::steps::{StepResult, phase_passed};
use crate::trace::{CallKind, Outcome};

/// One task run, as written to its results file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// The test name, `<eval>::<task>`.
    pub test_name: String,
    /// The eval's name.
    pub eval_name: String,
    /// The task's name.
    pub task_name: String,
    /// The task file.
    pub task_path: String,
    /// The verdict.
    pub task_passed: bool,
    /// The agent's answer.
    pub task_output: String,
    /// The first reason the task failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_error: Option<String>,
    /// Every reason the task failed.
    pub reasons: Vec<String>,
    /// The test's failure message (what `cargo test` shows), when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_message: Option<String>,
    /// The task timeout hit.
    pub timed_out: bool,
    /// The agent did not finish successfully.
    pub agent_execution_error: bool,
    /// `easy`, `medium`, `hard` or empty.
    pub difficulty: String,
    /// Per assertion: passed, and the details of each task set that configured it.
    pub assertion_results: BTreeMap<String, AssertionResult>,
    /// Every configured assertion held.
    pub all_assertions_passed: bool,
    /// What the proxies recorded.
    pub call_history: CallHistory,
    /// Setup steps.
    pub setup_output: PhaseOutput,
    /// The agent.
    pub agent_output: PhaseOutput,
    /// Verify steps.
    pub verify_output: PhaseOutput,
    /// Cleanup steps.
    pub cleanup_output: PhaseOutput,
    /// A rough token count of the prompt and the answer (characters / 4).
    pub token_estimate: TokenEstimate,
    /// Tokens the agent used, as its LLM API or Claude Code reported them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_token_usage: Option<crate::agent::llm::TokenUsage>,
    /// How long the run took, in milliseconds.
    pub duration_ms: f64,
    /// This run's index, from 0, when the task runs several times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_index: Option<u32>,
    /// How many times the task runs, when more than once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_runs: Option<u32>,
}

/// The outcome of one assertion over all task sets that configured it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertionResult {
    /// It held in every task set.
    pub passed: bool,
    /// Each task set's outcome.
    pub details: Vec<AssertionDetail>,
}

/// One task set's outcome of an assertion.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertionDetail {
    /// e.g. `config.taskSets[0]`.
    pub task_set: String,
    /// It held.
    pub passed: bool,
    /// What was expected, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What happened, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// The recorded calls by kind, in order. No request headers, no credentials.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallHistory {
    /// `tools/call`s.
    pub tool_calls: Vec<CallRecord>,
    /// `resources/read`s.
    pub resource_reads: Vec<CallRecord>,
    /// `prompts/get`s.
    pub prompt_gets: Vec<CallRecord>,
}

/// One recorded call.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// The server's name.
    pub server_name: String,
    /// Tool name, resource URI or prompt name.
    pub name: String,
    /// Its position among all calls of the run, from 1.
    pub position: usize,
    /// The arguments.
    pub arguments: Option<Value>,
    /// `ok`, `is_error` or `error`.
    pub outcome: String,
    /// The result (or error) as the agent received it.
    pub result: Value,
    /// When it started, from the start of the run, in milliseconds.
    pub start_offset_ms: f64,
    /// How long it took, in milliseconds.
    pub duration_ms: f64,
}

/// One phase: whether it succeeded and its steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseOutput {
    /// It ran and succeeded.
    pub success: bool,
    /// Its steps (for the agent: one entry).
    pub steps: Vec<StepOutput>,
}

/// One step's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepOutput {
    /// e.g. `verify[0] script verify.sh`.
    pub label: String,
    /// It passed.
    pub passed: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Its output.
    pub output: String,
}

/// A rough token count.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenEstimate {
    /// Prompt tokens (characters / 4).
    pub prompt_tokens: usize,
    /// Answer tokens (characters / 4).
    pub output_tokens: usize,
}

/// Everything the results file of a run is made of.
pub struct ResultInput<'a> {
    /// The planned case.
    pub case: &'a TaskCase,
    /// The eval's name.
    pub eval_name: &'a str,
    /// The loaded task.
    pub task: &'a Task,
    /// The run.
    pub report: &'a RunReport,
    /// The verdict, snapshot included.
    pub passed: bool,
    /// The failure message's reasons (empty when it passed).
    pub reasons: Vec<String>,
    /// The failure message, when it failed.
    pub failure_message: Option<String>,
    /// The run's duration.
    pub duration: Duration,
    /// `(index from 0, total)` when the task runs several times.
    pub run: Option<(u32, u32)>,
}

impl TaskResult {
    /// Builds the result of one run.
    pub fn new(input: ResultInput<'_>) -> Self {
        let ResultInput {
            case,
            eval_name,
            task,
            report,
            passed,
            reasons,
            failure_message,
            duration,
            run,
        } = input;
        let answer = report
            .agent
            .as_ref()
            .map(|a| a.answer.clone())
            .unwrap_or_default();
        let assertion_results = assertion_results(case, &report.failures);
        let all_assertions_passed = assertion_results.values().all(|r| r.passed);
        TaskResult {
            test_name: case.name.clone(),
            eval_name: eval_name.to_owned(),
            task_name: task.name.clone(),
            task_path: case.path.display().to_string(),
            task_passed: passed,
            token_estimate: TokenEstimate {
                prompt_tokens: task.prompt.chars().count() / 4,
                output_tokens: answer.chars().count() / 4,
            },
            agent_token_usage: report.agent.as_ref().and_then(|a| a.usage),
            task_output: answer,
            task_error: reasons.first().cloned(),
            failure_message,
            reasons,
            timed_out: report.timed_out_in.is_some(),
            agent_execution_error: report.agent.as_ref().is_none_or(|a| !a.passed),
            difficulty: match task.difficulty {
                Some(Difficulty::Easy) => "easy",
                Some(Difficulty::Medium) => "medium",
                Some(Difficulty::Hard) => "hard",
                None => "",
            }
            .to_owned(),
            assertion_results,
            all_assertions_passed,
            call_history: call_history(report),
            setup_output: phase(&report.setup),
            agent_output: match &report.agent {
                Some(agent) => PhaseOutput {
                    success: agent.passed,
                    steps: vec![StepOutput {
                        label: "agent".into(),
                        passed: agent.passed,
                        reason: agent.reason.clone(),
                        output: format!("{}{}", agent.stdout, agent.stderr),
                    }],
                },
                None => PhaseOutput::default(),
            },
            verify_output: phase(&report.verify),
            cleanup_output: phase(&report.cleanup),
            duration_ms: duration.as_secs_f64() * 1000.0,
            run_index: run.map(|(index, _)| index),
            total_runs: run.map(|(_, total)| total),
        }
    }

    /// Writes the result to `<dir>/<file_stem>.json` atomically: a reader never sees half a
    /// file, even when the run is interrupted.
    pub fn write(&self, dir: &Path, file_stem: &str) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{file_stem}.json"));
        let temporary = dir.join(format!(".{file_stem}.json.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(&temporary, text + "\n")?;
        std::fs::rename(&temporary, &path)?;
        Ok(path)
    }
}

fn phase(results: &[StepResult]) -> PhaseOutput {
    PhaseOutput {
        success: phase_passed(results),
        steps: results
            .iter()
            .map(|r| StepOutput {
                label: r.label.clone(),
                passed: r.passed,
                reason: r.reason.clone(),
                output: r.output.clone(),
            })
            .collect(),
    }
}

fn call_history(report: &RunReport) -> CallHistory {
    let mut history = CallHistory::default();
    for (i, call) in report.trace.calls.iter().enumerate() {
        let (outcome, result) = match &call.outcome {
            Outcome::Ok { result } => ("ok", result.clone()),
            Outcome::IsError { result } => ("is_error", result.clone()),
            Outcome::Error { code, message } => (
                "error",
                serde_json::json!({"code": code, "message": message}),
            ),
        };
        let record = CallRecord {
            server_name: call.server.clone(),
            name: call.name.clone(),
            position: i + 1,
            arguments: call.arguments.clone(),
            outcome: outcome.to_owned(),
            result,
            start_offset_ms: call.start_offset.as_secs_f64() * 1000.0,
            duration_ms: call.duration.as_secs_f64() * 1000.0,
        };
        match call.kind {
            CallKind::Tool => history.tool_calls.push(record),
            CallKind::Resource => history.resource_reads.push(record),
            CallKind::Prompt => history.prompt_gets.push(record),
        }
    }
    history
}

/// The assertion keys a task set configured.
fn configured(a: &Assertions) -> Vec<&'static str> {
    let mut keys = Vec::new();
    let lists: [(&'static str, bool); 7] = [
        ("toolsUsed", !a.tools_used.is_empty()),
        ("requireAny", !a.require_any.is_empty()),
        ("toolsNotUsed", !a.tools_not_used.is_empty()),
        ("resourcesRead", !a.resources_read.is_empty()),
        ("resourcesNotRead", !a.resources_not_read.is_empty()),
        ("promptsUsed", !a.prompts_used.is_empty()),
        ("promptsNotUsed", !a.prompts_not_used.is_empty()),
    ];
    keys.extend(lists.iter().filter(|(_, on)| *on).map(|(k, _)| *k));
    for (key, on) in [
        ("minToolCalls", a.min_tool_calls.is_some()),
        ("maxToolCalls", a.max_tool_calls.is_some()),
        ("callOrder", !a.call_order.is_empty()),
        ("noDuplicateCalls", a.no_duplicate_calls),
    ] {
        if on {
            keys.push(key);
        }
    }
    keys
}

fn assertion_results(
    case: &TaskCase,
    failures: &[AssertionFailure],
) -> BTreeMap<String, AssertionResult> {
    let mut results: BTreeMap<String, AssertionResult> = BTreeMap::new();
    for set in &case.assertion_sets {
        for key in configured(&set.assertions) {
            let failure = failures
                .iter()
                .find(|f| f.task_set == set.task_set && f.assertion == key);
            let entry = results.entry(key.to_owned()).or_insert(AssertionResult {
                passed: true,
                details: Vec::new(),
            });
            entry.passed &= failure.is_none();
            entry.details.push(AssertionDetail {
                task_set: set.task_set.clone(),
                passed: failure.is_none(),
                expected: failure.map(|f| f.expected.clone()),
                actual: failure.map(|f| f.actual.clone()),
            });
        }
    }
    results
}
