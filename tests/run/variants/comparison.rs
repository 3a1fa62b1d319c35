//! The comparison of variants with the baseline tells a worse variant from noise.

use crate::support;

use serde_json::Value;
use support::cli::text;
use support::eval_run::AGENT;

use super::{MCP, check, result, write};

/// 30 tasks in which the script agent picks the demo server's tool whose description
/// matches (`pick demo /REGEX/`), in four variants: the baseline; `reworded`, whose
/// description of `lookup_user` no task's regex matches (clearly worse: every task fails);
/// `same`, which rewrites a tool no task picks (no difference); `partly`, whose description
/// only the 4 tasks with an anchored regex miss (fewer than 6 tasks differ: no exact test can
/// tell).
fn stats_eval_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let eval = "kind: Eval\nmetadata: {name: stats}\nconfig:\n  agent: {type: file, path: agent.yaml}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  parallel: true\n  taskSets:\n    - glob: tasks/*.yaml\n      \
         assertions:\n        toolsUsed: [{server: demo, tool: lookup_user}]\n  variants:\n    \
         - name: baseline\n    \
         - name: reworded\n      toolOverrides: {demo: {lookup_user: {description: Looks up a person}}}\n    \
         - name: same\n      toolOverrides: {demo: {echo: {description: Says it again}}}\n    \
         - name: partly\n      toolOverrides: {demo: {lookup_user: {description: Finds a user by id or email}}}\n";
    write(dir.path(), "eval.yaml", eval);
    write(dir.path(), "agent.yaml", AGENT);
    write(dir.path(), "mcp.yaml", MCP);
    std::fs::create_dir(dir.path().join("tasks")).unwrap();
    for i in 0..30 {
        let regex = if i < 4 {
            "^Finds a user by id$"
        } else {
            "^Finds a user"
        };
        let name = format!("find-{i:02}");
        let prompt = format!("pick demo /{regex}/ {{\"id\": \"{}\"}}", i % 3 + 1);
        let task = format!(
            "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: {name}}}\nspec:\n  \
             prompt:\n    inline: '{prompt}'\n"
        );
        write(dir.path(), &format!("tasks/{name}.yaml"), &task);
    }
    dir
}

#[test]
fn the_comparison_tells_a_worse_variant_from_noise() {
    let dir = stats_eval_dir();
    let out = check(dir.path(), &["--test-threads", "2"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out.stdout));
    let passed = |stem: &str| result(dir.path(), stem)["taskPassed"] == true;
    assert!(passed("stats__find-00@baseline") && passed("stats__find-29@same"));
    assert!(!passed("stats__find-10@reworded"));
    assert!(!passed("stats__find-00@partly") && passed("stats__find-04@partly"));

    let report_file = dir.path().join("report.json");
    let merged = support::cli::mcpeval(
        &[
            "report",
            dir.path().join("out").to_str().unwrap(),
            "--output",
            report_file.to_str().unwrap(),
        ],
        None,
    );
    assert!(!text(&merged.stdout).is_empty() || !text(&merged.stderr).is_empty());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_file).unwrap()).unwrap();
    let summary = &report["summary"];
    let variant = |name: &str| {
        (summary["variants"].as_array().unwrap().iter())
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("no variant {name}: {:#}", summary["variants"]))
            .clone()
    };
    assert_eq!(variant("baseline")["baseline"], true);
    assert_eq!(variant("baseline")["passed"], 30);
    assert_eq!(variant("reworded")["passed"], 0);
    assert_eq!(variant("partly")["passed"], 26);
    let comparison = |name: &str| {
        (summary["comparisons"].as_array().unwrap().iter())
            .find(|c| c["variant"] == name)
            .unwrap_or_else(|| panic!("no comparison {name}: {:#}", summary["comparisons"]))
            .clone()
    };
    let reworded = comparison("reworded");
    assert_eq!(reworded["baseline"], "baseline");
    assert_eq!(reworded["tasks"], 30);
    assert_eq!(reworded["worse"], 30);
    assert_eq!(reworded["better"], 0);
    assert_eq!(reworded["verdict"], "worse", "{reworded:#}");
    // McNemar exact, 30 discordant pairs all one way: 2 × 0.5^30; Holm over 3 variants
    // multiplies the smallest p by 3.
    let p = reworded["pValue"].as_f64().unwrap();
    assert!((p - 2.0 * 0.5f64.powi(30)).abs() < 1e-15, "{p}");
    let adjusted = reworded["adjustedPValue"].as_f64().unwrap();
    assert!(
        (adjusted - 3.0 * 2.0 * 0.5f64.powi(30)).abs() < 1e-15,
        "{adjusted}"
    );

    let same = comparison("same");
    assert_eq!(
        (same["same"].as_u64(), same["worse"].as_u64()),
        (Some(30), Some(0))
    );
    assert_eq!(same["verdict"], "no clear difference", "{same:#}");
    let partly = comparison("partly");
    assert_eq!(partly["worse"], 4);
    assert_eq!(partly["verdict"], "no clear difference", "{partly:#}");
    assert!(
        partly["reason"].as_str().unwrap_or_default().contains('6'),
        "{partly:#}"
    );
    // The summary printed after the run says the same.
    assert!(stderr.contains("reworded"), "{stderr}");
}
