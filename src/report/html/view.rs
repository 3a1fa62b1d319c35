//! What the page shows, computed from a merged report: the figures as text, one row and one
//! timeline per task run. The template only lays these out (and escapes every value).

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::link::{FileLink, anchor, file_link};
use super::shown::{Shown, millis};
use super::timeline::{Event, timeline};
use crate::llm::pricing::dollars;
use crate::report::results::{FaultNote, TaskResult, run_name, wilson_interval};
use crate::report::summary::{Report, ServerCoverage, Summary};

/// The whole page.
#[derive(Serialize)]
pub(super) struct Page {
    pub(super) title: String,
    pub(super) version: &'static str,
    pub(super) summary: SummaryFigures,
    pub(super) evals: Vec<EvalRow>,
    pub(super) coverage: Vec<CoverageRow>,
    /// Each server's parameter coverage, as a matrix.
    pub(super) parameters: Vec<super::parameter_matrix::ParameterMatrix>,
    /// The Variants section: per eval with variants (`variants.rs`).
    pub(super) variants: Vec<super::variants::VariantsView>,
    pub(super) filters: Filters,
    pub(super) tasks: Vec<TaskView>,
}

/// The summary's figures, formatted.
#[derive(Serialize)]
pub(super) struct SummaryFigures {
    runs: usize,
    passed: usize,
    failed: usize,
    flaky: usize,
    pass_rate: String,
    interval: String,
    assertions: String,
    duration: String,
    reported_tokens: u64,
    estimated_tokens: usize,
    replayed: usize,
    recorded: usize,
    live: usize,
    tool_errors: usize,
    /// The cost lines (total, by variant, the live projection, unpriced models), when the
    /// runs said what their model calls used.
    cost: Vec<String>,
    slowest: Vec<(String, String)>,
}

/// One eval's line of the summary.
#[derive(Serialize)]
pub(super) struct EvalRow {
    name: String,
    runs: usize,
    passed: usize,
    failed: usize,
    flaky: usize,
    pass_rate: String,
    interval: String,
}

/// One server's surface coverage.
#[derive(Serialize)]
pub(super) struct CoverageRow {
    server: String,
    used: usize,
    advertised: usize,
    percent: String,
    untouched: Vec<String>,
}

/// The values each filter offers.
#[derive(Serialize)]
pub(super) struct Filters {
    evals: Vec<String>,
    agents: Vec<String>,
    labels: Vec<String>,
}

/// One task run.
#[derive(Serialize)]
pub(super) struct TaskView {
    /// The anchor: the test name, `@k` for the k-th of several runs.
    id: String,
    name: String,
    eval: String,
    task: String,
    path: String,
    /// The run's results file, from the page: where the whole of each cut text is.
    results_file: Option<FileLink>,
    agent: String,
    /// `passed` or `failed`.
    status: &'static str,
    flaky: bool,
    difficulty: String,
    labels: Vec<String>,
    duration_ms: u64,
    duration: String,
    calls: usize,
    tokens: u64,
    reasons: Vec<String>,
    assertions: Vec<FailedAssertion>,
    snapshot_diff: Vec<DiffLine>,
    server_failures: Vec<String>,
    /// What the run's `faults` rules did, one line each.
    faults: Vec<String>,
    llm: Vec<String>,
    timeline: Vec<Event>,
    /// A conversation's turns (none for a task of one turn).
    turns: Vec<TurnShown>,
    answer: Option<Shown>,
    failure_message: Option<Shown>,
}

/// One turn of a conversation: what the user said, what the agent answered, how it went.
#[derive(Serialize)]
struct TurnShown {
    turn: u32,
    /// `passed`, `failed` or `not run`.
    outcome: &'static str,
    calls: usize,
    prompt: Shown,
    answer: Option<Shown>,
    failures: Vec<String>,
}

/// A failed assertion, expected beside actual.
#[derive(Serialize)]
struct FailedAssertion {
    name: String,
    task_set: String,
    expected: String,
    actual: String,
}

/// One line of a unified diff and how it is coloured: `add`, `del`, `hunk` or `ctx`.
#[derive(Serialize)]
struct DiffLine {
    class: &'static str,
    text: String,
}

