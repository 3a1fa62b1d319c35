//! Variants of an eval compared (`config.variants`): per variant its figures, and each
//! variant against the eval's baseline over the tasks both ran: tasks better, worse and the
//! same, a paired test (`stats`), Holm's adjustment over the eval's variants, and a verdict.
//! Computed from results files alone; results without a `variant` take no part. The
//! matrix of tasks by variants is the HTML report's (`html/variant_matrix.rs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::stats::{self, VariantVerdict, format_p};
use crate::report::results::{PassCount, TaskResult, wilson_interval};

/// One variant's figures over its runs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct VariantSummary {
    /// The eval.
    pub eval: String,
    /// The variant's name.
    pub name: String,
    /// It is the eval's baseline, the variant the others are compared with.
    #[serde(default)]
    pub baseline: bool,
    /// Its tasks.
    pub tasks: usize,
    /// Its runs.
    pub runs: usize,
    /// Runs that passed.
    pub passed: usize,
    /// `passed / runs`.
    pub pass_rate: f64,
    /// The 95% Wilson score interval of the pass rate, `[low, high]`.
    pub interval: [f64; 2],
    /// The most runs of one task, when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// pass^k: the share of its tasks all of whose runs passed (when `k` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_hat_k: Option<f64>,
    /// Input plus output tokens of the agent, over the runs that report them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_agent_tokens: Option<f64>,
    /// Tokens of the tool definitions of every server, over the runs that counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_tool_definition_tokens: Option<f64>,
    /// Model turns, over the runs that report them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_turns: Option<f64>,
    /// Duration of a run, in milliseconds.
    pub mean_duration_ms: f64,
    /// Tool calls that ended in an error, over all runs.
    pub tool_errors: usize,
    /// Schema findings (definitions, arguments, results), over all runs.
    pub schema_findings: usize,
    /// Calls of decoy tools, over all runs.
    pub decoy_calls: usize,
}

/// The paired test a comparison used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairedTest {
    /// Every task ran once in both variants: the exact McNemar test.
    McnemarExact,
    /// The sign-flip test on per-task pass rates, every sign assignment counted.
    SignFlipExact,
    /// The sign-flip test on per-task pass rates, random sign assignments drawn.
    SignFlipSampled,
}

impl PairedTest {
    /// `McNemar exact`, `sign-flip exact`, `sign-flip (10000 draws)`.
    pub fn label(self) -> String {
        match self {
            PairedTest::McnemarExact => "McNemar exact".to_owned(),
            PairedTest::SignFlipExact => "sign-flip exact".to_owned(),
            PairedTest::SignFlipSampled => {
                format!("sign-flip ({} draws)", stats::SAMPLED_ASSIGNMENTS)
            }
        }
    }
}

/// A variant against the eval's baseline, over the tasks both ran.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The eval.
    pub eval: String,
    /// The variant compared.
    pub variant: String,
    /// The baseline it is compared with.
    pub baseline: String,
    /// Tasks both ran.
    pub tasks: usize,
    /// Tasks whose pass rate is higher in the variant.
    pub better: usize,
    /// Tasks whose pass rate is lower in the variant.
    pub worse: usize,
    /// Tasks whose pass rate is the same.
    pub same: usize,
    /// The mean per-task pass rate difference, variant minus baseline.
    pub difference: f64,
    /// The paired test.
    pub test: PairedTest,
    /// Its two-sided p-value.
    pub p_value: f64,
    /// The p-value adjusted by Holm–Bonferroni over the eval's comparisons.
    pub adjusted_p_value: f64,
    /// `better`, `worse` or `no clear difference` (at α = 0.05, on the adjusted p-value).
    pub verdict: VariantVerdict,
    /// Why.
    pub reason: String,
}

/// The variants of every eval that has some, and their comparisons with the baselines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariantReport {
    /// Per eval (by name), its variants: the baseline first, then by name.
    pub variants: Vec<VariantSummary>,
    /// Per eval, each variant other than the baseline against it.
    pub comparisons: Vec<Comparison>,
}

/// Per task (by name), its runs in run order.
pub(in crate::report) type TaskRuns<'a> = BTreeMap<&'a str, Vec<&'a TaskResult>>;

/// The runs of one eval with variants.
pub(in crate::report) struct EvalRuns<'a> {
    pub(in crate::report) eval: &'a str,
    /// The baseline most results name.
    baseline: Option<&'a str>,
    /// Per variant, the baseline first, then by name.
    pub(in crate::report) variants: Vec<(&'a str, TaskRuns<'a>)>,
}

