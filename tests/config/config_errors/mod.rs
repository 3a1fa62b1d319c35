//! Every broken file under `tests/fixtures/invalid/` is rejected with an error that names the
//! file, the line and column, the key path and what was expected.

use mcpeval::config::ConfigError;

mod agent;
mod assertions;
mod eval_file;
mod extensions;
mod fixtures;
mod mcp_config;
mod robustness;
mod task_files;

/// (eval file under tests/fixtures/invalid, file the error is in, key path, words of the message)
pub(super) type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

/// Every case: the children's tables, one after the other.
pub(super) fn cases() -> Vec<Case> {
    [
        eval_file::CASES,
        extensions::CASES,
        agent::CASES,
        assertions::CASES,
        mcp_config::CASES,
        task_files::CASES,
    ]
    .into_iter()
    .flatten()
    .copied()
    .collect()
}

pub(super) fn describe(errors: &[ConfigError]) -> String {
    errors.iter().map(|e| format!("  {e}\n")).collect()
}
