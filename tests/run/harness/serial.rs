//! `serial` tasks never overlap other tasks, under libtest's threads and under nextest.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::support::peers::nextest_available;

use super::{nextest, stdout};

/// `(task, start, end)` from the lines the locking fixture's tasks log.
fn intervals(log: &Path) -> Vec<(String, f64, f64)> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut starts = BTreeMap::new();
    let mut spans = Vec::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        let time: f64 = parts[2].parse().unwrap();
        match parts[1] {
            "start" => {
                starts.insert(parts[0].to_owned(), time);
            }
            _ => spans.push((parts[0].to_owned(), starts[parts[0]], time)),
        }
    }
    spans.sort_by(|a, b| a.0.cmp(&b.0));
    spans
}

fn assert_serial_tasks_run_alone(spans: &[(String, f64, f64)]) {
    assert_eq!(spans.len(), 4, "{spans:?}");
    let overlap = |a: &(String, f64, f64), b: &(String, f64, f64)| a.1 < b.2 && b.1 < a.2;
    for a in spans.iter().filter(|s| s.0.starts_with("serial")) {
        for b in spans.iter().filter(|b| b.0 != a.0) {
            assert!(!overlap(a, b), "{} overlaps {}: {spans:?}", a.0, b.0);
        }
    }
    let parallel: Vec<_> = spans
        .iter()
        .filter(|s| s.0.starts_with("parallel"))
        .collect();
    assert!(
        overlap(parallel[0], parallel[1]),
        "the parallel tasks did not run together: {spans:?}"
    );
}

#[test]
fn serial_tasks_never_overlap_other_tasks_under_test_threads() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lock.log");
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            "tests/fixtures/locking/eval.yaml",
            "--",
            "--test-threads",
            "4",
        ])
        .env("MCPEVAL_LOCK_LOG", &log)
        .env("MCPEVAL_OUTPUT_DIR", dir.path().join("out"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_serial_tasks_run_alone(&intervals(&log));
}

#[test]
fn serial_tasks_never_overlap_other_tasks_under_nextest() {
    if !nextest_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("lock.log");
    let log_text = log.display().to_string();
    let out = nextest("locking", &["-j", "4"], &[("MCPEVAL_LOCK_LOG", &log_text)]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_serial_tasks_run_alone(&intervals(&log));
}
