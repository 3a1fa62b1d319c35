//! The LLM side of a task run: an LLM proxy in front of the agent's API (and one in front
//! of the judge's), recording into or replaying from the task's cassette, and what each did.
//!
//! The cassette of a run is `cassettes/<eval>__<task>.json` beside the eval file (the stem
//! of its snapshot; `.runN` for repeated runs); the judge's calls are its `judge` section.

use std::path::{Path, PathBuf};

use crate::agent::pinned_shell;
use crate::config::{AgentLlm, Eval};
use crate::llm_proxy::{LlmProxy, LlmProxyConfig, LlmProxyHandle, PathMask, RecordMode};
use crate::run::report::{LlmClient, LlmRecord, RunOptions};
use crate::run::secrets::{PLACEHOLDER_KEY, named_secrets};

/// Where the LLM calls of one run are recorded or replayed from.
#[derive(Debug, Clone)]
pub(crate) struct LlmTarget<'a> {
    /// The cassette of the agent's calls.
    pub cassette: PathBuf,
    /// The test name, for the commands that (re-)record.
    pub test_name: &'a str,
    /// The run's directory and the agent's working directory (masked in requests).
    pub run_dir: &'a Path,
    /// The agent's working directory.
    pub work_dir: &'a Path,
    /// Where the agent's program is installed, when mcpeval knows (masked in requests).
    pub install_dir: Option<&'a Path>,
}

/// The cassette path of a run: `<eval dir>/cassettes/<stem>.json`.
pub(crate) fn cassette_path(eval: &Eval, stem: &str) -> PathBuf {
    eval.dir().join("cassettes").join(format!("{stem}.json"))
}

/// A started proxy, and the environment that points its client at it.
pub(crate) struct StartedProxy {
    pub proxy: LlmProxyHandle,
    pub env: Vec<(String, String)>,
}

/// Starts the proxy for `who` in front of `llm`, whose live base URL
/// is what `llm.base_url_env` says in mcpeval's environment (else the API's public one).
/// `key_vars` name the API key variables of the client: a placeholder is handed over when
/// none is set. The mode comes from `MCPEVAL_RECORD_MODE` (else `none` under CI, else
/// `once`).
pub(crate) fn start_llm_proxy(
    who: LlmClient,
    eval: &Eval,
    llm: &AgentLlm,
    key_vars: &[&str],
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Result<StartedProxy, String> {
    let mode = RecordMode::from_env(|name| options.var(name)).map_err(|e| e.to_string())?;
    let mut config = LlmProxyConfig::new(llm.api, target.cassette.clone(), target.test_name);
    config.rerun.runner = options.runner.clone();
    // The judge's calls are a section of the same cassette.
    config.section = who.section().map(str::to_owned);
    config.mode = mode;
    if let Some(url) = upstream_of(llm, options) {
        config.upstream_base_url = url;
    }
    config.paths = path_masks(target, options);
    config.ignore = eval.replay_ignore.clone();
    config.secrets = named_secrets(options);
    config.agent = match who {
        LlmClient::Agent => eval.agent.name().to_owned(),
        LlmClient::Judge | LlmClient::Sampling => "llm-judge".to_owned(),
    };
    let proxy = LlmProxy::start(config).map_err(|e| format!("the LLM proxy of the {who}: {e}"))?;
    let mut env = vec![(llm.base_url_env.clone(), proxy.base_url().to_owned())];
    if !key_vars
        .iter()
        .any(|name| options.var(name).is_some_and(|v| !v.is_empty()))
    {
        env.extend(
            key_vars
                .first()
                .map(|name| ((*name).to_owned(), PLACEHOLDER_KEY.to_owned())),
        );
    }
    // What mcpeval controls is pinned alike when recording and when replaying (the agent's
    // working directory is empty and outside any git repository, see `run.rs`).
    env.push(("TZ".into(), "UTC".into()));
    env.push(("LANG".into(), "C.UTF-8".into()));
    env.push(("TERM".into(), "dumb".into()));
    let shell = pinned_shell(options.var("PATH"));
    env.push(("SHELL".into(), shell.to_string_lossy().into_owned()));
    Ok(StartedProxy { proxy, env })
}

/// Stops the proxy (writing the cassette in a recording mode) and says what it did.
pub(crate) async fn finish_llm_proxy(who: LlmClient, started: StartedProxy) -> LlmRecord {
    let api = started.proxy.api();
    match started.proxy.finish().await {
        Ok(outcome) => LlmRecord {
            who,
            api,
            failure: outcome.failure(),
            outcome: Some(outcome),
        },
        Err(error) => LlmRecord {
            who,
            api,
            outcome: None,
            failure: Some(error.to_string()),
        },
    }
}

/// The live base URL: the client's variable in mcpeval's environment (for the openai
/// agent also mcpchecker's `MODEL_BASE_URL`), else the API's public default.
fn upstream_of(llm: &AgentLlm, options: &RunOptions) -> Option<String> {
    let fallback = (llm.base_url_env == "OPENAI_BASE_URL").then_some("MODEL_BASE_URL");
    std::iter::once(llm.base_url_env.as_str())
        .chain(fallback)
        .filter_map(|name| options.var(name))
        .map(|value| value.trim().to_owned())
        .find(|value| !value.is_empty())
}

/// The paths of this machine that reach the model: the agent's working directory, the
/// run's directory, HOME, and the agent program's install directory.
fn path_masks(target: &LlmTarget<'_>, options: &RunOptions) -> Vec<PathMask> {
    let mut masks = vec![
        PathMask::new("CWD", target.work_dir),
        PathMask::new("RUN", target.run_dir),
    ];
    if let Some(home) = options.var("HOME").filter(|home| home.len() > 1) {
        masks.push(PathMask::new("HOME", home));
    }
    // Gemini CLI names files of its own package in its prompts.
    if let Some(install) = target.install_dir {
        masks.push(PathMask::exact("AGENT_INSTALL", install));
    }
    masks
}
