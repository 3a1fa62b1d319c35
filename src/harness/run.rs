//! One task run: fresh proxies, the agent's MCP config, setup, the agent, verify, assertions,
//! cleanup (always, once setup started), then every proxy and process stopped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::agent::{AgentOutcome, AgentRun, ProxiedServer, write_agent_mcp_config};
use crate::assert::{AssertionFailure, check_all};
use crate::config::Step;
use crate::config::{AllowedTools, Eval, McpServer, Task};
use crate::plan::TaskCase;
use crate::process::ProcessGroupGuard;
use crate::proxy::{CallRecorder, Proxy, ProxyHandle};
use crate::steps::{Phase, StepContext, StepResult, phase_passed, resolve_judge, run_phase};

use super::verdict::RunPhase;
use crate::trace::CallTrace;

use super::servers::{list_allowed_tools, upstream_of};
use crate::lock::lock;

/// Bound on setup + agent + verify when neither the task nor the eval sets one.
pub const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(600);
/// Bound on cleanup when neither the task nor the eval sets one.
pub const DEFAULT_CLEANUP_TIMEOUT: Duration = Duration::from_secs(300);

/// How to run: live output, and variables for every process of the run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Copy agent and script output to stderr as it arrives (`MCPEVAL_LIVE=1`).
    pub live: bool,
    /// Environment variables for every server, agent and script of the run.
    pub vars: Vec<(String, String)>,
    /// Where runs, results and the task lock live.
    pub output_dir: PathBuf,
    /// The results of this process's runs, for the summary at the end.
    pub collected: Arc<Mutex<Vec<crate::report::TaskResult>>>,
}

impl RunOptions {
    /// A variable as processes of the run see it: the harness's own, else the environment.
    pub fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    }
}

/// Everything one run produced, for the verdict and the failure message.
#[derive(Debug, Default)]
pub struct RunReport {
    /// Problems that stop the run before the agent (a proxy that cannot start, …).
    pub errors: Vec<String>,
    /// Setup step results.
    pub setup: Vec<StepResult>,
    /// How the agent ended; `None` when it never ran.
    pub agent: Option<AgentOutcome>,
    /// Verify step results.
    pub verify: Vec<StepResult>,
    /// Failed assertions.
    pub failures: Vec<AssertionFailure>,
    /// Cleanup step results (reported; they never flip the verdict).
    pub cleanup: Vec<StepResult>,
    /// The phase that was running when the task timeout hit.
    pub timed_out_in: Option<(RunPhase, Duration)>,
    /// What the proxies recorded.
    pub trace: CallTrace,
    /// Why upstream servers failed, as the proxies saw it.
    pub upstream_failures: Vec<String>,
    /// This run's directory (agent MCP config, trace, server logs, inline scripts).
    pub run_dir: PathBuf,
    /// The agent's working directory.
    pub work_dir: PathBuf,
}

/// What the timed part of a run shares with the code that waits for it.
struct Shared {
    phase: Arc<Mutex<RunPhase>>,
    report: Mutex<RunReport>,
    groups: Mutex<Vec<ProcessGroupGuard>>,
}

impl Shared {
    fn set_phase(&self, phase: RunPhase) {
        *lock(&self.phase) = phase;
    }

    fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        lock(&self.report)
    }
}

