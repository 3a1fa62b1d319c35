//! `builtin.gemini-cli`: the real Gemini CLI (npm `@google/gemini-cli`) run as
//! `gemini --prompt=… --output-format stream-json --yolo`, with the proxied servers in a
//! private `$HOME/.gemini/settings.json`, its stream-json events parsed for the answer, the
//! tool uses, the token stats and the errors.
//!
//! What it needs (measured with 0.61.0): `--yolo` (else MCP tools are not offered),
//! `GEMINI_CLI_TRUST_WORKSPACE=true`, and the auth type `gemini-api-key` in its settings
//! (with `GOOGLE_GEMINI_BASE_URL` set and no auth type it refuses to start: "Invalid auth
//! method selected").

use std::ffi::OsString;

use serde_json::{Value, json};

use super::cli::{CliEvents, CliProgram, env_with, private_dir, write_file};
use super::contract::{AgentOutcome, AgentRun, ProxiedServer};
use crate::config::KindId;
use crate::llm::TokenUsage;
use crate::trace::AgentToolCall;

pub(super) const GEMINI: CliProgram = CliProgram::of(KindId::GeminiCli);

/// The npm package that provides `gemini`.
pub const GEMINI_CLI_PACKAGE: &str = GEMINI.program.package;

/// What its events say (`CliEvents`, named for this program).
pub type GeminiResult = CliEvents;

/// Reads the `--output-format stream-json` events of `gemini`; lines that are not JSON are
/// skipped.
pub fn parse_gemini_events(stdout: &str) -> GeminiResult {
    let mut result = GeminiResult::default();
    let mut text: Option<String> = None;
    let mut last_error = None;
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        match event["type"].as_str().unwrap_or_default() {
            "message" if event["role"] == "assistant" => {
                let content = event["content"].as_str().unwrap_or_default();
                match (&mut text, event["delta"] == true) {
                    (Some(text), true) => text.push_str(content),
                    _ => text = Some(content.to_owned()),
                }
            }
            "tool_use" => {
                text = None;
                result.tool_uses.push(AgentToolCall {
                    name: event["tool_name"].as_str().unwrap_or_default().to_owned(),
                    input: event["parameters"].clone(),
                });
            }
            "result" => {
                result.completed = true;
                result.usage = Some(gemini_usage(&event["stats"]));
                if event["status"] != "success" {
                    let message = event["error"]["message"]
                        .as_str()
                        .map(api_error)
                        .unwrap_or_else(|| format!("status {}", event["status"]));
                    result.error = Some(message);
                }
            }
            "error" => last_error = event["message"].as_str().map(str::to_owned),
            _ => {}
        }
    }
    if result.error.is_none() && !result.completed {
        result.error = last_error;
    }
    result.answer = text.map(|text| text.trim().to_owned());
    result
}

/// Gemini CLI's `[API Error: {"error":{"code":401,"message":…,"status":…}}]` as
/// `API error 401 UNAUTHENTICATED: …`; other messages as they are.
fn api_error(message: &str) -> String {
    let body = message
        .find('{')
        .zip(message.rfind('}'))
        .and_then(|(start, end)| serde_json::from_str::<Value>(&message[start..=end]).ok());
    let Some(error) = body.as_ref().map(|body| &body["error"]) else {
        return message.to_owned();
    };
    match (error["code"].as_u64(), error["message"].as_str()) {
        (Some(code), Some(text)) => {
            let status = error["status"].as_str().unwrap_or_default();
            format!("API error {code} {status}: {text}").replace("  ", " ")
        }
        _ => message.to_owned(),
    }
}

/// The `stats` of the `result` event as a [`TokenUsage`].
fn gemini_usage(stats: &Value) -> TokenUsage {
    let count = |key: &str| stats[key].as_u64().unwrap_or(0);
    let (prompt, completion) = (count("input_tokens"), count("output_tokens"));
    TokenUsage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: stats["total_tokens"]
            .as_u64()
            .unwrap_or(prompt + completion),
    }
}

/// The private `settings.json`: every proxied server by `httpUrl` (only its allowed tools
/// included, when they are listed), the API-key auth type, no usage statistics, and no
/// agent skills: Gemini CLI 0.61 lists its bundled skills (in its system prompt and its
/// `activate_skill` tool) in the order a directory walk finds them, which varies from run
/// to run, so no recording of its model calls could be replayed.
pub fn gemini_settings(servers: &[ProxiedServer]) -> Value {
    let mut entries = serde_json::Map::new();
    for server in servers {
        let mut entry = json!({ "httpUrl": server.url });
        if !server.allowed_tools.is_empty() {
            entry["includeTools"] = json!(server.allowed_tools);
        }
        entries.insert(server.name.clone(), entry);
    }
    json!({
        "mcpServers": entries,
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "skills": {"enabled": false},
    })
}

