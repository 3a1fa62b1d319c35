//! The agent phase of a task run: the allowed tools of each proxied server, the agent's MCP
//! config, and the agent run with one [`AgentRun`].

use std::path::Path;
use std::time::{Duration, Instant};

use crate::agent::{
    AgentOutcome, AgentRun, ProxiedServer, agent_version, builtin_version, mount_skills,
    program_version, write_agent_mcp_config,
};
use crate::config::{Agent, AllowedTools, Eval, McpServer};
use crate::llm_proxy::LlmApi;
use crate::proxy::ServerFailure;
use crate::run::llm_phase::{LlmTarget, StartedProxy, finish_llm_proxy, start_llm_proxy};
use crate::run::report::{LlmClient, LlmRecord, RunOptions};
use crate::run::servers::list_allowed_tools;
use crate::run::timed::TimedRun;
use crate::steps::Span;

/// What the agent is given in one turn of the task: the prompt, and variables on top of the
/// run's (a conversation's turn number and earlier answers).
pub(crate) struct TurnInput<'a> {
    pub prompt: &'a str,
    pub env: Vec<(String, String)>,
}

/// Runs the eval's agent on the turn's prompt against the proxied `servers` (each with its
/// proxy's URL), its LLM calls through an LLM proxy when mcpeval knows its API: recorded
/// into or replayed from the run's cassette. A divergence from the cassette stops the agent
/// at once. When mcpeval lists a server's tools for the agent's allowed tools and the server
/// fails to list them, the agent does not run and the failures go to `server_failures`.
pub(crate) async fn run_agent(
    eval: &Eval,
    turn: &TurnInput<'_>,
    servers: &[(McpServer, String)],
    target: &LlmTarget<'_>,
    options: &RunOptions,
    deadline: Instant,
    server_failures: &mut Vec<ServerFailure>,
) -> (AgentOutcome, Option<LlmRecord>) {
    let started = match start_agent_llm(eval, target, options) {
        Ok(started) => started,
        Err(error) => return (AgentOutcome::failed(error), None),
    };
    let agent = AgentSide {
        servers,
        target,
        options,
        deadline,
        llm: started.as_ref(),
    };
    let outcome = run_agent_on(eval, turn, &agent, server_failures).await;
    match started {
        Some(started) => {
            let (outcome, record) = finish_agent_llm(eval, outcome, started).await;
            (outcome, Some(record))
        }
        None => (outcome, None),
    }
}

/// Where the agent runs: the proxied servers, the run's directories and cassette, its
/// options, the task's deadline, and the LLM proxy in front of its API (when mcpeval knows
/// it), which a conversation's turns share.
pub(crate) struct AgentSide<'a> {
    pub servers: &'a [(McpServer, String)],
    pub target: &'a LlmTarget<'a>,
    pub options: &'a RunOptions,
    pub deadline: Instant,
    pub llm: Option<&'a StartedProxy>,
}

/// The LLM proxy in front of the agent's API, when mcpeval knows it (`None` otherwise): its
/// calls recorded into or replayed from the run's cassette.
pub(crate) fn start_agent_llm(
    eval: &Eval,
    target: &LlmTarget<'_>,
    options: &RunOptions,
) -> Result<Option<StartedProxy>, String> {
    let Some(llm) = eval.agent.llm() else {
        return Ok(None);
    };
    let key_vars: &[&str] = match llm.api {
        LlmApi::Anthropic => &["ANTHROPIC_API_KEY"],
        LlmApi::OpenAiChat | LlmApi::OpenAiResponses => &["OPENAI_API_KEY", "MODEL_KEY"],
        LlmApi::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    };
    start_llm_proxy(LlmClient::Agent, eval, &llm, key_vars, target, options).map(Some)
}

/// The agent's LLM proxy finished: what it did, and the agent's outcome with it.
pub(crate) async fn finish_agent_llm(
    eval: &Eval,
    outcome: AgentOutcome,
    started: StartedProxy,
) -> (AgentOutcome, LlmRecord) {
    let record = finish_llm_proxy(LlmClient::Agent, started).await;
    (with_llm_side(outcome, &eval.agent, &record), record)
}

/// One run of the agent on `turn` (through `agent.llm`, when it has one; its first request
/// that matches no recording stops it).
pub(crate) async fn run_agent_on(
    eval: &Eval,
    turn: &TurnInput<'_>,
    agent: &AgentSide<'_>,
    server_failures: &mut Vec<ServerFailure>,
) -> AgentOutcome {
    let (target, options) = (agent.target, agent.options);
    let bound = agent_bound(&eval.agent, agent.deadline);
    let proxied = match proxied_servers(eval, agent.servers, options, target.run_dir).await {
        Ok(proxied) => proxied,
        Err((reason, failures)) => {
            server_failures.extend(failures);
            return AgentOutcome::failed(reason);
        }
    };
    let Some(started) = agent.llm else {
        return run_agent_with(eval, turn, &proxied, target, options, &[], bound).await;
    };
    let diverged = started.proxy.divergence_signal();
    let env = &started.env;
    tokio::select! {
        outcome = run_agent_with(eval, turn, &proxied, target, options, env, bound) => outcome,
        () = diverged.cancelled() => AgentOutcome::failed(
            "stopped by mcpeval at its first LLM request that matches no recording (below)",
        ),
    }
}

