//! `mcpeval init --ci github`: the workflow it writes passes actionlint, and its jobs run.
//! A user's crate (tests/fixtures/init-crate, its server `mcpeval demo-server` behind
//! `exec`, the script agent as its Agent file) is initialised, its task prompts rewritten
//! as scripts, run once (its snapshots accepted), committed and pushed to a local bare
//! repository; in a fresh clone the workflow's `evals` and `gate` jobs then run step by
//! step as a runner would on a pull request: `CI=true`, the `GITHUB_*` variables, no API
//! key, and the fake GitHub API of the action's tests.
//!
//! The `uses:` steps are emulated (the test's doubles): checkout is the fresh clone;
//! toolchain, cache, node and cargo-binstall's own action do nothing; upload-artifact and
//! download-artifact copy directories; `cargo binstall` finds a fake `cargo-binstall` on
//! PATH that "installs" the `mcpeval` built here. The version dependency init wrote
//! resolves to this checkout through a `[patch.crates-io]` in a `.cargo/config.toml` above
//! the clone (crates.io is never asked: `CARGO_NET_OFFLINE`). The crate builds into
//! `<our target>/rust-workspace` with that fixture's lock file, as tests/slow/init_dependency.rs.

use crate::support;

use crate::support::fake_github;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use fake_github::{FakeGithub, MARKER, TOKEN};
use serde_json::{Value, json};
use support::cli::text;
use support::files::copy_tree;

const MCPEVAL: &str = env!("CARGO_BIN_EXE_mcpeval");
const CHECKOUT: &str = env!("CARGO_MANIFEST_DIR");
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/init-crate");

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    write(path, text);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn run(command: &mut Command, what: &str) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout) + &text(&out.stderr)
}

fn git(dir: &Path, args: &[&str]) -> String {
    run(
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "Ada")
            .env("GIT_AUTHOR_EMAIL", "ada@example.com")
            .env("GIT_COMMITTER_NAME", "Ada")
            .env("GIT_COMMITTER_EMAIL", "ada@example.com"),
        &format!("git {args:?}"),
    )
}

