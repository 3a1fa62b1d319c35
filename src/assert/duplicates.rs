//! `noDuplicateCalls`: tool calls with the same server, tool and arguments, where arguments
//! compare as JSON values.

use serde_json::Value;

use super::calls_of;
use crate::trace::{CallKind, CallTrace, RecordedCall};

/// Groups of tool calls with the same server, tool and arguments (compared as JSON values).
pub(super) fn find_duplicates(trace: &CallTrace) -> Vec<String> {
    let mut groups: Vec<(&RecordedCall, Value, Vec<usize>)> = Vec::new();
    for (i, call) in calls_of(trace, CallKind::Tool) {
        let arguments = canonical(
            call.arguments
                .clone()
                .unwrap_or_else(|| Value::Object(Default::default())),
        );
        match groups.iter_mut().find(|(first, args, _)| {
            first.server == call.server && first.name == call.name && *args == arguments
        }) {
            Some((_, _, positions)) => positions.push(i),
            None => groups.push((call, arguments, vec![i])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, _, positions)| positions.len() > 1)
        .map(|(call, args, positions)| {
            let at: Vec<String> = positions.iter().map(|p| format!("#{p}")).collect();
            format!(
                "{}/{} {} called {} times (calls {})",
                call.server,
                call.name,
                args,
                positions.len(),
                at.join(", ")
            )
        })
        .collect()
}

/// A JSON value with object keys sorted and integral floats as integers, so values that
/// differ only in key order or in `1` vs `1.0` compare equal.
pub fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> =
                map.into_iter().map(|(k, v)| (k, canonical(v))).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
            _ => Value::Number(n),
        },
        other => other,
    }
}
