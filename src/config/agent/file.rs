//! Reading the agent of an eval: `config.agent` of the eval file (which kind of agent) and
//! the Agent file that a `type: file` agent points to, validated into one [`Agent`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::acp_file::{AcpParts, RawAcp, acp_agent};
use super::builtin::{BuiltinKeys, builtin_agent};
use super::definition::{
    AcpAgent, Agent, AgentCommand, AgentLlm, AgentOptions, AgentSkills, BuiltinAgent,
    DEFAULT_AGENT_TIMEOUT, RunPrompt,
};
use super::kinds::{KindId, builtin_names};
use super::shell_script;
use super::template::{self, Field};
use crate::config::files::check::Checker;
use crate::config::files::error::{ConfigErrors, did_you_mean};
use crate::config::files::yaml::read_file;
use crate::llm_proxy::LlmApi;

/// `config.agent` as written in the eval file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAgentRef {
    #[serde(rename = "type")]
    kind: Option<String>,
    path: Option<String>,
    model: Option<String>,
    /// `acp: true` with `builtin.claude-code`: Claude Code over ACP (`claude-agent-acp`).
    acp: Option<bool>,
}

const AGENT_TYPES: [&str; 7] = [
    "builtin.claude-code",
    "builtin.codex",
    "builtin.gemini-cli",
    "builtin.llm-agent",
    "builtin.openai-agent",
    "builtin.openai-acp",
    "file",
];

impl RawAgentRef {
    /// Validates `config.agent`, loading the Agent file of a `file` agent.
    pub fn validate(self, check: &mut Checker<'_>) -> Option<Agent> {
        self.validate_at(check, "config.agent")
    }

    /// Validates an agent reference written at `path` (`config.agent`, or the judge's
    /// `config.llmJudge.ref`).
    pub fn validate_at(self, check: &mut Checker<'_>, path: &str) -> Option<Agent> {
        let kind = check
            .non_empty(&format!("{path}.type"), self.kind.as_deref())?
            .to_owned();
        if kind == "file" {
            return self.file_agent(check, path);
        }
        let Some(builtin) = kind.strip_prefix("builtin.") else {
            check.error(
                format!("{path}.type"),
                format!(
                    "unknown agent type `{kind}`; expected one of {}{}",
                    AGENT_TYPES.join(", "),
                    did_you_mean(&kind, AGENT_TYPES)
                ),
            );
            return None;
        };
        if self.path.is_some() {
            check.error(
                format!("{path}.path"),
                "`path` belongs to `type: file` agents only",
            );
        }
        let keys = BuiltinKeys {
            kind: &format!("{path}.type"),
            model: &format!("{path}.model"),
            prefix: "builtin.",
        };
        let agent = builtin_agent(check, &keys, builtin, self.model)?;
        match (self.acp, agent) {
            (
                Some(true),
                Agent::Builtin(BuiltinAgent {
                    kind: KindId::ClaudeCode,
                    model,
                    ..
                }),
            ) => Some(Agent::Acp(Box::new(AcpAgent::claude_code(model, None)))),
            (Some(true), _) => {
                check.error(
                    format!("{path}.acp"),
                    format!(
                        "`acp: true` runs builtin.claude-code over ACP; `{kind}` has no ACP form (an Agent file's `acp: {{cmd, args}}` runs any ACP agent)"
                    ),
                );
                None
            }
            (_, agent) => Some(agent),
        }
    }

