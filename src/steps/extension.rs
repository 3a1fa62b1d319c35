//! `<alias>.<operation>` steps: an operation of one of the eval's extensions, its arguments
//! checked against the operation's schema before setup, its result, message, outputs and
//! logs in the step's output.

use crate::plumbing::ended::Ended;
use std::sync::Arc;

use super::{Phase, StepContext, StepResult};
use crate::config::{ExtensionStep, LocationIndex, Task};
use crate::extension::{Execute, Execution, ExtensionManager};

/// What extension steps of a run need: the eval's extensions and the task's prompt (sent
/// with verify steps).
#[derive(Debug, Clone)]
pub struct StepExtensions {
    /// The eval's extensions.
    pub manager: Arc<ExtensionManager>,
    /// The task's prompt.
    pub prompt: String,
}

/// Starts the extensions `task` uses and checks the arguments of each of its extension steps
/// against the operation's schema; every problem, located in the task file. Runs before
/// setup, so that a wrong argument in a cleanup step is found before anything ran.
pub async fn prepare_extension_steps(task: &Task, extensions: &StepExtensions) -> Vec<String> {
    let mut problems = Vec::new();
    let mut failed_to_start = Vec::new();
    let locations = std::fs::read_to_string(&task.path)
        .map(|text| LocationIndex::build(&text))
        .unwrap_or_default();
    for step in task.extension_steps() {
        if failed_to_start.contains(&step.extension) {
            continue;
        }
        let client = match extensions.manager.client(&step.extension).await {
            Ok(client) => client,
            Err(e) => {
                failed_to_start.push(step.extension.clone());
                problems.push(e);
                continue;
            }
        };
        if let Err(e) = client.check_args(&step.operation, &step.args) {
            let key = format!("{}.{}", step.key_path, step.name());
            let at = match locations.find(&key) {
                Some((line, column)) => format!(":{line}:{column}"),
                None => String::new(),
            };
            problems.push(format!("{}{at}: {key}: {e}", task.path.display()));
        }
    }
    problems
}

pub(super) async fn run_extension(
    phase: Phase,
    index: usize,
    step: &ExtensionStep,
    context: &StepContext,
) -> StepResult {
    let label = format!("{}[{index}] {}", phase.name(), step.name());
    let mut result = StepResult::new(label, false);
    let Some(extensions) = &context.extensions else {
        result.fail("the eval has no `config.extensions`".into());
        return result;
    };
    let client = match extensions.manager.client(&step.extension).await {
        Ok(client) => client,
        Err(e) => {
            result.fail(e);
            return result;
        }
    };
    let agent = (phase == Phase::Verify).then(|| {
        let output = context.agent_output.as_deref().unwrap_or("");
        (extensions.prompt.as_str(), output)
    });
    let execution = client
        .execute(Execute {
            operation: &step.operation,
            args: &step.args,
            workdir: context.task_dir.display().to_string(),
            phase: phase.name(),
            agent,
        })
        .await;
    let secrets = extensions.manager.secrets(&step.extension);
    result.output = redact(&render_output(&execution), &secrets);
    match execution.outcome {
        Ok(answer) if answer.success => result.ended = Ended::Passed,
        Ok(answer) => {
            let why = [answer.error, answer.message]
                .into_iter()
                .find(|text| !text.trim().is_empty())
                .unwrap_or_else(|| "(the extension gave no reason)".into());
            result.fail(redact(&format!("the operation failed: {why}"), &secrets));
        }
        Err(e) => result.fail(redact(&e.to_string(), &secrets)),
    }
    result
}

/// The logs, then the message and outputs of the result.
fn render_output(execution: &Execution) -> String {
    let mut lines = execution.logs.clone();
    if let Ok(answer) = &execution.outcome {
        if !answer.message.is_empty() {
            lines.push(format!("message: {}", answer.message));
        }
        if !answer.outputs.is_empty() {
            let outputs = serde_json::to_string(&answer.outputs).unwrap_or_default();
            lines.push(format!("outputs: {outputs}"));
        }
    }
    lines.join("\n")
}

fn redact(text: &str, secrets: &[String]) -> String {
    secrets.iter().fold(text.to_owned(), |text, secret| {
        text.replace(secret, "[redacted]")
    })
}
