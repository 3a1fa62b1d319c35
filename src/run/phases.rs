//! The timed part of a task run: setup, the agent, verify and the assertions, writing what
//! each produced into the report that the run shares with the code waiting for it.

use crate::agent::program_install_dir;
use crate::assert::{check_all, check_skills};
use crate::config::{AgentLlm, Eval, McpServer, Step, Task};
use crate::llm_proxy::LlmApi;
use crate::plan::AssertionSet;
use crate::plumbing::lock::lock;
use crate::proxy::CallRecorder;
use crate::run::agent_phase::{TurnInput, agent_turn};
use crate::run::llm_phase::{LlmTarget, StartedProxy, finish_llm_proxy, start_llm_proxy};
use crate::run::report::{LlmClient, RunOptions, RunPhase};
use crate::run::step_context::{step_context, verify_context};
use crate::run::timed::TimedRun;
use crate::run::turns::converse;
use crate::steps::{Phase, phase_passed, prepare_extension_steps, run_phase};
use crate::trace::CallTrace;

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
