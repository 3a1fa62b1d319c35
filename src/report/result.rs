//! The results file of one task run: JSON in mcpchecker's documented shape (`taskName`,
//! `taskPath`, `taskPassed`, `assertionResults`, `callHistory`, phase outputs, …) plus our
//! additions (test name, durations, the verdict's reasons), written atomically under
//! `<output dir>/results/`. The harness builds it from a run; this module only holds the
//! shape and writes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::TokenUsage;
use crate::schema_checks::SchemaChecks;
use crate::secret::{Secret, redact};
use crate::tokens::ServerTokens;
use crate::trace::{Advertised, ListKind};

/// One task run, as written to its results file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// Tool calls that ended in an `isError` result or a JSON-RPC error (what
    /// `maxToolErrors` counts).
    #[serde(default)]
    pub tool_errors: usize,
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
    /// The nextest run (`NEXTEST_RUN_ID`) whose test made this result, under nextest: the
    /// results of one run make its HTML report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nextest_run_id: Option<String>,
}

/// What a variant changed in a run, and the variant the comparison measures it against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantDetails {
    /// The eval's baseline variant (this run's own name when it is the baseline).
    pub baseline: String,
    /// The tool definitions the proxy rewrote in the `tools/list` answers the agent saw,
    /// as `<server>/<tool>` with the fields changed (`description`, `title`,
    /// `inputSchema.properties.<p>.description`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_overrides: Vec<AppliedOverride>,
    /// The decoy tools offered, as `<server>/<tool>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decoys: Vec<String>,
    /// The agent got no MCP server (`servers: none`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_servers: bool,
    /// Assertions on calls not checked because the agent had no server (never counted as
    /// passed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_assertions: Vec<String>,
}

/// One tool definition a variant rewrote, and whether the agent was shown it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedOverride {
    /// The server's name.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The fields changed.
    pub fields: Vec<String>,
    /// A `tools/list` answer the agent received held the rewritten definition.
    pub applied: bool,
}

/// A call of a decoy tool: answered with an error result by the proxy, never the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecoyCall {
    /// The server whose list offered it.
    pub server: String,
    /// The decoy's name.
    pub tool: String,
    /// Its position among all calls of the run, from 1.
    pub position: usize,
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
    /// The o200k_base tokens of a tool call's result as the model receives it (absent for
    /// resource reads, prompt gets and results files written before it was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_tokens: Option<usize>,
    /// The fault the proxy injected into the call (a `faults` rule), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injected: Option<crate::trace::Injected>,
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

/// What one LLM proxy of a run did with its cassette.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmCalls {
    /// `agent` or `judge`.
    pub who: String,
    /// The API: `anthropic`, `openai-chat`, `openai-responses` or `gemini`.
    pub api: String,
    /// The mode asked for: `once`, `none`, `new_episodes`, `all` or `passthrough`.
    pub mode: String,
    /// What the run did: `replayed`, `recorded`, `extended` or `live`.
    pub used: String,
    /// The cassette read or written.
    pub cassette: String,
    /// Calls answered from the cassette.
    pub replayed: usize,
    /// Calls answered live and recorded.
    pub recorded: usize,
    /// Calls answered live, not recorded.
    pub passed_through: usize,
    /// When each call of the cassette was asked, and how long a live answer took (absent
    /// when no call is in the cassette, and in older results files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<LlmTurnTime>,
}

/// When one model call of a cassette was made during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmTurnTime {
    /// Its number in the cassette, from 1.
    pub seq: usize,
    /// When the agent asked, from the start of the run.
    pub start_offset_ms: f64,
    /// How long the live answer took, to its last byte; absent when it was replayed.
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

/// What one server advertised during a run (or what no test used), by name: tool and
/// prompt names, resource URIs, resource URI templates.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Surface {
    /// Tool names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Resource URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Resource URI templates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<String>,
    /// Prompt names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
}

impl Surface {
    /// The names of what a server advertised.
    pub fn of(advertised: &Advertised) -> Self {
        Surface {
            tools: advertised.names(ListKind::Tools),
            resources: advertised.names(ListKind::Resources),
            resource_templates: advertised.names(ListKind::ResourceTemplates),
            prompts: advertised.names(ListKind::Prompts),
        }
    }

    pub(super) fn names(&self, list: ListKind) -> &[String] {
        match list {
            ListKind::Tools => &self.tools,
            ListKind::Resources => &self.resources,
            ListKind::ResourceTemplates => &self.resource_templates,
            ListKind::Prompts => &self.prompts,
        }
    }

    pub(super) fn names_mut(&mut self, list: ListKind) -> &mut Vec<String> {
        match list {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        }
    }
}
