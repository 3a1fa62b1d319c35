//! The repository's own test sets: `cargo test-fast` (.cargo/config.toml) runs every test
//! target but the `slow` binary, so a new test binary cannot fall out of the fast set; and a
//! test's nested `cargo` leaves the target dir as it found it; the agent programs' tested
//! versions are those CI installs.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::files::rust_files;

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

/// A `cargo` a test starts sees the variables Cargo set for the test (`CARGO_MANIFEST_DIR`,
/// `OUT_DIR`, …) unless it drops them; ring's build script watches one, so that build and the
/// next outer one each rebuild ring, rustls, reqwest, rmcp and mcpeval (half a minute to a
/// minute a time). Tests start cargo through `support::cargo::command()`, which drops them.
#[test]
fn a_test_starts_cargo_without_the_variables_cargo_set_for_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let direct =
        regex::Regex::new(r#"Command::new\((env!\("CARGO"\)|"cargo"|std::env::var\("CARGO"\))"#)
            .unwrap();
    let files = rust_files(&root.join("tests"));
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        if file.ends_with("tests/support/cargo.rs") || text.contains("without_test_variables") {
            continue;
        }
        for (index, line) in text.lines().enumerate() {
            if direct.is_match(line) {
                found.push(format!("{}:{}: {}", file.display(), index + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cargo started without `support::cargo::command()`:\n{}",
        found.join("\n")
    );
}

/// Each type of the crate has a name of its own (`src/`: structs, enums, traits and type
/// aliases, tests included): a reader who meets a name knows which type it is.
#[test]
fn no_two_types_share_a_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let declaration =
        regex::Regex::new(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|type)\s+([A-Z]\w*)")
            .unwrap();
    // Associated types of trait impls (`type Error = …;` inside an impl) name no new type.
    let associated = [
        "Err", "Error", "Item", "Output", "Target", "Value", "Future", "Variant",
    ];
    let files = rust_files(&root.join("src"));
    let mut seen: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for line in text.lines() {
            if let Some(found) = declaration.captures(line) {
                let name = found[1].to_owned();
                if line.trim_start().starts_with("type ") && associated.contains(&name.as_str()) {
                    continue;
                }
                seen.entry(name).or_default().push(shown.clone());
            }
        }
    }
    let shared: Vec<String> = seen
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|(name, files)| format!("{name}: {}", files.join(", ")))
        .collect();
    assert!(
        shared.is_empty(),
        "types that share a name:\n{}",
        shared.join("\n")
    );
}

/// The version of each agent program the builtin kinds name (and Claude Code's ACP adapter) is
/// the one `.ci/install-peers.sh` installs: what mcpeval's messages and `mcpeval init`'s
/// workflow tell a user to install is what the tests ran.
#[test]
fn the_tested_versions_of_the_agent_programs_are_the_ones_ci_installs() {
    let script =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/install-peers.sh"))
            .unwrap();
    let installed = |package: &str| {
        script.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("install") && words.next() == Some(package))
                .then(|| words.next().map(str::to_owned))
                .flatten()
        })
    };
    let programs = mcpeval::config::BUILTINS
        .iter()
        .filter_map(|kind| kind.program)
        .chain([mcpeval::config::CLAUDE_CODE_ACP]);
    for program in programs {
        assert_eq!(
            installed(program.package).as_deref(),
            Some(program.tested_version),
            "{} ({}): .ci/install-peers.sh installs another version",
            program.display,
            program.package
        );
    }
}
