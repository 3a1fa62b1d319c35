//! The budgets a diff checks, each a line in every format and a failed gate when it does not
//! hold: the growth of each server's tool-definition tokens, the growth of each tool's
//! median result tokens, schema findings the base did not have, and the current surface
//! coverage.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::llm::pricing::dollars;
use crate::report::results::TaskResult;
use crate::report::summary::Report;

/// The budgets asked for (`None`/`false`: not checked).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budgets {
    /// `--max-definition-growth`: percent a server's tool-definition tokens may grow.
    pub max_definition_growth: Option<f64>,
    /// `--max-result-growth`: percent a tool's median result tokens may grow.
    pub max_result_growth: Option<f64>,
    /// `--fail-on-new-schema-findings`.
    pub fail_on_new_schema_findings: bool,
    /// `--min-coverage`: the share (0 to 1) of its surface every server must cover.
    pub min_coverage: Option<f64>,
    /// `--min-parameter-coverage`: the share (0 to 1) of its tools' input-schema properties
    /// every server's tests must exercise.
    pub min_parameter_coverage: Option<f64>,
    /// `--max-cost`: US dollars the current runs' priced model calls may cost in total.
    pub max_cost: Option<f64>,
    /// `--max-cost-growth`: percent the total cost may grow from the base.
    pub max_cost_growth: Option<f64>,
}

/// One budget, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetCheck {
    /// The flag that asked for it: `--max-definition-growth`, `--max-result-growth`,
    /// `--fail-on-new-schema-findings`, `--min-coverage`.
    pub budget: String,
    /// Its limit (a percent for the growths, a share for coverage; absent for schema
    /// findings).
    pub limit: Option<f64>,
    /// It held.
    pub passed: bool,
    /// What broke it, one entry per server, tool or finding.
    pub over: Vec<String>,
    /// How many servers, tools or findings it compared.
    pub checked: usize,
}

impl BudgetCheck {
    fn new(budget: &str, limit: Option<f64>, over: Vec<String>, checked: usize) -> Self {
        BudgetCheck {
            budget: budget.to_owned(),
            limit,
            passed: over.is_empty(),
            over,
            checked,
        }
    }

    /// `budget --max-definition-growth 10%: exceeded: demo 800 -> 930 tokens (+16.3%)`, or
    /// `…: held (2 servers compared)`.
    pub fn describe(&self, arrow: &str) -> String {
        let limit = match (self.budget.as_str(), self.limit) {
            ("--min-coverage" | "--min-parameter-coverage", Some(share)) => format!(" {share}"),
            ("--max-cost", Some(usd)) => format!(" {}", crate::llm::pricing::dollars(usd)),
            (_, Some(percent)) => format!(" {percent}%"),
            (_, None) => String::new(),
        };
        let what = match self.budget.as_str() {
            "--max-definition-growth" | "--min-coverage" | "--min-parameter-coverage" => "server",
            "--max-result-growth" => "tool",
            "--max-cost" | "--max-cost-growth" => "total",
            _ if self.passed => return format!("budget {}: held (no new finding)", self.budget),
            _ => "finding",
        };
        if self.passed {
            let s = if self.checked == 1 { "" } else { "s" };
            format!(
                "budget {}{limit}: held ({} {what}{s} compared)",
                self.budget, self.checked
            )
        } else {
            let over: Vec<String> = (self.over.iter())
                .map(|line| line.replace("->", arrow))
                .collect();
            format!(
                "budget {}{limit}: exceeded: {}",
                self.budget,
                over.join("; ")
            )
        }
    }
}

