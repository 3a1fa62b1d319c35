//! A merged report as markdown (`mcpeval report --format markdown`, and the job summary of
//! a run under GitHub Actions): the tally, the budgets checked, each failed test with its
//! first reason, the flaky ones, then folded: the pass rate per eval, the servers' tool
//! tokens, schema findings and coverage.

use std::fmt::Write;

use super::markdown::{MARKER, Part, cell, code, fitted};
use super::outcome::{TestOutcome, test_outcomes};
use crate::llm::pricing::dollars;
use crate::plumbing::text::shorten;
use crate::report::diff::BudgetCheck;
use crate::report::summary::{Report, Summary, ToolTokenSummary};

/// The report as markdown of at most `limit` bytes, with the `checks` made on it.
pub fn report_markdown(report: &Report, checks: &[BudgetCheck], limit: usize) -> String {
    let summary = &report.summary;
    let tests = test_outcomes(&report.results);
    let failed: Vec<_> = tests.iter().filter(|t| !t.passed()).collect();
    let flaky: Vec<_> = tests.iter().filter(|t| t.is_flaky()).collect();
    let head = tally(summary, tests.len(), failed.len(), flaky.len());
    let parts = vec![
        Part::Fixed(head),
        budgets_part(checks),
        failed_part(&failed),
        flaky_part(&flaky),
        evals_part(summary),
        servers_part(summary),
    ];
    fitted(parts, limit)
}

/// The heading with the task runs passed, then the line of tests failed, flaky, tool errors,
/// tokens and what the model calls cost.
fn tally(summary: &Summary, tests: usize, failed: usize, flaky: usize) -> String {
    let mut head = format!(
        "{MARKER}\n### mcpeval: {} of {} task runs passed ({:.1}%)\n\n",
        summary.passed,
        summary.runs,
        summary.pass_rate * 100.0
    );
    let cost = summary.cost.as_ref().map_or(String::new(), |cost| {
        let unpriced = if cost.unpriced.is_empty() {
            String::new()
        } else {
            format!(" (unpriced: {})", cost.unpriced.join(", "))
        };
        format!(" · cost {}{unpriced}", dollars(cost.total_usd))
    });
    let _ = writeln!(
        head,
        "{failed} of {tests} tests failed · {flaky} flaky · tool errors {} · tokens (estimated) {} prompt, {} output{cost}\n",
        summary.tool_errors, summary.prompt_tokens, summary.output_tokens
    );
    head
}

/// The budgets checked, each marked passed or failed.
fn budgets_part(checks: &[BudgetCheck]) -> Part {
    Part::List {
        priority: 0,
        head: "**Budgets**\n\n".into(),
        rows: (checks.iter())
            .map(|b| {
                let mark = if b.passed { "✅" } else { "❌" };
                format!("- {mark} {}", shorten(&b.describe("→"), 600))
            })
            .collect(),
        tail: "\n".into(),
        what: "budgets",
    }
}

/// The table of failed tests: the runs passed and the first reason of each.
fn failed_part(failed: &[&TestOutcome<'_>]) -> Part {
    Part::List {
        priority: 1,
        head: "| failed test | runs passed | first reason |\n|---|---|---|\n".into(),
        rows: (failed.iter())
            .map(|t| {
                format!(
                    "| ❌ {} | {} of {} | {} |",
                    code(t.test_name),
                    t.count.passed,
                    t.count.runs,
                    cell(&t.first_reason())
                )
            })
            .collect(),
        tail: String::new(),
        what: "failed tests",
    }
}

/// The table of flaky tests, whose runs both passed and failed.
fn flaky_part(flaky: &[&TestOutcome<'_>]) -> Part {
    Part::List {
        priority: 2,
        head: "\n**Flaky** (runs both passed and failed):\n\n\
               | task | runs passed | pass rate (95% Wilson interval) |\n|---|---|---|\n"
            .into(),
        rows: flaky.iter().map(|t| flaky_row(t)).collect(),
        tail: String::new(),
        what: "flaky tests",
    }
}

/// The folded table of the runs passed per eval.
fn evals_part(summary: &Summary) -> Part {
    Part::List {
        priority: 3,
        head: "\n<details><summary>Per eval</summary>\n\n| eval | runs passed |\n|---|---|\n"
            .into(),
        rows: (summary.by_eval.iter())
            .map(|(eval, tally)| format!("| {} | {} of {} |", code(eval), tally.passed, tally.runs))
            .collect(),
        tail: "\n</details>\n".into(),
        what: "evals",
    }
}

/// The folded block of the servers' lines: schema findings, tool tokens, coverage.
fn servers_part(summary: &Summary) -> Part {
    Part::List {
        priority: 4,
        head: "\n<details><summary>Servers: schema findings, tool tokens, coverage</summary>\n\n```text\n"
            .into(),
        rows: (server_lines(summary).iter())
            .map(|line| shorten(&line.replace("```", "'''"), 600))
            .collect(),
        tail: "```\n\n</details>\n".into(),
        what: "lines",
    }
}

/// A flaky test's row: its runs passed and its pass rate with the 95% Wilson interval.
fn flaky_row(test: &TestOutcome<'_>) -> String {
    let (low, high) = test.count.interval();
    format!(
        "| {} | {} of {} | {:.0}% ({:.0}%–{:.0}%) |",
        code(test.test_name),
        test.count.passed,
        test.count.runs,
        test.count.rate() * 100.0,
        low * 100.0,
        high * 100.0
    )
}

/// The servers' lines: schema findings, tool tokens, then each server's coverage.
fn server_lines(summary: &Summary) -> Vec<String> {
    let mut servers: Vec<String> = summary.schema.render();
    servers.extend(
        summary
            .tool_tokens
            .iter()
            .flat_map(ToolTokenSummary::render),
    );
    for (server, coverage) in &summary.coverage {
        servers.extend(coverage.render(server));
    }
    for (server, parameters) in &summary.parameter_coverage {
        servers.extend(parameters.render(server));
    }
    servers
}
