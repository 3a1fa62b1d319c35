//! Under GitHub Actions (`GITHUB_ACTIONS=true`), the end of a run: a workflow command per
//! failed test (`::error`, at the failing assertion's line of the eval file when its first
//! reason is an assertion's, at the failing step's or the prompt's line of the task file
//! when it is a step's or the agent's (the results file's `failedAt` says which), else line 1
//! of the task file) and per flaky test that passed
//! (`::warning`), on stderr, where the runner reads them too; and the run's summary as
//! markdown appended to the job summary. Nothing of the kind elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::LocationIndex;
use crate::report::github::{self, Place, workspace_path};
use crate::report::{COMMENT_LIMIT, FailedAt, TaskResult, TestOutcome, merge, report_markdown};

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

/// Where a test's annotation points: what its first reason is about (the results file's
/// `failedAt`): an assertion's key in the eval file, a step's or the prompt's line of the
/// task file; else the task file's first line.
pub(super) fn place(
    test: &TestOutcome<'_>,
    eval_files: &BTreeMap<String, PathBuf>,
    workspace: Option<&Path>,
) -> Place {
    let run = test.first_failed().unwrap_or(test.runs[0]);
    let task_file = Path::new(&run.task_path);
    let (file, key_paths) = match (&run.failed_at, eval_files.get(&run.eval_name)) {
        (
            Some(FailedAt::Assertion {
                assertion,
                task_set,
            }),
            Some(eval),
        ) => (
            eval.as_path(),
            vec![format!("{task_set}.assertions.{assertion}")],
        ),
        (Some(FailedAt::Assertion { .. }), None) | (None, _) => (task_file, Vec::new()),
        (Some(FailedAt::Agent), _) => {
            (task_file, vec!["spec.prompt".into(), "steps.prompt".into()])
        }
        // Both task versions: `spec.verify[1]`, `steps.verify`.
        (Some(FailedAt::Step { phase, index }), _) => (
            task_file,
            vec![format!("spec.{phase}[{index}]"), format!("steps.{phase}")],
        ),
    };
    Place {
        file: workspace_path(file, workspace),
        line: line_of(file, &key_paths).unwrap_or(1),
    }
}

/// The line of the first of `key_paths` that `file` has.
fn line_of(file: &Path, key_paths: &[String]) -> Option<u64> {
    if key_paths.is_empty() {
        return None;
    }
    let source = std::fs::read_to_string(file).ok()?;
    let locations = LocationIndex::build(&source);
    key_paths
        .iter()
        .find_map(|key_path| locations.find(key_path))
        .map(|(line, _)| line)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TASK: &str = "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: t}\nspec:\n  prompt:\n    inline: hi\n  verify:\n    - script: {inline: 'true'}\n    - script: {inline: 'false'}\n";

    #[test]
    fn a_failed_step_or_agent_points_at_its_line_of_the_task_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("t.yaml");
        std::fs::write(&file, TASK).unwrap();
        let run = |failed_at: Option<FailedAt>| TaskResult {
            task_path: file.display().to_string(),
            eval_name: "e".into(),
            failed_at,
            ..TaskResult::default()
        };
        let line = |failed_at: Option<FailedAt>| {
            let result = run(failed_at);
            let test = TestOutcome {
                test_name: "e::t",
                runs: vec![&result],
                count: crate::report::PassCount { passed: 0, runs: 1 },
            };
            place(&test, &BTreeMap::new(), None).line
        };
        let step = |phase: &str, index| FailedAt::Step {
            phase: phase.into(),
            index,
        };
        assert_eq!(line(Some(step("verify", 1))), 9);
        assert_eq!(line(Some(step("verify", 0))), 8);
        assert_eq!(line(Some(FailedAt::Agent)), 5);
        // A step the file lacks: the nearest key it has (`spec`).
        assert_eq!(line(Some(step("setup", 0))), 4);
        // An assertion without the eval's file, or nothing known: the first line.
        let assertion = FailedAt::Assertion {
            assertion: "toolsUsed".into(),
            task_set: "taskSets[0]".into(),
        };
        assert_eq!(line(Some(assertion)), 1);
        assert_eq!(line(None), 1);
    }
}
