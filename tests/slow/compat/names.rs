//! File and task names as mcpchecker writes them: a bare eval file name, task names with
//! spaces (selected exactly, filtered by nextest), two evals with one name.

use super::{fixture, passed, text};
use std::path::Path;
use std::process::{Command, Output};

/// `mcpeval ARGS` run in `dir`, results under the test's own output directory.
fn mcpeval_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("compat-runs"),
        )
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn a_bare_eval_file_name_validates_and_runs_like_a_dotted_one() {
    let dir = fixture("bare");
    for eval in ["eval.yaml", "./eval.yaml"] {
        let out = mcpeval_in(&dir, &["validate", eval]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "bare::scripts\nbare::beside\n");
        let out = mcpeval_in(&dir, &["check", eval, "--"]);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{eval}: {stdout}{}",
            text(&out.stderr)
        );
        for name in ["bare::scripts", "bare::beside"] {
            assert!(
                passed(&stdout, name),
                "{eval}: {name} did not pass:\n{stdout}"
            );
        }
    }
}

#[test]
fn a_task_name_with_spaces_is_a_test_name_that_exact_selects() {
    let dir = fixture("spaces");
    let out = mcpeval_in(&dir, &["check", "eval.yaml", "--", "--list"]);
    assert_eq!(
        text(&out.stdout),
        "spaces::create pod inline: test\nspaces::create pod: test\n"
    );
    let out = mcpeval_in(
        &dir,
        &["check", "eval.yaml", "--", "--exact", "spaces::create pod"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(passed(&stdout, "spaces::create pod"), "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(!stdout.contains("create pod inline"), "{stdout}");
}

#[test]
fn nextest_filters_a_task_name_with_spaces() {
    if crate::support::cargo::command()
        .args(["nextest", "--version"])
        .output()
        .map_or(true, |o| !o.status.success())
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-nextest is missing on CI"
        );
        eprintln!("skipped: cargo-nextest is not installed");
        return;
    }
    let out = crate::support::cargo::command()
        .args(["nextest", "run", "--test", "fixture", "--color", "never"])
        .args(["-E", "test(=spaces::create pod inline)"])
        .env("MCPEVAL_FIXTURE", fixture("spaces"))
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("compat-nextest"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.lines()
            .any(|l| l.contains("PASS") && l.trim_end().ends_with("spaces::create pod inline")),
        "{all}"
    );
    assert!(all.contains("1 test run: 1 passed"), "{all}");
}

#[test]
fn two_evals_with_one_name_are_an_error_naming_both_files() {
    let dir = fixture("same-name");
    for args in [
        &["validate", "first.yaml", "second.yaml"][..],
        &["check", "first.yaml", "second.yaml", "--", "--list"][..],
    ] {
        let out = mcpeval_in(&dir, args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(
                "second.yaml:4:3: metadata.name: duplicate eval name `bare`: first.yaml has it too"
            ),
            "{args:?}: {stderr}"
        );
    }
}
