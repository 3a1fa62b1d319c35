//! mcpchecker's files load and run unchanged: paths as mcpchecker resolves them, its names
//! and aliases, its environment-built MCP config, step ids, judge references, agent options.

use mcpeval::llm::Provider;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/compat")
        .join(path)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `mcpeval ARGS` run in `dir`, results under the test's own output directory.
fn mcpeval_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("compat-runs"),
        )
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Whether libtest's output says `name` passed (`test NAME ... ok`, names padded).
fn passed(stdout: &str, name: &str) -> bool {
    stdout.lines().any(|line| {
        line.strip_prefix("test ")
            .and_then(|rest| rest.strip_suffix(" ... ok"))
            .is_some_and(|test| test.trim_end() == name)
    })
}

#[test]
fn a_bare_eval_file_name_validates_and_runs_like_a_dotted_one() {
    let dir = fixture("bare");
    for eval in ["eval.yaml", "./eval.yaml"] {
        let out = mcpeval_in(&dir, &["validate", eval]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "bare::scripts\nbare::beside\n");
        let out = mcpeval_in(&dir, &["check", eval, "--"]);
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{eval}: {stdout}{}",
            text(&out.stderr)
        );
        for name in ["bare::scripts", "bare::beside"] {
            assert!(
                passed(&stdout, name),
                "{eval}: {name} did not pass:\n{stdout}"
            );
        }
    }
}

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

