//! The difference between two reports, keyed by test name: regressions, fixes, new and
//! removed tasks, flaky tasks apart from them, pass rate and token changes, and what
//! changed about the servers (`diff_servers`); as text or as markdown for a PR comment.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::Report;
use super::diff_servers::{SchemaChange, ServerChange, schema_changes, server_changes};
use super::flaky::{PassCount, pass_counts};

/// How to render a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DiffFormat {
    /// Plain text for a terminal.
    #[default]
    Text,
    /// Markdown for a pull-request comment.
    Markdown,
}

/// What changed between a base report and the current one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportDiff {
    /// Passed in the base, fails now: `(test, base pass rate, current pass rate)`.
    pub regressions: Vec<(String, f64, f64)>,
    /// Failed in the base, passes now.
    pub fixes: Vec<(String, f64, f64)>,
    /// Only in the current report, with its pass rate.
    pub new: Vec<(String, f64)>,
    /// Only in the base report, with its pass rate.
    pub removed: Vec<(String, f64)>,
    /// Tests whose current runs both passed and failed; never among the regressions, fixes
    /// or new tests.
    pub flaky: Vec<FlakyChange>,
    /// Overall pass rates.
    pub pass_rate: (f64, f64),
    /// Estimated tokens (prompt + output).
    pub tokens: (usize, usize),
    /// Tool calls that ended in an error, over all runs.
    pub tool_errors: (usize, usize),
    /// Servers whose tool tokens or coverage changed.
    pub servers: Vec<ServerChange>,
    /// Tools whose schema findings changed.
    pub schema: Vec<SchemaChange>,
}

/// A test whose current runs both passed and failed.
#[derive(Debug, Clone, PartialEq)]
pub struct FlakyChange {
    /// The test name.
    pub test_name: String,
    /// Its pass rate in the base report; `None` when it is new.
    pub base_rate: Option<f64>,
    /// Its runs in the current report.
    pub count: PassCount,
}

/// Pass rate per test over its runs.
fn rates(report: &Report) -> BTreeMap<String, f64> {
    pass_counts(&report.results)
        .into_iter()
        .map(|(name, count)| (name, count.rate()))
        .collect()
}

