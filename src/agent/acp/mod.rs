//! ACP agents: a program that speaks the Agent Client Protocol over stdio (an Agent file's
//! `acp: {cmd, args}`, or `builtin.claude-code` over ACP through `claude-agent-acp`), one
//! process per task run. The client says `initialize` (it can read text files, nothing
//! else), opens one session (`session/new`) in the run's fresh working directory with the
//! proxies as HTTP MCP servers (a conversation's later turn loads that session instead,
//! `session/load`, when the agent offers it), sends the prompt once (`session/prompt`) and keeps what the
//! `session/update` notifications say; it answers permission requests by the allowed tools
//! and serves `fs/read_text_file` inside the working directory only. At its time bound it
//! sends `session/cancel`, waits briefly, then kills the process group.
//!
//! The JSON-RPC is written here rather than with the `agent-client-protocol` crate: the
//! crate's client API changed shape in each recent major version (0.10's `?Send` traits on
//! a `LocalSet`, 0.11's builders, 2.x and 5.x's versioned roles), its futures are not all
//! `Send` (a task run is a spawned tokio task), and its process helper spawns the agent
//! outside our process groups. The client needs four requests and two handlers.

mod connection;
mod outcome;
mod session;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use self::connection::{AcpIncoming, AcpLaunch, AgentProcess};
use self::outcome::outcome_of;
#[cfg(test)]
use self::outcome::{prompt_usage, version_of};
use self::session::AcpSession;
use super::contract::{AgentOutcome, AgentRun, CannotContinue};
use crate::config::AcpAgent;

/// The ACP protocol version the client speaks.
const PROTOCOL_VERSION: u64 = 1;

/// How long a cancelled agent gets to answer its prompt before its group is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// Where a conversation keeps the ACP session's id between turns, in the run's private
/// directory.
const SESSION_FILE: &str = "acp-session-id";

/// How long an agent gets to exit by itself once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// Runs `agent` on `run`'s prompt: one process, one session, one prompt.
pub async fn run_acp_agent(agent: &AcpAgent, run: &AgentRun<'_>) -> AgentOutcome {
    let program = match find_program(agent, run) {
        Ok(program) => program,
        Err(reason) => return AgentOutcome::failed(reason),
    };
    let env = match acp_env(agent, run) {
        Ok(env) => env,
        Err(reason) => return AgentOutcome::failed(reason),
    };
    let launch = AcpLaunch {
        program,
        args: agent.args.clone(),
        env,
        cwd: run.work_dir.to_path_buf(),
        live: run.live,
    };
    let process = match AgentProcess::spawn(&launch) {
        Ok(process) => process,
        Err(e) => {
            return AgentOutcome::failed(format!("cannot start `{}`: {e}", agent.cmd));
        }
    };
    let mut conversation = Conversation {
        process,
        session: AcpSession::new(run.work_dir, run.servers),
        session_id: None,
        waiting_for: None,
        agent_info: None,
    };
    let ended = match tokio::time::timeout(run.timeout, conversation.converse(run)).await {
        Ok(ended) => ended,
        Err(_) => {
            conversation.cancel().await;
            Err(Stop::Reason(format!(
                "the ACP agent did not finish in the {} it had (its timeout, or what the task \
                 timeout left): mcpeval sent session/cancel and then killed its process group",
                humantime::format_duration(whole(run.timeout))
            )))
        }
    };
    let status = conversation.process.finish(EXIT_GRACE).await;
    outcome_of(conversation, ended, status)
}

/// `d` in whole seconds (whole milliseconds under a second), for messages.
fn whole(d: Duration) -> Duration {
    match d.as_secs() {
        0 => Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        secs => Duration::from_secs(secs),
    }
}

