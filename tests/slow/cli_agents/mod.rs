//! builtin.codex and builtin.gemini-cli through the whole harness: the real Codex CLI
//! (`@openai/codex@0.169.0`) and Gemini CLI (`@google/gemini-cli@0.61.0`), installed into
//! `.peers/` by `.ci/install-peers.sh`, against our fake LLM API (`support/fake_llm.rs`:
//! the OpenAI Responses API, Gemini's streamGenerateContent) in front of our demo server;
//! recorded, then replayed with no key and no API; refused by the API; hanging; missing.

mod conversation;
mod failures;
mod lookup;

use crate::support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::fake_llm::{FakeLlm, Reply};

const FIXTURE: &str = "tests/fixtures/cli-agents";
/// A key that must never reach a cassette, a results file or a message.
pub(super) const KEY: &str = "sk-cli-agents-secret-key-0123456789";
/// The fake model's answer, which the task's verify step expects.
pub(super) const ANSWER: &str = "User 1 is Ada Lovelace.";

/// One of the two programs, as its eval, its API and its fake script see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Program {
    /// The eval (`<eval>.yaml` in the fixture) and the agent's name.
    eval: &'static str,
    /// The command in `.peers/node_modules/.bin`.
    bin: &'static str,
    /// The npm package.
    package: &'static str,
    /// What the results file's `agentVersion` says.
    version: &'static str,
    /// The variables of its API's base URL and key.
    base_url_var: &'static str,
    key_var: &'static str,
    /// What the fake's URL needs appended to be the API's base URL.
    base_path: &'static str,
}

pub(super) const CODEX: Program = Program {
    eval: "codex",
    bin: "codex",
    package: "@openai/codex",
    version: "codex-cli 0.169.0",
    base_url_var: "OPENAI_BASE_URL",
    key_var: "OPENAI_API_KEY",
    base_path: "/v1",
};

pub(super) const GEMINI: Program = Program {
    eval: "gemini-cli",
    bin: "gemini",
    package: "@google/gemini-cli",
    version: "@google/gemini-cli 0.61.0",
    base_url_var: "GOOGLE_GEMINI_BASE_URL",
    key_var: "GEMINI_API_KEY",
    base_path: "",
};

impl Program {
    /// The model calls the demo server's `lookup_user("1")`, then answers.
    fn lookup_script(self) -> Vec<Reply> {
        let args = json!({"id": "1"});
        let call = match self.eval {
            "codex" => Reply::NamespacedCall {
                namespace: "mcp__demo".into(),
                name: "lookup_user".into(),
                args,
            },
            _ => Reply::ToolCall {
                name: "mcp_demo_lookup_user".into(),
                args,
            },
        };
        vec![call, Reply::Text(ANSWER.into())]
    }

    /// The API's 401 answer to a bad key, in its own shape.
    fn refusal(self) -> Reply {
        let body = match self.eval {
            "codex" => json!({"error": {"message": "Incorrect API key provided: sk-cl***",
                "type": "invalid_request_error", "code": "invalid_api_key"}}),
            _ => {
                json!({"error": {"code": 401, "message": "API key not valid. Please pass a valid API key.",
                "status": "UNAUTHENTICATED"}})
            }
        };
        Reply::Error(401, body)
    }

    /// The MCP tools the model was offered in `request` (Codex: the `mcp__demo`
    /// namespace's; Gemini CLI: the `mcp_demo_` functions).
    fn offered_tools(self, request: &Value) -> Vec<String> {
        let tools = request["tools"].as_array().into_iter().flatten();
        let names: Vec<&Value> = match self.eval {
            "codex" => tools
                .filter(|tool| tool["name"] == "mcp__demo")
                .flat_map(|tool| tool["tools"].as_array().into_iter().flatten())
                .map(|tool| &tool["name"])
                .collect(),
            _ => tools
                .flat_map(|tool| {
                    tool["functionDeclarations"]
                        .as_array()
                        .into_iter()
                        .flatten()
                })
                .map(|function| &function["name"])
                .filter(|name| name.as_str().is_some_and(|n| n.starts_with("mcp_demo_")))
                .collect(),
        };
        names
            .into_iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect()
    }
}

/// Where the program's LLM calls go.
pub(super) enum Llm<'a> {
    /// The fake API, with the key.
    Live(&'a FakeLlm),
    /// A closed port and no key (replaying needs neither).
    Nowhere,
}

/// What one `mcpeval check` left.
pub(super) struct Run {
    code: Option<i32>,
    text: String,
    result: Value,
    took: Duration,
    /// What the run left in the user's HOME (a fresh directory): nothing, the programs get
    /// private ones.
    home_left: Vec<String>,
}

impl Run {
    fn message(&self) -> &str {
        self.result["failureMessage"].as_str().unwrap_or("")
    }
}

/// `PATH` with the installed program's directory first, or `None` when it is not installed
/// (see `support::peers::require`).
pub(super) fn path_with(program: Program) -> Option<String> {
    let bin = support::peers::require(&format!("node_modules/.bin/{}", program.bin))?;
    let dir = bin.parent().expect("the program has a directory");
    Some(format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

/// Runs the task `task` of the program's eval in `dir` with `mcpeval check` (`PATH` as
/// given, the record mode `mode`), writing into `output`.
pub(super) async fn check(
    program: Program,
    dir: &Path,
    output: &Path,
    task: &str,
    path: &str,
    llm: Llm<'_>,
    mode: &str,
) -> Run {
    let home = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .env("HOME", home.path())
        .arg("check")
        .arg(dir.join(format!("{}.yaml", program.eval)))
        .args(["--", "--exact", &format!("{}::{task}", program.eval)])
        .env("PATH", path)
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("MCPEVAL_RECORD_MODE", mode)
        .env("RUST_BACKTRACE", "0")
        .env_remove("CI");
    for var in [
        "OPENAI_API_KEY",
        "MODEL_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
    ] {
        command.env_remove(var);
    }
    match llm {
        Llm::Live(api) => command
            .env(
                program.base_url_var,
                format!("{}{}", api.url, program.base_path),
            )
            .env(program.key_var, KEY),
        Llm::Nowhere => command.env(program.base_url_var, closed_port_url()),
    };
    let started = Instant::now();
    let out = command.output().await.expect("run mcpeval check");
    let took = started.elapsed();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let file = output
        .join("results")
        .join(format!("{}__{task}.json", program.eval));
    let result = std::fs::read_to_string(&file)
        .map(|text| serde_json::from_str(&text).expect("the results file is JSON"))
        .unwrap_or_else(|e| panic!("no results file {}: {e}\n{text}", file.display()));
    let home_left = std::fs::read_dir(home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    Run {
        code: out.status.code(),
        text,
        result,
        took,
        home_left,
    }
}

pub(super) fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}
