//! `afterFault`: what the agent did after the fault, the first tool call whose answer the
//! proxy injected (a task's `faults`): whether it called the same tool again (`retried`),
//! and which tool calls followed (`toolsUsed`, matched as the `toolsUsed` assertion matches).

use super::closest::closest_of;
use super::describe_call;
use crate::config::{AfterFault, CallMatcher};
use crate::trace::{CallKind, CallTrace, RecordedCall};

/// How many of the calls after the fault a failure lists.
const LISTED_CALLS: usize = 10;

/// What `afterFault` says when no tool call's answer was injected.
const NO_FAULT: &str = "no fault was injected into a tool call, so there is nothing to recover from; check the task's faults rules";

/// `(expected, actual)` when the agent's calls after the fault do not hold to `after`, or
/// when there was no fault at all.
pub(super) fn check(after: &AfterFault, trace: &CallTrace) -> Option<(String, String)> {
    let Some(fault) =
        (trace.calls.iter()).position(|call| call.kind == CallKind::Tool && call.answer_injected())
    else {
        return Some((wanted(after, None), no_fault(trace)));
    };
    let faulted = &trace.calls[fault];
    // Every call after the fault, with its 1-based position among all calls.
    let later: Vec<(usize, &RecordedCall)> = (trace.calls.iter().enumerate())
        .skip(fault + 1)
        .map(|(i, call)| (i + 1, call))
        .collect();
    let mut wrong: Vec<String> = Vec::new();
    let retries: Vec<String> = (later.iter())
        .filter(|(_, call)| same_tool(call, faulted))
        .map(|(i, _)| format!("#{i}"))
        .collect();
    let tool = format!("{}/{}", faulted.server, faulted.name);
    match after.retried {
        Some(true) if retries.is_empty() => wrong.push(format!("{tool} not called again")),
        Some(false) if !retries.is_empty() => {
            wrong.push(format!("{tool} called again: {}", retries.join(", ")))
        }
        _ => {}
    }
    let tool_calls = || (later.iter().copied()).filter(|(_, call)| call.kind == CallKind::Tool);
    let missing: Vec<&CallMatcher> = (after.tools_used.iter())
        .filter(|entry| !tool_calls().any(|(_, call)| entry.matches_call(call)))
        .collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|entry| entry.describe()).collect();
        wrong.push(format!(
            "no tool call after it matching {}",
            names.join(", ")
        ));
        wrong.extend(
            missing
                .iter()
                .filter_map(|entry| closest_of(entry, tool_calls())),
        );
    }
    if wrong.is_empty() {
        return None;
    }
    Some((
        wanted(after, Some((fault + 1, faulted))),
        format!("{}; {}", wrong.join("; "), calls_after(&later)),
    ))
}

/// What `after` asks for, after the fault when there was one (its position and call).
fn wanted(after: &AfterFault, fault: Option<(usize, &RecordedCall)>) -> String {
    let tool = fault.map_or("the faulted tool".to_owned(), |(_, call)| {
        format!("{}/{}", call.server, call.name)
    });
    let mut parts = Vec::new();
    match after.retried {
        Some(true) => parts.push(format!("{tool} called again")),
        Some(false) => parts.push(format!("{tool} not called again")),
        None => {}
    }
    if !after.tools_used.is_empty() {
        let entries: Vec<String> = after.tools_used.iter().map(CallMatcher::describe).collect();
        parts.push(format!(
            "a tool call matching each of: {}",
            entries.join(", ")
        ));
    }
    let when = match fault {
        Some((i, call)) => match &call.injected {
            Some(injected) => format!("after the fault in call #{i} {tool}, {injected}"),
            None => format!("after the fault in call #{i} {tool}"),
        },
        None => "after a fault injected into a tool call".to_owned(),
    };
    format!("{when}: {}", parts.join("; "))
}

/// The calls after the fault, briefly: `calls after it: #3 demo/echo ok, #4 demo/add
/// is_error (injected toolError)`, at most [`LISTED_CALLS`] of them.
fn calls_after(later: &[(usize, &RecordedCall)]) -> String {
    if later.is_empty() {
        return "no calls after it".to_owned();
    }
    let mut listed: Vec<String> = (later.iter().take(LISTED_CALLS))
        .map(|(i, call)| {
            let what = match call.kind {
                CallKind::Tool => format!("{}/{}", call.server, call.name),
                _ => describe_call(call),
            };
            let injected = call.injected.as_ref().map_or(String::new(), |injected| {
                format!(" (injected {})", injected.fault)
            });
            format!("#{i} {what} {}{injected}", call.outcome.label())
        })
        .collect();
    if later.len() > LISTED_CALLS {
        listed.push(format!("… and {} more", later.len() - LISTED_CALLS));
    }
    format!("calls after it: {}", listed.join(", "))
}

/// [`NO_FAULT`], naming the injections that left the server's answer (a delay, a tool-list
/// change) when there were some.
fn no_fault(trace: &CallTrace) -> String {
    let kept: Vec<String> = (trace.calls.iter().enumerate())
        .filter(|(_, call)| call.kind == CallKind::Tool)
        .filter_map(|(i, call)| Some((i + 1, call.injected.as_ref()?)))
        .map(|(i, injected)| format!("#{i} {}", injected.fault))
        .collect();
    if kept.is_empty() {
        NO_FAULT.to_owned()
    } else {
        format!(
            "{NO_FAULT} (injected but answered by the server: {})",
            kept.join(", ")
        )
    }
}

/// Whether `call` is a call of the same server's same tool as `faulted`.
fn same_tool(call: &RecordedCall, faulted: &RecordedCall) -> bool {
    call.kind == CallKind::Tool && call.server == faulted.server && call.name == faulted.name
}
