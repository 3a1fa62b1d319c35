//! `builtin.codex`: the real Codex CLI (npm `@openai/codex`) run as `codex exec --json`,
//! with the proxied servers and a model provider in a private `CODEX_HOME/config.toml`, its
//! JSONL events parsed for the answer, the tool calls, the token usage and the errors.
//!
//! What the config needs (measured with 0.169.0): each server `required = true` (else Codex
//! starts without a server it cannot reach) and `default_tools_approval_mode = "approve"`
//! (else `codex exec` refuses every tool without read-only annotations); a provider of our
//! own with `wire_api = "responses"` whose `base_url` is `OPENAI_BASE_URL` (the LLM proxy's).

use std::ffi::OsString;

use serde_json::Value;

use super::cli::{CliEvents, CliProgram, env_with, private_dir, toml_string, write_file};
use super::contract::{AgentOutcome, AgentRun, CannotContinue, ProxiedServer};
use crate::config::KindId;
use crate::llm::TokenUsage;
use crate::trace::AgentToolCall;

pub(super) const CODEX: CliProgram = CliProgram::of(KindId::Codex);

/// The npm package that provides `codex`.
pub const CODEX_PACKAGE: &str = CODEX.program.package;

/// The API's public base URL, when `OPENAI_BASE_URL` is not set.
const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

/// What its events say (`CliEvents`, named for this program).
pub type CodexResult = CliEvents;

/// The thread id of `codex exec --json`'s `thread.started` event.
fn thread_started(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .find(|event| event["type"] == "thread.started")
        .and_then(|event| event["thread_id"].as_str().map(str::to_owned))
}

/// Reads the JSONL events of `codex exec --json`; lines that are not JSON are skipped.
pub fn parse_codex_events(stdout: &str) -> CodexResult {
    let mut result = CodexResult::default();
    let mut last_error = None;
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        match event["type"].as_str().unwrap_or_default() {
            "item.completed" => read_item(&event["item"], &mut result),
            "turn.completed" => {
                result.completed = true;
                let usage = codex_usage(&event["usage"]);
                result.usage = Some(match result.usage.take() {
                    Some(sum) => add_usage(sum, usage),
                    None => usage,
                });
            }
            "turn.failed" => {
                result.error = event["error"]["message"].as_str().map(str::to_owned);
            }
            "error" => last_error = event["message"].as_str().map(str::to_owned),
            _ => {}
        }
    }
    if result.error.is_none() && !result.completed {
        result.error = last_error;
    }
    result
}

fn read_item(item: &Value, result: &mut CodexResult) {
    let text = |key: &str| item[key].as_str().unwrap_or_default().to_owned();
    let call = match item["type"].as_str().unwrap_or_default() {
        "agent_message" => {
            result.answer = Some(text("text"));
            return;
        }
        "mcp_tool_call" => AgentToolCall {
            name: format!("mcp__{}__{}", text("server"), text("tool")),
            input: item["arguments"].clone(),
        },
        kind @ ("command_execution" | "web_search" | "file_change") => {
            let key = match kind {
                "command_execution" => "command",
                "web_search" => "query",
                _ => "changes",
            };
            AgentToolCall {
                name: kind.to_owned(),
                input: serde_json::json!({ key: item[key].clone() }),
            }
        }
        _ => return,
    };
    result.tool_uses.push(call);
}

/// Codex's `usage` (OpenAI's `input_tokens`, cached ones included, and `output_tokens`,
/// reasoning included) as a [`TokenUsage`].
fn codex_usage(usage: &Value) -> TokenUsage {
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let (prompt, completion) = (count("input_tokens"), count("output_tokens"));
    TokenUsage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
    }
}

fn add_usage(a: TokenUsage, b: TokenUsage) -> TokenUsage {
    TokenUsage {
        prompt_tokens: a.prompt_tokens + b.prompt_tokens,
        completion_tokens: a.completion_tokens + b.completion_tokens,
        total_tokens: a.total_tokens + b.total_tokens,
    }
}

/// The private `config.toml`: the model, a provider at `base_url` speaking the Responses
/// API with the key from `OPENAI_API_KEY`, no analytics, and every proxied server as a
/// required streamable HTTP server whose tools need no approval (only its allowed tools
/// enabled, when they are listed).
pub fn codex_config(model: Option<&str>, base_url: &str, servers: &[ProxiedServer]) -> String {
    let mut lines = Vec::new();
    if let Some(model) = model {
        lines.push(format!("model = {}", toml_string(model)));
    }
    lines.extend([
        "model_provider = \"mcpeval\"".to_owned(),
        String::new(),
        "[model_providers.mcpeval]".to_owned(),
        "name = \"mcpeval (OpenAI Responses API)\"".to_owned(),
        format!("base_url = {}", toml_string(base_url)),
        "wire_api = \"responses\"".to_owned(),
        "env_key = \"OPENAI_API_KEY\"".to_owned(),
        String::new(),
        "[analytics]".to_owned(),
        "enabled = false".to_owned(),
    ]);
    for server in servers {
        lines.push(String::new());
        lines.push(format!("[mcp_servers.{}]", toml_string(&server.name)));
        lines.push(format!("url = {}", toml_string(&server.url)));
        lines.push("required = true".to_owned());
        lines.push("default_tools_approval_mode = \"approve\"".to_owned());
        if !server.allowed_tools.is_empty() {
            let tools: Vec<String> = server
                .allowed_tools
                .iter()
                .map(|t| toml_string(t))
                .collect();
            lines.push(format!("enabled_tools = [{}]", tools.join(", ")));
        }
    }
    lines.join("\n") + "\n"
}

