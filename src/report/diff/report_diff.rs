//! The difference between two reports, keyed by test name: each test's change (regressed,
//! fixed, new, removed, flaky, lower or higher but not clearly, unchanged; `task_diff`) with
//! the figures of it that changed, pass rate and token changes, what changed about the
//! servers (`diff_servers`) and the budgets checked (`budgets`); as text, markdown for a PR
//! comment (`markdown`) or JSON (`schema/diff.schema.json`).

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::budgets::BudgetCheck;
use super::diff_servers::{SchemaChange, ServerChange, schema_changes, server_changes};
use super::task_diff::{Change, TaskDiff, task_diffs};
use crate::report::summary::Report;

/// How to render a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiffFormat {
    /// Plain text for a terminal.
    #[default]
    Text,
    /// Markdown for a pull-request comment (at most [`COMMENT_LIMIT`](crate::report::COMMENT_LIMIT)
    /// bytes).
    Markdown,
    /// JSON for scripts (`schema/diff.schema.json`).
    Json,
}

/// What changed between a base report and the current one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportDiff {
    /// Overall pass rates, `[base, current]`.
    pub pass_rate: (f64, f64),
    /// Estimated tokens (prompt + output), `[base, current]`.
    pub tokens: (usize, usize),
    /// Tool calls that ended in an error, over all runs, `[base, current]`.
    pub tool_errors: (usize, usize),
    /// Every test of either report, by test name.
    pub tasks: Vec<TaskDiff>,
    /// Servers whose tool tokens or coverage changed.
    pub servers: Vec<ServerChange>,
    /// Tools whose schema findings changed.
    pub schema: Vec<SchemaChange>,
    /// The budgets asked for, checked (empty when none was).
    pub budgets: Vec<BudgetCheck>,
}

/// Compares `current` with `base`, test by test (see [`Change`]).
pub fn diff_reports(base: &Report, current: &Report) -> ReportDiff {
    ReportDiff {
        pass_rate: (base.summary.pass_rate, current.summary.pass_rate),
        tokens: (
            base.summary.prompt_tokens + base.summary.output_tokens,
            current.summary.prompt_tokens + current.summary.output_tokens,
        ),
        tool_errors: (base.summary.tool_errors, current.summary.tool_errors),
        tasks: task_diffs(&base.results, &current.results),
        servers: server_changes(base, current),
        schema: schema_changes(base, current),
        budgets: Vec::new(),
    }
}

pub(in crate::report) fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

impl ReportDiff {
    /// Whether a test regressed (one run each: passed, now fails; more runs: a drop the
    /// one-sided Fisher test finds unlikely to be chance).
    pub fn has_regressions(&self) -> bool {
        self.tasks.iter().any(|t| t.change == Change::Regressed)
    }

    /// Whether every budget checked held.
    pub fn budgets_passed(&self) -> bool {
        self.budgets.iter().all(|b| b.passed)
    }

    /// The tests with `change`, by test name.
    pub fn with(&self, change: Change) -> impl Iterator<Item = &TaskDiff> {
        self.tasks.iter().filter(move |t| t.change == change)
    }

    /// How many tests had each change.
    pub fn counts(&self) -> BTreeMap<Change, usize> {
        let mut counts = BTreeMap::new();
        for task in &self.tasks {
            *counts.entry(task.change).or_default() += 1;
        }
        counts
    }

    /// The change of the pass rate in points and of the tokens.
    pub(in crate::report) fn deltas(&self) -> (f64, i64) {
        let (before, after) = self.pass_rate;
        let delta = (after - before) * 100.0;
        let token_delta = self.tokens.1 as i64 - self.tokens.0 as i64;
        (delta, token_delta)
    }

    /// One line per changed figure about the servers: tool errors, each server's tokens
    /// and coverage, each tool's schema findings.
    pub(in crate::report) fn server_lines(&self, arrow: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let (before, after) = self.tool_errors;
        if before != after {
            lines.push(format!("tool errors: {before} {arrow} {after}"));
        }
        for server in &self.servers {
            lines.push(format!(
                "server {}: {}",
                server.server,
                server.describe(arrow)
            ));
        }
        for tool in &self.schema {
            lines.push(format!("schema {}: {}", tool.tool, tool.describe(arrow)));
        }
        lines
    }