/// Checks the `budgets` asked for on `base` and `current`.
pub fn check_budgets(base: &Report, current: &Report, budgets: &Budgets) -> Vec<BudgetCheck> {
    let mut checks = Vec::new();
    if let Some(limit) = budgets.max_definition_growth {
        checks.push(definition_growth(base, current, limit));
    }
    if let Some(limit) = budgets.max_result_growth {
        checks.push(result_growth(base, current, limit));
    }
    if budgets.fail_on_new_schema_findings {
        checks.push(new_schema_findings(base, current));
    }
    if let Some(minimum) = budgets.min_coverage {
        checks.push(min_coverage(current, minimum));
    }
    if let Some(minimum) = budgets.min_parameter_coverage {
        checks.push(min_parameter_coverage(current, minimum));
    }
    if let Some(limit) = budgets.max_cost {
        checks.push(max_cost(current, limit));
    }
    if let Some(limit) = budgets.max_cost_growth {
        checks.push(cost_growth(base, current, limit));
    }
    checks
}

/// `(after - before) / before` in percent; `None` when there is nothing to grow from.
fn growth(before: f64, after: f64) -> Option<f64> {
    (before > 0.0).then(|| (after - before) / before * 100.0)
}

fn definition_growth(base: &Report, current: &Report, limit: f64) -> BudgetCheck {
    let figures = |report: &Report| -> BTreeMap<String, usize> {
        let servers = report.summary.tool_tokens.iter().flat_map(|t| &t.servers);
        servers
            .map(|(name, s)| (name.clone(), s.definition_tokens))
            .collect()
    };
    let (before, after) = (figures(base), figures(current));
    let mut checked = 0;
    let mut over = Vec::new();
    for (server, &now) in &after {
        let Some(grew) = before.get(server).and_then(|&then| {
            let grew = growth(then as f64, now as f64)?;
            Some((then, grew))
        }) else {
            continue;
        };
        checked += 1;
        let (then, grew) = grew;
        if grew > limit + 1e-9 {
            over.push(format!("{server} {then} -> {now} tokens ({grew:+.1}%)"));
        }
    }
    BudgetCheck::new("--max-definition-growth", Some(limit), over, checked)
}

/// The median result tokens of each tool (`server/tool`) over every counted tool call.
pub fn median_result_tokens(results: &[TaskResult]) -> BTreeMap<String, f64> {
    let mut tokens: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for result in results {
        for call in &result.call_history.tool_calls {
            if let Some(count) = call.result_tokens {
                let key = format!("{}/{}", call.server_name, call.name);
                tokens.entry(key).or_default().push(count);
            }
        }
    }
    (tokens.into_iter())
        .map(|(tool, mut counts)| {
            counts.sort_unstable();
            let middle = counts.len() / 2;
            let median = if counts.len() % 2 == 1 {
                counts[middle] as f64
            } else {
                (counts[middle - 1] + counts[middle]) as f64 / 2.0
            };
            (tool, median)
        })
        .collect()
}

fn result_growth(base: &Report, current: &Report, limit: f64) -> BudgetCheck {
    let before = median_result_tokens(&base.results);
    let after = median_result_tokens(&current.results);
    let mut checked = 0;
    let mut over = Vec::new();
    for (tool, &now) in &after {
        let Some(&then) = before.get(tool) else {
            continue;
        };
        let Some(grew) = growth(then, now) else {
            continue;
        };
        checked += 1;
        if grew > limit + 1e-9 {
            over.push(format!(
                "{tool} median {then} -> {now} tokens per result ({grew:+.1}%)"
            ));
        }
    }
    BudgetCheck::new("--max-result-growth", Some(limit), over, checked)
}

/// Findings of a kind the base did not have: a broken tool definition it did not list, a
/// tool whose results (arguments) break its schema where none did before.
fn new_schema_findings(base: &Report, current: &Report) -> BudgetCheck {
    let (before, after) = (&base.summary.schema, &current.summary.schema);
    let mut over: Vec<String> = (after.definitions.difference(&before.definitions))
        .map(|problem| format!("invalid tool definition {problem}"))
        .collect();
    for (tool, counts) in &after.tools {
        let had = before.tools.get(tool).cloned().unwrap_or_default();
        if counts.bad_results > 0 && had.bad_results == 0 {
            over.push(format!(
                "{tool}: {} of {} results broke its outputSchema",
                counts.bad_results, counts.calls
            ));
        }
        if counts.bad_arguments > 0 && had.bad_arguments == 0 {
            over.push(format!(
                "{tool}: {} of {} calls sent arguments that break its inputSchema",
                counts.bad_arguments, counts.calls
            ));
        }
    }
    let checked = after.tools.len() + after.definitions.len();
    BudgetCheck::new("--fail-on-new-schema-findings", None, over, checked)
}

