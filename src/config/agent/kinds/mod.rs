//! The builtin agent kinds, one file each: what mcpeval knows of a kind (its name after
//! `builtin.` and deprecated aliases, the LLM API it speaks and the variable of its base URL,
//! whether it needs the tool list spelled out, the program it runs and the npm package and
//! version that install it). Every list and lookup over the kinds reads [`BUILTINS`]: the
//! names an error offers, the key variable and the program `mcpeval init` writes, the
//! version mcpeval asks a program for, and the agent's own facts (`Agent::llm`, `name`,
//! `needs_tool_list`, `skills`); a validated builtin agent is its [`KindId`] with a model
//! (`Agent::Builtin`). Adding a kind is a file here, a row of [`BUILTINS`], its [`KindId`]
//! (the compiler then names the two matches over it: [`KindId::kind`] and the runner in
//! `crate::agent::dispatch`) and the runner of its program in `crate::agent`.

mod claude_code;
mod codex;
mod gemini_cli;
mod llm_agent;

pub use claude_code::CLAUDE_CODE_ACP;
pub use llm_agent::llm_agent_model;

use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

/// Which builtin kind: what the validated agent and its runner match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindId {
    /// `builtin.claude-code`.
    ClaudeCode,
    /// `builtin.codex`.
    Codex,
    /// `builtin.gemini-cli`.
    GeminiCli,
    /// `builtin.llm-agent`.
    LlmAgent,
}

/// One builtin agent kind, described once.
#[derive(Debug)]
pub struct BuiltinKind {
    /// Which kind.
    pub id: KindId,
    /// Its name after `builtin.`.
    pub name: &'static str,
    /// Deprecated names that mean it too.
    pub aliases: &'static [&'static str],
    /// The API its program talks to; `None`: the model's `provider:` decides (and a model is
    /// required).
    pub provider: Option<Provider>,
    /// The LLM API and the variable of its base URL, when the kind decides them (`None`: the
    /// provider of the model does).
    pub llm: Option<(LlmApi, &'static str)>,
    /// Whether the agent needs a server's allowed tools spelled out even when they are "all
    /// of them" (Claude Code answers permission requests by that list).
    pub needs_tool_list: bool,
    /// The program it runs; `None`: mcpeval runs the agent itself.
    pub program: Option<Program>,
    /// Where its version comes from, for results and reports.
    pub version: VersionSource,
    /// Whether it reports its model turns itself (else they are the model calls the LLM
    /// proxy answered).
    pub counts_turns: bool,
    /// Where it loads skills from in its working directory and the tool that loads one, when
    /// it has skills of its own.
    pub skills: Option<(&'static str, &'static str)>,
}

/// Where a builtin agent's version comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionSource {
    /// It is part of mcpeval: `mcpeval <version>`.
    Mcpeval,
    /// Its program's `--version`.
    ProgramFlag,
    /// The `User-Agent` of its LLM requests, as the LLM proxy records it.
    UserAgent,
}

/// A program a builtin agent runs, and the npm package that installs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program {
    /// The command looked up on `PATH` (`codex`).
    pub command: &'static str,
    /// Its name in messages (`Codex`).
    pub display: &'static str,
    /// The npm package that provides it (`@openai/codex`).
    pub package: &'static str,
    /// The version mcpeval is tested with (.ci/install-peers.sh installs it).
    pub tested_version: &'static str,
}

/// The builtin agents: mcpchecker's `claude-code` and `llm-agent` (with its deprecated
/// aliases `openai-agent` and `openai-acp`); mcpeval's `codex` and `gemini-cli`.
pub const BUILTINS: [&BuiltinKind; 4] = [
    &claude_code::KIND,
    &llm_agent::KIND,
    &codex::KIND,
    &gemini_cli::KIND,
];

impl KindId {
    /// Its description in [`BUILTINS`].
    pub const fn kind(self) -> &'static BuiltinKind {
        match self {
            KindId::ClaudeCode => &claude_code::KIND,
            KindId::Codex => &codex::KIND,
            KindId::GeminiCli => &gemini_cli::KIND,
            KindId::LlmAgent => &llm_agent::KIND,
        }
    }
}

/// The builtin kind named `name` (or one of its aliases).
pub fn builtin_kind(name: &str) -> Option<&'static BuiltinKind> {
    BUILTINS
        .into_iter()
        .find(|kind| kind.name == name || kind.aliases.contains(&name))
}

/// Every name a builtin agent is written with, aliases after their kind.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS
        .iter()
        .flat_map(|kind| std::iter::once(kind.name).chain(kind.aliases.iter().copied()))
        .collect()
}

/// The variable that holds the API key of builtin agent `name` with `model`: its API's first
/// key variable, the model's provider deciding for `llm-agent`.
pub fn key_variable(name: &str, model: Option<&str>) -> Option<&'static str> {
    let provider = match builtin_kind(name)?.provider {
        Some(provider) => provider,
        None => llm_agent_model(model?).ok()?.0,
    };
    provider.key_vars().first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_alias_is_listed_once_and_finds_its_kind() {
        let names = builtin_names();
        assert_eq!(
            names,
            [
                "claude-code",
                "llm-agent",
                "openai-agent",
                "openai-acp",
                "codex",
                "gemini-cli"
            ]
        );
        assert_eq!(
            builtin_kind("openai-acp").map(|k| k.name),
            Some("llm-agent")
        );
        assert!(builtin_kind("claude").is_none());
        for kind in BUILTINS {
            assert_eq!(kind.id.kind().name, kind.name, "{kind:?}");
        }
    }

    #[test]
    fn the_key_variable_is_the_apis_and_the_models_for_llm_agent() {
        assert_eq!(key_variable("claude-code", None), Some("ANTHROPIC_API_KEY"));
        assert_eq!(key_variable("codex", Some("o4")), Some("OPENAI_API_KEY"));
        assert_eq!(key_variable("gemini-cli", None), Some("GEMINI_API_KEY"));
        assert_eq!(
            key_variable("llm-agent", Some("gemini:m")),
            Some("GEMINI_API_KEY")
        );
        assert_eq!(
            key_variable("openai-agent", Some("gpt-4o")),
            Some("OPENAI_API_KEY")
        );
        assert_eq!(key_variable("llm-agent", None), None);
        assert_eq!(key_variable("nope", None), None);
    }
}
