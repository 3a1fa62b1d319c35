//! The page's Variants section (`variants.html`), for evals with variants: per eval its
//! variants' figures, each variant against the baseline with its test and verdict (from the
//! report's summary, so a merged `report.json` shows what it says), and the matrix of tasks
//! by variants, each cell linking to its first run.

use serde::Serialize;

use super::shown::millis;
use super::variant_matrix::variant_matrices;
use crate::report::summary::Report;
use crate::report::variants::{Comparison, VariantSummary, VariantVerdict, format_p};

/// One eval's variants.
#[derive(Serialize)]
pub(super) struct VariantsView {
    eval: String,
    baseline: String,
    variants: Vec<VariantRow>,
    comparisons: Vec<ComparisonRow>,
    /// The matrix's columns: the variants, the baseline first.
    columns: Vec<String>,
    rows: Vec<MatrixRowView>,
}

/// One variant's figures, formatted (`–` where no run reported one).
#[derive(Serialize)]
struct VariantRow {
    name: String,
    is_baseline: bool,
    runs: usize,
    passed: usize,
    pass_rate: String,
    interval: String,
    pass_hat_k: String,
    agent_tokens: String,
    tool_tokens: String,
    turns: String,
    duration: String,
    tool_errors: usize,
    schema_findings: usize,
    decoy_calls: usize,
}

/// A variant against the baseline.
#[derive(Serialize)]
struct ComparisonRow {
    variant: String,
    baseline: String,
    tasks: usize,
    better: usize,
    worse: usize,
    same: usize,
    /// In percentage points, signed.
    difference: String,
    test: String,
    p_value: String,
    adjusted_p_value: String,
    verdict: &'static str,
    /// `better`, `worse` or `unclear`: the verdict's badge.
    class: &'static str,
    reason: String,
}

/// A task's row of the matrix.
#[derive(Serialize)]
struct MatrixRowView {
    task: String,
    cells: Vec<Option<CellView>>,
}

/// `passed/runs`, linking to the first run (its anchor is the test's name).
#[derive(Serialize)]
struct CellView {
    passed: usize,
    runs: usize,
    anchor: String,
    /// `all`, `some` or `none` passed.
    class: &'static str,
}

/// The section's evals (none without variants).
pub(super) fn variants(report: &Report) -> Vec<VariantsView> {
    let summary = &report.summary;
    (variant_matrices(&report.results).into_iter())
        .map(|matrix| {
            let eval = matrix.eval;
            let variants: Vec<VariantRow> = (summary.variants.iter())
                .filter(|v| v.eval == eval)
                .map(variant_row)
                .collect();
            let baseline = (summary.variants.iter())
                .find(|v| v.eval == eval && v.baseline)
                .map(|v| v.name.clone())
                .unwrap_or_default();
            let comparisons = (summary.comparisons.iter())
                .filter(|c| c.eval == eval)
                .map(comparison_row)
                .collect();
            let rows = (matrix.rows.into_iter())
                .map(|row| MatrixRowView {
                    task: row.task,
                    cells: (row.cells.into_iter())
                        .map(|cell| {
                            cell.map(|cell| CellView {
                                passed: cell.passed,
                                runs: cell.runs,
                                anchor: cell.anchor,
                                class: match cell.passed {
                                    0 => "none",
                                    p if p == cell.runs => "all",
                                    _ => "some",
                                },
                            })
                        })
                        .collect(),
                })
                .collect();
            VariantsView {
                eval,
                baseline,
                variants,
                comparisons,
                columns: matrix.variants,
                rows,
            }
        })
        .collect()
}

fn variant_row(v: &VariantSummary) -> VariantRow {
    let [low, high] = v.interval;
    let number = |value: Option<f64>| value.map_or_else(|| "–".to_owned(), |n| format!("{n:.0}"));
    VariantRow {
        name: v.name.clone(),
        is_baseline: v.baseline,
        runs: v.runs,
        passed: v.passed,
        pass_rate: format!("{:.1}%", v.pass_rate * 100.0),
        interval: format!("{:.0}–{:.0}%", low * 100.0, high * 100.0),
        pass_hat_k: match (v.k, v.pass_hat_k) {
            (Some(k), Some(share)) => format!("{:.1}% (k = {k})", share * 100.0),
            _ => "–".to_owned(),
        },
        agent_tokens: number(v.mean_agent_tokens),
        tool_tokens: number(v.mean_tool_definition_tokens),
        turns: v
            .mean_turns
            .map_or_else(|| "–".to_owned(), |t| format!("{t:.1}")),
        duration: millis(v.mean_duration_ms),
        tool_errors: v.tool_errors,
        schema_findings: v.schema_findings,
        decoy_calls: v.decoy_calls,
    }
}

