//! One test in two reports: how its pass count moved (a regression only when the drop is
//! unlikely to be chance, `fisher`), and which of its figures changed (assertion outcomes,
//! tool errors, schema findings, tokens of tool definitions and results, turns, duration).

use std::collections::BTreeMap;

use serde::Serialize;

use super::fisher::{drop_p_value, rise_p_value, significant};
use super::{PassCount, TaskResult};

/// What happened to a test between the base and the current report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// It passes less often, and not by chance (one run each: it passed, now fails).
    Regressed,
    /// It passes more often, and not by chance (one run each: it failed, now passes).
    Fixed,
    /// Only in the current report.
    New,
    /// Only in the base report.
    Removed,
    /// Its current runs both passed and failed (and no clear change).
    Flaky,
    /// It passes less often, but the drop may be chance.
    Lower,
    /// It passes more often, but the rise may be chance.
    Higher,
    /// The same pass count share.
    Unchanged,
}

impl Change {
    /// How the change is named in text and markdown.
    pub fn label(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Fixed => "fixed",
            Change::New => "new",
            Change::Removed => "removed",
            Change::Flaky => "flaky",
            Change::Lower => "lower, not clearly",
            Change::Higher => "higher, not clearly",
            Change::Unchanged => "unchanged",
        }
    }
}

/// One test in both reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDiff {
    /// The test name (`<eval>::<task>`, `@<variant>` in a variant).
    pub test_name: String,
    /// What happened to it.
    pub change: Change,
    /// Its runs in the base report (absent when new).
    pub base: Option<Runs>,
    /// Its runs in the current report (absent when removed).
    pub current: Option<Runs>,
    /// The one-sided Fisher p-value of the drop (of the rise for a fix or a higher pass
    /// count), when both reports have it and either ran it more than once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// Its figures that differ between the reports.
    pub changes: Vec<FigureChange>,
}

/// A test's runs in one report.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Runs {
    /// Runs that passed.
    pub passed: usize,
    /// Runs.
    pub runs: usize,
    /// `passed / runs`.
    pub pass_rate: f64,
}

impl From<PassCount> for Runs {
    fn from(count: PassCount) -> Self {
        Runs {
            passed: count.passed,
            runs: count.runs,
            pass_rate: count.rate(),
        }
    }
}

impl Runs {
    fn count(self) -> PassCount {
        PassCount {
            passed: self.passed,
            runs: self.runs,
        }
    }
}

/// One figure of a test that differs between the reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FigureChange {
    /// `assertion:<key>` (its value: the runs in which it held), `toolErrors`,
    /// `schemaFindings`, `resultTokens`, `turns`, `durationMs` (per run, on average),
    /// `definitionTokens` (the most of a run).
    pub figure: String,
    /// In the base report.
    pub base: f64,
    /// In the current report.
    pub current: f64,
}

/// The figures of one test's runs in one report.
#[derive(Debug, Clone, Default)]
struct Figures {
    count: PassCount,
    /// Per assertion: runs in which it held.
    assertions: BTreeMap<String, usize>,
    tool_errors: f64,
    schema_findings: f64,
    definition_tokens: f64,
    result_tokens: f64,
    turns: Option<f64>,
    duration_ms: f64,
}

impl Figures {
    fn of(runs: &[&TaskResult]) -> Self {
        let n = runs.len().max(1) as f64;
        let mean = |f: &dyn Fn(&TaskResult) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / n;
        let mut assertions = BTreeMap::new();
        for run in runs {
            for (key, result) in &run.assertion_results {
                *assertions.entry(key.clone()).or_default() += usize::from(result.passed);
            }
        }
        let with_turns: Vec<u32> = runs.iter().filter_map(|r| r.agent_turns).collect();
        Figures {
            count: PassCount {
                passed: runs.iter().filter(|r| r.task_passed).count(),
                runs: runs.len(),
            },
            assertions,
            tool_errors: mean(&|r| r.tool_errors as f64),
            schema_findings: mean(&|r| {
                let found = &r.schema_violations;
                (found.definitions.len() + found.arguments.len() + found.results.len()) as f64
            }),
            definition_tokens: (runs.iter())
                .map(|r| tokens_of(r, |s| s.definition_tokens))
                .max()
                .unwrap_or(0) as f64,
            result_tokens: mean(&|r| tokens_of(r, |s| s.result_tokens) as f64),
            turns: (!with_turns.is_empty()).then(|| {
                with_turns.iter().map(|&t| f64::from(t)).sum::<f64>() / with_turns.len() as f64
            }),
            duration_ms: mean(&|r| r.duration_ms),
        }
    }
}