/// Runs `codex exec` once in `run.work_dir`, with a private `CODEX_HOME` and `HOME` in
/// `run.private_dir`; `run.env` goes to the process (its `PATH` finds `codex`).
pub async fn run_codex(model: Option<&str>, run: &AgentRun<'_>) -> AgentOutcome {
    try_run_codex(model, run)
        .await
        .unwrap_or_else(AgentOutcome::failed)
}

async fn try_run_codex(model: Option<&str>, run: &AgentRun<'_>) -> Result<AgentOutcome, String> {
    let program = CODEX.find(run)?;
    let codex_home = private_dir(run, "codex-home")?;
    let home = private_dir(run, "home")?;
    let base_url = run
        .var("OPENAI_BASE_URL")
        .filter(|url| !url.trim().is_empty())
        .unwrap_or_else(|| OPENAI_BASE_URL.to_owned());
    let config = codex_config(model, base_url.trim(), run.servers);
    write_file(&codex_home.join("config.toml"), &config)?;
    let thread_file = run.private_dir.join(THREAD_FILE);
    let args = match codex_args(run, &thread_file) {
        Ok(args) => args,
        Err(reason) => return Ok(AgentOutcome::unable_to_continue(reason)),
    };
    run_codex_args(program, args, (codex_home, home), run, &thread_file).await
}

/// `codex exec --json … -- PROMPT`: ephemeral for a task of one turn; in a conversation the
/// session is kept (in the private `CODEX_HOME`) and a later turn is `codex exec resume`
/// of the thread the turn before started.
fn codex_args(
    run: &AgentRun<'_>,
    thread_file: &std::path::Path,
) -> Result<Vec<OsString>, CannotContinue> {
    let turn = run.turn();
    let mut args: Vec<&str> = match turn {
        Some(turn) if turn > 1 => vec!["exec", "resume", "--json", "--skip-git-repo-check"],
        _ => vec![
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--color",
            "never",
        ],
    };
    if turn.is_none() {
        args.push("--ephemeral");
    }
    args.push("--");
    let mut args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
    if let Some(turn) = turn.filter(|turn| *turn > 1) {
        let thread = std::fs::read_to_string(thread_file).unwrap_or_default();
        if thread.trim().is_empty() {
            let why = format!(
                "Codex's output of turn {} named no thread to resume",
                turn - 1
            );
            return Err(CannotContinue { turn, why });
        }
        args.push(thread.trim().into());
    }
    args.push(run.prompt.into());
    Ok(args)
}

/// Where a conversation keeps Codex's thread id between turns, in the run's private
/// directory.
const THREAD_FILE: &str = "codex-thread-id";

