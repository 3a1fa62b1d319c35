//! Finding third-party peers installed by `.ci/install-peers.sh`.
#![allow(dead_code)]

use std::path::PathBuf;

/// Where the peers live: `$MCPEVAL_PEERS_DIR`, else `<repo>/.peers`.
pub fn peers_dir() -> PathBuf {
    match std::env::var_os("MCPEVAL_PEERS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".peers"),
    }
}

/// The path of an installed peer file (relative to the peers dir), or `None` after
/// printing a skip line. With `CI` set, a missing peer fails the test instead.
pub fn require(relative: &str) -> Option<PathBuf> {
    let path = peers_dir().join(relative);
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "peer {} is missing (CI is set): run .ci/install-peers.sh",
            path.display()
        );
    }
    eprintln!(
        "skipped: {} is not installed: run .ci/install-peers.sh",
        path.display()
    );
    None
}

/// `PATH` with the installed Claude Code's directory first (see [`require`] for a missing
/// one).
pub fn path_with_claude() -> Option<String> {
    let claude = require("node_modules/.bin/claude")?;
    let bin = claude.parent().expect("the claude binary has a directory");
    Some(format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

/// The stdio test server binary built from `tests/support/test_server_main.rs`.
///
/// A plain `cargo test` builds it with the other examples; `cargo test --test <one>` does
/// not, so it is built here on first use.
pub fn test_server_binary() -> PathBuf {
    static BUILT: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    // target/<profile>/deps/<test binary> → target/<profile>/examples/proxy_test_server
    let exe = std::env::current_exe().expect("current exe");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let binary = profile_dir.join("examples").join("proxy_test_server");
    let mut built = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if !*built {
        let mut command = super::cargo::command();
        command.args(["build", "--quiet", "--example", "proxy_test_server"]);
        if profile_dir.ends_with("release") {
            command.arg("--release");
        }
        let status = command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(
            status.success(),
            "cargo build --example proxy_test_server failed"
        );
        *built = true;
    }
    binary
}

/// Whether `cargo nextest` is installed; without it a test skips (printing why), except on
/// CI, where it must be there.
pub fn nextest_available() -> bool {
    let found = super::cargo::command()
        .args(["nextest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-nextest is missing on CI"
        );
        eprintln!("skipped: cargo-nextest is not installed");
    }
    found
}

/// Our stdio test server (see [`test_server_binary`]) as a proxy's upstream, no arguments.
pub fn test_server_upstream() -> mcpeval::proxy::Upstream {
    mcpeval::proxy::Upstream::Stdio {
        command: test_server_binary().display().to_string(),
        args: vec![],
        env: vec![],
        cwd: None,
    }
}