/// Why a conversation ended before its prompt was answered.
enum Stop {
    /// The agent's output ended before it answered `method`.
    Gone(&'static str),
    /// A later turn of a conversation that the agent cannot take.
    CannotContinue(CannotContinue),
    /// Anything else, said in full.
    Reason(String),
}

/// One process, one session.
struct Conversation {
    process: AgentProcess,
    session: AcpSession,
    session_id: Option<String>,
    /// The request whose answer is awaited (the prompt's, once sent).
    waiting_for: Option<u64>,
    /// `agentInfo` of the `initialize` answer.
    agent_info: Option<Value>,
}

impl Conversation {
    /// `initialize`, `session/new`, `session/prompt`: the prompt's answer.
    async fn converse(&mut self, run: &AgentRun<'_>) -> Result<Value, Stop> {
        let init = self
            .call(
                "initialize",
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "clientCapabilities": {
                        "fs": {"readTextFile": true, "writeTextFile": false},
                        "terminal": false
                    },
                    "clientInfo": {"name": "mcpeval", "version": env!("CARGO_PKG_VERSION")}
                }),
            )
            .await?;
        self.agent_info = init.get("agentInfo").cloned();
        if !run.servers.is_empty() && init["agentCapabilities"]["mcpCapabilities"]["http"] != true {
            return Err(Stop::Reason(
                "the ACP agent takes no MCP servers over HTTP (its `initialize` answer lacks \
                 agentCapabilities.mcpCapabilities.http), and mcpeval's proxies are HTTP servers"
                    .into(),
            ));
        }
        let servers: Vec<Value> = run
            .servers
            .iter()
            .map(|s| json!({"type": "http", "name": s.name, "url": s.url, "headers": []}))
            .collect();
        let session_id = match run.turn() {
            Some(turn) if turn > 1 => self.load_session(run, &init, servers, turn).await?,
            turn => {
                let new = self
                    .call(
                        "session/new",
                        json!({"cwd": run.work_dir, "mcpServers": servers}),
                    )
                    .await?;
                let Some(session_id) = new["sessionId"].as_str() else {
                    return Err(Stop::Reason(format!(
                        "the ACP agent's `session/new` answer has no sessionId: {}",
                        crate::plumbing::text::shorten(&new.to_string(), 300)
                    )));
                };
                if turn.is_some() {
                    let _ = std::fs::write(run.private_dir.join(SESSION_FILE), session_id);
                }
                session_id.to_owned()
            }
        };
        self.session_id = Some(session_id.clone());
        let prompt =
            json!({"sessionId": session_id, "prompt": [{"type": "text", "text": run.prompt}]});
        self.call("session/prompt", prompt).await
    }

    /// A later turn of a conversation: the session of the turns before, loaded
    /// (`session/load`) in this process; what the agent replays of it is not this turn's.
    async fn load_session(
        &mut self,
        run: &AgentRun<'_>,
        init: &Value,
        servers: Vec<Value>,
        turn: u32,
    ) -> Result<String, Stop> {
        if init["agentCapabilities"]["loadSession"] != true {
            return Err(Stop::CannotContinue(CannotContinue {
                turn,
                why: "the ACP agent does not load sessions (its `initialize` answer lacks \
                      agentCapabilities.loadSession)"
                    .into(),
            }));
        }
        let session_id = std::fs::read_to_string(run.private_dir.join(SESSION_FILE))
            .ok()
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| {
                let why = format!("the session of turn {} is unknown", turn - 1);
                Stop::CannotContinue(CannotContinue { turn, why })
            })?;
        let session_id = session_id.trim().to_owned();
        let load = json!({"sessionId": session_id, "cwd": run.work_dir, "mcpServers": servers});
        self.call("session/load", load).await?;
        self.session = AcpSession::new(run.work_dir, run.servers);
        Ok(session_id)
    }

    /// Sends a request and answers what the agent asks meanwhile, until its answer comes.
    async fn call(&mut self, method: &'static str, params: Value) -> Result<Value, Stop> {
        let id = self
            .process
            .request(method, params)
            .await
            .map_err(|_| Stop::Gone(method))?;
        self.waiting_for = Some(id);
        self.wait_for(id, method).await
    }

    async fn wait_for(&mut self, id: u64, method: &'static str) -> Result<Value, Stop> {
        loop {
            let message = match self.process.next().await {
                AcpIncoming::Message(message) => message,
                AcpIncoming::Unreadable(what) => {
                    self.session.transcript.push(format!("unreadable: {what}"));
                    continue;
                }
                AcpIncoming::Closed => return Err(Stop::Gone(method)),
            };
            let Some(kind) = message["method"].as_str() else {
                if message["id"].as_u64() != Some(id) {
                    continue;
                }
                return match message.get("error") {
                    Some(error) => Err(Stop::Reason(rpc_error(method, error))),
                    None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
            };
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            match message.get("id") {
                Some(request_id) => {
                    let answer = self.session.answer_request(kind, &params);
                    let _ = self.process.respond(request_id.clone(), answer).await;
                }
                None if kind == "session/update" => self.session.update(&params["update"]),
                None => {}
            }
        }
    }

    /// `session/cancel`, then up to [`CANCEL_GRACE`] for the prompt's answer.
    async fn cancel(&mut self) {
        self.session.cancelled = true;
        let Some(session_id) = self.session_id.clone() else {
            return;
        };
        let cancel = json!({"sessionId": session_id});
        if self.process.notify("session/cancel", cancel).await.is_err() {
            return;
        }
        if let Some(id) = self.waiting_for {
            let _ = tokio::time::timeout(CANCEL_GRACE, self.wait_for(id, "session/prompt")).await;
        }
    }
}

