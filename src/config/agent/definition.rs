//! The validated agent of an eval ([`Agent`]): a builtin agent, or an Agent file's command
//! line. Reading `config.agent` and Agent files is `agent_file.rs`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::kinds::{BuiltinKind, KindId};
use super::shell_script::ShellScript;
use super::template::{Field, Template};
use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

/// The validated agent of an eval: what works a task's prompt. One variant per kind of
/// agent, whether the eval names it (`builtin.…`) or an Agent file does (`builtin.type`, or
/// a `runPrompt` command line).
#[derive(Debug, Clone, PartialEq)]
pub enum Agent {
    /// `builtin.claude-code`: the real `claude` CLI.
    ClaudeCode {
        /// `--model`, when set.
        model: Option<String>,
        /// How its process is set up (an Agent file's `commands` beside `builtin`).
        options: AgentOptions,
    },
    /// `builtin.codex`: the real Codex CLI (`codex exec --json`).
    Codex {
        /// `model` in its private `config.toml`, when set.
        model: Option<String>,
        /// How its process is set up (an Agent file's `commands` beside `builtin`).
        options: AgentOptions,
    },
    /// `builtin.gemini-cli`: the real Gemini CLI (`gemini --output-format stream-json`).
    GeminiCli {
        /// `-m`, when set.
        model: Option<String>,
        /// How its process is set up (an Agent file's `commands` beside `builtin`).
        options: AgentOptions,
    },
    /// `builtin.llm-agent` (or its deprecated aliases `builtin.openai-agent` and
    /// `openai-acp`): mcpeval's own agent loop over the API of the model's provider.
    LlmAgent {
        /// The provider of `provider:model` (`openai` for a bare model name).
        provider: Provider,
        /// The model name, without its provider.
        model: String,
        /// Options of an Agent file; the in-process agent has no HOME of its own.
        options: AgentOptions,
    },
    /// An Agent file's command line (`commands.runPrompt`).
    Command(Box<AgentCommand>),
    /// A program that speaks the Agent Client Protocol over stdio: an Agent file's `acp`,
    /// or `builtin.claude-code` over ACP (`acp: true`).
    Acp(Box<AcpAgent>),
}

