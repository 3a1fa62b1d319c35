//! How rules apply and are checked: a rule that never matched, task-set rules, a
//! `probability` rule and its seed, bad rules as load errors, and `afterFault`.

use crate::support;

use std::path::Path;

use serde_json::Value;
use support::cli::text;

use super::{ADD, calls, check, eval_dir, injected, result, task};

/// `mcpeval validate` of the eval in `dir`: whether it passed, and all it printed.
fn validate(dir: &Path) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("validate")
        .arg(dir.join("eval.yaml"))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    (out.status.success(), all)
}

#[test]
fn a_rule_that_never_matches_is_noted_and_a_task_set_rule_reaches_every_task() {
    let set = "        - {tool: no_such_tool, every: true, toolError: never}\n        \
               - {server: demo, tool: echo, call: 2, toolError: second echo fails}\n";
    let echo = "call demo echo {\"text\": \"hi\"}";
    let tasks = [
        ("one", task("one", &[echo, echo], "")),
        ("two", task("two", &[echo, echo, echo], "")),
    ];
    let dir = eval_dir(set, "", &tasks);
    let out = check(dir.path(), None, &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    for name in ["one", "two"] {
        let r = result(dir.path(), name);
        let faults = r["faults"].as_array().unwrap();
        assert_eq!(faults[0]["rule"], "config.taskSets[0].faults[0]");
        assert_eq!(faults[0]["matched"], 0, "never matched: {faults:?}");
        assert_eq!(faults[1]["injected"], 1);
        let c = calls(&r);
        assert_eq!(injected(&c[1]), Some("toolError"));
        assert_eq!(c[1]["injected"]["rule"], "config.taskSets[0].faults[1]");
    }
    let stdout = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        stdout.contains("config.taskSets[0].faults[0]") && stdout.contains("never matched"),
        "a rule that never matched is said: {stdout}"
    );
}

