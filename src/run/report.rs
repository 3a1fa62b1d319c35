//! What a task run is given ([`RunOptions`]) and what it produced ([`RunReport`]).

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::agent::AgentOutcome;
use crate::assert::AssertionFailure;
use crate::extension::ExtensionRegistry;
use crate::llm_proxy::{LlmApi, LlmProxyOutcome};
use crate::plumbing::interrupt::Interrupt;
use crate::proxy::ServerFailure;
use crate::schema_checks::{SchemaCache, SchemaChecks};
use crate::snapshot::SnapshotSettings;
use crate::steps::{Span, StepResult};
use crate::tokens::TraceTokens;
use crate::trace::CallTrace;

/// How to run: live output, and variables for every process of the run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Copy agent and script output to stderr as it arrives (`MCPEVAL_LIVE=1`).
    pub live: bool,
    /// Environment variables for every server, agent and script of the run.
    pub vars: Vec<(String, String)>,
    /// Where runs, results and the task lock live.
    pub output_dir: PathBuf,
    /// The results of this process's runs, for the summary at the end.
    pub collected: Arc<Mutex<Vec<crate::report::TaskResult>>>,
    /// The extensions of every eval, started on first use, shut down when the trials end.
    pub extensions: ExtensionRegistry,
    /// Schemas compiled and tool definitions judged, once for every run of the process.
    pub schemas: Arc<SchemaCache>,
    /// What runs a test again (this test binary, `mcpeval check`), for the commands that
    /// messages print.
    pub runner: crate::plumbing::rerun::Runner,
    /// How snapshots that do not match are written and judged (`INSTA_UPDATE`,
    /// `INSTA_FORCE_PASS`, CI), read once when the run starts.
    pub snapshots: SnapshotSettings,
}

impl RunOptions {
    /// A variable as processes of the run see it: the harness's own, else the environment.
    pub fn var(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    }
}

/// insta's variables as this process's runs read them (`INSTA_UPDATE`, `INSTA_FORCE_PASS`,
/// CI); a value insta does not take is an error on stderr and the exit code of a run that
/// ran nothing.
pub(crate) fn snapshot_settings() -> Result<SnapshotSettings, ExitCode> {
    SnapshotSettings::from_env(|name| std::env::var(name).ok()).map_err(|e| {
        eprintln!("error: {e}");
        eprintln!("mcpeval: no task ran because a variable of insta's has an invalid value");
        ExitCode::from(crate::plumbing::exit::INVALID_CONFIG)
    })
}

/// Everything one run produced, for the verdict and the failure message.
#[derive(Debug, Default)]
pub struct RunReport {
    /// Problems that stop the run before the agent (a proxy that cannot start, …).
    pub errors: Vec<String>,
    /// Setup step results.
    pub setup: Vec<StepResult>,
    /// How the agent ended; `None` when it never ran.
    pub agent: Option<AgentOutcome>,
    /// When the agent ran.
    pub agent_span: Option<Span>,
    /// The start of the run, from which call offsets are measured (the recorder's); `None`
    /// when the run stopped before its proxies.
    pub run_start: Option<Instant>,
    /// The agent's version (`commands.getVersion` or `metadata.version`), when known.
    pub agent_version: Option<String>,
    /// Verify step results.
    pub verify: Vec<StepResult>,
    /// Failed assertions.
    pub failures: Vec<AssertionFailure>,
    /// Cleanup step results (reported; they never flip the verdict).
    pub cleanup: Vec<StepResult>,
    /// The phase that was running when the task timeout hit.
    pub timed_out_in: Option<(RunPhase, Duration)>,
    /// The phase that was running when a signal stopped the run (cleanup still ran).
    pub interrupted_in: Option<(RunPhase, Interrupt)>,
    /// What the proxies recorded.
    pub trace: CallTrace,
    /// The trace checked against the servers' own schemas.
    pub schema: SchemaChecks,
    /// The trace's token figures, counted once when the run ended.
    pub tokens: TraceTokens,
    /// What the LLM proxies of the run did (the agent's, the judge's).
    pub llm: Vec<LlmRecord>,
    /// How the servers under test failed, as the proxies saw it (could not start, exited,
    /// HTTP errors, answers that are not JSON-RPC).
    pub server_failures: Vec<ServerFailure>,
    /// What each proxy's rewrite of its server's tools did (a variant's `toolOverrides` and
    /// `decoys`), by server.
    pub rewrites: std::collections::BTreeMap<String, crate::proxy::RewriteNotes>,
    /// The calls of the variant's decoys, in the order made.
    pub decoy_calls: Vec<crate::report::DecoyCall>,
    /// What each `faults` rule of the run did.
    pub faults: Vec<crate::report::FaultNote>,
    /// The seed of the run's `probability` rules, when it has rules.
    pub fault_seed: Option<u64>,
    /// What fails the run in its variant: overrides of tools the server does not
    /// advertise, decoys named as its tools, calls of decoys.
    pub variant_problems: Vec<String>,
    /// The assertions on calls not checked, because the variant gave the agent no server.
    pub skipped_assertions: Vec<String>,
    /// The turns of the task's conversation (`spec.followUps`), in order; empty for a task
    /// of one turn.
    pub turns: Vec<ConversationTurn>,
    /// This run's directory (agent MCP config, trace, server logs, inline scripts).
    pub run_dir: PathBuf,
    /// The agent's working directory.
    pub work_dir: PathBuf,
}

