//! One task run: fresh proxies, then setup, the agent, verify and the assertions within the
//! task timeout ([`phases`](crate::run::phases)), cleanup (always, once setup started), then every
//! proxy and process stopped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::{Eval, McpServer, Task};
use crate::fault::{self, FaultRule};
use crate::llm::Sampler;
use crate::plan::TaskCase;
use crate::plumbing::interrupt;
use crate::plumbing::lock::lock;
use crate::proxy::{CallRecorder, FaultPlan, Proxy, ProxyHandle, ProxyOptions, ServerFailure};
use crate::report::FaultNote;
use crate::run::llm_phase::{LlmTarget, StartedProxy, finish_llm_proxy};
use crate::run::phases::run_main;
use crate::run::report::{LlmClient, RunOptions, RunPhase, RunReport};
use crate::run::sampling_llm::{SamplingLlm, start_sampling_llm};
use crate::run::secrets::{redact_files, run_secrets};
use crate::run::servers::upstream_of;
use crate::run::step_context::step_context;
use crate::run::timed::TimedRun;
use crate::run::variant;
use crate::schema_checks;
use crate::steps::{Phase, StepResult, run_phase};
use crate::tokens::{self, TraceTokens};
use crate::user::{ScriptedModel, ScriptedUser};

/// Bound on setup + agent + verify when neither the task nor the eval sets one.
pub const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(600);
/// Bound on cleanup when neither the task nor the eval sets one.
pub const DEFAULT_CLEANUP_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs one task case in `run_dir` (made empty first), its LLM calls recorded into or
/// replayed from `cassette`. `phase` always holds the phase running now, for progress
/// lines.
pub async fn run_task(
    eval: Arc<Eval>,
    case: &TaskCase,
    task: Arc<Task>,
    (run_dir, cassette): (PathBuf, PathBuf),
    options: Arc<RunOptions>,
    phase: Arc<Mutex<RunPhase>>,
) -> RunReport {
    tokens::warm_up();
    let work_dir = agent_work_dir(&run_dir);
    let mut report = RunReport {
        run_dir: run_dir.clone(),
        work_dir: work_dir.clone(),
        ..RunReport::default()
    };
    if let Err(e) = prepare_dir(&run_dir).and_then(|()| prepare_dir(&work_dir)) {
        report.errors.push(format!(
            "cannot prepare the run directory {}: {e}",
            run_dir.display()
        ));
        return report;
    }
    let recorder = CallRecorder::new();
    report.run_start = Some(recorder.run_start());
    let target = LlmTarget {
        cassette: cassette.clone(),
        test_name: &case.name,
        run_dir: &run_dir,
        work_dir: &work_dir,
        install_dir: None,
    };
    let (answering, sampling) = match answering(&eval, case, &task, &options, &target) {
        Ok(answering) => answering,
        Err(error) => {
            report.errors.push(error);
            return report;
        }
    };
    let started = start_proxies(&eval, &options, &recorder, &run_dir, &answering).await;
    let proxies = match started {
        Ok(proxies) => proxies,
        Err(errors) => {
            report.errors = errors;
            return report;
        }
    };
    let timeout = task
        .limits
        .timeout
        .or(eval.default_limits.timeout)
        .unwrap_or(DEFAULT_TASK_TIMEOUT);
    let shared = Arc::new(TimedRun {
        phase,
        report: Mutex::new(report),
        groups: Mutex::new(Vec::new()),
        cassette,
        test_name: case.name.clone(),
        deadline: Instant::now() + timeout,
    });
    let main = spawn_main(&shared, (&eval, &task, case), &proxies, &recorder, &options);
    wait_within(&shared, main, timeout).await;
    run_cleanup(&shared, &eval, &task, &options).await;
    lock(&shared.groups).clear();
    close_run(
        &shared,
        &eval,
        &options,
        (proxies, sampling.map(|llm| llm.proxy)),
        &recorder,
        answering.faults.as_deref(),
    )
    .await
}

/// The end of a run: the proxies shut down (the MCP proxies', then the sampling model's
/// LLM proxy, if any; their server failures, tool rewrites and server
/// logs kept, the logs redacted), the agent's working directory removed, and the report
/// completed from the trace (schema checks, tokens, the variant's decoys, the faults).
async fn close_run(
    shared: &TimedRun,
    eval: &Eval,
    options: &RunOptions,
    (proxies, sampling): (Vec<ProxyHandle>, Option<StartedProxy>),
    recorder: &CallRecorder,
    faults: Option<&FaultPlan>,
) -> RunReport {
    let server_failures: Vec<ServerFailure> = proxies
        .iter()
        .flat_map(ProxyHandle::server_failures)
        .collect();
    let rewrites = (proxies.iter())
        .map(|proxy| (proxy.server_name().to_owned(), proxy.rewrite_notes()))
        .collect();
    let server_logs: Vec<PathBuf> = (proxies.iter())
        .filter_map(|proxy| proxy.stderr_log().map(Path::to_path_buf))
        .collect();
    shutdown(proxies).await;
    // After the MCP proxies, whose sampling requests it answered.
    if let Some(sampling) = sampling {
        let record = finish_llm_proxy(LlmClient::Sampling, sampling).await;
        shared.report().llm.push(record);
    }
    redact_files(&server_logs, &run_secrets(eval, options));
    let _ = std::fs::remove_dir_all(&shared.report().work_dir);
    let mut report = std::mem::take(&mut *shared.report());
    // After those of listing the tools for the agent, if any.
    report.server_failures.extend(server_failures);
    report.trace = recorder.trace();
    report.schema = schema_checks::check(&report.trace, &options.schemas);
    report.tokens = TraceTokens::of(&report.trace);
    report.decoy_calls = variant::decoy_calls(eval, &rewrites, &report.trace);
    report.variant_problems = variant::problems(eval, &rewrites, &report.decoy_calls);
    report.rewrites = rewrites;
    if let Some(plan) = faults {
        report.fault_seed = Some(plan.seed());
        report.faults = fault_notes(plan);
    }
    report
}

