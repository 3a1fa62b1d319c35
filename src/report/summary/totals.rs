//! The summary of a set of results: runs passed and failed, per eval and difficulty,
//! assertions, tool errors, tokens, cassette use, the slowest runs, the flaky tests, surface
//! coverage, schema findings, tool tokens, variants and faults; and its text for a terminal.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::cost::CostSummary;
use super::coverage::{ServerCoverage, coverage};
use super::faults::FaultSummary;
use super::parameters::{ServerParameters, parameter_coverage};
use super::schema::SchemaSummary;
use super::tool_tokens::{ToolTokenSummary, tool_tokens};
use crate::report::results::{FlakyTask, TaskResult, flaky_tasks, run_name};
use crate::report::results::{ServerTools, tool_sets};
use crate::report::variants::{Comparison, VariantReport, VariantSummary, render_variants};

/// Figures over a set of results.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Task runs.
    pub runs: usize,
    /// Task runs that passed.
    pub passed: usize,
    /// Task runs that failed.
    pub failed: usize,
    /// `passed / runs`.
    pub pass_rate: f64,
    /// Per eval.
    pub by_eval: BTreeMap<String, Tally>,
    /// Per difficulty (`unset` for none).
    pub by_difficulty: BTreeMap<String, Tally>,
    /// Configured assertions that held, over all runs.
    pub assertions_passed: usize,
    /// Configured assertions, over all runs.
    pub assertions_total: usize,
    /// `assertions_passed / assertions_total` (1 when none are configured).
    pub assertion_pass_rate: f64,
    /// Estimated prompt tokens.
    pub prompt_tokens: usize,
    /// Estimated answer tokens.
    pub output_tokens: usize,
    /// Tool calls that ended in an `isError` result or a JSON-RPC error, over all runs.
    #[serde(default)]
    pub tool_errors: usize,
    /// Runs with at least one tool error.
    #[serde(default)]
    pub runs_with_tool_errors: usize,
    /// Tokens the agents' APIs reported (runs that reported usage).
    #[serde(default)]
    pub reported_tokens: u64,
    /// Runs whose LLM calls were replayed from a cassette, recorded (or extended), and
    /// made live without a cassette.
    #[serde(default)]
    pub llm_runs: LlmRunCounts,
    /// The slowest runs: `(test name, milliseconds)`, slowest first.
    pub slowest: Vec<(String, f64)>,
    /// The tests whose runs both passed and failed, by test name.
    #[serde(default)]
    pub flaky: Vec<FlakyTask>,
    /// Surface coverage per server that advertised something: each item with the number
    /// of tests that used it, the untouched ones, the share used.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub coverage: BTreeMap<String, ServerCoverage>,
    /// Parameter coverage per server whose tools have input-schema properties: each
    /// property exercised, asserted or never, enum values seen, each tool's error share.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameter_coverage: BTreeMap<String, ServerParameters>,
    /// What the runs' model calls cost, priced per model (absent when no call said what it
    /// used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostSummary>,
    /// The tool sets the runs were judged against (name, description, input schema), as
    /// mcpchecker's summary lists them: each server's once, and again for each variant whose
    /// rewrites changed it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<ServerTools>,
    /// What the checks against the servers' own schemas found, per tool.
    #[serde(default, skip_serializing_if = "SchemaSummary::is_empty")]
    pub schema: SchemaSummary,
    /// The o200k_base tokens of each server's tool definitions and results, and the
    /// biggest tool results (absent when no results file counted any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_tokens: Option<ToolTokenSummary>,
    /// Per eval with variants, each variant's figures (absent without variants).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<VariantSummary>,
    /// Per eval with variants, each variant against the eval's baseline (absent without
    /// variants).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub comparisons: Vec<Comparison>,
    /// Faults injected on purpose (`faults` rules), over all runs (absent without rules).
    #[serde(default, skip_serializing_if = "FaultSummary::is_empty")]
    pub faults: FaultSummary,
}

/// How the runs with an LLM proxy used their cassettes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LlmRunCounts {
    /// Every LLM call answered from the cassette.
    pub replayed: usize,
    /// Calls recorded into the cassette (a new one, or `new_episodes`).
    pub recorded: usize,
    /// Calls made live, no cassette (`passthrough`).
    pub live: usize,
}

/// Passed and total runs of a group.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
}

impl Tally {
    fn rate(&self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.passed as f64 / self.runs as f64
        }
    }
}

/// How many of the slowest runs a summary names.
const SLOWEST: usize = 5;