/// One turn of a task's conversation, as it went.
#[derive(Debug, Clone, Default)]
pub struct ConversationTurn {
    /// Its number, from 1 (the task's `prompt`).
    pub turn: u32,
    /// What the user said.
    pub prompt: String,
    /// The agent's answer, when the turn ran.
    pub answer: Option<String>,
    /// How long the agent took.
    pub span: Option<Span>,
    /// The calls made in it.
    pub calls: usize,
    /// The tokens the agent's API reported for it, when it reports them.
    pub tokens: Option<u64>,
    /// Why it failed, each a line (its agent, its `verify` steps, its `assertions`); the
    /// last turn's agent failure is the report's agent's, not repeated here.
    pub failures: Vec<String>,
    /// Its agent run failed (whether or not `failures` repeats why).
    pub agent_failed: bool,
    /// It did not run: an earlier turn failed and stopped the conversation.
    pub not_run: bool,
}

/// The part of a task run that is going on (or was, when it ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunPhase {
    /// Proxies starting; nothing of the task has run.
    Start,
    /// Setup steps.
    Setup,
    /// The agent works the prompt.
    Agent,
    /// Verify steps.
    Verify,
    /// Assertions over the trace.
    Assertions,
    /// Everything but cleanup is over.
    Done,
}

impl RunPhase {
    /// `start`, `setup`, `agent`, `verify`, `assertions` or `done`.
    pub fn name(self) -> &'static str {
        match self {
            RunPhase::Start => "start",
            RunPhase::Setup => "setup",
            RunPhase::Agent => "agent",
            RunPhase::Verify => "verify",
            RunPhase::Assertions => "assertions",
            RunPhase::Done => "done",
        }
    }
}

impl fmt::Display for RunPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whose model calls an LLM proxy of a run carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmClient {
    /// The agent's: the cassette's main part.
    Agent,
    /// The LLM judge's (`llmJudge` verify steps): the cassette's `judge` section.
    Judge,
    /// The judge model answering servers' sampling requests (`sampling` rules with
    /// `llm: judge`): the cassette's `sampling` section.
    Sampling,
}

impl LlmClient {
    /// As results files and messages name it: `agent` or `judge`.
    pub fn name(self) -> &'static str {
        match self {
            LlmClient::Agent => "agent",
            LlmClient::Judge => "judge",
            LlmClient::Sampling => "sampling",
        }
    }

    /// The cassette section its calls go to: `None` for the agent's (the main part).
    pub fn section(self) -> Option<&'static str> {
        match self {
            LlmClient::Agent => None,
            LlmClient::Judge => Some("judge"),
            LlmClient::Sampling => Some("sampling"),
        }
    }
}

impl fmt::Display for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one LLM proxy of a run did.
#[derive(Debug, Clone)]
pub struct LlmRecord {
    /// Whose calls.
    pub who: LlmClient,
    /// The API.
    pub api: LlmApi,
    /// What the proxy did with its cassette; `None` when it could not finish (a cassette
    /// that cannot be written).
    pub outcome: Option<LlmProxyOutcome>,
    /// Why it fails the run: a divergence, recordings left unplayed, a cassette that cannot
    /// be written.
    pub failure: Option<String>,
}
