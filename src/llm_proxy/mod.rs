//! The LLM proxy: records an agent's model calls into a cassette, or replays them from it.
//!
//! One proxy per task run sits between the agent program and its LLM API, on `127.0.0.1`
//! (a random port), in front of one [`LlmApi`]. In a recording mode it forwards each
//! model call to the live API (headers included, never stored) and records the normalised
//! request and the answer; when replaying it answers from the cassette and never contacts
//! the API. Requests outside the API's paths (telemetry and the like) get 404.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcpeval::llm_proxy::LlmProxyError> {
//! use mcpeval::llm_proxy::{LlmApi, LlmProxy, LlmProxyConfig, PathMask, RecordMode, Secret};
//!
//! let mut config = LlmProxyConfig::new(LlmApi::Anthropic, "evals/math/cassettes/math__add.json", "math::add");
//! config.mode = RecordMode::from_env(|name| std::env::var(name).ok()).expect("a known mode");
//! config.paths = vec![PathMask::new("CWD", "/tmp/run/work"), PathMask::new("HOME", "/tmp/run/home")];
//! config.secrets = vec![Secret::new("the API key", "sk-ant-…")];
//! config.agent = "claude-code".into();
//! let proxy = LlmProxy::start(config)?;
//! // ANTHROPIC_BASE_URL=proxy.base_url(); kill the agent when proxy.divergence_signal() fires.
//! let outcome = proxy.finish().await?;
//! if let Some(failure) = outcome.failure() {
//!     eprintln!("{failure}");
//! }
//! # Ok(()) }
//! ```
//!
//! A request is matched by a key over its normalised content (method, API path without
//! `key=`, the body with paths, dates, generated ids and agent metadata masked; never the
//! headers, never the tool results or tools offered: the table of rules is in
//! `normalize.rs`), with a first-in-first-out queue per key. The first request that matches
//! nothing is a [`Divergence`]: it is answered 403 with an error body of the API, and
//! [`LlmProxyHandle::divergence_signal`] fires so the harness can stop the agent at once
//! (Codex retries on 403, Claude Code on most other codes).

mod api;
mod cassette;
mod divergence;
mod error;
mod forward;
mod matching;
mod mode;
mod normalize;
mod outcome;
mod server;
mod sse;
mod state;
mod turns;
mod usage;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use regex::Regex;
use tokio_util::sync::CancellationToken;

use crate::plumbing::rerun::{Rerun, Runner};

pub use crate::plumbing::secret::Secret;
pub use api::{LlmApi, UnknownName};
pub use cassette::CASSETTE_VERSION;
pub use divergence::{ClosestRecording, DifferenceAbout, Divergence, FirstDifference, Unplayed};
pub use error::LlmProxyError;
pub use mode::{ModeUsed, RECORD_MODE_VAR, RecordMode, RecordModeError};
pub use normalize::PathMask;
pub use outcome::{LlmProxyOutcome, TurnTime};
pub use turns::{RecordedTurn, recorded_turns};

use cassette::CassetteParts;
use matching::Replay;
use normalize::RequestNormalizer;
use state::{LlmProxyState, RunState};

/// What an [`LlmProxy`] needs for one task run.
#[derive(Debug, Clone)]
pub struct LlmProxyConfig {
    /// The API the agent speaks.
    pub api: LlmApi,
    /// The live API (e.g. `https://api.openai.com/v1`); its path is kept in
    /// [`LlmProxyHandle::base_url`].
    pub upstream_base_url: String,
    /// How the cassette is used.
    pub mode: RecordMode,
    /// The cassette file of this task run.
    pub cassette: PathBuf,
    /// A named section of the cassette file for a second client of the run (the LLM
    /// judge); `None`: the file's main part (the agent's calls).
    pub section: Option<String>,
    /// Paths of this machine masked in requests (work dir, HOME, install paths…).
    pub paths: Vec<PathMask>,
    /// Patterns masked as `<IGNORED>` in requests before matching (the eval's
    /// `config.replay.ignore`).
    pub ignore: Vec<Regex>,
    /// Values that must not be written into the cassette (the API key…).
    pub secrets: Vec<Secret>,
    /// The agent's name, for the cassette's `meta`.
    pub agent: String,
    /// The agent's version for `meta`; when `None`, the first word of its User-Agent.
    pub agent_version: Option<String>,
    /// The test and its runner, for the commands in messages that (re-)record it.
    pub rerun: Rerun,
}

