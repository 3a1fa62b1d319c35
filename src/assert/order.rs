//! `callOrder`: the listed calls appear as a subsequence of all calls, each entry's
//! arguments matching the call it is paired with.

use super::closest::{call_with_arguments, closest};
use super::describe_call;
use crate::config::OrderedCall;
use crate::trace::CallTrace;

/// `(expected, actual)` of a failed `callOrder`, or `None` when it holds. Greedy matching
/// (each entry takes the first fitting call after the previous one) finds a subsequence
/// whenever one exists.
pub(super) fn check_order(order: &[OrderedCall], trace: &CallTrace) -> Option<(String, String)> {
    if order.is_empty() {
        return None;
    }
    let mut matched: Vec<String> = Vec::new();
    let mut position = 0;
    for entry in order {
        match trace.calls[position..]
            .iter()
            .position(|c| entry.matches_call(c))
        {
            Some(offset) => {
                position += offset + 1;
                matched.push(format!("{} (call #{position})", entry.describe()));
            }
            None => return Some(failure(order, trace, entry, &matched, position)),
        }
    }
    None
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
