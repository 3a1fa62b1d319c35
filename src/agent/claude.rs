//! `builtin.claude-code`: the real `claude` CLI (npm `@anthropic-ai/claude-code`) run
//! non-interactively with the proxied servers, its stream-json output parsed for the answer,
//! the turns, the token usage and the permission denials.

use crate::plumbing::ended::Ended;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::cli::CliProgram;
use super::contract::{AgentOutcome, AgentRun, CannotContinue, ProxiedServer};
use crate::config::KindId;
use crate::llm::TokenUsage;
use crate::plumbing::process::{self, Finished, ProcessSpec};
use crate::trace::AgentToolCall;

/// The `claude` program of `builtin.claude-code`.
const CLAUDE: CliProgram = CliProgram::of(KindId::ClaudeCode);

/// What the stream-json output of one run says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeResult {
    /// The final answer (`result` of the last `result` line).
    pub answer: Option<String>,
    /// `num_turns`.
    pub turns: Option<u64>,
    /// `usage` as reported (input/output/cache tokens).
    pub usage: Option<Value>,
    /// Tool uses Claude Code refused (`permission_denials`), as `tool_name` strings.
    pub denials: Vec<String>,
    /// The `result` line said `is_error: true`.
    pub is_error: bool,
    /// Every `tool_use` block of its assistant messages (MCP tools included).
    pub tool_uses: Vec<AgentToolCall>,
    /// The session's id (`session_id` of its lines), which `--resume` continues.
    pub session_id: Option<String>,
}

/// Reads Claude Code's `--output-format stream-json` lines; lines that are not JSON are
/// skipped.
pub fn parse_stream_json(stdout: &str) -> ClaudeResult {
    let mut result = ClaudeResult::default();
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        if let Some(id) = event["session_id"].as_str() {
            result.session_id = Some(id.to_owned());
        }
        if event["type"] == "assistant" {
            let blocks = event["message"]["content"].as_array().into_iter().flatten();
            result.tool_uses.extend(
                blocks
                    .filter(|block| block["type"] == "tool_use")
                    .filter_map(|block| {
                        Some(AgentToolCall {
                            name: block["name"].as_str()?.to_owned(),
                            input: block["input"].clone(),
                        })
                    }),
            );
        }
        if event["type"] != "result" {
            continue;
        }
        result.answer = event["result"].as_str().map(str::to_owned);
        result.turns = event["num_turns"].as_u64();
        result.usage = event.get("usage").cloned();
        result.is_error = event["is_error"].as_bool().unwrap_or(false);
        result.denials = event["permission_denials"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|denial| {
                let tool = denial["tool_name"].as_str().unwrap_or("?");
                match denial.get("tool_input") {
                    Some(input) if !input.is_null() => format!("{tool} {input}"),
                    _ => tool.to_owned(),
                }
            })
            .collect();
    }
    result
}

/// Claude Code's `usage` (Anthropic's `input_tokens`, cache reads and writes,
/// `output_tokens`) as a [`TokenUsage`].
pub fn claude_usage(usage: &Value) -> TokenUsage {
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let prompt = count("input_tokens")
        + count("cache_creation_input_tokens")
        + count("cache_read_input_tokens");
    let completion = count("output_tokens");
    TokenUsage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
    }
}

/// The allowed tools as Claude Code names them: `mcp__<server>__<tool>`.
pub fn allowed_tool_names(servers: &[ProxiedServer]) -> Vec<String> {
    servers
        .iter()
        .flat_map(|s| {
            s.allowed_tools
                .iter()
                .map(move |tool| format!("mcp__{}__{tool}", s.name))
        })
        .collect()
}

