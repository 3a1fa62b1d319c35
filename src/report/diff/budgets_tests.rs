use super::*;
use crate::report::results::{CallHistory, CallRecord};
use crate::report::summary::{
    ServerCoverage, ServerTokenSummary, Summary, ToolSchemaCounts, ToolTokenSummary,
};

fn with_definitions(tokens: usize) -> Report {
    let server = ServerTokenSummary {
        definition_tokens: tokens,
        ..ServerTokenSummary::default()
    };
    let summary = Summary {
        tool_tokens: Some(ToolTokenSummary {
            tokenizer: "o200k_base".into(),
            servers: [("demo".to_owned(), server)].into(),
            biggest_results: Vec::new(),
        }),
        ..Summary::default()
    };
    Report {
        schema_version: Default::default(),
        summary,
        results: Vec::new(),
    }
}

fn with_results(tokens: &[usize]) -> Report {
    let call = |t: usize| CallRecord {
        result_tokens: Some(t),
        ..CallRecord::succeeded("demo", "echo")
    };
    let result = TaskResult {
        call_history: CallHistory {
            tool_calls: tokens.iter().map(|&t| call(t)).collect(),
            ..CallHistory::default()
        },
        ..TaskResult::default()
    };
    Report {
        schema_version: Default::default(),
        summary: Summary::default(),
        results: vec![result],
    }
}

#[test]
fn definition_growth_over_the_budget_fails_and_under_it_holds() {
    let budgets = Budgets {
        max_definition_growth: Some(10.0),
        ..Budgets::default()
    };
    let over = check_budgets(&with_definitions(800), &with_definitions(944), &budgets);
    assert!(!over[0].passed);
    assert_eq!(
        over[0].describe("->"),
        "budget --max-definition-growth 10%: exceeded: demo 800 -> 944 tokens (+18.0%)"
    );
    let under = check_budgets(&with_definitions(800), &with_definitions(880), &budgets);
    assert!(under[0].passed, "exactly 10% is within");
    assert_eq!(
        under[0].describe("->"),
        "budget --max-definition-growth 10%: held (1 server compared)"
    );
}

#[test]
fn result_growth_compares_each_tools_median() {
    assert_eq!(
        median_result_tokens(&with_results(&[10, 1000, 30, 20]).results)["demo/echo"],
        25.0
    );
    let budgets = Budgets {
        max_result_growth: Some(20.0),
        ..Budgets::default()
    };
    let base = with_results(&[100, 100, 5000]);
    let over = check_budgets(&base, &with_results(&[130, 125, 90]), &budgets);
    assert_eq!(
        over[0].describe("->"),
        "budget --max-result-growth 20%: exceeded: demo/echo median 100 -> 125 tokens per result (+25.0%)"
    );
    let under = check_budgets(&base, &with_results(&[110, 115, 90]), &budgets);
    assert!(under[0].passed, "{:?}", under[0]);
}

fn with_findings(bad_results: usize, definitions: &[&str]) -> Report {
    let mut summary = Summary::default();
    if bad_results > 0 {
        let counts = ToolSchemaCounts {
            calls: 4,
            bad_arguments: 0,
            bad_results,
        };
        summary.schema.tools = [("demo/lookup".to_owned(), counts)].into();
    }
    summary.schema.definitions = definitions.iter().map(|d| d.to_string()).collect();
    Report {
        schema_version: Default::default(),
        summary,
        results: Vec::new(),
    }
}

#[test]
fn only_findings_the_base_lacked_fail_the_schema_budget() {
    let budgets = Budgets {
        fail_on_new_schema_findings: true,
        ..Budgets::default()
    };
    let base = with_findings(1, &["demo/a: no inputSchema"]);
    let same_kind = check_budgets(
        &base,
        &with_findings(3, &["demo/a: no inputSchema"]),
        &budgets,
    );
    assert!(same_kind[0].passed, "{:?}", same_kind[0]);
    let new = check_budgets(
        &with_findings(0, &[]),
        &with_findings(2, &["demo/b: name has a space"]),
        &budgets,
    );
    assert_eq!(
        new[0].over,
        [
            "invalid tool definition demo/b: name has a space",
            "demo/lookup: 2 of 4 results broke its outputSchema"
        ]
    );
}

#[test]
fn coverage_below_the_minimum_or_none_fails() {
    let mut report = with_findings(0, &[]);
    let budgets = Budgets {
        min_coverage: Some(0.8),
        ..Budgets::default()
    };
    let none = check_budgets(&report, &report, &budgets);
    assert_eq!(
        none[0].over,
        ["no server advertised anything in these results"]
    );
    report.summary.coverage = [(
        "demo".to_owned(),
        ServerCoverage {
            coverage: 0.5,
            ..Default::default()
        },
    )]
    .into();
    let below = check_budgets(&report, &report, &budgets);
    assert_eq!(
        below[0].describe("->"),
        "budget --min-coverage 0.8: exceeded: coverage of demo is 50.0%, below the minimum 80.0%"
    );
    report.summary.coverage.get_mut("demo").unwrap().coverage = 0.9;
    assert!(check_budgets(&report, &report, &budgets)[0].passed);
}
