//! Snapshots as insta users expect, through both doors a user runs evals by (`mcpeval check`
//! and a `cargo test` target with the harness): `.snap.new` for review, nothing under CI,
//! `INSTA_UPDATE=always` writing the `.snap`, `INSTA_FORCE_PASS=1`, and an unknown value
//! refused. A copy of `evals/demo` (the script agent, strict snapshots) in a temporary
//! directory, task `demo::arithmetic`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// How the evals are run.
#[derive(Debug, Clone, Copy)]
enum Door {
    /// `mcpeval check EVAL -- --exact demo::arithmetic`.
    Check,
    /// `cargo test --test fixture -- demo::arithmetic --exact`, the fixture test binary
    /// being a user's `tests/evals.rs` (`Harness::discover`).
    CargoTest,
}

const DOORS: [Door; 2] = [Door::Check, Door::CargoTest];

/// A copy of `evals/demo` (and the agents it refers to) without its snapshots.
struct Demo {
    dir: tempfile::TempDir,
}

impl Demo {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for eval in ["demo", "agents"] {
            crate::support::files::copy_tree(
                &root.join("evals").join(eval),
                &dir.path().join(eval),
            );
        }
        std::fs::remove_dir_all(dir.path().join("demo/snapshots")).unwrap();
        Demo { dir }
    }

    fn evals(&self) -> &Path {
        self.dir.path()
    }

    fn eval(&self) -> PathBuf {
        self.evals().join("demo/eval.yaml")
    }

    fn snap(&self) -> PathBuf {
        self.evals().join("demo/snapshots/demo__arithmetic.snap")
    }

    fn pending(&self) -> PathBuf {
        self.evals()
            .join("demo/snapshots/demo__arithmetic.snap.new")
    }

    /// Replaces `from` by `to` in the file `file` of the eval's directory.
    fn edit(&self, file: &str, from: &str, to: &str) {
        let path = self.evals().join("demo").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{text}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    }

    /// Runs `demo::arithmetic` through `door` with `env`, and none of the variables of CI or
    /// insta this test process may have.
    fn run(&self, door: Door, env: &[(&str, &str)]) -> Output {
        let mut command = match door {
            Door::Check => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
                command
                    .arg("check")
                    .arg(self.eval())
                    .args(["--", "--exact", "demo::arithmetic"]);
                command
            }
            Door::CargoTest => {
                let mut command = crate::support::cargo::command();
                command
                    .args(["test", "--quiet", "--test", "fixture", "--"])
                    .args(["demo::arithmetic", "--exact"])
                    .env("MCPEVAL_FIXTURE", self.evals());
                command
            }
        };
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if name.starts_with("INSTA_") || name == "CI" || name == "TF_BUILD" {
                command.env_remove(&*name);
            }
        }
        command
            .envs(env.iter().copied())
            .env("RUST_BACKTRACE", "0")
            .env("MCPEVAL_OUTPUT_DIR", self.evals().join("output"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    }
}