impl Agent {
    /// Its builtin kind (see `kinds/`), for a builtin agent.
    pub fn builtin(&self) -> Option<&'static BuiltinKind> {
        let id = match self {
            Agent::ClaudeCode { .. } => KindId::ClaudeCode,
            Agent::Codex { .. } => KindId::Codex,
            Agent::GeminiCli { .. } => KindId::GeminiCli,
            Agent::LlmAgent { .. } => KindId::LlmAgent,
            Agent::Command(_) | Agent::Acp(_) => return None,
        };
        Some(id.kind())
    }

    /// Whether the agent needs the allowed tools of a server spelled out even when they
    /// are "all of them" (its command line or its flags name each tool).
    pub fn needs_tool_list(&self) -> bool {
        match self {
            // Permission requests are answered by the list of allowed tools.
            Agent::Acp(_) => true,
            Agent::Command(command) => command
                .run_prompt
                .fields()
                .contains(&Field::AllowedToolArgs),
            builtin => builtin.builtin().is_some_and(|kind| kind.needs_tool_list),
        }
    }

    /// The LLM API the agent speaks and the variable of its base URL, when mcpeval knows
    /// them: always for the builtin agents (the kind's, or the provider's of llm-agent's
    /// model), for a command when its Agent file says `llm`.
    pub fn llm(&self) -> Option<AgentLlm> {
        let known = |(api, base_url_env): (LlmApi, &str)| AgentLlm {
            api,
            base_url_env: base_url_env.into(),
        };
        match self {
            Agent::LlmAgent { provider, .. } => Some(known((
                match provider {
                    Provider::OpenAi => LlmApi::OpenAiChat,
                    Provider::Anthropic => LlmApi::Anthropic,
                    Provider::Gemini => LlmApi::Gemini,
                },
                provider.base_url_vars()[0],
            ))),
            Agent::Command(command) => command.llm.clone(),
            Agent::Acp(acp) => acp.llm.clone(),
            builtin => builtin.builtin().and_then(|kind| kind.llm).map(known),
        }
    }

    /// A short name for messages and cassettes: the builtin kind's (`claude-code`, `codex`,
    /// `gemini-cli`, `llm-agent` whatever its provider or the alias that named it), or the
    /// Agent file's name.
    pub fn name(&self) -> &str {
        match self {
            Agent::Command(command) => &command.name,
            Agent::Acp(acp) => &acp.name,
            builtin => builtin.builtin().map_or("", |kind| kind.name),
        }
    }

    /// How the agent's process is set up: its HOME and where its version comes from.
    pub fn options(&self) -> &AgentOptions {
        match self {
            Agent::ClaudeCode { options, .. }
            | Agent::Codex { options, .. }
            | Agent::GeminiCli { options, .. }
            | Agent::LlmAgent { options, .. } => options,
            Agent::Command(command) => &command.options,
            Agent::Acp(acp) => &acp.options,
        }
    }

    /// The agent with `options` (an Agent file's `commands` and `metadata.version`).
    pub fn with_options(mut self, new: AgentOptions) -> Self {
        match &mut self {
            Agent::ClaudeCode { options, .. }
            | Agent::Codex { options, .. }
            | Agent::GeminiCli { options, .. }
            | Agent::LlmAgent { options, .. } => *options = new,
            Agent::Command(command) => command.options = new,
            Agent::Acp(acp) => acp.options = new,
        }
        self
    }

    /// Where skills go and which tool loads them: the Agent file's `skills`, else Claude
    /// Code's own.
    pub fn skills(&self) -> Option<AgentSkills> {
        match (&self.options().skills, self) {
            (Some(skills), _) => Some(skills.clone()),
            (None, Agent::ClaudeCode { .. }) => Some(AgentSkills::claude_code()),
            (None, Agent::Acp(acp)) if acp.claude_code => Some(AgentSkills::claude_code()),
            (None, _) => None,
        }
    }

    /// The bound on one run of the agent.
    pub fn timeout(&self) -> Duration {
        match self {
            Agent::Command(command) => command.timeout,
            Agent::Acp(acp) => acp.timeout,
            Agent::ClaudeCode { .. }
            | Agent::Codex { .. }
            | Agent::GeminiCli { .. }
            | Agent::LlmAgent { .. } => DEFAULT_AGENT_TIMEOUT,
        }
    }
}

/// The LLM API an agent speaks and the environment variable that carries its base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentLlm {
    /// The API.
    pub api: LlmApi,
    /// The variable the agent reads its base URL from, e.g. `ANTHROPIC_BASE_URL`.
    pub base_url_env: String,
}

/// How to run a command-line agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCommand {
    /// The Agent file it comes from.
    pub file: PathBuf,
    /// The Agent file's `metadata.name`.
    pub name: String,
    /// Rendered once per MCP config file (or per server when it names `.URL`/`.ServerName`).
    pub mcp_server_arg: Template,
    /// Rendered once per allowed tool.
    pub allowed_tool_arg: Template,
    /// Joins the allowed tool values when they share one word.
    pub allowed_tools_separator: String,
    /// The command line.
    pub run_prompt: RunPrompt,
    /// Bound on one run of the agent.
    pub timeout: Duration,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    /// `llm`: the LLM API the agent speaks, for recording and replaying it.
    pub llm: Option<AgentLlm>,
    /// `commands.useVirtualHome`, `commands.getVersion`, `metadata.version`.
    pub options: AgentOptions,
}

