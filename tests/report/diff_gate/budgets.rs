//! Budgets: tool-definition and result growth, new schema findings, coverage.

use super::{budget_pair, diff_with_budgets, mcpeval, text};

#[test]
fn budgets_under_their_limits_hold_with_a_line_each() {
    let (_dir, base, current) = budget_pair(1150, 120, false);
    let out = diff_with_budgets(&base, &current, "0.5", "text");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.ends_with(
            "budget --max-definition-growth 15%: held (1 server compared)\n\
             budget --max-result-growth 20%: held (1 tool compared)\n\
             budget --fail-on-new-schema-findings: held (no new finding)\n\
             budget --min-coverage 0.5: held (1 server compared)\n"
        ),
        "{shown}"
    );
}

#[test]
fn each_budget_over_its_limit_fails_the_gate_and_says_which() {
    let (_dir, base, current) = budget_pair(1180, 125, true);
    let out = diff_with_budgets(&base, &current, "0.8", "text");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let shown = text(&out.stdout);
    for line in [
        "budget --max-definition-growth 15%: exceeded: demo 1000 -> 1180 tokens (+18.0%)\n",
        "budget --max-result-growth 20%: exceeded: demo/echo median 100 -> 125 tokens per result (+25.0%)\n",
        "budget --fail-on-new-schema-findings: exceeded: demo/echo: 3 of 3 results broke its outputSchema\n",
        "budget --min-coverage 0.8: exceeded: coverage of demo is 50.0%, below the minimum 80.0%\n",
    ] {
        assert!(shown.contains(line), "lacks {line:?}:\n{shown}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&format!("mcpeval: {line}")), "{stderr}");
    }
    let out = diff_with_budgets(&base, &current, "0.8", "markdown");
    assert_eq!(out.status.code(), Some(1));
    let markdown = text(&out.stdout);
    assert!(
        markdown.contains("**Budgets**\n\n- ❌ budget --max-definition-growth 15%: exceeded: demo 1000 → 1180 tokens (+18.0%)\n"),
        "{markdown}"
    );
    // One budget alone fails too.
    let out = mcpeval(&["diff", &base, &current, "--max-definition-growth", "20"]);
    assert_eq!(out.status.code(), Some(0));
    let out = mcpeval(&["diff", &base, &current, "--max-definition-growth", "17.9"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_bad_budget_value_is_a_clear_argument_error() {
    let out = mcpeval(&["diff", "a", "b", "--max-result-growth=-5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("expected a percent of 0 or more (10 or 10% for 10%), not -5"),
        "{}",
        text(&out.stderr)
    );
}
