//! The results file of one task run: JSON in mcpchecker's documented shape (`taskName`,
//! `taskPath`, `taskPassed`, `assertionResults`, `callHistory`, phase outputs, …) plus our
//! additions (test name, durations, the verdict's reasons), written atomically under
//! `<output dir>/results/`. The harness builds it from a run; this module only holds the
//! shape and writes it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::llm::TokenUsage;
use crate::plumbing::secret::{Secret, redact};
use crate::schema_checks::SchemaChecks;
use crate::tokens::ServerTokens;

use super::calls::{CallHistory, LlmCalls};
use super::surface::{ServerTools, Surface};
use super::variant_details::{DecoyCall, VariantDetails};

/// The version of the shape of a results file and of a merged report (`schemaVersion`),
/// raised when a change would break a reader of the previous one.
pub const RESULTS_SCHEMA_VERSION: u32 = 1;

/// The `schemaVersion` of a results file or a report: [`RESULTS_SCHEMA_VERSION`] unless
/// read from a file that says otherwise. A file written before the field existed has the
/// shape of version 1 and reads as 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SchemaVersion(pub u32);

impl Default for SchemaVersion {
    fn default() -> Self {
        Self(RESULTS_SCHEMA_VERSION)
    }
}

/// One task run, as written to its results file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// The version of this shape (absent from files written before it existed: 1).
    #[serde(default)]
    pub schema_version: SchemaVersion,
    /// The test name, `<eval>::<task>`.
    pub test_name: String,
    /// The eval's name.
    pub eval_name: String,
    /// The task's name.
    pub task_name: String,
    /// The task file.
    pub task_path: String,
    /// The file this result was read from or written to, when known; not part of the file.
    #[serde(skip)]
    pub results_file: Option<PathBuf>,
    /// The verdict.
    pub task_passed: bool,
    /// The agent's answer.
    pub task_output: String,
    /// The first reason the task failed, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_error: Option<String>,
    /// Every reason the task failed.
    pub reasons: Vec<String>,
    /// What the first reason is about, when it is a step, the agent or an assertion (where a
    /// CI annotation points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<FailedAt>,
    /// How the servers under test failed (each fails the task).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_failures: Vec<ServerFailureRecord>,
    /// The test's failure message (what `cargo test` shows), when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_message: Option<String>,
    /// The task timeout hit.
    pub timed_out: bool,
    /// The agent did not finish successfully.
    pub agent_execution_error: bool,
    /// `easy`, `medium`, `hard` or empty.
    pub difficulty: String,
    /// The task's `metadata.labels` (absent when none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The unified diff from the accepted call-trace snapshot to this run's, when they
    /// differ (also inside `failureMessage` when the snapshot fails the task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_diff: Option<String>,
    /// Per assertion: passed, and the details of each task set that configured it.
    pub assertion_results: BTreeMap<String, AssertionResult>,
    /// Every configured assertion held.
    pub all_assertions_passed: bool,
    /// What the proxies recorded.
    pub call_history: CallHistory,
    /// What each server advertised to the agent in its list answers, by server name (what
    /// surface coverage counts; `callHistory` holds what was used).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub surface: BTreeMap<String, Surface>,
    /// The tools each server offered the agent (name, description, input schema), as it saw
    /// them: what parameter coverage counts properties of.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<ServerTools>,
    /// The tool arguments this run's assertions constrain (an `arguments` pattern naming
    /// them): server → tool → property paths (`name`, `spec.replicas`, `items[].id`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub asserted_arguments: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
    /// The run's task set checks calls' arguments against the tools' input schemas and
    /// fails on a break (`schemaViolations: fail`): every argument a call passed was
    /// asserted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub schema_checks_fail: bool,
    /// Tool calls that ended in an `isError` result or a JSON-RPC error (what
    /// `maxToolErrors` counts).
    #[serde(default)]
    pub tool_errors: usize,
    /// What the run's model calls (the agent's and the judge's) cost, priced per model
    /// (absent when no call said what it used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<crate::llm::pricing::RunCost>,
    /// What the checks against the servers' own schemas found: broken tool definitions,
    /// results that break their output schema, arguments that break the input schema
    /// (absent when nothing).
    #[serde(default, skip_serializing_if = "SchemaChecks::is_empty")]
    pub schema_violations: SchemaChecks,
    /// The o200k_base tokens of each server's tool definitions and tool results (absent
    /// when no server advertised tools or was called; per call in `callHistory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_tokens: Option<ToolTokens>,
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
    pub agent_token_usage: Option<TokenUsage>,
    /// Model turns the agent reports (Claude Code, the llm-agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_turns: Option<u32>,
    /// Tool calls the agent reports asking for (Claude Code: every `tool_use`, its own
    /// tools included; the llm-agent: every call of an offered function, unknown ones
    /// included). `callHistory` holds the MCP calls the proxies saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_tool_calls: Option<u32>,
    /// The agent: `claude-code`, `llm-agent`, or the Agent file's `metadata.name`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent_name: String,
    /// The agent's version: its Agent file's `commands.getVersion` output or
    /// `metadata.version`; for the llm-agent, `mcpeval <version>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// What the LLM proxies of the run did: one entry for the agent's calls, one for the
    /// judge's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub llm_calls: Vec<LlmCalls>,
    /// How long the run took, in milliseconds.
    pub duration_ms: f64,
    /// This run's index, from 0, when the task runs several times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_index: Option<u32>,
    /// How many times the task runs, when more than once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_runs: Option<u32>,
    /// The share of the runs that must pass for the test to pass, when the task runs more
    /// than once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_pass_rate: Option<f64>,
    /// The variant of the eval this run belongs to (`config.variants`; absent when the
    /// eval has none). The test name ends in `@<variant>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// What the variant changed and which variant it is compared with (absent without
    /// variants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_details: Option<VariantDetails>,
    /// Calls of decoy tools (each fails the task), in the order made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decoy_calls: Vec<DecoyCall>,
    /// What each `faults` rule of the task did (absent without rules); a rule that never
    /// matched says `matched: 0`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<FaultNote>,
    /// The seed the run's `probability` rules drew with (`MCPEVAL_SEED`; absent without
    /// rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault_seed: Option<u64>,
    /// The turns of the task's conversation (`spec.followUps`), in order; absent for a task
    /// of one turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnRecord>,
    /// The nextest run (`NEXTEST_RUN_ID`) whose test made this result, under nextest: the
    /// results of one run make its HTML report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nextest_run_id: Option<String>,
}

