//! One test in two reports: how its pass count moved (a regression only when the drop is
//! unlikely to be chance, `fisher`), and which of its figures changed (assertion outcomes,
//! tool errors, schema findings, tokens of tool definitions and results, turns, duration).

use std::collections::BTreeMap;

use serde::Serialize;

use super::fisher::{drop_p_value, rise_p_value, significant};
use super::task_figures::{FigureChange, Figures, Runs, figure_changes};
use crate::report::results::{PassCount, TaskResult};

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

/// Which way a test's pass rate moved between the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Direction {
    /// It passes less often.
    Lower,
    /// It passes more often.
    Higher,
    /// The same share of its runs passed.
    Same,
}

impl Direction {
    fn of(base: f64, current: f64) -> Self {
        if current < base {
            Direction::Lower
        } else if current > base {
            Direction::Higher
        } else {
            Direction::Same
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
    /// Which way its pass rate moved, whatever its change (absent when new or removed): a
    /// flaky test says here that it passes less often, not clearly, where the text does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
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
        (None, Some(now)) if now.count().is_flaky() => (Change::Flaky, None),
        (None, _) => (Change::New, None),
        (Some(_), None) => (Change::Removed, None),
        (Some(then), Some(now)) => classify(then.count(), now.count()),
    };
    let direction = match (base, current) {
        (Some(then), Some(now)) => Some(Direction::of(then.count().rate(), now.count().rate())),
        _ => None,
    };
    TaskDiff {
        test_name: name.to_owned(),
        change,
        direction,
        base: base.map(|f| f.runs),
        current: current.map(|f| f.runs),
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
        let mut text = format!("{} runs passed", self.describe_counts(arrow));
        if let Some(p) = self.p_value {
            text.push_str(&format!(" (one-sided Fisher p = {p:.4})"));
        }
        text
    }

    /// `5 of 5 -> 3 of 5`: the pass counts before and after (`–` for a report without the
    /// test).
    pub fn describe_counts(&self, arrow: &str) -> String {
        let shown = |runs: Option<Runs>| match runs {
            Some(r) => format!("{} of {}", r.passed, r.runs),
            None => "–".to_owned(),
        };
        format!("{} {arrow} {}", shown(self.base), shown(self.current))
    }

    /// Which way the pass rate moved, as text and markdown say it: `lower, not clearly
    /// (one-sided Fisher p = 0.2222)` (the labels of [`Change::Lower`] and
    /// [`Change::Higher`]), `the same pass rate`, or `new`.
    pub fn describe_direction(&self) -> String {
        let label = match self.direction {
            None => return "new".to_owned(),
            Some(Direction::Same) => return "the same pass rate".to_owned(),
            Some(Direction::Lower) => Change::Lower.label(),
            Some(Direction::Higher) => Change::Higher.label(),
        };
        match self.p_value {
            Some(p) => format!("{label} (one-sided Fisher p = {p:.4})"),
            None => label.to_owned(),
        }
    }

    /// The changed figures: `assertion toolsUsed held in 1 of 1 runs -> 0 of 1; tool errors
    /// 0 -> 2`.
    pub fn describe_changes(&self, arrow: &str) -> String {
        self.change_list(arrow).join("; ")
    }

    /// Each figure that changed, as [`TaskDiff::describe_changes`] says it.
    pub fn change_list(&self, arrow: &str) -> Vec<String> {
        let runs = |r: Option<Runs>| r.map_or(0, |r| r.runs);
        (self.changes.iter())
            .map(|change| {
                let (b, a) = (number(change.base), number(change.current));
                if let Some(key) = change.figure.strip_prefix("assertion:") {
                    return format!(
                        "assertion {key} held in {b} of {} runs {arrow} {a} of {}",
                        runs(self.base),
                        runs(self.current)
                    );
                }
                match change.figure.strip_prefix("turn:") {
                    Some(turn) => format!(
                        "turn {turn} passed in {b} of {} runs {arrow} {a} of {}",
                        runs(self.base),
                        runs(self.current)
                    ),
                    None => format!("{} {b} {arrow} {a}", figure_name(&change.figure)),
                }
            })
            .collect()
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
