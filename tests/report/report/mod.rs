//! `mcpeval report` (merge, summary, JUnit) and `mcpeval diff` on prepared result sets, and
//! the summary the harness prints at the end of a run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod diff;
mod flaky;
mod junit;
mod summary;
mod variants;

pub(super) fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/results")
        .join(path)
}

pub(super) fn mcpeval(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(super) fn merged(dir: &Path) -> (PathBuf, PathBuf, Output) {
    let report = dir.join("report.json");
    let junit = dir.join("junit.xml");
    let shard1 = fixture("current-shard-1").display().to_string();
    let shard2 = fixture("current-shard-2").display().to_string();
    let out = mcpeval(&[
        "report",
        &shard1,
        &shard2,
        "--output",
        &report.display().to_string(),
        "--junit",
        &junit.display().to_string(),
    ]);
    (report, junit, out)
}
