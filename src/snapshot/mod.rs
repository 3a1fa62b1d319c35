//! The call trace as text: the normalised YAML that is the insta snapshot
//! (`snapshots/<eval>__<task>.snap` beside the eval file), and the one-line-per-call listing
//! of failure messages.

mod normalize;
mod render;
mod update;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use normalize::{Normalizer, RunDirs};
pub use render::{render_call_lines, render_snapshot};
pub use update::{
    FORCE_PASS_VAR, SnapshotEnvError, SnapshotSettings, SnapshotUpdate, UPDATE_VAR, Written,
};

pub use crate::config::SnapshotMode;

/// How this run's trace compares with the accepted snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotStatus {
    /// Same as the accepted snapshot.
    Matched,
    /// No accepted snapshot yet; what was written for it.
    New(Written),
    /// Differs from the accepted snapshot.
    Changed {
        /// The unified diff (accepted → this run).
        diff: String,
        /// What was written for it.
        written: Written,
    },
    /// Snapshots are off.
    Off,
}

impl SnapshotStatus {
    /// What was written for a trace that does not match (`None` when it matched, or
    /// snapshots are off).
    pub fn written(&self) -> Option<Written> {
        match self {
            SnapshotStatus::New(written) | SnapshotStatus::Changed { written, .. } => {
                Some(*written)
            }
            SnapshotStatus::Matched | SnapshotStatus::Off => None,
        }
    }

    /// Whether the mismatch fails a run whose eval's snapshots are `strict`: a new or
    /// changed trace does, unless it was written as the accepted `.snap` or `settings` say
    /// `INSTA_FORCE_PASS=1` (insta's outcome of an assertion).
    pub fn fails_strict(&self, settings: &SnapshotSettings) -> bool {
        self.written()
            .is_some_and(|written| written != Written::Accepted && !settings.force_pass)
    }

    /// A note for a run that passed with a trace that does not match: what differs and
    /// what was written (`None` when it matched, or snapshots are off).
    pub fn note(&self) -> Option<String> {
        let (what, written) = match self {
            SnapshotStatus::New(written) => ("no accepted snapshot yet", written),
            SnapshotStatus::Changed { written, .. } => {
                ("the call trace differs from the accepted snapshot", written)
            }
            SnapshotStatus::Matched | SnapshotStatus::Off => return None,
        };
        Some(format!("{what}; {}", written.describe()))
    }
}

impl Written {
    /// What was written, and how to accept it, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Written::Accepted => "wrote it as the accepted `.snap` (INSTA_UPDATE)",
            Written::Pending => {
                "wrote the `.snap.new` beside it: review it with `cargo insta review`, or run with INSTA_UPDATE=always to accept it"
            }
            Written::Nothing => {
                "nothing written (`CI` is set, or INSTA_UPDATE=no): INSTA_UPDATE=always writes the `.snap`, INSTA_UPDATE=new a `.snap.new`"
            }
        }
    }
}

/// Compares `content` with the accepted snapshot `<dir>/<name>.snap`; a trace that matches
/// removes a stale `<name>.snap.new`. One that differs (or has no `.snap` yet) is written as
/// `settings` say ([`SnapshotSettings::write_for`]): the `.snap` itself (removing a stale
/// `.snap.new`), `<name>.snap.new` in insta's format for `cargo insta review`, or nothing.
pub fn check_snapshot(
    mode: SnapshotMode,
    settings: &SnapshotSettings,
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
    let text = snapshot_text(input_file, content);
    let accepted = read_accepted(&accepted_path);
    if accepted
        .as_ref()
        .is_some_and(|accepted| accepted.trim_end() == content.trim_end())
    {
        let _ = std::fs::remove_file(&pending_path);
        if settings.update == SnapshotUpdate::Force {
            write_snapshot(&accepted_path, &text);
        }
        return SnapshotStatus::Matched;
    }
    let written = match settings.write_for(accepted_path.is_file()) {
        Written::Accepted if write_snapshot(&accepted_path, &text) => {
            let _ = std::fs::remove_file(&pending_path);
            Written::Accepted
        }
        Written::Pending if write_snapshot(&pending_path, &text) => Written::Pending,
        _ => Written::Nothing,
    };
    match accepted {
        Some(accepted) => SnapshotStatus::Changed {
            diff: unified_diff(&accepted, content),
            written,
        },
        None => SnapshotStatus::New(written),
    }
}

/// A snapshot file in insta's format: its header (the task file as `source` and
/// `input_file`), then `content`.
fn snapshot_text(input_file: &Path, content: &str) -> String {
    let input = Value::String(input_file.display().to_string());
    let description = Value::String("mcpeval call trace".to_owned());
    format!(
        "---\nsource: {input}\ndescription: {description}\ninput_file: {input}\n---\n{}\n",
        content.trim_end()
    )
}

/// Writes `text` to `path` (and its directory); says on stderr when it cannot.
fn write_snapshot(path: &Path, text: &str) -> bool {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    match std::fs::create_dir_all(dir).and_then(|()| std::fs::write(path, text)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("mcpeval: cannot write {}: {e}", path.display());
            false
        }
    }
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
mod tests;
