//! The timed part of a task run: setup, the agent, verify and the assertions, writing what
//! each produced into the report that the run shares with the code waiting for it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::agent::{agent_version, builtin_version, program_install_dir, program_version};
use crate::assert::{check_all, check_skills};
use crate::config::{AgentLlm, Eval, McpServer, Step, Task};
use crate::extension::HostSettings;
use crate::llm_proxy::LlmApi;
use crate::plan::AssertionSet;
use crate::plumbing::lock::lock;
use crate::plumbing::process::ProcessGroupGuard;
use crate::proxy::CallRecorder;
use crate::run::agent_phase::{AgentSide, TurnInput, run_agent, run_agent_on};
use crate::run::llm_phase::{LlmTarget, StartedProxy, finish_llm_proxy, start_llm_proxy};
use crate::run::report::{LlmClient, RunOptions, RunPhase, RunReport};
use crate::run::turns::converse;
use crate::steps::{
    Phase, Span, StepContext, StepExtensions, phase_passed, prepare_extension_steps, resolve_judge,
    run_phase,
};
use crate::trace::CallTrace;

/// What the timed part of a run shares with the code that waits for it.
pub(crate) struct TimedRun {
    pub(crate) phase: Arc<Mutex<RunPhase>>,
    pub(crate) report: Mutex<RunReport>,
    pub(crate) groups: Mutex<Vec<ProcessGroupGuard>>,
    /// The cassette of the run's LLM calls.
    pub(crate) cassette: PathBuf,
    /// The test's name, for the commands that re-record.
    pub(crate) test_name: String,
    /// When the task timeout ends the timed part of the run.
    pub(crate) deadline: std::time::Instant,
}

impl TimedRun {
    pub(crate) fn set_phase(&self, phase: RunPhase) {
        *lock(&self.phase) = phase;
    }

    pub(crate) fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        lock(&self.report)
    }
}

/// Setup, the agent, verify and the assertions, in order, each recorded in the shared
/// report as it ends; bounded by the task timeout from outside.
pub(crate) async fn run_main(
    shared: &TimedRun,
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    recorder: &CallRecorder,
    assertion_sets: &[AssertionSet],
    options: &RunOptions,
) {
    let run_dir = shared.report().run_dir.clone();
    let work_dir = shared.report().work_dir.clone();
    let context = step_context(eval, task, &run_dir, &[], options);
    if let Some(extensions) = &context.extensions {
        let problems = prepare_extension_steps(task, extensions).await;
        if !problems.is_empty() {
            shared.report().errors.extend(problems);
            return;
        }
    }
    shared.set_phase(RunPhase::Setup);
    let mut groups = Vec::new();
    let setup = run_phase(Phase::Setup, &task.setup, &context, &mut groups).await;
    lock(&shared.groups).extend(groups);
    let setup_ok = phase_passed(&setup);
    shared.report().setup = setup;
    if !setup_ok {
        return;
    }

    shared.set_phase(RunPhase::Agent);
    let install_dir = program_install_dir(&eval.agent, &options.vars);
    let target = LlmTarget {
        cassette: shared.cassette.clone(),
        test_name: &shared.test_name,
        run_dir: &run_dir,
        work_dir: &work_dir,
        install_dir: install_dir.as_deref(),
    };
    let answer = if task.follow_ups.is_empty() {
        let turn = TurnInput {
            prompt: &task.prompt,
            env: Vec::new(),
        };
        agent_turn(shared, eval, &turn, (servers, &target, options), None).await
    } else {
        match converse(shared, eval, task, servers, recorder, &target, options).await {
            Some(answer) => answer,
            // A turn failed and stopped the conversation: the task's own checks are of
            // the whole conversation, which did not happen.
            None => return,
        }
    };

    shared.set_phase(RunPhase::Verify);
    let trace = recorder.trace();
    verify(shared, eval, task, &target, &trace, answer, options).await;
    if !shared.report().errors.is_empty() {
        return;
    }

    shared.set_phase(RunPhase::Assertions);
    check_assertions(shared, eval, assertion_sets, &trace);
    shared.set_phase(RunPhase::Done);
}