/// As `mcpeval report --min-coverage`: every server that advertised something covers at
/// least `minimum`, and some server did.
pub fn min_coverage(current: &Report, minimum: f64) -> BudgetCheck {
    let shares = (current.summary.coverage.iter()).map(|(server, c)| (server, c.coverage));
    let none = "no server advertised anything in these results";
    coverage_floor("--min-coverage", "coverage", shares, minimum, none)
}

/// As `mcpeval report --min-parameter-coverage`: every server whose tools have input-schema
/// properties has at least `minimum` of them exercised, and some server has properties.
pub fn min_parameter_coverage(current: &Report, minimum: f64) -> BudgetCheck {
    let shares =
        (current.summary.parameter_coverage.iter()).map(|(server, c)| (server, c.coverage));
    let none = "no server's tools have input-schema properties in these results";
    coverage_floor(
        "--min-parameter-coverage",
        "parameter coverage",
        shares,
        minimum,
        none,
    )
}

/// The `budget` that each server's share (of `what`) is at least `minimum`: a line per
/// server below it, and `none` when there is no server.
fn coverage_floor<'a>(
    budget: &str,
    what: &str,
    shares: impl Iterator<Item = (&'a String, f64)>,
    minimum: f64,
    none: &str,
) -> BudgetCheck {
    let mut checked = 0;
    let mut over = Vec::new();
    for (server, share) in shares {
        checked += 1;
        if share < minimum {
            over.push(format!(
                "{what} of {server} is {:.1}%, below the minimum {:.1}%",
                share * 100.0,
                minimum * 100.0
            ));
        }
    }
    if checked == 0 {
        over.push(none.to_owned());
    }
    BudgetCheck::new(budget, Some(minimum), over, checked)
}

/// As `mcpeval report --max-cost`: the priced model calls of the current runs cost at most
/// `limit` US dollars in total (runs that said nothing of their usage cost nothing here).
pub fn max_cost(current: &Report, limit: f64) -> BudgetCheck {
    let total = current
        .summary
        .cost
        .as_ref()
        .map_or(0.0, |cost| cost.total_usd);
    let mut over = Vec::new();
    if total > limit + 1e-12 {
        over.push(format!(
            "the runs cost {}, above the limit {}",
            dollars(total),
            dollars(limit)
        ));
    }
    BudgetCheck::new("--max-cost", Some(limit), over, 1)
}

/// `--max-cost-growth`: the current runs' total cost grew at most `limit` percent from the
/// base's (not checked when the base cost nothing or said nothing).
fn cost_growth(base: &Report, current: &Report, limit: f64) -> BudgetCheck {
    let total = |report: &Report| report.summary.cost.as_ref().map(|cost| cost.total_usd);
    let compared = (total(base).zip(total(current)))
        .and_then(|(before, after)| Some((before, after, growth(before, after)?)));
    let Some((before, after, grew)) = compared else {
        return BudgetCheck::new("--max-cost-growth", Some(limit), Vec::new(), 0);
    };
    let mut over = Vec::new();
    if grew > limit + 1e-9 {
        over.push(format!(
            "cost {} -> {} ({grew:+.1}%)",
            dollars(before),
            dollars(after)
        ));
    }
    BudgetCheck::new("--max-cost-growth", Some(limit), over, 1)
}

#[cfg(test)]
#[path = "budgets_tests.rs"]
mod tests;