    /// The pass rates, the tokens, one line per changed test (with a line of what changed
    /// below it), the unchanged ones counted, the servers, the budgets.
    pub(in crate::report) fn render_text(&self) -> String {
        let mut out = String::new();
        let (before, after) = self.pass_rate;
        let (delta, token_delta) = self.deltas();
        let _ = writeln!(
            out,
            "pass rate: {} -> {} ({delta:+.1} points)",
            percent(before),
            percent(after)
        );
        let _ = writeln!(
            out,
            "tokens (estimated): {} -> {} ({token_delta:+})",
            self.tokens.0, self.tokens.1
        );
        let rate = |runs: Option<super::task_figures::Runs>| runs.map_or(0.0, |r| r.pass_rate);
        // A test whose pass rate moved: its change, both rates, what else changed.
        let write_moved = |out: &mut String, changes: [Change; 2]| {
            for change in changes {
                for task in self.with(change) {
                    let (b, a) = (rate(task.base), rate(task.current));
                    let _ = writeln!(
                        out,
                        "{}: {} ({} -> {})",
                        change.label(),
                        task.test_name,
                        percent(b),
                        percent(a)
                    );
                    write_details(out, task);
                }
            }
        };
        write_moved(&mut out, [Change::Regressed, Change::Fixed]);
        for task in self.with(Change::New) {
            let _ = writeln!(
                out,
                "new: {} ({})",
                task.test_name,
                percent(rate(task.current))
            );
        }
        for task in self.with(Change::Removed) {
            let shown = percent(rate(task.base));
            let _ = writeln!(out, "removed: {} (was {shown})", task.test_name);
        }
        for task in self.with(Change::Flaky) {
            let _ = writeln!(out, "flaky: {} {}", task.test_name, flaky_note(task, "->"));
            write_details(&mut out, task);
        }
        write_moved(&mut out, [Change::Lower, Change::Higher]);
        let unchanged: Vec<&TaskDiff> = self.with(Change::Unchanged).collect();
        if !unchanged.is_empty() {
            let s = if unchanged.len() == 1 { "" } else { "s" };
            let _ = writeln!(out, "unchanged: {} test{s}", unchanged.len());
            for task in unchanged.iter().filter(|t| !t.changes.is_empty()) {
                let _ = writeln!(out, "  {}: {}", task.test_name, task.describe_changes("->"));
            }
        }
        let counts = self.counts();
        let verdicts = [
            Change::Regressed,
            Change::Fixed,
            Change::New,
            Change::Removed,
        ];
        if verdicts.iter().all(|c| !counts.contains_key(c)) {
            out.push_str("no task changed its verdict\n");
        }
        for line in self.server_lines("->") {
            let _ = writeln!(out, "{line}");
        }
        for budget in &self.budgets {
            let _ = writeln!(out, "{}", budget.describe("->"));
        }
        out
    }
}

/// `5 of 5 -> 3 of 5 runs passed (60%, 95% Wilson interval 23%–88%); lower, not clearly
/// (one-sided Fisher p = 0.2222)`: the pass counts before and after, the current rate with
/// its interval, and which way the rate moved (`; new` for a new test).
pub(super) fn flaky_note(task: &TaskDiff, arrow: &str) -> String {
    let Some(count) = task.current_count() else {
        return String::new();
    };
    let (low, high) = count.interval();
    format!(
        "{} runs passed ({}, 95% Wilson interval {}–{}); {}",
        task.describe_counts(arrow),
        percent(count.rate()),
        percent(low),
        percent(high),
        task.describe_direction()
    )
}

/// The line below a test's line: its pass counts with the p-value (more runs), its changed
/// figures.
fn write_details(out: &mut String, task: &TaskDiff) {
    let mut parts = Vec::new();
    if task.p_value.is_some() && task.change != Change::Flaky {
        parts.push(task.describe_runs("->"));
    }
    if !task.changes.is_empty() {
        parts.push(task.describe_changes("->"));
    }
    if !parts.is_empty() {
        let _ = writeln!(out, "  {}", parts.join("; "));
    }
}