/// The results file of the only task run under `output`.
fn only_result(output: &Path) -> serde_json::Value {
    let results: Vec<_> = std::fs::read_dir(output.join("results"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(results.len(), 1, "{results:?}");
    serde_json::from_str(&std::fs::read_to_string(&results[0]).unwrap()).unwrap()
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

/// Writes `files` (path, text) under a fresh directory.
fn files(list: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in list {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

const MCP: (&str, &str) = ("mcp.yaml", "mcpServers: {k: {command: srv}}\n");
const TASK: (&str, &str) = (
    "task.yaml",
    "kind: Task\nmetadata: {name: t}\nsteps:\n  prompt: {inline: hi}\n",
);

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
fn a_task_name_with_spaces_is_a_test_name_that_exact_selects() {
    let dir = fixture("spaces");
    let out = mcpeval_in(&dir, &["check", "eval.yaml", "--", "--list"]);
    assert_eq!(
        text(&out.stdout),
        "spaces::create pod inline: test\nspaces::create pod: test\n"
    );
    let out = mcpeval_in(
        &dir,
        &["check", "eval.yaml", "--", "--exact", "spaces::create pod"],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(passed(&stdout, "spaces::create pod"), "{stdout}");
    assert!(stdout.contains("1 passed"), "{stdout}");
    assert!(!stdout.contains("create pod inline"), "{stdout}");
}

#[test]
fn nextest_filters_a_task_name_with_spaces() {
    if crate::support::cargo::command()
        .args(["nextest", "--version"])
        .output()
        .map_or(true, |o| !o.status.success())
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-nextest is missing on CI"
        );
        eprintln!("skipped: cargo-nextest is not installed");
        return;
    }
    let out = crate::support::cargo::command()
        .args(["nextest", "run", "--test", "fixture", "--color", "never"])
        .args(["-E", "test(=spaces::create pod inline)"])
        .env("MCPEVAL_FIXTURE", fixture("spaces"))
        .env(
            "MCPEVAL_OUTPUT_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("compat-nextest"),
        )
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.lines()
            .any(|l| l.contains("PASS") && l.trim_end().ends_with("spaces::create pod inline")),
        "{all}"
    );
    assert!(all.contains("1 test run: 1 passed"), "{all}");
}

/// Loads `eval_text` (beside a task file) with `vars` as the whole environment.
fn load_with_env(
    eval_text: &str,
    vars: &[(&str, &str)],
) -> Result<mcpeval::config::Eval, mcpeval::config::ConfigErrors> {
    let dir = files(&[TASK, ("eval.yaml", eval_text)]);
    let lookup = |name: &str| {
        vars.iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    };
    mcpeval::config::load_eval_with(&dir.path().join("eval.yaml"), &lookup)
}

const NO_MCP_FILE: &str = "kind: Eval\nmetadata: {name: e}\nconfig:\n  agent: {type: builtin.claude-code}\n  taskSets:\n    - path: task.yaml\n";

#[test]
fn without_mcp_config_file_the_environment_describes_the_server() {
    use mcpeval::config::Transport;
    let server = |vars: &[(&str, &str)]| {
        let eval = load_with_env(NO_MCP_FILE, vars).unwrap_or_else(|e| panic!("{vars:?}: {e}"));
        assert_eq!(eval.mcp.servers.len(), 1);
        eval.mcp.servers.into_values().next().unwrap()
    };
    let stdio = server(&[
        ("MCP_COMMAND", "srv"),
        ("MCP_ARGS", "--a, b"),
        ("MCP_ENV", r#"{"TOKEN": "x"}"#),
        ("MCP_URL", "http://ignored/mcp"),
    ]);
    assert_eq!(stdio.name, "default");
    let Transport::Stdio {
        command, args, env, ..
    } = stdio.transport
    else {
        panic!("{:?}", stdio.transport)
    };
    assert_eq!(
        (command.as_str(), args),
        ("srv", vec!["--a".to_owned(), "b".to_owned()])
    );
    assert_eq!(env["TOKEN"], "x");
    let json_args = server(&[("MCP_COMMAND", "srv"), ("MCP_ARGS", r#"["x, y", "z"]"#)]);
    assert!(matches!(json_args.transport, Transport::Stdio { args, .. } if args == ["x, y", "z"]));
    for (vars, expected) in [
        (
            &[("MCP_URL", "https://h.example/mcp")][..],
            "https://h.example/mcp",
        ),
        (&[("MCP_PORT", "8080")][..], "http://localhost:8080/mcp"),
        (
            &[("MCP_HOST", "h"), ("MCP_PORT", "9"), ("MCP_PATH", "api")][..],
            "http://h:9/api",
        ),
    ] {
        let http = server(
            &[
                vars,
                &[
                    ("MCP_SERVER_NAME", "k8s"),
                    ("MCP_HEADERS", r#"{"X-Key": "v"}"#),
                ],
            ]
            .concat(),
        );
        assert_eq!(http.name, "k8s");
        let Transport::Http { url, headers } = http.transport else {
            panic!("{:?}", http.transport)
        };
        assert_eq!(url, expected);
        assert_eq!(headers["X-Key"], "v");
    }
}

#[test]
fn without_mcp_config_file_or_environment_the_error_is_mcpcheckers() {
    let errors = load_with_env(NO_MCP_FILE, &[]).unwrap_err().0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].key_path, "config.mcpConfigFile");
    assert!(
        errors[0]
            .message
            .contains("at least one of MCP config or skills must be configured"),
        "{}",
        errors[0]
    );
    let errors = load_with_env(NO_MCP_FILE, &[("MCP_URL", "x"), ("MCP_HEADERS", "[1]")])
        .unwrap_err()
        .0;
    assert!(
        errors[0]
            .message
            .contains("MCP_HEADERS must be a JSON object"),
        "{}",
        errors[0]
    );
}

#[test]
fn an_eval_without_mcp_config_file_runs_the_server_the_environment_names() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", &fixture("env-mcp/eval.yaml").display().to_string()])
        .env("MCP_COMMAND", env!("CARGO_BIN_EXE_mcpeval"))
        .env("MCP_ARGS", "demo-server")
        .env("MCP_SERVER_NAME", "demo")
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(passed(&stdout, "env-mcp::echo"), "{stdout}");
}

#[test]
fn step_ids_name_their_steps_in_messages_and_results() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args([
            "check",
            &fixture("step-ids/eval.yaml").display().to_string(),
        ])
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains(
            "verify step `check-pod` failed: verify[1] `check-pod` inline script: exit code 1"
        ),
        "{stdout}"
    );
    let result = only_result(output.path());
    let setup = &result["setupOutput"]["steps"][0];
    assert_eq!(setup["id"], "seed");
    let verify = &result["verifyOutput"]["steps"];
    assert!(verify[0].get("id").is_none(), "{verify}");
    assert_eq!(verify[0]["label"], "verify[0] inline script");
    assert_eq!(verify[1]["id"], "check-pod");
    assert_eq!(verify[1]["label"], "verify[1] `check-pod` inline script");
}

fn eval_with_judge(judge: &str) -> String {
    format!(
        "kind: Eval\nmetadata: {{name: e}}\nconfig:\n  agent: {{type: builtin.claude-code}}\n  mcpConfigFile: mcp.yaml\n  llmJudge:\n{judge}  taskSets:\n    - path: task.yaml\n"
    )
}

#[test]
fn the_judge_is_an_llm_agent_ref_as_mcpchecker_documents() {
    use mcpeval::config::{JudgeConfig, load_eval};
    let judge_agent = (
        "agents/judge.yaml",
        "kind: Agent\nmetadata: {name: judge}\nbuiltin: {type: llm-agent, model: 'openai:gpt-4o-mini'}\n",
    );
    for (judge, model) in [
        (
            "    ref: {type: builtin.llm-agent, model: 'openai:gpt-4o'}\n",
            "gpt-4o",
        ),
        (
            "    ref: {type: builtin.openai-agent, model: gpt-4}\n",
            "gpt-4",
        ),
        (
            "    ref: {type: file, path: agents/judge.yaml}\n",
            "gpt-4o-mini",
        ),
    ] {
        let dir = files(&[
            MCP,
            TASK,
            judge_agent,
            ("eval.yaml", &eval_with_judge(judge)),
        ]);
        let eval =
            load_eval(&dir.path().join("eval.yaml")).unwrap_or_else(|e| panic!("{judge}: {e}"));
        assert_eq!(
            eval.llm_judge,
            Some(JudgeConfig::Model(model.into())),
            "{judge}"
        );
    }
    for (judge, key, words) in [
        (
            "    ref: {type: builtin.claude-code}\n",
            "config.llmJudge.ref",
            "`claude-code` cannot judge yet",
        ),
        (
            "    ref: {type: builtin.llm-agent}\n",
            "config.llmJudge.ref.model",
            "needs `model`",
        ),
        (
            "    ref: {type: builtin.llm-agent, model: 'gemini:pro'}\n",
            "config.llmJudge.ref.model",
            "not supported yet",
        ),
        (
            "    ref: {type: builtin.llm-agent, model: gpt-4o}\n    env: {baseUrlKey: A, apiKeyKey: B, modelNameKey: C}\n",
            "config.llmJudge",
            "both `env` and `ref`",
        ),
    ] {
        let dir = files(&[MCP, TASK, ("eval.yaml", &eval_with_judge(judge))]);
        let errors = load_eval(&dir.path().join("eval.yaml")).unwrap_err().0;
        assert!(
            errors
                .iter()
                .any(|e| e.key_path == key && e.message.contains(words)),
            "{judge}: {errors:?}"
        );
    }
}

#[test]
fn two_evals_with_one_name_are_an_error_naming_both_files() {
    let dir = fixture("same-name");
    for args in [
        &["validate", "first.yaml", "second.yaml"][..],
        &["check", "first.yaml", "second.yaml", "--", "--list"][..],
    ] {
        let out = mcpeval_in(&dir, args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(
                "second.yaml:4:3: metadata.name: duplicate eval name `bare`: first.yaml has it too"
            ),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn skills_are_mounted_in_the_agents_directory_and_asserted_on_its_tool_calls() {
    let output = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpeval"))
        .args(["check", &fixture("skills/eval.yaml").display().to_string()])
        .env("MCPEVAL_OUTPUT_DIR", output.path())
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(101),
        "{stdout}{}",
        text(&out.stderr)
    );
    for line in [
        "skillsLoaded (config.taskSets[0]):",
        "expected: loaded: skill=greeting",
        "actual:   no call of the agent's `Skill` tool",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    let result = only_result(output.path());
    // The skill file was there for the agent to read.
    assert_eq!(
        result["taskOutput"],
        "---\nname: greeting\ndescription: Greets a person by name in a friendly way."
    );
    assert_eq!(result["assertionResults"]["skillsLoaded"]["passed"], false);
    assert_eq!(
        result["assertionResults"]["skillsNotLoaded"]["passed"],
        true
    );
}

#[test]
fn skill_assertions_match_the_serialized_input_of_the_skill_tool() {
    use mcpeval::assert::check_skills;
    use mcpeval::config::{Assertions, SkillMatcher};
    use mcpeval::plan::AssertionSet;
    use mcpeval::trace::AgentToolCall;
    let set = |loaded: Vec<SkillMatcher>, not_loaded: Vec<SkillMatcher>| AssertionSet {
        task_set: "config.taskSets[0]".into(),
        assertions: Assertions {
            skills_loaded: loaded,
            skills_not_loaded: not_loaded,
            ..Assertions::default()
        }
        .into(),
        faults: Vec::new().into(),
        elicitation: None,
        sampling: None,
    };
    let calls = [
        AgentToolCall {
            name: "Skill".into(),
            input: serde_json::json!({"skill": "greeting"}),
        },
        AgentToolCall {
            name: "Bash".into(),
            input: serde_json::json!({"command": "echo \"farewell\""}),
        },
    ];
    let name = |n: &str| SkillMatcher::Name(n.into());
    let pattern = |p: &str| SkillMatcher::Pattern(regex::Regex::new(p).unwrap());
    assert!(
        check_skills(
            &[set(
                vec![name("greeting"), pattern("gree?t")],
                vec![name("farewell")]
            )],
            &calls,
            "Skill"
        )
        .is_empty()
    );
    let failures = check_skills(
        &[set(vec![name("greet")], vec![pattern("greeting")])],
        &calls,
        "Skill",
    );
    let text: Vec<String> = failures.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert!(
        text[0].contains("expected: loaded: skill=greet\n"),
        "{text:?}"
    );
    assert!(
        text[1].contains("expected: not loaded: skillPattern=greeting"),
        "{text:?}"
    );
    assert!(
        text[1].contains(r#"actual:   `Skill` called with {"skill":"greeting"}"#),
        "{text:?}"
    );
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

#[test]
fn extension_steps_default_to_the_timeout_of_every_other_step() {
    assert_eq!(
        mcpeval::config::DEFAULT_EXTENSION_TIMEOUT,
        mcpeval::config::DEFAULT_STEP_TIMEOUT
    );
}