/// One token figure of a run, over its servers.
fn tokens_of(run: &TaskResult, figure: fn(&crate::tokens::ServerTokens) -> usize) -> usize {
    let servers = run.tool_tokens.iter().flat_map(|t| t.servers.values());
    servers.map(figure).sum()
}

/// A duration counts as changed beyond this share of the base's (timing varies) …
const DURATION_SHARE: f64 = 0.2;
/// … and this many milliseconds.
const DURATION_MS: f64 = 500.0;

/// The figures that differ between `base` and `current`.
fn figure_changes(base: &Figures, current: &Figures) -> Vec<FigureChange> {
    let mut changes = Vec::new();
    let mut push = |figure: String, before: f64, after: f64| {
        if (before - after).abs() > 1e-9 {
            changes.push(FigureChange {
                figure,
                base: before,
                current: after,
            });
        }
    };
    let keys: std::collections::BTreeSet<&String> = (base.assertions.keys())
        .chain(current.assertions.keys())
        .collect();
    for key in keys {
        let held = |f: &Figures| f.assertions.get(key).map_or(0.0, |&n| n as f64);
        // The same share of runs is no change, however many runs each report has.
        let share = |f: &Figures| held(f) / f.count.runs.max(1) as f64;
        if (share(base) - share(current)).abs() > 1e-9 {
            push(format!("assertion:{key}"), held(base), held(current));
        }
    }
    push("toolErrors".into(), base.tool_errors, current.tool_errors);
    push(
        "schemaFindings".into(),
        base.schema_findings,
        current.schema_findings,
    );
    push(
        "definitionTokens".into(),
        base.definition_tokens,
        current.definition_tokens,
    );
    push(
        "resultTokens".into(),
        base.result_tokens,
        current.result_tokens,
    );
    if let (Some(before), Some(after)) = (base.turns, current.turns) {
        push("turns".into(), before, after);
    }
    let (before, after) = (base.duration_ms, current.duration_ms);
    let moved = (after - before).abs();
    if moved > DURATION_MS && moved > before * DURATION_SHARE {
        push("durationMs".into(), before, after);
    }
    changes
}

/// The runs of each test of `results`, by test name.
fn by_test(results: &[TaskResult]) -> BTreeMap<&str, Vec<&TaskResult>> {
    let mut tests: BTreeMap<&str, Vec<&TaskResult>> = BTreeMap::new();
    for result in results {
        tests.entry(&result.test_name).or_default().push(result);
    }
    tests
}

/// Every test of either report, by test name.
pub(super) fn task_diffs(base: &[TaskResult], current: &[TaskResult]) -> Vec<TaskDiff> {
    let before = by_test(base);
    let after = by_test(current);
    let names: std::collections::BTreeSet<&str> =
        before.keys().chain(after.keys()).copied().collect();
    names
        .into_iter()
        .map(|name| {
            let base = before.get(name).map(|runs| Figures::of(runs));
            let current = after.get(name).map(|runs| Figures::of(runs));
            task_diff(name, base.as_ref(), current.as_ref())
        })
        .collect()
}

