//! The builtin agent `builtin.llm-agent` (and its deprecated aliases `builtin.openai-agent`
//! and `builtin.openai-acp`): an agent loop inside mcpeval over an LLM API — OpenAI
//! Chat Completions, Anthropic Messages or Gemini, mcpchecker's `openai:`, `anthropic:`
//! and `gemini:`/`google:` providers.
//!
//! It connects an MCP client to every proxied server, offers every allowed tool as a
//! function, and then loops: send the conversation, call the tools the reply asks for
//! (through the proxies, so the calls are recorded), feed their results back as text, until
//! a reply asks for no tool (its text is the answer) or `maxSteps` model turns are used up.
//! One loop over a provider-neutral conversation (`conversation.rs`); the providers differ
//! only in their wire adapters (`wire/`). The LLM is reached only through [`ChatClient`],
//! the seam for recording and replaying.

mod conversation;
mod mcp;
mod tools;
mod wire;

use std::collections::BTreeMap;

use super::contract::{AgentOutcome, AgentRun, ProxiedServer};
use crate::llm::{ChatClient, LlmConfig, Provider, TokenUsage};
use crate::plumbing::ended::Ended;
use crate::plumbing::text::shorten;
pub use conversation::{AssistantTurn, Item, ToolCall, ToolResult};
use mcp::{McpClient, call_tool, connect};
use tools::{OfferedTool, by_function, parse_arguments};

/// How much of a reply, of arguments or of a result the log and reasons quote.
const QUOTE_LIMIT: usize = 2000;

/// The default `maxSteps`: model turns before the agent gives up.
pub const DEFAULT_MAX_STEPS: u32 = 20;

/// The default `max_tokens` of an Anthropic request (which the API requires).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// What the agent is asked to do, besides the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmAgentOptions {
    /// The provider, whose API the requests are shaped for.
    pub provider: Provider,
    /// The model, without its provider (required by the config).
    pub model: String,
    /// Model turns before the agent gives up (`maxSteps`, default 20).
    pub max_steps: u32,
    /// The most tokens one reply may use, where the API asks for it (Anthropic; default
    /// 4096).
    pub max_tokens: u32,
}

impl LlmAgentOptions {
    /// Options for `provider`'s `model` with the default `maxSteps` and `max_tokens`.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            max_steps: DEFAULT_MAX_STEPS,
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }
}

/// How one run of the agent ended.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmAgentRun {
    /// Whether it reached a final answer, or why not.
    pub ended: Ended,
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
    /// The whole conversation, final reply included.
    pub conversation: Vec<Item>,
}

impl Default for LlmAgentRun {
    /// A run that has not ended (yet): each way it ends sets `ended`.
    fn default() -> Self {
        LlmAgentRun {
            ended: Ended::Failed("the agent did not finish".into()),
            answer: String::new(),
            turns: 0,
            tool_calls: 0,
            usage: TokenUsage::default(),
            log: String::new(),
            conversation: Vec::new(),
        }
    }
}

impl LlmAgentRun {
    /// Whether it reached a final answer.
    pub fn passed(&self) -> bool {
        self.ended.passed()
    }

    /// Why it failed; empty when it passed.
    pub fn reason(&self) -> &str {
        self.ended.reason()
    }

    /// The run as the harness's [`AgentOutcome`]: the log is its stdout.
    pub fn to_outcome(&self) -> AgentOutcome {
        AgentOutcome {
            tool_calls: Vec::new(),
            ended: self.ended.clone(),
            answer: self.answer.clone(),
            stdout: self.log.clone(),
            stderr: String::new(),
            usage: Some(self.usage),
            turns: Some(self.turns),
            tool_call_count: Some(self.tool_calls),
            version: None,
            cannot_continue: None,
        }
    }

    fn failed(reason: String) -> Self {
        let mut run = LlmAgentRun::default();
        run.note(format!("failed: {reason}"));
        run.ended = Ended::Failed(reason);
        run
    }

    fn note(&mut self, line: String) {
        self.log.push_str(&line);
        self.log.push('\n');
    }
}

