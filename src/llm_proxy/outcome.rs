//! What a finished run did with its cassette, and writing the cassette it recorded.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::cassette::{Cassette, CassetteMeta, CassetteParts, Interaction, write_atomically};
use super::divergence::{Divergence, Unplayed};
use super::error::LlmProxyError;
use super::mode::{ModeUsed, RecordMode};
use super::state::{LlmProxyState, RunState};
use crate::plumbing::lock::lock;
use crate::plumbing::secret;

/// What one run of the proxy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmProxyOutcome {
    /// The mode asked for.
    pub mode: RecordMode,
    /// What the run did with the cassette.
    pub used: ModeUsed,
    /// The cassette read or written (not touched in `passthrough`).
    pub cassette: PathBuf,
    /// Model calls answered from the cassette.
    pub replayed: usize,
    /// Model calls answered live and recorded.
    pub recorded: usize,
    /// Model calls answered live and not recorded (`passthrough`).
    pub passed_through: usize,
    /// The first request that matched no recording.
    pub divergence: Option<Divergence>,
    /// Recordings the agent never asked for (only reported without a divergence).
    pub unplayed: Option<Unplayed>,
    /// Requests not forwarded: not model calls (`GET /api/event_logging`, answered 404), or
    /// with a foreign `Host` or `Origin` (answered 403).
    pub refused: Vec<String>,
    /// What went wrong on the way: the live API unreachable, a stream broken off. Such
    /// calls are not in the cassette.
    pub problems: Vec<String>,
    /// The API refused the agent's last model call: its status and message (`401
    /// Unauthorized: invalid x-api-key`). An agent that turns such an error into an
    /// ordinary answer (Claude Code over ACP) still fails the task with it.
    pub last_refusal: Option<String>,
    /// When each model call of the cassette (as it stands after the run) was asked and how
    /// long its live answer took, by its number in the cassette.
    pub turn_times: Vec<TurnTime>,
    /// What the answered model calls used, per model (live answers' and replayed ones':
    /// a replayed call's are what it used when recorded).
    pub usage: Vec<crate::llm::ModelUsage>,
}

/// When one model call of the cassette was asked, and how long it took to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnTime {
    /// Its number in the cassette, from 1 (what [`RecordedTurn::seq`](super::RecordedTurn) says).
    pub seq: usize,
    /// When the agent asked.
    pub asked: Instant,
    /// How long the live answer took, to its last byte; `None` when it was replayed.
    pub took: Option<Duration>,
}

impl LlmProxyOutcome {
    /// The message that fails the task: the divergence, else the unplayed recordings.
    pub fn failure(&self) -> Option<String> {
        self.divergence
            .as_ref()
            .map(ToString::to_string)
            .or_else(|| self.unplayed.as_ref().map(ToString::to_string))
    }
}

/// The outcome of a stopped proxy; in a recording mode, the cassette is written first.
pub(crate) fn finish(shared: &LlmProxyState) -> Result<LlmProxyOutcome, LlmProxyError> {
    let mut state = lock(&shared.state);
    let config = &shared.config;
    let used = match (&state.replay, state.live, state.record) {
        (_, true, false) => ModeUsed::Passthrough,
        (Some(_), true, true) => ModeUsed::Extended,
        (None, _, _) => ModeUsed::Recorded,
        (Some(_), false, _) => ModeUsed::Replayed,
    };
    let pending = state.written.iter().filter(|slot| slot.is_none()).count();
    if pending > 0 && used != ModeUsed::Passthrough {
        state.problems.push(format!(
            "{pending} live answer(s) failed or were still streaming when the proxy stopped; \
             they are not in the cassette"
        ));
    }
    if state.record && state.live {
        write_cassette(shared, &state)?;
    }
    Ok(LlmProxyOutcome {
        mode: config.mode,
        used,
        cassette: config.cassette.clone(),
        replayed: state.replayed,
        recorded: state.recorded,
        passed_through: state.passed_through,
        divergence: state.divergence.clone(),
        unplayed: unplayed(shared, &state),
        refused: state.refused.clone(),
        problems: state.problems.clone(),
        last_refusal: last_refusal(shared, &state),
        turn_times: turn_times(&state),
        usage: crate::llm::ModelUsage::per_model(&state.usage),
    })
}

/// The calls' times by their number in the cassette: the one written (numbered by the
/// slots that hold an answer), else the one replayed.
fn turn_times(state: &RunState) -> Vec<TurnTime> {
    let rewritten = state.record && state.live;
    let seq_of_slot = written_seqs(&state.written);
    (state.times.iter())
        .filter_map(|time| {
            let seq = if rewritten {
                seq_of_slot.get(time.slot?).copied().flatten()?
            } else {
                time.replayed_seq?
            };
            Some(TurnTime {
                seq,
                asked: time.asked,
                took: time.answered.map(|at| at.duration_since(time.asked)),
            })
        })
        .collect()
}

fn last_refusal(shared: &LlmProxyState, state: &RunState) -> Option<String> {
    let (status, message) = state.last_answer.as_ref()?;
    if *status < 400 {
        return None;
    }
    let status_text = axum::http::StatusCode::from_u16(*status)
        .map_or_else(|_| status.to_string(), |s| s.to_string());
    let text = match message {
        Some(message) => format!("{status_text}: {message}"),
        None => status_text,
    };
    Some(secret::redact(&text, &shared.config.secrets))
}

fn unplayed(shared: &LlmProxyState, state: &RunState) -> Option<Unplayed> {
    let replay = state.replay.as_ref()?;
    if state.divergence.is_some() || state.live {
        return None;
    }
    let first = replay.unplayed().next()?;
    Some(Unplayed {
        played: replay.played_count(),
        total: replay.total(),
        cassette: shared.config.cassette.clone(),
        mode: shared.config.mode,
        first: (first.seq, first.method.clone(), first.path.clone()),
        rerecord_command: shared.config.rerecord_command(),
    })
}

/// The number in the written cassette of each slot of `written`: the slots that hold an
/// answer, numbered from 1 (one still streaming is left out, and has none).
fn written_seqs(written: &[Option<Interaction>]) -> Vec<Option<usize>> {
    let mut next = 0;
    (written.iter())
        .map(|slot| {
            slot.as_ref().map(|_| {
                next += 1;
                next
            })
        })
        .collect()
}

/// Writes what the run recorded (after the replayed part, in `new_episodes`), numbered
/// from 1; refuses when a secret value occurs anywhere in it.
fn write_cassette(shared: &LlmProxyState, state: &RunState) -> Result<(), LlmProxyError> {
    let config = &shared.config;
    let interactions = (state.written.iter())
        .zip(written_seqs(&state.written))
        .filter_map(|(slot, seq)| {
            let mut interaction = slot.clone()?;
            interaction.seq = seq?;
            Some(interaction)
        })
        .collect();
    let cassette = Cassette {
        meta: CassetteMeta {
            agent: config.agent.clone(),
            agent_version: config
                .agent_version
                .clone()
                .or_else(|| state.agent_now.clone()),
            api: config.api.name().to_owned(),
        },
        interactions,
    };
    // The other parts of the file (the judge's section, or the agent's calls) stay.
    let mut parts = CassetteParts::load(&config.cassette)
        .ok()
        .flatten()
        .unwrap_or_default();
    parts.set(config.section.as_deref(), cassette);
    let text = parts.to_json();
    if let Some(found) = secret::find(&text, &config.secrets) {
        return Err(LlmProxyError::SecretInCassette {
            cassette: config.cassette.clone(),
            kind: found.kind().to_owned(),
        });
    }
    write_atomically(&config.cassette, &text)
}
