//! Results files that no longer describe the suite are removed, so that `mcpeval report`
//! over the output directory never merges a run of a task that is gone.
//!
//! - A test replaces its results files as a set: before its runs, those of its files that
//!   they will not overwrite go (a task that ran 3 times and now runs once leaves one file;
//!   the others are replaced atomically, so a reader never finds a test without results).
//! - A process that planned every task of its evals (not `--exact`, not `--list`) removes
//!   the results files of those evals whose test is no longer planned (a renamed or deleted
//!   task). Results of other evals stay.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

/// Removes the results files of the test with file stem `stem` under `results_dir` that
/// `runs` runs will not write (`<stem>.json` for one run, `<stem>.run1.json` …
/// `<stem>.run<runs>.json` for several).
pub(super) fn remove_other_results(results_dir: &Path, stem: &str, runs: u32) {
    let Ok(entries) = std::fs::read_dir(results_dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let stale = match run_of(&name.to_string_lossy(), stem) {
            Some(None) => runs != 1,
            Some(Some(run)) => runs == 1 || run == 0 || run > runs,
            None => false,
        };
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `file_name` is a results file of `stem`: `Some(None)` for `<stem>.json`,
/// `Some(Some(N))` for `<stem>.run<N>.json`.
fn run_of(file_name: &str, stem: &str) -> Option<Option<u32>> {
    let rest = file_name.strip_prefix(stem)?.strip_suffix(".json")?;
    if rest.is_empty() {
        return Some(None);
    }
    let number = rest.strip_prefix(".run")?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(Some(number.parse().unwrap_or(u32::MAX)))
}

/// The two fields of a results file that say whose it is.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Whose {
    eval_name: String,
    test_name: String,
}

/// Removes the results files under `results_dir` of the evals of `planned` (test names,
/// `<eval>::<task>`) whose test is not among them; the names of the files removed.
pub(super) fn remove_unplanned(results_dir: &Path, planned: &BTreeSet<&str>) -> Vec<String> {
    let evals: BTreeSet<&str> = (planned.iter())
        .filter_map(|name| name.split_once("::").map(|(eval, _)| eval))
        .collect();
    let Ok(entries) = std::fs::read_dir(results_dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(whose) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Whose>(&text).ok())
        else {
            continue;
        };
        if evals.contains(whose.eval_name.as_str())
            && !planned.contains(whose.test_name.as_str())
            && std::fs::remove_file(&path).is_ok()
        {
            removed.push(whose.test_name);
        }
    }
    removed.sort();
    removed.dedup();
    removed
}

#[cfg(test)]
mod tests {
    use super::run_of;

    #[test]
    fn the_files_of_a_stem_are_its_own_and_its_runs() {
        assert_eq!(run_of("demo__add.json", "demo__add"), Some(None));
        assert_eq!(run_of("demo__add.run12.json", "demo__add"), Some(Some(12)));
        assert_eq!(run_of("demo__add-two.json", "demo__add"), None);
        assert_eq!(run_of("demo__add.run.json", "demo__add"), None);
        assert_eq!(run_of("demo__add.runx.json", "demo__add"), None);
        assert_eq!(run_of(".demo__add.json.12.tmp", "demo__add"), None);
    }
}
