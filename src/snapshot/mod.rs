//! The call trace as text: the normalised YAML that is the insta snapshot
//! (`snapshots/<eval>__<task>.snap` beside the eval file), and the one-line-per-call listing
//! of failure messages.

mod normalize;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use normalize::{Normalizer, RunDirs};

use crate::assert::canonical;
pub use crate::config::SnapshotMode;
use crate::config::kind_name;
use crate::text::shorten;
use crate::tokens::describe;
use crate::trace::{CallTrace, Outcome, RecordedCall, result_text};

/// The snapshot text of a trace: one YAML entry per call, in order, without timestamps,
/// durations, ids or ports, and with the varying part of each path masked (the run's
/// directories `dirs`, temporary directories: see [`Normalizer`]). Arguments are compact
/// JSON with sorted keys.
pub fn render_snapshot(trace: &CallTrace, dirs: &RunDirs) -> String {
    if trace.calls.is_empty() {
        return "[] # no calls\n".to_owned();
    }
    let mut normalizer = Normalizer::new(dirs);
    let mut out = String::new();
    for call in &trace.calls {
        let target = normalizer.text(&format!("{}/{}", call.server, call.name));
        out.push_str(&format!(
            "- {}: {}\n",
            kind_name(call.kind),
            yaml_scalar(&target)
        ));
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
    }
    out
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
pub fn render_call_lines(trace: &CallTrace, result_tokens: &[Option<usize>]) -> String {
    if trace.calls.is_empty() {
        return "  (no calls)".to_owned();
    }
    trace
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let tokens = result_tokens.get(i).copied().flatten();
            format!("  #{} {}", i + 1, call_line(call, tokens))
        })
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
    let tokens = tokens.map_or(String::new(), |n| format!(", {}", describe(n)));
    format!(
        "{} {}/{}{arguments} → {outcome} ({:.0?}{tokens})",
        kind_name(call.kind),
        call.server,
        call.name,
        call.duration
    )
}

/// How this run's trace compares with the accepted snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotStatus {
    /// Same as the accepted snapshot.
    Matched,
    /// No accepted snapshot yet.
    New,
    /// Differs from the accepted snapshot; the unified diff (accepted → this run).
    Changed(String),
    /// Snapshots are off.
    Off,
}

/// Compares `content` with the accepted snapshot `<dir>/<name>.snap`. When it differs (or
/// there is none), writes `<dir>/<name>.snap.new` in insta's format for `cargo insta review`;
/// a stale `.snap.new` is removed when the trace matches again.
pub fn check_snapshot(
    mode: SnapshotMode,
    dir: &Path,
    name: &str,
    input_file: &Path,
    content: &str,
) -> SnapshotStatus {
    if mode == SnapshotMode::Off {
        return SnapshotStatus::Off;
    }
    let accepted_path = dir.join(format!("{name}.snap"));
    let pending_path = dir.join(format!("{name}.snap.new"));
    let status = match read_accepted(&accepted_path) {
        Some(accepted) if accepted.trim_end() == content.trim_end() => {
            let _ = std::fs::remove_file(&pending_path);
            return SnapshotStatus::Matched;
        }
        Some(accepted) => SnapshotStatus::Changed(unified_diff(&accepted, content)),
        None => SnapshotStatus::New,
    };
    let input = input_file.display().to_string();
    let header = serde_json::json!({"source": input, "description": "mcpeval call trace", "input_file": input});
    let text = format!(
        "---\nsource: {}\ndescription: {}\ninput_file: {}\n---\n{}\n",
        header["source"],
        header["description"],
        header["input_file"],
        content.trim_end()
    );
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&pending_path, text))
    {
        eprintln!("mcpeval: cannot write {}: {e}", pending_path.display());
    }
    status
}

/// The body of an accepted insta snapshot, or `None` when there is none (or it is not a
/// text snapshot insta can read).
pub fn read_accepted(path: &Path) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    match insta::Snapshot::from_file(path).ok()?.contents() {
        insta::internals::SnapshotContents::Text(text) => {
            Some(format!("{}\n", text.to_string().trim_end()))
        }
        _ => None,
    }
}

/// A unified diff from the accepted snapshot to this run's.
pub fn unified_diff(accepted: &str, current: &str) -> String {
    similar::TextDiff::from_lines(accepted, current)
        .unified_diff()
        .context_radius(3)
        .header("accepted snapshot", "this run")
        .to_string()
}

/// Where the snapshots of an eval live: `snapshots/` beside the eval file.
pub fn snapshot_dir(eval_file: &Path) -> PathBuf {
    eval_file
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("snapshots")
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