/// The page of a merged report, to be written into `page_dir`; cassettes and results files
/// named by the results are read from `base` when their paths are relative.
pub(super) fn page(report: &Report, title: &str, base: &Path, page_dir: &Path) -> Page {
    let summary = &report.summary;
    let flaky: BTreeSet<&str> = summary.flaky.iter().map(|f| f.test_name.as_str()).collect();
    Page {
        title: title.to_owned(),
        version: crate::VERSION,
        summary: summary_figures(report, flaky.len()),
        evals: eval_rows(summary, &flaky),
        coverage: (summary.coverage.iter())
            .map(|(server, coverage)| coverage_row(server, coverage))
            .collect(),
        parameters: (summary.parameter_coverage.iter())
            .map(|(server, coverage)| super::parameter_matrix::parameter_matrix(server, coverage))
            .collect(),
        variants: super::variants::variants(report),
        filters: filters(report),
        tasks: (report.results.iter())
            .map(|result| {
                let flaky = flaky.contains(result.test_name.as_str());
                task(result, flaky, base, page_dir)
            })
            .collect(),
    }
}

/// The figures at the top of the page: runs, pass rate with its interval, assertions,
/// duration, tokens, LLM runs, tool errors and the slowest tests.
fn summary_figures(report: &Report, flaky: usize) -> SummaryFigures {
    let summary = &report.summary;
    let (low, high) = wilson_interval(summary.passed, summary.runs);
    let total_ms: f64 = report.results.iter().map(|r| r.duration_ms).sum();
    SummaryFigures {
        runs: summary.runs,
        passed: summary.passed,
        failed: summary.failed,
        flaky,
        pass_rate: percent(summary.pass_rate),
        interval: interval(low, high),
        assertions: format!("{}/{}", summary.assertions_passed, summary.assertions_total),
        duration: millis(total_ms),
        reported_tokens: summary.reported_tokens,
        estimated_tokens: summary.prompt_tokens + summary.output_tokens,
        replayed: summary.llm_runs.replayed,
        recorded: summary.llm_runs.recorded,
        live: summary.llm_runs.live,
        tool_errors: summary.tool_errors,
        cost: (summary.cost.iter())
            .flat_map(crate::report::summary::CostSummary::render)
            .map(|line| line.trim().to_owned())
            .collect(),
        slowest: (summary.slowest.iter())
            .map(|(name, ms)| (name.clone(), millis(*ms)))
            .collect(),
    }
}

/// The rows of the per-eval table, each with its flaky tests among the `flaky` ones.
fn eval_rows(summary: &Summary, flaky: &BTreeSet<&str>) -> Vec<EvalRow> {
    let flaky_in = |eval: &str| {
        let prefix = format!("{eval}::");
        flaky.iter().filter(|t| t.starts_with(&prefix)).count()
    };
    (summary.by_eval.iter())
        .map(|(name, tally)| {
            let (low, high) = wilson_interval(tally.passed, tally.runs);
            EvalRow {
                name: name.clone(),
                runs: tally.runs,
                passed: tally.passed,
                failed: tally.runs - tally.passed,
                flaky: flaky_in(name),
                pass_rate: percent(share(tally.passed, tally.runs)),
                interval: interval(low, high),
            }
        })
        .collect()
}

/// The page's filters: the evals, and the agents and labels of the results.
fn filters(report: &Report) -> Filters {
    let mut labels = BTreeSet::new();
    let mut agents = BTreeSet::new();
    for result in &report.results {
        labels.extend(result.labels.iter().map(|(k, v)| format!("{k}={v}")));
        agents.insert(agent_of(result));
    }
    Filters {
        evals: report.summary.by_eval.keys().cloned().collect(),
        agents: agents.into_iter().collect(),
        labels: labels.into_iter().collect(),
    }
}

/// A server's row of the coverage table: used of advertised, and what no run touched.
fn coverage_row(server: &str, coverage: &ServerCoverage) -> CoverageRow {
    CoverageRow {
        server: server.to_owned(),
        used: coverage.used,
        advertised: coverage.advertised,
        percent: percent(coverage.coverage),
        untouched: [
            ("tool", &coverage.untouched.tools),
            ("resource", &coverage.untouched.resources),
            ("template", &coverage.untouched.resource_templates),
            ("prompt", &coverage.untouched.prompts),
        ]
        .into_iter()
        .flat_map(|(kind, names)| names.iter().map(move |n| format!("{kind} {n}")))
        .collect(),
    }
}

