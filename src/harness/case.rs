//! One trial: the task's runs (`runs`, `minPassRate`), each with its snapshot check and
//! results file, under the lock that keeps serial tasks apart, with progress lines for
//! long runs. After a signal ([`interrupt`](crate::plumbing::interrupt)) a trial fails at once as not
//! run, and a task's remaining runs do not start.

use std::fs::File;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use libtest_mimic::Failed;

use super::stale::remove_other_results;
use crate::config::{Eval, Task};
use crate::plan::TaskCase;
use crate::plumbing::interrupt::interrupted;
use crate::plumbing::lock::lock;
use crate::plumbing::secret::{Secret, redact};
use crate::report::PassCount;
use crate::report::TaskResult;
use crate::run::llm_phase::cassette_path;
use crate::run::report::{RunOptions, RunPhase, RunReport};
use crate::run::secrets::run_secrets;
use crate::run::task::run_task;
use crate::snapshot::{RunDirs, SnapshotStatus, check_snapshot, render_snapshot, snapshot_dir};
use crate::verdict::decide::Verdict;
use crate::verdict::message::failure_message;
use crate::verdict::results::{ResultInput, task_result, unloaded_result};

/// How often a long run says it is still running (`MCPEVAL_PROGRESS_SECS` changes it).
const PROGRESS_EVERY: Duration = Duration::from_secs(60);

/// How one run of a task ended.
struct RunVerdict {
    passed: bool,
    /// A signal stopped it.
    interrupted: bool,
    message: String,
}

pub(super) fn run_case(
    eval: &Arc<Eval>,
    case: &TaskCase,
    options: Arc<RunOptions>,
) -> Result<(), Failed> {
    not_interrupted()?;
    let task = case.load(eval).map_err(|errors| {
        let message = format!("the task file does not load:\n{errors}");
        record_unloaded(eval, case, &options, &message);
        Failed::from(message)
    })?;
    let runs = run_count(&task, eval)?;
    remove_other_results(
        &options.output_dir.join("results"),
        &eval.stem(&task.name),
        runs,
    );
    let min_pass_rate = task.min_pass_rate.or(case.min_pass_rate).unwrap_or(1.0);
    let out = options.output_dir.clone();
    let _lock = TaskLock::acquire(&out, task.parallel || eval.parallel)?;
    // The signal may have come while this trial waited for the lock.
    not_interrupted()?;
    let mut case_runs = CaseRuns {
        eval,
        case,
        task: Arc::new(task),
        runs,
        min_pass_rate,
        options: &options,
        snapshot_checked: false,
        secrets: run_secrets(eval, &options),
    };
    let mut verdicts = Vec::new();
    for index in 0..runs {
        let verdict = case_runs.run_once(index)?;
        let stop = verdict.interrupted || (index + 1 < runs && interrupted().is_some());
        verdicts.push(verdict);
        if stop {
            return Err(interrupted_runs(verdicts, runs).into());
        }
    }
    if runs == 1 {
        let verdict = verdicts.remove(0);
        return if verdict.passed {
            Ok(())
        } else {
            Err(verdict.message.into())
        };
    }
    judge_pass_rate(&case.name, &verdicts, min_pass_rate)
}

/// Fails a trial that a signal came before: it does not start.
fn not_interrupted() -> Result<(), Failed> {
    match interrupted() {
        Some(signal) => {
            Err(format!("not run: mcpeval was stopped by {signal} before this task started").into())
        }
        None => Ok(()),
    }
}

/// The message of a task whose runs a signal stopped: the one run's own message, or how many
/// runs ran and the message of each that failed.
fn interrupted_runs(mut verdicts: Vec<RunVerdict>, runs: u32) -> String {
    if runs == 1 {
        return verdicts.remove(0).message;
    }
    let signal = interrupted().map_or("a signal", |signal| signal.name());
    let mut message = format!(
        "interrupted by {signal} after {} of {runs} runs",
        verdicts.len()
    );
    for (i, verdict) in verdicts.iter().enumerate().filter(|(_, v)| !v.passed) {
        message.push_str(&format!(
            "\n\n===== run {} of {runs} failed =====\n{}",
            i + 1,
            verdict.message
        ));
    }
    message
}

/// Writes the results file of a task that does not load, and counts it in the summary.
fn record_unloaded(eval: &Eval, case: &TaskCase, options: &RunOptions, message: &str) {
    let task_name = case.task_name(eval);
    let result = unloaded_result(case, eval, task_name, message);
    let stem = eval.stem(task_name);
    remove_other_results(&options.output_dir.join("results"), &stem, 1);
    keep_result(options, result, &stem, &run_secrets(eval, options));
}