/// What answers the servers' requests for the agent in this run: the faults on them, the
/// scripted user and model, and the judge model of `llm: judge` rules (its LLM proxy
/// started, returned to be shut down with the run).
fn answering(
    eval: &Eval,
    case: &TaskCase,
    task: &Task,
    options: &RunOptions,
    target: &LlmTarget<'_>,
) -> Result<(Answering, Option<SamplingLlm>), String> {
    let faults = fault_plan(case, task, options)?;
    let model = scripted_model(case, task).map(Arc::new);
    let sampling = start_sampling_llm(eval, model.as_deref(), target, options)?;
    let answering = Answering {
        faults,
        user: scripted_user(case, task).map(Arc::new),
        model,
        sampler: sampling.as_ref().map(|llm| llm.sampler.clone()),
        one_server: !task.follow_ups.is_empty(),
    };
    Ok((answering, sampling))
}

/// The run's faults: its task sets' rules, then the task's own, drawing with the seed of
/// `MCPEVAL_SEED` (0 when unset); shared by the run's proxies. `None` without rules.
fn fault_plan(
    case: &TaskCase,
    task: &Task,
    options: &RunOptions,
) -> Result<Option<Arc<FaultPlan>>, String> {
    let rules: Vec<FaultRule> = (case.assertion_sets.iter())
        .flat_map(|set| set.faults.iter().cloned())
        .chain(task.faults.iter().cloned())
        .collect();
    if rules.is_empty() {
        return Ok(None);
    }
    let seed = fault::seed_of(options.var(fault::SEED_VARIABLE).as_deref())?;
    // The variants of a task draw the same faults: they are compared pair by pair.
    let name = match &case.variant {
        Some(variant) => {
            (case.name.strip_suffix(&format!("@{}", variant.name))).unwrap_or(&case.name)
        }
        None => &case.name,
    };
    Ok(Some(Arc::new(FaultPlan::new(rules, seed, name))))
}

/// What the run's proxies answer in place of the server or the agent (the run's faults,
/// its scripted user and model), and whether the agent's sessions share one server (a
/// conversation's turns).
struct Answering {
    faults: Option<Arc<FaultPlan>>,
    user: Option<Arc<ScriptedUser>>,
    model: Option<Arc<ScriptedModel>>,
    sampler: Option<Arc<Sampler>>,
    one_server: bool,
}

/// The run's scripted user: the task's `elicitation` rules, then its task sets'. `None` when
/// none of them has `elicitation` (the agent answers, as it would).
fn scripted_user(case: &TaskCase, task: &Task) -> Option<ScriptedUser> {
    let sets = case.assertion_sets.iter();
    ScriptedUser::of(
        task.elicitation.as_ref(),
        sets.filter_map(|set| set.elicitation.as_deref()),
    )
}

/// The run's scripted model: the task's `sampling` rules, then its task sets'. `None` when
/// none of them has `sampling` (the agent answers, as it would).
fn scripted_model(case: &TaskCase, task: &Task) -> Option<ScriptedModel> {
    let sets = case.assertion_sets.iter();
    ScriptedModel::of(
        task.sampling.as_ref(),
        sets.filter_map(|set| set.sampling.as_deref()),
    )
}

/// What each rule did, for the results.
fn fault_notes(plan: &FaultPlan) -> Vec<FaultNote> {
    (plan.rules().iter().zip(plan.notes()))
        .map(|(rule, note)| FaultNote {
            rule: note.rule,
            target: rule.describe_target(),
            fault: rule.action.kind(),
            matched: note.matched,
            injected: note.injected,
        })
        .collect()
}