/// Runs `gemini` once in `run.work_dir` with a private `HOME` and `TMPDIR` in
/// `run.private_dir`;
/// `run.env` goes to the process (its `PATH` finds `gemini`).
pub async fn run_gemini_cli(model: Option<&str>, run: &AgentRun<'_>) -> AgentOutcome {
    try_run_gemini_cli(model, run)
        .await
        .unwrap_or_else(AgentOutcome::failed)
}

async fn try_run_gemini_cli(
    model: Option<&str>,
    run: &AgentRun<'_>,
) -> Result<AgentOutcome, String> {
    let program = GEMINI.find(run)?;
    let home = private_dir(run, "home")?;
    let settings = serde_json::to_string_pretty(&gemini_settings(run.servers)).unwrap_or_default();
    write_file(&home.join(".gemini").join("settings.json"), &settings)?;
    let mut args: Vec<OsString> = vec![
        format!("--prompt={}", run.prompt).into(),
        "--output-format".into(),
        "stream-json".into(),
        "--yolo".into(),
    ];
    if let Some(model) = model {
        args.push("-m".into());
        args.push(model.into());
    }
    // A later turn of a conversation resumes the session of the turn before: the latest of
    // this private HOME, for this working directory.
    if run.turn() > Some(1) {
        args.extend(["--resume".into(), "latest".into()]);
    }
    // Its error reports go to the temporary directory: the run's own.
    let tmp = private_dir(run, "tmp")?;
    let mut extra = vec![
        ("HOME", home.into()),
        ("TMPDIR", tmp.into()),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".into()),
    ];
    // mcpchecker's providers also read GOOGLE_API_KEY; the CLI only GEMINI_API_KEY.
    if run.var("GEMINI_API_KEY").is_none_or(|key| key.is_empty())
        && let Some(key) = run.var("GOOGLE_API_KEY")
    {
        extra.push(("GEMINI_API_KEY", key.into()));
    }
    let finished = GEMINI.run(program, args, env_with(run, extra), run).await?;
    let events = parse_gemini_events(&finished.stdout);
    Ok(GEMINI.outcome(finished, events, "result event", run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::test_runs::with_empty_path;

    #[test]
    fn reads_the_last_answer_the_tool_uses_and_the_stats() {
        let events = r#"{"type":"init","session_id":"fe27","model":"gemini-test"}
{"type":"message","role":"user","content":"Add 2 and 40"}
{"type":"message","role":"assistant","content":"Let me add ","delta":true}
{"type":"message","role":"assistant","content":"them.","delta":true}
{"type":"tool_use","tool_name":"mcp_demo_add","tool_id":"x_1","parameters":{"a":2,"b":40}}
{"type":"tool_result","tool_id":"x_1","status":"success","output":"42"}
{"type":"message","role":"assistant","content":"The sum ","delta":true}
{"type":"message","role":"assistant","content":"is 42.","delta":true}
{"type":"result","status":"success","stats":{"total_tokens":214,"input_tokens":200,"output_tokens":14,"tool_calls":1}}"#;
        let parsed = parse_gemini_events(events);
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
        assert_eq!(parsed.tool_uses.len(), 1);
        assert_eq!(parsed.tool_uses[0].name, "mcp_demo_add");
        assert_eq!(parsed.tool_uses[0].input, json!({"a": 2, "b": 40}));
    }

    #[test]
    fn an_error_result_names_the_status_and_the_message() {
        let events = r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":401,\"message\":\"API key not valid.\",\"status\":\"UNAUTHENTICATED\"}}]"},"stats":{"total_tokens":0}}"#;
        let parsed = parse_gemini_events(events);
        assert_eq!(
            parsed.error.as_deref(),
            Some("API error 401 UNAUTHENTICATED: API key not valid.")
        );
        assert_eq!(api_error("quota exceeded"), "quota exceeded");
    }

    #[test]
    fn the_settings_list_each_server_by_http_url() {
        let servers = [ProxiedServer {
            name: "demo".into(),
            url: "http://127.0.0.1:1/mcp".into(),
            allowed_tools: vec!["add".into()],
        }];
        assert_eq!(
            gemini_settings(&servers),
            json!({
                "mcpServers": {"demo": {"httpUrl": "http://127.0.0.1:1/mcp", "includeTools": ["add"]}},
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": false},
                "skills": {"enabled": false},
            })
        );
    }

    #[tokio::test]
    async fn a_missing_gemini_names_the_npm_package() {
        let outcome = with_empty_path(async |run| run_gemini_cli(None, run).await).await;
        assert!(!outcome.passed());
        assert_eq!(
            outcome.reason(),
            "`gemini` is not on PATH: builtin.gemini-cli runs Gemini CLI, install it with \
             `npm install -g @google/gemini-cli@0.61.0`"
        );
    }
}
