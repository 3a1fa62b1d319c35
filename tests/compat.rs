//! mcpchecker's files load and run unchanged: paths as mcpchecker resolves them, its names
//! and aliases, its environment-built MCP config, step ids, judge references, agent options.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(path)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

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

/// Whether libtest's output says `name` passed (`test NAME ... ok`, names padded).
fn passed(stdout: &str, name: &str) -> bool {
    stdout.lines().any(|line| {
        line.strip_prefix("test ")
            .and_then(|rest| rest.strip_suffix(" ... ok"))
            .is_some_and(|test| test.trim_end() == name)
    })
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
