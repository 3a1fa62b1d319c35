//! The dev-dependency `mcpeval init` writes resolves away from the machine that wrote it: a
//! crate initialised with it is copied to a fresh directory, where the path of the checkout
//! mcpeval was built from appears nowhere in its manifest, and built offline with each kind
//! of dependency a test can serve without crates.io: a path relative to the crate (the
//! mcpeval source placed beside the copy as it was beside the original) and a git
//! dependency on a `file://` bare clone of this repository. (A version dependency needs
//! crates.io: src/init/dependency_tests.rs checks what it writes.)
//!
//! The copies build into `<our target>/rust-workspace` with the lock file of
//! tests/fixtures/rust-workspace, so they share the dependencies tests/slow/rust_workspace.rs
//! builds (the first run on an empty target dir compiles them: minutes on 2 cores); each
//! builds mcpeval-harness from its own source.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use mcpeval::init::{Dependency, GitRef};
use support::cli::text;
use support::files::copy_tree;

const MCPEVAL: &str = env!("CARGO_BIN_EXE_mcpeval");
const CHECKOUT: &str = env!("CARGO_MANIFEST_DIR");
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/init-crate");

/// mcpeval's own build settings (as tests/fixtures/rust-workspace has them): the copies
/// reuse the dependencies built with them.
const PROFILE: &str = r#"
[profile.dev]
debug = "line-tables-only"
[profile.dev.package."*"]
debug = false
[profile.dev.package.tiktoken-rs]
opt-level = 3
[profile.dev.package.fancy-regex]
opt-level = 3
[profile.dev.package.base64]
opt-level = 3
"#;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn assert_ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// The fixture crate at `dir`, initialised by `mcpeval init ARGS` (its server: a launcher
/// of `mcpeval demo-server`).
fn initialised_crate(dir: &Path, args: &[&str]) -> Output {
    let _ = std::fs::remove_dir_all(dir);
    for file in ["Cargo.toml", "src/main.rs", "src/admin.rs"] {
        let to = dir.join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(FIXTURE).join(file), to).unwrap();
    }
    let manifest = dir.join("Cargo.toml");
    std::fs::write(&manifest, read(&manifest) + PROFILE).unwrap();
    let launcher = dir.join("acme-server.sh");
    std::fs::write(
        &launcher,
        format!("#!/bin/sh\nexec {MCPEVAL:?} demo-server\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(MCPEVAL)
        .args(["init", "--bin", "acme-server", "--name", "acme"])
        .args(args)
        .current_dir(dir)
        .env("ACME_SERVER_BIN", &launcher)
        .output()
        .unwrap();
    assert_ok("mcpeval init", &out);
    out
}

/// The crate's files (no `target`) copied to `to`, with the shared lock file.
fn copy_crate(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    for entry in ["Cargo.toml", "src", "tests", "evals"] {
        copy_tree(&from.join(entry), &to.join(entry));
    }
    std::fs::copy(
        Path::new(CHECKOUT).join("tests/fixtures/rust-workspace/Cargo.lock"),
        to.join("Cargo.lock"),
    )
    .unwrap();
}

/// `cargo test --no-run` of the crate in `dir`, with [`crate::fixture_env`].
fn build_offline(dir: &Path, env: &[(&str, &str)]) -> Output {
    crate::fixture_cargo(dir)
        .args(["test", "--no-run"])
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_ok(&format!("git {args:?}"), &out);
    text(&out.stdout).trim().to_owned()
}

/// init writes the source's path relative to the crate when they share a parent: the crate
/// initialised inside this checkout's target dir gets `path = "../../.."`-like, and its copy
/// builds where the mcpeval source sits at that place again (its files linked there), under
/// a directory that has nothing to do with this checkout.
#[test]
fn a_path_dependency_relative_to_the_crate_builds_in_a_fresh_directory() {
    let _turn = crate::cargo_turn();
    let original = Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-dependency/path/acme");
    let out = initialised_crate(&original, &["--dependency", "path"]);
    assert!(
        text(&out.stderr).contains("it resolves on this machine only"),
        "{}",
        text(&out.stderr)
    );
    let manifest = read(&original.join("Cargo.toml"));
    let inside = original
        .strip_prefix(CHECKOUT)
        .expect("the target dir is in the checkout");
    let ups = vec![".."; inside.components().count()].join("/");
    assert!(
        manifest.contains(&format!(
            "mcpeval-harness = {{ path = \"{ups}\", default-features = false }}"
        )),
        "{manifest}"
    );

    // A fresh place: the mcpeval source's files linked into `root`, the crate at the same
    // place below it as below the checkout.
    let fresh = tempfile::tempdir().unwrap();
    let root = fresh.path().join("mcpeval");
    std::fs::create_dir_all(&root).unwrap();
    for entry in std::fs::read_dir(CHECKOUT).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name != "target" && name != ".git" {
            std::os::unix::fs::symlink(entry.path(), root.join(&name)).unwrap();
        }
    }
    let copy = root.join(inside);
    copy_crate(&original, &copy);
    assert!(!read(&copy.join("Cargo.toml")).contains(CHECKOUT));
    let out = build_offline(&copy, &[]);
    assert_ok("cargo test --no-run --offline (path)", &out);
    assert!(
        text(&out.stderr).contains(&format!(
            "Compiling mcpeval-harness v{} ({})",
            env!("CARGO_PKG_VERSION"),
            root.display()
        )),
        "mcpeval-harness is built from the linked source: {}",
        text(&out.stderr)
    );
}