/// One recording proxy per enabled server of the eval; every failure to start one.
async fn start_proxies(
    eval: &Eval,
    options: &RunOptions,
    recorder: &CallRecorder,
    run_dir: &Path,
    answering: &Answering,
) -> Result<Vec<ProxyHandle>, Vec<String>> {
    let mut proxies = Vec::new();
    let mut errors = Vec::new();
    for server in eval.mcp.enabled() {
        let upstream = upstream_of(server, &options.vars);
        let proxy_options = ProxyOptions {
            tools: variant::tool_rewrite(eval, &server.name),
            faults: answering.faults.clone(),
            user: answering.user.clone(),
            model: answering.model.clone(),
            sampler: answering.sampler.clone(),
            one_server: answering.one_server,
            roots: url::Url::from_directory_path(agent_work_dir(run_dir))
                .map(String::from)
                .into_iter()
                .collect(),
            protocol_version: (eval.variant.as_ref())
                .and_then(|variant| variant.protocol_version.as_deref())
                .and_then(crate::plumbing::protocol::spoken_version),
            ..ProxyOptions::default()
        };
        match Proxy::start_with_options(&server.name, upstream, recorder, run_dir, proxy_options)
            .await
        {
            Ok(handle) => proxies.push(handle),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if errors.is_empty() {
        Ok(proxies)
    } else {
        shutdown(proxies).await;
        Err(errors)
    }
}

/// The run's main phases (setup, the agent, verify) as a task of their own, reaching the
/// servers through `proxies`: the deadline stops it where it is.
fn spawn_main(
    shared: &Arc<TimedRun>,
    (eval, task, case): (&Arc<Eval>, &Arc<Task>, &TaskCase),
    proxies: &[ProxyHandle],
    recorder: &CallRecorder,
    options: &Arc<RunOptions>,
) -> tokio::task::JoinHandle<()> {
    let servers: Vec<(McpServer, String)> = eval
        .mcp
        .enabled()
        .cloned()
        .zip(proxies.iter().map(|p| p.url().to_owned()))
        .collect();
    let (shared, eval, task, recorder, options) = (
        shared.clone(),
        eval.clone(),
        task.clone(),
        recorder.clone(),
        options.clone(),
    );
    let assertion_sets = case.assertion_sets.clone();
    tokio::spawn(async move {
        let sets = &assertion_sets;
        run_main(&shared, &eval, &task, &servers, &recorder, sets, &options).await
    })
}

/// Waits for the timed part of the run; on the task timeout or a signal
/// ([`interrupt`](crate::plumbing::interrupt)) it is aborted, every process it started killed, and the
/// report says in which phase.
async fn wait_within(shared: &TimedRun, mut main: tokio::task::JoinHandle<()>, timeout: Duration) {
    let started = Instant::now();
    let ended = tokio::select! {
        // A run that ended keeps its verdict even when a signal comes at the same moment.
        biased;
        ended = tokio::time::timeout(timeout, &mut main) => ended.map_err(|_| None),
        signal = interrupt::wait() => Err(Some(signal)),
    };
    let phase = *lock(&shared.phase);
    match ended {
        Ok(Ok(())) => {}
        Ok(Err(join_error)) => {
            let what = if join_error.is_panic() {
                "panicked"
            } else {
                "was cancelled"
            };
            shared.report().errors.push(format!(
                "mcpeval itself {what} during {phase}; this is a bug"
            ));
        }
        Err(stopped_by) => {
            main.abort();
            // Its processes are killed when the aborted task is dropped: before cleanup.
            let _ = main.await;
            match stopped_by {
                Some(signal) => shared.report().interrupted_in = Some((phase, signal)),
                None => shared.report().timed_out_in = Some((phase, started.elapsed())),
            }
        }
    }
}

/// Cleanup always runs once setup has started, with its own timeout.
async fn run_cleanup(shared: &TimedRun, eval: &Eval, task: &Task, options: &RunOptions) {
    if task.cleanup.is_empty() || *lock(&shared.phase) == RunPhase::Start {
        return;
    }
    let cleanup_timeout = task
        .limits
        .cleanup_timeout
        .or(eval.default_limits.cleanup_timeout)
        .unwrap_or(DEFAULT_CLEANUP_TIMEOUT);
    let run_dir = shared.report().run_dir.clone();
    let context = step_context(eval, task, &run_dir, &[], options);
    let mut groups = Vec::new();
    let results = tokio::time::timeout(
        cleanup_timeout,
        run_phase(Phase::Cleanup, &task.cleanup, &context, &mut groups),
    )
    .await;
    shared.report().cleanup = results.unwrap_or_else(|_| {
        let mut timed_out = StepResult::new("cleanup".into(), false);
        timed_out.fail(format!(
            "timed out after {}",
            humantime::format_duration(cleanup_timeout)
        ));
        vec![timed_out]
    });
}

async fn shutdown(proxies: Vec<ProxyHandle>) {
    for proxy in proxies {
        proxy.shutdown().await;
    }
}

/// The agent's working directory: empty, and outside any git repository (agent programs
/// put a repository's branch, status and recent commits into their prompts, which would
/// change the LLM requests with every commit): `<temp>/mcpeval-<run>-<pid>`. It is removed
/// when the run ends.
fn agent_work_dir(run_dir: &Path) -> PathBuf {
    let run = run_dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned());
    let name = format!(
        "mcpeval-{}-{}",
        run.unwrap_or_else(|| "run".into()),
        std::process::id()
    );
    std::env::temp_dir().join(name)
}

/// Empties (or creates) `dir`.
fn prepare_dir(dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)
}
