//! Every broken file under `tests/fixtures/invalid/` has its case, and each gets its precise
//! error.

use std::path::{Path, PathBuf};

use mcpeval::plan::validate_eval;

use super::{cases, describe};

fn invalid_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid")
}

#[test]
fn every_broken_file_gets_a_precise_error() {
    let dir = invalid_dir();
    let mut failures = Vec::new();
    let all = cases();
    for (case, file, key_path, words) in &all {
        let eval = dir.join(format!("{case}.yaml"));
        let errors = match validate_eval(&eval) {
            Ok(names) => {
                failures.push(format!("{case}: expected an error, got tests {names:?}"));
                continue;
            }
            Err(errors) => errors.0,
        };
        let expected_file = dir.join(file);
        let found = errors.iter().find(|e| {
            e.file == expected_file
                && e.key_path == *key_path
                && words.iter().all(|w| e.message.contains(w))
        });
        match found {
            None => failures.push(format!(
                "{case}: no error in {file} at `{key_path}` containing {words:?}; got:\n{}",
                describe(&errors)
            )),
            Some(error) if error.location.is_none() => {
                failures.push(format!("{case}: the error has no line and column: {error}"))
            }
            Some(error) => {
                let shown = error.to_string();
                if !shown.starts_with(&expected_file.display().to_string()) {
                    failures.push(format!(
                        "{case}: the message does not start with the file: {shown}"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn an_unknown_builtin_is_one_error_not_also_a_missing_run_prompt() {
    let errors = validate_eval(&invalid_dir().join("agent-unknown-builtin.yaml"))
        .unwrap_err()
        .0;
    assert_eq!(errors.len(), 1, "{}", describe(&errors));
}

#[test]
fn every_invalid_fixture_has_a_case_and_there_are_at_least_thirty() {
    let mut on_disk: Vec<String> = std::fs::read_dir(invalid_dir())
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".yaml").map(str::to_owned)
        })
        .collect();
    on_disk.sort();
    let all = cases();
    let mut in_table: Vec<String> = all.iter().map(|c| c.0.to_owned()).collect();
    in_table.sort();
    assert_eq!(on_disk, in_table);
    assert!(all.len() >= 30, "only {} cases", all.len());
}