/// Runs one task case in `run_dir` (made empty first). `phase` always holds the phase
/// running now, for progress lines.
pub async fn run_task(
    eval: Arc<Eval>,
    case: &TaskCase,
    task: Arc<Task>,
    run_dir: PathBuf,
    options: Arc<RunOptions>,
    phase: Arc<Mutex<RunPhase>>,
) -> RunReport {
    let work_dir = run_dir.join("agent-workdir");
    let mut report = RunReport {
        run_dir: run_dir.clone(),
        work_dir: work_dir.clone(),
        ..RunReport::default()
    };
    if let Err(e) = prepare_dir(&run_dir).and_then(|()| std::fs::create_dir_all(&work_dir)) {
        report.errors.push(format!(
            "cannot prepare the run directory {}: {e}",
            run_dir.display()
        ));
        return report;
    }
    let recorder = CallRecorder::new();
    let mut proxies: Vec<ProxyHandle> = Vec::new();
    for server in eval.mcp.enabled() {
        match Proxy::start(
            &server.name,
            upstream_of(server, &options.vars),
            &recorder,
            &run_dir,
        )
        .await
        {
            Ok(handle) => proxies.push(handle),
            Err(e) => report.errors.push(e.to_string()),
        }
    }
    if !report.errors.is_empty() {
        shutdown(proxies).await;
        return report;
    }

    let limits = task.limits;
    let timeout = limits
        .timeout
        .or(eval.default_limits.timeout)
        .unwrap_or(DEFAULT_TASK_TIMEOUT);
    let cleanup_timeout = limits
        .cleanup_timeout
        .or(eval.default_limits.cleanup_timeout)
        .unwrap_or(DEFAULT_CLEANUP_TIMEOUT);
    let shared = Arc::new(Shared {
        phase: phase.clone(),
        report: Mutex::new(report),
        groups: Mutex::new(Vec::new()),
    });
    let servers: Vec<(McpServer, String)> = eval
        .mcp
        .enabled()
        .cloned()
        .zip(proxies.iter().map(|p| p.url().to_owned()))
        .collect();
    let assertion_sets = case.assertion_sets.clone();
    let main = tokio::spawn({
        let (shared, eval, task, recorder, options) = (
            shared.clone(),
            eval.clone(),
            task.clone(),
            recorder.clone(),
            options.clone(),
        );
        async move {
            run_main(
                &shared,
                &eval,
                &task,
                &servers,
                &recorder,
                &assertion_sets,
                &options,
            )
            .await
        }
    });
    let abort = main.abort_handle();
    let started = Instant::now();
    match tokio::time::timeout(timeout, main).await {
        Ok(Ok(())) => {}
        Ok(Err(join_error)) => {
            let what = if join_error.is_panic() {
                "panicked"
            } else {
                "was cancelled"
            };
            let phase = *lock(&shared.phase);
            shared.report().errors.push(format!(
                "mcpeval itself {what} during {phase}; this is a bug"
            ));
        }
        Err(_) => {
            abort.abort();
            let phase = *lock(&shared.phase);
            shared.report().timed_out_in = Some((phase, started.elapsed()));
        }
    }

    // Cleanup always runs once setup has started, with its own timeout.
    if !task.cleanup.is_empty() && *lock(&shared.phase) != RunPhase::Start {
        let context = step_context(&task, &run_dir, &[], &options);
        let mut groups = Vec::new();
        let results = tokio::time::timeout(
            cleanup_timeout,
            run_phase(Phase::Cleanup, &task.cleanup, &context, &mut groups),
        )
        .await;
        shared.report().cleanup = results.unwrap_or_else(|_| {
            vec![StepResult {
                label: "cleanup".into(),
                passed: false,
                reason: format!(
                    "timed out after {}",
                    humantime::format_duration(cleanup_timeout)
                ),
                output: String::new(),
                continue_on_error: false,
            }]
        });
    }
    lock(&shared.groups).clear();
    let upstream_failures: Vec<String> = proxies
        .iter()
        .flat_map(ProxyHandle::upstream_failures)
        .collect();
    shutdown(proxies).await;
    let mut report = std::mem::take(&mut *shared.report());
    report.upstream_failures = upstream_failures;
    report.trace = recorder.trace();
    report
}

