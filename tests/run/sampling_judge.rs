//! A server's sampling request answered by the eval's judge model (`llm: judge` in a
//! `sampling` rule): recorded through mcpeval's own LLM client into the cassette's
//! `sampling` section against a fake OpenAI API, then replayed from it with no API at all.
//! An eval without `config.llmJudge` is a run error naming the rule.

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use support::cli::{result_file, text};
use support::fake_openai::{FakeOpenAi, text as reply};
use support::results_schema::violations;

const KEY: &str = "sk-sampling-judge-test-key-0123456789";

/// The elicitation fixture's server, agent and MCP config in a fresh directory, with an eval
/// (`judge` adds its `llmJudge`) and a task whose rule lets the judge answer the summary.
fn eval_copy(judge: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/elicitation");
    for file in ["agent.yaml", "mcp.yaml", "server.py"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let eval = format!(
        "kind: Eval\nmetadata: {{name: judged}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n{judge}  taskSets:\n    - path: task.yaml\n"
    );
    std::fs::write(dir.path().join("eval.yaml"), eval).unwrap();
    let task = "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: summary}\nspec:\n  \
                sampling:\n    rules:\n      - {tool: summarize, llm: judge}\n  \
                prompt:\n    inline: |\n      call files summarize {}\n";
    std::fs::write(dir.path().join("task.yaml"), task).unwrap();
    dir
}

const JUDGE: &str = "  llmJudge:\n    env:\n      baseUrlKey: JUDGE_BASE_URL\n      \
                     apiKeyKey: JUDGE_API_KEY\n      modelNameKey: JUDGE_MODEL_NAME\n";

fn check(dir: &Path, output: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpeval"));
    command
        .arg("check")
        .arg(dir.join("eval.yaml"))
        .env("MCPEVAL_OUTPUT_DIR", output)
        .env("RUST_BACKTRACE", "0")
        .env("JUDGE_MODEL_NAME", "judge-mini")
        .env_remove("CI")
        .env_remove("JUDGE_API_KEY")
        .env_remove("MCPEVAL_RECORD_MODE");
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", listener.local_addr().unwrap())
}

fn summary(output: &Path) -> Value {
    let result = result_file(output, "judged__summary");
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    result
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_judge_model_answers_sampling_recorded_then_replayed() {
    let dir = eval_copy(JUDGE);
    let fake = FakeOpenAi::start(vec![reply("Two text files about work.")]).await;

    // Recorded: the judge API is asked once, with the server's system prompt and message.
    let output = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().to_owned(), output.path().to_owned());
    let base_url = fake.base_url.clone();
    let recorded = tokio::task::spawn_blocking(move || {
        check(
            &root,
            &out,
            &[
                ("MCPEVAL_RECORD_MODE", "all"),
                ("JUDGE_BASE_URL", &base_url),
                ("JUDGE_API_KEY", KEY),
            ],
        )
    })
    .await
    .unwrap();
    assert!(recorded.status.success(), "{}", text(&recorded.stdout));
    let result = summary(output.path());
    let answer = &result["callHistory"]["toolCalls"][0]["result"]["content"][0]["text"];
    assert_eq!(answer, "summary: Two text files about work. (fake)");
    let sampled = &result["callHistory"]["sampling"][0];
    assert_eq!(sampled["rule"], "spec.sampling.rules[0]");
    assert_eq!(sampled["reply"], "Two text files about work.");
    let bodies = fake.bodies();
    assert_eq!(bodies.len(), 1, "{bodies:#?}");
    assert_eq!(bodies[0]["model"], "judge-mini");
    assert_eq!(
        bodies[0]["messages"],
        serde_json::json!([
            {"role": "system", "content": "You summarise file lists."},
            {"role": "user", "content": "Summarise: notes.txt, todo.txt"}
        ])
    );
    let llm = result["llmCalls"].as_array().unwrap();
    assert!(
        llm.iter()
            .any(|client| client["who"] == "sampling" && client["recorded"] == 1),
        "{llm:#?}"
    );
    let cassette = dir.path().join("cassettes/judged__summary.json");
    let stored = std::fs::read_to_string(&cassette).unwrap();
    assert!(!stored.contains(KEY), "the key reached the cassette");
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert!(stored["sections"]["sampling"].is_object(), "{stored:#}");

    // Replayed: no API and no key, the same answer.
    let output = tempfile::tempdir().unwrap();
    let (root, out) = (dir.path().to_owned(), output.path().to_owned());
    let closed = closed_port_url();
    let replayed = tokio::task::spawn_blocking(move || {
        check(
            &root,
            &out,
            &[("MCPEVAL_RECORD_MODE", "none"), ("JUDGE_BASE_URL", &closed)],
        )
    })
    .await
    .unwrap();
    assert!(replayed.status.success(), "{}", text(&replayed.stdout));
    let result = summary(output.path());
    let answer = &result["callHistory"]["toolCalls"][0]["result"]["content"][0]["text"];
    assert_eq!(answer, "summary: Two text files about work. (fake)");
    assert_eq!(fake.bodies().len(), 1, "the replay asked the API");
}

#[test]
fn llm_judge_without_a_judge_in_the_eval_is_a_run_error_naming_the_rule() {
    let dir = eval_copy("");
    let output = tempfile::tempdir().unwrap();
    let out = check(dir.path(), output.path(), &[]);
    let stdout = text(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stdout.contains("spec.sampling.rules[0].llm: `judge` answers with the eval's judge model, and the eval has no config.llmJudge"),
        "{stdout}"
    );
}
