//! The validated agent of an eval ([`Agent`]): a builtin agent, or an Agent file's command
//! line. Reading `config.agent` and Agent files is `agent_file.rs`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use super::kinds::{BuiltinKind, CLAUDE_CODE_ACP, KindId, Program};
use super::shell_script::ShellScript;
use super::template::{Field, Template};
use crate::llm::Provider;
use crate::llm_proxy::LlmApi;

/// The validated agent of an eval: what works a task's prompt. One of mcpeval's builtin
/// agents (`builtin.…` in an eval, `builtin.type` in an Agent file), a command line, or an
/// ACP program.
#[derive(Debug, Clone, PartialEq)]
pub enum Agent {
    /// A builtin agent: what its kind is lives in `kinds/`.
    Builtin(BuiltinAgent),
    /// An Agent file's command line (`commands.runPrompt`).
    Command(Box<AgentCommand>),
    /// A program that speaks the Agent Client Protocol over stdio: an Agent file's `acp`,
    /// or `builtin.claude-code` over ACP (`acp: true`).
    Acp(Box<AcpAgent>),
}

/// A builtin agent: its kind, its model and the API it talks to.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltinAgent {
    /// Which kind (its description: [`KindId::kind`]).
    pub kind: KindId,
    /// The model, when set (never blank); for llm-agent, always set, without its provider.
    pub model: Option<String>,
    /// Whose API the agent talks to: the kind's, or the model's for llm-agent.
    pub provider: Provider,
    /// How its process is set up (an Agent file's `commands` beside `builtin`).
    pub options: AgentOptions,
}

impl BuiltinAgent {
    /// Builtin agent `kind` with no model (its program's default) and default options,
    /// talking to its kind's provider (for llm-agent, whose model names the provider,
    /// OpenAI's, as a bare model name means).
    pub fn of(kind: KindId) -> Self {
        BuiltinAgent {
            kind,
            model: None,
            provider: kind.kind().provider.unwrap_or(Provider::OpenAi),
            options: AgentOptions::default(),
        }
    }
}

impl BuiltinAgent {
    /// The LLM API it speaks and the variable of its base URL: its kind's, or its provider's
    /// (llm-agent).
    pub fn llm(&self) -> AgentLlm {
        let (api, base_url_env) = self.kind.kind().llm.unwrap_or((
            match self.provider {
                Provider::OpenAi => LlmApi::OpenAiChat,
                Provider::Anthropic => LlmApi::Anthropic,
                Provider::Gemini => LlmApi::Gemini,
            },
            self.provider.base_url_vars()[0],
        ));
        AgentLlm {
            api,
            base_url_env: base_url_env.into(),
        }
    }
}

impl Agent {
    /// Its builtin kind (see `kinds/`), for a builtin agent.
    pub fn builtin(&self) -> Option<&'static BuiltinKind> {
        match self {
            Agent::Builtin(builtin) => Some(builtin.kind.kind()),
            Agent::Command(_) | Agent::Acp(_) => None,
        }
    }

    /// Whether the agent needs the allowed tools of a server spelled out even when they
    /// are "all of them" (its command line or its flags name each tool).
    pub fn needs_tool_list(&self) -> bool {
        match self {
            Agent::Builtin(builtin) => builtin.kind.kind().needs_tool_list,
            // Permission requests are answered by the list of allowed tools.
            Agent::Acp(_) => true,
            Agent::Command(command) => command
                .run_prompt
                .fields()
                .contains(&Field::AllowedToolArgs),
        }
    }

    /// The LLM API the agent speaks and the variable of its base URL, when mcpeval knows
    /// them: always for the builtin agents (the kind's, or the provider's of llm-agent's
    /// model), for a command when its Agent file says `llm`.
    pub fn llm(&self) -> Option<AgentLlm> {
        match self {
            Agent::Builtin(builtin) => Some(builtin.llm()),
            Agent::Command(command) => command.llm.clone(),
            Agent::Acp(acp) => acp.llm.clone(),
        }
    }

    /// A short name for messages and cassettes: the builtin kind's (`claude-code`, `codex`,
    /// `gemini-cli`, `llm-agent` whatever its provider or the alias that named it), or the
    /// Agent file's name.
    pub fn name(&self) -> &str {
        match self {
            Agent::Builtin(builtin) => builtin.kind.kind().name,
            Agent::Command(command) => &command.name,
            Agent::Acp(acp) => &acp.name,
        }
    }

    /// How the agent's process is set up: its HOME and where its version comes from.
    pub fn options(&self) -> &AgentOptions {
        match self {
            Agent::Builtin(builtin) => &builtin.options,
            Agent::Command(command) => &command.options,
            Agent::Acp(acp) => &acp.options,
        }
    }

    /// The agent with `options` (an Agent file's `commands` and `metadata.version`).
    pub fn with_options(mut self, new: AgentOptions) -> Self {
        match &mut self {
            Agent::Builtin(builtin) => builtin.options = new,
            Agent::Command(command) => command.options = new,
            Agent::Acp(acp) => acp.options = new,
        }
        self
    }

    /// Where skills go and which tool loads them: the Agent file's `skills`, else the builtin
    /// kind's own (Claude Code's).
    pub fn skills(&self) -> Option<AgentSkills> {
        if let Some(skills) = &self.options().skills {
            return Some(skills.clone());
        }
        match self {
            Agent::Builtin(builtin) => builtin.kind.kind().skills.map(AgentSkills::of),
            Agent::Acp(acp) if acp.claude_code => {
                KindId::ClaudeCode.kind().skills.map(AgentSkills::of)
            }
            _ => None,
        }
    }

    /// The bound on one run of the agent.
    pub fn timeout(&self) -> Duration {
        match self {
            Agent::Builtin(_) => DEFAULT_AGENT_TIMEOUT,
            Agent::Command(command) => command.timeout,
            Agent::Acp(acp) => acp.timeout,
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
    /// The program of a builtin kind over ACP (Claude Code's adapter), for the message when
    /// it is missing: its npm package and the version mcpeval is tested with.
    pub program: Option<Program>,
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

impl AcpAgent {
    /// `builtin.claude-code` over ACP: its adapter ([`CLAUDE_CODE_ACP`], or `cmd`, `args`),
    /// with `model`.
    pub fn claude_code(model: Option<String>, command: Option<(String, Vec<String>)>) -> Self {
        let (cmd, args, program) = match command {
            Some((cmd, args)) => (cmd, args, None),
            None => (
                CLAUDE_CODE_ACP.command.to_owned(),
                Vec::new(),
                Some(CLAUDE_CODE_ACP),
            ),
        };
        AcpAgent {
            name: KindId::ClaudeCode.kind().name.into(),
            cmd,
            args,
            program,
            env: BTreeMap::new(),
            timeout: DEFAULT_AGENT_TIMEOUT,
            llm: Some(BuiltinAgent::of(KindId::ClaudeCode).llm()),
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
    /// A builtin kind's place for skills.
    pub fn of((mount_path, tool_name): (&str, &str)) -> Self {
        AgentSkills {
            mount_path: mount_path.into(),
            tool_name: tool_name.into(),
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
