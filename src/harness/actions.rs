//! Under GitHub Actions (`GITHUB_ACTIONS=true`), the end of a run: a workflow command per
//! failed test (`::error`, at the failing assertion's line of the eval file when its first
//! reason is an assertion's, else line 1 of the task file) and per flaky test that passed
//! (`::warning`), on stderr, where the runner reads them too; and the run's summary as
//! markdown appended to the job summary. Nothing of the kind elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::LocationIndex;
use crate::report::github::{self, Place, workspace_path};
use crate::report::{COMMENT_LIMIT, TaskResult, TestOutcome, merge, report_markdown};

/// The annotations of `results` and, with `job_summary`, their summary; `eval_files` holds
/// each eval's file by name.
pub(super) fn report(
    results: &[TaskResult],
    eval_files: &BTreeMap<String, PathBuf>,
    job_summary: bool,
) {
    if !github::in_actions() || results.is_empty() {
        return;
    }
    let workspace = std::env::var_os(github::WORKSPACE_VAR).map(PathBuf::from);
    let place = |test: &TestOutcome<'_>| place(test, eval_files, workspace.as_deref());
    for line in github::annotations(results, &place) {
        eprintln!("{line}");
    }
    if job_summary {
        let markdown = report_markdown(&merge(results.to_vec()), &[], COMMENT_LIMIT);
        if let Err(e) = github::append_step_summary(&markdown) {
            eprintln!(
                "note: cannot append to the job summary (${}): {e}",
                github::STEP_SUMMARY_VAR
            );
        }
    }
}

/// Where a test's annotation points: the key of the assertion its first reason is about
/// (`<key> (<task set>): …`) in the eval file, else the task file's first line.
pub(super) fn place(
    test: &TestOutcome<'_>,
    eval_files: &BTreeMap<String, PathBuf>,
    workspace: Option<&Path>,
) -> Place {
    let run = test.first_failed().unwrap_or(test.runs[0]);
    let reason = run.reasons.first();
    let eval = eval_files.get(&run.eval_name);
    if let (Some(reason), Some(eval)) = (reason, eval) {
        for (key, assertion) in &run.assertion_results {
            let failed = assertion.details.iter().filter(|detail| !detail.passed);
            for detail in failed {
                if reason.starts_with(&format!("{key} ({}):", detail.task_set)) {
                    let key_path = format!("{}.assertions.{key}", detail.task_set);
                    let line = std::fs::read_to_string(eval)
                        .ok()
                        .and_then(|source| LocationIndex::build(&source).find(&key_path));
                    return Place {
                        file: workspace_path(eval, workspace),
                        line: line.map_or(1, |(line, _)| line),
                    };
                }
            }
        }
    }
    Place {
        file: workspace_path(Path::new(&run.task_path), workspace),
        line: 1,
    }
}
