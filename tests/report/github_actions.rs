//! Under GitHub Actions (`GITHUB_ACTIONS=true`) a run writes a workflow command per failed
//! test and appends its summary to `$GITHUB_STEP_SUMMARY`; `mcpeval report` and `diff`
//! append their markdown there too. Outside Actions nothing of the kind.

use std::path::Path;
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn mcpeval(args: &[&str], actions: bool, summary: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    // The binary is no test process of a nextest run that runs this test: without this, under
    // nextest it would leave the job summary to `mcpeval report`.
    command
        .args(args)
        .current_dir(root())
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID");
    command.env("GITHUB_STEP_SUMMARY", summary);
    command.env("GITHUB_WORKSPACE", root());
    if actions {
        command.env("GITHUB_ACTIONS", "true");
    } else {
        command.env_remove("GITHUB_ACTIONS");
    }
    command.output().unwrap()
}

fn check_failing(actions: bool) -> (tempfile::TempDir, Output) {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("out").display().to_string();
    let summary = dir.path().join("summary.md");
    let args = [
        "check",
        "--output",
        &output,
        "tests/fixtures/failing/eval.yaml",
    ];
    let out = mcpeval(&args, actions, &summary);
    assert_eq!(out.status.code(), Some(101));
    (dir, out)
}

#[test]
fn a_run_in_actions_annotates_each_failed_test_and_writes_the_job_summary() {
    let (dir, out) = check_failing(true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in [
        // An assertion's failure: the line of its key in the eval file.
        "\n::error file=tests/fixtures/failing/eval.yaml,line=15,title=failing%3A%3Atools-used::toolsUsed (config.taskSets[0]): expected a tool call matching each of: demo/add, demo/~^lookup; actual none of them; tool calls made: demo/echo\n",
        "\n::error file=tests/fixtures/failing/eval.yaml,line=51,title=failing%3A%3Acall-order::callOrder (config.taskSets[9]): ",
        // A failed agent: the prompt's line of the task file; a failed step: the step's.
        "\n::error file=tests/fixtures/failing/tasks/agent-crashes.yaml,line=5,title=failing%3A%3Aagent-crashes::agent: the agent failed with exit code 3\n",
        "\n::error file=tests/fixtures/failing/tasks/verify-fails.yaml,line=9,title=failing%3A%3Averify-fails::verify[0] ",
        // Anything else: the task file's first line; a message's newline escaped.
        "\n::error file=tests/fixtures/failing/tasks/broken.yaml,line=1,title=failing%3A%3Abroken::the task file does not load:%0Atests/fixtures/failing/tasks/broken.yaml:5:12: ",
    ] {
        assert!(stderr.contains(line), "lacks {line:?}:\n{stderr}");
    }
    assert_eq!(stderr.matches("\n::error ").count(), 15, "{stderr}");
    assert!(!stderr.contains("failing%3A%3Apasses"), "{stderr}");
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        summary.starts_with(
            "<!-- mcpeval -->\n### mcpeval: 1 of 16 task runs passed (6.2%)\n\n15 of 16 tests failed · 0 flaky"
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "| ❌ `failing::agent-crashes` | 0 of 1 | agent: the agent failed with exit code 3 |"
        ),
        "{summary}"
    );
}

#[test]
fn outside_actions_a_run_writes_no_workflow_command() {
    let (dir, out) = check_failing(false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("::error"), "{stderr}");
    assert!(!dir.path().join("summary.md").exists());
}

#[test]
fn report_and_diff_append_their_markdown_to_the_job_summary_in_actions_only() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let base = root()
        .join("tests/fixtures/results/base")
        .display()
        .to_string();
    let report = dir.path().join("report.json").display().to_string();
    let report_args = ["report", &base, "--output", &report];
    let diff_args = ["diff", &base, &base];
    for args in [&report_args[..], &diff_args[..]] {
        mcpeval(args, false, &summary);
        assert!(!summary.exists(), "{args:?} outside Actions");
    }
    let out = mcpeval(&report_args, true, &summary);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("mcpeval summary: "),
        "stdout keeps its format"
    );
    mcpeval(&diff_args, true, &summary);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("<!-- mcpeval -->\n### mcpeval: 3 of 4 task runs passed (75.0%)\n"),
        "{written}"
    );
    assert!(
        written.contains("\n<!-- mcpeval -->\n### mcpeval: 75% → 75% pass rate (+0.0 points)\n"),
        "{written}"
    );
}