/// Writes `result` to `results/<stem>.json` (redacted) and adds it to the collected ones.
/// What a run's results file takes beside the report and the verdict.
struct Recorded<'a> {
    /// The failure message (empty when it passed).
    message: &'a str,
    /// The diff from the accepted snapshot, when the trace differs.
    snapshot_diff: Option<String>,
    /// When the run started.
    started: Instant,
}

/// Writes the results file and keeps the result for the summary and the HTML report, as
/// redacted as the file.
fn keep_result(options: &RunOptions, result: TaskResult, stem: &str, secrets: &[Secret]) {
    let results_dir = options.output_dir.join("results");
    let written = result.write(&results_dir, stem, secrets);
    if let Err(e) = &written {
        eprintln!(
            "mcpeval: cannot write the results of {} under {}: {e}",
            result.test_name,
            results_dir.display()
        );
    }
    let mut kept = result.redacted(secrets).unwrap_or(result);
    kept.results_file = written.ok();
    lock(&options.collected).push(kept);
}

/// Several runs pass when enough of them passed; the message summarises the runs (`flaky:`
/// first when some passed and some failed) and holds the message of every failed one; a
/// task that passes with failed runs says so in a note on stderr.
fn judge_pass_rate(
    case_name: &str,
    verdicts: &[RunVerdict],
    min_pass_rate: f64,
) -> Result<(), Failed> {
    let runs = verdicts.len() as u32;
    let count = PassCount {
        passed: verdicts.iter().filter(|v| v.passed).count(),
        runs: verdicts.len(),
    };
    let flaky = if count.is_flaky() { "flaky: " } else { "" };
    let summary = format!("{flaky}{}; minPassRate {min_pass_rate}", count.describe());
    if count.meets(min_pass_rate) {
        if count.passed < count.runs {
            eprintln!("note: {case_name}: {summary}");
        }
        return Ok(());
    }
    let mut message = summary;
    for (i, verdict) in verdicts.iter().enumerate().filter(|(_, v)| !v.passed) {
        message.push_str(&format!(
            "\n\n===== run {} of {runs} failed =====\n{}",
            i + 1,
            verdict.message
        ));
    }
    Err(message.into())
}

/// `MCPEVAL_RUNS`, else the task's `metadata.runs`, else the eval's `config.runs`, else 1.
fn run_count(task: &Task, eval: &Eval) -> Result<u32, Failed> {
    match std::env::var("MCPEVAL_RUNS") {
        Ok(text) => match text.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(format!(
                "MCPEVAL_RUNS must be a whole number of runs, 1 or more; found {text:?}"
            )
            .into()),
        },
        Err(_) => Ok(task.runs.or(eval.runs).unwrap_or(1)),
    }
}

/// The runs of one task case: what they share, and whether one of them checked the snapshot.
struct CaseRuns<'a> {
    eval: &'a Arc<Eval>,
    case: &'a TaskCase,
    task: Arc<Task>,
    runs: u32,
    /// The share of the runs that must pass.
    min_pass_rate: f64,
    options: &'a Arc<RunOptions>,
    snapshot_checked: bool,
    /// What its messages, snapshot and results must not show.
    secrets: Vec<Secret>,
}

