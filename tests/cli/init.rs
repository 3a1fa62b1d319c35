//! `mcpeval init`: the files it writes from a server's tools (the demo server, the everything
//! and filesystem servers, a Python server with odd tools, a Rust crate), and how it refuses,
//! fails and stays deterministic.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use support::cli::{files_under, text};
use support::peers::require;

const MCPEVAL: &str = env!("CARGO_BIN_EXE_mcpeval");

/// `mcpeval ARGS` in `dir`, with the mcpeval binary's directory first on `PATH` (so that
/// `--command "mcpeval demo-server"` is written as it is, the same on every machine).
fn mcpeval_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let bin_dir = Path::new(MCPEVAL).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(MCPEVAL);
    command
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("RUST_BACKTRACE", "0")
        .env_remove("ACME_SERVER_BIN");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("run mcpeval")
}

fn init(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["init"];
    all.extend(args);
    mcpeval_in(dir, &all, &[])
}

fn assert_ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every file under `dir` with its text, by path relative to `dir`, sorted.
fn tree(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files: Vec<(PathBuf, String)> = files_under(dir)
        .into_iter()
        .map(|f| (f.strip_prefix(dir).unwrap().to_path_buf(), read(&f)))
        .collect();
    files.sort();
    files
}

/// `mcpeval validate` of the eval: the test names.
fn validate(eval: &Path, env: &[(&str, &str)]) -> Vec<String> {
    let out = mcpeval_in(eval.parent().unwrap(), &["validate", "eval.yaml"], env);
    assert_ok(&out);
    text(&out.stdout).lines().map(str::to_owned).collect()
}

/// `mcpeval check <eval> -- --list`: the tests as the harness lists them.
fn listed(eval: &Path, env: &[(&str, &str)]) -> Vec<String> {
    let out = mcpeval_in(
        eval.parent().unwrap(),
        &["check", "eval.yaml", "--", "--list", "--format", "terse"],
        env,
    );
    assert_ok(&out);
    text(&out.stdout).lines().map(str::to_owned).collect()
}

const DEMO: &str = "evals/mcpeval-demo-server";

#[test]
fn the_demo_server_gets_an_eval_with_one_task_per_tool() {
    let dir = tempfile::tempdir().unwrap();
    let out = init(dir.path(), &["--command", "mcpeval demo-server"]);
    assert_ok(&out);
    let root = dir.path().join(DEMO);
    let names: Vec<PathBuf> = tree(&root).into_iter().map(|(path, _)| path).collect();
    let expected: Vec<PathBuf> = [
        "README.md",
        "eval.yaml",
        "mcp-config.yaml",
        "tasks/add.yaml",
        "tasks/delete_user.yaml",
        "tasks/echo.yaml",
        "tasks/flaky.yaml",
        "tasks/lookup_user.yaml",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(names, expected);
    insta::assert_snapshot!("demo_eval_yaml", read(root.join("eval.yaml")));
    insta::assert_snapshot!("demo_mcp_config_yaml", read(root.join("mcp-config.yaml")));
    insta::assert_snapshot!("demo_task_add_yaml", read(root.join("tasks/add.yaml")));
    insta::assert_snapshot!("demo_task_flaky_yaml", read(root.join("tasks/flaky.yaml")));
    insta::assert_snapshot!("demo_readme_md", read(root.join("README.md")));
    insta::assert_snapshot!("demo_stdout", text(&out.stdout));
    assert!(
        !dir.path().join("tests").exists(),
        "no crate, no tests/evals.rs"
    );
}

#[test]
fn validate_and_check_list_accept_what_init_wrote() {
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&init(dir.path(), &["--command", "mcpeval demo-server"]));
    let eval = dir.path().join(DEMO).join("eval.yaml");
    let tasks = [
        "mcpeval-demo-server::add",
        "mcpeval-demo-server::delete_user",
        "mcpeval-demo-server::echo",
        "mcpeval-demo-server::flaky",
        "mcpeval-demo-server::lookup_user",
    ];
    assert_eq!(validate(&eval, &[]), tasks);
    let listed = listed(&eval, &[]);
    let expected: Vec<String> = tasks.iter().map(|t| format!("{t}: test")).collect();
    assert_eq!(listed, expected);
}

