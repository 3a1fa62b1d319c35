//! `callOrder`: the listed calls appear as a subsequence of all calls, each entry's
//! arguments matching the call it is paired with. A `type: elicitation` entry is paired with
//! an elicitation, which comes right after the call it came during.

use super::closest::{call_with_arguments, closest};
use super::describe_call;
use crate::config::OrderedCall;
use crate::trace::{CallTrace, RecordedCall, RecordedElicitation};

/// `(expected, actual)` of a failed `callOrder`, or `None` when it holds. Greedy matching
/// (each entry takes the first fitting call after the previous one) finds a subsequence
/// whenever one exists.
pub(super) fn check_order(order: &[OrderedCall], trace: &CallTrace) -> Option<(String, String)> {
    if order.is_empty() {
        return None;
    }
    let steps = steps(trace);
    let mut matched: Vec<String> = Vec::new();
    // The next step to look at, and the number of the last call passed.
    let (mut at, mut position) = (0, 0);
    for entry in order {
        match steps[at..].iter().position(|step| step.fits(entry)) {
            Some(offset) => {
                at += offset + 1;
                let (place, call) = steps[at - 1].place();
                position = position.max(call);
                matched.push(format!("{} ({place})", entry.describe()));
            }
            None => return Some(failure(order, trace, entry, &matched, position)),
        }
    }
    None
}

/// A call, or an elicitation a server sent during one (or outside any, at the end).
enum OrderStep<'t> {
    Call(usize, &'t RecordedCall),
    Asked(usize, &'t RecordedElicitation),
}

impl OrderStep<'_> {
    fn fits(&self, entry: &OrderedCall) -> bool {
        match self {
            OrderStep::Call(_, call) => entry.matches_call(call),
            OrderStep::Asked(_, asked) => entry.matches_elicitation(asked),
        }
    }

    /// `call #2` or `elicitation during call #2`, and the number of that call.
    fn place(&self) -> (String, usize) {
        match self {
            OrderStep::Call(n, _) => (format!("call #{n}"), *n),
            OrderStep::Asked(n, _) => (format!("elicitation during call #{n}"), *n),
        }
    }
}

/// The trace's calls in order, each followed by the elicitations that came during it.
fn steps(trace: &CallTrace) -> Vec<OrderStep<'_>> {
    let during = |asked: &RecordedElicitation| asked.during.as_ref().and_then(|d| d.position);
    let mut steps = Vec::new();
    for (i, call) in trace.calls.iter().enumerate() {
        steps.push(OrderStep::Call(i + 1, call));
        let asked = trace
            .elicitations
            .iter()
            .filter(|a| during(a) == Some(i + 1));
        steps.extend(asked.map(|asked| OrderStep::Asked(i + 1, asked)));
    }
    let outside = trace.elicitations.iter().filter(|a| during(a).is_none());
    steps.extend(outside.map(|asked| OrderStep::Asked(trace.calls.len(), asked)));
    steps
}

/// The failure when `entry` never came after call #`position`.
fn failure(
    order: &[OrderedCall],
    trace: &CallTrace,
    entry: &OrderedCall,
    matched: &[String],
    position: usize,
) -> (String, String) {
    let expected = order
        .iter()
        .map(OrderedCall::describe)
        .collect::<Vec<_>>()
        .join(" → ");
    let got = if matched.is_empty() {
        "none".to_owned()
    } else {
        matched.join(", ")
    };
    let after = if position == 0 {
        String::new()
    } else {
        format!(" after call #{position}")
    };
    let all: Vec<String> = trace.calls.iter().map(describe_call).collect();
    (
        format!("calls in this order (others may come between): {expected}"),
        format!(
            "matched {} of {}: {got}; {} never came{after}{}; all calls: {}",
            matched.len(),
            order.len(),
            entry.describe(),
            closest_after(trace, entry, position),
            if all.is_empty() {
                "none".to_owned()
            } else {
                all.join(", ")
            }
        ),
    )
}

/// For an entry with arguments: `; closest: call #5 {…} differs at …`, among the calls of
/// its kind, server and name after call #`position`; else nothing.
fn closest_after(trace: &CallTrace, entry: &OrderedCall, position: usize) -> String {
    let Some(pattern) = &entry.arguments else {
        return String::new();
    };
    let candidates = trace
        .calls
        .iter()
        .enumerate()
        .skip(position)
        .filter(|(_, call)| entry.matches_name(call))
        .map(|(i, call)| (i + 1, call));
    match closest(candidates, pattern) {
        Some((i, call, difference)) => format!(
            "; closest: call #{i} {} differs at {difference}",
            call_with_arguments(call)
        ),
        None => String::new(),
    }
}
