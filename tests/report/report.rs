//! `mcpeval report` (merge, summary, JUnit) and `mcpeval diff` on prepared result sets, and
//! the summary the harness prints at the end of a run.

use crate::support::result_template;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use result_template::run_result;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results")
        .join(path)
}

fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn merged(dir: &Path) -> (PathBuf, PathBuf, Output) {
    let report = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let shard1 = fixture("current-shard-1").display().to_string();
    let shard2 = fixture("current-shard-2").display().to_string();
    let out = mcpeval(&[
        "report",
        &shard1,
        &shard2,
        "--output",
        &report.display().to_string(),
        "--junit",
        &junit.display().to_string(),
    ]);
    (report, junit, out)
}

#[test]
fn report_merges_shards_into_one_report_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _, out) = merged(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.starts_with("mcpeval summary: 3 of 5 task runs passed (60.0%); 2 failed\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  eval docs: 1/2 (50.0%)\n  eval k8s: 2/3 (66.7%)\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  difficulty hard: 1/1 (100.0%)\n  difficulty medium: 0/1 (0.0%)\n"),
        "{shown}"
    );
    assert!(shown.contains("  difficulty unset: 1/2 (50.0%)"), "{shown}");
    assert!(shown.contains("  assertions: 8/10 held (80.0%)"), "{shown}");
    assert!(
        shown.contains("  tokens (estimated): 500 prompt, 100 output"),
        "{shown}"
    );
    assert!(shown.contains("  slowest: k8s::delete-pod 3.5s, k8s::create-pod 3.0s, k8s::list-pods 0.9s, docs::search#2 0.7s"), "{shown}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // The fixtures were written before results files carried a version: they read as 1.
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["results"][0]["schemaVersion"], 1);
    assert_eq!(report["summary"]["runs"], 5);
    assert_eq!(report["summary"]["passRate"], 0.6);
    let names: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["testName"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "docs::search",
            "docs::search",
            "k8s::create-pod",
            "k8s::delete-pod",
            "k8s::list-pods"
        ]
    );
}