/// Runs `codex` with `args`; in a conversation the thread it started is kept in
/// `thread_file` for the next turn.
async fn run_codex_args(
    program: std::path::PathBuf,
    args: Vec<OsString>,
    (codex_home, home): (std::path::PathBuf, std::path::PathBuf),
    run: &AgentRun<'_>,
    thread_file: &std::path::Path,
) -> Result<AgentOutcome, String> {
    let mut extra = vec![("CODEX_HOME", codex_home.into()), ("HOME", home.into())];
    // mcpchecker's openai provider also reads MODEL_KEY; Codex only OPENAI_API_KEY.
    if run.var("OPENAI_API_KEY").is_none_or(|key| key.is_empty())
        && let Some(key) = run.var("MODEL_KEY")
    {
        extra.push(("OPENAI_API_KEY", key.into()));
    }
    let env = env_with(run, extra);
    let finished = CODEX.run(program, args, env, run).await?;
    if run.turn().is_some()
        && let Some(thread) = thread_started(&finished.stdout)
    {
        let _ = std::fs::write(thread_file, thread);
    }
    let events = parse_codex_events(&finished.stdout);
    Ok(CODEX.outcome(finished, events, "turn.completed event", run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_runs::{in_dir, with_empty_path};

    #[test]
    fn a_later_turn_resumes_the_thread_or_says_it_cannot_continue() {
        let dir = tempfile::tempdir().unwrap();
        let env = [("MCPEVAL_TURN".to_owned(), "2".to_owned())];
        let config = dir.path().join("m.json");
        let run = AgentRun {
            prompt: "and now?",
            ..in_dir(dir.path(), &config, &env)
        };
        let thread_file = dir.path().join(THREAD_FILE);
        let missing = codex_args(&run, &thread_file).unwrap_err();
        assert_eq!(
            missing,
            CannotContinue {
                turn: 2,
                why: "Codex's output of turn 1 named no thread to resume".into()
            }
        );
        let outcome = AgentOutcome::unable_to_continue(missing);
        assert_eq!(
            outcome.reason(),
            "cannot continue the conversation (turn 2): Codex's output of turn 1 named no \
             thread to resume"
        );
        assert!(outcome.cannot_continue.is_some());
        std::fs::write(&thread_file, "01a2\n").unwrap();
        let args = codex_args(&run, &thread_file).unwrap();
        let tail: Vec<_> = args.iter().rev().take(3).rev().collect();
        assert_eq!(tail, ["--", "01a2", "and now?"]);
        assert_eq!(args[..2], ["exec", "resume"]);
    }

    const EVENTS: &str = r#"{"type":"thread.started","thread_id":"01a2"}
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `m` not found."}}
{"type":"turn.started"}
{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"demo","tool":"add","arguments":{"a":2,"b":40},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"demo","tool":"add","arguments":{"a":2,"b":40},"result":{"content":[{"type":"text","text":"42"}]},"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"ls","status":"completed"}}
{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"The sum is 42."}}
{"type":"turn.completed","usage":{"input_tokens":200,"cached_input_tokens":40,"output_tokens":14,"reasoning_output_tokens":4}}"#;

    #[test]
    fn reads_the_answer_the_tool_calls_and_the_usage() {
        let parsed = parse_codex_events(EVENTS);
        assert_eq!(parsed.answer.as_deref(), Some("The sum is 42."));
        assert!(parsed.completed);
        assert_eq!(parsed.error, None);
        let usage = parsed.usage.unwrap();
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.total_tokens
            ),
            (200, 14, 214)
        );
        let calls: Vec<(&str, String)> = parsed
            .tool_uses
            .iter()
            .map(|call| (call.name.as_str(), call.input.to_string()))
            .collect();
        assert_eq!(
            calls,
            [
                ("mcp__demo__add", r#"{"a":2,"b":40}"#.to_owned()),
                ("command_execution", r#"{"command":"ls"}"#.to_owned())
            ]
        );
    }

    #[test]
    fn a_failed_turn_is_the_error_and_retries_are_not() {
        let events = r#"{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/5 (unexpected status 401 Unauthorized: bad key)"}
{"type":"error","message":"unexpected status 401 Unauthorized: bad key"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: bad key, url: http://127.0.0.1:1/v1/responses"}}"#;
        let parsed = parse_codex_events(events);
        assert_eq!(
            parsed.error.as_deref(),
            Some(
                "unexpected status 401 Unauthorized: bad key, url: http://127.0.0.1:1/v1/responses"
            )
        );
        assert!(!parsed.completed);
        // Without turn.failed, the last error event is the error.
        let parsed = parse_codex_events(&events.lines().take(3).collect::<Vec<_>>().join("\n"));
        assert_eq!(
            parsed.error.as_deref(),
            Some("unexpected status 401 Unauthorized: bad key")
        );
    }

    #[test]
    fn the_config_names_the_provider_and_requires_every_server() {
        let servers = [
            ProxiedServer {
                name: "demo".into(),
                url: "http://127.0.0.1:1/mcp".into(),
                allowed_tools: vec!["add".into(), "echo".into()],
            },
            ProxiedServer {
                name: "a \"b\"".into(),
                url: "http://127.0.0.1:2/mcp".into(),
                allowed_tools: vec![],
            },
        ];
        let config = codex_config(Some("gpt-test"), "http://127.0.0.1:9/v1", &servers);
        assert_eq!(
            config,
            r#"model = "gpt-test"
model_provider = "mcpeval"

[model_providers.mcpeval]
name = "mcpeval (OpenAI Responses API)"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[analytics]
enabled = false

[mcp_servers."demo"]
url = "http://127.0.0.1:1/mcp"
required = true
default_tools_approval_mode = "approve"
enabled_tools = ["add", "echo"]

[mcp_servers."a \"b\""]
url = "http://127.0.0.1:2/mcp"
required = true
default_tools_approval_mode = "approve"
"#
        );
    }

    #[tokio::test]
    async fn a_missing_codex_names_the_npm_package() {
        let outcome = with_empty_path(async |run| run_codex(None, run).await).await;
        assert!(!outcome.passed());
        assert_eq!(
            outcome.reason(),
            "`codex` is not on PATH: builtin.codex runs Codex, install it with \
             `npm install -g @openai/codex@0.169.0`"
        );
    }
}
