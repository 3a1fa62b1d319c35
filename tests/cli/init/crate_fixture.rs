//! `mcpeval init` in a Rust crate (`tests/fixtures/init-crate`, two binaries): the binary it
//! starts, `tests/evals.rs`, and the `Cargo.toml` lines, added with the file's comments and
//! alignment kept, or printed.

use std::os::unix::fs::PermissionsExt;

use super::*;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/init-crate");

/// A copy of the fixture crate in a fresh directory.
fn crate_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["Cargo.toml", "src/main.rs", "src/admin.rs"] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(FIXTURE).join(file), to).unwrap();
    }
    dir
}

/// A launcher script standing in for the built `acme-server`: `mcpeval demo-server`.
fn launcher(dir: &Path) -> String {
    let path = dir.join("acme-server.sh");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nexec \"{MCPEVAL}\" demo-server\n"),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn in_a_crate_with_two_binaries_init_asks_which() {
    let dir = crate_copy();
    let out = init(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("package acme has 2 binaries: acme-admin, acme-server; say which is the MCP server with --bin NAME"),
        "{stderr}"
    );
    let out = init(dir.path(), &["--bin", "acme"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("package acme has no binary `acme`; its binaries: acme-admin, acme-server"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn in_a_crate_init_writes_the_harness_and_keeps_cargo_toml_as_written() {
    let dir = crate_copy();
    let bin = launcher(dir.path());
    let original = read(dir.path().join("Cargo.toml"));
    let out = mcpeval_in(
        dir.path(),
        &[
            "init",
            "--bin",
            "acme-server",
            "--name",
            "acme",
            "--dependency",
            "path",
        ],
        &[("ACME_SERVER_BIN", &bin)],
    );
    assert_ok(&out);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("wrote tests/evals.rs\n"), "{stdout}");
    assert!(
        stdout.contains(
            "added to Cargo.toml: mcpeval-harness to [dev-dependencies], [[test]] evals (harness = false)"
        ),
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("it resolves on this machine only"),
        "{}",
        text(&out.stderr)
    );
    let manifest = read(dir.path().join("Cargo.toml"));
    assert!(manifest.starts_with(&original), "{manifest}");
    // The dev-dependency is the checkout mcpeval was built from: absolute, or relative to the
    // crate when the temporary directory shares more than the root with the checkout (a
    // checkout under /tmp). Masked: it differs per machine.
    let masked = mask_checkout_path(&manifest, dir.path());
    insta::assert_snapshot!("crate_cargo_toml", masked);
    insta::assert_snapshot!("crate_evals_rs", read(dir.path().join("tests/evals.rs")));
    let eval = dir.path().join("evals/acme/eval.yaml");
    insta::assert_snapshot!(
        "crate_mcp_config_yaml",
        read(dir.path().join("evals/acme/mcp-config.yaml"))
    );
    let env = [("ACME_SERVER_BIN", bin.as_str())];
    assert_eq!(validate(&eval, &env).len(), 5);
    assert_eq!(listed(&eval, &env).len(), 5);

    // Another eval in the same crate: Cargo.toml and tests/evals.rs are left as they are.
    let evals_rs = read(dir.path().join("tests/evals.rs"));
    let out = mcpeval_in(
        dir.path(),
        &["init", "--bin", "acme-server", "--name", "acme-again"],
        &[("ACME_SERVER_BIN", &bin)],
    );
    assert_ok(&out);
    assert_eq!(read(dir.path().join("Cargo.toml")), manifest);
    assert_eq!(read(dir.path().join("tests/evals.rs")), evals_rs);
    assert!(
        !text(&out.stdout).contains("Cargo.toml"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn print_cargo_prints_the_lines_and_leaves_cargo_toml_alone() {
    let dir = crate_copy();
    let bin = launcher(dir.path());
    let original = read(dir.path().join("Cargo.toml"));
    let out = mcpeval_in(
        dir.path(),
        &["init", "--bin", "acme-server", "--print-cargo"],
        &[("ACME_SERVER_BIN", &bin)],
    );
    assert_ok(&out);
    // By default, what fits how this mcpeval was built (the test binary's library was built
    // by the same build script, so it knows the same).
    let (dependency, _) =
        mcpeval::init::Dependency::choose(None, &mcpeval::init::BuildSource::current()).unwrap();
    assert_eq!(
        text(&out.stdout),
        format!(
            "[dev-dependencies]\n{}\n\n[[test]]\nname = \"evals\"\nharness = false\n\n\
             # mcpeval's own code without debug info: a third quicker to build (mcpeval init).\n\
             [profile.dev.package.mcpeval-harness]\ndebug = false\n",
            dependency.line(dir.path())
        )
    );
    assert!(
        text(&out.stderr).contains("wrote tests/evals.rs"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(read(dir.path().join("Cargo.toml")), original);
}

#[test]
fn in_a_crate_the_binary_is_built_when_its_variable_is_unset() {
    let dir = crate_copy();
    let target = dir.path().join("target");
    let out = mcpeval_in(
        dir.path(),
        &["init", "--bin", "acme-server"],
        &[
            ("MCPEVAL_BIN", MCPEVAL),
            ("CARGO_TARGET_DIR", &target.display().to_string()),
        ],
    );
    assert_ok(&out);
    assert!(
        text(&out.stderr).contains("cargo build --bin acme-server"),
        "{}",
        text(&out.stderr)
    );
    assert!(target.join("debug/acme-server").exists());
    // The server's own name, as the demo server behind the launcher says it.
    let config = read(dir.path().join("evals/mcpeval-demo-server/mcp-config.yaml"));
    assert!(
        config.contains("command: \"${ACME_SERVER_BIN}\""),
        "{config}"
    );
}

#[test]
fn dependency_version_writes_this_version_and_git_needs_a_remote() {
    let dir = crate_copy();
    let bin = launcher(dir.path());
    let print = |kind: &str| {
        mcpeval_in(
            dir.path(),
            &[
                "init",
                "--bin",
                "acme-server",
                "--print-cargo",
                "--dependency",
                kind,
            ],
            &[("ACME_SERVER_BIN", &bin)],
        )
    };
    let out = print("version");
    assert_ok(&out);
    assert!(
        text(&out.stdout).starts_with(&format!(
            "[dev-dependencies]\nmcpeval-harness = {{ version = \"{}\", default-features = false }}\n",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        text(&out.stdout)
    );
    std::fs::remove_dir_all(dir.path().join("evals")).unwrap();
    std::fs::remove_file(dir.path().join("tests/evals.rs")).unwrap();
    let out = print("git");
    let source = mcpeval::init::BuildSource::current();
    match source.git.as_ref().and_then(|git| git.remote.as_ref()) {
        Some(remote) => {
            assert_ok(&out);
            assert!(text(&out.stdout).contains(&format!("git = {remote:?}")));
        }
        None => {
            assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
            assert!(
                text(&out.stderr).contains(
                    "mcpeval init: --dependency git: this mcpeval knows no git URL to depend on"
                ),
                "{}",
                text(&out.stderr)
            );
            assert!(!dir.path().join("evals").exists(), "nothing written");
        }
    }
}

/// `manifest` with the path of its `mcpeval-harness` dependency, which must lead from `crate_dir`
/// to this checkout, as `[mcpeval checkout]`.
fn mask_checkout_path(manifest: &str, crate_dir: &std::path::Path) -> String {
    let prefix = "mcpeval-harness = { path = \"";
    let line = manifest
        .lines()
        .find(|line| line.starts_with(prefix))
        .unwrap_or_else(|| panic!("no path dependency on mcpeval-harness:\n{manifest}"));
    let path = &line[prefix.len()..];
    let path = &path[..path.find('"').expect("the path's closing quote")];
    let checkout = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).unwrap();
    assert_eq!(
        std::fs::canonicalize(crate_dir.join(path)).ok(),
        Some(checkout),
        "the dependency's path {path:?} leads from {} to the checkout",
        crate_dir.display()
    );
    manifest.replace(
        &format!("{prefix}{path}\""),
        &format!("{prefix}[mcpeval checkout]\""),
    )
}
