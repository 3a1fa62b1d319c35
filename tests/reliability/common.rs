//! What the cases share: files written into a fresh directory, the `mcpeval` binary run
//! there, and what a run left behind (files, processes).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file of the shared run fixtures (`tests/fixtures/runs`): the script agent's Agent
/// file (`agent.yaml`) and the demo server's MCP config (`mcp-config.yaml`).
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/runs")
        .join(path)
}

/// Writes `files` (path, text) under a fresh directory.
pub fn files(list: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in list {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// `mcpeval ARGS` in `dir`, its output directory `output`.
pub fn mcpeval(dir: &Path, output: &Path, args: &[&str]) -> Output {
    mcpeval_with(dir, output, args, &[])
}

/// `mcpeval ARGS` in `dir` with extra environment variables.
pub fn mcpeval_with(dir: &Path, output: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env("MCPEVAL_OUTPUT_DIR", output)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, recursively, relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// Runs `eval.yaml` of the files `list` (path, text) with `mcpeval check` on 50 test
/// threads: it must pass and leave a results file for each of its 50 tasks, which come back
/// parsed.
pub fn check_fifty_in_parallel(list: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let dir = files(list);
    let output = tempfile::tempdir().unwrap();
    let args = ["check", "eval.yaml", "--", "--test-threads", "50"];
    let out = mcpeval(dir.path(), output.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let results = results(output.path());
    assert_eq!(results.len(), 50, "observed results files");
    results
}

/// The results files of a run, parsed.
pub fn results(output: &Path) -> Vec<serde_json::Value> {
    let dir = output.join("results");
    files_under(&dir)
        .into_iter()
        .filter(|name| name.ends_with(".json"))
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

/// The command lines of the live processes that contain `marker` (Linux: `/proc`).
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) && !is_zombie(&entry.path()) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

fn is_zombie(proc_dir: &Path) -> bool {
    std::fs::read_to_string(proc_dir.join("stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| rest.starts_with('Z'))
        })
        .unwrap_or(false)
}
