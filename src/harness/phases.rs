//! The timed part of a task run: setup, the agent, verify and the assertions, writing what
//! each produced into the report that the run shares with the code waiting for it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use super::agent_phase::run_agent;
use super::run_report::{RunOptions, RunPhase, RunReport};
use crate::assert::check_all;
use crate::config::{Eval, McpServer, Step, Task};
use crate::lock::lock;
use crate::plan::AssertionSet;
use crate::process::ProcessGroupGuard;
use crate::proxy::CallRecorder;
use crate::steps::{Phase, StepContext, phase_passed, resolve_judge, run_phase};
use crate::trace::CallTrace;

/// What the timed part of a run shares with the code that waits for it.
pub(super) struct Shared {
    pub(super) phase: Arc<Mutex<RunPhase>>,
    pub(super) report: Mutex<RunReport>,
    pub(super) groups: Mutex<Vec<ProcessGroupGuard>>,
}

impl Shared {
    pub(super) fn set_phase(&self, phase: RunPhase) {
        *lock(&self.phase) = phase;
    }

    pub(super) fn report(&self) -> std::sync::MutexGuard<'_, RunReport> {
        lock(&self.report)
    }
}

/// Setup, the agent, verify and the assertions, in order, each recorded in the shared
/// report as it ends; bounded by the task timeout from outside.
pub(super) async fn run_main(
    shared: &Shared,
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    recorder: &CallRecorder,
    assertion_sets: &[AssertionSet],
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
    match verify_context(eval, task, &run_dir, &trace, answer, options) {
        Ok((context, errors)) => {
            shared.report().errors.extend(errors);
            let verify = run_phase(Phase::Verify, &task.verify, &context, &mut Vec::new()).await;
            shared.report().verify = verify;
        }
        Err(error) => {
            shared.report().errors.push(error);
            return;
        }
    }

    shared.set_phase(RunPhase::Assertions);
    shared.report().failures = check_all(assertion_sets, &trace);
    shared.set_phase(RunPhase::Done);
}

/// What verify steps see: the trace and the answer as files and variables, the answer and
/// the eval's judge. Also the judge's configuration error when a step needs the judge.
fn verify_context(
    eval: &Eval,
    task: &Task,
    run_dir: &Path,
    trace: &CallTrace,
    answer: String,
    options: &RunOptions,
) -> Result<(StepContext, Vec<String>), String> {
    let trace_file = run_dir.join("trace.json");
    let answer_file = run_dir.join("agent-output.txt");
    std::fs::write(&trace_file, trace.to_json_pretty())
        .and_then(|()| std::fs::write(&answer_file, &answer))
        .map_err(|e| format!("cannot write {}: {e}", run_dir.display()))?;
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
    let mut context = step_context(task, run_dir, &env, options);
    context.agent_output = Some(answer);
    let mut errors = Vec::new();
    if let Some(config) = &eval.llm_judge {
        match resolve_judge(config, &|name| options.var(name)) {
            Ok(settings) => context.judge = Some(settings),
            Err(e) if task.verify.iter().any(|s| matches!(s, Step::LlmJudge(_))) => errors.push(e),
            Err(_) => {}
        }
    }
    Ok((context, errors))
}

/// What steps of the run see: the task's directory, the run's own, the variables.
pub(super) fn step_context(
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
