//! The call trace rendered: the snapshot's YAML ([`render_snapshot`]) and the failure
//! message's call lines ([`render_call_lines`]), each call with its injected fault, its
//! elicitations and sampling requests, its task statuses and its input rounds.

use serde_json::Value;

use super::normalize::{Normalizer, RunDirs};
use crate::assert::canonical;
use crate::config::kind_name;
use crate::plumbing::text::shorten;
use crate::tokens::describe;
use crate::trace::{
    AnsweredBy, CallTrace, DiscoveryEvent, Injected, InputRound, ListKind, Outcome, RecordedCall,
    RecordedElicitation, RecordedSampling, result_text,
};

/// The snapshot text of a trace: one YAML entry per call, in order, without timestamps,
/// durations, ids or ports, and with the varying part of each path masked (the run's
/// directories `dirs`, temporary directories: see [`Normalizer`]). Arguments are compact
/// JSON with sorted keys. A fault the proxy injected (a task's `faults`) is an `injected:`
/// line of its call; a list call with one (`tools/list`, …; other list calls are not in
/// snapshots) is an entry of its own, where it came among the calls. A server's
/// elicitations and sampling requests are listed under the call they came during (with the
/// answer and the rule that gave it), any outside a call at the end.
pub fn render_snapshot(trace: &CallTrace, dirs: &RunDirs) -> String {
    let entries = entries(trace);
    if entries.is_empty() && trace.elicitations.is_empty() && trace.sampling.is_empty() {
        return "[] # no calls\n".to_owned();
    }
    let mut normalizer = Normalizer::new(dirs);
    let mut out = String::new();
    for entry in entries {
        let (i, call) = match entry {
            Entry::Call(i, call) => (i, call),
            Entry::List(event) => {
                out.push_str(&list_entry(event, &mut normalizer));
                continue;
            }
        };
        let target = normalizer.text(&format!("{}/{}", call.server, call.name));
        out.push_str(&format!(
            "- {}: {}\n",
            kind_name(call.kind),
            yaml_scalar(&target)
        ));
        if let Some(turn) = call.turn {
            out.push_str(&format!("  turn: {turn}\n"));
        }
        if let Some(arguments) = call.arguments.as_ref().filter(|a| !is_empty(a)) {
            let arguments = canonical(normalizer.value(arguments));
            out.push_str(&format!("  arguments: {arguments}\n"));
        }
        let outcome = match &call.outcome {
            Outcome::Ok { .. } => "ok".to_owned(),
            Outcome::IsError { .. } => "is_error".to_owned(),
            Outcome::Error { message, .. } => {
                yaml_scalar(&format!("error: {}", normalizer.text(message)))
            }
        };
        out.push_str(&format!("  outcome: {outcome}\n"));
        if let Some(injected) = &call.injected {
            out.push_str(&injected_line(injected));
        }
        if !call.task.is_empty() {
            out.push_str(&format!("  task: {}\n", yaml_scalar(&task_text(call))));
        }
        if !call.rounds.is_empty() {
            out.push_str("  rounds:\n");
            for round in &call.rounds {
                out.push_str(&format!("  - {}\n", yaml_scalar(&round_text(round))));
            }
        }
        let asked: Vec<&RecordedElicitation> = asked_during(trace, Some(i)).collect();
        if !asked.is_empty() {
            out.push_str("  elicitations:\n");
            for elicitation in asked {
                let line = normalizer.text(&asked_line(elicitation));
                out.push_str(&format!("  - {}\n", yaml_scalar(&line)));
            }
        }
        let sampled: Vec<&RecordedSampling> = sampled_during(trace, Some(i)).collect();
        if !sampled.is_empty() {
            out.push_str("  sampling:\n");
            for sampling in sampled {
                let line = normalizer.text(&sampled_line(sampling));
                out.push_str(&format!("  - {}\n", yaml_scalar(&line)));
            }
        }
    }
    for elicitation in asked_during(trace, None) {
        let line = normalizer.text(&format!(
            "{} {}",
            elicitation.server,
            asked_line(elicitation)
        ));
        out.push_str(&format!("- elicitation: {}\n", yaml_scalar(&line)));
    }
    for sampling in sampled_during(trace, None) {
        let line = normalizer.text(&format!("{} {}", sampling.server, sampled_line(sampling)));
        out.push_str(&format!("- sampling: {}\n", yaml_scalar(&line)));
    }
    out
}

/// `working → input_required → completed`: the statuses of the task a call was answered
/// with, a status repeated by the next poll shown once.
fn task_text(call: &RecordedCall) -> String {
    let mut statuses: Vec<&str> = Vec::new();
    for step in &call.task {
        if statuses.last() != Some(&step.status.as_str()) {
            statuses.push(&step.status);
        }
    }
    statuses.join(" → ")
}

/// `confirm elicitation/create, roots roots/list`: what one input round asked for.
fn round_text(round: &InputRound) -> String {
    let asked: Vec<String> = (round.asked.iter())
        .map(|(key, method)| format!("{key} {method}"))
        .collect();
    asked.join(", ")
}

