//! The environment reference (`docs/src/reference/environment.md`) and the `MCPEVAL_*` and
//! `INSTA_*` variables the code reads and sets: each in the other.

use std::collections::BTreeSet;
use std::path::Path;

use super::root;

/// The `MCPEVAL_*` and `INSTA_*` names in the source: what the code reads and sets.
fn variables_in_source(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            variables_in_source(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs")
            || path.to_string_lossy().ends_with("_tests.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for prefix in ["\"MCPEVAL_", "\"INSTA_"] {
            for (start, _) in text.match_indices(prefix) {
                let name: String = text[start + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                out.insert(name.trim_end_matches('_').to_owned());
            }
        }
    }
}

/// The `MCPEVAL_*` and `INSTA_*` names of the environment reference's table rows.
fn variables_in_reference(reference: &str) -> BTreeSet<String> {
    reference
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|rest| rest.split(" |").next())
        .flat_map(|cell| cell.split(", "))
        .map(|name| name.trim_matches('`').to_owned())
        .filter(|name| name.starts_with("MCPEVAL_") || name.starts_with("INSTA_"))
        .collect()
}

#[test]
fn every_mcpeval_variable_is_in_the_reference() {
    let mut names = BTreeSet::new();
    variables_in_source(&root().join("src"), &mut names);
    names.extend(["MCPEVAL_OUTPUT_DIR".to_owned()]);
    let reference =
        std::fs::read_to_string(root().join("docs/src/reference/environment.md")).unwrap();
    let missing: Vec<&String> = names
        .iter()
        .filter(|name| !reference.contains(&format!("| `{name}` |")))
        .collect();
    assert!(names.len() >= 10, "{names:?}");
    assert!(
        missing.is_empty(),
        "not in the reference table: {missing:?}"
    );
}

#[test]
fn every_variable_of_the_reference_is_in_the_code() {
    let mut names = BTreeSet::new();
    variables_in_source(&root().join("src"), &mut names);
    let reference =
        std::fs::read_to_string(root().join("docs/src/reference/environment.md")).unwrap();
    let documented = variables_in_reference(&reference);
    assert!(documented.len() >= 10, "{documented:?}");
    let unknown: Vec<&String> = documented.difference(&names).collect();
    assert!(
        unknown.is_empty(),
        "in docs/src/reference/environment.md but read or set nowhere in src/: {unknown:?}"
    );
}
