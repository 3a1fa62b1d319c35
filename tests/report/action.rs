//! The GitHub Action's shell steps (`action/run.sh`, called by `action.yml`), driven as the
//! runner drives them: the variables GitHub sets, a fake pull_request event, and a fake
//! GitHub API on localhost that serves artifacts (zips behind a redirect) and the pull
//! request's comments, and logs what it was asked. The built `mcpeval` is first on PATH.

use crate::support::fake_github;
use crate::support::fake_release;
use crate::support::result_template;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fake_github::{Artifact, FakeGithub, MARKER, TOKEN};
use result_template::run_result;
use serde_json::{Value, json};

/// A runner: its temp directory, the event, the output and summary files, a bin directory
/// first on PATH (for a fake `cargo`), and the fake API.
struct Runner {
    dir: tempfile::TempDir,
    github: FakeGithub,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl Runner {
    fn new() -> Self {
        let runner = Runner {
            dir: tempfile::tempdir().unwrap(),
            github: FakeGithub::start(),
        };
        runner.event(json!({"number": 7, "pull_request": {"number": 7,
            "base": {"ref": "main"}, "head": {"ref": "feature"}}}));
        std::fs::create_dir_all(runner.path("temp")).unwrap();
        std::fs::create_dir_all(runner.path("bin")).unwrap();
        runner
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn event(&self, event: Value) {
        std::fs::write(self.path("event.json"), event.to_string()).unwrap();
    }

    /// `$RUNNER_TEMP/mcpeval-action/<name>`.
    fn work(&self, name: &str) -> PathBuf {
        self.path("temp/mcpeval-action").join(name)
    }

    /// `action/run.sh ARGS` with the runner's variables and `inputs` (`INPUT_*`); checks
    /// that the token shows nowhere.
    fn script(&self, args: &[&str], inputs: &[(&str, &str)]) -> Output {
        let mcpeval_dir = Path::new(env!("CARGO_BIN_EXE_mcpeval")).parent().unwrap();
        let path = format!(
            "{}:{}:{}",
            self.path("bin").display(),
            mcpeval_dir.display(),
            std::env::var("PATH").unwrap()
        );
        let mut command = Command::new("bash");
        command
            .arg(root().join("action/run.sh"))
            .args(args)
            .env_clear()
            .env("PATH", path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env("GITHUB_EVENT_PATH", self.path("event.json"))
            .env("GITHUB_REPOSITORY", "acme/server")
            .env("GITHUB_API_URL", &self.github.url)
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_WORKSPACE", self.dir.path())
            .env("RUNNER_TEMP", self.path("temp"))
            .env("FAKE_CARGO_LOG", self.path("cargo.log"))
            .current_dir(self.dir.path());
        for (name, value) in inputs {
            command.env(format!("INPUT_{name}"), value);
        }
        let out = command.output().unwrap();
        for shown in [text(&out.stdout), text(&out.stderr), self.read("output")] {
            assert!(!shown.contains(TOKEN), "the token shows:\n{shown}");
        }
        out
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    /// Two shards as download-artifact leaves them: `e::a` passing or not, `e::b` passing.
    fn shards(&self, a_passes: bool) {
        write_result(&self.work("shards/mcpeval-shard-1-of-2"), "e::a", a_passes);
        write_result(&self.work("shards/mcpeval-shard-2-of-2"), "e::b", true);
        let out = self.script(&["merge"], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }

    /// Serves a report of `e::a` (passing or not) as artifact `id` of a run on `branch`.
    fn baseline(&self, id: u64, branch: &str, fork: bool, expired: bool, a_passes: bool) {
        let results = self.path(&format!("base-{id}"));
        write_result(&results, "e::a", a_passes);
        let report = results.join("report.json");
        let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
            .args(["report", &results.display().to_string(), "--output"])
            .arg(&report)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let zip = fake_release::zip_of(&[("report.json", &std::fs::read(&report).unwrap())]);
        self.github.with(|g| {
            g.artifacts.push(Artifact {
                id,
                name: "mcpeval-report".to_owned(),
                branch: branch.to_owned(),
                fork,
                expired,
                created_at: format!("2026-11-{:02}T10:00:00Z", 1 + id % 28),
                zip,
            })
        });
    }

    /// A fake `cargo` on PATH that logs its arguments and exits with `code`.
    fn fake_cargo(&self, code: i32) {
        let file = self.path("bin/cargo");
        std::fs::write(
            &file,
            format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$FAKE_CARGO_LOG\"\nexit {code}\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// One run of `test` in `dir/results`, from the diff tests' template.
fn write_result(dir: &Path, test: &str, passed: bool) {
    let reason = (!passed).then_some("agent: exited with 1");
    let result = run_result(test, passed, reason);
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let file = results.join(format!("{}.json", test.replace("::", "__")));
    std::fs::write(file, result.to_string()).unwrap();
}

fn posts(log: &[String]) -> usize {
    log.iter().filter(|line| line.starts_with("POST ")).count()
}

#[test]
fn a_first_gate_posts_the_comment_and_a_second_updates_it() {
    let runner = Runner::new();
    runner.baseline(1, "main", false, false, true);
    runner.shards(true);
    let out = runner.script(&["gate"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = runner.github.log();
    assert!(
        log.contains(&"GET /repos/acme/server/actions/artifacts/1/zip".to_owned()),
        "{log:#?}"
    );
    assert!(log.contains(&"GET /blob/1".to_owned()), "{log:#?}");
    assert_eq!(posts(&log), 1, "{log:#?}");
    let comments = runner.github.comments();
    assert_eq!(comments.len(), 1);
    let body = &comments[0].1;
    assert!(
        body.starts_with(&format!("{MARKER}\n### mcpeval: ")),
        "{body}"
    );
    assert!(body.contains("0 regressed · 0 fixed"), "{body}");
    assert!(body.contains("`e::b`"), "the new test is listed: {body}");
    assert!(
        runner.read("summary.md").contains("0 regressed · 0 fixed"),
        "mcpeval diff writes the job summary"
    );

    // The next push: the same comment, edited.
    write_result(&runner.work("shards/mcpeval-shard-2-of-2"), "e::c", true);
    runner.script(&["merge"], &[]);
    let out = runner.script(&["gate"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = runner.github.log();
    assert_eq!(posts(&log), 1, "no second comment: {log:#?}");
    assert!(
        log.contains(&format!(
            "PATCH /repos/acme/server/issues/comments/{}",
            comments[0].0
        )),
        "{log:#?}"
    );
    let comments = runner.github.comments();
    assert_eq!(comments.len(), 1);
    assert!(comments[0].1.contains("`e::c`"), "{}", comments[0].1);
}

#[test]
fn a_regression_against_the_baseline_fails_the_gate_after_commenting() {
    let runner = Runner::new();
    runner.baseline(1, "main", false, false, true);
    runner.shards(false);
    let budgets = [("DIFF_FLAGS", "--max-definition-growth 10")];
    let out = runner.script(&["gate"], &budgets);
    // mcpeval diff's code for a failed gate (src/plumbing/exit.rs: REGRESSION).
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let body = &runner.github.comments()[0].1;
    assert!(body.contains("| ❌ regressed | `e::a` |"), "{body}");
    assert!(
        body.contains("budget --max-definition-growth 10%: held"),
        "{body}"
    );

    // Without --fail-on-regression the same diff passes.
    let out = runner.script(&["gate"], &[("FAIL_ON_REGRESSION", "false")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn the_baseline_is_the_newest_report_of_the_base_branch_of_this_repository() {
    let runner = Runner::new();
    // A full first page of other branches' reports, then (on page 2) a fork's `main`, an
    // expired one, an older one and the newest: only the newest has `e::a` passing.
    for id in 100..200 {
        runner.baseline(id, "feature", false, false, false);
    }
    runner.baseline(20, "main", true, false, false);
    runner.baseline(27, "main", false, true, false);
    runner.baseline(3, "main", false, false, false);
    runner.baseline(9, "main", false, false, true);
    runner.shards(false);
    let out = runner.script(&["baseline"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = runner.github.log();
    assert!(
        log.iter()
            .any(|line| line.contains("name=mcpeval-report&per_page=100&page=2")),
        "{log:#?}"
    );
    let downloads: Vec<&String> = log.iter().filter(|l| l.ends_with("/zip")).collect();
    assert_eq!(
        downloads,
        ["GET /repos/acme/server/actions/artifacts/9/zip"],
        "{log:#?}"
    );
    let baseline = runner.work("baseline/report.json");
    assert!(
        runner
            .read("output")
            .contains(&format!("baseline={}\n", baseline.display())),
        "{}",
        runner.read("output")
    );
    let out = runner.script(&["gate"], &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "e::a regressed against report 9"
    );
}

#[test]
fn the_comment_is_found_on_a_later_page() {
    let runner = Runner::new();
    runner.github.with(|g| {
        g.comments = (1..=150).map(|id| (id, format!("comment {id}"))).collect();
        g.comments[129].1 = format!("{MARKER}\nan old diff");
    });
    std::fs::write(runner.path("comment.md"), format!("{MARKER}\nnew diff\n")).unwrap();
    let out = runner.script(&["comment", "comment.md"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = runner.github.log();
    assert!(
        log.contains(&"GET /repos/acme/server/issues/7/comments?per_page=100&page=2".to_owned()),
        "{log:#?}"
    );
    assert_eq!(posts(&log), 0, "{log:#?}");
    assert!(log.contains(&"PATCH /repos/acme/server/issues/comments/130".to_owned()));
    let comments = runner.github.comments();
    assert_eq!(comments.len(), 150);
    assert_eq!(comments[129].1, format!("{MARKER}\nnew diff\n"));
}

#[test]
fn without_a_baseline_the_comment_shows_the_run_alone() {
    let runner = Runner::new();
    runner.baseline(1, "develop", false, false, true);
    runner.shards(false);
    let out = runner.script(&["gate"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("baseline: no mcpeval-report artifact from a run on main"),
        "{}",
        text(&out.stderr)
    );
    let body = &runner.github.comments()[0].1;
    assert!(
        body.starts_with(&format!(
            "{MARKER}\n\n_No baseline: no `mcpeval-report` artifact from the base branch yet"
        )),
        "{body}"
    );
    assert!(
        body.contains("### mcpeval: 1 of 2 task runs passed"),
        "{body}"
    );
}

#[test]
fn on_a_push_the_gate_compares_nothing_and_comments_nowhere() {
    let runner = Runner::new();
    runner.event(json!({"ref": "refs/heads/main", "after": "abc"}));
    runner.shards(true);
    let out = runner.script(&["gate"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(runner.github.log().is_empty(), "{:#?}", runner.github.log());
    assert!(text(&out.stderr).contains("comment: not a pull request"));
}

#[test]
fn an_api_failure_fails_the_comment_but_not_the_gate() {
    let runner = Runner::new();
    runner.github.with(|g| g.refuse_writes = true);
    runner.shards(true);
    std::fs::write(runner.path("comment.md"), format!("{MARKER}\nnew diff\n")).unwrap();
    let out = runner.script(&["comment", "comment.md"], &[]);
    assert_eq!(out.status.code(), Some(22), "curl's code for an HTTP error");
    assert!(text(&out.stderr).contains("500"), "{}", text(&out.stderr));
    // The gate warns and still decides (as a fork's read-only token would have it).
    let out = runner.script(&["gate"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("::warning title=mcpeval::the comment could not be posted"),
        "{}",
        text(&out.stdout)
    );
    // And without a token nothing is asked.
    let log_before = runner.github.log().len();
    let out = Command::new("bash")
        .arg(root().join("action/run.sh"))
        .arg("baseline")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap())
        .env("GITHUB_API_URL", &runner.github.url)
        .env("GITHUB_REPOSITORY", "acme/server")
        .env("RUNNER_TEMP", runner.path("temp"))
        .env("GITHUB_BASE_REF", "main")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("GITHUB_TOKEN is not set"));
    assert_eq!(runner.github.log().len(), log_before);
}

#[test]
fn run_splits_the_suite_by_nextest_partition() {
    let runner = Runner::new();
    runner.fake_cargo(100);
    let out = runner.script(&["run"], &[("PARTITION", "2/3")]);
    assert_eq!(out.status.code(), Some(100), "the run's own code");
    assert_eq!(
        runner.read("cargo.log"),
        "nextest run --test evals --no-fail-fast --partition count:2/3\n"
    );
    let output = runner.read("output");
    assert!(
        output.contains("artifact=mcpeval-shard-2-of-3\n"),
        "{output}"
    );
    let target = runner.dir.path().join("target/mcpeval");
    assert!(
        output.contains(&format!("output={}\n", target.display())),
        "{output}"
    );

    for (partition, command, says) in [
        ("3/2", "cargo test --test evals", "k is more than n"),
        ("2", "cargo test --test evals", "is not k/n"),
        (
            "1/2",
            "mcpeval check evals/acme/eval.yaml",
            "needs the command",
        ),
    ] {
        let inputs = [("PARTITION", partition), ("COMMAND", command)];
        let out = runner.script(&["run"], &inputs);
        assert_eq!(out.status.code(), Some(2), "{partition}");
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
    }

    // Without a partition, the command as given.
    std::fs::remove_file(runner.path("cargo.log")).unwrap();
    let out = runner.script(
        &["run"],
        &[("COMMAND", "cargo test --test evals -- --ignored")],
    );
    assert_eq!(out.status.code(), Some(100));
    assert_eq!(runner.read("cargo.log"), "test --test evals -- --ignored\n");
    assert!(runner.read("output").contains("artifact=mcpeval-shard\n"));
}

#[test]
fn install_builds_the_actions_own_crate_when_mcpeval_is_needed() {
    let runner = Runner::new();
    runner.fake_cargo(0);
    let install = |inputs: &[(&str, &str)]| {
        let _ = std::fs::remove_file(runner.path("cargo.log"));
        let out = runner.script(&["install"], inputs);
        (
            out.status.code(),
            runner.read("cargo.log"),
            text(&out.stderr),
        )
    };
    let action = root().display().to_string();
    let (code, log, _) = install(&[("MODE", "gate")]);
    assert_eq!(code, Some(0));
    assert_eq!(log, format!("install --locked --path {action}\n"));
    let (code, log, _) = install(&[("MODE", "run"), ("COMMAND", "mcpeval check e.yaml")]);
    assert_eq!(code, Some(0));
    assert_eq!(log, format!("install --locked --path {action}\n"));
    // `cargo test --test evals` builds the crate's own dev-dependency.
    let (code, log, _) = install(&[("MODE", "run")]);
    assert_eq!((code, log.as_str()), (Some(0), ""));
    let (code, _, stderr) = install(&[("MODE", "check")]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("mode: 'check' is neither run nor gate"),
        "{stderr}"
    );
}
