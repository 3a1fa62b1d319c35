//! Under GitHub Actions (`GITHUB_ACTIONS=true`), the end of a run: a workflow command per
//! failed test (`::error`, at the failing assertion's line of the eval file when its first
//! reason is an assertion's, at the failing step's or the prompt's line of the task file
//! when it is a step's or the agent's, else line 1 of the task file) and per flaky test that passed
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
    let task_file = Path::new(&run.task_path);
    Place {
        file: workspace_path(task_file, workspace),
        line: reason
            .and_then(|reason| task_line(task_file, reason))
            .unwrap_or(1),
    }
}

/// The line of the task file a reason is about: the step of a failed setup, verify or
/// cleanup step (`verify[1] script check.sh: …`), the prompt of a failed agent (`agent: …`);
/// both task versions (`spec.verify[1]`, `steps.verify`).
fn task_line(task_file: &Path, reason: &str) -> Option<u64> {
    let key_paths: Vec<String> = if reason.starts_with("agent: ") {
        vec!["spec.prompt".into(), "steps.prompt".into()]
    } else {
        let (phase, rest) = reason.split_once('[')?;
        let (index, _) = rest.split_once(']')?;
        if !matches!(phase, "setup" | "verify" | "cleanup") || index.parse::<usize>().is_err() {
            return None;
        }
        vec![format!("spec.{phase}[{index}]"), format!("steps.{phase}")]
    };
    let source = std::fs::read_to_string(task_file).ok()?;
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
        let line = |reason: &str| task_line(&file, reason);
        assert_eq!(line("verify[1] inline script: exit code 1"), Some(9));
        assert_eq!(
            line("verify[0] `check` inline script: exit code 1"),
            Some(8)
        );
        assert_eq!(line("agent: the agent failed with exit code 1"), Some(5));
        assert_eq!(line("toolsUsed (config.taskSets[0]): expected …"), None);
        assert_eq!(line("verify[x] script: no"), None);
    }
}
