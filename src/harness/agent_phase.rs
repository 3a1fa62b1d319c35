//! The agent phase of a task run: the allowed tools of each proxied server, the agent's MCP
//! config, and the agent run with one [`AgentRun`].

use std::path::Path;

use super::run_report::RunOptions;
use super::servers::list_allowed_tools;
use crate::agent::{AgentOutcome, AgentRun, ProxiedServer, write_agent_mcp_config};
use crate::config::{AllowedTools, Eval, McpServer, Task};

/// Runs the eval's agent on the task's prompt against the proxied `servers` (each with its
/// proxy's URL).
pub(super) async fn run_agent(
    eval: &Eval,
    task: &Task,
    servers: &[(McpServer, String)],
    run_dir: &Path,
    work_dir: &Path,
    options: &RunOptions,
) -> AgentOutcome {
    let not_run = AgentOutcome::failed;
    // An agent that takes "all tools" as an empty list (the openai agent) lists them itself.
    let needs_tools = eval.agent.needs_tool_list();
    let mut proxied = Vec::new();
    for (server, url) in servers {
        let allowed_tools = match (&server.allowed_tools, needs_tools) {
            (AllowedTools::Only(tools), _) => tools.clone(),
            (AllowedTools::All, false) => Vec::new(),
            (AllowedTools::All, true) => {
                match list_allowed_tools(server, &options.vars, run_dir).await {
                    Ok(tools) => tools,
                    Err(e) => {
                        return not_run(format!(
                            "cannot list the tools of `{}` for the agent's allowed tools: {e}",
                            server.name
                        ));
                    }
                }
            }
        };
        proxied.push(ProxiedServer {
            name: server.name.clone(),
            url: url.clone(),
            allowed_tools,
        });
    }
    let config_file = run_dir.join("mcp-config.json");
    if let Err(e) = write_agent_mcp_config(&config_file, &proxied) {
        return not_run(format!(
            "cannot write the agent's MCP config {}: {e}",
            config_file.display()
        ));
    }
    let run = AgentRun {
        prompt: &task.prompt,
        servers: &proxied,
        mcp_config_file: &config_file,
        work_dir,
        private_dir: run_dir,
        env: &options.vars,
        live: options.live,
        timeout: eval.agent.timeout(),
    };
    crate::agent::run_agent(&eval.agent, &run).await
}
