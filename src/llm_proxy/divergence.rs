//! Why a replayed run fails: a request that matched no recording, or recordings the agent
//! never asked for. Both are data; their `Display` is the failure message.

use std::fmt;
use std::path::PathBuf;

use super::mode::RecordMode;

/// The first request of a run that matched no recorded request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// The request's number in this run, from 1.
    pub request_number: usize,
    /// Its method.
    pub method: String,
    /// Its API path (without `key=`).
    pub path: String,
    /// The cassette replayed.
    pub cassette: PathBuf,
    /// The mode asked for.
    pub mode: RecordMode,
    /// How many recorded interactions had been played.
    pub played: usize,
    /// How many the cassette holds.
    pub total: usize,
    /// The agent's version now (its User-Agent's first word), when known.
    pub agent_now: Option<String>,
    /// The agent's version when recorded.
    pub agent_recorded: Option<String>,
    /// The unplayed recording on the same path closest to this request.
    pub closest: Option<ClosestRecording>,
    /// The command that re-records the cassette.
    pub rerecord_command: String,
}

/// The recording a diverging request is compared with: the unplayed one on the same path
/// with the longest common conversation prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosestRecording {
    /// Its `seq` in the cassette.
    pub seq: usize,
    /// How many items its conversation (`messages`, `input` or `contents`) has.
    pub conversation_len: usize,
    /// How many leading items are the same as the new request's.
    pub same_prefix: usize,
    /// Where the two requests first differ.
    pub difference: Option<FirstDifference>,
}

/// Where two normalised requests first differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstDifference {
    /// A JSON path such as `$.messages[5].content[0].content`.
    pub path: String,
    /// The recorded value there, as JSON (shortened around the difference), or `(absent)`.
    pub recorded: String,
    /// The new value there, likewise.
    pub now: String,
    /// What the difference is about, when it is inside tool content.
    pub about: Option<DifferenceAbout>,
}

/// What a difference inside tool content is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DifferenceAbout {
    /// A result the MCP server returned.
    ToolResult,
    /// The tools offered to the model.
    ToolsOffered,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "LLM request #{} ({} {}) matches no recorded request",
            self.request_number, self.method, self.path
        )?;
        writeln!(
            f,
            "  cassette {} (mode {}): {} interactions, {} played",
            self.cassette.display(),
            self.mode,
            self.total,
            self.played
        )?;
        let unknown = "an unknown version";
        let now = self.agent_now.as_deref().unwrap_or(unknown);
        let recorded = self.agent_recorded.as_deref().unwrap_or(unknown);
        writeln!(f, "  agent {now} (recorded with {recorded})")?;
        if now != recorded {
            writeln!(
                f,
                "  The agent's version changed since recording: expect every request to differ."
            )?;
        }
        match &self.closest {
            Some(closest) => write!(f, "{closest}")?,
            None if self.played == self.total => writeln!(
                f,
                "  every recorded request was played: the agent made more LLM calls than recorded"
            )?,
            None => writeln!(f, "  no unplayed recording on this path")?,
        }
        write!(f, "  If intended, re-record: {}", self.rerecord_command)
    }
}

impl fmt::Display for ClosestRecording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  closest recording: #{} ({} conversation items, the first {} the same)",
            self.seq, self.conversation_len, self.same_prefix
        )?;
        if let Some(difference) = &self.difference {
            writeln!(f, "  first difference at {}:", difference.path)?;
            writeln!(f, "    recorded: {}", difference.recorded)?;
            writeln!(f, "    now:      {}", difference.now)?;
            match difference.about {
                Some(DifferenceAbout::ToolResult) => {
                    writeln!(
                        f,
                        "  The MCP server's tool result differs from the recording."
                    )?;
                }
                Some(DifferenceAbout::ToolsOffered) => {
                    writeln!(f, "  The tools offered differ from the recording.")?;
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// Recorded interactions the agent never asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unplayed {
    /// How many were played.
    pub played: usize,
    /// How many the cassette holds.
    pub total: usize,
    /// The cassette replayed.
    pub cassette: PathBuf,
    /// The mode asked for.
    pub mode: RecordMode,
    /// The first unplayed interaction: its `seq`, method and path.
    pub first: (usize, String, String),
    /// The command that re-records the cassette.
    pub rerecord_command: String,
}

impl fmt::Display for Unplayed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (seq, method, path) = &self.first;
        writeln!(
            f,
            "the agent made fewer LLM calls than recorded: {} of {} played",
            self.played, self.total
        )?;
        writeln!(
            f,
            "  cassette {} (mode {})",
            self.cassette.display(),
            self.mode
        )?;
        writeln!(f, "  first unplayed: #{seq} ({method} {path})")?;
        write!(f, "  If intended, re-record: {}", self.rerecord_command)
    }
}
