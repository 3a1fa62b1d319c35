//! A task's conversation (`spec.followUps`): its turns in order, each a run of the agent
//! with that turn's prompt against the same servers (the proxies keep one server for all
//! the agent's sessions), each later turn checked right after it (its `verify` steps on
//! the trace so far, its `assertions` on its own calls). A failed turn stops the
//! conversation, the turns after it reported as not run, unless `continueOnFailure`.
//!
//! An agent continues its conversation the way it offers: an Agent file's command (the
//! script agent, a file agent) is run again with the next prompt and the turn number and
//! earlier answers in its variables (`MCPEVAL_TURN`, `MCPEVAL_TURNS`,
//! `MCPEVAL_PREVIOUS_ANSWERS`); the llm-agent continues its messages (kept in the run's
//! directory); Claude Code, Codex and Gemini CLI resume their session (`--resume`,
//! `exec resume`, `--resume latest`). One LLM proxy serves every turn, so the conversation
//! records into one cassette. An ACP agent loads the session of the turn before
//! (`session/load`). An agent that cannot continue fails its turn saying why, never silently
//! starting over.

use std::sync::Arc;

use serde_json::json;

use crate::assert::check;
use crate::config::{Eval, FollowUp, McpServer, Task};
use crate::proxy::CallRecorder;
use crate::run::agent_phase::agent_turn;
use crate::run::agent_phase::{TurnInput, finish_agent_llm, start_agent_llm};
use crate::run::llm_phase::{LlmTarget, finish_llm_proxy};
use crate::run::report::{ConversationTurn, LlmClient, RunOptions};
use crate::run::step_context::verify_context;
use crate::run::timed::TimedRun;
use crate::steps::{Ended, Phase, Span, run_phase};
use crate::trace::CallTrace;

/// Runs the task's turns in order; the last turn's answer, or `None` when a failed turn
/// stopped the conversation.
pub(crate) async fn converse(
    shared: &TimedRun,
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    recorder: &CallRecorder,
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Option<String> {
    let count = task.follow_ups.len() + 1;
    let mut answers: Vec<String> = Vec::new();
    let mut stopped = false;
    // One LLM proxy for the whole conversation: one cassette, its turns in order.
    let llm = match start_agent_llm(eval, target, options) {
        Ok(llm) => llm,
        Err(error) => {
            shared.report().errors.push(error);
            return None;
        }
    };
    for (index, prompt) in task.turn_prompts().enumerate() {
        let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
        let mut turn = ConversationTurn {
            turn: number,
            prompt: prompt.to_owned(),
            ..ConversationTurn::default()
        };
        if stopped {
            turn.not_run = true;
            shared.report().turns.push(turn);
            continue;
        }
        recorder.set_turn(number);
        let input = TurnInput {
            prompt,
            env: vec![
                ("MCPEVAL_TURN".to_owned(), number.to_string()),
                ("MCPEVAL_TURNS".to_owned(), count.to_string()),
                (
                    "MCPEVAL_PREVIOUS_ANSWERS".to_owned(),
                    json!(answers).to_string(),
                ),
            ],
        };
        let start = std::time::Instant::now();
        let side = (servers, target, options);
        let answer = agent_turn(shared, eval, &input, side, llm.as_ref()).await;
        turn.span = Some(Span::since(start));
        let ended = (shared.report().agent.as_ref()).map(|agent| agent.ended.clone());
        turn.tokens = (shared.report().agent.as_ref())
            .and_then(|agent| agent.usage.as_ref().map(|usage| usage.total_tokens));
        if let Some(Ended::Failed(reason)) = ended {
            turn.failures.push(format!("agent: {reason}"));
            turn.agent_failed = true;
        }
        if let Some(follow_up) = index.checked_sub(1).map(|i| &task.follow_ups[i]) {
            let trace = recorder.trace();
            let checked = (index, answer.as_str(), &trace);
            let failures = check_turn(eval, task, follow_up, checked, target, options).await;
            turn.failures.extend(failures);
        }
        turn.answer = Some(answer.clone());
        answers.push(answer);
        turn.calls = (recorder.trace().calls.iter())
            .filter(|call| call.turn == Some(number))
            .count();
        stopped = !turn.failures.is_empty() && !task.continue_on_failure;
        shared.report().turns.push(turn);
    }
    if let Some(started) = llm {
        let outcome = shared.report().agent.take();
        let record = match outcome {
            Some(outcome) => {
                let (outcome, record) = finish_agent_llm(eval, outcome, started).await;
                shared.report().agent = Some(outcome);
                record
            }
            None => finish_llm_proxy(LlmClient::Agent, started).await,
        };
        shared.report().llm.push(record);
    }
    // The last agent run is the report's agent: its failure is the agent's; an earlier
    // turn's stays the turn's.
    if let Some(last) = (shared.report().turns.iter_mut()).rfind(|turn| turn.answer.is_some()) {
        last.failures
            .retain(|failure| !failure.starts_with("agent: "));
    }
    let stopped_early = shared.report().turns.iter().any(|turn| turn.not_run);
    (!stopped_early).then(|| answers.pop().unwrap_or_default())
}

/// A later turn's own checks, right after it: its `verify` steps on the trace so far and
/// the turn's answer, its `assertions` on the calls of this turn. Each failure a line.
async fn check_turn(
    eval: &Eval,
    task: &Task,
    follow_up: &FollowUp,
    (index, answer, trace): (usize, &str, &CallTrace),
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Vec<String> {
    let number = u32::try_from(index + 1).unwrap_or(u32::MAX);
    let mut failures = Vec::new();
    if !follow_up.verify.is_empty() {
        let context = verify_context(
            eval,
            task,
            target.run_dir,
            trace,
            answer.to_owned(),
            options,
            &[],
        );
        match context {
            Ok((context, errors)) => {
                failures.extend(errors);
                let results =
                    run_phase(Phase::Verify, &follow_up.verify, &context, &mut Vec::new()).await;
                for result in results
                    .iter()
                    .filter(|r| !r.passed() && !r.continue_on_error)
                {
                    if let Ended::Failed(reason) = &result.ended {
                        failures.push(format!("{}: {reason}", result.label));
                    }
                }
            }
            Err(error) => failures.push(error),
        }
    }
    let key = format!("spec.followUps[{}]", index - 1);
    let assertions = Arc::new(follow_up.assertions.clone());
    let turn_trace = trace.of_turn(number);
    failures.extend(check(&key, &assertions, &turn_trace).iter().map(|failure| {
        format!(
            "{} ({}): expected {}; actual {}",
            failure.assertion, failure.task_set, failure.expected, failure.actual
        )
    }));
    failures
}