/// `the ACP agent answered session/new with error -32603: …`
fn rpc_error(method: &str, error: &Value) -> String {
    let code = error["code"].as_i64().unwrap_or(0);
    let message = error["message"].as_str().unwrap_or("(no message)");
    let mut text = format!("the ACP agent answered `{method}` with error {code}: {message}");
    match error.get("data") {
        Some(data) if !data.is_null() => {
            text.push_str(&format!(
                " ({})",
                crate::plumbing::text::shorten(&data.to_string(), 300)
            ));
        }
        _ => {}
    }
    text
}

/// The program: `cmd` itself when it is a path, else found on the agent's `PATH`; a
/// missing one is an error that says where it comes from.
fn find_program(agent: &AcpAgent, run: &AgentRun<'_>) -> Result<PathBuf, String> {
    let cmd = &agent.cmd;
    if cmd.contains('/') {
        let path = PathBuf::from(cmd);
        return match path.is_file() {
            true => Ok(path),
            false => Err(format!(
                "`{cmd}` (acp.cmd of the Agent file) does not exist"
            )),
        };
    }
    let path = run.var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(cmd))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| match &agent.program {
            Some(program) => format!(
                "`{cmd}` is not on PATH: builtin.{} over ACP runs through {}, install it with \
                 `npm install -g {}@{}`",
                agent.name, program.display, program.package, program.tested_version
            ),
            None => format!("`{cmd}` (acp.cmd of the Agent file) is not on PATH"),
        })
}

/// The agent's environment: the run's, the Agent file's `commands.env`, and for Claude Code
/// a private `CLAUDE_CONFIG_DIR`, no non-essential traffic, `ANTHROPIC_MODEL` and
/// `IS_SANDBOX=1` (as root Claude Code refuses to run without it).
fn acp_env(agent: &AcpAgent, run: &AgentRun<'_>) -> Result<Vec<(String, String)>, String> {
    let mut env: Vec<(String, String)> = run.env.to_vec();
    env.extend(agent.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    if agent.claude_code {
        let config_dir = run.private_dir.join("claude-config");
        std::fs::create_dir_all(&config_dir)
            .map_err(|e| format!("cannot create {}: {e}", config_dir.display()))?;
        env.push(("CLAUDE_CONFIG_DIR".into(), config_dir.display().to_string()));
        env.push((
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
            "1".into(),
        ));
        if let Some(model) = &agent.model {
            env.push(("ANTHROPIC_MODEL".into(), model.clone()));
        }
        // Always, not only as root: what reaches the model stays the same on every
        // machine (a cassette recorded as root replays elsewhere).
        env.push(("IS_SANDBOX".into(), "1".into()));
    }
    Ok(env)
}

#[cfg(test)]
mod tests;