fn comparison_row(c: &Comparison) -> ComparisonRow {
    ComparisonRow {
        variant: c.variant.clone(),
        baseline: c.baseline.clone(),
        tasks: c.tasks,
        better: c.better,
        worse: c.worse,
        same: c.same,
        difference: format!("{:+.1} pts", c.difference * 100.0),
        test: c.test.label(),
        p_value: format_p(c.p_value),
        adjusted_p_value: format_p(c.adjusted_p_value),
        verdict: c.verdict.as_str(),
        class: match c.verdict {
            VariantVerdict::Better => "better",
            VariantVerdict::Worse => "worse",
            VariantVerdict::NoClearDifference => "unclear",
        },
        reason: c.reason.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::page::render_html;
    use crate::report::results::{TaskResult, VariantDetails};
    use crate::report::summary::merge;

    fn run(task: &str, variant: &str, passed: bool, index: u32) -> TaskResult {
        TaskResult {
            test_name: format!("e::{task}@{variant}"),
            eval_name: "e".into(),
            task_name: task.into(),
            task_passed: passed,
            run_index: Some(index),
            total_runs: Some(2),
            variant: Some(variant.into()),
            variant_details: Some(VariantDetails {
                baseline: "claude".into(),
                ..VariantDetails::default()
            }),
            ..TaskResult::default()
        }
    }

    fn page(results: Vec<TaskResult>) -> String {
        render_html(&merge(results), "variants", Path::new("."), Path::new(".")).unwrap()
    }

    #[test]
    fn the_page_shows_variants_their_comparisons_and_the_matrix() {
        let mut results = Vec::new();
        for task in ["add", "echo"] {
            for index in 0..2 {
                results.push(run(task, "claude", true, index));
                results.push(run(task, "codex", task == "add" && index == 0, index));
            }
        }
        results.push(run("<script>", "codex", false, 0));
        let html = page(results);
        let section = &html[html
            .find(r#"<section id="variants""#)
            .expect("a Variants section")..];
        let section = &section[..section.find("</section>").unwrap()];
        assert!(
            section.contains(r#"<h2 id="variants-h">Variants</h2>"#),
            "{section}"
        );
        assert!(section.contains("baseline claude"), "{section}");
        assert!(
            section
                .contains(r#"<th scope="row">claude <span class="muted">(baseline)</span></th>"#),
            "{section}"
        );
        // The per-variant table: codex passed 1 of 5 runs, pass^2 0 of its 3 tasks.
        assert!(
            section.contains(r#"<th scope="row">codex</th><td class="num">5</td><td class="num">1</td><td class="num">20.0%</td>"#),
            "{section}"
        );
        assert!(section.contains("0.0% (k = 2)"), "{section}");
        // The comparison over add and echo, both worse: too few to tell.
        assert!(
            section.contains(r#"<span class="badge unclear">no clear difference</span>"#),
            "{section}"
        );
        assert!(section.contains("only 2 tasks differ"), "{section}");
        assert!(section.contains("sign-flip exact"), "{section}");
        // The matrix: each cell links to the first run of its test; a task codex alone ran
        // has an empty baseline cell; names are escaped.
        assert!(
            section.contains(r##"<td class="some"><a href="#e::add@codex@1">1/2</a></td>"##),
            "{section}"
        );
        assert!(
            section.contains(r##"<td class="all"><a href="#e::echo@claude@1">2/2</a></td>"##),
            "{section}"
        );
        assert!(
            section.contains(r#"<th scope="row">&lt;script&gt;</th><td class="empty">–</td>"#),
            "{section}"
        );
        assert!(!section.contains("<script>"), "{section}");
    }

    #[test]
    fn a_page_without_variants_has_no_variants_section() {
        let mut result = run("add", "claude", true, 0);
        (result.variant, result.variant_details) = (None, None);
        let html = page(vec![result]);
        assert!(!html.contains(r#"id="variants""#));
    }
}
