//! What a diff tells a server author beyond verdicts: per server, the tokens its tool
//! definitions cost, the average size of its tool results and its surface coverage; per
//! tool, the calls and results that broke its schemas. Only what changed is listed.

use std::collections::BTreeSet;

use crate::report::summary::{Report, ToolSchemaCounts};

/// One server's figures in the base and the current report (`None`: not in that report).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerChange {
    /// The server's name.
    pub server: String,
    /// Tokens of its tool definitions together.
    pub definition_tokens: (Option<usize>, Option<usize>),
    /// Average tokens of one tool result.
    pub result_tokens_per_call: (Option<usize>, Option<usize>),
    /// Share of its advertised surface that some test used.
    pub coverage: (Option<f64>, Option<f64>),
    /// Share of its tools' input-schema properties that some test exercised.
    pub parameter_coverage: (Option<f64>, Option<f64>),
    /// What some test uses now and none did before: `tool deploy`, `deploy.spec.zone` (a
    /// property exercised).
    pub gained: Vec<String>,
    /// What some test used before and none does now.
    pub lost: Vec<String>,
}

/// One tool's schema findings in the base and the current report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SchemaChange {
    /// `server/tool`.
    pub tool: String,
    /// Its counts before (zero when it had no finding).
    pub before: ToolSchemaCounts,
    /// Its counts now.
    pub after: ToolSchemaCounts,
}

/// The servers whose token figures or coverage changed.
pub(super) fn server_changes(base: &Report, current: &Report) -> Vec<ServerChange> {
    let names: BTreeSet<&String> = [base, current]
        .iter()
        .flat_map(|report| {
            let tokens = report.summary.tool_tokens.iter();
            tokens
                .flat_map(|t| t.servers.keys())
                .chain(report.summary.coverage.keys())
                .chain(report.summary.parameter_coverage.keys())
        })
        .collect();
    names
        .into_iter()
        .map(|server| {
            let (before, after) = (used(base, server), used(current, server));
            ServerChange {
                server: server.clone(),
                definition_tokens: (definitions(base, server), definitions(current, server)),
                result_tokens_per_call: (per_call(base, server), per_call(current, server)),
                coverage: (coverage(base, server), coverage(current, server)),
                parameter_coverage: (parameters(base, server), parameters(current, server)),
                gained: after.difference(&before).cloned().collect(),
                lost: before.difference(&after).cloned().collect(),
            }
        })
        .filter(|change| {
            change.definition_tokens.0 != change.definition_tokens.1
                || change.result_tokens_per_call.0 != change.result_tokens_per_call.1
                || change.coverage.0 != change.coverage.1
                || change.parameter_coverage.0 != change.parameter_coverage.1
                || !change.gained.is_empty()
                || !change.lost.is_empty()
        })
        .collect()
}

fn parameters(report: &Report, server: &str) -> Option<f64> {
    Some(report.summary.parameter_coverage.get(server)?.coverage)
}

/// What some test of `report` used of `server`: `tool <name>` (and the other kinds) for
/// its surface, `<tool>.<path>` for each property exercised.
fn used(report: &Report, server: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    if let Some(coverage) = report.summary.coverage.get(server) {
        let lists = [
            ("tool", &coverage.tools),
            ("resource", &coverage.resources),
            ("resource template", &coverage.resource_templates),
            ("prompt", &coverage.prompts),
        ];
        for (kind, items) in lists {
            let touched = items.iter().filter(|(_, tests)| **tests > 0);
            used.extend(touched.map(|(name, _)| format!("{kind} {name}")));
        }
    }
    if let Some(parameters) = report.summary.parameter_coverage.get(server) {
        for (tool, figures) in &parameters.tools {
            let exercised = figures.properties.iter().filter(|(_, p)| p.exercised > 0);
            used.extend(exercised.map(|(path, _)| format!("{tool}.{path}")));
        }
    }
    used
}

fn definitions(report: &Report, server: &str) -> Option<usize> {
    let tokens = report.summary.tool_tokens.as_ref()?;
    Some(tokens.servers.get(server)?.definition_tokens)
}

fn per_call(report: &Report, server: &str) -> Option<usize> {
    let tokens = report.summary.tool_tokens.as_ref()?;
    let server = tokens.servers.get(server)?;
    (server.tool_calls > 0).then(|| server.result_tokens.div_ceil(server.tool_calls))
}

fn coverage(report: &Report, server: &str) -> Option<f64> {
    Some(report.summary.coverage.get(server)?.coverage)
}

/// The tools whose schema findings changed.
pub(super) fn schema_changes(base: &Report, current: &Report) -> Vec<SchemaChange> {
    let tools: BTreeSet<&String> = (base.summary.schema.tools.keys())
        .chain(current.summary.schema.tools.keys())
        .collect();
    let counts = |report: &Report, tool: &str| {
        let counts = report.summary.schema.tools.get(tool).cloned();
        counts.unwrap_or_default()
    };
    tools
        .into_iter()
        .map(|tool| SchemaChange {
            tool: tool.clone(),
            before: counts(base, tool),
            after: counts(current, tool),
        })
        .filter(|change| {
            change.before.bad_arguments != change.after.bad_arguments
                || change.before.bad_results != change.after.bad_results
        })
        .collect()
}