/// Each tool's task as a script: the call its assertion expects.
const SCRIPTS: [(&str, &str); 5] = [
    ("add", r#"{"a": 2, "b": 3}"#),
    ("delete_user", r#"{"id": "u1"}"#),
    ("echo", r#"{"text": "hi"}"#),
    ("flaky", "{}"),
    ("lookup_user", r#"{"id": "u1"}"#),
];

/// The crate's dependencies: the rust-workspace fixture's acme-http, an rmcp server library
/// (the crate's server is still `mcpeval demo-server` behind a launcher). Its crates come
/// with the features they have there, so mcpeval's build in the shared target dir is the one
/// the rust_workspace tests use, compiled once for both (the crate with no dependencies
/// compiled it again, 30 s).
const SERVER_DEPENDENCIES: &str = concat!(
    "\n[dependencies]\nacme-http = { path = \"",
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/rust-workspace/acme-http\" }\n"
);

/// The user's crate in `work/acme`, initialised, run once and pushed to `work/remote.git`.
fn pushed_crate(work: &Path) -> PathBuf {
    let dir = work.join("acme");
    for file in ["Cargo.toml", "src/admin.rs"] {
        write(&dir.join(file), &read(&Path::new(FIXTURE).join(file)));
    }
    let profile = read(&Path::new(CHECKOUT).join("tests/fixtures/rust-workspace/Cargo.toml"));
    let profile = &profile[profile.find("[profile.dev]").unwrap()..];
    let manifest = read(&dir.join("Cargo.toml"));
    assert!(manifest.contains("\n[dependencies]\n"), "{manifest}");
    let manifest = manifest.replace("\n[dependencies]\n", SERVER_DEPENDENCIES);
    write(&dir.join("Cargo.toml"), &(manifest + "\n" + profile));
    write(
        &dir.join("src/main.rs"),
        &format!(
            "use std::os::unix::process::CommandExt;\nfn main() {{\n    let error = \
             std::process::Command::new({MCPEVAL:?}).arg(\"demo-server\").exec();\n    \
             eprintln!(\"acme-server: {{error}}\");\n    std::process::exit(2);\n}}\n"
        ),
    );
    write(
        &dir.join("agents/script.yaml"),
        "kind: Agent\nmetadata: {name: script}\ncommands:\n  runPrompt: '\"$MCPEVAL_BIN\" \
         script-agent --mcp-config {{ .McpServerFileArgs }} {{ .Prompt }}'\n",
    );
    let launcher = work.join("acme-server.sh");
    executable(
        &launcher,
        &format!("#!/bin/sh\nexec {MCPEVAL:?} demo-server\n"),
    );
    git(&dir, &["init", "--quiet", "--initial-branch=main"]);
    let said = run(
        Command::new(MCPEVAL)
            .args(["init", "--bin", "acme-server", "--name", "acme"])
            .args(["--agent", "agents/script.yaml", "--dependency", "version"])
            .args(["--ci", "github"])
            .current_dir(&dir)
            .env("ACME_SERVER_BIN", &launcher),
        "mcpeval init --ci github",
    );
    assert!(said.contains("wrote .github/workflows/evals.yml"), "{said}");
    for (tool, arguments) in SCRIPTS {
        let task = dir.join(format!("evals/acme/tasks/{tool}.yaml"));
        let text = read(&task);
        let prompt = text.find("    inline: |\n").unwrap();
        let script = format!("    inline: |\n      call acme {tool} {arguments}\n");
        write(&task, &(text[..prompt].to_owned() + &script));
    }
    std::fs::copy(
        Path::new(CHECKOUT).join("tests/fixtures/rust-workspace/Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    // Run once on the user's machine, its new snapshots accepted.
    run(
        crate::fixture_cargo(&dir).args(["test", "--test", "evals"]),
        "the first run",
    );
    let snapshots = dir.join("evals/acme/snapshots");
    for entry in std::fs::read_dir(&snapshots).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "new") {
            std::fs::rename(&path, path.with_extension("")).unwrap();
        }
    }
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "--quiet", "-m", "Evals"]);
    let remote = work.join("remote.git");
    // Its HEAD names main, the branch pushed: with git's own default (master, unless
    // init.defaultBranch says otherwise) the clone would check out nothing.
    git(
        work,
        &[
            "init",
            "--quiet",
            "--bare",
            "--initial-branch=main",
            "remote.git",
        ],
    );
    git(
        &dir,
        &["push", "--quiet", &remote.display().to_string(), "main"],
    );
    remote
}

/// A runner's directories and the workflow's artifacts.
struct Runner {
    work: PathBuf,
    clone: PathBuf,
    github: FakeGithub,
}

impl Runner {
    /// `${{ … }}` replaced by what a pull request's run would have.
    fn expand(&self, text: &str) -> String {
        let mut out = text.to_owned();
        while let Some(start) = out.find("${{") {
            let end = start + out[start..].find("}}").unwrap() + 2;
            let expression = out[start + 3..end - 2].trim();
            let value = match expression {
                "runner.temp" => self.work.join("temp").display().to_string(),
                "github.token" => TOKEN.to_owned(),
                "!cancelled()" | "!inputs.record" | "!cancelled() && !inputs.record" => {
                    "true".to_owned()
                }
                "inputs.record" => "false".to_owned(),
                other => panic!("an expression the test does not know: {other}"),
            };
            out.replace_range(start..end, &value);
        }
        out
    }

    fn env(&self) -> BTreeMap<String, String> {
        let path = format!(
            "{}:{}:{}",
            self.work.join("fake-bin").display(),
            self.work.join("installed").display(),
            std::env::var("PATH").unwrap()
        );
        let env = [
            ("PATH", path),
            ("CI", "true".into()),
            ("GITHUB_ACTIONS", "true".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            (
                "GITHUB_EVENT_PATH",
                self.work.join("event.json").display().to_string(),
            ),
            ("GITHUB_REPOSITORY", "acme/server".into()),
            ("GITHUB_API_URL", self.github.url.clone()),
            ("GITHUB_BASE_REF", "main".into()),
            (
                "GITHUB_OUTPUT",
                self.work.join("output").display().to_string(),
            ),
            (
                "GITHUB_STEP_SUMMARY",
                self.work.join("summary.md").display().to_string(),
            ),
            ("GITHUB_WORKSPACE", self.clone.display().to_string()),
            ("RUNNER_TEMP", self.work.join("temp").display().to_string()),
            (
                "FAKE_BINSTALL_LOG",
                self.work.join("binstall.log").display().to_string(),
            ),
            (
                "INSTALLED",
                self.work.join("installed").display().to_string(),
            ),
        ];
        env.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }

    /// Runs the job's steps in order; the first that fails stops it, as on a runner.
    fn job(&self, workflow: &Value, name: &str) {
        let job = &workflow["jobs"][name];
        if let Some(condition) = job["if"].as_str() {
            assert_eq!(self.expand(condition), "true", "job {name} runs");
        }
        for (index, step) in job["steps"].as_array().unwrap().iter().enumerate() {
            if let Some(condition) = step["if"].as_str() {
                assert_eq!(self.expand(condition), "true", "{name} step {index}");
            }
            let with = |key: &str| self.expand(step["with"][key].as_str().unwrap());
            if let Some(script) = step["run"].as_str() {
                let mut command = Command::new("bash");
                crate::fixture_env(&mut command)
                    .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
                    .arg(self.expand(script))
                    .current_dir(&self.clone)
                    .envs(self.env());
                for (key, value) in step["env"].as_object().into_iter().flatten() {
                    command.env(key, self.expand(value.as_str().unwrap()));
                }
                run(&mut command, &format!("{name}: {script}"));
            } else {
                let uses = step["uses"].as_str().unwrap();
                match uses.split('@').next().unwrap() {
                    "actions/checkout"
                    | "dtolnay/rust-toolchain"
                    | "Swatinem/rust-cache"
                    | "actions/setup-node"
                    | "cargo-bins/cargo-binstall" => {}
                    "actions/upload-artifact" => {
                        let from = self.clone.join(with("path"));
                        let to = self.work.join("artifacts").join(with("name"));
                        let _ = std::fs::remove_dir_all(&to);
                        copy_tree(&from, &to);
                    }
                    "actions/download-artifact" => {
                        let pattern = with("pattern");
                        let prefix = pattern.strip_suffix('*').unwrap();
                        for entry in std::fs::read_dir(self.work.join("artifacts")).unwrap() {
                            let entry = entry.unwrap();
                            let artifact = entry.file_name().to_string_lossy().into_owned();
                            if artifact.starts_with(prefix) {
                                let to = Path::new(&with("path")).join(&artifact);
                                copy_tree(&entry.path(), &to);
                            }
                        }
                    }
                    other => panic!("a step the test cannot emulate: {other}"),
                }
            }
        }
    }
}

#[test]
fn the_written_workflow_replays_and_gates_a_pull_request_in_a_fresh_clone() {
    let _turn = crate::cargo_turn();
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    // The version dependency, served by this checkout (crates.io is not asked).
    write(
        &work.join(".cargo/config.toml"),
        &format!("[patch.crates-io]\nmcpeval-harness = {{ path = {CHECKOUT:?} }}\n"),
    );
    let remote = pushed_crate(work);
    let workflow_text = read(&work.join("acme/.github/workflows/evals.yml"));
    if let Some(actionlint) = support::peers::require("venv/bin/actionlint") {
        run(
            Command::new(actionlint)
                .arg(".github/workflows/evals.yml")
                .current_dir(work.join("acme")),
            "actionlint",
        );
    }
    let workflow: Value = serde_saphyr::from_str(&workflow_text).unwrap();

    let clone = work.join("clone");
    git(
        work,
        &["clone", "--quiet", &remote.display().to_string(), "clone"],
    );
    executable(
        &work.join("fake-bin/cargo-binstall"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \"$FAKE_BINSTALL_LOG\"\nmkdir -p \"$INSTALLED\"\n\
             ln -sf {MCPEVAL:?} \"$INSTALLED/mcpeval\"\n"
        ),
    );
    write(
        &work.join("event.json"),
        &json!({"number": 7, "pull_request": {"number": 7,
            "base": {"ref": "main"}, "head": {"ref": "feature"}}})
        .to_string(),
    );
    let runner = Runner {
        work: work.to_path_buf(),
        clone: clone.clone(),
        github: FakeGithub::start(),
    };

    runner.job(&workflow, "evals");
    let results = work.join("artifacts/mcpeval-shard/results");
    let passed: Vec<Value> = std::fs::read_dir(&results)
        .unwrap()
        .map(|entry| serde_json::from_str::<Value>(&read(&entry.unwrap().path())).unwrap())
        .filter(|result| result["taskPassed"] == true)
        .collect();
    assert_eq!(passed.len(), SCRIPTS.len(), "every task passed in replay");
    assert_eq!(
        git(&clone, &["status", "--porcelain"]).trim(),
        "",
        "nothing written"
    );

    runner.job(&workflow, "gate");
    assert_eq!(
        read(&work.join("binstall.log")),
        format!(
            "binstall --no-confirm mcpeval-harness@{}\n",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert!(work.join("artifacts/mcpeval-report/report.json").exists());
    let comments = runner.github.comments();
    assert_eq!(comments.len(), 1, "{:#?}", runner.github.log());
    assert!(comments[0].1.starts_with(MARKER), "{}", comments[0].1);
    assert!(comments[0].1.contains("No baseline"), "{}", comments[0].1);
}
