//! The difference between two reports, keyed by test name: regressions, fixes, new and
//! removed tasks, pass rate and token changes; as text or as markdown for a PR comment.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::Report;

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
    /// Overall pass rates.
    pub pass_rate: (f64, f64),
    /// Estimated tokens (prompt + output).
    pub tokens: (usize, usize),
}

/// Pass rate per test over its runs.
fn rates(report: &Report) -> BTreeMap<String, f64> {
    let mut tallies: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for result in &report.results {
        let tally = tallies.entry(result.test_name.clone()).or_default();
        tally.0 += usize::from(result.task_passed);
        tally.1 += 1;
    }
    tallies
        .into_iter()
        .map(|(name, (passed, runs))| (name, passed as f64 / runs as f64))
        .collect()
}

/// Compares `current` with `base`. A test passes when all its runs passed.
pub fn diff_reports(base: &Report, current: &Report) -> ReportDiff {
    let (before, after) = (rates(base), rates(current));
    let mut diff = ReportDiff {
        pass_rate: (base.summary.pass_rate, current.summary.pass_rate),
        tokens: (
            base.summary.prompt_tokens + base.summary.output_tokens,
            current.summary.prompt_tokens + current.summary.output_tokens,
        ),
        ..ReportDiff::default()
    };
    for (name, &now) in &after {
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

    /// A heading, a one-line summary and a table of the changed tasks.
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
            "{} regressed · {} fixed · {} new · {} removed · tokens {} → {} ({token_delta:+})\n",
            self.regressions.len(),
            self.fixes.len(),
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
        out
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

    /// The pass rates, the tokens and one line per changed task.
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
        if self.regressions.is_empty()
            && self.fixes.is_empty()
            && self.new.is_empty()
            && self.removed.is_empty()
        {
            out.push_str("no task changed its verdict\n");
        }
        out
    }
}
