//! The repository's own test sets: `cargo test-fast` (.cargo/config.toml) runs every test
//! target but the `slow` binary, so a new test binary cannot fall out of the fast set.

use std::collections::BTreeSet;
use std::path::Path;

/// The integration-test targets Cargo finds: `tests/<name>.rs` and `tests/<name>/main.rs`.
fn test_targets(root: &Path) -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".rs") {
            targets.insert(stem.to_owned());
        } else if path.join("main.rs").is_file() {
            targets.insert(name);
        }
    }
    targets
}

#[test]
fn the_fast_set_is_every_test_target_but_slow() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = std::fs::read_to_string(root.join(".cargo/config.toml")).unwrap();
    let alias = regex::Regex::new(r#""--test",\s*"([\w-]+)""#).unwrap();
    let fast: BTreeSet<String> = alias
        .captures_iter(&config)
        .map(|found| found[1].to_owned())
        .collect();
    let mut expected = test_targets(root);
    assert!(
        expected.remove("slow"),
        "no tests/slow/main.rs: {expected:?}"
    );
    assert_eq!(
        fast, expected,
        "the `--test` targets of test-fast in .cargo/config.toml"
    );
    assert!(config.contains(r#""--lib", "--bins""#), "{config}");
}