pub(in crate::report) fn eval_runs(results: &[TaskResult]) -> Vec<EvalRuns<'_>> {
    type Grouped<'a> = (BTreeMap<&'a str, usize>, BTreeMap<&'a str, TaskRuns<'a>>);
    let mut evals: BTreeMap<&str, Grouped> = BTreeMap::new();
    for result in results {
        let Some(variant) = result.variant.as_deref() else {
            continue;
        };
        let (baselines, variants) = evals.entry(&result.eval_name).or_default();
        if let Some(details) = &result.variant_details
            && !details.baseline.is_empty()
        {
            *baselines.entry(&details.baseline).or_default() += 1;
        }
        let task = variants.entry(variant).or_default();
        task.entry(&result.task_name).or_default().push(result);
    }
    (evals.into_iter())
        .map(|(eval, (baselines, variants))| {
            let baseline = (baselines.into_iter())
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
                .map(|(name, _)| name);
            let mut variants: Vec<(&str, TaskRuns)> = variants.into_iter().collect();
            for (_, tasks) in &mut variants {
                for runs in tasks.values_mut() {
                    runs.sort_by_key(|r| r.run_index);
                }
            }
            // Stable: the baseline first, the rest stay by name.
            variants.sort_by_key(|(name, _)| Some(*name) != baseline);
            EvalRuns {
                eval,
                baseline,
                variants,
            }
        })
        .collect()
}

impl VariantReport {
    /// The variants and comparisons of `results` (empty when no result names a variant).
    pub fn of(results: &[TaskResult]) -> Self {
        let mut report = VariantReport::default();
        for eval in eval_runs(results) {
            let baseline_name = eval.baseline.unwrap_or_default();
            for (name, tasks) in &eval.variants {
                report
                    .variants
                    .push(figures(eval.eval, name, baseline_name, tasks));
            }
            let Some((_, baseline)) = (eval.variants.iter()).find(|(n, _)| *n == baseline_name)
            else {
                continue;
            };
            let mut comparisons: Vec<Comparison> = (eval.variants.iter())
                .filter(|(name, _)| *name != baseline_name)
                .map(|(name, tasks)| compare(eval.eval, baseline_name, baseline, name, tasks))
                .collect();
            let p_values: Vec<f64> = comparisons.iter().map(|c| c.p_value).collect();
            for (comparison, adjusted) in comparisons.iter_mut().zip(stats::holm(&p_values)) {
                comparison.adjusted_p_value = adjusted;
                if comparison.tasks > 0 {
                    let discordant = comparison.better + comparison.worse;
                    (comparison.verdict, comparison.reason) =
                        stats::verdict(adjusted, comparison.difference, discordant);
                }
            }
            report.comparisons.extend(comparisons);
        }
        report
    }
}

fn figures(eval: &str, name: &str, baseline: &str, tasks: &TaskRuns) -> VariantSummary {
    let runs: Vec<&TaskResult> = tasks.values().flatten().copied().collect();
    let passed = runs.iter().filter(|r| r.task_passed).count();
    let (low, high) = wilson_interval(passed, runs.len());
    let k = tasks.values().map(Vec::len).max().unwrap_or(0);
    let all_passed = (tasks.values())
        .filter(|runs| runs.iter().all(|r| r.task_passed))
        .count();
    let sum = |count: fn(&TaskResult) -> usize| -> usize { runs.iter().map(|r| count(r)).sum() };
    VariantSummary {
        eval: eval.to_owned(),
        name: name.to_owned(),
        baseline: name == baseline,
        tasks: tasks.len(),
        runs: runs.len(),
        passed,
        pass_rate: share(passed, runs.len()),
        interval: [low, high],
        k: (k > 1).then_some(k),
        pass_hat_k: (k > 1).then(|| share(all_passed, tasks.len())),
        mean_agent_tokens: mean(runs.iter().filter_map(|r| {
            (r.agent_token_usage).map(|u| (u.prompt_tokens + u.completion_tokens) as f64)
        })),
        mean_tool_definition_tokens: mean(runs.iter().filter_map(|r| {
            let servers = &r.tool_tokens.as_ref()?.servers;
            Some(servers.values().map(|s| s.definition_tokens).sum::<usize>() as f64)
        })),
        mean_turns: mean(runs.iter().filter_map(|r| r.agent_turns.map(f64::from))),
        mean_duration_ms: mean(runs.iter().map(|r| r.duration_ms)).unwrap_or(0.0),
        tool_errors: sum(|r| r.tool_errors),
        schema_findings: sum(|r| {
            let found = &r.schema_violations;
            found.definitions.len() + found.arguments.len() + found.results.len()
        }),
        decoy_calls: sum(|r| r.decoy_calls.len()),
    }
}

