//! The verdict of one task run, decided in one place: [`Verdict::of`] reads what the run
//! produced and the snapshot comparison, and holds every reason the run failed as typed
//! data. The failure message, the results file and the report only render it.

use std::time::Duration;

use crate::assert::AssertionFailure;
use crate::config::{SchemaViolations, SnapshotMode};
use crate::plumbing::interrupt::Interrupt;
use crate::proxy::ServerFailure;
use crate::report::FailedAt;
use crate::run::report::{RunPhase, RunReport};
use crate::schema_checks::SchemaChecks;
use crate::snapshot::{SnapshotSettings, SnapshotStatus, Written};
use crate::steps::{Ended, Phase, StepResult};
use crate::trace::AnsweredBy;

/// How the agent's part of the run went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentVerdict {
    /// It finished with success.
    Passed,
    /// It failed, for this reason (exit code, timeout, could not start).
    Failed(String),
    /// It never ran (the run stopped before it).
    NotRun,
}

/// A setup or verify step that failed.
#[derive(Debug, Clone)]
pub struct StepFailure {
    /// `Setup` or `Verify`.
    pub phase: Phase,
    /// Its index in the phase, from 0.
    pub index: usize,
    /// The step as its result names it, e.g. `verify[0] script verify.sh`.
    pub label: String,
    /// Its `id:`, when written.
    pub id: Option<String>,
    /// Why it failed.
    pub reason: String,
    /// Its output.
    pub output: String,
    /// It has `continueOnError`: shown, but it does not fail the run.
    pub tolerated: bool,
}

/// Why the snapshot fails the run (strict mode only), and what was written for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotFailure {
    /// No accepted snapshot yet.
    New(Written),
    /// The trace differs from the accepted snapshot.
    Changed(Written),
}

/// The verdict of one run: passed when no reason below holds.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Problems that stopped the run (a proxy that cannot start, files that cannot be
    /// written, a judge that is not configured, a bug of mcpeval's).
    pub errors: Vec<String>,
    /// The servers under test failed: could not be started or reached, exited, answered
    /// with an HTTP error or with something that is not JSON-RPC. (A JSON-RPC error or an
    /// `isError` result is the server working, and stays a recorded outcome.)
    pub servers: Vec<ServerFailure>,
    /// The task timeout hit, in this phase, after this long.
    pub timed_out: Option<(RunPhase, Duration)>,
    /// A signal stopped the run in this phase.
    pub interrupted: Option<(RunPhase, Interrupt)>,
    /// Failed setup and verify steps, tolerated ones included (in run order).
    pub steps: Vec<StepFailure>,
    /// The agent.
    pub agent: AgentVerdict,
    /// In a conversation, the turn the agent's verdict is of: the last that ran.
    pub agent_turn: Option<u32>,
    /// Failed assertions.
    pub assertions: Vec<AssertionFailure>,
    /// What the checks against the servers' own schemas found (failing or not).
    pub schema: SchemaChecks,
    /// Whether arguments that break an input schema fail the run (the task sets'
    /// `schemaViolations`).
    pub schema_violations: SchemaViolations,
    /// The snapshot, when it fails the run.
    pub snapshot: Option<SnapshotFailure>,
    /// The LLM side: a request that matches no recording, recordings the agent never asked
    /// for, a cassette that cannot be written (each message whole).
    pub llm: Vec<String>,
    /// What fails the run in its variant (`config.variants`): calls of decoy tools,
    /// overrides of tools the server does not advertise.
    pub variant: Vec<String>,
    /// Elicitations the scripted user could not answer as the task wants (no rule matched
    /// under `unmatched: fail`, content the requested schema refuses), one line each.
    pub elicitations: Vec<String>,
    /// Sampling requests no `sampling` rule answered under `unmatched: fail`, one line each.
    pub sampling: Vec<String>,
    /// What failed in the turns of the task's conversation (`turn 2: …`), and the turns a
    /// failed one kept from running, one line each.
    pub turns: Vec<String>,
}