/// A program that speaks the Agent Client Protocol (ACP) over stdio, one process per task
/// run (`agent::acp` is the client).
#[derive(Debug, Clone, PartialEq)]
pub struct AcpAgent {
    /// The Agent file's `metadata.name`, or `claude-code`.
    pub name: String,
    /// `acp.cmd`: the program, looked up on `PATH` unless it is a path.
    pub cmd: String,
    /// `acp.args`.
    pub args: Vec<String>,
    /// Where the program comes from, for the message when it is missing (e.g. the npm
    /// package `@agentclientprotocol/claude-agent-acp`).
    pub package: Option<String>,
    /// `commands.env`: extra environment variables.
    pub env: BTreeMap<String, String>,
    /// `commands.timeout`, else the default; the task timeout bounds it too.
    pub timeout: Duration,
    /// The LLM API the agent speaks (`llm` of the Agent file; Anthropic for Claude Code).
    pub llm: Option<AgentLlm>,
    /// `builtin.claude-code` over ACP: Claude Code's private config directory and switches,
    /// its skills, `model` as `ANTHROPIC_MODEL`.
    pub claude_code: bool,
    /// `config.agent.model` (or `builtin.model`) for Claude Code.
    pub model: Option<String>,
    /// `commands.useVirtualHome`, `commands.getVersion`, `metadata.version`, `skills`.
    pub options: AgentOptions,
}

/// The adapter mcpchecker runs for `builtin.claude-code`, and its npm package.
pub const CLAUDE_ACP_COMMAND: &str = "claude-agent-acp";
/// The npm package of [`CLAUDE_ACP_COMMAND`].
pub const CLAUDE_ACP_PACKAGE: &str = "@agentclientprotocol/claude-agent-acp";

impl AcpAgent {
    /// `builtin.claude-code` over ACP: `claude-agent-acp` (or `cmd`, `args`), with `model`.
    pub fn claude_code(model: Option<String>, command: Option<(String, Vec<String>)>) -> Self {
        let (cmd, args, package) = match command {
            Some((cmd, args)) => (cmd, args, None),
            None => (
                CLAUDE_ACP_COMMAND.to_owned(),
                Vec::new(),
                Some(format!("the npm package `{CLAUDE_ACP_PACKAGE}`")),
            ),
        };
        AcpAgent {
            name: "claude-code".into(),
            cmd,
            args,
            package,
            env: BTreeMap::new(),
            timeout: DEFAULT_AGENT_TIMEOUT,
            llm: Some(AgentLlm {
                api: LlmApi::Anthropic,
                base_url_env: "ANTHROPIC_BASE_URL".into(),
            }),
            claude_code: true,
            model,
            options: AgentOptions::default(),
        }
    }
}

/// What an Agent file says about the agent's process beyond its command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentOptions {
    /// `commands.useVirtualHome`: the agent gets a fresh, private `HOME` inside its run
    /// directory (default: the user's).
    pub virtual_home: bool,
    /// `commands.getVersion`: a shell command whose output is the agent's version.
    pub get_version: Option<String>,
    /// `metadata.version`: the version when there is no `getVersion`.
    pub version: Option<String>,
    /// `skills`: where skills are mounted and the tool that loads them.
    pub skills: Option<AgentSkills>,
}

/// An Agent file's `skills`: where the eval's skill sources are copied in the agent's
/// working directory, and the name of the agent's own tool that loads a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSkills {
    /// `mountPath`, relative to the working directory (e.g. `.claude/skills`).
    pub mount_path: String,
    /// `toolName` (e.g. `Skill`).
    pub tool_name: String,
}

impl AgentSkills {
    /// Claude Code's: `.claude/skills`, loaded by its `Skill` tool (mcpchecker's default).
    pub fn claude_code() -> Self {
        AgentSkills {
            mount_path: ".claude/skills".into(),
            tool_name: "Skill".into(),
        }
    }
}

/// `commands.runPrompt`: shell code (the default), or words run without a shell
/// (`shell: false`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunPrompt {
    /// Run through a POSIX shell; each field refers to an environment variable.
    Shell(ShellScript),
    /// Split into words, each word one argument of the program (the first word).
    Words(Template),
}

impl RunPrompt {
    /// The fields it uses.
    pub fn fields(&self) -> Vec<Field> {
        match self {
            RunPrompt::Shell(script) => script.fields().collect(),
            RunPrompt::Words(template) => template.fields().collect(),
        }
    }
}

/// Default bound on one agent run.
pub const DEFAULT_AGENT_TIMEOUT: Duration = Duration::from_secs(600);