/// The elicitations that came during the call at index `call` of the trace (`None`:
/// outside any call).
fn asked_during(
    trace: &CallTrace,
    call: Option<usize>,
) -> impl Iterator<Item = &RecordedElicitation> {
    let position = call.map(|i| i + 1);
    (trace.elicitations.iter())
        .filter(move |elicitation| elicitation.during.as_ref().and_then(|d| d.position) == position)
}

/// `form "Delete notes.txt?" → accept (spec.elicitation.rules[0])`: an elicitation under its
/// call, in snapshots and failure messages (`→ cancel, failed (unmatched)` when the scripted
/// user could not answer as the task wants).
fn asked_line(elicitation: &RecordedElicitation) -> String {
    let mut answer = elicitation
        .action
        .map_or("no answer", |a| a.as_str())
        .to_owned();
    if elicitation.failure.is_some() {
        // The failure message says why, above the trace; results files keep it whole.
        answer.push_str(", failed");
    }
    let by = match (&elicitation.rule, elicitation.answered_by) {
        _ if elicitation.injected.is_some() => {
            format!(
                " ({})",
                elicitation
                    .injected
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        }
        (Some(rule), _) => format!(" ({rule})"),
        (None, AnsweredBy::Agent) => " (the agent)".to_owned(),
        (None, AnsweredBy::Script) => " (unmatched)".to_owned(),
    };
    format!(
        "{} {:?} → {answer}{by}",
        elicitation.mode.as_str(),
        elicitation.message
    )
}

/// The sampling requests that came during the call at index `call` of the trace (`None`:
/// outside any call).
fn sampled_during(
    trace: &CallTrace,
    call: Option<usize>,
) -> impl Iterator<Item = &RecordedSampling> {
    let position = call.map(|i| i + 1);
    (trace.sampling.iter())
        .filter(move |sampling| sampling.during.as_ref().and_then(|d| d.position) == position)
}

/// `"Summarise: cats" → "Cats purr." (spec.sampling.rules[0])`: a sampling request under its
/// call (its last message), in snapshots and failure messages (`→ declined (unmatched)`,
/// `→ no reply, failed (unmatched)`).
fn sampled_line(sampling: &RecordedSampling) -> String {
    let asked = shorten(sampling.messages.last().map_or("", String::as_str), 80);
    let mut answer = match (&sampling.reply, sampling.declined) {
        (Some(reply), _) => format!("{:?}", shorten(reply, 80)),
        (None, true) => "declined".to_owned(),
        (None, false) => "no reply".to_owned(),
    };
    if sampling.failure.is_some() {
        answer.push_str(", failed");
    }
    let by = match (&sampling.rule, sampling.answered_by) {
        (Some(rule), _) => format!(" ({rule})"),
        (None, AnsweredBy::Agent) => " (the agent)".to_owned(),
        (None, AnsweredBy::Script) => " (unmatched)".to_owned(),
    };
    format!("{asked:?} → {answer}{by}")
}

/// A call, or a list call the proxy injected a fault into, in the order the proxies
/// received them.
enum Entry<'t> {
    /// A call and its index in the trace.
    Call(usize, &'t RecordedCall),
    /// A list call with an injected fault.
    List(&'t DiscoveryEvent),
}

/// The calls of `trace` with its list calls that carry an injected fault, each of these
/// placed before the first call received after it.
fn entries(trace: &CallTrace) -> Vec<Entry<'_>> {
    let mut lists = (trace.discovery.iter())
        .filter(|event| event.injected.is_some())
        .peekable();
    let mut entries = Vec::new();
    for (i, call) in trace.calls.iter().enumerate() {
        while let Some(event) = lists.next_if(|event| event.start_offset < call.start_offset) {
            entries.push(Entry::List(event));
        }
        entries.push(Entry::Call(i, call));
    }
    entries.extend(lists.map(Entry::List));
    entries
}

/// A list call with an injected fault as a snapshot entry: `- tools/list: demo`, its outcome
/// and its `injected:` line.
fn list_entry(event: &DiscoveryEvent, normalizer: &mut Normalizer) -> String {
    let outcome = match &event.error {
        Some(message) => yaml_scalar(&format!("error: {}", normalizer.text(message))),
        None => "ok".to_owned(),
    };
    let server = normalizer.text(&event.server);
    let mut out = format!(
        "- {}: {}\n  outcome: {outcome}\n",
        list_method(event.list),
        yaml_scalar(&server)
    );
    if let Some(injected) = &event.injected {
        out.push_str(&injected_line(injected));
    }
    out
}

/// `  injected: toolError (config.taskSets[0].faults[1])`.
fn injected_line(injected: &Injected) -> String {
    format!(
        "  injected: {}\n",
        yaml_scalar(&format!("{} ({})", injected.fault, injected.rule))
    )
}

/// The MCP method of a list: `tools/list`, `resources/templates/list`, …
fn list_method(list: ListKind) -> &'static str {
    match list {
        ListKind::Tools => "tools/list",
        ListKind::Resources => "resources/list",
        ListKind::ResourceTemplates => "resources/templates/list",
        ListKind::Prompts => "prompts/list",
    }
}

