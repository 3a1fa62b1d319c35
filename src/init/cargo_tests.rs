use super::*;

const MANIFEST: &str = r#"# The acme server.
[package]
name = "acme"   # keep this comment
version = "0.3.0"
edition = "2021"

[dependencies]
serde = "1"     # aligned comment

[[bin]]
name = "acme"
path = "src/main.rs"
"#;

fn dependency() -> Dependency {
    Dependency::Version("0.1.0".to_owned())
}

fn edited(text: &str) -> (String, Missing) {
    let path = Path::new("Cargo.toml");
    let mut doc = parse_manifest(path, text).unwrap();
    let (missing, _) = self::missing(&doc);
    add_missing(
        &mut doc,
        path,
        missing,
        &dependency(),
        Path::new("/work/acme"),
    )
    .unwrap();
    (doc.to_string(), missing)
}

#[test]
fn the_lines_are_added_and_everything_else_kept() {
    let (text, missing) = edited(MANIFEST);
    assert_eq!(
        missing,
        Missing {
            dev_dependency: true,
            test_target: true,
            profile: true,
        }
    );
    assert!(text.starts_with(MANIFEST), "{text}");
    assert!(
        text.contains("[dev-dependencies]\nmcpeval-harness = { version = \"0.1.0\", default-features = false }\n"),
        "{text}"
    );
    assert!(
        text.contains("[[test]]\nname = \"evals\"\nharness = false\n"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "{PROFILE_COMMENT}[profile.dev.package.mcpeval-harness]\ndebug = false\n"
        )),
        "{text}"
    );
}

#[test]
fn a_profile_of_mcpeval_the_manifest_has_is_kept() {
    let text = format!("{MANIFEST}\n[profile.dev.package.mcpeval-harness]\ndebug = 1\n");
    let (out, missing) = edited(&text);
    assert!(!missing.profile);
    assert_eq!(
        out.matches("[profile.dev.package.mcpeval-harness]").count(),
        1,
        "{out}"
    );
    assert!(out.contains("debug = 1"), "{out}");
    // Another package's profile is not mcpeval's.
    let other = format!("{MANIFEST}\n[profile.dev.package.serde]\ndebug = false\n");
    let (out, missing) = edited(&other);
    assert!(missing.profile);
    assert!(
        out.contains("[profile.dev.package.serde]\ndebug = false\n"),
        "{out}"
    );
    assert!(
        out.contains("[profile.dev.package.mcpeval-harness]\ndebug = false\n"),
        "{out}"
    );
}

#[test]
fn only_a_workspace_root_gets_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let member = dir.path().join("acme");
    std::fs::create_dir_all(&member).unwrap();
    let doc = |text: &str| parse_manifest(Path::new("Cargo.toml"), text).unwrap();
    // No workspace above: the crate is its own root.
    assert!(is_workspace_root(&member, &doc(MANIFEST)));
    // A [workspace] above: a member, whose profiles cargo ignores.
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"acme\"]\n",
    )
    .unwrap();
    assert!(!is_workspace_root(&member, &doc(MANIFEST)));
    // Its own [workspace], or a root named by package.workspace, decides.
    assert!(is_workspace_root(
        &member,
        &doc(&format!("{MANIFEST}\n[workspace]\n"))
    ));
    std::fs::remove_file(dir.path().join("Cargo.toml")).unwrap();
    let named = MANIFEST.replace(
        "edition = \"2021\"",
        "edition = \"2021\"\nworkspace = \"..\"",
    );
    assert!(!is_workspace_root(&member, &doc(&named)));
}

#[test]
fn nothing_is_added_twice() {
    let (once, _) = edited(MANIFEST);
    let (twice, missing) = edited(&once);
    assert_eq!(missing, Missing::default());
    assert_eq!(once, twice);
}

#[test]
fn an_existing_dev_dependency_table_gets_the_line() {
    let text = format!("{MANIFEST}\n[dev-dependencies]\ntempfile = \"3\" # temp dirs\n");
    let (out, _) = edited(&text);
    assert!(
        out.contains("tempfile = \"3\" # temp dirs\nmcpeval-harness = "),
        "{out}"
    );
    assert_eq!(out.matches("[dev-dependencies]").count(), 1, "{out}");
}

#[test]
fn mcpeval_under_any_of_its_keys_is_not_added_again() {
    for line in [
        "mcpeval-harness = \"0.1\"",
        "mcpeval = { path = \"../mcpeval\" }",
        "evals = { package = \"mcpeval-harness\", version = \"0.1\" }",
    ] {
        let text = format!("{MANIFEST}\n[dev-dependencies]\n{line}\n");
        let (missing, _) = missing(&parse_manifest(Path::new("Cargo.toml"), &text).unwrap());
        assert!(!missing.dev_dependency, "{line}");
    }
    // Another package under the key `mcpeval` is not mcpeval.
    let text = format!(
        "{MANIFEST}\n[dev-dependencies]\nmcpeval = {{ package = \"other\", version = \"1\" }}\n"
    );
    let (missing, _) = missing(&parse_manifest(Path::new("Cargo.toml"), &text).unwrap());
    assert!(missing.dev_dependency);
}

#[test]
fn a_test_target_without_harness_false_is_a_warning() {
    let text = format!("{MANIFEST}\n[[test]]\nname = \"evals\"\n");
    let doc = parse_manifest(Path::new("Cargo.toml"), &text).unwrap();
    let (missing, warning) = missing(&doc);
    assert!(!missing.test_target);
    assert!(warning.unwrap().contains("harness = false"));
}

#[test]
fn the_printed_lines_are_what_is_missing() {
    let dir = Path::new("/work/acme");
    let all = cargo_lines(
        Missing {
            dev_dependency: true,
            test_target: true,
            profile: true,
        },
        &dependency(),
        dir,
    );
    assert!(
        all.contains("[dev-dependencies]\nmcpeval-harness = { version = \"0.1.0\", default-features = false }\n")
            && all.contains("[[test]]")
            && all.contains("[profile.dev.package.mcpeval-harness]\ndebug = false\n"),
        "{all}"
    );
    let test_only = cargo_lines(
        Missing {
            dev_dependency: false,
            test_target: true,
            profile: false,
        },
        &dependency(),
        dir,
    );
    assert!(!test_only.contains("[dev-dependencies]"), "{test_only}");
    assert!(!test_only.contains("[profile"), "{test_only}");
}

#[test]
fn evals_rs_hands_over_the_binary() {
    let text = evals_rs(Some(("ACME_BIN", "acme")));
    assert!(
        text.contains(".env(\"ACME_BIN\", env!(\"CARGO_BIN_EXE_acme\"))"),
        "{text}"
    );
    assert!(!evals_rs(None).contains(".env("));
}