impl LlmProxyConfig {
    /// A config for `api` with its public base URL, mode `once`, and no masks or secrets;
    /// its messages name `cargo test -- <test_name> --exact` (set [`Self::rerun`] for
    /// another runner).
    pub fn new(api: LlmApi, cassette: impl Into<PathBuf>, test_name: impl Into<String>) -> Self {
        Self {
            api,
            upstream_base_url: api.default_base_url().to_owned(),
            mode: RecordMode::default(),
            cassette: cassette.into(),
            section: None,
            paths: Vec::new(),
            ignore: Vec::new(),
            secrets: Vec::new(),
            agent: String::new(),
            agent_version: None,
            rerun: Rerun {
                test: test_name.into(),
                runner: Runner::CargoTest { target: None },
            },
        }
    }

    /// The command that re-records the test's cassette, e.g.
    /// `MCPEVAL_RECORD_MODE=all cargo test --test evals -- acme::sum --exact`.
    pub fn rerecord_command(&self) -> String {
        self.rerun.with_record_mode("all")
    }

    fn record_command(&self) -> String {
        self.rerun.with_record_mode("once")
    }
}

/// Starts LLM proxies.
#[derive(Debug)]
pub struct LlmProxy;

impl LlmProxy {
    /// Reads the cassette when the mode replays, then listens on `127.0.0.1:0` on a thread
    /// of its own (a single-threaded tokio runtime), whatever runtime the caller has.
    /// Fails when mode `none` has no cassette, or the cassette is not valid.
    pub fn start(config: LlmProxyConfig) -> Result<LlmProxyHandle, LlmProxyError> {
        let (upstream, base_path) = split_base_url(&config.upstream_base_url)?;
        let normalizer = RequestNormalizer::new(config.api, &config.paths, &config.ignore);
        let state = initial_state(&config, &normalizer)?;
        let start_error = |message: String| LlmProxyError::Start { message };
        let client = crate::plumbing::tls::client_builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|error| start_error(crate::plumbing::error_text::error_chain(&error)))?;
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|listener| {
                listener.set_nonblocking(true)?;
                Ok((listener.local_addr()?, listener))
            })
            .map_err(|error| start_error(format!("cannot listen on 127.0.0.1: {error}")))?;
        let (address, listener) = listener;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| start_error(format!("cannot build its runtime: {error}")))?;
        let handle = runtime.handle().clone();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name("mcpeval-llm-proxy".into())
            .spawn(move || runtime.block_on(stopped.cancelled_owned()))
            .map_err(|error| start_error(format!("cannot start its thread: {error}")))?;
        let shared = Arc::new(LlmProxyState {
            normalizer,
            config,
            client,
            upstream,
            base_path: base_path.clone(),
            state: Mutex::new(state),
            diverged: CancellationToken::new(),
            captures: Mutex::new(Vec::new()),
        });
        let router = server::router(shared.clone());
        let shutdown = CancellationToken::new();
        let serve_shutdown = shutdown.clone();
        let serve = handle.spawn(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(serve_shutdown.cancelled_owned())
                .await;
        });
        Ok(LlmProxyHandle {
            base_url: format!("http://{address}{base_path}"),
            shared,
            runtime: handle,
            shutdown,
            stop,
            serve: Some(serve),
        })
    }
}

/// `(base URL without a trailing slash, its path)`: `("https://h/v1", "/v1")`.
fn split_base_url(url: &str) -> Result<(String, String), LlmProxyError> {
    let invalid = |problem: &str| LlmProxyError::InvalidUpstream {
        url: url.to_owned(),
        problem: problem.to_owned(),
    };
    let parsed: http::Uri = url.parse().map_err(|_| invalid("not a URL"))?;
    if !matches!(parsed.scheme_str(), Some("http" | "https")) || parsed.host().is_none() {
        return Err(invalid("an http:// or https:// URL with a host is needed"));
    }
    if parsed.query().is_some() {
        return Err(invalid("a base URL has no query"));
    }
    let path = parsed.path().trim_end_matches('/').to_owned();
    Ok((url.trim_end_matches('/').to_owned(), path))
}

