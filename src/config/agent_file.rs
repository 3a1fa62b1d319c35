//! Reading the agent of an eval: `config.agent` of the eval file (which kind of agent) and
//! the Agent file that a `type: file` agent points to, validated into one [`Agent`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::agent::{Agent, AgentCommand, AgentLlm, DEFAULT_AGENT_TIMEOUT, RunPrompt};
use super::check::Checker;
use super::error::{ConfigErrors, did_you_mean};
use super::shell_script;
use super::template::{self, Field};
use super::yaml::read_file;
use crate::llm_proxy::LlmApi;

/// `config.agent` as written in the eval file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAgentRef {
    #[serde(rename = "type")]
    kind: Option<String>,
    path: Option<String>,
    model: Option<String>,
}

const AGENT_TYPES: [&str; 3] = ["builtin.claude-code", "builtin.openai-agent", "file"];

impl RawAgentRef {
    /// Validates `config.agent`, loading the Agent file of a `file` agent.
    pub fn validate(self, check: &mut Checker<'_>) -> Option<Agent> {
        let path = "config.agent";
        let kind = check
            .non_empty(&format!("{path}.type"), self.kind.as_deref())?
            .to_owned();
        let builtin = matches!(
            kind.as_str(),
            "builtin.claude-code" | "builtin.openai-agent"
        );
        if builtin && self.path.is_some() {
            check.error(
                format!("{path}.path"),
                "`path` belongs to `type: file` agents only",
            );
        }
        match kind.as_str() {
            "builtin.claude-code" => Some(Agent::ClaudeCode { model: self.model }),
            "builtin.openai-agent" => match self.model.as_deref().map(str::trim) {
                Some(model) if !model.is_empty() => Some(Agent::OpenAi {
                    model: model.to_owned(),
                }),
                _ => {
                    check.error(
                        format!("{path}.model"),
                        "builtin.openai-agent needs `model` (e.g. gpt-4o)",
                    );
                    None
                }
            },
            "file" => self.file_agent(check),
            other => {
                check.error(
                    format!("{path}.type"),
                    format!(
                        "unknown agent type `{other}`; expected one of {}{}",
                        AGENT_TYPES.join(", "),
                        did_you_mean(other, AGENT_TYPES)
                    ),
                );
                None
            }
        }
    }

    /// A `type: file` agent: the Agent file at `path`, loaded.
    fn file_agent(self, check: &mut Checker<'_>) -> Option<Agent> {
        let path = "config.agent";
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
    acp: Option<IgnoredAny>,
    skills: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgentMetadata {
    name: Option<String>,
    #[serde(rename = "version")]
    _version: Option<String>,
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
    use_virtual_home: Option<IgnoredAny>,
    get_version: Option<IgnoredAny>,
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
    for (key, present) in [("acp", raw.acp.is_some()), ("skills", raw.skills.is_some())] {
        if present {
            check.error(
                key,
                format!("`{key}` agents of mcpchecker are not supported by mcpeval yet"),
            );
        }
    }
    let builtin = raw.builtin.and_then(|b| b.validate(&mut check));
    let llm = raw.llm.and_then(|llm| llm.validate(&mut check));
    let command = raw
        .commands
        .validate(&mut check, builtin.is_some(), path, name);
    // Validation reported an error when neither is there.
    let agent = match (command, builtin) {
        (Some(command), _) => Agent::Command(Box::new(AgentCommand { llm, ..command })),
        (None, Some(builtin)) => builtin,
        (None, None) => Agent::ClaudeCode { model: None },
    };
    check.finish(agent)
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
        let kinds = ["claude-code", "openai-agent"];
        match self.kind.as_deref() {
            Some("claude-code") => Some(Agent::ClaudeCode { model: self.model }),
            Some("openai-agent") => match self.model {
                Some(model) if !model.trim().is_empty() => Some(Agent::OpenAi { model }),
                _ => {
                    check.error("builtin.model", "the openai-agent builtin needs `model`");
                    None
                }
            },
            Some(other) => {
                check.error(
                    "builtin.type",
                    format!(
                        "unknown builtin agent `{other}`; expected one of {}{}",
                        kinds.join(", "),
                        did_you_mean(other, kinds)
                    ),
                );
                None
            }
            None => {
                check.error(
                    "builtin.type",
                    "missing required field; expected claude-code or openai-agent",
                );
                None
            }
        }
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
        for (key, present) in [
            ("useVirtualHome", self.use_virtual_home.is_some()),
            ("getVersion", self.get_version.is_some()),
        ] {
            if present {
                check.error(
                    format!("commands.{key}"),
                    format!("`{key}` of mcpchecker is not supported by mcpeval yet"),
                );
            }
        }
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
