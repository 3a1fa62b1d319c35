//! The harness as a user meets it: the `mcpeval check` door (the same trials as
//! `cargo test --test evals`), its names, filters, list formats, JSON events, exit codes and
//! failure messages, and no process left behind.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use support::peers::nextest_available;
use support::results_schema::violations;

fn check(eval: &str, libtest: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .arg("check")
        .arg(eval)
        .arg("--")
        .args(libtest)
        .envs(env.iter().copied())
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("harness-runs"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The failure message of each failed test, from libtest's `---- name ----` sections.
fn failure_sections(text: &str) -> BTreeMap<String, String> {
    let mut sections = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" ----"))
        {
            if let Some((name, body)) = current.take() {
                sections.insert(name, body);
            }
            current = Some((name.trim().to_owned(), String::new()));
        } else if line == "failures:" {
            if let Some((name, body)) = current.take() {
                sections.insert(name, body);
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

const FAILING: &str = "tests/fixtures/failing/eval.yaml";

#[test]
fn each_failing_task_fails_with_the_right_message_and_the_others_still_run() {
    let marker = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cleanup-marker.txt");
    let _ = std::fs::remove_file(&marker);
    let out = check(
        FAILING,
        &["--test-threads", "4"],
        &[("MCPEVAL_FIXTURE_MARKER", &marker.display().to_string())],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(
        text.contains("test result: FAILED. 1 passed; 15 failed;"),
        "{text}"
    );
    assert!(
        text.contains("test failing::passes ... ok")
            || text.contains("failing::passes") && !text.contains("---- failing::passes ----"),
        "{text}"
    );
    let sections = failure_sections(&text);
    let expect: &[(&str, &[&str])] = &[
        (
            "tools-used",
            &[
                "toolsUsed (config.taskSets[0])",
                "demo/add, demo/~^lookup",
                "tool calls made: demo/echo",
            ],
        ),
        (
            "require-any",
            &[
                "requireAny (config.taskSets[1])",
                "at least one of: demo/add, demo/~user",
            ],
        ),
        (
            "tools-not-used",
            &[
                "toolsNotUsed",
                "tool demo/delete_user (call #1, matches demo/~^delete_)",
            ],
        ),
        (
            "min-tool-calls",
            &["minToolCalls", "at least 3 tool calls", "1 tool calls"],
        ),
        (
            "max-tool-calls",
            &[
                "maxToolCalls",
                "at most 2 tool calls",
                "3 tool calls",
                "#3 tool demo/flaky → is_error \"the service is unavailable\"",
            ],
        ),
        (
            "resources-read",
            &[
                "resourcesRead",
                "demo/demo://users/1",
                "resource reads made: demo/demo://readme",
            ],
        ),
        (
            "resources-not-read",
            &["resourcesNotRead", "resource demo/demo://users/2 (call #1"],
        ),
        (
            "prompts-used",
            &["promptsUsed", "demo/summarize", "no prompt gets at all"],
        ),
        (
            "prompts-not-used",
            &[
                "promptsNotUsed",
                "prompt demo/summarize (call #1, matches demo/*)",
            ],
        ),
        (
            "call-order",
            &[
                "callOrder",
                "matched 1 of 2",
                "tool demo/lookup_user never came after call #2",
            ],
        ),
        (
            "no-duplicate-calls",
            &[
                "noDuplicateCalls",
                "demo/add {\"a\":1,\"b\":2} called 2 times (calls #1, #2)",
            ],
        ),
        (
            "verify-fails",
            &[
                "verify step failed: verify[0] inline script: exit code 7",
                "checking the answer: all good",
                "the pod is not running",
            ],
        ),
        (
            "agent-crashes",
            &[
                "agent failed: the agent failed with exit code 3",
                "#1 tool demo/echo {\"text\":\"before the crash\"} → ok",
            ],
        ),
        (
            "agent-hangs",
            &[
                "timed out",
                "in the agent phase after 3s",
                "#1 tool demo/echo {\"text\":\"then I hang\"} → ok",
            ],
        ),
        (
            "broken",
            &[
                "the task file does not load",
                "tasks/broken.yaml:5:12: spec.prompt.inlin: unknown field; did you mean inline?",
            ],
        ),
    ];
    for (task, words) in expect {
        let name = format!("failing::{task}");
        let Some(message) = sections.get(&name) else {
            panic!("no failure section for {name}:\n{text}")
        };
        for word in *words {
            assert!(
                message.contains(word),
                "{name}: message lacks {word:?}:\n{message}"
            );
        }
        if *task != "broken" {
            assert!(
                message.contains("call trace:"),
                "{name}: no trace:\n{message}"
            );
        }
    }
    assert_eq!(sections.len(), expect.len(), "{:?}", sections.keys());
    // Cleanup ran after the hanging agent's timeout.
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap_or_default().trim(),
        "cleaned"
    );
}

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

#[test]
fn an_eval_file_that_does_not_load_stops_the_run_up_front() {
    let out = check(
        "tests/fixtures/invalid/unknown-key-suggestion.yaml",
        &[],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("toolPatern: unknown field; did you mean toolPattern?"),
        "{stderr}"
    );
    assert!(stderr.contains("no task ran"), "{stderr}");
}

/// Processes (not zombies) whose environment holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Ok(environ) = std::fs::read(path.join("environ")) else {
            continue;
        };
        if !environ
            .split(|b| *b == 0)
            .any(|var| var == marker.as_bytes())
        {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'));
        if !zombie {
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{}: {}",
                entry.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

#[test]
fn no_process_is_left_after_a_hanging_agent_and_servers_that_ignore_sigterm() {
    let marker = format!("MCPEVAL_LEAK_MARKER=leak-{}", std::process::id());
    let (key, value) = marker.split_once('=').unwrap();
    let out = check("tests/fixtures/leak/eval.yaml", &[], &[(key, value)]);
    assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("in the agent phase"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("#1 tool stubborn/echo"),
        "{}",
        stdout(&out)
    );
    // Killed groups may take a moment to be reaped.
    let mut left = processes_with(&marker);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = processes_with(&marker);
    }
    assert!(left.is_empty(), "left behind: {left:#?}");
}

/// `cargo nextest` on this package's `fixture` test binary running `fixture` (a directory
/// under tests/fixtures): one process per task.
fn nextest(fixture: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    nextest_into(&format!("nextest-{fixture}"), fixture, args, env)
}

/// [`nextest`] with the output directory `<CARGO_TARGET_TMPDIR>/<output>`.
fn nextest_into(output: &str, fixture: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    crate::support::cargo::command()
        .args([
            "nextest",
            "run",
            "--test",
            "fixture",
            "--no-fail-fast",
            "--color",
            "never",
        ])
        .args(args)
        .envs(env.iter().copied())
        .env("MCPEVAL_FIXTURE", format!("tests/fixtures/{fixture}"))
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(output),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// The test names of the task table of an HTML report, in its order.
fn page_tasks(page: &Path) -> Vec<String> {
    let html = std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    let table = &html[html.find(r#"id="task-table""#).unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    table
        .split(r#"<tr data-id=""#)
        .skip(1)
        .map(|row| row[..row.find('"').unwrap()].to_owned())
        .collect()
}

#[test]
fn under_nextest_the_tests_of_one_run_make_one_html_report() {
    if !nextest_available() {
        return;
    }
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nextest-page");
    let _ = std::fs::remove_dir_all(&output);
    let page = output.join("report.html");
    // Four at a time, so that tests end while another renders the page.
    let out = nextest_into(
        "nextest-page",
        "failing",
        &[
            "-j",
            "4",
            "-E",
            "test(/::(passes|tools-used|verify-fails|call-order|require-any|tools-not-used|max-tool-calls|min-tool-calls)$/)",
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(100),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Each test is a process of its own; the page holds the eight of the run.
    assert_eq!(
        page_tasks(&page),
        [
            "failing::call-order",
            "failing::max-tool-calls",
            "failing::min-tool-calls",
            "failing::passes",
            "failing::require-any",
            "failing::tools-not-used",
            "failing::tools-used",
            "failing::verify-fails",
        ]
    );
    // The next run's page holds its own test, not the results files left by the one before.
    let out = nextest_into("nextest-page", "failing", &["-E", "test(/::passes$/)"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(page_tasks(&page), ["failing::passes"]);
    let files = std::fs::read_dir(output.join("results")).unwrap().flatten();
    assert_eq!(files.count(), 8, "the first run's results files stay");
}

#[test]
fn nextest_runs_each_task_in_its_own_process_with_names_filters_and_exit_code() {
    if !nextest_available() {
        return;
    }
    let out = nextest(
        "failing",
        &["-E", "test(/::(passes|tools-used|broken|agent-crashes)$/)"],
        &[],
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(100), "{text}");
    assert!(
        text.contains("PASS") && text.contains("failing::passes"),
        "{text}"
    );
    for name in [
        "failing::tools-used",
        "failing::broken",
        "failing::agent-crashes",
    ] {
        assert!(
            text.lines().any(|l| l.contains("FAIL") && l.contains(name)),
            "{name} did not fail:\n{text}"
        );
    }
    assert!(text.contains("4 tests run: 1 passed, 3 failed"), "{text}");
    assert!(text.contains("toolsUsed (config.taskSets[0])"), "{text}");
    assert!(
        text.contains("spec.prompt.inlin: unknown field; did you mean inline?"),
        "{text}"
    );

    let listed = crate::support::cargo::command()
        .args([
            "nextest",
            "list",
            "--test",
            "fixture",
            "--message-format",
            "oneline",
            "--color",
            "never",
        ])
        .env("MCPEVAL_FIXTURE", "tests/fixtures/failing")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(
        listed.lines().filter(|l| l.contains("failing::")).count(),
        16,
        "{listed}"
    );
}

fn results_of(dir: &Path, file: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("results").join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn results_files_of_passing_and_failing_tasks_match_the_schema() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", FAILING, "--", "--exact"])
        .arg("failing::passes")
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    for task in ["tools-used", "verify-fails", "agent-crashes"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args(["check", FAILING, "--", "--exact"])
            .arg(format!("failing::{task}"))
            .env("MCPEVAL_OUTPUT_DIR", output.path())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(101), "{}", stdout(&out));
    }
    for file in [
        "failing__passes.json",
        "failing__tools-used.json",
        "failing__verify-fails.json",
        "failing__agent-crashes.json",
    ] {
        let result = results_of(output.path(), file);
        let errors = violations(&result);
        assert!(errors.is_empty(), "{file}: {errors:#?}\n{result:#}");
    }
    let passed = results_of(output.path(), "failing__passes.json");
    assert_eq!(passed["taskPassed"], true);
    assert_eq!(passed["testName"], "failing::passes");
    assert_eq!(passed["callHistory"]["toolCalls"][0]["name"], "add");
    assert_eq!(
        passed["callHistory"]["toolCalls"][0]["arguments"],
        serde_json::json!({"a": 20, "b": 22})
    );
    assert_eq!(passed["taskOutput"], "42");
    let failed = results_of(output.path(), "failing__tools-used.json");
    assert_eq!(failed["taskPassed"], false);
    assert_eq!(failed["allAssertionsPassed"], false);
    assert_eq!(failed["assertionResults"]["toolsUsed"]["passed"], false);
    assert!(
        failed["taskError"]
            .as_str()
            .unwrap()
            .starts_with("toolsUsed (config.taskSets[0]): expected"),
        "{failed:#}"
    );
    let verify = results_of(output.path(), "failing__verify-fails.json");
    assert_eq!(verify["verifyOutput"]["success"], false);
    assert!(
        verify["verifyOutput"]["steps"][0]["output"]
            .as_str()
            .unwrap()
            .contains("the pod is not running")
    );
    let crash = results_of(output.path(), "failing__agent-crashes.json");
    assert_eq!(crash["agentExecutionError"], true);
    // Files are complete JSON, and nothing half-written is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(output.path().join("results"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn repeated_runs_pass_on_min_pass_rate_with_a_wilson_interval_and_are_marked_flaky() {
    let counters = tempfile::tempdir().unwrap();
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/runs/eval.yaml",
            "--",
            "--test-threads",
            "1",
        ])
        .env("MCPEVAL_COUNTER_DIR", counters.path())
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = stdout(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(101), "{text}");
    assert!(text.contains("test runs::lenient ... ok"), "{text}");
    assert!(
        stderr.contains(
            "note: runs::lenient: flaky: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%); minPassRate 0.6"
        ),
        "{stderr}"
    );
    let sections = failure_sections(&text);
    let strict = &sections["runs::strict"];
    assert!(
        strict.starts_with(
            "flaky: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%); minPassRate 0.8"
        ),
        "{strict}"
    );
    assert!(strict.contains("===== run 2 of 3 failed ====="), "{strict}");
    assert!(strict.contains("run 2 fails on purpose"), "{strict}");
    assert!(
        !strict.contains("run 1 of 3 failed") && !strict.contains("run 3 of 3 failed"),
        "{strict}"
    );
    // Every run keeps its own results.
    for run in 1..=3 {
        let result = results_of(output.path(), &format!("runs__strict.run{run}.json"));
        assert_eq!(result["runIndex"], run - 1);
        assert_eq!(result["totalRuns"], 3);
        assert_eq!(result["taskPassed"], run != 2);
    }
    // The summary at the end of the run and the merged report mark both tasks flaky.
    for task in ["lenient", "strict"] {
        let line = format!(
            "  flaky: runs::{task}: 2 of 3 runs passed (67%, 95% Wilson interval 21%–94%)\n"
        );
        assert!(stderr.contains(&line), "{stderr}");
    }
    let report = output.path().join("report.json");
    let merged = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["report", &output.path().display().to_string()])
        .output()
        .unwrap();
    assert_eq!(merged.status.code(), Some(0), "{merged:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let flaky: Vec<(&str, u64, u64)> = report["summary"]["flaky"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["testName"].as_str().unwrap(),
                f["passed"].as_u64().unwrap(),
                f["runs"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(flaky, [("runs::lenient", 2, 3), ("runs::strict", 2, 3)]);
}

/// `(task, start, end)` from the lines the locking fixture's tasks log.
fn intervals(log: &Path) -> Vec<(String, f64, f64)> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut starts = BTreeMap::new();
    let mut spans = Vec::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let time: f64 = parts[2].parse().unwrap();
        match parts[1] {
            "start" => {
                starts.insert(parts[0].to_owned(), time);
            }
            _ => spans.push((parts[0].to_owned(), starts[parts[0]], time)),
        }
    }
    spans.sort_by(|a, b| a.0.cmp(&b.0));
    spans
}

fn assert_serial_tasks_run_alone(spans: &[(String, f64, f64)]) {
    assert_eq!(spans.len(), 4, "{spans:?}");
    let overlap = |a: &(String, f64, f64), b: &(String, f64, f64)| a.1 < b.2 && b.1 < a.2;
    for a in spans.iter().filter(|s| s.0.starts_with("serial")) {
        for b in spans.iter().filter(|b| b.0 != a.0) {
            assert!(!overlap(a, b), "{} overlaps {}: {spans:?}", a.0, b.0);
        }
    }
    let parallel: Vec<_> = spans
        .iter()
        .filter(|s| s.0.starts_with("parallel"))
        .collect();
    assert!(
        overlap(parallel[0], parallel[1]),
        "the parallel tasks did not run together: {spans:?}"
    );
}

#[test]
fn serial_tasks_never_overlap_other_tasks_under_test_threads() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lock.log");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/locking/eval.yaml",
            "--",
            "--test-threads",
            "4",
        ])
        .env("MCPEVAL_LOCK_LOG", &log)
        .env("MCPEVAL_OUTPUT_DIR", dir.path().join("out"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_serial_tasks_run_alone(&intervals(&log));
}

#[test]
fn serial_tasks_never_overlap_other_tasks_under_nextest() {
    if !nextest_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lock.log");
    let log_text = log.display().to_string();
    let out = nextest("locking", &["-j", "4"], &[("MCPEVAL_LOCK_LOG", &log_text)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_serial_tasks_run_alone(&intervals(&log));
}

#[test]
fn a_long_run_says_it_is_still_running_and_in_which_phase() {
    let out = check(
        FAILING,
        &["--exact", "failing::agent-hangs"],
        &[("MCPEVAL_PROGRESS_SECS", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("test failing::agent-hangs has been running for 1 s, in the agent phase"),
        "{stderr}"
    );
}

#[test]
fn results_files_of_tests_that_are_gone_or_of_runs_no_longer_made_are_removed() {
    let output = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stale-results");
    let _ = std::fs::remove_dir_all(&output);
    let results = output.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let plant = |file: &str, eval: &str, test: &str| {
        let json = format!(r#"{{"evalName": "{eval}", "testName": "{test}"}}"#);
        std::fs::write(results.join(file), json).unwrap();
    };
    plant("failing__gone.json", "failing", "failing::gone");
    plant("other__kept.json", "other", "other::kept");
    plant("failing__passes.run2.json", "failing", "failing::passes");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/failing/eval.yaml",
            "--",
            "failing::passes",
        ])
        .env("MCPEVAL_OUTPUT_DIR", &output)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: removed the results files of tests that are gone: failing::gone"),
        "{stderr}"
    );
    let mut left: Vec<String> = std::fs::read_dir(&results)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // The task renamed away is gone, another eval's results stay, a run no longer made is
    // gone, and the test that ran has its one file.
    assert_eq!(left, ["failing__passes.json", "other__kept.json"]);
}

#[test]
fn a_cassette_message_names_the_test_binary_that_reruns_the_one_test() {
    // In a test binary (this one, `run`), the record command of a missing cassette
    // runs this binary's one test, not every test binary of the package.
    let output = tempfile::tempdir().unwrap();
    let args = libtest_mimic::Arguments::from_iter(["run", "--exact", "fileagent::ask"]);
    let code = mcpeval::Harness::discover("tests/fixtures/replay-file-agent")
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .env("CI", "true")
        .env("MCPEVAL_RECORD_MODE", "none")
        .output_dir(output.path())
        .with_args(args)
        .run();
    assert_eq!(code, std::process::ExitCode::from(101));
    let result = results_of(output.path(), "fileagent__ask.json");
    let text = result.to_string();
    assert!(
        text.contains("MCPEVAL_RECORD_MODE=once cargo test --test run -- fileagent::ask --exact"),
        "{text}"
    );
}
