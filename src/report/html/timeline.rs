//! A task run as a timeline: setup steps, the agent with its LLM turns (from the cassette,
//! when the file is there) and its MCP calls, verify steps with the judge's turns, cleanup
//! steps; each with its start offset and duration when the results file has them.

use std::collections::VecDeque;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::shown::{MAX_SHOWN, MAX_SHOWN_PASSED, Shown, millis};
use crate::llm_proxy::{RecordedTurn, recorded_turns};
use crate::report::results::{CallRecord, LlmTurnTime, PhaseOutput, TaskResult};
use crate::trace::{AnsweredBy, Injected, RecordedElicitation};

/// One entry of a timeline.
#[derive(Serialize)]
pub(super) struct Event {
    /// `setup`, `agent`, `llm`, `mcp`, `ask` (a server's elicitation), `verify`, `cleanup`
    /// or `note`.
    kind: &'static str,
    title: String,
    /// `ok`, `fail`, `is_error` (an MCP call the server answered with `isError`), `error`,
    /// `injected` (an MCP call the proxy answered: a task's `faults`).
    status: &'static str,
    /// The fault the proxy injected into an MCP call, `injected toolError
    /// (config.taskSets[0].faults[1])`; empty for none.
    injected: String,
    /// `+1.2 s`, or empty when unknown.
    at: String,
    /// `35 ms`, or empty when unknown.
    took: String,
    /// Where the bar starts and how wide it is, in percent of the run (none when unknown).
    bar: Option<(f64, f64)>,
    reason: String,
    /// Labelled texts: arguments, result, output, request, reply.
    blocks: Vec<(&'static str, Shown)>,
}

/// The events of a run in the order they happened.
pub(super) fn timeline(result: &TaskResult, base: &Path) -> Vec<Event> {
    let span = TimelineSpan::of(result);
    let limit = if result.task_passed {
        MAX_SHOWN_PASSED
    } else {
        MAX_SHOWN
    };
    let mut events = Vec::new();
    steps(&mut events, "setup", &result.setup_output, (span, limit));
    steps(&mut events, "agent", &result.agent_output, (span, limit));
    let mut calls: Vec<&CallRecord> = (result.call_history.tool_calls.iter())
        .chain(&result.call_history.resource_reads)
        .chain(&result.call_history.prompt_gets)
        .collect();
    calls.sort_by_key(|call| call.position);
    let mut calls: VecDeque<&CallRecord> = calls.into();
    match turns(result, "agent", base) {
        Ok(Some((turns, times))) => {
            for turn in turns {
                let asked = tools_asked(&turn.reply);
                events.push(llm_event(&turn, times, (span, limit)));
                // The MCP calls this turn asked for come next (matched by name, in order).
                for tool in asked {
                    match calls.front() {
                        Some(call) if same_tool(&tool, &call.name) => {
                            push_call(&mut events, result, call, (span, limit));
                            calls.pop_front();
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(None) => {}
        Err(note) => events.push(note_event(note)),
    }
    for call in calls {
        push_call(&mut events, result, call, (span, limit));
    }
    let outside = (result.call_history.elicitations.iter())
        .filter(|asked| asked.during.as_ref().and_then(|d| d.position).is_none());
    events.extend(outside.map(|asked| ask_event(asked, (span, limit))));
    steps(&mut events, "verify", &result.verify_output, (span, limit));
    match turns(result, "judge", base) {
        Ok(Some((turns, times))) => {
            events.extend((turns.iter()).map(|turn| llm_event(turn, times, (span, limit))))
        }
        Ok(None) => {}
        Err(note) => events.push(note_event(note)),
    }
    steps(
        &mut events,
        "cleanup",
        &result.cleanup_output,
        (span, limit),
    );
    events
}

/// The run's length, what bars are measured against.
#[derive(Clone, Copy)]
struct TimelineSpan(f64);

/// The narrowest bar, in percent.
const MIN_BAR: f64 = 0.4;

impl TimelineSpan {
    fn of(result: &TaskResult) -> Self {
        let phases = [
            &result.setup_output,
            &result.agent_output,
            &result.verify_output,
            &result.cleanup_output,
        ];
        let step_ends = (phases.iter().flat_map(|p| &p.steps))
            .filter_map(|s| Some(s.start_offset_ms? + s.duration_ms?));
        let call_ends = (result.call_history.tool_calls.iter())
            .chain(&result.call_history.resource_reads)
            .chain(&result.call_history.prompt_gets)
            .map(|c| c.start_offset_ms + c.duration_ms);
        let end = step_ends
            .chain(call_ends)
            .fold(result.duration_ms, f64::max);
        TimelineSpan(end.max(1.0))
    }

    /// A bar's left edge and width in percent of the span: at least 0.4% wide, never past
    /// the end (an event that starts at the very end, or a NaN, still gets a bar).
    fn bar(self, start: f64, duration: f64) -> (f64, f64) {
        let left = match (start / self.0 * 100.0).clamp(0.0, 100.0 - MIN_BAR) {
            left if left.is_nan() => 0.0,
            left => left,
        };
        let width = (duration / self.0 * 100.0).max(MIN_BAR).min(100.0 - left);
        ((left * 10.0).round() / 10.0, (width * 10.0).round() / 10.0)
    }
}

fn steps(
    events: &mut Vec<Event>,
    kind: &'static str,
    phase: &PhaseOutput,
    (span, limit): (TimelineSpan, usize),
) {
    for step in &phase.steps {
        let timing = step.start_offset_ms.zip(step.duration_ms);
        let mut blocks = Vec::new();
        if !step.output.is_empty() {
            blocks.push(("output", Shown::up_to(&step.output, limit)));
        }
        events.push(Event {
            kind,
            title: step.label.clone(),
            status: if step.passed { "ok" } else { "fail" },
            injected: String::new(),
            at: timing.map_or_else(String::new, |(at, _)| at_text(at)),
            took: timing.map_or_else(String::new, |(_, took)| millis(took)),
            bar: timing.map(|(at, took)| span.bar(at, took)),
            reason: step.reason.clone(),
            blocks,
        });
    }
}

/// An MCP call's event, then those of the elicitations its server sent while answering it.
fn push_call(
    events: &mut Vec<Event>,
    result: &TaskResult,
    call: &CallRecord,
    (span, limit): (TimelineSpan, usize),
) {
    events.push(call_event(call, (span, limit)));
    let during = (result.call_history.elicitations.iter())
        .filter(|asked| asked.during.as_ref().and_then(|d| d.position) == Some(call.position));
    events.extend(during.map(|asked| ask_event(asked, (span, limit))));
}

/// A server's elicitation: what it asked, who answered and how; failed when the scripted
/// user could not answer as the task wants.
fn ask_event(asked: &RecordedElicitation, (span, limit): (TimelineSpan, usize)) -> Event {
    let mut blocks = Vec::new();
    if let Some(schema) = &asked.requested_schema {
        blocks.push(("requested schema", Shown::json(schema, limit)));
    }
    if let Some(url) = &asked.url {
        blocks.push(("url", Shown::up_to(url, limit)));
    }
    if let Some(content) = &asked.content {
        blocks.push(("content", Shown::json(content, limit)));
    }
    let answer = asked.action.map_or("no answer", |action| action.as_str());
    let by = match (&asked.rule, asked.answered_by) {
        _ if asked.injected.is_some() => (asked.injected.as_ref())
            .map(ToString::to_string)
            .unwrap_or_default(),
        (Some(rule), _) => rule.clone(),
        (None, AnsweredBy::Agent) => "the agent".to_owned(),
        (None, AnsweredBy::Script) => "unmatched".to_owned(),
    };
    let failed = asked.failure.is_some() && asked.answered_by == AnsweredBy::Script;
    let start_ms = asked.start_offset.as_secs_f64() * 1000.0;
    Event {
        kind: "ask",
        title: format!(
            "{} asks ({}): {} → {answer} ({by})",
            asked.server,
            asked.mode.as_str(),
            asked.message
        ),
        status: if failed { "fail" } else { "ok" },
        injected: String::new(),
        at: at_text(start_ms),
        took: String::new(),
        bar: Some(span.bar(start_ms, 0.0)),
        reason: asked.failure.clone().unwrap_or_default(),
        blocks,
    }
}

/// An MCP call. One whose answer the proxy injected (a task's `faults`) has the status
/// `injected` and its result labelled as the proxy's, never passed off as the server's.
fn call_event(call: &CallRecord, (span, limit): (TimelineSpan, usize)) -> Event {
    let mut blocks = Vec::new();
    if let Some(arguments) = &call.arguments {
        blocks.push(("arguments", Shown::json(arguments, limit)));
    }
    let replaced = call.answer_injected();
    let label = match (replaced, call.outcome == "error") {
        (false, false) => "result",
        (false, true) => "error",
        (true, false) => "injected result",
        (true, true) => "injected error",
    };
    blocks.push((label, result_text(&call.result, limit)));
    if !call.task.is_empty() {
        let statuses: Vec<String> = (call.task.iter())
            .map(|step| match &step.message {
                Some(message) => format!("{} ({message})", step.status),
                None => step.status.clone(),
            })
            .collect();
        let task = format!("{}: {}", call.task[0].task_id, statuses.join(" → "));
        blocks.push(("task", Shown::up_to(&task, limit)));
    }
    if !call.rounds.is_empty() {
        let rounds: Vec<String> = (call.rounds.iter().enumerate())
            .map(|(i, round)| {
                let asked: Vec<String> = (round.asked.iter())
                    .map(|(key, method)| format!("{key}: {method}"))
                    .collect();
                format!("{}. {}", i + 1, asked.join(", "))
            })
            .collect();
        blocks.push(("input rounds", Shown::up_to(&rounds.join("\n"), limit)));
    }
    let tokens = call
        .result_tokens
        .map_or_else(String::new, |t| format!(" · {t} tokens"));
    // A conversation's call says its turn.
    let turn = call
        .turn
        .map_or_else(String::new, |turn| format!("turn {turn} · "));
    Event {
        kind: "mcp",
        title: format!(
            "{turn}#{} {} {}{tokens}",
            call.position, call.server_name, call.name
        ),
        status: match call.outcome.as_str() {
            _ if replaced => "injected",
            "ok" => "ok",
            "is_error" => "is_error",
            _ => "error",
        },
        injected: (call.injected.as_ref()).map_or_else(String::new, Injected::to_string),
        at: at_text(call.start_offset_ms),
        took: millis(call.duration_ms),
        bar: Some(span.bar(call.start_offset_ms, call.duration_ms)),
        reason: String::new(),
        blocks,
    }
}

/// A result as the model reads it: the text of its `content` when that is all text, else
/// the JSON.
fn result_text(result: &Value, limit: usize) -> Shown {
    let content = result.get("content").and_then(Value::as_array);
    let texts: Option<Vec<&str>> = content.and_then(|items| {
        (items.iter())
            .map(|item| item.get("text").and_then(Value::as_str))
            .collect()
    });
    match texts {
        Some(texts) if !texts.is_empty() && result.get("structuredContent").is_none() => {
            Shown::up_to(&texts.join("\n"), limit)
        }
        _ => Shown::json(result, limit),
    }
}

/// A recorded model call, timed when the run made it (`times`, by its number in the
/// cassette): a live answer with its duration, a replayed one as `replayed`.
fn llm_event(
    turn: &RecordedTurn,
    times: &[LlmTurnTime],
    (span, limit): (TimelineSpan, usize),
) -> Event {
    let model = turn.model.as_deref().unwrap_or("");
    let time = times.iter().find(|time| time.seq == turn.seq);
    Event {
        kind: "llm",
        title: format!("LLM turn {} {} {model}", turn.seq, turn.path),
        status: if turn.status < 400 { "ok" } else { "error" },
        injected: String::new(),
        at: time.map_or_else(String::new, |t| at_text(t.start_offset_ms)),
        took: match time {
            Some(LlmTurnTime {
                duration_ms: Some(ms),
                ..
            }) => millis(*ms),
            Some(_) => "replayed".to_owned(),
            None => String::new(),
        },
        bar: time.map(|t| span.bar(t.start_offset_ms, t.duration_ms.unwrap_or_default())),
        reason: String::new(),
        blocks: vec![
            ("new input", Shown::json(&turn.input, limit)),
            ("reply", Shown::up_to(&turn.reply, limit)),
        ],
    }
}

fn note_event(note: String) -> Event {
    Event {
        kind: "note",
        title: note,
        status: "ok",
        injected: String::new(),
        at: String::new(),
        took: String::new(),
        bar: None,
        reason: String::new(),
        blocks: Vec::new(),
    }
}

/// The recorded turns of a cassette, with when the run made them.
type TimedTurns<'a> = (Vec<RecordedTurn>, &'a [LlmTurnTime]);

/// The recorded turns of `who` (`agent`, `judge`) from the cassette the results name, when
/// the file is there; a note when it cannot be read.
fn turns<'a>(
    result: &'a TaskResult,
    who: &str,
    base: &Path,
) -> Result<Option<TimedTurns<'a>>, String> {
    let Some(calls) = result.llm_calls.iter().find(|c| c.who == who) else {
        return Ok(None);
    };
    let path = Path::new(&calls.cassette);
    let path = if path.is_relative() && !path.exists() {
        base.join(path)
    } else {
        path.to_path_buf()
    };
    let section = (who != "agent").then_some(who);
    let turns = recorded_turns(&path, section).map_err(|e| format!("LLM turns not shown: {e}"))?;
    Ok(turns.map(|turns| (turns, calls.turns.as_slice())))
}

/// The tool names a reply asks for (its `tool NAME …` lines).
fn tools_asked(reply: &str) -> Vec<String> {
    (reply.lines())
        .filter_map(|line| line.strip_prefix("tool "))
        .map(|rest| rest.split(' ').next().unwrap_or_default().to_owned())
        .collect()
}

/// A model's tool name for an MCP tool: the same, or prefixed (`mcp__demo__add`).
fn same_tool(asked: &str, called: &str) -> bool {
    asked == called || asked.ends_with(&format!("__{called}"))
}

fn at_text(ms: f64) -> String {
    format!("+{}", millis(ms))
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
