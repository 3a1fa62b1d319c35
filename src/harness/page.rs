//! The HTML report a run of the harness writes, `<output dir>/report.html`.
//!
//! One process that runs every test (`cargo test`, `mcpeval check`) writes the page of its
//! own runs at the end. Under nextest every test is a process of its own and none knows
//! which one is last: each, once its results are written, renders the page of every results
//! file of its nextest run (`nextestRunId`). One process renders at a time; a process that
//! finds another rendering leaves it to that one, which renders again when results files
//! changed while it rendered, so the page the last test leaves holds every test of the run.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::report::TaskResult;

/// The nextest run this process is a test of (`NEXTEST_RUN_ID`), when nextest runs it.
pub(super) fn nextest_run_id() -> Option<String> {
    std::env::var_os("NEXTEST")?;
    std::env::var("NEXTEST_RUN_ID")
        .ok()
        .filter(|id| !id.is_empty())
}

/// Writes the page of `results`, the runs of this process, and prints its path.
pub(super) fn write_process_page(mut results: Vec<TaskResult>, output_dir: &Path) {
    results.sort_by(|a, b| (&a.test_name, a.run_index).cmp(&(&b.test_name, b.run_index)));
    write_page(results, output_dir);
}

/// Writes the page of every results file of nextest run `run_id` under `output_dir`, unless
/// another test process of the run is writing it (which then sees this process's results).
pub(super) fn write_nextest_page(run_id: &str, output_dir: &Path) {
    let lock_path = output_dir.join("report.lock");
    let lock = match File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
    {
        Ok(file) => file,
        Err(e) => {
            eprintln!(
                "mcpeval: no HTML report: cannot open {}: {e}",
                lock_path.display()
            );
            return;
        }
    };
    let results_dir = output_dir.join("results");
    loop {
        match lock.try_lock() {
            Ok(()) => {}
            // The holder renders again if our results came after it looked.
            Err(TryLockError::WouldBlock) => return,
            Err(TryLockError::Error(e)) => {
                eprintln!(
                    "mcpeval: no HTML report: cannot lock {}: {e}",
                    lock_path.display()
                );
                return;
            }
        }
        let mut seen;
        loop {
            seen = fingerprint(&results_dir);
            render_run(run_id, &results_dir, output_dir);
            if fingerprint(&results_dir) == seen {
                break;
            }
        }
        let _ = lock.unlock();
        // Results written after the last look and before the unlock were left to us by a
        // process that found the lock taken.
        if fingerprint(&results_dir) == seen {
            return;
        }
    }
}

fn render_run(run_id: &str, results_dir: &Path, output_dir: &Path) {
    match crate::report::load_results(&[results_dir.to_owned()]) {
        Ok(results) => {
            let of_run = results
                .into_iter()
                .filter(|r| r.nextest_run_id.as_deref() == Some(run_id))
                .collect();
            write_page(of_run, output_dir);
        }
        Err(e) => eprintln!("mcpeval: no HTML report: {e}"),
    }
}

fn write_page(results: Vec<TaskResult>, output_dir: &Path) {
    let path = output_dir.join("report.html");
    let report = crate::report::merge(results);
    match crate::report::write_html(&report, "mcpeval report", &path) {
        Ok(()) => eprintln!("  html report: {}", path.display()),
        Err(e) => eprintln!("mcpeval: {e}"),
    }
}

/// The results files under `dir`: their names, times and sizes, to tell whether any was
/// written since.
fn fingerprint(dir: &Path) -> Vec<(PathBuf, Option<SystemTime>, u64)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "json"))
        .map(|entry| {
            let meta = entry.metadata().ok();
            let modified = meta.as_ref().and_then(|m| m.modified().ok());
            (entry.path(), modified, meta.map_or(0, |m| m.len()))
        })
        .collect();
    files.sort();
    files
}
