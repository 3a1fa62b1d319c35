//! Agents as mcpchecker configures them: agent options (useVirtualHome, getVersion), the
//! llm-agent and its aliases and providers, a bash script agent, ACP agents.

use super::{MCP, TASK, files, fixture, only_result, text};
use mcpeval::llm::Provider;
use std::path::Path;
use std::process::Command;

/// Runs `eval` (relative to the compat fixtures) with results under `output`; the results
/// file of its only task.
fn run_one(eval: &str, output: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", &fixture(eval).display().to_string()])
        .env("RUST_BACKTRACE", "0")
        .env("MCPEVAL_OUTPUT_DIR", output)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    only_result(output)
}

#[test]
fn use_virtual_home_gives_the_agent_a_fresh_home_and_get_version_names_its_version() {
    let output = tempfile::tempdir().unwrap();
    let result = run_one("agent-options/eval.yaml", output.path());
    assert_eq!(result["agentName"], "home-reporter");
    assert_eq!(result["agentVersion"], "home-reporter 1.2.3");
    let answer = result["taskOutput"].as_str().unwrap();
    let home = answer.strip_prefix("home=").expect(answer);
    assert!(home.ends_with("/home"), "{home}");
    assert_ne!(Some(home.to_owned()), std::env::var("HOME").ok());

    let output = tempfile::tempdir().unwrap();
    let result = run_one("agent-options/eval-metadata-version.yaml", output.path());
    assert_eq!(result["agentVersion"], "2.0.x");
    assert_eq!(
        result["taskOutput"].as_str().unwrap(),
        format!("home={}", std::env::var("HOME").unwrap())
    );
}

fn eval_with_agent(agent: &str) -> String {
    format!(
        "kind: Eval\nmetadata: {{name: e}}\nconfig:\n  agent: {agent}\n  mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: task.yaml\n"
    )
}

#[test]
fn llm_agent_and_its_deprecated_aliases_run_openai_models() {
    use mcpeval::config::{Agent, BuiltinAgent, KindId, load_agent_file, load_eval};
    let openai = |model: &str| {
        Agent::Builtin(BuiltinAgent {
            kind: KindId::LlmAgent,
            provider: Provider::OpenAi,
            model: Some(model.into()),
            options: Default::default(),
        })
    };
    for (agent, model) in [
        (
            "{type: builtin.llm-agent, model: 'openai:gpt-4o'}",
            "gpt-4o",
        ),
        (
            "{type: builtin.llm-agent, model: gpt-4o-mini}",
            "gpt-4o-mini",
        ),
        ("{type: builtin.openai-agent, model: gpt-4}", "gpt-4"),
        ("{type: builtin.openai-acp, model: 'openai:o3'}", "o3"),
    ] {
        let dir = files(&[MCP, TASK, ("eval.yaml", &eval_with_agent(agent))]);
        let eval =
            load_eval(&dir.path().join("eval.yaml")).unwrap_or_else(|e| panic!("{agent}: {e}"));
        assert_eq!(eval.agent, openai(model), "{agent}");
    }
    let dir = files(&[(
        "agent.yaml",
        "kind: Agent\nmetadata: {name: llm}\nbuiltin: {type: llm-agent, model: 'openai:gpt-4'}\ncommands: {useVirtualHome: true}\n",
    )]);
    let agent = load_agent_file(&dir.path().join("agent.yaml")).unwrap();
    assert!(matches!(
        &agent,
        Agent::Builtin(BuiltinAgent { model: Some(model), .. }) if model == "gpt-4"
    ));
    assert!(agent.options().virtual_home);
}

#[test]
fn llm_agent_runs_anthropic_and_gemini_models_under_their_provider() {
    use mcpeval::config::llm_agent_model;
    for (model, provider, name) in [
        (
            "anthropic:claude-sonnet-4",
            Provider::Anthropic,
            "claude-sonnet-4",
        ),
        ("gemini:gemini-2.5-pro", Provider::Gemini, "gemini-2.5-pro"),
        ("google:gemini-2.5-pro", Provider::Gemini, "gemini-2.5-pro"),
        ("openai:gpt-4o", Provider::OpenAi, "gpt-4o"),
        ("gpt-4o", Provider::OpenAi, "gpt-4o"),
    ] {
        assert_eq!(
            llm_agent_model(model),
            Ok((provider, name.to_owned())),
            "{model}"
        );
    }
    let error = llm_agent_model("mistral:large").unwrap_err();
    assert!(error.contains("unknown provider `mistral`"), "{error}");
    assert!(llm_agent_model("openai:").is_err());
    assert!(llm_agent_model("anthropic: ").is_err());
}

