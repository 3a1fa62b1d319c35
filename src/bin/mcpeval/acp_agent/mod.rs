//! `mcpeval acp-agent`: a deterministic agent that speaks the Agent Client Protocol over
//! stdio (newline-delimited JSON-RPC), for testing ACP clients (mcpeval's own, in its
//! tests) without an LLM. Its sessions connect to the HTTP MCP servers `session/new` names
//! (or `session/load`, which continues its one session, `acp-agent-session`, in a new
//! process); each prompt is a script, one directive per line (other lines are ignored):
//!
//! ```text
//! call SERVER TOOL [JSON]   a tool_call update, a permission request, then the call
//!                           (when allowed) and a tool_call_update with its result
//! say TEXT                  an agent_message_chunk (a tool call in between starts a new
//!                           message)
//! say-session               says "new session" or "loaded session" (session/load)
//! skill NAME                a tool call of its own `Skill` tool with {"skill": NAME}
//! read-file PATH            fs/read_text_file (a relative PATH from the session's cwd);
//!                           says the content or the error
//! sleep SECONDS             waits (a session/cancel ends the turn: stopReason cancelled)
//! hang                      waits for ever, ignoring session/cancel
//! exit CODE                 exits at once with this code
//! ```
//! The prompt's answer says `stopReason` and `usage` (words of the prompt and of the
//! messages). With `--no-load-session` it does not offer `session/load`.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::Context;
use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use mcpeval::script_agent::call_tool;

mod script;

use script::{PromptDirective, parse};

/// Serves ACP on stdin/stdout until stdin ends.
pub async fn serve(loads_sessions: bool) -> anyhow::Result<()> {
    let (sender, incoming) = mpsc::channel(64);
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            match serde_json::from_str::<Value>(&line) {
                Ok(message) => {
                    if sender.send(message).await.is_err() {
                        return;
                    }
                }
                Err(error) => eprintln!("acp-agent: a line that is not JSON: {error}"),
            }
        }
    });
    eprintln!("acp-agent: pid {}", std::process::id());
    let mut agent = DeterministicAcpAgent {
        incoming,
        stdout: tokio::io::stdout(),
        next_id: 0,
        servers: BTreeMap::new(),
        cwd: std::path::PathBuf::new(),
        clients: BTreeMap::new(),
        cancelled: false,
        loaded: false,
        loads_sessions,
    };
    agent.run().await
}

/// The id of the one session it hands out.
const SESSION_ID: &str = "acp-agent-session";

struct DeterministicAcpAgent {
    incoming: mpsc::Receiver<Value>,
    stdout: tokio::io::Stdout,
    next_id: u64,
    /// The MCP servers of the session: name → URL.
    servers: BTreeMap<String, String>,
    /// The session's working directory (`read-file` resolves relative paths against it).
    cwd: std::path::PathBuf,
    clients: BTreeMap<String, RunningService<RoleClient, ()>>,
    cancelled: bool,
    /// Its session was loaded (`session/load`), not made.
    loaded: bool,
    /// Whether it offers `session/load` (`--no-load-session`: not).
    loads_sessions: bool,
}

