//! The crate's build script (build.rs) watches only files that exist: a path Cargo is told to
//! watch and cannot find counts as changed, so every build, and every nested `cargo` a test
//! runs, would compile the crate again.

/// `cargo test --no-run --test fixture -v` in this checkout (what tests/run/snapshot_update.rs
/// runs, built already by the `cargo test` running this test): its stderr, Cargo's
/// `Fresh`/`Dirty`/`Compiling` lines.
fn build() -> String {
    let out = crate::support::cargo::command()
        .args(["test", "--no-run", "--test", "fixture", "-v"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "cargo test --no-run: {stderr}");
    stderr
}

#[test]
fn a_second_build_compiles_nothing() {
    build();
    let second = build();
    let ours: Vec<&str> = second
        .lines()
        .filter(|line| line.contains("mcpeval-harness"))
        .collect();
    assert!(
        ours.iter()
            .any(|line| line.trim_start().starts_with("Fresh")),
        "{second}"
    );
    assert!(
        !ours
            .iter()
            .any(|line| line.trim_start().starts_with("Compiling") || line.contains("Dirty")),
        "the second build compiled the crate again:\n{second}"
    );
}