fn is_empty(value: &Value) -> bool {
    matches!(value, Value::Null) || value.as_object().is_some_and(|m| m.is_empty())
}

/// `text` as a YAML scalar: plain when that reads back the same, else double-quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with(':')
        && !text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        && !text.ends_with(' ')
        && !text.contains('\n');
    if plain {
        text.to_owned()
    } else {
        Value::String(text.to_owned()).to_string()
    }
}

/// One line per call for failure messages: position, kind, server/name, compact arguments,
/// outcome, duration and, for a tool call, its result's tokens (`result_tokens`, one per
/// call of the trace: [`TraceTokens::results`](crate::tokens::TraceTokens)). Only here, not
/// in snapshots: a token count is the server's output size, not the agent's behaviour.
/// An answer the proxy injected (a task's `faults`) reads `→ injected <kind> (<rule>): …`,
/// never as the server's; a list call with an injected fault is a line without a number.
pub fn render_call_lines(trace: &CallTrace, result_tokens: &[Option<usize>]) -> String {
    let entries = entries(trace);
    if entries.is_empty() && trace.elicitations.is_empty() && trace.sampling.is_empty() {
        return "  (no calls)".to_owned();
    }
    let mut turn = None;
    (entries.into_iter())
        .map(|entry| match entry {
            Entry::Call(i, call) => {
                let tokens = result_tokens.get(i).copied().flatten();
                // A conversation's calls under a line for each turn.
                let header = match call.turn {
                    Some(now) if turn != Some(now) => {
                        turn = Some(now);
                        format!("  turn {now}:\n")
                    }
                    _ => String::new(),
                };
                let mut line = format!("{header}  #{} {}", i + 1, call_line(call, tokens));
                for elicitation in asked_during(trace, Some(i)) {
                    line.push_str(&format!("\n       asked: {}", asked_line(elicitation)));
                }
                for sampling in sampled_during(trace, Some(i)) {
                    line.push_str(&format!("\n       sampled: {}", sampled_line(sampling)));
                }
                line
            }
            Entry::List(event) => format!("  - {}", list_line(event)),
        })
        .chain(asked_during(trace, None).map(|elicitation| {
            format!(
                "  - {} asked: {}",
                elicitation.server,
                asked_line(elicitation)
            )
        }))
        .chain(sampled_during(trace, None).map(|sampling| {
            format!(
                "  - {} sampled: {}",
                sampling.server,
                sampled_line(sampling)
            )
        }))
        .collect::<Vec<_>>()
        .join("\n")
}

fn call_line(call: &RecordedCall, tokens: Option<usize>) -> String {
    let arguments = match call.arguments.as_ref().filter(|a| !is_empty(a)) {
        Some(arguments) => format!(" {}", shorten(&arguments.to_string(), 160)),
        None => String::new(),
    };
    let outcome = match &call.outcome {
        Outcome::Ok { .. } => "ok".to_owned(),
        Outcome::IsError { result } => {
            format!("is_error {:?}", shorten(&result_text(result), 120))
        }
        Outcome::Error { code, message } => format!("error {code}: {}", shorten(message, 120)),
    };
    let mut tokens = tokens.map_or(String::new(), |n| format!(", {}", describe(n)));
    if !call.task.is_empty() {
        tokens.push_str(&format!(", task {}", task_text(call)));
    }
    if !call.rounds.is_empty() {
        let rounds: Vec<String> = call.rounds.iter().map(round_text).collect();
        tokens.push_str(&format!(
            ", {} input round{}: {}",
            rounds.len(),
            if rounds.len() == 1 { "" } else { "s" },
            rounds.join("; ")
        ));
    }
    let (outcome, kept) = match &call.injected {
        Some(injected) if injected.replaces_answer() => {
            (format!("{injected}: {outcome}"), String::new())
        }
        Some(injected) => (outcome, format!("; {injected}")),
        None => (outcome, String::new()),
    };
    format!(
        "{} {}/{}{arguments} → {outcome} ({:.0?}{tokens}{kept})",
        kind_name(call.kind),
        call.server,
        call.name,
        call.duration
    )
}

/// `tools/list demo → injected error (spec.faults[0]): error: boom (2ms)`.
fn list_line(event: &DiscoveryEvent) -> String {
    let outcome = match &event.error {
        Some(message) => format!("error: {}", shorten(message, 120)),
        None => "ok".to_owned(),
    };
    let outcome = match &event.injected {
        Some(injected) if injected.replaces_answer() => format!("{injected}: {outcome}"),
        Some(injected) => format!("{outcome}; {injected}"),
        None => outcome,
    };
    format!(
        "{} {} → {outcome} ({:.0?})",
        list_method(event.list),
        event.server,
        event.duration
    )
}
