//! Every MCP protocol version with every agent (issue 23, point 2): a server answering
//! `initialize` with 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28, one that
//! echoes the client's version, and one built like an rmcp 3.11 server (`server/discover`,
//! a handshake version for `initialize`), over stdio and HTTP
//! (`support/versioned_server.rs`), each works through the proxy with the file agent
//! (`script-agent`), builtin.claude-code (whose allowed tools are listed first), Codex,
//! Gemini CLI and the llm-agent, each against its fake API: the task calls `add` and
//! asserts `toolsUsed`. A server answering a version mcpeval does not speak fails the task
//! naming the server, the version it offered and the versions mcpeval speaks. One cell
//! fails at the agent, as it would without mcpeval (see [`expect`]).
//!
//! Observed before the fix: the 2026-07-28 rows failed with every agent, and the echo rows
//! with every agent but Codex (which asks for 2025-06-18), before the agent started:
//! "cannot list the tools of `acme` …: -32022: Unsupported protocol version"; the unknown
//! versions failed without a server failure or a word about the version.

use crate::support;
use crate::support::fake_anthropic;

use futures::StreamExt;
use serde_json::json;
use support::eval_run::{RunAgent, TaskRun, http_server, run_task_as, stdio_server};
use support::fake_llm::{FakeLlm, Reply};
use support::versioned_server::{self, VersionedHttp};

/// Runs of one agent at a time (each is an `mcpeval check` with its agent program).
const CONCURRENCY: usize = 4;
/// The fake APIs' key.
const KEY: &str = "sk-protocol-versions-test-key-0123456789";
/// The versions mcpeval speaks, as a failure names them.
const SPOKEN: &str = "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28";

/// One server of the table.
struct Row {
    /// What the table calls it.
    name: &'static str,
    /// The server script's arguments.
    args: &'static [&'static str],
    /// Reached over streamable HTTP rather than stdio.
    http: bool,
    /// The version it offers that mcpeval does not speak: the task fails.
    unknown: Option<&'static str>,
}