/// Runs `claude` once in `run.work_dir`. `run.env` goes to the process (and its `PATH` is
/// used to find `claude`); `run.private_dir` becomes its private `CLAUDE_CONFIG_DIR`.
pub async fn run_claude_code(model: Option<&str>, run: &AgentRun<'_>) -> AgentOutcome {
    let failed = AgentOutcome::failed;
    let claude = match CLAUDE.find(run) {
        Ok(claude) => claude,
        Err(missing) => return failed(missing),
    };
    let config_dir = run.private_dir.join("claude-config");
    if let Err(e) = std::fs::create_dir_all(&config_dir) {
        return failed(format!("cannot create {}: {e}", config_dir.display()));
    }
    // A later turn of a conversation resumes the session of the turn before.
    let session_file = run.private_dir.join(SESSION_FILE);
    let resume = match run.turn() {
        Some(turn) if turn > 1 => match std::fs::read_to_string(&session_file) {
            Ok(id) if !id.trim().is_empty() => Some(id.trim().to_owned()),
            _ => {
                let why = format!(
                    "Claude Code's output of turn {} named no session to resume",
                    turn - 1
                );
                return AgentOutcome::unable_to_continue(CannotContinue { turn, why });
            }
        },
        _ => None,
    };
    let mut args = claude_args(model, run);
    if let Some(id) = &resume {
        args.extend(["--resume".into(), id.into()]);
    }
    let spec = ProcessSpec {
        program: claude.into(),
        args,
        env: claude_env(run, config_dir),
        cwd: run.work_dir.to_path_buf(),
        live: run.live,
    };
    match process::run(&spec, run.timeout).await {
        Ok(finished) => {
            let session = parse_stream_json(&finished.stdout).session_id;
            if let Some(id) = session.filter(|_| run.turn().is_some()) {
                let _ = std::fs::write(&session_file, id);
            }
            outcome_of(finished, run.timeout)
        }
        Err(e) => failed(format!("cannot start `claude`: {e}")),
    }
}

/// Where a conversation keeps Claude Code's session id between turns, in the run's private
/// directory.
const SESSION_FILE: &str = "claude-session-id";

/// `claude --print PROMPT` with the MCP config only, stream-json output, the allowed tools
/// and the model.
fn claude_args(model: Option<&str>, run: &AgentRun<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "--print".into(),
        run.prompt.into(),
        "--mcp-config".into(),
        run.mcp_config_file.into(),
        "--strict-mcp-config".into(),
        "--output-format".into(),
        "stream-json".into(),
        "--verbose".into(),
    ];
    let allowed = allowed_tool_names(run.servers);
    if !allowed.is_empty() {
        args.push("--allowedTools".into());
        args.push(allowed.join(",").into());
    }
    if let Some(model) = model {
        args.push("--model".into());
        args.push(model.into());
    }
    args
}

/// `run.env`, without non-essential traffic, with `config_dir` as `CLAUDE_CONFIG_DIR`.
fn claude_env(run: &AgentRun<'_>, config_dir: PathBuf) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> =
        run.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    env.push((
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
        "1".into(),
    ));
    env.push(("CLAUDE_CONFIG_DIR".into(), config_dir.into()));
    env
}

/// The outcome of a finished `claude`: its answer, and why it failed when it did; stderr
/// opens with the summary lines of the stream-json output.
fn outcome_of(finished: Finished, timeout: Duration) -> AgentOutcome {
    let parsed = parse_stream_json(&finished.stdout);
    let notes = summary_notes(&parsed);
    let ended = ended(&finished, &parsed, timeout);
    // The stream-json transcript is long; the summary lines say what matters.
    let stderr = if notes.is_empty() {
        finished.stderr
    } else {
        format!("{}\n{}", notes.join("\n"), finished.stderr)
    };
    AgentOutcome {
        ended,
        answer: parsed.answer.unwrap_or_default(),
        stdout: finished.stdout,
        stderr,
        usage: parsed.usage.as_ref().map(claude_usage),
        turns: parsed
            .turns
            .map(|turns| u32::try_from(turns).unwrap_or(u32::MAX)),
        // Counted only when the stream-json output got as far as a turn.
        tool_call_count: (parsed.turns.is_some() || !parsed.tool_uses.is_empty())
            .then(|| u32::try_from(parsed.tool_uses.len()).unwrap_or(u32::MAX)),
        tool_calls: parsed.tool_uses,
        version: None,
        cannot_continue: None,
    }
}

