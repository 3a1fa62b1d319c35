//! Variants of merged directories compared with their baseline, and reports without any.

use std::path::Path;

use crate::support::result_template::run_result;

use super::{mcpeval, merged, text};

/// Writes one run of each task `t<i>` of eval `e` in `variant` (baseline `claude`) into
/// `dir/results`, task i passing when `passed[i]` is true.
fn write_variant(dir: &Path, variant: &str, passed: &[bool]) {
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    for (i, &ok) in passed.iter().enumerate() {
        let mut result = run_result(&format!("e::t{i}@{variant}"), ok, None);
        result["variant"] = variant.into();
        result["variantDetails"] = serde_json::json!({"baseline": "claude"});
        let file = results.join(format!("e__t{i}@{variant}.json"));
        std::fs::write(file, result.to_string()).unwrap();
    }
}

#[test]
fn report_compares_the_variants_of_merged_directories_with_their_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let (claude, codex) = (dir.path().join("claude"), dir.path().join("codex"));
    write_variant(&claude, "claude", &[true; 10]);
    let mut codex_passed = [false; 10];
    codex_passed[..2].fill(true);
    write_variant(&codex, "codex", &codex_passed);
    let report = dir.path().join("report.json");
    let html = dir.path().join("report.html");
    let out = mcpeval(&[
        "report",
        &claude.display().to_string(),
        &codex.display().to_string(),
        "--output",
        &report.display().to_string(),
        "--html",
        &html.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    // 8 tasks only the baseline passed: 2 / 2^8 = 0.0078125.
    assert!(
        shown.contains(
            "  variants of e (baseline: claude):\n    \
             claude: 10/10 runs passed (100.0%, 95% interval 72%–100%)\n    \
             codex: 2/10 runs passed (20.0%, 95% interval 6%–51%)\n    \
             codex vs claude (baseline): 0 better, 8 worse, 2 same; McNemar exact p = 0.0078, \
             Holm-adjusted 0.0078: worse\n"
        ),
        "{shown}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let summary = &report["summary"];
    assert_eq!(summary["variants"].as_array().map(Vec::len), Some(2));
    let comparison = &summary["comparisons"][0];
    assert_eq!(comparison["variant"], "codex");
    assert_eq!(comparison["baseline"], "claude");
    assert_eq!(comparison["test"], "mcnemar-exact");
    assert_eq!(comparison["pValue"], 0.0078125);
    assert_eq!(comparison["verdict"], "worse");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(r#"<section id="variants""#),
        "no Variants section"
    );
    assert!(page.contains(r#"<span class="badge worse">worse</span>"#));
    assert!(page.contains(r##"<a href="#e::t9@codex">0/1</a>"##));
}

#[test]
fn reports_without_variants_have_no_variants_or_comparisons() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _, out) = merged(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("variants"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(report["summary"].get("variants").is_none());
    assert!(report["summary"].get("comparisons").is_none());
}
