//! The repository's own evals under `evals/`, run exactly as a user's would be, with two
//! additions: the evals run this crate's `mcpeval` binary as their agent and server (found
//! through `$MCPEVAL_BIN`), and fake LLM APIs started here stand for the live ones. The
//! evals with LLM agents replay their committed cassettes (the fakes are not asked); with
//! `MCPEVAL_RECORD_MODE=all` they are re-recorded against the fakes, offline. Claude Code,
//! Codex and Gemini CLI come from `.peers/` (`.ci/install-peers.sh`).

#[path = "support/fake_anthropic.rs"]
mod fake_anthropic;
#[path = "support/fake_llm.rs"]
mod fake_llm;
#[path = "support/fake_openai.rs"]
mod fake_openai;

use std::path::Path;
use std::process::ExitCode;

use fake_anthropic::{FakeAnthropic, Turn};
use fake_llm::{FakeLlm, Reply};
use fake_openai::{FakeOpenAi, text};
use serde_json::json;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start a runtime for the fake LLM APIs: {e}");
            return ExitCode::FAILURE;
        }
    };
    // evals/claude-code, claude-code-variants, claude-code-faults: call add(2, 40), then
    // answer (a failed call is made once more first: support/fake_anthropic.rs).
    let anthropic = runtime.block_on(FakeAnthropic::start(vec![
        Turn::ToolUse {
            name: "mcp__demo__add".into(),
            input: json!({"a": 2, "b": 40}),
        },
        Turn::Text("The sum is 42.".into()),
    ]));
    // evals/openai-agent (Chat Completions) and evals/codex (Responses) share
    // OPENAI_BASE_URL: each agent calls add(2, 40), then answers; the judge says yes.
    let openai = runtime.block_on(FakeLlm::start_by_turn(vec![
        Reply::NamespacedCall {
            namespace: "mcp__demo".into(),
            name: "add".into(),
            args: json!({"a": 2, "b": 40}),
        },
        Reply::Text("The sum is 42.".into()),
    ]));
    // evals/gemini-cli: the agent calls lookup_user("1"), then answers.
    let gemini = runtime.block_on(FakeLlm::start_by_turn(vec![
        Reply::ToolCall {
            name: "mcp_demo_lookup_user".into(),
            args: json!({"id": "1"}),
        },
        Reply::Text("User 1 is Ada Lovelace.".into()),
    ]));
    let judge = runtime.block_on(FakeOpenAi::start(vec![text(
        r#"{"passed": true, "reason": "The answer says the sum is 42."}"#,
    )]));
    let peers_bin = Path::new(env!("CARGO_MANIFEST_DIR")).join(".peers/node_modules/.bin");
    let path = format!(
        "{}:{}",
        peers_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    mcpeval::Harness::discover("evals")
        .env("MCPEVAL_BIN", env!("CARGO_BIN_EXE_mcpeval"))
        .env("PATH", path)
        .env("ANTHROPIC_BASE_URL", anthropic.base_url.as_str())
        .env("ANTHROPIC_API_KEY", "sk-ant-offline-fake-key")
        .env("ENABLE_TOOL_SEARCH", "false")
        // Claude Code gives up on an MCP tool call after this many milliseconds; without it
        // evals/claude-code-faults' `timeout` task would wait for minutes. (The builtin
        // agent takes no variables of an eval's own; the calls of the other evals take
        // milliseconds.)
        .env("MCP_TOOL_TIMEOUT", "5000")
        .env("OPENAI_BASE_URL", format!("{}/v1", openai.url))
        .env("OPENAI_API_KEY", "sk-offline-fake-key")
        .env("GOOGLE_GEMINI_BASE_URL", gemini.url.as_str())
        .env("GEMINI_API_KEY", "offline-fake-gemini-key")
        .env("JUDGE_BASE_URL", judge.base_url.as_str())
        .env("JUDGE_API_KEY", "sk-offline-fake-judge-key")
        .env("JUDGE_MODEL_NAME", "fake-judge")
        .run()
}