/// `variant` against `baseline` over the tasks both ran, before Holm's adjustment (the
/// verdict is made once the eval's p-values are adjusted).
fn compare(
    eval: &str,
    baseline_name: &str,
    baseline: &TaskRuns,
    variant: &str,
    tasks: &TaskRuns,
) -> Comparison {
    let pairs: Vec<(PassCount, PassCount)> = (baseline.iter())
        .filter_map(|(task, runs)| Some((count(runs), count(tasks.get(task)?))))
        .collect();
    let once = (pairs.iter()).all(|(base, other)| base.runs == 1 && other.runs == 1);
    let differences: Vec<f64> = (pairs.iter())
        .map(|(base, other)| other.rate() - base.rate())
        .collect();
    let better = differences
        .iter()
        .filter(|d| **d > stats::TOLERANCE)
        .count();
    let worse = differences
        .iter()
        .filter(|d| **d < -stats::TOLERANCE)
        .count();
    let (test, p_value) = if once {
        (
            PairedTest::McnemarExact,
            stats::mcnemar_exact(worse, better),
        )
    } else {
        let test = stats::sign_flip(&differences);
        let kind = if test.exact {
            PairedTest::SignFlipExact
        } else {
            PairedTest::SignFlipSampled
        };
        (kind, test.p_value)
    };
    Comparison {
        eval: eval.to_owned(),
        variant: variant.to_owned(),
        baseline: baseline_name.to_owned(),
        tasks: pairs.len(),
        better,
        worse,
        same: pairs.len() - better - worse,
        difference: mean(differences.iter().copied()).unwrap_or(0.0),
        test,
        p_value,
        adjusted_p_value: p_value,
        verdict: VariantVerdict::NoClearDifference,
        reason: format!("no task ran in both {variant} and {baseline_name}"),
    }
}

pub(in crate::report) fn count(runs: &[&TaskResult]) -> PassCount {
    PassCount {
        passed: runs.iter().filter(|r| r.task_passed).count(),
        runs: runs.len(),
    }
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(sum, n), v| (sum + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// The summary's lines about variants: per eval a heading, a line per variant and one per
/// comparison (none without variants).
pub fn render_variants(variants: &[VariantSummary], comparisons: &[Comparison]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut evals: Vec<&str> = variants.iter().map(|v| v.eval.as_str()).collect();
    evals.dedup();
    for eval in evals {
        let these = variants.iter().filter(|v| v.eval == eval);
        let baseline = (variants.iter())
            .find(|v| v.eval == eval && v.baseline)
            .map_or("", |v| v.name.as_str());
        lines.push(if baseline.is_empty() {
            format!("variants of {eval} (no baseline named):")
        } else {
            format!("variants of {eval} (baseline: {baseline}):")
        });
        for variant in these {
            let [low, high] = variant.interval;
            let mut line = format!(
                "  {}: {}/{} runs passed ({:.1}%, 95% interval {:.0}%–{:.0}%)",
                variant.name,
                variant.passed,
                variant.runs,
                variant.pass_rate * 100.0,
                low * 100.0,
                high * 100.0
            );
            if let (Some(k), Some(pass_hat_k)) = (variant.k, variant.pass_hat_k) {
                line += &format!(", pass^{k} {:.1}%", pass_hat_k * 100.0);
            }
            lines.push(line);
        }
        for c in comparisons.iter().filter(|c| c.eval == eval) {
            let mut line = format!(
                "  {} vs {} (baseline): {} better, {} worse, {} same; {} p = {}, Holm-adjusted {}: {}",
                c.variant,
                c.baseline,
                c.better,
                c.worse,
                c.same,
                c.test.label(),
                format_p(c.p_value),
                format_p(c.adjusted_p_value),
                c.verdict.as_str()
            );
            if c.tasks == 0 || c.better + c.worse < stats::MIN_DISCORDANT {
                line += &format!(" ({})", c.reason);
            }
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
#[path = "variant_report_tests.rs"]
mod tests;
