//! A user's Cargo workspace on the newest rmcp (tests/fixtures/rust-workspace), tested with
//! `cargo test` as its user runs it: acme-server (stdio, rmcp's `#[tool_router]` macros)
//! whose own evals use `env!("CARGO_BIN_EXE_acme-server")`; acme-http (streamable HTTP)
//! served by the test binary of acme-evals, whose evals also get acme-server's binary
//! through `Harness::cargo_bin`; the script agent served by the test binaries themselves.
//!
//! The fixture builds into `<our target>/rust-workspace` with `--target-dir` (so its test
//! binaries see no `CARGO_TARGET_DIR` and must find their target dir themselves), reused from
//! run to run: the first build compiles rmcp 3.11 and mcpeval once more (these tests took
//! 3.5 minutes from an empty fixture target dir on 2 cores, 1.6 GB of it), later runs take
//! seconds (10). Tests that change the workspace work on copies under
//! `<our target>/rust-workspace-copies/`, rewritten file by file so that what did not change
//! stays fresh for cargo. The tests take turns: the copies' binaries land on the same paths.

use crate::support::output;

use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust-workspace")
}

/// `cargo test ARGS` in `dir` with [`crate::fixture_env`] and CI=true (insta writes no
/// `.snap.new` into the fixture).
fn cargo_test(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = crate::fixture_cargo(dir);
    command
        .arg("test")
        .args(args)
        .env("CI", "true")
        .envs(env.iter().copied());
    let out = command.output().expect("cargo runs");
    // mcpeval is a path dependency of the fixture: a dependency added to our Cargo.toml needs
    // an entry in the fixture's lock file too.
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("because --locked was passed"),
        "the fixture's Cargo.lock is stale (mcpeval's dependencies changed): run \
         `cargo metadata --format-version 1 --manifest-path \
         tests/fixtures/rust-workspace/Cargo.toml > /dev/null` and commit its Cargo.lock\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `cargo test --locked -p acme-evals --test evals -- ARGS` in `dir`.
fn acme_evals(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut all = vec!["--locked", "-p", "acme-evals", "--test", "evals", "--"];
    all.extend(args);
    cargo_test(dir, &all, env)
}

/// Whether libtest's output says `test NAME ... OUTCOME` (names are padded to one width).
fn says(stdout: &str, test: &str, outcome: &str) -> bool {
    stdout.lines().any(|line| {
        line.strip_prefix("test ")
            .and_then(|rest| rest.split_once(" ... "))
            .is_some_and(|(name, said)| name.trim_end() == test && said == outcome)
    })
}

/// A copy of the fixture with `edits` (file, from, to) made, its workspace root at
/// `<our target>/rust-workspace-copies/<name>` and its packages in `<name>/` there. Only files whose content
/// differs are written (cargo finds the others fresh), files the copy should not have are
/// removed.
///
/// Cargo names the artifacts of a workspace package after its path relative to the
/// workspace root: packages at the fixture's own relative paths would share (and
/// overwrite) the fixture's test binaries and fingerprints in the shared target dir.
fn fixture_copy(name: &str, edits: &[(&str, &str, &str)]) -> PathBuf {
    // Not inside the fixture's target dir: cargo marks a target dir it creates itself
    // (CACHEDIR.TAG), which the harness looks for.
    let copy = crate::fixture_target()
        .with_file_name("rust-workspace-copies")
        .join(name);
    let mut fixture_files = Vec::new();
    collect_files(&fixture(), Path::new(""), &mut fixture_files);
    let ours = env!("CARGO_MANIFEST_DIR");
    let mut wanted = Vec::new();
    for (relative, bytes) in fixture_files {
        let mut text = String::from_utf8(bytes).expect("the fixture's files are text");
        for (file, from, to) in edits {
            if relative == Path::new(file) {
                assert!(text.contains(from), "{file} has no `{from}`");
                text = text.replace(from, to);
            }
        }
        let relative = if relative.components().count() > 1 {
            Path::new(name).join(relative)
        } else {
            relative
        };
        if relative == Path::new("Cargo.toml") {
            text = text.replace(r#"path = "../../..""#, &format!("path = {ours:?}"));
            let members = |line: &str| {
                if line.starts_with("members = [") {
                    line.replace(r#""acme-"#, &format!(r#""{name}/acme-"#))
                } else {
                    line.to_owned()
                }
            };
            text = text.lines().map(members).collect::<Vec<_>>().join("\n") + "\n";
        }
        wanted.push((relative, text.into_bytes()));
    }
    for (relative, text) in &wanted {
        let path = copy.join(relative);
        if std::fs::read(&path).ok().as_ref() != Some(text) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
    }
    let mut present = Vec::new();
    collect_files(&copy, Path::new(""), &mut present);
    for (relative, _) in present {
        if !wanted.iter().any(|(path, _)| *path == relative) {
            std::fs::remove_file(copy.join(relative)).unwrap();
        }
    }
    copy
}

/// The files under `root/relative` (no `target` folder) and their bytes.
fn collect_files(root: &Path, relative: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(root.join(relative)) else {
        return;
    };
    for entry in entries {
        let entry = entry.unwrap();
        let path = relative.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                collect_files(root, &path, files);
            }
        } else {
            files.push((path.clone(), std::fs::read(root.join(&path)).unwrap()));
        }
    }
}

/// The copy whose server's source the tests change (they share its test binary).
const SERVER_EDITS: &str = "server-edits";

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_fixture_is_on_a_newer_rmcp_than_ours() {
    let rmcp_versions = |lock: &str| -> Vec<String> {
        let lock = std::fs::read_to_string(lock).unwrap();
        let lines: Vec<&str> = lock.lines().collect();
        lines
            .windows(2)
            .filter(|pair| pair[0] == r#"name = "rmcp""#)
            .map(|pair| pair[1].to_owned())
            .collect()
    };
    let ours = rmcp_versions(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"));
    let fixtures = rmcp_versions(&fixture().join("Cargo.lock").display().to_string());
    assert_eq!(
        ours,
        [r#"version = "3.9.0""#],
        "README \"Where the server comes from\" says mcpeval is tested on rmcp 3.9.0: update it too"
    );
    // One rmcp for the servers and mcpeval: 3.11 or a newer 3.x.
    assert_eq!(fixtures.len(), 1, "{fixtures:?}");
    let minor: u32 = fixtures[0]
        .trim_start_matches(r#"version = "3."#)
        .split('.')
        .next()
        .and_then(|minor| minor.parse().ok())
        .unwrap_or_else(|| panic!("{fixtures:?}"));
    assert!(minor >= 11, "{fixtures:?}");
}

#[test]
fn the_workspace_evals_pass_and_write_into_the_workspace_target() {
    let _turn = crate::cargo_turn();
    let output_dir = crate::fixture_target().join("mcpeval");
    let _ = std::fs::remove_dir_all(&output_dir);
    let out = cargo_test(&fixture(), &["--locked"], &[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for test in [
        "acme-server::greet", // same package: CARGO_BIN_EXE_acme-server
        "acme-stdio::add",    // another package: cargo_bin("ACME_BIN", "acme-server")
        "acme-stdio::greet",
        "acme-http::product", // streamable HTTP in the test binary: env("ACME_URL", …)
    ] {
        assert!(says(&stdout, test, "ok"), "{test}:\n{stdout}\n{stderr}");
    }
    let results: Vec<String> = std::fs::read_dir(output_dir.join("results"))
        .unwrap_or_else(|e| panic!("{}: {e}", output_dir.join("results").display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for file in [
        "acme-server__greet.json",
        "acme-stdio__add.json",
        "acme-stdio__greet.json",
        "acme-http__product.json",
    ] {
        assert!(results.iter().any(|r| r == file), "{file}: {results:?}");
    }
    for member in ["", "acme-server", "acme-http", "acme-evals"] {
        let target = fixture().join(member).join("target");
        assert!(!target.exists(), "{} exists", target.display());
    }
    // The next build finds everything fresh, the servers Harness::cargo_bin built inside the
    // evals included: a build script that reruns each time (mcpeval's once watched a file
    // that does not exist) or a variable one build sees and the next does not (ring watches
    // `CARGO_MANIFEST_DIR`) compiles mcpeval, or ring, rustls, reqwest, rmcp and mcpeval,
    // on every fixture build.
    let again = cargo_test(&fixture(), &["--locked", "--no-run"], &[]);
    let again_stderr = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{again_stderr}");
    assert!(
        !again_stderr.contains("Compiling"),
        "a second build compiled again:\n{again_stderr}"
    );
}

#[test]
fn a_server_bug_fails_its_eval() {
    let _turn = crate::cargo_turn();
    let out = acme_evals(
        &fixture(),
        &["acme-stdio::add", "--exact"],
        &[("ACME_OFF_BY_ONE", "1")],
    );
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(says(&stdout, "acme-stdio::add", "FAILED"), "{stdout}");
    assert!(stdout.contains("the answer is 43, not 42"), "{stdout}");
}

#[test]
fn a_test_filter_named_script_agent_stays_a_filter() {
    let _turn = crate::cargo_turn();
    let out = acme_evals(&fixture(), &["script-agent"], &[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn the_server_binary_is_rebuilt_when_its_source_changes() {
    let _turn = crate::cargo_turn();
    let copy = fixture_copy(SERVER_EDITS, &[]);
    let greet = ["acme-stdio::greet", "--exact"];
    let out = acme_evals(&copy, &greet, &[]);
    assert!(out.status.success(), "{}", output::text(&out));

    let edit = (
        "acme-server/src/main.rs",
        "Hello, {name}!",
        "Howdy, {name}!",
    );
    let copy = fixture_copy(SERVER_EDITS, &[edit]);
    // Listing builds nothing.
    let out = acme_evals(&copy, &["--list"], &[]);
    assert!(out.status.success(), "{}", output::text(&out));
    assert!(
        !stderr(&out).contains("Compiling acme-server"),
        "{}",
        output::text(&out)
    );
    let out = acme_evals(&copy, &greet, &[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(101), "{stdout}\n{stderr}");
    assert!(stderr.contains("Compiling acme-server"), "{stderr}");
    assert!(
        stdout.contains("the answer is Howdy, Grace!"),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn a_server_that_does_not_build_stops_the_run_with_cargos_errors() {
    let _turn = crate::cargo_turn();
    let edit = (
        "acme-server/src/main.rs",
        "(a + b + bug).to_string()",
        "(a + b + bug + undefined).to_string()",
    );
    let copy = fixture_copy(SERVER_EDITS, &[edit]);
    let out = acme_evals(&copy, &[], &[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    let expected = format!(
        "error: building `acme-server` failed: `cargo build --bin acme-server --package \
         acme-server --target-dir {}` ended with exit status: 101:\n  error[E0425]: cannot \
         find value `undefined` in this scope\n  error: could not compile `acme-server` (bin \
         \"acme-server\") due to 1 previous error\nmcpeval: no task ran because a server \
         binary of the workspace is not ready\n",
        crate::fixture_target().display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    // cargo's own message came first, as it printed it.
    assert!(
        stderr.contains("  --> server-edits/acme-server/src/main.rs"),
        "{stderr}"
    );
    assert!(!stdout.contains("running 3 tests"), "{stdout}");
}

#[test]
fn a_misspelled_bin_is_an_error_naming_the_workspace_bins() {
    let _turn = crate::cargo_turn();
    let edit = (
        "acme-evals/tests/evals.rs",
        r#".cargo_bin("ACME_BIN", "acme-server")"#,
        r#".cargo_bin("ACME_BIN", "acme-sever")"#,
    );
    let copy = fixture_copy("misspelled", &[edit]);
    let out = acme_evals(&copy, &[], &[]);
    let (stdout, stderr) = (stdout(&out), stderr(&out));
    // cargo passes the test binary's exit code on.
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    let expected = format!(
        "error: no binary `acme-sever` in the Cargo workspace at {}; did you mean \
         `acme-server`?; its binaries: `acme-http-server` (package acme-http), `acme-server` \
         (package acme-server)\nmcpeval: no task ran because a server binary of the workspace \
         is not ready\n",
        copy.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(!stdout.contains("running 3 tests"), "{stdout}");
}

#[test]
fn a_workspace_without_the_bin_names_the_bins_it_has() {
    let _turn = crate::cargo_turn();
    let edit = (
        "Cargo.toml",
        r#"members = ["acme-server", "acme-http", "acme-evals"]"#,
        r#"members = ["acme-http", "acme-evals"]"#,
    );
    let copy = fixture_copy("without-bin", &[edit]);
    // The lock file loses acme-server: not --locked.
    let out = cargo_test(
        &copy,
        &["--offline", "-p", "acme-evals", "--test", "evals"],
        &[],
    );
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{}", output::text(&out));
    assert!(
        stderr.contains(&format!(
            "error: no binary `acme-server` in the Cargo workspace at {}; its binaries: \
             `acme-http-server` (package acme-http)\n",
            copy.display()
        )),
        "{stderr}"
    );
}