impl ServerChange {
    /// `definitions 812 -> 930 tokens (+118); result 40 -> 35 tokens per call; coverage 50%
    /// -> 62%`: the figures that changed.
    pub fn describe(&self, arrow: &str) -> String {
        let mut parts = Vec::new();
        let (before, after) = self.definition_tokens;
        if before != after {
            parts.push(format!(
                "tool definitions {} {arrow} {} tokens{}",
                shown(before),
                shown(after),
                delta(before, after)
            ));
        }
        let (before, after) = self.result_tokens_per_call;
        if before != after {
            parts.push(format!(
                "results {} {arrow} {} tokens per call{}",
                shown(before),
                shown(after),
                delta(before, after)
            ));
        }
        let percent = |c: Option<f64>| c.map_or("–".to_owned(), |c| format!("{:.0}%", c * 100.0));
        for (what, (before, after)) in [
            ("coverage", self.coverage),
            ("parameter coverage", self.parameter_coverage),
        ] {
            if before != after {
                parts.push(format!(
                    "{what} {} {arrow} {}",
                    percent(before),
                    percent(after)
                ));
            }
        }
        if !self.gained.is_empty() {
            parts.push(format!("now used: {}", self.gained.join(", ")));
        }
        if !self.lost.is_empty() {
            parts.push(format!("no longer used: {}", self.lost.join(", ")));
        }
        parts.join("; ")
    }
}

impl SchemaChange {
    /// `calls breaking its inputSchema 3 of 10 -> 0 of 8; results breaking its outputSchema
    /// …`: the counts that changed.
    pub fn describe(&self, arrow: &str) -> String {
        let (b, a) = (&self.before, &self.after);
        let mut parts = Vec::new();
        if b.bad_arguments != a.bad_arguments {
            parts.push(format!(
                "calls breaking its inputSchema {} {arrow} {}",
                fraction(b.bad_arguments, b.calls),
                fraction(a.bad_arguments, a.calls)
            ));
        }
        if b.bad_results != a.bad_results {
            parts.push(format!(
                "results breaking its outputSchema {} {arrow} {}",
                fraction(b.bad_results, b.calls),
                fraction(a.bad_results, a.calls)
            ));
        }
        parts.join("; ")
    }
}

/// `3 of 10`, or `0` when the tool had no finding (its calls are counted only then).
fn fraction(bad: usize, calls: usize) -> String {
    if calls == 0 {
        bad.to_string()
    } else {
        format!("{bad} of {calls}")
    }
}

fn shown(value: Option<usize>) -> String {
    value.map_or_else(|| "–".to_owned(), |v| v.to_string())
}

fn delta(before: Option<usize>, after: Option<usize>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => format!(" ({:+})", a as i64 - b as i64),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::report_diff::{DiffFormat, diff_reports};
    use super::*;
    use crate::report::summary::{ServerCoverage, ServerTokenSummary, Summary, ToolTokenSummary};

    fn report(definitions: usize, results: usize, coverage: f64, bad_arguments: usize) -> Report {
        let mut summary = Summary {
            tool_errors: bad_arguments,
            ..Summary::default()
        };
        let server = ServerTokenSummary {
            definition_tokens: definitions,
            tools: 3,
            tool_calls: 4,
            result_tokens: results,
            biggest_result_tokens: results,
        };
        summary.tool_tokens = Some(ToolTokenSummary {
            tokenizer: "o200k_base".into(),
            servers: [("demo".to_owned(), server)].into(),
            biggest_results: Vec::new(),
        });
        let covered = ServerCoverage {
            coverage,
            ..ServerCoverage::default()
        };
        summary.coverage = [("demo".to_owned(), covered)].into();
        if bad_arguments > 0 {
            let counts = ToolSchemaCounts {
                calls: 4,
                bad_arguments,
                bad_results: 0,
            };
            summary.schema.tools = [("demo/lookup".to_owned(), counts)].into();
        }
        Report {
            schema_version: Default::default(),
            summary,
            results: Vec::new(),
        }
    }

    #[test]
    fn a_diff_lists_only_the_server_figures_that_changed() {
        let base = report(800, 160, 0.5, 3);
        let current = report(930, 160, 0.75, 0);
        let text = diff_reports(&base, &current).render(DiffFormat::Text);
        for line in [
            "tool errors: 3 -> 0\n",
            "server demo: tool definitions 800 -> 930 tokens (+130); coverage 50% -> 75%\n",
            "schema demo/lookup: calls breaking its inputSchema 3 of 4 -> 0\n",
        ] {
            assert!(text.contains(line), "lacks {line:?}:\n{text}");
        }
        let markdown = diff_reports(&base, &current).render(DiffFormat::Markdown);
        assert!(
            markdown.contains("**Servers**\n\n- tool errors: 3 → 0\n- server demo: tool definitions 800 → 930 tokens (+130); coverage 50% → 75%\n"),
            "{markdown}"
        );
    }

    #[test]
    fn unchanged_servers_add_nothing() {
        let same = report(800, 160, 0.5, 0);
        let text = diff_reports(&same, &same).render(DiffFormat::Text);
        assert!(
            !text.contains("server ") && !text.contains("schema "),
            "{text}"
        );
        let markdown = diff_reports(&same, &same).render(DiffFormat::Markdown);
        assert!(!markdown.contains("**Servers**"), "{markdown}");
    }
}
