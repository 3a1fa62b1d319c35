use super::*;

/// `cargo metadata --no-deps` of a workspace of three packages (trimmed to what is read).
fn workspace(build_directory: Option<&str>) -> Metadata {
    let json = serde_json::json!({
        "packages": [
            {"name": "acme-server", "id": "x", "manifest_path": "/ws/acme-server/Cargo.toml", "targets": [
                {"name": "acme-server", "kind": ["bin"], "src_path": "/ws/acme-server/src/main.rs"},
                {"name": "evals", "kind": ["test"]}
            ]},
            {"name": "acme-http", "manifest_path": "/ws/acme-http/Cargo.toml", "targets": [
                {"name": "acme_http", "kind": ["lib"]},
                {"name": "acme-http-server", "kind": ["bin"], "required-features": ["cli", "tls"]}
            ]},
            {"name": "acme-evals", "manifest_path": "/ws/acme-evals/Cargo.toml", "targets": [{"name": "acme_evals", "kind": ["lib"]}]}
        ],
        "workspace_root": "/ws",
        "target_directory": "/ws/target",
        "build_directory": build_directory,
        "version": 1
    });
    Metadata::parse(json.to_string().as_bytes()).unwrap()
}

fn wanted(bin: &str) -> CargoBin {
    CargoBin {
        var: "ACME_BIN".into(),
        bin: bin.into(),
    }
}

fn build(target_dir: &str, triple: Option<&str>, profile_dir: &str) -> TestBuild {
    TestBuild {
        target_dir: target_dir.into(),
        triple: triple.map(str::to_owned),
        profile_dir: profile_dir.into(),
    }
}

#[test]
fn a_bin_of_another_package_is_built_with_that_package_into_the_test_profile() {
    let located = workspace(None)
        .locate(
            &wanted("acme-server"),
            Some(&build("/ws/target", None, "debug")),
            Path::new("/usr/bin/cargo"),
        )
        .unwrap();
    assert_eq!(located.var, "ACME_BIN");
    let exe = format!(
        "/ws/target/debug/acme-server{}",
        std::env::consts::EXE_SUFFIX
    );
    assert_eq!(located.path, Path::new(&exe));
    assert_eq!(
        located.build.to_string(),
        "cargo build --bin acme-server --package acme-server --target-dir /ws/target"
    );
    assert_eq!(located.build.workspace_root, Path::new("/ws"));
}

#[test]
fn a_custom_profile_a_target_triple_and_required_features_are_passed_on() {
    let located = workspace(None)
        .locate(
            &wanted("acme-http-server"),
            Some(&build(
                "/elsewhere",
                Some("x86_64-unknown-linux-musl"),
                "ci",
            )),
            Path::new("cargo"),
        )
        .unwrap();
    let exe = format!(
        "/elsewhere/x86_64-unknown-linux-musl/ci/acme-http-server{}",
        std::env::consts::EXE_SUFFIX
    );
    assert_eq!(located.path, Path::new(&exe));
    assert_eq!(
        located.build.to_string(),
        "cargo build --bin acme-http-server --package acme-http --profile ci \
         --target x86_64-unknown-linux-musl --target-dir /elsewhere --features cli,tls"
    );
}

#[test]
fn release_tests_build_release_binaries() {
    let located = workspace(None)
        .locate(
            &wanted("acme-server"),
            Some(&build("/ws/target", None, "release")),
            Path::new("cargo"),
        )
        .unwrap();
    assert!(located.path.starts_with("/ws/target/release"));
    assert!(located.build.args.contains(&"--release".to_owned()));
}

#[test]
fn a_test_binary_outside_a_target_dir_uses_the_workspace_target_dir() {
    let located = workspace(None)
        .locate(&wanted("acme-server"), None, Path::new("cargo"))
        .unwrap();
    assert!(located.path.starts_with("/ws/target/debug"), "{located:?}");
    assert!(
        located
            .build
            .to_string()
            .ends_with("--target-dir /ws/target")
    );
}

#[test]
fn binaries_go_to_the_target_dir_when_build_dir_holds_the_test_binary() {
    let split = workspace(Some("/cache/build/ws"));
    assert_eq!(
        split.artifact_dir(Path::new("/cache/build/ws")),
        Path::new("/ws/target")
    );
    assert_eq!(split.artifact_dir(Path::new("/other")), Path::new("/other"));
    let same = workspace(Some("/ws/target"));
    assert_eq!(
        same.artifact_dir(Path::new("/ws/target")),
        Path::new("/ws/target")
    );
}

#[test]
fn a_misspelled_bin_is_suggested_and_the_known_bins_are_listed() {
    let error = workspace(None)
        .locate(&wanted("acme-sever"), None, Path::new("cargo"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "no binary `acme-sever` in the Cargo workspace at /ws; did you mean `acme-server`?; \
         its binaries: `acme-http-server` (package acme-http), `acme-server` (package acme-server)"
    );
}

#[test]
fn only_a_typo_is_suggested() {
    let names = ["acme-server", "acme-http-server"];
    assert_eq!(closest("acme-sever", &names), Some("acme-server"));
    assert_eq!(closest("acme_server", &names), Some("acme-server"));
    assert_eq!(closest("acme-servers", &names), Some("acme-server"));
    assert_eq!(closest("acme-http", &names), None);
    assert_eq!(closest("server", &names), None);
    assert_eq!(closest("acme-server", &["acme-http-server"]), None);
}

#[test]
fn tests_and_libraries_are_not_binaries() {
    let error = workspace(None).find_bin("evals").unwrap_err().to_string();
    assert!(error.starts_with("no binary `evals`"), "{error}");
    assert!(workspace(None).find_bin("acme_http").is_err());
}

#[test]
fn a_workspace_without_binaries_says_so() {
    let mut workspace = workspace(None);
    workspace.packages.truncate(0);
    let error = workspace.find_bin("acme-server").unwrap_err().to_string();
    assert_eq!(
        error,
        "no binary `acme-server` in the Cargo workspace at /ws; its packages have no binary targets"
    );
}

#[test]
fn metadata_that_is_not_a_workspace_is_an_error() {
    assert!(Metadata::parse(b"warning: something\n").is_err());
    assert!(Metadata::parse(br#"{"packages": []}"#).is_err());
}

#[test]
fn a_failed_build_shows_cargos_error_lines() {
    let lines = [
        "   Compiling acme-server v0.1.0 (/ws/acme-server)",
        "error[E0425]: cannot find value `x` in this scope",
        " --> acme-server/src/main.rs:3:5",
        "error: could not compile `acme-server` (bin \"acme-server\") due to 1 previous error",
    ]
    .map(str::to_owned);
    assert_eq!(
        error_lines(lines, "\n  "),
        "\n  error[E0425]: cannot find value `x` in this scope\n  error: could not compile \
         `acme-server` (bin \"acme-server\") due to 1 previous error"
    );
    let quiet = (1..=8).map(|n| format!("line {n}"));
    assert_eq!(
        error_lines(quiet, "|"),
        "|line 4|line 5|line 6|line 7|line 8"
    );
}

#[test]
fn a_missing_cargo_is_an_error_naming_the_command() {
    let error = Metadata::read(Path::new("/nonexistent/cargo"), Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(
            "`cargo metadata --format-version 1 --no-deps` did not run: /nonexistent/cargo (in .)"
        ),
        "{error}"
    );
}