/// Runs the agent on `prompt` with the tools of `servers` (an empty `allowed_tools` list
/// means all of a server's tools), asking `llm`, which must speak `options.provider`'s
/// API. Never panics; every failure is a failed run with a reason.
pub async fn run_llm_agent(
    options: &LlmAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    llm: &dyn ChatClient,
) -> LlmAgentRun {
    continue_llm_agent(options, Vec::new(), prompt, servers, llm).await
}

/// [`run_llm_agent`] continuing `history`, the conversation of the turns before (empty for
/// the first): the model sees it, then `prompt`.
async fn continue_llm_agent(
    options: &LlmAgentOptions,
    history: Vec<Item>,
    prompt: &str,
    servers: &[ProxiedServer],
    llm: &dyn ChatClient,
) -> LlmAgentRun {
    let mut run = LlmAgentRun {
        conversation: history,
        ..LlmAgentRun::default()
    };
    let mut clients = Vec::new();
    let result = drive(options, prompt, servers, llm, &mut clients, &mut run).await;
    for client in clients {
        let _ = client.cancel().await;
    }
    match result {
        Ok(()) => run.ended = Ended::Passed,
        Err(reason) => {
            run.note(format!("failed: {reason}"));
            run.ended = Ended::Failed(reason);
        }
    }
    run
}

/// Runs the agent against its provider's API as the environment configures it (see
/// [`LlmConfig::from_env`]; `lookup` is usually `|name| std::env::var(name).ok()`). A
/// missing key or an unusable HTTP client is a failed run whose reason says so.
pub async fn run_llm_agent_from_env(
    options: &LlmAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    lookup: impl Fn(&str) -> Option<String>,
) -> LlmAgentRun {
    let client = LlmConfig::from_env(options.provider, lookup)
        .and_then(|config| options.provider.client(config, &options.model));
    match client {
        Ok(client) => run_llm_agent(options, prompt, servers, client.as_ref()).await,
        Err(error) => LlmAgentRun::failed(error.to_string()),
    }
}

/// Runs the agent with `provider`'s `model` for the harness: the API from the run's
/// environment, bounded by the run's timeout. In a conversation (`MCPEVAL_TURN` set) it
/// keeps its messages in the run's private directory ([`CONVERSATION_FILE`]) and a later
/// turn continues them.
pub async fn run_llm_agent_for(
    provider: Provider,
    model: &str,
    run: &AgentRun<'_>,
) -> AgentOutcome {
    let options = LlmAgentOptions::new(provider, model);
    let turn = run.turn();
    let file = run.private_dir.join(CONVERSATION_FILE);
    let history = match turn {
        Some(turn) if turn > 1 => match read_history(&file) {
            Ok(history) => history,
            Err(why) => return AgentOutcome::failed(why),
        },
        _ => Vec::new(),
    };
    let client = LlmConfig::from_env(options.provider, |name| run.var(name))
        .and_then(|config| options.provider.client(config, &options.model));
    let client = match client {
        Ok(client) => client,
        Err(error) => return LlmAgentRun::failed(error.to_string()).to_outcome(),
    };
    let agent = continue_llm_agent(&options, history, run.prompt, run.servers, client.as_ref());
    match tokio::time::timeout(run.timeout, agent).await {
        Ok(agent) => {
            if turn.is_some() {
                let written = serde_json::to_vec(&agent.conversation)
                    .map_err(std::io::Error::other)
                    .and_then(|json| std::fs::write(&file, json));
                if let Err(error) = written {
                    let why = format!(
                        "cannot keep the conversation in {}: {error}",
                        file.display()
                    );
                    return AgentOutcome::failed(why);
                }
            }
            agent.to_outcome()
        }
        Err(_) => AgentOutcome::failed(format!(
            "the llm-agent timed out after {}",
            humantime::format_duration(run.timeout)
        )),
    }
}

/// Where the llm-agent keeps a conversation's messages between turns, in the run's private
/// directory.
pub const CONVERSATION_FILE: &str = "llm-agent-conversation.json";