impl CaseRuns<'_> {
    /// Runs the task once (run `index`): its report, snapshot check, verdict and results file.
    fn run_once(&mut self, index: u32) -> Result<RunVerdict, Failed> {
        let stem = self.eval.stem(&self.task.name);
        let run_stem = if self.runs == 1 {
            stem.clone()
        } else {
            format!("{stem}.run{}", index + 1)
        };
        let run_dir = self.options.output_dir.join("runs").join(&run_stem);
        let started = Instant::now();
        let report = self.run_task_with_progress(index, &run_dir, &run_stem, started)?;
        let snapshot = self.check_snapshot_once(&report, &run_dir, &stem);
        let verdict = Verdict::of(
            &report,
            &snapshot,
            self.eval.snapshot,
            &self.options.snapshots,
            self.case.schema_violations,
        );
        let passed = verdict.passed();
        let interrupted = verdict.interrupted.is_some();
        let message = if passed {
            String::new()
        } else {
            redact(
                &failure_message(&report, &verdict, &snapshot),
                &self.secrets,
            )
        };
        let snapshot_diff = match &snapshot {
            SnapshotStatus::Changed { diff, .. } => Some(diff.clone()),
            _ => None,
        };
        let recorded = Recorded {
            message: &message,
            snapshot_diff,
            started,
        };
        self.record_result(index, &report, &verdict, recorded, &run_stem);
        if let Some(note) = snapshot.note().filter(|_| passed) {
            eprintln!("note: {}: {note}", self.case.name);
        }
        Ok(RunVerdict {
            passed,
            interrupted,
            message,
        })
    }

    /// Runs the task in `run_dir` on the shared runtime, with progress lines while it runs.
    fn run_task_with_progress(
        &self,
        index: u32,
        run_dir: &Path,
        run_stem: &str,
        started: Instant,
    ) -> Result<RunReport, Failed> {
        let phase = Arc::new(Mutex::new(RunPhase::Start));
        let runtime = runtime()?;
        let label = if self.runs == 1 {
            self.case.name.clone()
        } else {
            format!("{} (run {} of {})", self.case.name, index + 1, self.runs)
        };
        let progress = runtime.spawn(report_progress(label, phase.clone(), started));
        let report = runtime.block_on(run_task(
            self.eval.clone(),
            self.case,
            self.task.clone(),
            (run_dir.to_path_buf(), cassette_path(self.eval, run_stem)),
            self.options.clone(),
            phase,
        ));
        progress.abort();
        Ok(report)
    }

    /// Checks the trace against the snapshot `stem` when the agent passed and no earlier run
    /// checked it.
    fn check_snapshot_once(
        &mut self,
        report: &RunReport,
        run_dir: &Path,
        stem: &str,
    ) -> SnapshotStatus {
        // A partial trace of a failed agent would only be noise to review; with several runs,
        // the first complete one stands for the task.
        if !self.snapshot_checked && report.agent.as_ref().is_some_and(|agent| agent.passed()) {
            self.snapshot_checked = true;
            let dirs = RunDirs::new(run_dir, &report.work_dir);
            let content = redact(&render_snapshot(&report.trace, &dirs), &self.secrets);
            check_snapshot(
                self.eval.snapshot,
                &self.options.snapshots,
                &snapshot_dir(&self.eval.path),
                stem,
                &self.case.path,
                &content,
            )
        } else {
            SnapshotStatus::Off
        }
    }

    /// Writes the results file of the run and adds the result to the collected ones.
    fn record_result(
        &self,
        index: u32,
        report: &RunReport,
        verdict: &Verdict,
        recorded: Recorded<'_>,
        run_stem: &str,
    ) {
        let Recorded {
            message,
            snapshot_diff,
            started,
        } = recorded;
        let passed = verdict.passed();
        let result = task_result(ResultInput {
            case: self.case,
            eval: self.eval,
            task: &self.task,
            report,
            verdict,
            failure_message: (!passed).then(|| message.to_owned()),
            snapshot_diff,
            duration: started.elapsed(),
            run: (self.runs > 1).then_some((index, self.runs, self.min_pass_rate)),
        });
        keep_result(self.options, result, run_stem, &self.secrets);
    }
}

/// The tokio runtime every trial of this process blocks on.
pub(super) fn runtime() -> Result<&'static tokio::runtime::Runtime, Failed> {
    static RUNTIME: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Failed::from(format!("cannot start the async runtime: {e}")))
}

/// Prints a line to stderr while a run goes on past the progress interval, as libtest does
/// for slow tests.
async fn report_progress(label: String, phase: Arc<Mutex<RunPhase>>, started: Instant) {
    let every = std::env::var("MCPEVAL_PROGRESS_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(PROGRESS_EVERY);
    loop {
        tokio::time::sleep(every).await;
        let phase = *lock(&phase);
        eprintln!(
            "test {label} has been running for {} s, in the {phase} phase",
            started.elapsed().as_secs()
        );
    }
}

/// The lock that keeps a serial task from running alongside any other task, also across
/// processes (nextest): exclusive on `<output dir>/mcpeval.lock` for serial tasks, shared
/// for parallel ones. Released when dropped.
struct TaskLock {
    _file: File,
}

impl TaskLock {
    fn acquire(dir: &Path, parallel: bool) -> Result<Self, Failed> {
        let path = dir.join("mcpeval.lock");
        let file = std::fs::create_dir_all(dir)
            .and_then(|()| {
                File::options()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&path)
            })
            .map_err(|e| {
                Failed::from(format!("cannot open the task lock {}: {e}", path.display()))
            })?;
        let locked = if parallel {
            file.lock_shared()
        } else {
            file.lock()
        };
        locked.map_err(|e| Failed::from(format!("cannot lock {}: {e}", path.display())))?;
        Ok(TaskLock { _file: file })
    }
}
