//! GitHub Actions' workflow commands (`::error …::`, `::warning …::`) for failed and flaky
//! tests, escaped as the runner reads them, and the job summary (`$GITHUB_STEP_SUMMARY`).
//! Only under Actions (`GITHUB_ACTIONS=true`): elsewhere nothing of the kind is written.

use std::io::Write;
use std::path::Path;

use super::outcome::{TestOutcome, test_outcomes};
use crate::report::results::TaskResult;

/// Set to `true` by GitHub Actions in every step.
pub const ACTIONS_VAR: &str = "GITHUB_ACTIONS";
/// The file a step appends its job summary (markdown) to.
pub const STEP_SUMMARY_VAR: &str = "GITHUB_STEP_SUMMARY";
/// The checkout's directory: annotation paths are relative to it.
pub const WORKSPACE_VAR: &str = "GITHUB_WORKSPACE";

/// Running as a step of GitHub Actions.
pub fn in_actions() -> bool {
    std::env::var(ACTIONS_VAR).is_ok_and(|value| value == "true")
}

/// A command's message as the runner reads it: `%`, `\r` and `\n` escaped.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value as the runner reads it: as a message, and `:` and `,` too.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Where an annotation points: a file (relative to the workspace) and a line from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The file, as the repository names it.
    pub file: String,
    /// Its line, from 1.
    pub line: u64,
}

/// `path` relative to `workspace` when it lies inside it (a relative `path` is taken from
/// the current directory first), else as given.
pub fn workspace_path(path: &Path, workspace: Option<&Path>) -> String {
    let absolute = match std::env::current_dir() {
        Ok(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    };
    let relative = workspace.and_then(|ws| absolute.strip_prefix(ws).ok());
    match relative {
        Some(inside) => inside.display().to_string(),
        None => path.display().to_string(),
    }
}

/// One workflow command per test: `::error` for a failed test (its first reason), `::warning`
/// for a passed one whose runs both passed and failed; `place` says where each points.
pub fn annotations(
    results: &[TaskResult],
    place: &dyn Fn(&TestOutcome<'_>) -> Place,
) -> Vec<String> {
    let mut lines = Vec::new();
    for test in test_outcomes(results) {
        let (level, message) = if !test.passed() {
            ("error", test.first_reason())
        } else if test.is_flaky() {
            let message = format!(
                "flaky: {}; minPassRate {}",
                test.count.describe(),
                test.min_pass_rate()
            );
            ("warning", message)
        } else {
            continue;
        };
        let Place { file, line } = place(&test);
        lines.push(format!(
            "::{level} file={},line={line},title={}::{}",
            escape_property(&file),
            escape_property(test.test_name),
            escape_data(&message)
        ));
    }
    lines
}

/// Appends `markdown` to the job summary file `$GITHUB_STEP_SUMMARY` names; `Ok(false)`
/// when it names none.
pub fn append_step_summary(markdown: &str) -> std::io::Result<bool> {
    let Some(path) = std::env::var_os(STEP_SUMMARY_VAR).filter(|p| !p.is_empty()) else {
        return Ok(false);
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    file.write_all(markdown.as_bytes())?;
    file.write_all(b"\n")?;
    Ok(true)
}

#[cfg(test)]
#[path = "github_tests.rs"]
mod tests;
