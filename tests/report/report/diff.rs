//! `mcpeval diff` of the shards against a base: regressions, fixes, removed and flaky tasks.

use super::{fixture, mcpeval, merged, text};

#[test]
fn diff_shows_regressions_fixes_removed_and_flaky_tasks() {
    let base = fixture("base").display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let (report, _, _) = merged(dir.path());
    let current = report.display().to_string();

    let out = mcpeval(&["diff", &base, &current]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "pass rate: 75% -> 60% (-15.0 points)\ntokens (estimated): 480 -> 600 (+120)\n\
         regressed: k8s::create-pod (100% -> 0%)\n\
         \x20 assertion toolsUsed held in 1 of 1 runs -> 0 of 1\n\
         fixed: k8s::delete-pod (0% -> 100%)\n\
         \x20 assertion toolsUsed held in 0 of 1 runs -> 1 of 1\n\
         removed: k8s::old-task (was 100%)\n\
         flaky: docs::search – -> 1 of 2 runs passed (50%, 95% Wilson interval 9%–91%); new\n\
         unchanged: 1 test\n"
    );

    let out = mcpeval(&[
        "diff",
        &base,
        &current,
        "--format",
        "markdown",
        "--fail-on-regression",
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a regression with --fail-on-regression"
    );
    let markdown = text(&out.stdout);
    assert!(
        markdown.starts_with("<!-- mcpeval -->\n### mcpeval: 75% → 60% pass rate (-15.0 points)\n"),
        "{markdown}"
    );
    assert!(
        markdown
            .contains("| change | task | before | after | what changed |\n|---|---|---|---|---|\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ❌ regressed | `k8s::create-pod` | 100% | 0% |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ✅ fixed | `k8s::delete-pod` | 0% | 100% |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| `docs::search` | – → 1 of 2 | 50% (9%–91%) | new |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| 🗑️ removed | `k8s::old-task` | 100% | – |"),
        "{markdown}"
    );

    // No regression: exit 0 even with the flag.
    let out = mcpeval(&["diff", &current, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).ends_with("no task changed its verdict\n"));
}
