//! The builtin agent `builtin.openai-agent`: an agent loop inside mcpeval over an
//! OpenAI-compatible Chat Completions API.
//!
//! It connects an MCP client to every proxied server, offers every allowed tool as a
//! function, and then loops: send the conversation, call the tools the reply asks for
//! (through the proxies, so the calls are recorded), feed their results back as text, until
//! a reply asks for no tool (its text is the answer) or `maxSteps` model turns are used up.
//! The LLM is reached only through [`ChatClient`], the seam for recording and replaying.

mod tools;

use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ServiceExt, model};
use serde_json::{Value, json};

use super::{AgentOutcome, AgentRun, ProxiedServer};
use crate::llm::{ChatClient, OpenAiClient, OpenAiConfig, TokenUsage};
use crate::text::shorten;
use tools::{
    OfferedTool, by_function, function_names, object_schema, parse_arguments, read_reply,
    result_text,
};

/// How much of a reply, of arguments or of a result the log and reasons quote.
const QUOTE_LIMIT: usize = 2000;

/// The default `maxSteps`: model turns before the agent gives up.
pub const DEFAULT_MAX_STEPS: u32 = 20;

/// What the agent is asked to do, besides the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiAgentOptions {
    /// The model, sent as `model` (required by the config).
    pub model: String,
    /// Model turns before the agent gives up (`maxSteps`, default 20).
    pub max_steps: u32,
}

impl OpenAiAgentOptions {
    /// Options for `model` with the default `maxSteps`.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

/// How one run of the agent ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenAiAgentRun {
    /// It reached a final answer.
    pub passed: bool,
    /// Why it failed, or empty.
    pub reason: String,
    /// The text of the final reply (or of the last reply with text, on failure).
    pub answer: String,
    /// Model turns used (requests answered by the API).
    pub turns: u32,
    /// Tool calls the model asked for.
    pub tool_calls: u32,
    /// Tokens used, summed over every reply.
    pub usage: TokenUsage,
    /// A readable log of the conversation, for failure messages.
    pub log: String,
    /// The full conversation as sent to the API (`messages`), final reply included.
    pub messages: Vec<Value>,
}

impl OpenAiAgentRun {
    /// The run as the harness's [`AgentOutcome`]: the log is its stdout.
    pub fn to_outcome(&self) -> AgentOutcome {
        AgentOutcome {
            tool_calls: Vec::new(),
            passed: self.passed,
            reason: self.reason.clone(),
            answer: self.answer.clone(),
            stdout: self.log.clone(),
            stderr: String::new(),
            usage: Some(self.usage),
        }
    }

    fn note(&mut self, line: String) {
        self.log.push_str(&line);
        self.log.push('\n');
    }
}

type Client = RunningService<RoleClient, ()>;

/// Runs the agent on `prompt` with the tools of `servers` (an empty `allowed_tools` list
/// means all of a server's tools), asking `llm`. Never panics; every failure is a failed
/// run with a reason.
pub async fn run_openai_agent(
    options: &OpenAiAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    llm: &dyn ChatClient,
) -> OpenAiAgentRun {
    let mut run = OpenAiAgentRun::default();
    let mut clients = Vec::new();
    let result = drive(options, prompt, servers, llm, &mut clients, &mut run).await;
    for client in clients {
        let _ = client.cancel().await;
    }
    match result {
        Ok(()) => run.passed = true,
        Err(reason) => {
            run.note(format!("failed: {reason}"));
            run.reason = reason;
        }
    }
    run
}

/// Runs the agent against the API configured in the environment (see
/// [`OpenAiConfig::from_env`]; `lookup` is usually `|name| std::env::var(name).ok()`). A
/// missing key or an unusable HTTP client is a failed run whose reason says so.
pub async fn run_openai_agent_from_env(
    options: &OpenAiAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    lookup: impl Fn(&str) -> Option<String>,
) -> OpenAiAgentRun {
    let client = OpenAiConfig::from_env(lookup).and_then(OpenAiClient::new);
    match client {
        Ok(client) => run_openai_agent(options, prompt, servers, &client).await,
        Err(error) => {
            let mut run = OpenAiAgentRun {
                reason: error.to_string(),
                ..OpenAiAgentRun::default()
            };
            run.note(format!("failed: {error}"));
            run
        }
    }
}

/// Runs the agent with `model` for the harness: the API from the run's environment, bounded
/// by the run's timeout.
pub async fn run_openai_agent_for(model: &str, run: &AgentRun<'_>) -> AgentOutcome {
    let options = OpenAiAgentOptions::new(model);
    let agent = run_openai_agent_from_env(&options, run.prompt, run.servers, |name| run.var(name));
    match tokio::time::timeout(run.timeout, agent).await {
        Ok(agent) => agent.to_outcome(),
        Err(_) => AgentOutcome::failed(format!(
            "the openai agent timed out after {}",
            humantime::format_duration(run.timeout)
        )),
    }
}