impl Verdict {
    /// Decides the verdict of `report`, given how its trace compared with the accepted
    /// snapshot, the eval's snapshot mode, how insta's variables treat a mismatch
    /// (`INSTA_UPDATE=always` accepts it, `INSTA_FORCE_PASS=1` lets it pass) and the task
    /// sets' `schemaViolations`.
    pub fn of(
        report: &RunReport,
        snapshot: &SnapshotStatus,
        mode: SnapshotMode,
        settings: &SnapshotSettings,
        schema_violations: SchemaViolations,
    ) -> Self {
        let steps = step_failures(Phase::Setup, &report.setup)
            .chain(step_failures(Phase::Verify, &report.verify))
            .collect();
        let agent = match report.agent.as_ref().map(|agent| &agent.ended) {
            Some(Ended::Passed) => AgentVerdict::Passed,
            Some(Ended::Failed(reason)) => AgentVerdict::Failed(reason.clone()),
            None => AgentVerdict::NotRun,
        };
        let snapshot = match snapshot {
            _ if mode != SnapshotMode::Strict || !snapshot.fails_strict(settings) => None,
            SnapshotStatus::New(written) => Some(SnapshotFailure::New(*written)),
            SnapshotStatus::Changed { written, .. } => Some(SnapshotFailure::Changed(*written)),
            SnapshotStatus::Matched | SnapshotStatus::Off => None,
        };
        Verdict {
            errors: report.errors.clone(),
            servers: report.server_failures.clone(),
            timed_out: report.timed_out_in,
            interrupted: report.interrupted_in,
            steps,
            agent,
            agent_turn: (report.turns.iter())
                .rfind(|turn| turn.answer.is_some())
                .map(|turn| turn.turn),
            assertions: report.failures.clone(),
            schema: report.schema.clone(),
            schema_violations,
            snapshot,
            llm: report
                .llm
                .iter()
                .filter_map(|record| record.failure.clone())
                .collect(),
            variant: report.variant_problems.clone(),
            elicitations: (report.trace.elicitations.iter())
                .filter(|e| e.answered_by == AnsweredBy::Script)
                .filter_map(|e| e.failure.clone())
                .collect(),
            sampling: (report.trace.sampling.iter())
                .filter(|s| s.answered_by == AnsweredBy::Script)
                .filter_map(|s| s.failure.clone())
                .collect(),
            turns: turn_failures(&report.turns),
        }
    }

    /// Whether the run passed: the servers (working, keeping to their own schemas), setup,
    /// agent, verify and every assertion (and the snapshot, in strict mode).
    pub fn passed(&self) -> bool {
        self.errors.is_empty()
            && self.servers.is_empty()
            && !self.schema_failed()
            && self.timed_out.is_none()
            && self.interrupted.is_none()
            && self.steps.iter().all(|step| step.tolerated)
            && self.agent == AgentVerdict::Passed
            && self.assertions.is_empty()
            && self.snapshot.is_none()
            && self.llm.is_empty()
            && self.variant.is_empty()
            && self.elicitations.is_empty()
            && self.sampling.is_empty()
            && self.turns.is_empty()
    }

    /// The schema checks fail the run: a broken tool definition or a result that breaks its
    /// output schema; with `schemaViolations: fail`, arguments that break an input schema.
    pub fn schema_failed(&self) -> bool {
        self.schema.server_erred()
            || (self.schema_violations == SchemaViolations::Fail
                && !self.schema.arguments.is_empty())
    }

    /// The agent did not finish with success (or never ran).
    pub fn agent_failed(&self) -> bool {
        self.agent != AgentVerdict::Passed
    }