const fn row(name: &'static str, args: &'static [&'static str]) -> Row {
    Row {
        name,
        args,
        http: false,
        unknown: None,
    }
}

const ROWS: &[Row] = &[
    row("2024-11-05", &["--version", "2024-11-05"]),
    row("2025-03-26", &["--version", "2025-03-26"]),
    row("2025-06-18", &["--version", "2025-06-18"]),
    row("2025-11-25", &["--version", "2025-11-25"]),
    row("2026-07-28", &["--version", "2026-07-28"]),
    row("echo", &["--echo"]),
    row("discover (as rmcp 3.11)", &["--discover"]),
    Row {
        http: true,
        ..row("2026-07-28 over HTTP", &["--version", "2026-07-28"])
    },
    Row {
        http: true,
        ..row("echo over HTTP", &["--echo"])
    },
    Row {
        unknown: Some("2099-01-01"),
        ..row("unknown 2099-01-01", &["--version", "2099-01-01"])
    },
    Row {
        unknown: Some("1.0"),
        ..row("unknown 1.0", &["--version", "1.0"])
    },
    Row {
        http: true,
        unknown: Some("2099-01-01"),
        ..row("unknown 2099-01-01 over HTTP", &["--version", "2099-01-01"])
    },
];

/// The agents of the table.
#[derive(Debug, Clone, Copy)]
enum Agent {
    /// The `script-agent`, as an Agent file.
    File,
    ClaudeCode,
    Codex,
    GeminiCli,
    /// `builtin.llm-agent` with an `anthropic:` model.
    Llm,
}

/// An agent ready to run: how, its prompt, and the fake API it talks to (kept alive).
struct Ready {
    agent: RunAgent,
    prompt: &'static str,
    _api: Option<Box<dyn std::any::Any + Send + Sync>>,
}

const PROMPT: &str = "What is 2 + 40? Use the add tool of the acme server.";

/// `PATH` with the directory of the installed peer `bin` first, or `None` (skipped).
fn path_with(bin: &str) -> Option<String> {
    let program = support::peers::require(&format!("node_modules/.bin/{bin}"))?;
    let dir = program.parent().expect("the program has a directory");
    Some(format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

/// The agent with its fake API started; `None` when its program is not installed.
async fn ready(agent: Agent) -> Option<Ready> {
    let answer = || Reply::Text("The sum is 42.".into());
    let builtin = |config: &str, env: Vec<(String, String)>| RunAgent {
        config: config.into(),
        env: [vars(&[("MCPEVAL_RECORD_MODE", "passthrough")]), env].concat(),
    };
    let ready = match agent {
        Agent::File => Ready {
            agent: RunAgent::script(),
            prompt: "call acme add {\"a\": 2, \"b\": 40}",
            _api: None,
        },
        Agent::ClaudeCode => {
            let path = support::peers::path_with_claude()?;
            let api = fake_anthropic::FakeAnthropic::start(vec![
                fake_anthropic::Turn::ToolUse {
                    name: "mcp__acme__add".into(),
                    input: json!({"a": 2, "b": 40}),
                },
                fake_anthropic::Turn::Text("The sum is 42.".into()),
            ])
            .await;
            let env = vars(&[
                ("PATH", &path),
                ("ANTHROPIC_BASE_URL", &api.base_url),
                ("ANTHROPIC_API_KEY", KEY),
                ("ENABLE_TOOL_SEARCH", "false"),
            ]);
            Ready {
                agent: builtin("{type: builtin.claude-code}", env),
                prompt: PROMPT,
                _api: Some(Box::new(api)),
            }
        }
        Agent::Codex => {
            let path = path_with("codex")?;
            let call = Reply::NamespacedCall {
                namespace: "mcp__acme".into(),
                name: "add".into(),
                args: json!({"a": 2, "b": 40}),
            };
            let api = FakeLlm::start_by_turn(vec![call, answer()]).await;
            let env = vars(&[
                ("PATH", &path),
                ("OPENAI_BASE_URL", &format!("{}/v1", api.url)),
                ("OPENAI_API_KEY", KEY),
            ]);
            Ready {
                agent: builtin("{type: builtin.codex, model: mcpeval-test-model}", env),
                prompt: PROMPT,
                _api: Some(Box::new(api)),
            }
        }
        Agent::GeminiCli => {
            let path = path_with("gemini")?;
            let call = Reply::ToolCall {
                name: "mcp_acme_add".into(),
                args: json!({"a": 2, "b": 40}),
            };
            let api = FakeLlm::start_by_turn(vec![call, answer()]).await;
            let env = vars(&[
                ("PATH", &path),
                ("GOOGLE_GEMINI_BASE_URL", &api.url),
                ("GEMINI_API_KEY", KEY),
            ]);
            Ready {
                agent: builtin("{type: builtin.gemini-cli, model: gemini-test-model}", env),
                prompt: PROMPT,
                _api: Some(Box::new(api)),
            }
        }
        Agent::Llm => {
            let call = Reply::ToolCall {
                name: "add".into(),
                args: json!({"a": 2, "b": 40}),
            };
            let api = FakeLlm::start_by_turn(vec![call, answer()]).await;
            let env = vars(&[("ANTHROPIC_BASE_URL", &api.url), ("ANTHROPIC_API_KEY", KEY)]);
            Ready {
                agent: builtin(
                    "{type: builtin.llm-agent, model: 'anthropic:claude-test'}",
                    env,
                ),
                prompt: PROMPT,
                _api: Some(Box::new(api)),
            }
        }
    };
    Some(ready)
}

const TOOLS_USED: &str = "        toolsUsed:\n          - server: acme\n            tool: add";

/// What one cell of the table does.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// The task passes: `add` called once and answered.
    Passes,
    /// The task fails: the server offered this version, which mcpeval does not speak.
    Unknown(&'static str),
    /// The task fails at the agent: the server answered only a version the agent does not
    /// speak, and the proxy repeats what the server said.
    AgentRefuses,
}

fn expect(agent: Agent, row: &Row) -> Expect {
    match (row.unknown, agent, row.name) {
        (Some(version), _, _) => Expect::Unknown(version),
        // Gemini CLI 0.61.0 speaks up to 2025-06-18: asked for it, this server answers
        // 2025-11-25 all the same, and Gemini CLI drops the server ("MCP issues detected").
        (None, Agent::GeminiCli, "2025-11-25") => Expect::AgentRefuses,
        (None, _, _) => Expect::Passes,
    }
}

/// Runs the task against the row's server; what is wrong with the outcome, if anything.
async fn check_row(agent: Agent, ready: &Ready, row: &Row) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let (servers, http) = if row.http {
        let server = VersionedHttp::start(dir.path(), row.args);
        (http_server("acme", &server.url), Some(server))
    } else {
        let args = versioned_server::stdio_args(dir.path(), row.args);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        (stdio_server("acme", "python3", &args), None)
    };
    let run = run_task_as(&ready.agent, dir, &servers, ready.prompt, TOOLS_USED).await;
    drop(http);
    let problem = match expect(agent, row) {
        Expect::Passes => passed_with_add(&run),
        Expect::Unknown(version) => failed_naming(&run, version, agent),
        Expect::AgentRefuses => failed_without_calls(&run),
    };
    problem.map(|problem| {
        format!(
            "row `{}`: {problem}\n  message: {}\n  took {:?}",
            row.name,
            run.message().replace('\n', "\n    "),
            run.took
        )
    })
}

/// The task passed, and its one tool call was `add`, answered `2 + 40 = 42`.
fn passed_with_add(run: &TaskRun) -> Option<String> {
    if !run.passed() || run.code != Some(0) {
        return Some(format!(
            "expected: passes; observed: failed (exit {:?})",
            run.code
        ));
    }
    let calls = run.result["callHistory"]["toolCalls"].as_array().cloned();
    let calls = calls.unwrap_or_default();
    let answered = |call: &serde_json::Value| {
        call["name"] == "add"
            && call["outcome"] == "ok"
            && call["result"].to_string().contains("2 + 40 = 42")
    };
    (calls.len() != 1 || !answered(&calls[0]))
        .then(|| format!("expected: one call of add answered 2 + 40 = 42; observed: {calls:?}"))
}

/// The task failed, with exit code 101.
fn failed(run: &TaskRun) -> Option<String> {
    (run.passed() || run.code != Some(101)).then(|| {
        format!(
            "expected: fails; observed: passed={} (exit {:?})",
            run.passed(),
            run.code
        )
    })
}

/// The task failed naming the server, `version` and the versions mcpeval speaks: as the
/// server's failure, or, for an agent whose allowed tools are listed first, as the
/// listing's.
fn failed_naming(run: &TaskRun, version: &str, agent: Agent) -> Option<String> {
    if let Some(problem) = failed(run) {
        return Some(problem);
    }
    let head = match agent {
        Agent::ClaudeCode => {
            "agent failed: cannot list the tools of `acme` for the agent's \
                              allowed tools: mcp server `acme` (`"
        }
        _ => "server failed: mcp server `acme` (`",
    };
    let said = format!(
        "answered initialize with protocol version `{version}`, which mcpeval does not speak \
         (it speaks {SPOKEN})"
    );
    let failures = run.result["serverFailures"].as_array().cloned();
    let noted = failures
        .unwrap_or_default()
        .iter()
        .any(|f| f["server"] == "acme" && f["message"].as_str().is_some_and(|m| m.contains(&said)));
    if !matches!(agent, Agent::ClaudeCode) && !noted {
        return Some("expected: a server failure of `acme` in the results file".into());
    }
    [head, said.as_str()]
        .into_iter()
        .find(|part| !run.message().contains(part))
        .map(|part| format!("expected the message to contain {part:?}"))
}

/// The task failed with no tool call and no failure of the server.
fn failed_without_calls(run: &TaskRun) -> Option<String> {
    if let Some(problem) = failed(run) {
        return Some(problem);
    }
    let calls = &run.result["callHistory"]["toolCalls"];
    let failures = &run.result["serverFailures"];
    let none = |value: &serde_json::Value| value.as_array().is_none_or(Vec::is_empty);
    (!none(calls) || !none(failures))
        .then(|| format!("expected: no tool call, no server failure; observed: {calls} {failures}"))
}

/// Every row with `agent`, `CONCURRENCY` at a time; panics listing the rows that went wrong.
async fn table(agent: Agent) {
    let Some(ready) = ready(agent).await else {
        return;
    };
    let problems: Vec<String> = futures::stream::iter(ROWS)
        .map(|row| check_row(agent, &ready, row))
        .buffer_unordered(CONCURRENCY)
        .filter_map(|problem| async move { problem })
        .collect()
        .await;
    assert!(
        problems.is_empty(),
        "{agent:?}: {} of {} rows went wrong:\n{}",
        problems.len(),
        ROWS.len(),
        problems.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_protocol_version_works_with_the_file_agent() {
    table(Agent::File).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_protocol_version_works_with_claude_code_and_its_tool_listing() {
    table(Agent::ClaudeCode).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_protocol_version_works_with_codex() {
    table(Agent::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_protocol_version_works_with_gemini_cli() {
    table(Agent::GeminiCli).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_protocol_version_works_with_the_llm_agent() {
    table(Agent::Llm).await;
}
