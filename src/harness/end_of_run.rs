//! What happens once every trial ended: the extensions shut down, the summary, the CI
//! annotations and the HTML report.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{actions, case, page};
use crate::run::RunOptions;

/// Shuts down the extensions the trials started (once all of them ended, also under
/// `--exact` and nextest's one test per process); notes on those that did not go cleanly.
pub(super) fn shut_down_extensions(options: &RunOptions) {
    if !options.extensions.any_started() {
        return;
    }
    // Without a runtime no extension ran; dropping the registry kills any left.
    if let Ok(runtime) = case::runtime() {
        for note in runtime.block_on(options.extensions.shutdown_all()) {
            eprintln!("note: {note}");
        }
    }
}

/// After the tests: the run's summary on stderr (one test per process, as under nextest, makes
/// none: `mcpeval report` merges those), the GitHub Actions annotations and job summary, and
/// the HTML report of the process or of the nextest run.
pub(super) fn report_run(options: &RunOptions, eval_files: &BTreeMap<String, PathBuf>) {
    let results = std::mem::take(&mut *crate::plumbing::lock::lock(&options.collected));
    if results.len() > 1 {
        eprint!("\n{}", crate::report::Summary::of(&results).render());
        eprintln!(
            "  results: {}",
            options.output_dir.join("results").display()
        );
    }
    // Under nextest each process has its test's annotation; `mcpeval report` the summary.
    actions::report(
        &results,
        eval_files,
        crate::plumbing::ci::nextest_run_id().is_none(),
    );
    if !results.is_empty() {
        match crate::plumbing::ci::nextest_run_id() {
            Some(run) => page::write_nextest_page(&run, &options.output_dir),
            None => page::write_process_page(results, &options.output_dir),
        }
    }
}