#[test]
fn a_probability_rule_is_reproduced_by_its_seed() {
    let echo = "call demo echo {\"text\": \"hi\"}";
    let lines = vec![echo; 24];
    let faults = "    - {tool: echo, probability: 0.5, toolError: flaky}\n";
    let tasks = [("coin", task("coin", &lines, faults))];
    let dir = eval_dir("", "", &tasks);
    let pattern = |seed: &str| -> (Vec<bool>, Value) {
        let out = check(dir.path(), Some(seed), &[]);
        assert!(out.status.success(), "{}", text(&out.stdout));
        let r = result(dir.path(), "coin");
        let hits = calls(&r).iter().map(|c| injected(c).is_some()).collect();
        (hits, r["faultSeed"].clone())
    };
    let (first, seed) = pattern("7");
    assert_eq!(seed, 7);
    assert_eq!(first.len(), 24);
    let hits = first.iter().filter(|hit| **hit).count();
    assert!((3..=21).contains(&hits), "about half: {first:?}");
    assert_eq!(pattern("7").0, first, "the same seed, the same faults");
    assert_ne!(pattern("8").0, first, "another seed, other faults");
    let out = check(dir.path(), Some("seven"), &[]);
    assert!(!out.status.success());
    assert!(
        text(&out.stdout).contains("MCPEVAL_SEED=\"seven\""),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_rules_are_load_errors_at_their_key_paths() {
    let set = "        - {tool: add, call: 0, toolError: x}\n        \
               - {tool: add, method: tools/call, every: true, timeout: true}\n        \
               - {server: demo2, tool: add, every: true, timeout: true}\n        \
               - {method: resources/reed, every: true, timeout: true}\n        \
               - {method: tools/list, every: true, toolError: x}\n        \
               - {tool: add, every: true, delay: soon}\n        \
               - {tool: add, probability: 1.5, timeout: true}\n        \
               - {tool: add, every: true}\n        \
               - {tool: add, every: true, timeout: true, malformed: true}\n        \
               - {tool: add, every: true, replace: {content: 3}}\n";
    let dir = eval_dir(set, "", &[("t", task("t", &[ADD], ""))]);
    let (ok, all) = validate(dir.path());
    assert!(!ok, "{all}");
    let f = "config.taskSets[0].faults";
    for expected in [
        format!("{f}[0].call"),
        "expected a call number from 1".to_owned(),
        format!("{f}[1]"),
        "both `tool` and `method`".to_owned(),
        format!("{f}[2].server"),
        "did you mean demo?".to_owned(),
        format!("{f}[3].method"),
        "did you mean resources/read?".to_owned(),
        format!("{f}[4].toolError"),
        format!("{f}[5].delay"),
        format!("{f}[6].probability"),
        format!("{f}[7]"),
        "no fault".to_owned(),
        "expected only one fault".to_owned(),
        format!("{f}[9].replace"),
    ] {
        assert!(all.contains(&expected), "missing {expected:?} in:\n{all}");
    }
    // The task file's own rules are checked when it loads: that task fails, the others run.
    let bad = task(
        "bad",
        &[ADD],
        "    - {tool: add, calls: [], timeout: true}\n",
    );
    let tasks = [("bad", bad), ("good", task("good", &[ADD], ""))];
    let dir = eval_dir("", "", &tasks);
    let out = check(dir.path(), None, &[]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("spec.faults[0].calls: expected at least one call number"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("test faulty::good ") && l.ends_with("... ok")),
        "{stdout}"
    );

    // A misspelled key is named, with what was meant.
    let set = "        - {tool: add, every: true, toolErorr: x}\n";
    let dir = eval_dir(set, "", &[("t", task("t", &[ADD], ""))]);
    let (ok, all) = validate(dir.path());
    assert!(
        !ok && all.contains("config.taskSets[0].faults[0].toolErorr")
            && all.contains("did you mean toolError"),
        "{all}"
    );
}

#[test]
fn after_fault_reads_the_recovery_and_max_tool_errors_leaves_injected_errors_out() {
    let assertions = "        maxToolErrors: 0\n        afterFault:\n          retried: true\n          \
                      toolsUsed: [{server: demo, tool: echo}]\n";
    let fault = "    - {tool: add, call: 1, toolError: \"try again\"}\n";
    let echo = "call demo echo {\"text\": \"done\"}";
    let tasks = [
        ("recovers", task("recovers", &[ADD, ADD, echo], fault)),
        (
            "gives-up",
            task(
                "gives-up",
                &[ADD, echo],
                &format!("{fault}    - {{tool: nope, every: true, toolError: x}}\n"),
            ),
        ),
        ("unfaulted", task("unfaulted", &[ADD, echo], "")),
    ];
    let dir = eval_dir("", assertions, &tasks);
    let out = check(dir.path(), None, &[]);
    let stdout = text(&out.stdout);
    let line = |test: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("test {test} ")))
            .unwrap_or("")
    };
    assert!(line("faulty::recovers").ends_with("... ok"), "{stdout}");
    let gives_up = support::cli::failure_of(&stdout, "faulty::gives-up");
    assert!(gives_up.contains("afterFault"), "{gives_up}");
    assert!(
        gives_up.contains("faults injected on purpose: 1 (MCPEVAL_SEED=0 injects the same again)"),
        "{gives_up}"
    );
    assert!(gives_up.contains("injected toolError"), "{gives_up}");
    assert!(
        gives_up.contains("  spec.faults[1]: toolError on tool `nope`, never matched a call"),
        "{gives_up}"
    );
    let unfaulted = support::cli::failure_of(&stdout, "faulty::unfaulted");
    assert!(unfaulted.contains("no fault was injected"), "{unfaulted}");
    let r = result(dir.path(), "recovers");
    assert_eq!(r["assertionResults"]["afterFault"]["passed"], true);
    assert_eq!(r["assertionResults"]["maxToolErrors"]["passed"], true);
}