    /// One line per reason the run failed (empty when it passed), for results files, and
    /// what the first one is about when it is a step, the agent or an assertion (where an
    /// annotation points). Each reason carries its place, so the two cannot disagree.
    pub fn reasons(&self) -> (Vec<String>, Option<FailedAt>) {
        let unplaced = |reason: String| (reason, None);
        let mut reasons: Vec<(String, Option<FailedAt>)> =
            self.errors.iter().cloned().map(unplaced).collect();
        let servers = self.servers.iter();
        reasons
            .extend(servers.map(|failure| unplaced(format!("server failed: {}", failure.message))));
        reasons.extend(self.schema_reasons().into_iter().map(unplaced));
        if let Some((phase, _)) = self.timed_out {
            reasons.push(unplaced(format!("timed out in the {phase} phase")));
        }
        if let Some((phase, signal)) = self.interrupted {
            reasons.push(unplaced(format!(
                "interrupted by {signal} in the {phase} phase"
            )));
        }
        let steps = self.steps.iter().filter(|step| !step.tolerated);
        reasons.extend(steps.map(|step| {
            let place = FailedAt::Step {
                phase: step.phase.name().to_owned(),
                index: step.index,
            };
            (format!("{}: {}", step.label, step.reason), Some(place))
        }));
        if let AgentVerdict::Failed(reason) = &self.agent {
            let turn = self
                .agent_turn
                .map_or(String::new(), |n| format!(" (turn {n})"));
            reasons.push((format!("agent{turn}: {reason}"), Some(FailedAt::Agent)));
        }
        reasons.extend(self.assertions.iter().map(|f| {
            let place = FailedAt::Assertion {
                assertion: f.assertion.key().to_owned(),
                task_set: f.task_set.clone(),
            };
            let reason = format!(
                "{} ({}): expected {}; actual {}",
                f.assertion, f.task_set, f.expected, f.actual
            );
            (reason, Some(place))
        }));
        if self.snapshot.is_some() {
            reasons.push(unplaced(
                "snapshot: the call trace is not the accepted one (strict mode)".into(),
            ));
        }
        reasons.extend(self.llm.iter().map(|failure| {
            let first = failure.lines().next().unwrap_or_default();
            unplaced(format!("llm: {first}"))
        }));
        reasons.extend(self.variant.iter().cloned().map(unplaced));
        reasons.extend((self.elicitations.iter()).map(|failure| {
            let first = failure.lines().next().unwrap_or_default();
            unplaced(format!("elicitation: {first}"))
        }));
        reasons.extend((self.sampling.iter()).map(|failure| {
            let first = failure.lines().next().unwrap_or_default();
            unplaced(format!("sampling: {first}"))
        }));
        reasons.extend((self.turns.iter()).map(|failure| {
            let first = failure.lines().next().unwrap_or_default();
            unplaced(first.to_owned())
        }));
        let place = reasons.first().and_then(|(_, place)| place.clone());
        (
            reasons.into_iter().map(|(reason, _)| reason).collect(),
            place,
        )
    }
}

impl Verdict {
    /// The schema findings that fail the run, one line each.
    fn schema_reasons(&self) -> Vec<String> {
        let schema = &self.schema;
        let definitions = schema.definitions.iter().map(|problem| {
            format!(
                "server schema: invalid tool definition {}",
                problem.describe()
            )
        });
        let results = schema.results.iter().map(|finding| {
            format!(
                "server schema: result breaks its outputSchema: {}",
                finding.describe()
            )
        });
        let arguments = schema
            .arguments
            .iter()
            .filter(|_| self.schema_violations == SchemaViolations::Fail)
            .map(|finding| {
                format!(
                    "schema: arguments break the inputSchema: {}",
                    finding.describe()
                )
            });
        definitions.chain(results).chain(arguments).collect()
    }
}

/// The failed steps among `results` of `phase`.
pub(crate) fn step_failures(
    phase: Phase,
    results: &[StepResult],
) -> impl Iterator<Item = StepFailure> + '_ {
    (results.iter().enumerate()).filter_map(move |(index, result)| match &result.ended {
        Ended::Passed => None,
        Ended::Failed(reason) => Some(StepFailure {
            phase,
            index,
            label: result.label.clone(),
            id: result.id.clone(),
            reason: reason.clone(),
            output: result.output.clone(),
            tolerated: result.continue_on_error,
        }),
    })
}

/// `turn 2: toolsUsed (spec.followUps[0]): …` for each failure of a turn, then `turn 3: not
/// run (turn 2 failed)` for each turn a failed one kept from running.
fn turn_failures(turns: &[crate::run::report::ConversationTurn]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut failed = None;
    for turn in turns {
        if turn.not_run {
            let why = failed.map_or(String::new(), |n| format!(" (turn {n} failed)"));
            lines.push(format!("turn {}: not run{why}", turn.turn));
            continue;
        }
        if !turn.failures.is_empty() {
            failed = Some(turn.turn);
        }
        (lines.extend(
            (turn.failures.iter()).map(|failure| format!("turn {}: {failure}", turn.turn)),
        ));
    }
    lines
}