/// A git dependency as init writes it (`{ git = URL, rev = COMMIT }`), on a bare clone of
/// this repository served as a `file://` URL: cargo fetches it (no network), then builds
/// offline. The commit is this checkout's HEAD: what is committed, not the working tree.
#[test]
fn a_git_dependency_on_a_bare_clone_builds_in_a_fresh_directory() {
    let _turn = crate::cargo_turn();
    let fresh = tempfile::tempdir().unwrap();
    let bare = fresh.path().join("mcpeval.git");
    git(
        fresh.path(),
        &[
            "clone",
            "--quiet",
            "--bare",
            CHECKOUT,
            &bare.display().to_string(),
        ],
    );
    let rev = git(Path::new(CHECKOUT), &["rev-parse", "HEAD"]);
    let dependency = Dependency::Git {
        url: format!("file://{}", bare.display()),
        at: GitRef::Rev(rev.clone()),
    };
    let original = Path::new(env!("CARGO_TARGET_TMPDIR")).join("init-dependency/git/acme");
    initialised_crate(&original, &["--dependency", "path"]);
    let copy = fresh.path().join("elsewhere/acme");
    copy_crate(&original, &copy);
    // The line init writes for a git dependency, in place of the path one.
    let manifest = read(&copy.join("Cargo.toml"));
    let path_line = manifest
        .lines()
        .find(|line| line.starts_with("mcpeval-harness = "))
        .unwrap()
        .to_owned();
    let manifest = manifest.replace(&path_line, &dependency.line(&copy));
    assert!(!manifest.contains(CHECKOUT), "{manifest}");
    assert!(
        manifest.contains(&format!(
            "mcpeval-harness = {{ git = \"file://{}\", rev = \"{rev}\", default-features = false }}",
            bare.display()
        )),
        "{manifest}"
    );
    std::fs::write(copy.join("Cargo.toml"), manifest).unwrap();
    // Fetching the git source is the one step that is not offline (a file:// URL: no
    // network; the registry's crates come from the lock file and cargo's cache).
    let fetch = crate::support::cargo::command()
        .args(["fetch"])
        .current_dir(&copy)
        .env("CARGO_NET_GIT_FETCH_WITH_CLI", "true")
        .output()
        .unwrap();
    assert_ok("cargo fetch (the git dependency)", &fetch);
    let out = build_offline(&copy, &[]);
    assert_ok("cargo test --no-run --offline (git)", &out);
    assert!(
        text(&out.stderr).contains(&format!(
            "Compiling mcpeval-harness v{}",
            env!("CARGO_PKG_VERSION")
        )) && text(&out.stderr).contains(&rev[..7]),
        "mcpeval-harness is built from the bare clone's commit: {}",
        text(&out.stderr)
    );
}
