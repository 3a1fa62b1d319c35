use super::*;
use crate::llm::TokenUsage;
use crate::report::html::variant_matrices;
use crate::report::results::{DecoyCall, ToolTokens, VariantDetails};
use crate::report::summary::Summary;
use crate::schema_checks::{CallFinding, SchemaChecks};
use crate::tokens::ServerTokens;

/// One run of `task` in `variant` of `eval`, whose baseline is `baseline`.
fn run(eval: &str, task: &str, variant: &str, baseline: &str, passed: bool) -> TaskResult {
    TaskResult {
        test_name: format!("{eval}::{task}@{variant}"),
        eval_name: eval.into(),
        task_name: task.into(),
        task_passed: passed,
        variant: Some(variant.into()),
        variant_details: Some(VariantDetails {
            baseline: baseline.into(),
            ..VariantDetails::default()
        }),
        ..TaskResult::default()
    }
}

/// `passes[i]` of `k` runs of task `t<i>` passed, in `variant`.
fn runs(eval: &str, variant: &str, baseline: &str, k: u32, passes: &[u32]) -> Vec<TaskResult> {
    let mut results = Vec::new();
    for (i, &passed) in passes.iter().enumerate() {
        for index in 0..k {
            let mut result = run(eval, &format!("t{i:02}"), variant, baseline, index < passed);
            if k > 1 {
                (result.run_index, result.total_runs) = (Some(index), Some(k));
            }
            results.push(result);
        }
    }
    results
}

/// One run per task `<variant>-<i>` in `claude` and in `variant`; `outcomes` as `(baseline
/// passed, variant passed)` per task.
fn paired(eval: &str, variant: &str, outcomes: &[(bool, bool)]) -> Vec<TaskResult> {
    let mut results = Vec::new();
    for (i, &(base, other)) in outcomes.iter().enumerate() {
        let task = format!("{variant}-{i:02}");
        results.push(run(eval, &task, "claude", "claude", base));
        results.push(run(eval, &task, variant, "claude", other));
    }
    results
}

/// `better` tasks only the variant passed, `worse` only the baseline, `same` both.
fn outcomes(better: usize, worse: usize, same: usize) -> Vec<(bool, bool)> {
    let mut all = vec![(false, true); better];
    all.extend(vec![(true, false); worse]);
    all.extend(vec![(true, true); same]);
    all
}

#[test]
fn results_without_variants_make_no_variants_and_no_comparisons() {
    let results = vec![TaskResult {
        test_name: "demo::add".into(),
        eval_name: "demo".into(),
        task_name: "add".into(),
        task_passed: true,
        ..TaskResult::default()
    }];
    assert_eq!(VariantReport::of(&results), VariantReport::default());
    assert!(variant_matrices(&results).is_empty());
    let summary = Summary::of(&results);
    let json = serde_json::to_value(&summary).unwrap();
    assert!(json.get("variants").is_none() && json.get("comparisons").is_none());
    assert!(
        !summary.render().contains("variants"),
        "{}",
        summary.render()
    );
}

#[test]
fn one_run_per_task_is_compared_by_mcnemar_exact() {
    let results = paired("e", "codex", &outcomes(3, 12, 15));
    let report = VariantReport::of(&results);
    let [comparison] = &report.comparisons[..] else {
        panic!("{report:?}")
    };
    assert_eq!(
        (comparison.tasks, comparison.better, comparison.worse),
        (30, 3, 12)
    );
    assert_eq!(comparison.same, 15);
    assert_eq!(comparison.test, PairedTest::McnemarExact);
    // 2 · Σ_{i ≤ 3} C(15, i) / 2^15 (Python's math.comb).
    assert!((comparison.p_value - 0.03515625).abs() < 1e-12);
    assert_eq!(comparison.adjusted_p_value, comparison.p_value);
    assert_eq!(comparison.verdict, VariantVerdict::Worse);
    assert!((comparison.difference - (-9.0 / 30.0)).abs() < 1e-12);
    let lines = render_variants(&report.variants, &report.comparisons);
    assert_eq!(
        lines,
        [
            "variants of e (baseline: claude):",
            "  claude: 27/30 runs passed (90.0%, 95% interval 74%–97%)",
            "  codex: 18/30 runs passed (60.0%, 95% interval 42%–75%)",
            "  codex vs claude (baseline): 3 better, 12 worse, 15 same; McNemar exact p = 0.0352, \
             Holm-adjusted 0.0352: worse",
        ]
    );
}

