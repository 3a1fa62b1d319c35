//! Record modes, with the names VCR and its kin use, and what a run actually did.

use std::fmt;
use std::str::FromStr;

use super::api::UnknownName;

pub use crate::plumbing::rerun::RECORD_MODE_VAR;

/// How the proxy uses a task run's cassette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RecordMode {
    /// Replay when the cassette exists, else record it (the default outside CI).
    #[default]
    Once,
    /// Replay only; a missing cassette is an error (the default under CI).
    None,
    /// Replay up to the first divergence, then go live and record the rest: the cassette
    /// written is the replayed part followed by the new part.
    NewEpisodes,
    /// Record everything anew, replacing the cassette.
    All,
    /// Live, with no cassette read or written.
    Passthrough,
}

/// Why the record mode could not be read from the environment.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{RECORD_MODE_VAR}: {0}")]
pub struct RecordModeError(#[source] pub UnknownName);

impl RecordMode {
    /// Every mode, in the order of [`RecordMode::NAMES`].
    pub const ALL: [RecordMode; 5] = [
        RecordMode::Once,
        RecordMode::None,
        RecordMode::NewEpisodes,
        RecordMode::All,
        RecordMode::Passthrough,
    ];

    /// The names: `once`, `none`, `new_episodes`, `all`, `passthrough`.
    pub const NAMES: [&'static str; 5] = ["once", "none", "new_episodes", "all", "passthrough"];

    /// The name of this mode.
    pub fn name(self) -> &'static str {
        match self {
            RecordMode::Once => Self::NAMES[0],
            RecordMode::None => Self::NAMES[1],
            RecordMode::NewEpisodes => Self::NAMES[2],
            RecordMode::All => Self::NAMES[3],
            RecordMode::Passthrough => Self::NAMES[4],
        }
    }

    /// The mode the environment asks for, given a way to read a variable (e.g.
    /// `|name| std::env::var(name).ok()`): [`RECORD_MODE_VAR`] when set, else `none` under
    /// CI (`CI` set to anything but empty, `false` or `0`, or `TF_BUILD` set when `CI` is
    /// not: as insta decides), else `once`.
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, RecordModeError> {
        if let Some(name) = lookup(RECORD_MODE_VAR) {
            return name.trim().parse().map_err(RecordModeError);
        }
        Ok(if crate::plumbing::ci::is_ci(lookup) {
            RecordMode::None
        } else {
            RecordMode::Once
        })
    }
}

impl fmt::Display for RecordMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RecordMode {
    type Err = UnknownName;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.name() == name)
            .ok_or_else(|| UnknownName {
                what: "a record mode",
                given: name.to_owned(),
                names: Self::NAMES.to_vec(),
            })
    }
}

/// What a run did with its cassette, whatever the mode asked for (`once` becomes
/// `Replayed` or `Recorded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModeUsed {
    /// Every answer came from the cassette; nothing was written.
    Replayed,
    /// Every answer came from the live API and the cassette was written anew.
    Recorded,
    /// `new_episodes`: replayed up to a divergence, then live; the cassette was extended.
    Extended,
    /// Live, no cassette.
    Passthrough,
}

impl ModeUsed {
    /// A short word for results and reports: `replayed`, `recorded`, `extended`, `live`.
    pub fn name(self) -> &'static str {
        match self {
            ModeUsed::Replayed => "replayed",
            ModeUsed::Recorded => "recorded",
            ModeUsed::Extended => "extended",
            ModeUsed::Passthrough => "live",
        }
    }
}

impl fmt::Display for ModeUsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(vars: &[(&str, &str)]) -> Result<RecordMode, RecordModeError> {
        RecordMode::from_env(|name| {
            vars.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn mode_from_the_environment() {
        let cases: [(&[(&str, &str)], RecordMode); 8] = [
            (&[], RecordMode::Once),
            (&[("CI", "true")], RecordMode::None),
            (&[("CI", "1")], RecordMode::None),
            (&[("CI", "false")], RecordMode::Once),
            (&[("CI", "0")], RecordMode::Once),
            (&[("CI", "")], RecordMode::Once),
            (&[("CI", "true"), (RECORD_MODE_VAR, "all")], RecordMode::All),
            (
                &[(RECORD_MODE_VAR, "new_episodes")],
                RecordMode::NewEpisodes,
            ),
        ];
        for (vars, expected) in cases {
            assert_eq!(mode(vars), Ok(expected), "{vars:?}");
        }
    }

    #[test]
    fn a_bad_mode_names_the_variable_and_the_modes() {
        let error = mode(&[(RECORD_MODE_VAR, "record")]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "MCPEVAL_RECORD_MODE: `record` is not a record mode: expected one of once, none, \
             new_episodes, all, passthrough"
        );
    }
}