#[test]
fn a_bash_script_agent_written_like_mcpcheckers_examples_runs_and_passes_the_prompt_intact() {
    let output = tempfile::tempdir().unwrap();
    let result = run_one("bash-agent/eval.yaml", output.path());
    assert_eq!(result["taskPassed"], true, "{result:#}");
    let calls = &result["callHistory"]["toolCalls"];
    assert_eq!(
        calls[0]["arguments"]["text"], "it's $(not run) and `not this`; \"quoted\"",
        "{calls:#}"
    );
}

#[test]
fn an_acp_agent_file_loads_as_mcpchecker_writes_it() {
    use mcpeval::config::{AcpAgent, Agent, load_agent_file};
    let load = |text: &str| {
        let dir = files(&[("agent.yaml", text)]);
        load_agent_file(&dir.path().join("agent.yaml"))
    };
    // mcpchecker's pkg/agent/testdata/acp-agent.yaml.
    let agent = load("kind: Agent\nmetadata: {name: my-acp-agent}\nacp:\n  cmd: claude-code-acp\n  args: [--verbose, --timeout=300]\n").unwrap();
    let Agent::Acp(acp) = &agent else {
        panic!("{agent:?}")
    };
    assert_eq!(
        (acp.name.as_str(), acp.cmd.as_str()),
        ("my-acp-agent", "claude-code-acp")
    );
    assert_eq!(acp.args, ["--verbose", "--timeout=300"]);
    assert!(!acp.claude_code && acp.llm.is_none());
    // With builtin claude-code, `acp` names the adapter (mcpchecker: acp wins).
    let agent = load("kind: Agent\nmetadata: {name: c}\nbuiltin: {type: claude-code}\nacp: {cmd: claude-code-acp}\n").unwrap();
    assert_eq!(
        agent,
        Agent::Acp(Box::new(AcpAgent {
            cmd: "claude-code-acp".into(),
            program: None,
            ..AcpAgent::claude_code(None, None)
        }))
    );
    assert!(agent.skills().is_some());
    for (text, key, message) in [
        ("acp: {args: [x]}", "acp.cmd", "missing required field"),
        ("acp: {cmd: x, env: {}}", "acp.env", "unknown field"),
        (
            "acp: {cmd: x}\ncommands: {runPrompt: 'x {{ .Prompt }}'}",
            "commands.runPrompt",
            "either over ACP (`acp`) or as a command line",
        ),
        (
            "acp: {cmd: x}\nbuiltin: {type: llm-agent, model: 'openai:gpt-4o'}",
            "acp",
            "with `acp`, `builtin` may only name claude-code",
        ),
    ] {
        let errors = load(&format!("kind: Agent\nmetadata: {{name: a}}\n{text}\n"))
            .unwrap_err()
            .0;
        assert!(
            errors
                .iter()
                .any(|e| e.key_path.starts_with(key) && e.message.contains(message)),
            "{text}: {errors:?}"
        );
    }
}

#[test]
fn builtin_claude_code_runs_over_acp_with_acp_true() {
    use mcpeval::config::{AcpAgent, Agent, load_eval};
    let load = |agent: &str| {
        let dir = files(&[MCP, TASK, ("eval.yaml", &eval_with_agent(agent))]);
        load_eval(&dir.path().join("eval.yaml"))
    };
    let eval = load("{type: builtin.claude-code, model: claude-sonnet-4-5, acp: true}").unwrap();
    assert_eq!(
        eval.agent,
        Agent::Acp(Box::new(AcpAgent::claude_code(
            Some("claude-sonnet-4-5".into()),
            None
        )))
    );
    assert_eq!(eval.agent.name(), "claude-code");
    let eval = load("{type: builtin.claude-code, acp: false}").unwrap();
    assert!(matches!(
        eval.agent,
        Agent::Builtin(mcpeval::config::BuiltinAgent {
            kind: mcpeval::config::KindId::ClaudeCode,
            ..
        })
    ));
    let errors = load("{type: builtin.llm-agent, model: 'openai:gpt-4o', acp: true}")
        .unwrap_err()
        .0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key_path, "config.agent.acp");
}