/// Time an ACP agent keeps before the task timeout: to be cancelled (`session/cancel`) and
/// reaped before the harness stops the run.
const ACP_STOP_MARGIN: Duration = Duration::from_secs(3);

/// The bound on the agent's run: its own timeout; for an ACP agent, which mcpeval cancels
/// itself, also the task timeout (less [`ACP_STOP_MARGIN`]).
fn agent_bound(agent: &Agent, deadline: Instant) -> Duration {
    let own = agent.timeout();
    match agent {
        Agent::Acp(_) => {
            let left = deadline.saturating_duration_since(Instant::now());
            own.min(left.saturating_sub(ACP_STOP_MARGIN).max(left / 2))
        }
        _ => own,
    }
}

/// What the LLM proxy saw, added to the agent's outcome: an agent whose last model call
/// the API refused fails with the status and message, even when it finished as if nothing
/// happened (Claude Code over ACP answers with the error's text). The turns of agents that
/// do not count them (ACP agents, Codex, Gemini CLI) are the model calls answered.
fn with_llm_side(mut outcome: AgentOutcome, agent: &Agent, record: &LlmRecord) -> AgentOutcome {
    let Some(done) = &record.outcome else {
        return outcome;
    };
    if let Some(refusal) = &done.last_refusal {
        let refused = format!("the agent's LLM API refused its last call: {refusal}");
        // Why it failed (a timeout, say) often follows from the refusal: say both.
        outcome.ended = outcome.ended.and_failed(refused);
    }
    let answered = done.replayed + done.recorded + done.passed_through;
    let counts_none = match agent {
        Agent::Acp(_) => true,
        agent => agent.builtin().is_some_and(|kind| !kind.counts_turns),
    };
    if counts_none && outcome.turns.is_none() && answered > 0 {
        outcome.turns = Some(u32::try_from(answered).unwrap_or(u32::MAX));
    }
    outcome
}

/// Each server as the agent reaches it, through its proxy, with its allowed tools; or the
/// reason the agent cannot run and how the server failed to list its tools.
async fn proxied_servers(
    eval: &Eval,
    servers: &[(McpServer, String)],
    options: &RunOptions,
    run_dir: &Path,
) -> Result<Vec<ProxiedServer>, (String, Vec<ServerFailure>)> {
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
                    Err(failures) => {
                        let shown: Vec<String> = failures.iter().map(ToString::to_string).collect();
                        let reason = format!(
                            "cannot list the tools of `{}` for the agent's allowed tools: {}",
                            server.name,
                            shown.join("; ")
                        );
                        return Err((reason, failures));
                    }
                }
            }
        };
        let mut allowed_tools = allowed_tools;
        if !allowed_tools.is_empty() {
            // The agent may pick a decoy; calling it is what the variant measures.
            allowed_tools.extend(crate::run::variant::decoy_names(eval, &server.name));
        }
        proxied.push(ProxiedServer {
            name: server.name.clone(),
            url: url.clone(),
            allowed_tools,
        });
    }
    Ok(proxied)
}

async fn run_agent_with(
    eval: &Eval,
    turn: &TurnInput<'_>,
    proxied: &[ProxiedServer],
    target: &LlmTarget<'_>,
    options: &RunOptions,
    llm_env: &[(String, String)],
    bound: Duration,
) -> AgentOutcome {
    let (run_dir, work_dir) = (target.run_dir, target.work_dir);
    let not_run = AgentOutcome::failed;
    let config_file = run_dir.join("mcp-config.json");
    if let Err(e) = write_agent_mcp_config(&config_file, proxied) {
        return not_run(format!(
            "cannot write the agent's MCP config {}: {e}",
            config_file.display()
        ));
    }
    let mut env: Vec<(String, String)> = (options.vars.iter())
        .chain(llm_env)
        .chain(&turn.env)
        .cloned()
        .collect();
    if let Some(skills) = eval.agent.skills()
        && let Err(e) = mount_skills(work_dir, &skills.mount_path, &eval.skill_sources)
    {
        return not_run(format!(
            "cannot mount the eval's skills at {}: {e}",
            skills.mount_path
        ));
    }
    if eval.agent.options().virtual_home {
        let home = run_dir.join("home");
        if let Err(e) = std::fs::create_dir_all(&home) {
            return not_run(format!(
                "cannot create the agent's HOME {}: {e}",
                home.display()
            ));
        }
        env.push(("HOME".into(), home.display().to_string()));
    }
    let run = AgentRun {
        prompt: turn.prompt,
        servers: proxied,
        mcp_config_file: &config_file,
        work_dir,
        private_dir: run_dir,
        env: &env,
        live: options.live,
        timeout: bound,
    };
    crate::agent::run_agent(&eval.agent, &run).await
}