async fn drive(
    options: &OpenAiAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    llm: &dyn ChatClient,
    clients: &mut Vec<Client>,
    run: &mut OpenAiAgentRun,
) -> Result<(), String> {
    let offered = connect(servers, clients).await?;
    let functions: Vec<Value> = offered.iter().map(OfferedTool::to_function).collect();
    let lookup = by_function(&offered);
    run.messages
        .push(json!({"role": "user", "content": prompt}));
    for turn in 1..=options.max_steps {
        let mut request = json!({"model": options.model, "messages": run.messages});
        if !functions.is_empty() {
            request["tools"] = Value::Array(functions.clone());
        }
        let reply = llm
            .complete(&request)
            .await
            .map_err(|e| format!("turn {turn}: {e}"))?;
        run.turns = turn;
        run.usage.add_reply(&reply);
        let assistant = read_reply(&reply, turn).map_err(|problem| {
            format!(
                "turn {turn}: the LLM API sent a malformed reply: {problem}; the reply was: {}",
                shorten(&reply.to_string(), QUOTE_LIMIT)
            )
        })?;
        run.messages.push(assistant.to_message());
        if let Some(text) = assistant.content.as_deref().filter(|t| !t.is_empty()) {
            run.answer = text.to_owned();
            run.note(format!("turn {turn}: {}", shorten(text, QUOTE_LIMIT)));
        }
        if assistant.tool_calls.is_empty() {
            run.answer = assistant.content.unwrap_or_default();
            return Ok(());
        }
        for call in &assistant.tool_calls {
            run.tool_calls += 1;
            let text = match (
                lookup.get(call.name.as_str()),
                parse_arguments(&call.arguments),
            ) {
                (None, _) => format!(
                    "Error: there is no tool `{}`; the tools are: {}",
                    call.name,
                    lookup.keys().copied().collect::<Vec<_>>().join(", ")
                ),
                (Some(_), Err(problem)) => format!("Error: {problem}"),
                (Some(tool), Ok(arguments)) => match clients.get(tool.server_index) {
                    Some(client) => call_tool(client, &tool.tool, arguments).await,
                    None => format!("Error: `{}` is not connected", tool.server),
                },
            };
            run.note(format!(
                "turn {turn}: {} {} -> {}",
                call.name,
                shorten(&call.arguments.to_string(), QUOTE_LIMIT),
                shorten(&text, QUOTE_LIMIT)
            ));
            run.messages.push(json!({
                "role": "tool", "tool_call_id": call.id, "content": text
            }));
        }
    }
    Err(format!(
        "maxSteps ({}) reached without a final answer",
        options.max_steps
    ))
}

/// Connects to every server and lists its tools (all pages); returns the allowed ones.
async fn connect(
    servers: &[ProxiedServer],
    clients: &mut Vec<Client>,
) -> Result<Vec<OfferedTool>, String> {
    let mut found = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let client = ()
            .serve(StreamableHttpClientTransport::from_uri(server.url.as_str()))
            .await
            .map_err(|e| format!("cannot connect to `{}` at {}: {e}", server.name, server.url))?;
        let listed = client.list_all_tools().await;
        clients.push(client);
        let listed =
            listed.map_err(|e| format!("cannot list the tools of `{}`: {e}", server.name))?;
        for tool in listed {
            let tool = serde_json::to_value(&tool).unwrap_or(Value::Null);
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            if server.allowed_tools.is_empty() || server.allowed_tools.iter().any(|t| t == name) {
                found.push((index, name.to_owned(), tool.clone()));
            }
        }
    }
    let pairs: Vec<(String, String)> = found
        .iter()
        .map(|(index, name, _)| (servers[*index].name.clone(), name.clone()))
        .collect();
    let names = function_names(&pairs);
    Ok(found
        .into_iter()
        .zip(names)
        .map(|((index, name, tool), function)| OfferedTool {
            function,
            server: servers[index].name.clone(),
            server_index: index,
            tool: name,
            description: tool["description"].as_str().map(str::to_owned),
            parameters: object_schema(tool.get("inputSchema")),
        })
        .collect())
}

/// Calls one tool; the result (or the failure) as the text the model gets.
async fn call_tool(
    client: &Client,
    tool: &str,
    arguments: serde_json::Map<String, Value>,
) -> String {
    let params = json!({"name": tool, "arguments": arguments});
    let params = match serde_json::from_value::<model::CallToolRequestParams>(params) {
        Ok(params) => params,
        Err(e) => return format!("Error: cannot build the call of `{tool}`: {e}"),
    };
    match client.call_tool_once(params).await {
        Ok(model::CallToolResponse::Complete(result)) => {
            result_text(&serde_json::to_value(&result).unwrap_or(Value::Null))
        }
        Ok(_) => format!(
            "Error: `{tool}` asked for client input or started a task, which this agent does not support"
        ),
        Err(ServiceError::McpError(error)) => format!("Error: {}", error.message),
        Err(error) => format!("Error: calling `{tool}` failed: {error}"),
    }
}