fn task_diff(name: &str, base: Option<&Figures>, current: Option<&Figures>) -> TaskDiff {
    let (change, p_value) = match (base, current) {
        (None, Some(now)) if now.count.is_flaky() => (Change::Flaky, None),
        (None, _) => (Change::New, None),
        (Some(_), None) => (Change::Removed, None),
        (Some(then), Some(now)) => classify(then.count, now.count),
    };
    TaskDiff {
        test_name: name.to_owned(),
        change,
        base: base.map(|f| f.count.into()),
        current: current.map(|f| f.count.into()),
        p_value,
        changes: match (base, current) {
            (Some(then), Some(now)) => figure_changes(then, now),
            _ => Vec::new(),
        },
    }
}

/// One run in each report: passed then failed is a regression, as the verdicts say. More
/// runs: a drop (rise) is a regression (fix) only when the one-sided Fisher test finds it
/// unlikely to be chance; current runs that both passed and failed are flaky otherwise.
fn classify(base: PassCount, current: PassCount) -> (Change, Option<f64>) {
    let (then, now) = (base.rate(), current.rate());
    if base.runs == 1 && current.runs == 1 {
        let change = match (base.passed, current.passed) {
            (1, 0) => Change::Regressed,
            (0, 1) => Change::Fixed,
            _ => Change::Unchanged,
        };
        return (change, None);
    }
    if now < then {
        let p = drop_p_value(base, current);
        let change = if significant(p) {
            Change::Regressed
        } else if current.is_flaky() {
            Change::Flaky
        } else {
            Change::Lower
        };
        (change, Some(p))
    } else if now > then {
        let p = rise_p_value(base, current);
        let change = if significant(p) {
            Change::Fixed
        } else if current.is_flaky() {
            Change::Flaky
        } else {
            Change::Higher
        };
        (change, Some(p))
    } else if current.is_flaky() {
        (Change::Flaky, None)
    } else {
        (Change::Unchanged, None)
    }
}

impl TaskDiff {
    /// `1 of 1 -> 0 of 1 runs passed (p = 0.0040)`: the pass counts, and the p-value when
    /// there is one.
    pub fn describe_runs(&self, arrow: &str) -> String {
        let shown = |runs: Option<Runs>| match runs {
            Some(r) => format!("{} of {}", r.passed, r.runs),
            None => "–".to_owned(),
        };
        let mut text = format!(
            "{} {arrow} {} runs passed",
            shown(self.base),
            shown(self.current)
        );
        if let Some(p) = self.p_value {
            text.push_str(&format!(" (one-sided Fisher p = {p:.4})"));
        }
        text
    }

    /// The changed figures: `assertion toolsUsed held in 1 of 1 runs -> 0 of 1; tool errors
    /// 0 -> 2`.
    pub fn describe_changes(&self, arrow: &str) -> String {
        let runs = |r: Option<Runs>| r.map_or(0, |r| r.runs);
        let parts: Vec<String> = (self.changes.iter())
            .map(|change| {
                let (b, a) = (number(change.base), number(change.current));
                match change.figure.strip_prefix("assertion:") {
                    Some(key) => format!(
                        "assertion {key} held in {b} of {} runs {arrow} {a} of {}",
                        runs(self.base),
                        runs(self.current)
                    ),
                    None => format!("{} {b} {arrow} {a}", figure_name(&change.figure)),
                }
            })
            .collect();
        parts.join("; ")
    }

    /// Its pass count in the base, for ordering and tables.
    pub fn base_count(&self) -> Option<PassCount> {
        self.base.map(Runs::count)
    }

    /// Its pass count now.
    pub fn current_count(&self) -> Option<PassCount> {
        self.current.map(Runs::count)
    }
}

fn figure_name(figure: &str) -> &str {
    match figure {
        "toolErrors" => "tool errors",
        "schemaFindings" => "schema findings",
        "definitionTokens" => "tool definition tokens",
        "resultTokens" => "tool result tokens",
        "durationMs" => "duration ms",
        other => other,
    }
}

/// A figure as shown: whole numbers as such, others with one decimal.
fn number(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.1}")
    }
}

#[cfg(test)]
#[path = "task_diff_tests.rs"]
mod tests;
