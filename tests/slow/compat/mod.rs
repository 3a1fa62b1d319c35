//! mcpchecker's files load and run unchanged: paths as mcpchecker resolves them, its names
//! and aliases, its environment-built MCP config, step ids, judge references, agent options.

mod agents;
mod judge;
mod mcp_env;
mod names;
mod skills;
mod steps;

use std::path::{Path, PathBuf};

pub(super) fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(path)
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether libtest's output says `name` passed (`test NAME ... ok`, names padded).
pub(super) fn passed(stdout: &str, name: &str) -> bool {
    stdout.lines().any(|line| {
        line.strip_prefix("test ")
            .and_then(|rest| rest.strip_suffix(" ... ok"))
            .is_some_and(|test| test.trim_end() == name)
    })
}

/// The results file of the only task run under `output`.
pub(super) fn only_result(output: &Path) -> serde_json::Value {
    let results: Vec<_> = std::fs::read_dir(output.join("results"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    serde_json::from_str(&std::fs::read_to_string(&results[0]).unwrap()).unwrap()
}

/// Writes `files` (path, text) under a fresh directory.
pub(super) fn files(list: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in list {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

pub(super) const MCP: (&str, &str) = ("mcp.yaml", "mcpServers: {k: {command: srv}}\n");
pub(super) const TASK: (&str, &str) = (
    "task.yaml",
    "kind: Task\nmetadata: {name: t}\nsteps:\n  prompt: {inline: hi}\n",
);