// p-values 2/1024 (0 worse, 10 better), 0.109375 (2, 8), 0.125 (0, 4): Holm multiplies
// them by 3, 2 and 1, and the last keeps the second's 0.21875 (step-down).
#[test]
fn holm_adjusts_over_an_evals_variants_only() {
    let mut results = paired("e", "a", &outcomes(10, 0, 2));
    results.extend(paired("e", "b", &outcomes(8, 2, 2)));
    results.extend(paired("e", "c", &outcomes(4, 0, 8)));
    results.extend(paired("other", "codex", &outcomes(10, 0, 2)));
    let report = VariantReport::of(&results);
    let found: Vec<(&str, &str, f64, VariantVerdict)> = (report.comparisons.iter())
        .map(|c| {
            let (eval, variant) = (c.eval.as_str(), c.variant.as_str());
            (eval, variant, c.adjusted_p_value, c.verdict)
        })
        .collect();
    let expected = [
        ("e", "a", 0.005859375, VariantVerdict::Better),
        ("e", "b", 0.21875, VariantVerdict::NoClearDifference),
        ("e", "c", 0.21875, VariantVerdict::NoClearDifference),
        ("other", "codex", 0.001953125, VariantVerdict::Better),
    ];
    assert_eq!(found.len(), expected.len(), "{found:?}");
    for (found, expected) in found.iter().zip(expected) {
        assert_eq!(
            (found.0, found.1, found.3),
            (expected.0, expected.1, expected.3)
        );
        assert!((found.2 - expected.2).abs() < 1e-12, "{found:?}");
    }
    let c = &report.comparisons[2];
    assert_eq!(
        c.reason,
        "only 4 tasks differ; at least 6 are needed before an exact test can show a \
         difference at α = 0.05"
    );
    assert_eq!(
        report.comparisons[1].reason,
        "Holm-adjusted p = 0.2188 is not below α = 0.05"
    );
    let lines = render_variants(&report.variants, &report.comparisons);
    assert!(
        lines.contains(
            &"  c vs claude (baseline): 4 better, 0 worse, 8 same; McNemar exact p = 0.1250, \
              Holm-adjusted 0.2188: no clear difference (only 4 tasks differ; at least 6 are \
              needed before an exact test can show a difference at α = 0.05)"
                .to_owned()
        ),
        "{lines:#?}"
    );
}

// Fifths: the differences 0.2, 0.4, −0.2, 0.6, 0.8, 0.4, −0.4, 1.0, whose 256 sign
// assignments Python counted: 28 reach |Σ| = 2.8, p = 0.109375.
#[test]
fn several_runs_per_task_are_compared_by_the_sign_flip_test_on_pass_rates() {
    let mut results = runs("e", "claude", "claude", 5, &[0, 0, 1, 0, 0, 0, 2, 0, 5]);
    results.extend(runs("e", "codex", "claude", 5, &[1, 2, 0, 3, 4, 2, 0, 5]));
    let report = VariantReport::of(&results);
    let c = &report.comparisons[0];
    assert_eq!((c.tasks, c.better, c.worse, c.same), (8, 6, 2, 0));
    assert_eq!(c.test, PairedTest::SignFlipExact);
    assert!((c.p_value - 0.109375).abs() < 1e-12, "{c:?}");
    assert_eq!(c.verdict, VariantVerdict::NoClearDifference);
    let codex = &report.variants[1];
    assert_eq!((codex.k, codex.tasks, codex.runs), (Some(5), 8, 40));
    // Only t07 passed all five runs: pass^5 is 1/8; the baseline's t08 (which codex did
    // not run) passed all of them: 1/9.
    assert_eq!(codex.pass_hat_k, Some(0.125));
    assert_eq!(report.variants[0].pass_hat_k, Some(1.0 / 9.0));
    let lines = render_variants(&report.variants, &report.comparisons);
    assert_eq!(
        lines[2],
        "  codex: 17/40 runs passed (42.5%, 95% interval 29%–58%), pass^5 12.5%"
    );
    assert!(
        lines[3].ends_with("sign-flip exact p = 0.1094, Holm-adjusted 0.1094: no clear difference"),
        "{}",
        lines[3]
    );
}

#[test]
fn more_than_twenty_differing_tasks_are_sampled() {
    let mut results = runs("e", "claude", "claude", 2, &[2; 25]);
    results.extend(runs("e", "codex", "claude", 2, &[1; 25]));
    let c = &VariantReport::of(&results).comparisons[0];
    assert_eq!(c.test, PairedTest::SignFlipSampled);
    // No draw reaches all 25 halves of the same sign: 1 / 10,001.
    assert_eq!(c.p_value, 1.0 / 10_001.0);
    assert_eq!(c.verdict, VariantVerdict::Worse);
    assert_eq!(c.test.label(), "sign-flip (10000 draws)");
}