/// One run of the agent (a task's, or a turn of its conversation, through the
/// conversation's LLM proxy `llm`): its outcome, version and LLM calls into the report (the
/// agent's span from its first turn on); its answer.
pub(crate) async fn agent_turn(
    shared: &TimedRun,
    eval: &Eval,
    turn: &TurnInput<'_>,
    (servers, target, options): (&[(McpServer, String)], &LlmTarget<'_>, &RunOptions),
    llm: Option<&StartedProxy>,
) -> String {
    let agent_start = std::time::Instant::now();
    let mut listing_failures = Vec::new();
    let (agent, llm) = match llm {
        None => {
            let failures = &mut listing_failures;
            run_agent(
                eval,
                turn,
                servers,
                target,
                options,
                shared.deadline,
                failures,
            )
            .await
        }
        Some(started) => {
            let side = AgentSide {
                servers,
                target,
                options,
                deadline: shared.deadline,
                llm: Some(started),
            };
            (
                run_agent_on(eval, turn, &side, &mut listing_failures).await,
                None,
            )
        }
    };
    shared.report().server_failures.extend(listing_failures);
    let span = shared.report().agent_span.map_or_else(
        || Span::since(agent_start),
        |first| Span::since(first.start),
    );
    shared.report().agent_span = Some(span);
    let version = version_of(eval, agent.version.clone(), target.run_dir, options).await;
    shared.report().agent_version = version;
    let answer = agent.answer.clone();
    shared.report().agent = Some(agent);
    shared.report().llm.extend(llm);
    answer
}

/// The agent's version: its Agent file's `getVersion` or `metadata.version`, what the agent
/// reported, its builtin kind's, else its program's `--version`.
async fn version_of(
    eval: &Eval,
    reported: Option<String>,
    run_dir: &Path,
    options: &RunOptions,
) -> Option<String> {
    let version = agent_version(eval.agent.options(), run_dir, &options.vars)
        .await
        .or(reported)
        .or_else(|| builtin_version(&eval.agent));
    match version {
        Some(version) => Some(version),
        None => program_version(&eval.agent, run_dir, &options.vars).await,
    }
}

/// The verify phase: the judge's LLM proxy started when a step needs it, the verify steps
/// run with the trace and the answer, the judge's LLM calls recorded. Errors go to the report.
async fn verify(
    shared: &TimedRun,
    eval: &Eval,
    task: &Task,
    target: &LlmTarget<'_>,
    trace: &CallTrace,
    answer: String,
    options: &RunOptions,
) {
    let judge = match start_judge_proxy(eval, task, target, options) {
        Ok(judge) => judge,
        Err(error) => {
            shared.report().errors.push(error);
            return;
        }
    };
    let judge_env = judge.as_ref().map(|j| j.env.clone()).unwrap_or_default();
    match verify_context(
        eval,
        task,
        target.run_dir,
        trace,
        answer,
        options,
        &judge_env,
    ) {
        Ok((context, errors)) => {
            shared.report().errors.extend(errors);
            let verify = run_phase(Phase::Verify, &task.verify, &context, &mut Vec::new()).await;
            shared.report().verify = verify;
        }
        Err(error) => shared.report().errors.push(error),
    }
    if let Some(judge) = judge {
        let record = finish_llm_proxy(LlmClient::Judge, judge).await;
        shared.report().llm.push(record);
    }
}

/// The assertions of the task's sets checked on the trace, and the skill assertions on the
/// agent's own tool calls. Without servers there are no calls to check: those assertions are
/// skipped, never passed.
fn check_assertions(
    shared: &TimedRun,
    eval: &Eval,
    assertion_sets: &[AssertionSet],
    trace: &CallTrace,
) {
    let skipped = crate::run::variant::skipped_assertions(eval, assertion_sets);
    let mut failures = if skipped.is_empty() {
        check_all(assertion_sets, trace)
    } else {
        Vec::new()
    };
    shared.report().skipped_assertions = skipped;
    if let Some(skills) = eval.agent.skills() {
        let report = shared.report();
        let calls = report.agent.as_ref().map_or(&[][..], |a| &a.tool_calls[..]);
        failures.extend(check_skills(assertion_sets, calls, &skills.tool_name));
    }
    shared.report().failures = failures;
}

/// What verify steps see: the trace and the answer as files and variables, the answer and
/// the eval's judge. Also the judge's configuration error when a step needs the judge.
pub(super) fn verify_context(
    eval: &Eval,
    task: &Task,
    run_dir: &Path,
    trace: &CallTrace,
    answer: String,
    options: &RunOptions,
    judge_env: &[(String, String)],
) -> Result<(StepContext, Vec<String>), String> {
    let trace_file = run_dir.join("trace.json");
    let answer_file = run_dir.join("agent-output.txt");
    std::fs::write(&trace_file, crate::run::variant::trace_json(eval, trace))
        .and_then(|()| std::fs::write(&answer_file, &answer))
        .map_err(|e| format!("cannot write {}: {e}", run_dir.display()))?;
    // Environment variables have a size limit; the file always holds the whole answer.
    let short_answer = crate::plumbing::text::shorten(&answer, 64 * 1024);
    let env = [
        ("MCPEVAL_TRACE", trace_file.display().to_string()),
        ("MCPEVAL_AGENT_OUTPUT", short_answer),
        (
            "MCPEVAL_AGENT_OUTPUT_FILE",
            answer_file.display().to_string(),
        ),
    ];
    let mut context = step_context(eval, task, run_dir, &env, options);
    context.agent_output = Some(answer);
    let mut errors = Vec::new();
    if let Some(config) = &eval.llm_judge {
        let lookup = |name: &str| {
            let judge_var = judge_env.iter().rev().find(|(key, _)| key == name);
            judge_var
                .map(|(_, value)| value.clone())
                .or_else(|| options.var(name))
        };
        match resolve_judge(config, &lookup) {
            Ok(settings) => context.judge = Some(settings),
            Err(e)
                if task
                    .verify
                    .iter()
                    .any(|s| matches!(s.step, Step::LlmJudge(_))) =>
            {
                errors.push(e)
            }
            Err(_) => {}
        }
    }
    Ok((context, errors))
}

/// The LLM proxy in front of the judge, when the eval has one and the task's verify asks
/// it: its calls are recorded into and replayed from the `judge` section of the cassette.
fn start_judge_proxy(
    eval: &Eval,
    task: &Task,
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Result<Option<StartedProxy>, String> {
    let Some(config) = &eval.llm_judge else {
        return Ok(None);
    };
    if !task
        .verify
        .iter()
        .any(|s| matches!(s.step, Step::LlmJudge(_)))
    {
        return Ok(None);
    }
    let llm = AgentLlm {
        api: LlmApi::OpenAiChat,
        base_url_env: config.base_url_var().to_owned(),
    };
    start_llm_proxy(
        LlmClient::Judge,
        eval,
        &llm,
        &config.api_key_vars(),
        target,
        options,
    )
    .map(Some)
}

/// What steps of the run see: the task's directory, the run's own, the variables, the
/// eval's extensions.
pub(crate) fn step_context(
    eval: &Eval,
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
        prompt: task.prompt.clone(),
        agent_output: None,
        judge: None,
        extensions: step_extensions(eval, task, options),
    }
}

/// The eval's extensions when the task has extension steps.
fn step_extensions(eval: &Eval, task: &Task, options: &RunOptions) -> Option<StepExtensions> {
    task.extension_steps().next()?;
    let settings = HostSettings {
        vars: options.vars.clone(),
        output_dir: options.output_dir.clone(),
        live: options.live,
    };
    let manager = options.extensions.for_eval(eval, settings)?;
    Some(StepExtensions {
        manager,
        prompt: task.prompt.clone(),
    })
}
