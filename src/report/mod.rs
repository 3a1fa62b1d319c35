//! After the tests ran: results files merged into one report with a summary (flaky tests
//! among it), JUnit XML for dashboards, a self-contained HTML page (`html/`), and the
//! difference between two reports for a pull request.

pub mod budgets;
mod coverage;
mod diff;
mod diff_format;
mod diff_servers;
mod fisher;
mod flaky;
pub mod github;
mod html;
mod junit;
mod markdown;
mod markdown_report;
mod outcome;
mod result;
mod schema;
mod stats;
mod task_diff;
mod tool_tokens;
mod variant_matrix;
mod variants;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use budgets::{BudgetCheck, Budgets, check_budgets, median_result_tokens};
pub use coverage::{ServerCoverage, coverage, template_matches};
pub use diff::{DiffFormat, ReportDiff, diff_reports};
pub use diff_servers::{SchemaChange, ServerChange};
pub use fisher::{ALPHA, drop_p_value, rise_p_value};
pub use flaky::{FlakyTask, PassCount, flaky_tasks, pass_counts, wilson_interval};
pub use html::{HtmlError, anchor, render_html, write_html};
pub use junit::junit_xml;
pub use markdown::{COMMENT_LIMIT, MARKER, diff_markdown};
pub use markdown_report::report_markdown;
pub use outcome::{TestOutcome, test_outcomes};
pub use result::{
    AppliedOverride, AssertionDetail, AssertionResult, CallHistory, CallRecord, DecoyCall,
    FaultNote, LlmCalls, LlmTurnTime, PhaseOutput, ServerFailureRecord, StepOutput, Surface,
    TaskResult, TokenEstimate, ToolTokens, VariantDetails,
};
pub use schema::{SchemaSummary, ToolSchemaCounts};
pub use stats::{SignFlip, Verdict, format_p, holm, mcnemar_exact, sign_flip, verdict};
pub use task_diff::{Change, FigureChange, Runs, TaskDiff};
pub use tool_tokens::{BiggestResult, ServerTokenSummary, ToolTokenSummary, tool_tokens};
pub use variant_matrix::{MatrixCell, MatrixRow, VariantMatrix, variant_matrices};
pub use variants::{Comparison, PairedTest, VariantReport, VariantSummary, render_variants};

/// Problems reading results.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A directory or file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is not a results file or a report.
    #[error("{path} is not a mcpeval results file or report: {message}")]
    Parse {
        /// The path.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
}

/// A merged report: the summary and every run's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Figures over all results.
    pub summary: Summary,
    /// Every run's results, sorted by test name and run.
    pub results: Vec<TaskResult>,
}

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

/// The faults of the runs' `faults` rules.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FaultSummary {
    /// Faults injected.
    pub injected: u64,
    /// Runs with rules.
    pub runs: usize,
    /// The seeds the runs drew with, each once.
    pub seeds: Vec<u64>,
    /// Rules that matched no call in a run: `(run name, rule, target)`.
    pub never_matched: Vec<(String, String, String)>,
}

impl FaultSummary {
    /// No run had rules.
    pub fn is_empty(&self) -> bool {
        self.runs == 0
    }

    fn of(results: &[TaskResult]) -> Self {
        let mut summary = FaultSummary::default();
        for result in results.iter().filter(|r| !r.faults.is_empty()) {
            summary.runs += 1;
            if let Some(seed) = result.fault_seed
                && !summary.seeds.contains(&seed)
            {
                summary.seeds.push(seed);
            }
            for note in &result.faults {
                summary.injected += u64::from(note.injected);
                if note.matched == 0 {
                    let never = (run_name(result), note.rule.clone(), note.target.clone());
                    summary.never_matched.push(never);
                }
            }
        }
        summary
    }

    fn render(&self) -> Vec<String> {
        if self.is_empty() {
            return Vec::new();
        }
        let seeds: Vec<String> = self.seeds.iter().map(u64::to_string).collect();
        let mut lines = vec![format!(
            "faults: {} injected on purpose in {} runs with rules (MCPEVAL_SEED {})",
            self.injected,
            self.runs,
            seeds.join(", ")
        )];
        for (run, rule, target) in &self.never_matched {
            lines.push(format!(
                "fault rule never matched: {run}: {rule} ({target}) hit no call"
            ));
        }
        lines
    }
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
        for line in self.faults.render() {
            let _ = writeln!(out, "  {line}");
        }
        out
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

/// Reads results from `paths`: directories of results files (an output directory with a
/// `results/` folder, or that folder itself), results files, or merged reports.
pub fn load_results(paths: &[PathBuf]) -> Result<Vec<TaskResult>, ReportError> {
    let mut results = Vec::new();
    for path in paths {
        if path.is_dir() {
            let dir = if path.join("results").is_dir() {
                path.join("results")
            } else {
                path.clone()
            };
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|source| ReportError::Read {
                    path: dir.clone(),
                    source,
                })?
                .flatten()
                .map(|entry| entry.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json") && !is_hidden(p))
                .collect();
            files.sort();
            for file in files {
                results.extend(read_file(&file)?);
            }
        } else {
            results.extend(read_file(path)?);
        }
    }
    results.sort_by(|a, b| (&a.test_name, a.run_index).cmp(&(&b.test_name, b.run_index)));
    Ok(results)
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
}

fn read_file(path: &Path) -> Result<Vec<TaskResult>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_owned(),
        source,
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| ReportError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let parsed = if value.get("results").is_some() {
        serde_json::from_value::<Report>(value).map(|report| report.results)
    } else {
        serde_json::from_value::<TaskResult>(value).map(|result| vec![result])
    };
    let mut results = parsed.map_err(|e| ReportError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    for result in &mut results {
        result.results_file = Some(path.to_owned());
    }
    Ok(results)
}

/// Merges `results` into a report.
pub fn merge(results: Vec<TaskResult>) -> Report {
    Report {
        summary: Summary::of(&results),
        results,
    }
}