impl DeterministicAcpAgent {
    async fn run(&mut self) -> anyhow::Result<()> {
        while let Some(message) = self.incoming.recv().await {
            let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id")) else {
                continue; // notifications outside a prompt, answers nobody waits for
            };
            let id = id.clone();
            let params = &message["params"];
            let answer = match method {
                "initialize" => Ok(json!({
                    "protocolVersion": 1,
                    "agentCapabilities": {
                        "loadSession": self.loads_sessions,
                        "promptCapabilities": {},
                        "mcpCapabilities": {"http": true, "sse": false}
                    },
                    "agentInfo": {"name": "mcpeval-acp-agent", "version": env!("CARGO_PKG_VERSION")},
                    "authMethods": []
                })),
                "session/new" => Ok(self.new_session(params)),
                "session/load" => self.load_session(params),
                "session/prompt" => Ok(self.prompt(params).await?),
                other => Err(json!({"code": -32601, "message": format!("no method {other}")})),
            };
            let reply = match answer {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
            };
            self.write(&reply).await?;
        }
        Ok(())
    }

    /// Continues its one session in this process: the servers and cwd as given.
    fn load_session(&mut self, params: &Value) -> Result<Value, Value> {
        if params["sessionId"] != SESSION_ID {
            let message = format!("no session {}", params["sessionId"]);
            return Err(json!({"code": -32602, "message": message}));
        }
        self.new_session(params);
        self.loaded = true;
        Ok(Value::Null)
    }

    fn new_session(&mut self, params: &Value) -> Value {
        self.servers = params["mcpServers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| {
                Some((
                    s["name"].as_str()?.to_owned(),
                    s["url"].as_str()?.to_owned(),
                ))
            })
            .collect();
        self.cwd = params["cwd"].as_str().unwrap_or_default().into();
        json!({"sessionId": SESSION_ID})
    }

    /// Runs the prompt's script: its answer.
    async fn prompt(&mut self, params: &Value) -> anyhow::Result<Value> {
        let text: String = params["prompt"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let session = params["sessionId"].clone();
        self.cancelled = false;
        let mut said_words = 0;
        for (index, directive) in parse(&text)?.into_iter().enumerate() {
            if self.cancelled {
                break;
            }
            let call_id = format!("call_{}", index + 1);
            match directive {
                PromptDirective::SaySession => {
                    let text = if self.loaded {
                        "loaded session"
                    } else {
                        "new session"
                    };
                    said_words += self.say(&session, text).await?;
                }
                PromptDirective::Say(text) => {
                    said_words += self.say(&session, &text).await?;
                }
                PromptDirective::Skill(name) => {
                    self.update(
                        &session,
                        json!({"sessionUpdate": "tool_call", "toolCallId": call_id,
                        "title": "Skill", "kind": "other", "status": "completed",
                        "rawInput": {"skill": name}}),
                    )
                    .await?;
                }
                PromptDirective::Call {
                    server,
                    tool,
                    arguments,
                } => {
                    self.call(&session, &call_id, &server, &tool, arguments)
                        .await?;
                }
                PromptDirective::ReadFile(path) => self.read_file(&session, &path).await?,
                PromptDirective::Sleep(duration) => self.sleep(duration).await,
                PromptDirective::Hang => std::future::pending::<()>().await,
                PromptDirective::Exit(code) => {
                    // At once: the runtime would wait for the thread reading stdin.
                    self.stdout.flush().await?;
                    std::process::exit(code);
                }
            }
        }
        let stop = if self.cancelled {
            "cancelled"
        } else {
            "end_turn"
        };
        let input = text.split_whitespace().count();
        Ok(
            json!({"stopReason": stop, "usage": {"inputTokens": input, "outputTokens": said_words,
            "totalTokens": input + said_words}}),
        )
    }

    /// `read-file PATH`: the client asked for the file (`fs/read_text_file`), and what it
    /// answered said back as a message.
    async fn read_file(&mut self, session: &Value, path: &str) -> anyhow::Result<()> {
        let path = self.cwd.join(path).display().to_string();
        let id = self
            .request(
                "fs/read_text_file",
                json!({"sessionId": session, "path": path}),
            )
            .await?;
        let answer = self.answer_to(id).await;
        let text = match (answer.get("result"), answer.get("error")) {
            (Some(result), _) => {
                format!("read {path}: {}", result["content"].as_str().unwrap_or(""))
            }
            (_, Some(error)) => format!(
                "cannot read {path}: {}",
                error["message"].as_str().unwrap_or("")
            ),
            _ => format!("cannot read {path}: no answer"),
        };
        self.update(
            session,
            json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}}),
        )
        .await
    }

    /// A tool call: announced, permission asked, then made when allowed.
    async fn call(
        &mut self,
        session: &Value,
        call_id: &str,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> anyhow::Result<()> {
        let title = format!("mcp__{server}__{tool}");
        self.update(
            session,
            json!({"sessionUpdate": "tool_call", "toolCallId": call_id,
            "title": title, "kind": "other", "status": "pending", "rawInput": arguments}),
        )
        .await?;
        let permission = json!({"sessionId": session,
        "toolCall": {"toolCallId": call_id, "title": title, "rawInput": arguments},
        "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"}
        ]});
        let id = self
            .request("session/request_permission", permission)
            .await?;
        let answer = self.answer_to(id).await;
        let allowed = answer["result"]["outcome"]["optionId"] == "allow";
        let (status, output) = if !allowed {
            ("failed", json!("permission refused"))
        } else {
            match self.client(server).await {
                Ok(client) => match call_tool(client, tool, &Some(arguments)).await {
                    Ok(result) => ("completed", result),
                    Err(error) => ("failed", json!(error)),
                },
                Err(error) => ("failed", json!(format!("{error:#}"))),
            }
        };
        self.update(
            session,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
            "status": status, "rawOutput": output}),
        )
        .await
    }

    /// The MCP client of `server`, connected on first use.
    async fn client(&mut self, server: &str) -> anyhow::Result<&RunningService<RoleClient, ()>> {
        if !self.clients.contains_key(server) {
            let url = self
                .servers
                .get(server)
                .with_context(|| format!("no MCP server `{server}` in the session"))?;
            let client = ()
                .serve(StreamableHttpClientTransport::from_uri(url.as_str()))
                .await
                .with_context(|| format!("cannot connect to `{server}` at {url}"))?;
            self.clients.insert(server.to_owned(), client);
        }
        Ok(&self.clients[server])
    }

    /// Waits `duration`, or until `session/cancel`.
    async fn sleep(&mut self, duration: Duration) {
        let sleep = tokio::time::sleep(duration);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => return,
                message = self.incoming.recv() => match message {
                    Some(message) if message["method"] == "session/cancel" => {
                        self.cancelled = true;
                        return;
                    }
                    Some(_) => {}
                    None => return,
                },
            }
        }
    }

    /// Says `text` to the client (an `agent_message_chunk`); its words.
    async fn say(&mut self, session: &Value, text: &str) -> anyhow::Result<usize> {
        let chunk = json!({"sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": text}});
        self.update(session, chunk).await?;
        Ok(text.split_whitespace().count())
    }

    async fn update(&mut self, session: &Value, update: Value) -> anyhow::Result<()> {
        let message = json!({"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session, "update": update}});
        self.write(&message).await
    }

    async fn request(&mut self, method: &str, params: Value) -> anyhow::Result<u64> {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        Ok(id)
    }

    /// The client's answer to request `id` (a `session/cancel` meanwhile is noted).
    async fn answer_to(&mut self, id: u64) -> Value {
        while let Some(message) = self.incoming.recv().await {
            if message["method"] == "session/cancel" {
                self.cancelled = true;
            } else if message.get("method").is_none() && message["id"].as_u64() == Some(id) {
                return message;
            }
        }
        Value::Null
    }

    async fn write(&mut self, message: &Value) -> anyhow::Result<()> {
        let line = format!("{message}\n");
        self.stdout.write_all(line.as_bytes()).await?;
        self.stdout.flush().await?;
        Ok(())
    }
}