/// Reads the cassette as the mode says and sets how requests are served.
fn initial_state(
    config: &LlmProxyConfig,
    normalizer: &RequestNormalizer,
) -> Result<RunState, LlmProxyError> {
    let mut state = RunState::default();
    let cassette = match config.mode {
        RecordMode::Passthrough | RecordMode::All => None,
        RecordMode::Once | RecordMode::None | RecordMode::NewEpisodes => {
            CassetteParts::load(&config.cassette)?
                .and_then(|parts| parts.take(config.section.as_deref()))
        }
    };
    if let Some(cassette) = &cassette
        && cassette.meta.api != config.api.name()
    {
        return Err(LlmProxyError::CassetteInvalid {
            cassette: config.cassette.clone(),
            problem: format!(
                "it records the {} API, but this agent speaks {}; re-record it: {}",
                cassette.meta.api,
                config.api,
                config.rerecord_command()
            ),
        });
    }
    match (config.mode, cassette) {
        (RecordMode::None, None) => {
            return Err(LlmProxyError::CassetteMissing {
                cassette: config.cassette.clone(),
                record_command: config.record_command(),
            });
        }
        (RecordMode::Passthrough, _) => state.live = true,
        (mode, Some(cassette)) => {
            state.agent_recorded = cassette.meta.agent_version.clone();
            // The stored requests pass today's rules too (they are idempotent), so a
            // cassette recorded before a rule (or a `replay.ignore` pattern) was added still
            // matches.
            let interactions = (cassette.interactions.into_iter())
                .map(|interaction| interaction.normalized_by(normalizer))
                .collect();
            state.replay = Some(Replay::new(interactions));
            state.record = mode == RecordMode::NewEpisodes;
        }
        (_, None) => {
            state.live = true;
            state.record = true;
        }
    }
    Ok(state)
}

/// A running LLM proxy. Stop it with [`LlmProxyHandle::finish`], which also writes the
/// cassette; dropping it stops the proxy and writes nothing.
#[derive(Debug)]
pub struct LlmProxyHandle {
    base_url: String,
    shared: Arc<LlmProxyState>,
    runtime: tokio::runtime::Handle,
    shutdown: CancellationToken,
    stop: CancellationToken,
    serve: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for LlmProxyState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmProxyState")
            .field("api", &self.config.api)
            .field("upstream", &self.upstream)
            .field("cassette", &self.config.cassette)
            .finish_non_exhaustive()
    }
}

impl LlmProxyHandle {
    /// The base URL to give the agent: `http://127.0.0.1:PORT` followed by the path of the
    /// upstream base URL (`…/v1` for `https://api.openai.com/v1`).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The API this proxy speaks.
    pub fn api(&self) -> LlmApi {
        self.shared.config.api
    }

    /// Fires on the first divergence (never in `new_episodes`, which goes live instead):
    /// the harness should stop the agent at once.
    pub fn divergence_signal(&self) -> CancellationToken {
        self.shared.diverged.clone()
    }

    /// Stops the proxy, waits (a few seconds at most) for answers still streaming from the
    /// live API, and in a recording mode writes the cassette, unless it would hold a
    /// secret. The outcome says what the run did and why it fails, if it does.
    pub async fn finish(mut self) -> Result<LlmProxyOutcome, LlmProxyError> {
        self.shutdown.cancel();
        let serve = self.serve.take();
        let shared = self.shared.clone();
        let stopping = self.runtime.spawn(async move {
            if let Some(mut serve) = serve
                && tokio::time::timeout(Duration::from_secs(5), &mut serve)
                    .await
                    .is_err()
            {
                serve.abort();
            }
            let captures = std::mem::take(&mut *crate::plumbing::lock::lock(&shared.captures));
            for mut capture in captures {
                if tokio::time::timeout(Duration::from_secs(10), &mut capture)
                    .await
                    .is_err()
                {
                    capture.abort();
                }
            }
        });
        let _ = stopping.await;
        outcome::finish(&self.shared)
    }
}

impl Drop for LlmProxyHandle {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(serve) = self.serve.take() {
            serve.abort();
        }
        for capture in crate::plumbing::lock::lock(&self.shared.captures).drain(..) {
            capture.abort();
        }
        self.stop.cancel();
    }
}