/// The messages of the turns before, as the last turn left them.
fn read_history(file: &std::path::Path) -> Result<Vec<Item>, String> {
    let text = std::fs::read(file).map_err(|error| {
        format!(
            "the conversation of the turns before is missing ({}): {error}",
            file.display()
        )
    })?;
    serde_json::from_slice(&text).map_err(|error| {
        format!(
            "the conversation in {} is unreadable: {error}",
            file.display()
        )
    })
}

/// What a tool call of the model gets back, and whether it is an error: the tool's result
/// through its server's client, or the error of a tool that does not exist, arguments that
/// are not a JSON object, or a server that is not connected.
async fn answer_call(
    call: &ToolCall,
    lookup: &BTreeMap<&str, &OfferedTool>,
    clients: &[McpClient],
) -> (String, bool) {
    match (
        lookup.get(call.name.as_str()),
        parse_arguments(&call.arguments),
    ) {
        (None, _) => (
            format!(
                "Error: there is no tool `{}`; the tools are: {}",
                call.name,
                lookup.keys().copied().collect::<Vec<_>>().join(", ")
            ),
            true,
        ),
        (Some(_), Err(problem)) => (format!("Error: {problem}"), true),
        (Some(tool), Ok(arguments)) => match clients.get(tool.server_index) {
            Some(client) => call_tool(client, &tool.tool, arguments).await,
            None => (format!("Error: `{}` is not connected", tool.server), true),
        },
    }
}

/// The agent loop: the prompt, then turn after turn the model's reply and the answers to its
/// tool calls, until a reply without calls (the answer) or `maxSteps`.
async fn drive(
    options: &LlmAgentOptions,
    prompt: &str,
    servers: &[ProxiedServer],
    llm: &dyn ChatClient,
    clients: &mut Vec<McpClient>,
    run: &mut LlmAgentRun,
) -> Result<(), String> {
    let provider = options.provider;
    let offered = connect(servers, clients).await?;
    let lookup = by_function(&offered);
    run.conversation.push(Item::User(prompt.to_owned()));
    for turn in 1..=options.max_steps {
        let request = wire::request(
            provider,
            &options.model,
            options.max_tokens,
            &offered,
            &run.conversation,
        );
        let reply = llm
            .complete(&request)
            .await
            .map_err(|e| format!("turn {turn}: {e}"))?;
        run.turns = turn;
        run.usage.add(wire::usage(provider, &reply));
        let assistant = wire::read_reply(provider, &reply, turn).map_err(|problem| {
            format!(
                "turn {turn}: {} sent a malformed reply: {problem}; the reply was: {}",
                provider.api_name(),
                shorten(&reply.to_string(), QUOTE_LIMIT)
            )
        })?;
        if let Some(text) = assistant.text.as_deref().filter(|t| !t.is_empty()) {
            run.answer = text.to_owned();
            run.note(format!("turn {turn}: {}", shorten(text, QUOTE_LIMIT)));
        }
        let calls = assistant.calls.clone();
        let final_text = assistant.text.clone();
        run.conversation.push(Item::Assistant(assistant));
        if calls.is_empty() {
            run.answer = final_text.unwrap_or_default();
            return Ok(());
        }
        let mut results = Vec::with_capacity(calls.len());
        for call in &calls {
            run.tool_calls += 1;
            let (text, is_error) = answer_call(call, &lookup, clients).await;
            run.note(format!(
                "turn {turn}: {} {} -> {}",
                call.name,
                shorten(&call.arguments.to_string(), QUOTE_LIMIT),
                shorten(&text, QUOTE_LIMIT)
            ));
            results.push(ToolResult {
                call_id: call.id.clone(),
                id_from_api: call.id_from_api,
                name: call.name.clone(),
                text,
                is_error,
            });
        }
        run.conversation.push(Item::ToolResults(results));
    }
    Err(format!(
        "maxSteps ({}) reached without a final answer",
        options.max_steps
    ))
}