/// One run of the agent (a task's, or a turn of its conversation, through the
/// conversation's LLM proxy `llm`): its outcome, version and LLM calls into the report (the
/// agent's span from its first turn on); its answer.
pub(crate) async fn agent_turn(
    shared: &TimedRun,
    eval: &Eval,
    turn: &TurnInput<'_>,
    (servers, target, options): (&[(McpServer, String)], &LlmTarget<'_>, &RunOptions),
    llm: Option<&StartedProxy>,
) -> String {
    let agent_start = std::time::Instant::now();
    let mut listing_failures = Vec::new();
    let (mut agent, llm) = match llm {
        None => {
            let failures = &mut listing_failures;
            run_agent(
                eval,
                turn,
                servers,
                target,
                options,
                shared.deadline,
                failures,
            )
            .await
        }
        Some(started) => {
            let side = AgentSide {
                servers,
                target,
                options,
                deadline: shared.deadline,
                llm: Some(started),
            };
            (
                run_agent_on(eval, turn, &side, &mut listing_failures).await,
                None,
            )
        }
    };
    shared.report().server_failures.extend(listing_failures);
    let span = shared.report().agent_span.map_or_else(
        || Span::since(agent_start),
        |first| Span::since(first.start),
    );
    shared.report().agent_span = Some(span);
    let version = version_of(eval, agent.version.clone(), target.run_dir, options).await;
    if let Some(reason) = &agent.cannot_continue {
        // Which agent, at which version, could not: a later one may.
        let at = version.as_deref().unwrap_or("an unknown version");
        let named = format!("{reason} (agent {}, {at})", eval.agent.name());
        agent.ended = crate::agent::Ended::Failed(named);
    }
    shared.report().agent_version = version;
    let answer = agent.answer.clone();
    shared.report().agent = Some(agent);
    shared.report().llm.extend(llm);
    answer
}

/// The agent's version: its Agent file's `getVersion` or `metadata.version`, what the agent
/// reported, its builtin kind's, else its program's `--version`.
async fn version_of(
    eval: &Eval,
    reported: Option<String>,
    run_dir: &Path,
    options: &RunOptions,
) -> Option<String> {
    let version = agent_version(eval.agent.options(), run_dir, &options.vars)
        .await
        .or(reported)
        .or_else(|| builtin_version(&eval.agent));
    match version {
        Some(version) => Some(version),
        None => program_version(&eval.agent, run_dir, &options.vars).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::AcpAgent;
    use crate::llm_proxy::{LlmProxyOutcome, ModeUsed, RecordMode};

    fn record(last_refusal: Option<&str>) -> LlmRecord {
        LlmRecord {
            who: LlmClient::Agent,
            api: LlmApi::Anthropic,
            outcome: Some(LlmProxyOutcome {
                mode: RecordMode::Passthrough,
                used: ModeUsed::Passthrough,
                cassette: "c.json".into(),
                replayed: 0,
                recorded: 0,
                passed_through: 2,
                divergence: None,
                unplayed: None,
                refused: Vec::new(),
                problems: Vec::new(),
                last_refusal: last_refusal.map(str::to_owned),
                turn_times: Vec::new(),
                usage: Vec::new(),
            }),
            failure: None,
        }
    }

    fn answered() -> AgentOutcome {
        AgentOutcome {
            ended: crate::plumbing::ended::Ended::Passed,
            answer: "API Error: 401 invalid x-api-key".into(),
            ..AgentOutcome::failed("")
        }
    }

    #[test]
    fn an_agent_that_answered_after_the_api_refused_its_last_call_fails() {
        let agent = Agent::Acp(Box::new(AcpAgent::claude_code(None, None)));
        let refusal = "401 Unauthorized: invalid x-api-key";
        let outcome = with_llm_side(answered(), &agent, &record(Some(refusal)));
        assert!(!outcome.passed());
        assert_eq!(
            outcome.reason(),
            "the agent's LLM API refused its last call: 401 Unauthorized: invalid x-api-key"
        );
        assert_eq!(outcome.turns, Some(2));
        let fine = with_llm_side(answered(), &agent, &record(None));
        assert!(fine.passed(), "{}", fine.reason());
        let failed = with_llm_side(
            AgentOutcome::failed("it hung"),
            &agent,
            &record(Some(refusal)),
        );
        assert!(
            failed
                .reason()
                .starts_with("it hung; the agent's LLM API refused"),
            "{}",
            failed.reason()
        );
    }
}
