//! The HTML report a run of the harness writes, `<output dir>/report.html`.
//!
//! One process that runs every test (`cargo test`, `mcpeval check`) writes the page of its
//! own runs at the end. Under nextest every test is a process of its own and none knows
//! which one is last: each, once its results are written, makes sure the page holds them.
//! It waits for `<output dir>/report.lock`; if a page was rendered from the results files
//! after its own were written (`report.lock` holds when that rendering began), it is done;
//! else it renders the page of every results file of its nextest run (`nextestRunId`). So
//! a test waits for at most two renderings, and the page the run leaves holds every test.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::report::TaskResult;

/// Writes the page of `results`, the runs of this process, and prints its path.
pub(super) fn write_process_page(mut results: Vec<TaskResult>, output_dir: &Path) {
    results.sort_by(|a, b| (&a.test_name, a.run_index).cmp(&(&b.test_name, b.run_index)));
    let _ = write_page(results, output_dir);
}

/// Makes sure the page of nextest run `run_id` under `output_dir` holds this process's
/// results, written before the call.
pub(super) fn write_nextest_page(run_id: &str, output_dir: &Path) {
    let written = SystemTime::now();
    let lock_path = output_dir.join("report.lock");
    let mut lock = match File::options()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .and_then(|file| file.lock().map(|()| file))
    {
        Ok(file) => file,
        Err(e) => {
            eprintln!(
                "mcpeval: no HTML report: cannot lock {}: {e}",
                lock_path.display()
            );
            return;
        }
    };
    if rendered_from(&mut lock).is_some_and(|from| from >= written) {
        return;
    }
    let from = SystemTime::now();
    if render_run(run_id, &output_dir.join("results"), output_dir)
        && let Err(e) = note_rendered_from(&mut lock, from)
    {
        eprintln!("mcpeval: cannot write {}: {e}", lock_path.display());
    }
    // Dropping the file releases the lock.
}

/// When the rendering of the page now written began, as the lock file holds it.
fn rendered_from(lock: &mut File) -> Option<SystemTime> {
    let mut text = String::new();
    lock.seek(SeekFrom::Start(0)).ok()?;
    lock.read_to_string(&mut text).ok()?;
    let nanos: u64 = text.trim().parse().ok()?;
    Some(UNIX_EPOCH + Duration::from_nanos(nanos))
}

fn note_rendered_from(lock: &mut File, from: SystemTime) -> std::io::Result<()> {
    let nanos = from
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    lock.set_len(0)?;
    lock.seek(SeekFrom::Start(0))?;
    lock.write_all(nanos.to_string().as_bytes())
}

/// Writes the page of the results files of nextest run `run_id`; whether it was written.
fn render_run(run_id: &str, results_dir: &Path, output_dir: &Path) -> bool {
    match crate::report::load_results(&[results_dir.to_owned()]) {
        Ok(results) => {
            let of_run = results
                .into_iter()
                .filter(|r| r.nextest_run_id.as_deref() == Some(run_id))
                .collect();
            write_page(of_run, output_dir)
        }
        Err(e) => {
            eprintln!("mcpeval: no HTML report: {e}");
            false
        }
    }
}

/// Writes the page of `results` and prints its path, or why it could not; whether it was
/// written.
fn write_page(results: Vec<TaskResult>, output_dir: &Path) -> bool {
    let path = output_dir.join("report.html");
    let report = crate::report::merge(results);
    match crate::report::write_html(&report, "mcpeval report", &path) {
        Ok(()) => {
            eprintln!("  html report: {}", path.display());
            true
        }
        Err(e) => {
            eprintln!("mcpeval: {e}");
            false
        }
    }
}