fn task(result: &TaskResult, flaky: bool, base: &Path, page_dir: &Path) -> TaskView {
    let history = &result.call_history;
    let calls = history.tool_calls.len() + history.resource_reads.len() + history.prompt_gets.len();
    let assertions = (result.assertion_results.iter())
        .flat_map(|(name, outcome)| {
            (outcome.details.iter().filter(|d| !d.passed)).map(move |detail| FailedAssertion {
                name: name.clone(),
                task_set: detail.task_set.clone(),
                expected: detail.expected.clone().unwrap_or_default(),
                actual: detail.actual.clone().unwrap_or_default(),
            })
        })
        .collect();
    let snapshot_diff = (result.snapshot_diff.iter())
        .flat_map(|diff| diff.lines())
        .map(|line| DiffLine {
            class: match line.as_bytes().first() {
                _ if line.starts_with("+++") || line.starts_with("---") => "file",
                Some(b'+') => "add",
                Some(b'-') => "del",
                Some(b'@') => "hunk",
                _ => "ctx",
            },
            text: line.to_owned(),
        })
        .collect();
    TaskView {
        id: anchor(result),
        name: run_name(result),
        eval: result.eval_name.clone(),
        task: result.task_name.clone(),
        path: result.task_path.clone(),
        results_file: (result.results_file.as_deref())
            .and_then(|file| file_link(file, page_dir, base)),
        agent: agent_of(result),
        status: if result.task_passed {
            "passed"
        } else {
            "failed"
        },
        flaky,
        difficulty: result.difficulty.clone(),
        labels: (result.labels.iter())
            .map(|(k, v)| format!("{k}={v}"))
            .collect(),
        duration_ms: result.duration_ms.max(0.0).round() as u64,
        duration: millis(result.duration_ms),
        calls,
        tokens: result
            .agent_token_usage
            .map_or(0, |usage| usage.total_tokens),
        reasons: result.reasons.clone(),
        assertions,
        snapshot_diff,
        server_failures: (result.server_failures.iter())
            .map(|f| format!("{}: {}", f.server, f.message))
            .collect(),
        faults: fault_lines(result),
        llm: llm_lines(result),
        timeline: timeline(result, base),
        turns: (result.turns.iter())
            .map(|turn| TurnShown {
                turn: turn.turn,
                outcome: match (turn.not_run, turn.passed) {
                    (true, _) => "not run",
                    (false, true) => "passed",
                    (false, false) => "failed",
                },
                calls: turn.calls,
                prompt: Shown::new(&turn.prompt),
                answer: turn.answer.as_deref().map(Shown::new),
                failures: turn.failures.clone(),
            })
            .collect(),
        answer: (!result.task_output.is_empty()).then(|| Shown::new(&result.task_output)),
        failure_message: result.failure_message.as_deref().map(Shown::new),
    }
}

/// Each LLM proxy of a run (what it did with its cassette, and each model's tokens and
/// cost), then the run's cost.
fn llm_lines(result: &TaskResult) -> Vec<String> {
    let mut lines = Vec::new();
    for c in &result.llm_calls {
        lines.push(format!(
            "{} ({}): {} from {}; {} replayed, {} recorded, {} live",
            c.who, c.api, c.used, c.cassette, c.replayed, c.recorded, c.passed_through
        ));
        for priced in &c.usage {
            let u = &priced.usage;
            let cost = priced.cost_usd.map_or("unpriced".to_owned(), dollars);
            lines.push(format!(
                "  {}: {} calls, {} input, {} output, {} cache read, {} cache write tokens: {cost}",
                u.model,
                u.calls,
                u.input_tokens,
                u.output_tokens,
                u.cache_read_tokens,
                u.cache_write_tokens
            ));
        }
    }
    if let Some(cost) = &result.cost {
        let replayed = if cost.replayed {
            " (what the replayed calls cost when recorded)"
        } else {
            ""
        };
        lines.push(format!("cost of the run: {}{replayed}", dollars(cost.usd)));
    }
    lines
}

fn agent_of(result: &TaskResult) -> String {
    if result.agent_name.is_empty() {
        "unknown".to_owned()
    } else {
        result.agent_name.clone()
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

fn interval(low: f64, high: f64) -> String {
    format!("{:.0}–{:.0}%", low * 100.0, high * 100.0)
}

/// What each `faults` rule of a run did: `rule: fault on target, injected i of m matching
/// calls` (or never matched), with the seed first.
fn fault_lines(result: &TaskResult) -> Vec<String> {
    let Some(seed) = result.fault_seed else {
        return Vec::new();
    };
    let rules = result.faults.iter().map(FaultNote::describe);
    std::iter::once(format!("MCPEVAL_SEED={seed}"))
        .chain(rules)
        .collect()
}
