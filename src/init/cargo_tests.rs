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
            test_target: true
        }
    );
    assert!(text.starts_with(MANIFEST), "{text}");
    assert!(
        text.contains("[dev-dependencies]\nmcpeval-harness = { version = \"0.1.0\", default-features = false }\n"),
        "{text}"
    );
    assert!(
        text.ends_with("[[test]]\nname = \"evals\"\nharness = false\n"),
        "{text}"
    );
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
        },
        &dependency(),
        dir,
    );
    assert!(
        all.contains("[dev-dependencies]\nmcpeval-harness = { version = \"0.1.0\", default-features = false }\n")
            && all.contains("[[test]]"),
        "{all}"
    );
    let test_only = cargo_lines(
        Missing {
            dev_dependency: false,
            test_target: true,
        },
        &dependency(),
        dir,
    );
    assert!(!test_only.contains("[dev-dependencies]"), "{test_only}");
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