#[test]
fn a_second_run_refuses_to_overwrite_and_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    assert_ok(&init(dir.path(), &["--command", "mcpeval demo-server"]));
    let eval = dir.path().join(DEMO).join("eval.yaml");
    std::fs::write(&eval, "# mine now\n").unwrap();
    let before = tree(dir.path());
    let out = init(dir.path(), &["--command", "mcpeval demo-server"]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("refusing to overwrite evals/mcpeval-demo-server/eval.yaml"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(tree(dir.path()), before, "nothing changed");
}

#[test]
fn the_same_server_gives_the_same_bytes() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert_ok(&init(a.path(), &["--command", "mcpeval demo-server"]));
    assert_ok(&init(b.path(), &["--command", "mcpeval demo-server"]));
    let (a, b) = (tree(a.path()), tree(b.path()));
    assert_eq!(a.len(), 8);
    assert_eq!(a, b);
}

#[test]
fn a_server_that_fails_to_start_is_named_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("broken.py");
    std::fs::write(
        &script,
        "import sys\nsys.stderr.write('broken server: cannot open its database\\n')\nsys.exit(4)\n",
    )
    .unwrap();
    let command = format!("python3 {}", script.display());
    let out = init(dir.path(), &["--command", &command]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("server `{command}`")), "{stderr}");
    assert!(stderr.contains("exit code 4"), "{stderr}");
    assert!(
        stderr.contains(
            "--- last lines of the server's stderr ---\nbroken server: cannot open its database"
        ),
        "{stderr}"
    );
    assert!(!dir.path().join("evals").exists());

    let out = init(dir.path(), &["--command", "no-such-mcp-server --stdio"]);
    assert_eq!(out.status.code(), Some(4));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("cannot start the server `no-such-mcp-server --stdio`")
            && stderr.contains("on PATH"),
        "{stderr}"
    );
}

#[test]
fn a_server_that_never_answers_is_stopped_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    // A server whose own child would outlive it: the whole process group goes.
    let out = init(
        dir.path(),
        &[
            "--command",
            "sh -c 'sleep 60 & echo $! > child.pid; wait'",
            "--timeout",
            "1s",
        ],
    );
    assert_eq!(out.status.code(), Some(4));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no complete answer within 1s"), "{stderr}");
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let child = read(dir.path().join("child.pid")).trim().to_owned();
    let gone = || match std::fs::read_to_string(format!("/proc/{child}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    };
    for _ in 0..50 {
        if gone() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the server's child {child} outlived init");
}

#[test]
fn without_a_server_or_a_crate_it_says_what_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    let out = init(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no server to start: pass --command") && stderr.contains("--url"),
        "{stderr}"
    );
}

#[test]
fn the_agent_is_a_builtin_or_an_agent_file_relative_to_the_eval() {
    let dir = tempfile::tempdir().unwrap();
    let out = init(
        dir.path(),
        &[
            "--command",
            "mcpeval demo-server",
            "--agent",
            "builtin.llm-agent",
            "--model",
            "openai:gpt-4o",
            "--name",
            "llm",
        ],
    );
    assert_ok(&out);
    let eval = read(dir.path().join("evals/llm/eval.yaml"));
    assert!(
        eval.contains("  agent:\n    type: builtin.llm-agent\n    model: \"openai:gpt-4o\"\n"),
        "{eval}"
    );
    assert!(
        read(dir.path().join("evals/llm/README.md"))
            .contains("OPENAI_API_KEY=… INSTA_UPDATE=always mcpeval check")
    );

    let agents = dir.path().join("agents");
    std::fs::create_dir(&agents).unwrap();
    std::fs::write(
        agents.join("script.yaml"),
        "kind: Agent\nmetadata: {name: script}\ncommands:\n  runPrompt: 'mcpeval script-agent --mcp-config {{ .McpServerFileArgs }} {{ .Prompt }}'\n",
    )
    .unwrap();
    let out = init(
        dir.path(),
        &[
            "--command",
            "mcpeval demo-server",
            "--agent",
            "agents/script.yaml",
            "--name",
            "scripted",
        ],
    );
    assert_ok(&out);
    let eval = read(dir.path().join("evals/scripted/eval.yaml"));
    assert!(
        eval.contains("    type: file\n    path: \"../../agents/script.yaml\"\n"),
        "{eval}"
    );
    assert_eq!(
        validate(&dir.path().join("evals/scripted/eval.yaml"), &[]).len(),
        5
    );

    for (args, message) in [
        (
            &["--agent", "builtin.nope"][..],
            "no such builtin agent; expected one of builtin.claude-code",
        ),
        (
            &["--agent", "builtin.llm-agent"][..],
            "needs --model provider:model",
        ),
        (
            &["--agent", "missing.yaml"][..],
            "--agent missing.yaml: not a usable Agent file",
        ),
    ] {
        let mut all = vec!["--command", "mcpeval demo-server"];
        all.extend(args);
        let out = init(dir.path(), &all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(message),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

mod listing;

mod peers;

mod crate_fixture;

mod headers;