/// stdout and stderr, for assertions and their messages.
fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Whether the task passed: `mcpeval check`'s exit code, or cargo's (which reports the test
/// binary's 101 as its own 101).
fn passed(out: &Output) -> bool {
    out.status.code() == Some(0)
}

const TRACE: &str = "- tool: demo/add\n  arguments: {\"a\":2,\"b\":40}\n  outcome: ok\n- tool: demo/echo\n  arguments: {\"text\":\"checked\"}\n  outcome: ok\n";

#[test]
fn snapshots_are_written_for_review_compared_and_strict_mode_fails_on_a_change() {
    let demo = Demo::new();

    // No accepted snapshot: strict mode fails and writes one for review.
    let out = demo.run(Door::Check, &[]);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    assert!(
        text(&out).contains("no accepted snapshot yet (strict mode); wrote the `.snap.new`"),
        "{}",
        text(&out)
    );
    let written = std::fs::read_to_string(demo.pending()).unwrap();
    assert!(written.ends_with(TRACE), "{written}");

    // Accepted: the same trace passes and the pending file is gone.
    std::fs::rename(demo.pending(), demo.snap()).unwrap();
    let out = demo.run(Door::Check, &[]);
    assert!(passed(&out), "{}", text(&out));
    assert!(!demo.pending().exists());

    // A changed trace fails in strict mode with the diff.
    demo.edit("tasks/arithmetic.yaml", "\"checked\"", "\"changed\"");
    let out = demo.run(Door::Check, &[]);
    assert_eq!(out.status.code(), Some(101), "{}", text(&out));
    let message = text(&out);
    assert!(
        message.contains("differs from the accepted snapshot (strict mode)"),
        "{message}"
    );
    assert!(
        message
            .contains("-  arguments: {\"text\":\"checked\"}\n+  arguments: {\"text\":\"changed\"}"),
        "{message}"
    );
    assert!(demo.pending().exists());

    // In review mode the same change passes and waits for review.
    std::fs::remove_file(demo.pending()).unwrap();
    demo.edit("eval.yaml", "snapshot: strict", "snapshot: review");
    let out = demo.run(Door::Check, &[]);
    assert!(passed(&out), "{}", text(&out));
    assert!(text(&out).contains("review it with `cargo insta review`"));
    assert!(demo.pending().exists());
    let accepted = std::fs::read_to_string(demo.snap()).unwrap();
    assert!(accepted.contains("\"checked\""), "untouched: {accepted}");
}

#[test]
fn under_ci_a_new_or_changed_trace_writes_no_snap_new() {
    for door in DOORS {
        let demo = Demo::new();
        // Strict: a new trace fails, and says nothing was written and why.
        let out = demo.run(door, &[("CI", "true")]);
        assert!(!passed(&out), "{door:?}: {}", text(&out));
        assert!(
            text(&out)
                .contains("no accepted snapshot yet (strict mode); nothing written (`CI` is set"),
            "{door:?}: {}",
            text(&out)
        );
        assert!(!demo.pending().exists(), "{door:?}");
        assert!(!demo.snap().exists(), "{door:?}");
        // Review: it passes, with a note, and still writes nothing.
        demo.edit("eval.yaml", "snapshot: strict", "snapshot: review");
        let out = demo.run(door, &[("CI", "1")]);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        assert!(
            text(&out)
                .contains("note: demo::arithmetic: no accepted snapshot yet; nothing written")
        );
        assert!(!demo.pending().exists(), "{door:?}");
        // `CI=false` is no CI, as for insta.
        let out = demo.run(door, &[("CI", "false")]);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        assert!(demo.pending().exists(), "{door:?}");
    }
}

#[test]
fn insta_update_always_writes_the_snap_when_recording_and_the_next_run_passes() {
    for door in DOORS {
        let demo = Demo::new();
        std::fs::create_dir_all(demo.pending().parent().unwrap()).unwrap();
        std::fs::write(demo.pending(), "---\nsource: x\n---\n- tool: stale\n").unwrap();
        // The book's record job: CI, every cassette recorded anew, snapshots accepted.
        let record = [
            ("CI", "true"),
            ("MCPEVAL_RECORD_MODE", "all"),
            ("INSTA_UPDATE", "always"),
        ];
        let out = demo.run(door, &record);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        let accepted = std::fs::read_to_string(demo.snap()).unwrap();
        assert!(accepted.ends_with(TRACE), "{door:?}: {accepted}");
        assert!(
            !demo.pending().exists(),
            "{door:?}: the stale .snap.new is gone"
        );
        // The replay job: the accepted snapshot matches.
        let out = demo.run(door, &[("CI", "true")]);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        assert_eq!(std::fs::read_to_string(demo.snap()).unwrap(), accepted);
        assert!(!demo.pending().exists(), "{door:?}");
    }
}

#[test]
fn insta_force_pass_turns_a_snapshot_mismatch_into_a_pass_but_not_a_failed_assertion() {
    for door in DOORS {
        let demo = Demo::new();
        let out = demo.run(door, &[("INSTA_UPDATE", "always")]);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        demo.edit("tasks/arithmetic.yaml", "\"checked\"", "\"changed\"");
        let out = demo.run(door, &[("CI", "true")]);
        assert!(!passed(&out), "{door:?}: {}", text(&out));
        let out = demo.run(door, &[("CI", "true"), ("INSTA_FORCE_PASS", "1")]);
        assert!(passed(&out), "{door:?}: {}", text(&out));
        assert!(
            text(&out).contains("note: demo::arithmetic: the call trace differs"),
            "{door:?}: {}",
            text(&out)
        );
        // The eval's other assertions still fail the task (a duplicate call here).
        demo.edit(
            "tasks/arithmetic.yaml",
            "call demo echo {\"text\": \"changed\"}",
            "call demo echo {\"text\": \"changed\"}\n      call demo echo {\"text\": \"changed\"}",
        );
        let out = demo.run(door, &[("CI", "true"), ("INSTA_FORCE_PASS", "1")]);
        assert!(!passed(&out), "{door:?}: {}", text(&out));
        assert!(
            !text(&out).contains("snapshot: "),
            "{door:?}: {}",
            text(&out)
        );
    }
}

#[test]
fn an_unknown_insta_value_stops_the_run_naming_the_variable_and_its_values() {
    for door in DOORS {
        let demo = Demo::new();
        let out = demo.run(door, &[("INSTA_UPDATE", "yes")]);
        assert!(!passed(&out), "{door:?}: {}", text(&out));
        assert!(
            text(&out).contains(
                "error: INSTA_UPDATE: `yes` is not a value it takes; expected one of auto, always, new, no, unseen, force"
            ),
            "{door:?}: {}",
            text(&out)
        );
        let out = demo.run(door, &[("INSTA_FORCE_PASS", "true")]);
        assert!(
            text(&out).contains("INSTA_FORCE_PASS: `true` is not a value it takes"),
            "{door:?}: {}",
            text(&out)
        );
        if let Door::Check = door {
            assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        }
        assert!(!demo.snap().exists() && !demo.pending().exists());
    }
}

#[test]
fn the_book_names_every_insta_update_mode_and_both_variables() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |page: &str| std::fs::read_to_string(root.join("docs/src").join(page)).unwrap();
    let (snapshots, environment) = (read("snapshots.md"), read("reference/environment.md"));
    for name in mcpeval::snapshot::SnapshotUpdate::NAMES {
        assert!(
            snapshots.contains(&format!("| `{name}`")),
            "snapshots.md: {name}"
        );
        assert!(
            environment.contains(&format!("`{name}`")),
            "environment.md: {name}"
        );
    }
    for var in ["INSTA_UPDATE", "INSTA_FORCE_PASS"] {
        assert!(environment.contains(&format!("| `{var}` |")), "{var}");
        assert!(snapshots.contains(var), "{var}");
    }
}