#[test]
fn report_format_json_prints_the_merged_report_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = mcpeval(&[
        "report",
        &fixture("current-shard-1").display().to_string(),
        &fixture("current-shard-2").display().to_string(),
        "--output",
        &report.display().to_string(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(printed, written);
    assert_eq!(printed["schemaVersion"], 1);
    assert_eq!(printed["summary"]["runs"], 5);
    assert!(
        text(&out.stderr).contains("  report: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn junit_has_one_testcase_per_test_with_times_and_failure_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (_, junit, out) = merged(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    // docs::search ran twice (1 of 2 passed, no minPassRate: it failed): one test case.
    assert_eq!(
        (root.attribute("tests"), root.attribute("failures")),
        (Some("4"), Some("2"))
    );
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(
        suites
            .iter()
            .map(|s| s.attribute("name").unwrap())
            .collect::<Vec<_>>(),
        ["docs", "k8s"]
    );
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 4);
    for case in &cases {
        let time: f64 = case.attribute("time").unwrap().parse().unwrap();
        assert!(time > 0.0, "{case:?}");
    }
    let create = cases
        .iter()
        .find(|c| c.attribute("name") == Some("create-pod"))
        .unwrap();
    assert_eq!(create.attribute("classname"), Some("k8s"));
    assert_eq!(create.attribute("time"), Some("3.000"));
    let failure = create
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("toolsUsed (config.taskSets[0])")
    );
    assert_eq!(
        failure.text().unwrap(),
        "1 assertion failed:\n  toolsUsed (config.taskSets[0]):\n      expected: a tool call <pods_list> & more"
    );
    let search = cases
        .iter()
        .find(|c| c.attribute("name") == Some("search"))
        .unwrap();
    let failure = search.children().find(|n| n.is_element()).unwrap();
    assert_eq!(
        failure.attribute("message"),
        Some("1 of 2 runs passed (50%, 95% Wilson interval 9%–91%); minPassRate 1")
    );
    let passed = cases
        .iter()
        .find(|c| c.attribute("name") == Some("list-pods"))
        .unwrap();
    assert!(passed.children().all(|n| !n.has_tag_name("failure")));
}

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

#[test]
fn report_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpeval(&["report", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("no results files in"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(dir.path().join("broken.json"), "{\"taskName\": 3}").unwrap();
    let out = mcpeval(&["report", &dir.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("broken.json is not a mcpeval results file or report"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_harness_prints_the_summary_at_the_end_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpeval(&[
        "check",
        "--output",
        &dir.path().display().to_string(),
        "tests/fixtures/failing/eval.yaml",
    ]);
    assert_eq!(out.status.code(), Some(101));
    let stderr = text(&out.stderr);
    // The task file that does not load counts as a failed task, with a results file.
    assert!(
        stderr.contains("mcpeval summary: 1 of 16 task runs passed (6.2%); 15 failed"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "  results: {}",
            dir.path().join("results").display()
        )),
        "{stderr}"
    );
    assert!(dir.path().join("results/failing__passes.json").is_file());
}

/// Writes the results of `runs` runs of `test` (`eval::task`) into `dir/results`, one file per
/// run as the harness names them, run k passing when `passed[k]` is true.
fn write_runs(dir: &Path, test: &str, passed: &[bool]) {
    let (eval, task) = test.split_once("::").unwrap();
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    for (index, &ok) in passed.iter().enumerate() {
        let mut result = run_result(test, ok, None);
        let file = if passed.len() == 1 {
            format!("{eval}__{task}.json")
        } else {
            result["runIndex"] = index.into();
            result["totalRuns"] = passed.len().into();
            format!("{eval}__{task}.run{}.json", index + 1)
        };
        std::fs::write(results.join(file), result.to_string()).unwrap();
    }
}

/// Base: every test passes. Current: `steady` still passes, `broken` fails every run (a
/// regression), `shaky` passes 2 of 3 runs and `fresh` (new) 1 of 3 (both flaky), and `added`
/// is new and passes.
fn flaky_result_sets() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (base, current) = (dir.path().join("base"), dir.path().join("current"));
    for test in ["e::steady", "e::broken", "e::shaky"] {
        write_runs(&base, test, &[true, true, true]);
    }
    write_runs(&current, "e::steady", &[true, true, true]);
    write_runs(&current, "e::broken", &[false, false, false]);
    write_runs(&current, "e::shaky", &[true, false, true]);
    write_runs(&current, "e::fresh", &[false, true, false]);
    write_runs(&current, "e::added", &[true]);
    let (base, current) = (base.display().to_string(), current.display().to_string());
    (dir, base, current)
}

#[test]
fn report_marks_tasks_whose_runs_both_passed_and_failed_as_flaky() {
    let (dir, _, current) = flaky_result_sets();
    let report = dir.path().join("report.json");
    let out = mcpeval(&[
        "report",
        &current,
        "--output",
        &report.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.starts_with(
            "mcpeval summary: 7 of 13 task runs passed (53.8%); 6 failed\n\
             \x20 flaky: e::fresh: 1 of 3 runs passed (33%, 95% Wilson interval 6%–79%)\n\
             \x20 flaky: e::shaky: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%)\n\
             \x20 eval e: 7/13 (53.8%)\n"
        ),
        "{shown}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let flaky = report["summary"]["flaky"].as_array().unwrap();
    assert_eq!(flaky.len(), 2, "{flaky:?}");
    let shaky = &flaky[1];
    assert_eq!(
        (&shaky["testName"], &shaky["passed"], &shaky["runs"]),
        (&"e::shaky".into(), &2.into(), &3.into())
    );
    assert!((shaky["passRate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    let interval: Vec<f64> = shaky["passRateInterval"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        (interval[0] - 0.2077).abs() < 1e-3 && (interval[1] - 0.9385).abs() < 1e-3,
        "{interval:?}"
    );
}

#[test]
fn diff_lists_flaky_tasks_apart_from_regressions_with_pass_rate_and_interval() {
    let (_dir, base, current) = flaky_result_sets();
    let out = mcpeval(&["diff", &base, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(1), "e::broken regressed");
    assert_eq!(
        text(&out.stdout),
        "pass rate: 100% -> 54% (-46.2 points)\ntokens (estimated): 1080 -> 1560 (+480)\n\
         regressed: e::broken (100% -> 0%)\n\
         \x20 3 of 3 -> 0 of 3 runs passed (one-sided Fisher p = 0.0500)\n\
         new: e::added (100%)\n\
         flaky: e::fresh – -> 1 of 3 runs passed (33%, 95% Wilson interval 6%–79%); new\n\
         flaky: e::shaky 3 of 3 -> 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%); \
         lower, not clearly (one-sided Fisher p = 0.5000)\n\
         unchanged: 1 test\n"
    );

    let out = mcpeval(&["diff", &base, &current, "--format", "markdown"]);
    let markdown = text(&out.stdout);
    assert!(
        markdown.contains("1 regressed · 0 fixed · 2 flaky · 1 new · 0 removed"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ❌ regressed | `e::broken` | 100% | 0% |"),
        "{markdown}"
    );
    assert!(
        !markdown.contains("| ❌ regressed | `e::shaky`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| 🆕 new | `e::added` | – | 100% |"),
        "{markdown}"
    );
    assert!(!markdown.contains("| 🆕 new | `e::fresh`"), "{markdown}");
    assert!(
        markdown.contains(
            "**Flaky** (runs both passed and failed; not counted as regressions or fixes):\n\n\
             | task | runs passed | pass rate (95% Wilson interval) | pass rate moved |\n|---|---|---|---|\n\
             | `e::fresh` | – → 1 of 3 | 33% (6%–79%) | new |\n\
             | `e::shaky` | 3 of 3 → 2 of 3 | 67% (21%–94%) | lower, not clearly (one-sided Fisher p = 0.5000) |\n"
        ),
        "{markdown}"
    );

    // Flaky alone is no regression: with the broken task fixed, --fail-on-regression passes.
    let (dir, base, current) = flaky_result_sets();
    write_runs(
        &dir.path().join("current"),
        "e::broken",
        &[true, true, true],
    );
    let out = mcpeval(&["diff", &base, &current, "--fail-on-regression"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        !text(&out.stdout).contains("regressed"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn junit_has_one_testcase_per_test_with_failed_runs_of_a_passing_test_as_flaky_failures() {
    let (dir, _, current) = flaky_result_sets();
    // The tasks run 3 times with minPassRate 0.6: 2 of 3 passes, 1 of 3 fails.
    for entry in std::fs::read_dir(Path::new(&current).join("results")).unwrap() {
        let path = entry.unwrap().path();
        let mut result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if result.get("totalRuns").is_some() {
            result["minPassRate"] = 0.6.into();
            std::fs::write(&path, result.to_string()).unwrap();
        }
    }
    let junit = dir.path().join("junit.xml");
    let out = mcpeval(&["report", &current, "--junit", &junit.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    // steady, broken (0 of 3), shaky (2 of 3), fresh (1 of 3), added: as cargo test counts.
    assert_eq!(
        (root.attribute("tests"), root.attribute("failures")),
        (Some("5"), Some("2")),
        "{xml}"
    );
    let case = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("no testcase {name}:\n{xml}"))
    };
    let children = |name: &str| -> Vec<(String, String)> {
        (case(name).children())
            .filter(|n| n.is_element())
            .map(|n| {
                let tag = n.tag_name().name().to_owned();
                (tag, n.attribute("message").unwrap_or_default().to_owned())
            })
            .collect()
    };
    assert_eq!(children("steady"), []);
    assert_eq!(children("added"), []);
    let shaky = children("shaky");
    assert_eq!(shaky.len(), 1, "{shaky:?}");
    assert_eq!(shaky[0].0, "flakyFailure");
    assert!(shaky[0].1.starts_with("run 2 of 3 failed"), "{shaky:?}");
    assert_eq!(
        children("fresh"),
        [(
            "failure".to_owned(),
            "1 of 3 runs passed (33%, 95% Wilson interval 6%–79%); minPassRate 0.6".to_owned()
        )]
    );
    let fresh = case("fresh").children().find(|n| n.is_element()).unwrap();
    let text = fresh.text().unwrap();
    assert!(
        text.contains("===== run 1 of 3 =====") && text.contains("===== run 3 of 3 ====="),
        "{text}"
    );
    assert_eq!(
        children("broken")[0].1,
        "0 of 3 runs passed (0%, 95% Wilson interval 0%–56%); minPassRate 0.6"
    );
}

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
