//! Parameter coverage as a team reads it in CI: tests/fixtures/parameter-coverage runs through the
//! script agent under two variants (a server with an enum, a boolean and a nested object; a
//! call that errs; a faulted call), and `mcpeval report` of the output, of two shards merged,
//! and `mcpeval diff` give the figures computed by hand below and gate on them.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::cli::{mcpeval, text};

const EVAL: &str = "tests/fixtures/parameter-coverage/eval.yaml";

/// `mcpeval check` of the eval's tests `filter` selects into `output`.
fn check(output: &Path, filter: &[&str]) {
    let mut args = vec!["check", EVAL, "--"];
    args.extend(filter);
    let out = mcpeval(&args, Some(output));
    assert!(out.status.success(), "{}", text(&out.stdout));
}

/// `mcpeval report` of `dirs` (writing `report.json` into the first) with `flags`: its
/// exit code, its stdout and stderr, and the report's `summary`.
fn report(dirs: &[&Path], flags: &[&str]) -> (Option<i32>, String, Value) {
    let json = dirs[0].join("report.json");
    let mut args = vec![
        "report".to_owned(),
        "--output".into(),
        json.display().to_string(),
    ];
    args.extend(dirs.iter().map(|dir| dir.display().to_string()));
    args.extend(flags.iter().map(|flag| (*flag).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = mcpeval(&args, None);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (out.status.code(), all, report["summary"].clone())
}

#[test]
fn properties_exercised_asserted_and_never_with_a_gate_on_the_share() {
    let output = tempfile::tempdir().unwrap();
    check(output.path(), &[]);
    let result = support::cli::result_file(output.path(), "params__rolling@reworded");
    // The tools the run was judged against: the variant's rewritten description.
    let tools = &result["mcpServers"][0]["tools"];
    assert_eq!(tools[0]["name"], "deploy");
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["strategy"]["description"],
        "How to roll out: rolling, recreate or canary"
    );
    assert_eq!(
        result["assertedArguments"]["deploy"]["deploy"][0],
        "strategy"
    );

    let (code, all, summary) = report(&[output.path()], &["--min-parameter-coverage", "0.5"]);
    assert_eq!(code, Some(0), "{all}");
    // deploy: strategy, dryRun, spec, spec.replicas, spec.zone; status: name. Exercised by
    // the rolling runs' succeeded calls: strategy, spec, spec.replicas (the too-many calls
    // erred, the status calls were faulted). Asserted: strategy.
    let deploy = &summary["parameterCoverage"]["deploy"];
    assert_eq!(
        (
            &deploy["properties"],
            &deploy["exercised"],
            &deploy["asserted"]
        ),
        (&Value::from(6), &Value::from(3), &Value::from(1))
    );
    let tool = &deploy["tools"]["deploy"];
    // Two runs of too-many (one per variant) erred of the four deploy calls.
    assert_eq!(
        (&tool["calls"], &tool["errors"]),
        (&Value::from(4), &Value::from(2))
    );
    assert_eq!(tool["errorShare"], 0.5);
    let strategy = &tool["properties"]["strategy"];
    // rolling@plain and rolling@reworded: two tests exercised and asserted it.
    assert_eq!(
        (&strategy["exercised"], &strategy["asserted"]),
        (&Value::from(2), &Value::from(2))
    );
    assert_eq!(strategy["seen"], serde_json::json!(["rolling"]));
    assert_eq!(tool["properties"]["spec.zone"]["exercised"], 0);
    assert_eq!(deploy["tools"]["status"]["calls"], 0);
    // Surface coverage: deploy is covered by the rolling tests only, status by none.
    assert_eq!(summary["coverage"]["deploy"]["tools"]["deploy"], 2);
    assert!(
        all.contains(
            "parameter coverage of deploy: 3 of 6 properties exercised (50.0%), 1 asserted"
        ) && all.contains("strategy asserted (never recreate, canary), 2 of 4 calls erred"),
        "{all}"
    );

    // The tool sets judged against: deploy's as written, then the reworded variant's.
    let sets: Vec<(&str, Option<&str>)> = (summary["mcpServers"].as_array().unwrap().iter())
        .map(|set| (set["name"].as_str().unwrap(), set["variant"].as_str()))
        .collect();
    assert_eq!(sets, [("deploy", None), ("deploy", Some("reworded"))]);

    // The HTML report: a matrix of tools by properties, and the enums' values.
    let page = std::fs::read_to_string(output.path().join("report.html")).unwrap();
    for shown in [
        "<caption>Parameter coverage of deploy: 3 of 6 properties exercised (50.0%), 1 asserted</caption>",
        "<td class=\"param asserted\" title=\"deploy strategy: exercised by 2 tests, asserted by 2\">asserted</td>",
        "<td class=\"param never\" title=\"deploy spec.zone: exercised by 0 tests, asserted by 0\">never</td>",
        "<li>deploy.strategy: rolling, never recreate, canary</li>",
    ] {
        assert!(page.contains(shown), "the page lacks {shown}");
    }

    // Above the share: exit 1 with a line naming the server.
    let (code, all, _) = report(&[output.path()], &["--min-parameter-coverage", "0.6"]);
    assert_eq!(code, Some(1), "{all}");
    assert!(
        all.contains("mcpeval: parameter coverage of deploy is 50.0%, below the minimum 60.0%"),
        "{all}"
    );

    // Two shards merged give the same figures as the one run.
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    check(first.path(), &["rolling"]);
    check(second.path(), &["--skip", "rolling"]);
    let (code, all, merged) = report(&[first.path(), second.path()], &[]);
    assert_eq!(code, Some(0), "{all}");
    assert_eq!(merged["parameterCoverage"], summary["parameterCoverage"]);

    // `diff` names what a change gained: the shard that only erred and was faulted used
    // nothing; the whole run used deploy and three of its properties.
    let (code, all, _) = report(&[second.path()], &[]);
    assert_eq!(code, Some(0), "{all}");
    let nothing = second.path().join("report.json");
    let whole = output.path().join("report.json");
    let out = mcpeval(
        &["diff", nothing.to_str().unwrap(), whole.to_str().unwrap()],
        None,
    );
    let all = text(&out.stdout);
    assert!(
        all.contains("coverage 0% -> 50%; parameter coverage 0% -> 50%; now used: deploy.spec, deploy.spec.replicas, deploy.strategy, tool deploy"),
        "{all}"
    );
    let out = mcpeval(
        &["diff", whole.to_str().unwrap(), nothing.to_str().unwrap()],
        None,
    );
    assert!(
        text(&out.stdout).contains(
            "no longer used: deploy.spec, deploy.spec.replicas, deploy.strategy, tool deploy"
        ),
        "{}",
        text(&out.stdout)
    );

    // `diff --min-parameter-coverage` gates the current run, with a budget line.
    let base = first.path().join("report.json");
    let current = output.path().join("report.json");
    let out = mcpeval(
        &[
            "diff",
            base.to_str().unwrap(),
            current.to_str().unwrap(),
            "--min-parameter-coverage",
            "0.9",
        ],
        None,
    );
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains("budget --min-parameter-coverage 0.9: exceeded: parameter coverage of deploy is 50.0%, below the minimum 90.0%"),
        "{all}"
    );
}
