//! `acp` of an Agent file: an agent that speaks ACP (the Agent Client Protocol) over stdio,
//! alone or as `builtin.claude-code` (mcpchecker: `acp` wins over `builtin`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::definition::{
    AcpAgent, Agent, AgentLlm, AgentOptions, BuiltinAgent, DEFAULT_AGENT_TIMEOUT,
};
use super::kinds::KindId;
use crate::config::files::check::Checker;

/// `acp` of an Agent file (mcpchecker's `AcpConfig`): the program that speaks ACP.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::config) struct RawAcp {
    cmd: Option<String>,
    #[serde(default)]
    args: Vec<String>,
}

/// What an Agent file's `acp` agent is made of besides its program.
pub(in crate::config) struct AcpParts {
    pub(in crate::config) command: Option<(String, Vec<String>)>,
    pub(in crate::config) env: BTreeMap<String, String>,
    pub(in crate::config) timeout: Option<String>,
}

impl RawAcp {
    pub(in crate::config) fn validate(
        self,
        check: &mut Checker<'_>,
    ) -> Option<(String, Vec<String>)> {
        let cmd = check.non_empty("acp.cmd", self.cmd.as_deref())?.to_owned();
        Some((cmd, self.args))
    }
}

/// The ACP agent of an Agent file: its `acp` program, as `builtin.claude-code` when the file
/// names that builtin too (mcpchecker: `acp` wins over `builtin`), else an agent of its own.
pub(in crate::config) fn acp_agent(
    check: &mut Checker<'_>,
    acp: AcpParts,
    has_run_prompt: bool,
    builtin: Option<Agent>,
    llm: Option<AgentLlm>,
    name: String,
) -> Option<Agent> {
    if has_run_prompt {
        check.error(
            "commands.runPrompt",
            "an agent runs either over ACP (`acp`) or as a command line (`commands.runPrompt`), not both",
        );
    }
    let timeout = match acp.timeout.as_deref() {
        Some(text) => check.duration("commands.timeout", text)?,
        None => DEFAULT_AGENT_TIMEOUT,
    };
    let command = acp.command?;
    let agent = match builtin {
        Some(Agent::Builtin(BuiltinAgent {
            kind: KindId::ClaudeCode,
            model,
            ..
        })) => {
            let claude = AcpAgent::claude_code(model, Some(command));
            AcpAgent {
                llm: llm.or_else(|| claude.llm.clone()),
                ..claude
            }
        }
        Some(other) => {
            check.error(
                "acp",
                format!(
                    "`builtin.type: {}` does not run over ACP; with `acp`, `builtin` may only name claude-code",
                    other.name()
                ),
            );
            return None;
        }
        None => AcpAgent {
            name,
            cmd: command.0,
            args: command.1,
            program: None,
            env: BTreeMap::new(),
            timeout,
            llm,
            claude_code: false,
            model: None,
            options: AgentOptions::default(),
        },
    };
    Some(Agent::Acp(Box::new(AcpAgent {
        env: acp.env,
        timeout,
        ..agent
    })))
}