    /// A `type: file` agent: the Agent file at `path`, loaded.
    fn file_agent(self, check: &mut Checker<'_>, path: &str) -> Option<Agent> {
        let Some(relative) = self.path.as_deref().filter(|p| !p.trim().is_empty()) else {
            check.error(
                format!("{path}.path"),
                "a `type: file` agent needs `path` (the Agent file)",
            );
            return None;
        };
        if self.model.is_some() {
            check.error(
                format!("{path}.model"),
                "`model` of a file agent goes in the Agent file's `builtin.model`",
            );
        }
        if self.acp.is_some() {
            check.error(
                format!("{path}.acp"),
                "`acp` of a file agent goes in the Agent file (`acp: {cmd, args}`)",
            );
        }
        let file = check.existing_file(&format!("{path}.path"), relative)?;
        match load_agent_file(&file) {
            Ok(agent) => Some(agent),
            Err(errors) => {
                check.extend(errors);
                None
            }
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentFile {
    kind: String,
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    metadata: RawAgentMetadata,
    #[serde(default)]
    commands: RawCommands,
    builtin: Option<RawBuiltin>,
    llm: Option<RawLlm>,
    acp: Option<RawAcp>,
    skills: Option<RawSkills>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSkills {
    mount_path: Option<String>,
    tool_name: Option<String>,
}

impl RawSkills {
    fn validate(self, check: &mut Checker<'_>) -> Option<AgentSkills> {
        let mount_path = check
            .non_empty("skills.mountPath", self.mount_path.as_deref())
            .map(str::to_owned);
        let tool_name = check
            .non_empty("skills.toolName", self.tool_name.as_deref())
            .map(str::to_owned);
        let mount_path = mount_path?;
        let inside = Path::new(&mount_path).components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
        if !inside {
            check.error(
                "skills.mountPath",
                format!(
                    "`{mount_path}` must be a relative path inside the agent's working directory"
                ),
            );
            return None;
        }
        Some(AgentSkills {
            mount_path,
            tool_name: tool_name?,
        })
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentMetadata {
    name: Option<String>,
    version: Option<String>,
}

/// `llm` of an Agent file: the LLM API the command's agent speaks, and the variable that
/// carries its base URL (so that mcpeval can put its LLM proxy there).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawLlm {
    api: Option<String>,
    base_url_env: Option<String>,
}

impl RawLlm {
    fn validate(self, check: &mut Checker<'_>) -> Option<AgentLlm> {
        let api = match check.non_empty("llm.api", self.api.as_deref()) {
            Some(name) => match name.parse::<LlmApi>() {
                Ok(api) => Some(api),
                Err(error) => {
                    check.error("llm.api", error.to_string());
                    None
                }
            },
            None => None,
        };
        let base_url_env = check
            .non_empty("llm.baseUrlEnv", self.base_url_env.as_deref())
            .map(str::to_owned);
        Some(AgentLlm {
            api: api?,
            base_url_env: base_url_env?,
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCommands {
    arg_template_mcp_server: Option<String>,
    arg_template_allowed_tools: Option<String>,
    allowed_tools_join_separator: Option<String>,
    run_prompt: Option<String>,
    timeout: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Default true: `runPrompt` runs through a shell.
    shell: Option<bool>,
    #[serde(default)]
    use_virtual_home: bool,
    get_version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBuiltin {
    #[serde(rename = "type")]
    kind: Option<String>,
    model: Option<String>,
    base_url: Option<IgnoredAny>,
    api_key: Option<IgnoredAny>,
}

/// Loads and validates the Agent file at `path`: its command line when it has one
/// (`commands.runPrompt`, also beside a `builtin`), else the builtin agent it names.
pub fn load_agent_file(path: &Path) -> Result<Agent, ConfigErrors> {
    let parsed = read_file::<RawAgentFile>(path)?;
    let raw = parsed.value;
    let mut check = Checker::new(path, &parsed.locations);
    if raw.kind != "Agent" {
        check.error(
            "kind",
            format!("expected `kind: Agent`, found `{}`", raw.kind),
        );
    }
    let name = check
        .non_empty("metadata.name", raw.metadata.name.as_deref())
        .unwrap_or_default()
        .to_owned();
    let skills = raw.skills.and_then(|skills| skills.validate(&mut check));
    // A builtin or an `acp` agent needs no runPrompt.
    let has_builtin = raw.builtin.is_some() || raw.acp.is_some();
    let builtin = raw.builtin.and_then(|b| b.validate(&mut check));
    let acp = raw.acp.map(|acp| AcpParts {
        command: acp.validate(&mut check),
        env: raw.commands.env.clone(),
        timeout: raw.commands.timeout.clone(),
    });
    let llm = raw.llm.and_then(|llm| llm.validate(&mut check));
    let options = AgentOptions {
        virtual_home: raw.commands.use_virtual_home,
        get_version: raw.commands.get_version.clone(),
        version: raw.metadata.version,
        skills,
    };
    if let Some(command) = &options.get_version
        && command.trim().is_empty()
    {
        check.error("commands.getVersion", "must not be empty");
    }
    // A builtin that failed validation already has its one error; no runPrompt is needed.
    let command = raw
        .commands
        .validate(&mut check, has_builtin, path, name.clone());
    if let Some(acp) = acp {
        let agent = acp_agent(&mut check, acp, command.is_some(), builtin, llm, name);
        let agent = agent.unwrap_or_else(|| Agent::Builtin(BuiltinAgent::of(KindId::ClaudeCode)));
        return check.finish(agent.with_options(options));
    }
    // Validation reported an error when neither is there.
    let agent = match (command, builtin) {
        (Some(command), _) => Agent::Command(Box::new(AgentCommand { llm, ..command })),
        (None, Some(builtin)) => builtin,
        (None, None) => Agent::Builtin(BuiltinAgent::of(KindId::ClaudeCode)),
    };
    check.finish(agent.with_options(options))
}

impl RawBuiltin {
    fn validate(self, check: &mut Checker<'_>) -> Option<Agent> {
        for (key, present) in [
            ("baseUrl", self.base_url.is_some()),
            ("apiKey", self.api_key.is_some()),
        ] {
            if present {
                check.error(
                    format!("builtin.{key}"),
                    "not supported: set OPENAI_BASE_URL / OPENAI_API_KEY in the environment instead",
                );
            }
        }
        let Some(kind) = self.kind.as_deref() else {
            check.error(
                "builtin.type",
                format!(
                    "missing required field; expected one of {}",
                    builtin_names().join(", ")
                ),
            );
            return None;
        };
        let keys = BuiltinKeys {
            kind: "builtin.type",
            model: "builtin.model",
            prefix: "",
        };
        builtin_agent(check, &keys, kind, self.model)
    }
}

impl RawCommands {
    fn validate(
        self,
        check: &mut Checker<'_>,
        has_builtin: bool,
        file: &Path,
        name: String,
    ) -> Option<AgentCommand> {
        let Some(run_prompt) = self.run_prompt else {
            if !has_builtin {
                check.error(
                    "commands.runPrompt",
                    "missing required field: the command line that runs the agent",
                );
            }
            return None;
        };
        let mut template = |key: &str, source: Option<&str>, default: &str, allowed: &[Field]| {
            let source = source.unwrap_or(default);
            template::parse(source, allowed)
                .map_err(|message| check.error(format!("commands.{key}"), message))
                .ok()
        };
        let mcp_server_arg = template(
            "argTemplateMcpServer",
            self.arg_template_mcp_server.as_deref(),
            "{{ .File }}",
            &[Field::File, Field::Url, Field::ServerName],
        );
        let allowed_tool_arg = template(
            "argTemplateAllowedTools",
            self.arg_template_allowed_tools.as_deref(),
            "{{ .ToolName }}",
            &[Field::ServerName, Field::ToolName],
        );
        let run_prompt = run_prompt_of(check, &run_prompt, self.shell.unwrap_or(true));
        let timeout = match self.timeout.as_deref() {
            Some(text) => check.duration("commands.timeout", text)?,
            None => DEFAULT_AGENT_TIMEOUT,
        };
        Some(AgentCommand {
            file: file.to_path_buf(),
            name,
            mcp_server_arg: mcp_server_arg?,
            allowed_tool_arg: allowed_tool_arg?,
            allowed_tools_separator: self
                .allowed_tools_join_separator
                .unwrap_or_else(|| " ".to_owned()),
            run_prompt: run_prompt?,
            timeout,
            env: self.env,
            llm: None,
            options: AgentOptions::default(),
        })
    }
}

/// `commands.runPrompt`, parsed as shell code or as words, and checked to pass the prompt.
fn run_prompt_of(check: &mut Checker<'_>, source: &str, shell: bool) -> Option<RunPrompt> {
    let fields = [
        Field::McpServerFileArgs,
        Field::AllowedToolArgs,
        Field::Prompt,
    ];
    let parsed = match shell {
        true => shell_script::parse(source, &fields).map(RunPrompt::Shell),
        false => template::parse(source, &fields).map(RunPrompt::Words),
    };
    let run_prompt = parsed
        .map_err(|message| check.error("commands.runPrompt", message))
        .ok()?;
    if source.trim().is_empty() {
        check.error("commands.runPrompt", "the command line is empty");
    } else if !run_prompt.fields().contains(&Field::Prompt) {
        check.error(
            "commands.runPrompt",
            "the command line never passes {{ .Prompt }} to the agent",
        );
    }
    Some(run_prompt)
}
