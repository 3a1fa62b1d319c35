//! Failure messages: each failing task's, an eval file that does not load, a long run's
//! progress notes, and the record command a missing cassette names.

use std::path::Path;

use super::{FAILING, check, failure_sections, results_of, stdout};

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