async fn run_main(
    shared: &Shared,
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    recorder: &CallRecorder,
    assertion_sets: &[crate::plan::AssertionSet],
    options: &RunOptions,
) {
    let run_dir = shared.report().run_dir.clone();
    let work_dir = shared.report().work_dir.clone();
    shared.set_phase(RunPhase::Setup);
    let context = step_context(task, &run_dir, &[], options);
    let mut groups = Vec::new();
    let setup = run_phase(Phase::Setup, &task.setup, &context, &mut groups).await;
    lock(&shared.groups).extend(groups);
    let setup_ok = phase_passed(&setup);
    shared.report().setup = setup;
    if !setup_ok {
        return;
    }

    shared.set_phase(RunPhase::Agent);
    let agent = run_agent(eval, task, servers, &run_dir, &work_dir, options).await;
    let answer = agent.answer.clone();
    shared.report().agent = Some(agent);

    shared.set_phase(RunPhase::Verify);
    let trace = recorder.trace();
    let trace_file = run_dir.join("trace.json");
    let answer_file = run_dir.join("agent-output.txt");
    let written = std::fs::write(&trace_file, trace.to_json_pretty())
        .and_then(|()| std::fs::write(&answer_file, &answer));
    if let Err(e) = written {
        shared
            .report()
            .errors
            .push(format!("cannot write {}: {e}", run_dir.display()));
        return;
    }
    // Environment variables have a size limit; the file always holds the whole answer.
    let short_answer = crate::text::shorten(&answer, 64 * 1024);
    let env = [
        ("MCPEVAL_TRACE", trace_file.display().to_string()),
        ("MCPEVAL_AGENT_OUTPUT", short_answer),
        (
            "MCPEVAL_AGENT_OUTPUT_FILE",
            answer_file.display().to_string(),
        ),
    ];
    let mut context = step_context(task, &run_dir, &env, options);
    context.agent_output = Some(answer.clone());
    if let Some(config) = &eval.llm_judge {
        match resolve_judge(config, &|name| options.var(name)) {
            Ok(settings) => context.judge = Some(settings),
            Err(e) if task.verify.iter().any(|s| matches!(s, Step::LlmJudge(_))) => {
                shared.report().errors.push(e);
            }
            Err(_) => {}
        }
    }
    let verify = run_phase(Phase::Verify, &task.verify, &context, &mut Vec::new()).await;
    shared.report().verify = verify;

    shared.set_phase(RunPhase::Assertions);
    shared.report().failures = check_all(assertion_sets, &trace);
    shared.set_phase(RunPhase::Done);
}

async fn run_agent(
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    run_dir: &Path,
    work_dir: &Path,
    options: &RunOptions,
) -> AgentOutcome {
    let not_run = AgentOutcome::failed;
    // An agent that takes "all tools" as an empty list (the openai agent) lists them itself.
    let needs_tools = eval.agent.needs_tool_list();
    let mut proxied = Vec::new();
    for (server, url) in servers {
        let allowed_tools = match (&server.allowed_tools, needs_tools) {
            (AllowedTools::Only(tools), _) => tools.clone(),
            (AllowedTools::All, false) => Vec::new(),
            (AllowedTools::All, true) => {
                match list_allowed_tools(server, &options.vars, run_dir).await {
                    Ok(tools) => tools,
                    Err(e) => {
                        return not_run(format!(
                            "cannot list the tools of `{}` for the agent's allowed tools: {e}",
                            server.name
                        ));
                    }
                }
            }
        };
        proxied.push(ProxiedServer {
            name: server.name.clone(),
            url: url.clone(),
            allowed_tools,
        });
    }
    let config_file = run_dir.join("mcp-config.json");
    if let Err(e) = write_agent_mcp_config(&config_file, &proxied) {
        return not_run(format!(
            "cannot write the agent's MCP config {}: {e}",
            config_file.display()
        ));
    }
    let run = AgentRun {
        prompt: &task.prompt,
        servers: &proxied,
        mcp_config_file: &config_file,
        work_dir,
        private_dir: run_dir,
        env: &options.vars,
        live: options.live,
        timeout: eval.agent.timeout(),
    };
    crate::agent::run_agent(&eval.agent, &run).await
}

fn step_context(
    task: &Task,
    run_dir: &Path,
    env: &[(&str, String)],
    options: &RunOptions,
) -> StepContext {
    StepContext {
        task_dir: std::path::absolute(task.dir()).unwrap_or_else(|_| task.dir().to_path_buf()),
        run_dir: run_dir.to_path_buf(),
        env: options
            .vars
            .iter()
            .cloned()
            .chain(env.iter().map(|(k, v)| ((*k).to_owned(), v.clone())))
            .collect(),
        live: options.live,
        agent_output: None,
        judge: None,
    }
}

async fn shutdown(proxies: Vec<ProxyHandle>) {
    for proxy in proxies {
        proxy.shutdown().await;
    }
}

/// Empties (or creates) `dir`.
fn prepare_dir(dir: &Path) -> std::io::Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)
}
