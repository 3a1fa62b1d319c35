//! The closest call to an entry whose arguments pattern no call matched: among the calls of
//! the entry's server and name, the one whose arguments matched most of the pattern, shown
//! with the first point where it differs.

use serde_json::Value;

use super::{calls_of, noun};
use crate::config::{ArgumentPattern, CallMatcher, Difference};
use crate::trace::{CallKind, CallTrace, RecordedCall};

/// The candidate whose arguments came closest to `pattern` (most matched leaves, the earliest
/// on a tie) and where it differs; `None` when no candidate differs.
pub(super) fn closest<'t>(
    candidates: impl Iterator<Item = (usize, &'t RecordedCall)>,
    pattern: &ArgumentPattern,
) -> Option<(usize, &'t RecordedCall, Difference)> {
    let mut best: Option<(usize, usize, &RecordedCall, Difference)> = None;
    for (i, call) in candidates {
        let comparison = pattern.compare(call.arguments.as_ref());
        let Some(difference) = comparison.difference else {
            continue;
        };
        if best.as_ref().is_none_or(|b| comparison.matched > b.0) {
            best = Some((comparison.matched, i, call, difference));
        }
    }
    best.map(|(_, i, call, difference)| (i, call, difference))
}

/// Why an entry of a list of `kind` with an arguments pattern matched no call:
/// `demo/lookup_user: closest call #2 demo/lookup_user {"id":"7"} differs at arguments.id: …`
/// or `no tool call of demo/lookup_user was made`. `None` for an entry without arguments.
pub(super) fn why_unmatched(
    entry: &CallMatcher,
    trace: &CallTrace,
    kind: CallKind,
) -> Option<String> {
    entry.arguments.as_ref()?;
    let candidates = calls_of(trace, kind);
    Some(
        closest_of(entry, candidates)
            .unwrap_or_else(|| format!("no {} of {} was made", noun(kind), entry.describe_name())),
    )
}

/// `demo/lookup_user: closest call #2 demo/lookup_user {"id":"7"} differs at …`: among
/// `calls` (numbered), the one of the entry's server and name that came closest to its
/// arguments pattern; `None` without a pattern or without such a call.
pub(super) fn closest_of<'t>(
    entry: &CallMatcher,
    calls: impl Iterator<Item = (usize, &'t RecordedCall)>,
) -> Option<String> {
    let pattern = entry.arguments.as_ref()?;
    let candidates = calls.filter(|(_, c)| entry.matches(&c.server, &c.name));
    let (i, call, difference) = closest(candidates, pattern)?;
    Some(format!(
        "{}: closest call #{i} {} differs at {difference}",
        entry.describe_name(),
        call_with_arguments(call)
    ))
}

/// `server/name {"arg":1}`: a call and its arguments (`{}` for none) on one line.
pub(super) fn call_with_arguments(call: &RecordedCall) -> String {
    let arguments = call
        .arguments
        .clone()
        .unwrap_or_else(|| Value::Object(Default::default()));
    format!(
        "{}/{} {}",
        call.server,
        call.name,
        crate::plumbing::text::shorten(&arguments.to_string(), 300)
    )
}