/// Compares `current` with `base`. A test passes when all its runs passed; a test whose
/// current runs both passed and failed is flaky, whatever it was in the base.
pub fn diff_reports(base: &Report, current: &Report) -> ReportDiff {
    let before = rates(base);
    let counts = pass_counts(&current.results);
    let after: BTreeMap<String, f64> = counts.iter().map(|(n, c)| (n.clone(), c.rate())).collect();
    let mut diff = ReportDiff {
        pass_rate: (base.summary.pass_rate, current.summary.pass_rate),
        tokens: (
            base.summary.prompt_tokens + base.summary.output_tokens,
            current.summary.prompt_tokens + current.summary.output_tokens,
        ),
        tool_errors: (base.summary.tool_errors, current.summary.tool_errors),
        servers: server_changes(base, current),
        schema: schema_changes(base, current),
        ..ReportDiff::default()
    };
    for (name, &now) in &after {
        let count = counts[name];
        if count.is_flaky() {
            diff.flaky.push(FlakyChange {
                test_name: name.clone(),
                base_rate: before.get(name).copied(),
                count,
            });
            continue;
        }
        match before.get(name) {
            None => diff.new.push((name.clone(), now)),
            Some(&then) if then >= 1.0 && now < 1.0 => {
                diff.regressions.push((name.clone(), then, now))
            }
            Some(&then) if then < 1.0 && now >= 1.0 => diff.fixes.push((name.clone(), then, now)),
            Some(_) => {}
        }
    }
    diff.removed = before
        .iter()
        .filter(|(name, _)| !after.contains_key(*name))
        .map(|(n, r)| (n.clone(), *r))
        .collect();
    diff
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

impl ReportDiff {
    /// Whether anything regressed.
    pub fn has_regressions(&self) -> bool {
        !self.regressions.is_empty()
    }

    /// The diff as text or markdown.
    pub fn render(&self, format: DiffFormat) -> String {
        match format {
            DiffFormat::Markdown => self.render_markdown(),
            DiffFormat::Text => self.render_text(),
        }
    }

    /// The change of the pass rate in points and of the tokens.
    fn deltas(&self) -> (f64, i64) {
        let (before, after) = self.pass_rate;
        let delta = (after - before) * 100.0;
        let token_delta = self.tokens.1 as i64 - self.tokens.0 as i64;
        (delta, token_delta)
    }

    /// A heading, a one-line summary, a table of the changed tasks and one of the flaky tasks.
    fn render_markdown(&self) -> String {
        let mut out = String::new();
        let (before, after) = self.pass_rate;
        let (delta, token_delta) = self.deltas();
        let _ = writeln!(
            out,
            "### mcpeval: {} → {} pass rate ({delta:+.1} points)\n",
            percent(before),
            percent(after)
        );
        let _ = writeln!(
            out,
            "{} regressed · {} fixed · {} flaky · {} new · {} removed · tokens {} → {} ({token_delta:+})\n",
            self.regressions.len(),
            self.fixes.len(),
            self.flaky.len(),
            self.new.len(),
            self.removed.len(),
            self.tokens.0,
            self.tokens.1
        );
        let rows = self.markdown_rows();
        if rows.is_empty() {
            out.push_str("No task changed its verdict.\n");
        } else {
            out.push_str("| change | task | before | after |\n|---|---|---|---|\n");
            out.push_str(&rows.join("\n"));
            out.push('\n');
        }
        if !self.flaky.is_empty() {
            out.push_str(
                "\n**Flaky** (runs both passed and failed; not counted as regressions or fixes):\n\n\
                 | task | before | runs passed | pass rate (95% Wilson interval) |\n|---|---|---|---|\n",
            );
            for flaky in &self.flaky {
                let (low, high) = flaky.count.interval();
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} of {} | {} ({}–{}) |",
                    flaky.test_name,
                    flaky.base_rate.map_or_else(|| "–".to_owned(), percent),
                    flaky.count.passed,
                    flaky.count.runs,
                    percent(flaky.count.rate()),
                    percent(low),
                    percent(high)
                );
            }
        }
        let servers = self.server_lines("→");
        if !servers.is_empty() {
            out.push_str("\n**Servers**\n\n");
            for line in servers {
                let _ = writeln!(out, "- {line}");
            }
        }
        out
    }

    /// One line per changed figure about the servers: tool errors, each server's tokens
    /// and coverage, each tool's schema findings.
    fn server_lines(&self, arrow: &str) -> Vec<String> {
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

    /// One table row per changed task: regressions, fixes, new, removed.
    fn markdown_rows(&self) -> Vec<String> {
        let changes = self
            .regressions
            .iter()
            .map(|(n, b, a)| ("❌ regressed", n, Some(*b), Some(*a)));
        let changes = changes
            .chain(
                self.fixes
                    .iter()
                    .map(|(n, b, a)| ("✅ fixed", n, Some(*b), Some(*a))),
            )
            .chain(self.new.iter().map(|(n, a)| ("🆕 new", n, None, Some(*a))))
            .chain(
                self.removed
                    .iter()
                    .map(|(n, b)| ("🗑️ removed", n, Some(*b), None)),
            );
        changes
            .map(|(what, name, b, a)| {
                let show = |r: Option<f64>| r.map(percent).unwrap_or_else(|| "–".to_owned());
                format!("| {what} | `{name}` | {} | {} |", show(b), show(a))
            })
            .collect()
    }

    /// The pass rates, the tokens, one line per changed task and one per flaky task.
    fn render_text(&self) -> String {
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
        for (label, items) in [("regressed", &self.regressions), ("fixed", &self.fixes)] {
            for (name, b, a) in items.iter() {
                let _ = writeln!(out, "{label}: {name} ({} -> {})", percent(*b), percent(*a));
            }
        }
        for (name, rate) in &self.new {
            let _ = writeln!(out, "new: {name} ({})", percent(*rate));
        }
        for (name, rate) in &self.removed {
            let _ = writeln!(out, "removed: {name} (was {})", percent(*rate));
        }
        for flaky in &self.flaky {
            let before = match flaky.base_rate {
                Some(rate) => format!("was {}", percent(rate)),
                None => "new".to_owned(),
            };
            let _ = writeln!(
                out,
                "flaky: {} {}; {before}",
                flaky.test_name,
                flaky.count.describe()
            );
        }
        if self.regressions.is_empty()
            && self.fixes.is_empty()
            && self.new.is_empty()
            && self.removed.is_empty()
        {
            out.push_str("no task changed its verdict\n");
        }
        for line in self.server_lines("->") {
            let _ = writeln!(out, "{line}");
        }
        out
    }
}
