//! What the steps of a run see: the task's directory, the run's own, the variables, the
//! eval's extensions ([`step_context`]); verify steps also the trace and the answer
//! ([`verify_context`]).

use std::path::Path;

use crate::config::Eval;
use crate::config::{Step, Task};
use crate::extension::HostSettings;
use crate::run::report::RunOptions;
use crate::steps::{StepContext, StepExtensions, resolve_judge};
use crate::trace::CallTrace;

/// What verify steps see: the trace and the answer as files and variables, the answer and
/// the eval's judge. Also the judge's configuration error when a step needs the judge.
pub(crate) fn verify_context(
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