/// A server under test that failed: could not be started or reached, exited, answered with
/// an HTTP error or with something that is not JSON-RPC.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerFailureRecord {
    /// The server's name in the MCP config.
    pub server: String,
    /// What happened, naming the server and its command or URL.
    pub message: String,
    /// The last lines of its stderr, the first bytes of an HTTP body.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The stderr log of a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
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

/// One phase: whether it succeeded and its steps.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseOutput {
    /// It ran and succeeded.
    pub success: bool,
    /// Its steps (for the agent: one entry).
    pub steps: Vec<StepOutput>,
}

/// What the first reason of a failed run is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FailedAt {
    /// A setup, verify or cleanup step: its phase's name and its index in the phase.
    Step {
        /// `setup`, `verify` or `cleanup`.
        phase: String,
        /// From 0.
        index: usize,
    },
    /// The agent.
    Agent,
    /// An assertion of a task set.
    Assertion {
        /// Its key (`toolsUsed`).
        assertion: String,
        /// The task set's key path (`taskSets[0]`).
        task_set: String,
    },
}

/// One step's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepOutput {
    /// The step's `id:`, when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// e.g. `verify[0] script verify.sh`.
    pub label: String,
    /// It passed.
    pub passed: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Its output.
    pub output: String,
    /// When it started, from the start of the run, in milliseconds (absent in results
    /// files written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_offset_ms: Option<f64>,
    /// How long it took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
}

/// The token cost of what a run's servers put into the agent's context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolTokens {
    /// The encoding counted with: `o200k_base`.
    pub tokenizer: String,
    /// Per server that advertised tools or was called, by name.
    pub servers: BTreeMap<String, ServerTokens>,
}

/// A rough token count.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenEstimate {
    /// Prompt tokens (characters / 4).
    pub prompt_tokens: usize,
    /// Answer tokens (characters / 4).
    pub output_tokens: usize,
}

impl TaskResult {
    /// Writes the result to `<dir>/<file_stem>.json` atomically (a reader never sees half a
    /// file, even when the run is interrupted), with every value of `secrets` replaced by
    /// what it is.
    pub fn write(
        &self,
        dir: &Path,
        file_stem: &str,
        secrets: &[Secret],
    ) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{file_stem}.json"));
        let temporary = dir.join(format!(".{file_stem}.json.{}.tmp", std::process::id()));
        let text = self.redacted_json(secrets)?;
        std::fs::write(&temporary, text + "\n")?;
        std::fs::rename(&temporary, &path)?;
        Ok(path)
    }

    /// The result as its results file holds it: every value of `secrets` replaced by what
    /// it is (what the summary and the HTML report of a run are made from).
    pub fn redacted(&self, secrets: &[Secret]) -> std::io::Result<TaskResult> {
        let text = self.redacted_json(secrets)?;
        serde_json::from_str(&text).map_err(std::io::Error::other)
    }

    fn redacted_json(&self, secrets: &[Secret]) -> std::io::Result<String> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        Ok(redact(&text, secrets))
    }
}

/// A run's name: the test name, with `#k` for the k-th of several runs.
pub fn run_name(result: &TaskResult) -> String {
    match result.run_index {
        Some(index) if result.total_runs.is_some_and(|n| n > 1) => {
            format!("{}#{}", result.test_name, index + 1)
        }
        _ => result.test_name.clone(),
    }
}

/// What one `faults` rule did in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultNote {
    /// The rule's key path: `config.taskSets[0].faults[1]` (the eval file) or
    /// `spec.faults[0]` (the task file).
    pub rule: String,
    /// Which calls it hits, e.g. "tool `add` of server `demo`".
    pub target: String,
    /// What it injects.
    pub fault: crate::trace::FaultKind,
    /// The calls it matched, hit or not.
    pub matched: u32,
    /// The faults it injected.
    pub injected: u32,
}

impl FaultNote {
    /// The rule and what it did, as reports say it: `spec.faults[0]: timeout on tool `add`,
    /// injected 1 of 3 matching calls` (or `…, never matched a call`).
    pub fn describe(&self) -> String {
        let did = if self.matched == 0 {
            "never matched a call".to_owned()
        } else {
            format!(
                "injected {} of {} matching calls",
                self.injected, self.matched
            )
        };
        format!("{}: {} on {}, {did}", self.rule, self.fault, self.target)
    }
}

/// One turn of a task's conversation in a results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// Its number, from 1 (the task's `prompt`).
    pub turn: u32,
    /// What the user said.
    pub prompt: String,
    /// The agent's answer (absent when the turn did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Whether the turn passed its own checks (its agent, `verify` and `assertions`).
    pub passed: bool,
    /// It did not run: an earlier turn failed and stopped the conversation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_run: bool,
    /// The calls made in it (`callHistory` entries whose `turn` is this one).
    pub calls: usize,
    /// The tokens the agent's API reported for it, when it reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    /// How long the agent took, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Why it failed, one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<String>,
}