#[test]
fn a_variants_figures_are_means_over_the_runs_that_report_them() {
    let mut first = run("e", "t1", "codex", "claude", true);
    first.agent_token_usage = Some(TokenUsage::new(1000, 200, Some(5000)));
    first.agent_turns = Some(4);
    first.duration_ms = 1000.0;
    first.tool_errors = 2;
    first.tool_tokens = Some(ToolTokens {
        tokenizer: "o200k_base".into(),
        servers: BTreeMap::from([
            ("a".to_owned(), server_tokens(300)),
            ("b".to_owned(), server_tokens(100)),
        ]),
    });
    let finding = CallFinding {
        call: 1,
        server: "a".into(),
        tool: "t".into(),
        violations: vec![],
    };
    first.schema_violations = SchemaChecks {
        arguments: vec![finding.clone()],
        results: vec![finding],
        ..SchemaChecks::default()
    };
    let decoy = DecoyCall {
        server: "a".into(),
        tool: "delete_everything".into(),
        position: 2,
    };
    first.decoy_calls = vec![decoy.clone(), decoy];
    let mut second = run("e", "t2", "codex", "claude", false);
    second.duration_ms = 3000.0;
    second.agent_turns = Some(6);
    let figures = &VariantReport::of(&[first, second]).variants[0];
    assert_eq!((figures.runs, figures.passed, figures.tasks), (2, 1, 2));
    assert_eq!(figures.pass_rate, 0.5);
    assert_eq!((figures.k, figures.pass_hat_k), (None, None));
    // Input plus output, not the API's total; only the run that reported usage.
    assert_eq!(figures.mean_agent_tokens, Some(1200.0));
    assert_eq!(figures.mean_tool_definition_tokens, Some(400.0));
    assert_eq!(figures.mean_turns, Some(5.0));
    assert_eq!(figures.mean_duration_ms, 2000.0);
    assert_eq!(
        (
            figures.tool_errors,
            figures.schema_findings,
            figures.decoy_calls
        ),
        (2, 2, 2)
    );
    // The baseline has no results: figures, but nothing to compare with.
    assert!(!figures.baseline, "codex is not the baseline, claude is");
    assert!(
        VariantReport::of(&[run("e", "t", "codex", "claude", true)])
            .comparisons
            .is_empty()
    );
}

fn server_tokens(definition_tokens: usize) -> ServerTokens {
    ServerTokens {
        definition_tokens,
        ..ServerTokens::default()
    }
}

#[test]
fn only_tasks_both_variants_ran_are_compared() {
    let mut results = paired("e", "codex", &outcomes(0, 0, 3));
    results.push(run("e", "only-baseline", "claude", "claude", true));
    results.push(run("e", "only-codex", "codex", "claude", false));
    let report = VariantReport::of(&results);
    let c = &report.comparisons[0];
    assert_eq!((c.tasks, c.same, c.p_value), (3, 3, 1.0));
    assert!(c.reason.starts_with("no task differs;"), "{}", c.reason);
    let none = VariantReport::of(&[
        run("e", "a", "claude", "claude", true),
        run("e", "b", "codex", "claude", true),
    ]);
    let c = &none.comparisons[0];
    assert_eq!((c.tasks, c.verdict), (0, VariantVerdict::NoClearDifference));
    assert_eq!(c.reason, "no task ran in both codex and claude");
}

#[test]
fn the_matrix_has_a_row_per_task_and_the_baseline_first() {
    let mut results = runs("e", "no-server", "claude", 2, &[0, 1]);
    results.extend(runs("e", "claude", "claude", 2, &[2]));
    let [matrix] = &variant_matrices(&results)[..] else {
        panic!()
    };
    assert_eq!(matrix.variants, ["claude", "no-server"]);
    type Cell<'a> = Option<(usize, usize, &'a str)>;
    let cells: Vec<(&str, Vec<Cell>)> = (matrix.rows.iter())
        .map(|row| {
            let cells = (row.cells.iter())
                .map(|c| c.as_ref().map(|c| (c.passed, c.runs, c.anchor.as_str())))
                .collect();
            (row.task.as_str(), cells)
        })
        .collect();
    assert_eq!(
        cells,
        [
            (
                "t00",
                vec![
                    Some((2, 2, "e::t00@claude@1")),
                    Some((0, 2, "e::t00@no-server@1"))
                ]
            ),
            ("t01", vec![None, Some((1, 2, "e::t01@no-server@1"))]),
        ]
    );
    assert_eq!(
        matrix.rows[0].cells[1].as_ref().unwrap().test_name,
        "e::t00@no-server"
    );
}

#[test]
fn the_summary_carries_variants_and_comparisons_in_camel_case() {
    let summary = Summary::of(&paired("e", "codex", &outcomes(1, 3, 4)));
    let json = serde_json::to_value(&summary).unwrap();
    let variant = &json["variants"][1];
    for key in [
        "eval",
        "name",
        "baseline",
        "tasks",
        "runs",
        "passed",
        "passRate",
        "interval",
        "meanDurationMs",
        "toolErrors",
        "schemaFindings",
        "decoyCalls",
    ] {
        assert!(variant.get(key).is_some(), "{key} in {variant}");
    }
    assert_eq!(variant["name"], "codex");
    let comparison = &json["comparisons"][0];
    for key in [
        "eval",
        "variant",
        "baseline",
        "tasks",
        "better",
        "worse",
        "same",
        "difference",
        "test",
        "pValue",
        "adjustedPValue",
        "verdict",
        "reason",
    ] {
        assert!(comparison.get(key).is_some(), "{key} in {comparison}");
    }
    assert_eq!(comparison["test"], "mcnemar-exact");
    assert_eq!(comparison["verdict"], "no clear difference");
    let back: Summary = serde_json::from_value(json).unwrap();
    assert_eq!(back, summary);
    assert!(
        summary
            .render()
            .contains("  variants of e (baseline: claude):\n    claude: 7/8 runs passed"),
        "{}",
        summary.render()
    );
}