impl Summary {
    /// The figures of `results`.
    pub fn of(results: &[TaskResult]) -> Self {
        let mut summary = Summary {
            runs: results.len(),
            ..Summary::default()
        };
        for result in results {
            let passed = usize::from(result.task_passed);
            summary.passed += passed;
            let tally = summary.by_eval.entry(result.eval_name.clone()).or_default();
            tally.passed += passed;
            tally.runs += 1;
            let difficulty = if result.difficulty.is_empty() {
                "unset".to_owned()
            } else {
                result.difficulty.clone()
            };
            let tally = summary.by_difficulty.entry(difficulty).or_default();
            tally.passed += passed;
            tally.runs += 1;
            for assertion in result.assertion_results.values() {
                summary.assertions_total += assertion.details.len();
                summary.assertions_passed += assertion.details.iter().filter(|d| d.passed).count();
            }
            summary.tool_errors += result.tool_errors;
            summary.runs_with_tool_errors += usize::from(result.tool_errors > 0);
            summary.prompt_tokens += result.token_estimate.prompt_tokens;
            summary.output_tokens += result.token_estimate.output_tokens;
            summary.reported_tokens += result.agent_token_usage.map_or(0, |u| u.total_tokens);
            if let Some(agent) = result.llm_calls.iter().find(|calls| calls.who == "agent") {
                match agent.used.as_str() {
                    "replayed" => summary.llm_runs.replayed += 1,
                    "live" => summary.llm_runs.live += 1,
                    _ => summary.llm_runs.recorded += 1,
                }
            }
        }
        summary.failed = summary.runs - summary.passed;
        summary.pass_rate = if summary.runs == 0 {
            0.0
        } else {
            summary.passed as f64 / summary.runs as f64
        };
        summary.assertion_pass_rate = if summary.assertions_total == 0 {
            1.0
        } else {
            summary.assertions_passed as f64 / summary.assertions_total as f64
        };
        let mut slowest: Vec<(String, f64)> = results
            .iter()
            .map(|r| (run_name(r), r.duration_ms))
            .collect();
        slowest.sort_by(|a, b| b.1.total_cmp(&a.1));
        slowest.truncate(SLOWEST);
        summary.slowest = slowest;
        summary.flaky = flaky_tasks(results);
        summary.coverage = coverage(results);
        summary.parameter_coverage = parameter_coverage(results);
        summary.cost = CostSummary::of(results);
        summary.mcp_servers = tool_sets(results);
        summary.schema = SchemaSummary::of(results);
        summary.tool_tokens = tool_tokens(results);
        let variants = VariantReport::of(results);
        (summary.variants, summary.comparisons) = (variants.variants, variants.comparisons);
        summary.faults = FaultSummary::of(results);
        summary
    }

    /// The servers whose coverage is below `minimum` (a share, 0 to 1), with their
    /// coverage, by name.
    pub fn coverage_below(&self, minimum: f64) -> Vec<(&str, f64)> {
        (self.coverage.iter())
            .filter(|(_, server)| server.coverage < minimum)
            .map(|(name, server)| (name.as_str(), server.coverage))
            .collect()
    }

    /// The summary as text for a terminal.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "mcpeval summary: {} of {} task runs passed ({:.1}%); {} failed",
            self.passed,
            self.runs,
            self.pass_rate * 100.0,
            self.failed
        );
        self.render_groups(&mut out);
        for line in render_variants(&self.variants, &self.comparisons) {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(
            out,
            "  assertions: {}/{} held ({:.1}%)",
            self.assertions_passed,
            self.assertions_total,
            self.assertion_pass_rate * 100.0
        );
        if self.tool_errors > 0 {
            let _ = writeln!(
                out,
                "  tool errors: {} in {} of {} runs (isError results and protocol errors)",
                self.tool_errors, self.runs_with_tool_errors, self.runs
            );
        }
        for line in self.schema.render() {
            let _ = writeln!(out, "  {line}");
        }
        self.render_cost(&mut out);
        if !self.slowest.is_empty() {
            let slowest: Vec<String> = self
                .slowest
                .iter()
                .map(|(name, ms)| format!("{name} {:.1}s", ms / 1000.0))
                .collect();
            let _ = writeln!(out, "  slowest: {}", slowest.join(", "));
        }
        for line in self.tool_tokens.iter().flat_map(ToolTokenSummary::render) {
            let _ = writeln!(out, "  {line}");
        }
        for (server, coverage) in &self.coverage {
            for line in coverage.render(server) {
                let _ = writeln!(out, "  {line}");
            }
        }
        for (server, parameters) in &self.parameter_coverage {
            for line in parameters.render(server) {
                let _ = writeln!(out, "  {line}");
            }
        }
        for line in self.faults.render() {
            let _ = writeln!(out, "  {line}");
        }
        out
    }

    /// The flaky tests, then the pass rate of each eval and of each difficulty.
    fn render_groups(&self, out: &mut String) {
        for flaky in &self.flaky {
            let _ = writeln!(
                out,
                "  flaky: {}: {}",
                flaky.test_name,
                flaky.count().describe()
            );
        }
        for (eval, tally) in &self.by_eval {
            let _ = writeln!(
                out,
                "  eval {eval}: {}/{} ({:.1}%)",
                tally.passed,
                tally.runs,
                tally.rate() * 100.0
            );
        }
        for (difficulty, tally) in &self.by_difficulty {
            let _ = writeln!(
                out,
                "  difficulty {difficulty}: {}/{} ({:.1}%)",
                tally.passed,
                tally.runs,
                tally.rate() * 100.0
            );
        }
    }

    /// The tokens (estimated, and as the agents' APIs reported them) and where the LLM calls
    /// came from (cassettes, recorded, live).
    fn render_cost(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "  tokens (estimated): {} prompt, {} output",
            self.prompt_tokens, self.output_tokens
        );
        if self.reported_tokens > 0 {
            let _ = writeln!(
                out,
                "  tokens (reported by the agents' APIs): {}",
                self.reported_tokens
            );
        }
        let llm = &self.llm_runs;
        if llm.replayed + llm.recorded + llm.live > 0 {
            let _ = writeln!(
                out,
                "  LLM calls: {} runs replayed from cassettes, {} recorded, {} live",
                llm.replayed, llm.recorded, llm.live
            );
        }
        for line in self.cost.iter().flat_map(CostSummary::render) {
            let _ = writeln!(out, "  {line}");
        }
    }
}
