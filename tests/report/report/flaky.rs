//! Flaky tasks (runs both passed and failed) in the summary, `diff` and JUnit.

use std::path::Path;

use crate::support::result_template::run_result;

use super::{mcpeval, text};

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
