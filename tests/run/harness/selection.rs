//! Which tasks a run selects and how it lists them: names, filters, `--exact`, list formats
//! and JSON events for IDE test runners.

use super::{FAILING, check, stdout};

#[test]
fn list_prints_only_name_lines() {
    let out = check(
        "evals/demo/eval.yaml",
        &["--list", "--format", "terse"],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "demo::arithmetic: test\ndemo::lookup-user: test\n"
    );
    let out = check("evals/demo/eval.yaml", &["--list"], &[]);
    let lines: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    assert_eq!(
        lines[..2],
        ["demo::arithmetic: test", "demo::lookup-user: test"]
    );
}

#[test]
fn filters_exact_and_skip_select_tasks() {
    let out = check(FAILING, &["--list", "--format", "terse", "tools"], &[]);
    assert_eq!(
        stdout(&out),
        "failing::tools-used: test\nfailing::tools-not-used: test\n"
    );
    let out = check(
        FAILING,
        &[
            "--list",
            "--format",
            "terse",
            "--exact",
            "failing::call-order",
        ],
        &[],
    );
    assert_eq!(stdout(&out), "failing::call-order: test\n");
    let out = check(
        FAILING,
        &[
            "--list",
            "--format",
            "terse",
            "failing::",
            "--skip",
            "calls",
            "--skip=-used",
        ],
        &[],
    );
    let names = stdout(&out);
    assert!(
        !names.contains("calls") && !names.contains("-used:"),
        "{names}"
    );
    assert!(names.contains("failing::call-order: test"), "{names}");
    // A single selected task runs alone and decides the exit code.
    let out = check(FAILING, &["--list", "--ignored"], &[]);
    assert_eq!(stdout(&out).trim(), "", "no task is ignored");
    let out = check(FAILING, &["--exact", "failing::passes"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("1 passed; 0 failed"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn exact_with_a_name_that_is_no_task_says_so_and_fails() {
    for name in ["failing::no-such-task", "no-such-eval::passes", "failing"] {
        let out = check(FAILING, &["--exact", name], &[]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stdout(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("no task is named `{name}` (--exact)")),
            "{name}: {stderr}"
        );
        assert!(!stdout(&out).contains("running"), "{}", stdout(&out));
    }
}

#[test]
fn under_cargo_test_an_exact_name_of_another_binary_is_only_a_note() {
    // `cargo test -- NAME --exact` hands NAME to every test binary: a harness whose evals
    // lack the task must not fail the run; nextest (NEXTEST set) only asks for listed names.
    let args = libtest_mimic::Arguments::from_iter(["evals", "--exact", "failing::no-such-task"]);
    let code = mcpeval::Harness::discover("tests/fixtures/failing")
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .with_args(args)
        .run();
    let expected = if std::env::var_os("NEXTEST").is_some() {
        std::process::ExitCode::from(2)
    } else {
        std::process::ExitCode::SUCCESS
    };
    assert_eq!(code, expected);
}

#[test]
fn exact_names_a_broken_task_file_by_its_path() {
    let out = check(
        FAILING,
        &["--list", "--format", "terse", "--exact", "failing::broken"],
        &[],
    );
    assert_eq!(stdout(&out), "failing::broken: test\n");
}

#[test]
fn json_events_for_ide_test_runners() {
    let out = check(
        FAILING,
        &[
            "-Z",
            "unstable-options",
            "--format",
            "json",
            "--exact",
            "failing::min-tool-calls",
        ],
        &[],
    );
    let events: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    let failed = events
        .iter()
        .find(|e| e["type"] == "test" && e["event"] == "failed")
        .expect("a failed event");
    assert_eq!(failed["name"], "failing::min-tool-calls");
    assert!(
        failed["stdout"]
            .as_str()
            .unwrap_or("")
            .contains("at least 3 tool calls"),
        "{failed}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "suite" && e["event"] == "failed")
    );
}