/// The turns, the usage and the permission denials, one line each when present.
fn summary_notes(parsed: &ClaudeResult) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(turns) = parsed.turns {
        notes.push(format!("turns: {turns}"));
    }
    if let Some(usage) = &parsed.usage {
        notes.push(format!("usage: {usage}"));
    }
    if !parsed.denials.is_empty() {
        notes.push(format!("permission denied: {}", parsed.denials.join("; ")));
    }
    notes
}

/// Why the run failed, or empty when it passed.
fn ended(finished: &Finished, parsed: &ClaudeResult, timeout: Duration) -> Ended {
    Ended::Failed(if finished.timed_out() {
        format!(
            "Claude Code {} (the agent timeout)",
            finished.describe(timeout)
        )
    } else if !finished.success() {
        format!("Claude Code failed with {}", finished.describe(timeout))
    } else if parsed.answer.is_none() {
        "Claude Code printed no result line".to_owned()
    } else if parsed.is_error {
        format!(
            "Claude Code reported an error: {}",
            parsed.answer.clone().unwrap_or_default()
        )
    } else {
        return Ended::Passed;
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_runs::with_empty_path;

    #[test]
    fn parses_the_result_line() {
        let out = r#"{"type":"system","subtype":"init","tools":["mcp__demo__add"]}
{"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__demo__add"}]}}
{"type":"assistant","message":{"content":[{"type":"text","text":"hi"},{"type":"tool_use","name":"Skill","input":{"skill":"greeting"}}]}}
not json
{"type":"result","subtype":"success","is_error":false,"result":"The sum is 42","num_turns":2,"usage":{"input_tokens":200,"output_tokens":40},"permission_denials":[{"tool_name":"mcp__demo__delete_user","tool_input":{"id":"2"}}]}"#;
        let parsed = parse_stream_json(out);
        assert_eq!(parsed.answer.as_deref(), Some("The sum is 42"));
        assert_eq!(parsed.turns, Some(2));
        assert_eq!(parsed.usage.as_ref().unwrap()["output_tokens"], 40);
        let usage = claude_usage(parsed.usage.as_ref().unwrap());
        assert_eq!(
            (
                usage.prompt_tokens,
                usage.completion_tokens,
                usage.total_tokens
            ),
            (200, 40, 240)
        );
        assert_eq!(parsed.denials, ["mcp__demo__delete_user {\"id\":\"2\"}"]);
        assert!(!parsed.is_error);
        let tools: Vec<(&str, String)> = parsed
            .tool_uses
            .iter()
            .map(|call| (call.name.as_str(), call.input.to_string()))
            .collect();
        assert_eq!(
            tools,
            [
                ("mcp__demo__add", "null".to_owned()),
                ("Skill", r#"{"skill":"greeting"}"#.to_owned())
            ]
        );
    }

    #[test]
    fn allowed_tools_are_prefixed_with_the_server() {
        let servers = [ProxiedServer {
            name: "time".into(),
            url: String::new(),
            allowed_tools: vec!["get_current_time".into()],
        }];
        assert_eq!(
            allowed_tool_names(&servers),
            ["mcp__time__get_current_time"]
        );
    }

    #[tokio::test]
    async fn a_missing_claude_names_the_npm_package() {
        let outcome = with_empty_path(async |run| run_claude_code(None, run).await).await;
        assert!(!outcome.passed());
        assert!(
            outcome.reason().contains("`claude` is not on PATH")
                && outcome.reason().contains(CLAUDE.program.package),
            "{}",
            outcome.reason()
        );
    }
}
