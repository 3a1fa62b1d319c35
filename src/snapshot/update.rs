//! What a run writes for a snapshot that is new or changed, and whether the mismatch may
//! pass, as insta decides it: `INSTA_UPDATE`, `INSTA_FORCE_PASS` and whether this is CI.

use std::fmt;

/// The variable that says how snapshots are written.
pub const UPDATE_VAR: &str = "INSTA_UPDATE";
/// The variable that lets a snapshot mismatch pass.
pub const FORCE_PASS_VAR: &str = "INSTA_FORCE_PASS";

/// `INSTA_UPDATE`: how a new or changed snapshot is written (insta's `SnapshotUpdate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SnapshotUpdate {
    /// `.snap.new` for review, except under CI, where nothing is written (the default).
    #[default]
    Auto,
    /// The `.snap` itself is written: the change is accepted and does not fail (`1` too).
    Always,
    /// `.snap.new`, also under CI.
    New,
    /// Nothing is written.
    No,
    /// The `.snap` for a snapshot that has none yet, `.snap.new` for a changed one.
    Unseen,
    /// Like `always`, and a matching `.snap` is written anew too.
    Force,
}

impl SnapshotUpdate {
    /// Every mode, in the order of [`SnapshotUpdate::NAMES`].
    pub const ALL: [SnapshotUpdate; 6] = [
        SnapshotUpdate::Auto,
        SnapshotUpdate::Always,
        SnapshotUpdate::New,
        SnapshotUpdate::No,
        SnapshotUpdate::Unseen,
        SnapshotUpdate::Force,
    ];

    /// The values `INSTA_UPDATE` takes (besides `1` for `always`, and empty for `auto`).
    pub const NAMES: [&'static str; 6] = ["auto", "always", "new", "no", "unseen", "force"];

    /// The name of this mode.
    pub fn name(self) -> &'static str {
        match self {
            SnapshotUpdate::Auto => Self::NAMES[0],
            SnapshotUpdate::Always => Self::NAMES[1],
            SnapshotUpdate::New => Self::NAMES[2],
            SnapshotUpdate::No => Self::NAMES[3],
            SnapshotUpdate::Unseen => Self::NAMES[4],
            SnapshotUpdate::Force => Self::NAMES[5],
        }
    }
}

impl fmt::Display for SnapshotUpdate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a run wrote for a new or changed snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The accepted `<name>.snap` itself (a stale `.snap.new` removed): the run's trace is
    /// the accepted one now, and the mismatch does not fail.
    Accepted,
    /// `<name>.snap.new`, for `cargo insta review`.
    Pending,
    /// Nothing (under CI with `auto`, or `INSTA_UPDATE=no`).
    Nothing,
}

/// A variable insta reads has a value it does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}: `{given}` is not a value it takes; expected one of {expected}")]
pub struct SnapshotEnvError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub given: String,
    /// The values it takes, listed.
    pub expected: String,
}

/// How this process treats snapshots that do not match: read once from the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SnapshotSettings {
    /// `INSTA_UPDATE`.
    pub update: SnapshotUpdate,
    /// `INSTA_FORCE_PASS=1`: a mismatch does not fail the run, whatever was written.
    pub force_pass: bool,
    /// Whether this is a CI run (`CI` as insta reads it).
    pub ci: bool,
}

impl SnapshotSettings {
    /// The settings the variables ask for, given a way to read one (e.g.
    /// `|name| std::env::var(name).ok()`); a value insta does not take is an error that
    /// names the variable and the values it takes. An empty value is the default, as in insta.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, SnapshotEnvError> {
        let update = match lookup(UPDATE_VAR).as_deref() {
            None | Some("") => SnapshotUpdate::Auto,
            Some("1") => SnapshotUpdate::Always,
            Some(name) => (SnapshotUpdate::ALL.into_iter())
                .find(|mode| mode.name() == name)
                .ok_or_else(|| SnapshotEnvError {
                    var: UPDATE_VAR,
                    given: name.to_owned(),
                    expected: SnapshotUpdate::NAMES.join(", "),
                })?,
        };
        let force_pass = match lookup(FORCE_PASS_VAR).as_deref() {
            None | Some("" | "0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(SnapshotEnvError {
                    var: FORCE_PASS_VAR,
                    given: other.to_owned(),
                    expected: "1, 0".to_owned(),
                });
            }
        };
        Ok(SnapshotSettings {
            update,
            force_pass,
            ci: crate::plumbing::ci::is_ci(lookup),
        })
    }

    /// What to write for a trace that does not match: `has_accepted` says whether a `.snap`
    /// exists (the trace changed) or not (it is new). Insta's table.
    pub fn write_for(&self, has_accepted: bool) -> Written {
        match self.update {
            SnapshotUpdate::Always | SnapshotUpdate::Force => Written::Accepted,
            SnapshotUpdate::Auto if self.ci => Written::Nothing,
            SnapshotUpdate::Auto | SnapshotUpdate::New => Written::Pending,
            SnapshotUpdate::No => Written::Nothing,
            SnapshotUpdate::Unseen if has_accepted => Written::Pending,
            SnapshotUpdate::Unseen => Written::Accepted,
        }
    }
}
