//! The slow set: real agent programs (Claude Code, Codex, Gemini CLI, ACP) and Cargo builds of
//! fixture workspaces. Minutes where the other binaries take seconds: `cargo test-fast` skips
//! this binary, CI runs it, and nextest runs its Cargo builds one at a time
//! (`.config/nextest.toml`).

#[path = "../support/mod.rs"]
mod support;

mod acp;
mod claude_code;
mod cli_agents;
mod compat;
mod init_ci;
mod init_dependency;
mod protocol_versions;
mod replay;
mod rust_workspace;

/// `<our target>/rust-workspace`: the one target dir of the fixture workspaces (rust_workspace,
/// init_ci, init_dependency), kept between runs, so mcpeval is compiled there once.
fn fixture_target() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target tmp dir is in the target dir")
        .join("rust-workspace")
}

/// A command of a fixture workspace's build (`cargo …`, or a workflow step that runs it): none
/// of our own run's variables (those Cargo set for this test, `MCPEVAL_*`, `INSTA_*`,
/// nextest's, GitHub's, keys, `CI`, a target dir), offline, into [`fixture_target`]. The same
/// for the three fixture tests, so what one of them compiled the next one finds: a build
/// script that watches a variable (ring watches `CARGO_MANIFEST_DIR`) would otherwise see it
/// change and rebuild ring, rustls, reqwest, rmcp and mcpeval.
fn fixture_env(command: &mut std::process::Command) -> &mut std::process::Command {
    fetch_fixture_dependencies();
    support::cargo::clean(command);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        let ours = [
            "MCPEVAL_",
            "INSTA_",
            "GITHUB_",
            "CARGO_TARGET",
            "CARGO_BUILD_TARGET",
        ]
        .iter()
        .any(|prefix| name.starts_with(prefix));
        if ours || name.ends_with("_API_KEY") || name == "CI" {
            command.env_remove(&name);
        }
    }
    command
        .env("CARGO_TARGET_DIR", fixture_target())
        .env("CARGO_NET_OFFLINE", "true")
        .env("CARGO_INCREMENTAL", "0")
        .env("RUST_BACKTRACE", "0")
}

/// The rust-workspace fixture's locked dependencies (rmcp 3.11 and what it needs, which
/// mcpeval's own lockfile does not hold) in Cargo's registry cache, fetched once before the
/// first fixture build: every fixture build is offline, and a fresh machine's cache has none
/// of them. The crates `mcpeval init` writes resolve against the same cache. A fetch that
/// fails (no network) is noted; the builds then use what the cache has.
fn fetch_fixture_dependencies() {
    static FETCHED: std::sync::Once = std::sync::Once::new();
    FETCHED.call_once(|| {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust-workspace");
        let mut command = support::cargo::command();
        command
            .args(["fetch", "--locked"])
            .current_dir(&dir)
            .env("CARGO_NET_RETRY", "3")
            .env("CARGO_HTTP_TIMEOUT", "60");
        match command.output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => eprintln!(
                "note: cargo fetch of the fixture workspace failed; its builds use the cache:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => eprintln!("note: cannot run cargo fetch for the fixture workspace: {e}"),
        }
    });
}

/// `cargo` (the one running the tests) in `dir` with [`fixture_env`].
fn fixture_cargo(dir: &std::path::Path) -> std::process::Command {
    let mut command = support::cargo::command();
    fixture_env(&mut command).current_dir(dir);
    command
}

/// The fixture workspaces' crates' binaries land on the same paths of [`fixture_target`]: one
/// of them at a time.
fn cargo_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
