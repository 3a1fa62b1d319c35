//! The complete examples of eval-config.md and mcpchecker-style files load as typed data and
//! plan to the expected test names.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpeval::config::shell_script::ScriptPiece;
use mcpeval::config::template::Field;
use mcpeval::config::{
    Agent, AllowedTools, BuiltinAgent, Difficulty, GitHubPackage, HttpBody, JsonType, JudgeConfig,
    JudgeStep, KindId, Package, RunPrompt, ScriptSource, Step, TaskVersion, Transport,
    load_agent_file, load_eval,
};
use mcpeval::plan::{plan_eval, validate_eval};
use mcpeval::trace::CallKind;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

fn names(eval: &str) -> Vec<String> {
    validate_eval(&fixture(eval)).unwrap_or_else(|e| panic!("{eval} did not validate:\n{e}"))
}

#[test]
fn example_simple_eval_with_builtin_agent() {
    assert_eq!(
        names("examples/simple-builtin/eval.yaml"),
        ["kubernetes-basic::create-pod"]
    );
    let eval = load_eval(&fixture("examples/simple-builtin/eval.yaml")).unwrap();
    assert!(matches!(
        eval.agent,
        Agent::Builtin(BuiltinAgent {
            kind: KindId::ClaudeCode,
            model: None,
            ..
        })
    ));
    let assertions = &eval.task_sets[0].assertions;
    assert_eq!(
        (assertions.min_tool_calls, assertions.max_tool_calls),
        (Some(1), Some(5))
    );
    assert!(assertions.tools_used[0].matches("kubernetes", "pods_create"));
    assert!(!assertions.tools_used[0].matches("kubernetes", "namespaces_list"));
}

#[test]
fn example_simple_eval_with_custom_agent_file() {
    assert_eq!(
        names("examples/simple-file-agent/eval.yaml"),
        ["kubernetes-basic::create-pod"]
    );
    let eval = load_eval(&fixture("examples/simple-file-agent/eval.yaml")).unwrap();
    let Agent::Command(command) = &eval.agent else {
        panic!("{:?}", eval.agent)
    };
    assert_eq!(
        command.file,
        fixture("examples/simple-file-agent/agent.yaml")
    );
    assert_eq!(command.allowed_tools_separator, ",");
    assert_eq!(command.timeout, Duration::from_secs(300));
}

#[test]
fn example_multi_task_with_different_assertions() {
    assert_eq!(
        names("examples/multi-task/eval.yaml"),
        [
            "comprehensive-eval::list-pods",
            "comprehensive-eval::list-namespaces",
            "comprehensive-eval::scale-deployment",
            "comprehensive-eval::replace-pod",
        ]
    );
    let plan = plan_eval(load_eval(&fixture("examples/multi-task/eval.yaml")).unwrap()).unwrap();
    let hard = &plan.cases[3];
    assert_eq!(hard.assertion_sets.len(), 1);
    assert_eq!(hard.assertion_sets[0].task_set, "config.taskSets[2]");
    let order = &hard.assertion_sets[0].assertions.call_order;
    assert_eq!(
        order.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["pods_list", "pods_create"]
    );
    assert!(
        order
            .iter()
            .all(|c| c.kind == CallKind::Tool && c.server == "kubernetes")
    );
    let Transport::Http { url, headers } = &plan.eval.mcp.servers["kubernetes"].transport else {
        panic!()
    };
    assert!(url.ends_with("/mcp"), "{url}");
    assert!(headers["Authorization"].starts_with("Bearer "));
}

#[test]
fn example_strict_eval_with_forbidden_actions() {
    // The glob skips the multi-document Kubernetes manifest beside the tasks.
    assert_eq!(
        names("examples/safe-operations/eval.yaml"),
        [
            "safe-operations::create-pod",
            "safe-operations::create-debug-pod"
        ]
    );
    let eval = load_eval(&fixture("examples/safe-operations/eval.yaml")).unwrap();
    let a = &eval.task_sets[0].assertions;
    assert!(a.tools_not_used[0].matches("kubernetes", "pods_delete"));
    assert!(a.resources_not_read[0].matches("kubernetes", "k8s://default/secrets/db"));
    assert!(a.no_duplicate_calls);
    assert_eq!(a.max_tool_calls, Some(15));
}

#[test]
fn example_flexible_eval() {
    assert_eq!(
        names("examples/flexible/eval.yaml"),
        ["flexible-eval::creative-task"]
    );
    let eval = load_eval(&fixture("examples/flexible/eval.yaml")).unwrap();
    assert!(matches!(
        &eval.agent,
        Agent::Builtin(BuiltinAgent { kind: KindId::LlmAgent, model: Some(model), .. }) if model == "gpt-4"
    ));
    let any = &eval.task_sets[0].assertions.require_any[0];
    assert!(any.name.is_none() && any.pattern.is_none());
    assert!(any.matches("kubernetes", "whatever_tool"));
}

#[test]
fn mcpchecker_eval_plans_with_labels_and_merged_task_sets() {
    assert_eq!(
        names("mcpchecker/eval.yaml"),
        [
            "mcpchecker-style::create-pod",
            "mcpchecker-style::explain-pods",
            "mcpchecker-style::fix-crashloop"
        ]
    );
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let fix = plan
        .cases
        .iter()
        .find(|c| c.name.ends_with("fix-crashloop"))
        .unwrap();
    let sets: Vec<&str> = fix
        .assertion_sets
        .iter()
        .map(|s| s.task_set.as_str())
        .collect();
    assert_eq!(sets, ["config.taskSets[0]", "config.taskSets[1]"]);
    let eval = &plan.eval;
    let judge = eval.llm_judge.as_ref().unwrap();
    assert!(
        matches!(judge, JudgeConfig::Env { model_name_key, .. } if model_name_key == "JUDGE_MODEL_NAME")
    );
    assert_eq!(eval.default_limits.timeout, Some(Duration::from_secs(900)));
    assert_eq!(
        eval.default_limits.cleanup_timeout,
        Some(Duration::from_secs(120))
    );
}

#[test]
fn mcp_config_servers_transports_and_allowed_tools() {
    let eval = load_eval(&fixture("mcpchecker/eval.yaml")).unwrap();
    let servers = &eval.mcp.servers;
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["files", "kubernetes", "legacy"]
    );
    assert_eq!(servers["kubernetes"].allowed_tools, AllowedTools::All);
    assert_eq!(
        servers["files"].allowed_tools,
        AllowedTools::Only(vec!["read_file".into(), "list_directory".into()])
    );
    assert!(servers["legacy"].disabled);
    assert_eq!(eval.mcp.enabled().count(), 2);
    let Transport::Stdio {
        command, args, env, ..
    } = &servers["files"].transport
    else {
        panic!()
    };
    assert_eq!(command, "npx");
    assert_eq!(args[1], "@modelcontextprotocol/server-filesystem");
    assert_eq!(env["LOG_LEVEL"], "debug");
}

#[test]
fn v1alpha1_task_with_files_inline_script_and_prompt_file() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[0].load(&plan.eval).unwrap();
    assert_eq!(task.version, TaskVersion::V1Alpha1);
    assert_eq!(task.name, "create-pod");
    assert_eq!(task.difficulty, Some(Difficulty::Easy));
    assert_eq!(task.labels["area"], "pods");
    assert!(
        task.prompt
            .starts_with("Create an nginx pod named web-server")
    );
    let dir = fixture("mcpchecker/tasks/create-pod");
    assert_eq!(task.dir(), dir);
    let Step::Script(setup) = &task.setup[0].step else {
        panic!()
    };
    assert_eq!(setup.source, ScriptSource::File(dir.join("setup.sh")));
    let Step::Script(cleanup) = &task.cleanup[0].step else {
        panic!()
    };
    assert!(
        matches!(&cleanup.source, ScriptSource::Inline(s) if s.starts_with("#!/usr/bin/env bash"))
    );
    assert_eq!(task.verify.len(), 1);
}

#[test]
fn v1alpha1_task_verified_by_the_judge() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[1].load(&plan.eval).unwrap();
    let Step::LlmJudge(JudgeStep::Contains(text)) = &task.verify[0].step else {
        panic!("{:?}", task.verify)
    };
    assert!(text.contains("CrashLoopBackOff"));
}

#[test]
fn v1alpha2_task_with_every_step_type_and_limits() {
    let plan = plan_eval(load_eval(&fixture("mcpchecker/eval.yaml")).unwrap()).unwrap();
    let task = plan.cases[2].load(&plan.eval).unwrap();
    assert_eq!(task.version, TaskVersion::V1Alpha2);
    assert_eq!((task.parallel, task.runs), (true, Some(3)));
    assert_eq!(task.limits.timeout, Some(Duration::from_secs(5400)));
    assert_eq!(
        task.limits.cleanup_timeout,
        Some(Duration::from_millis(500))
    );
    assert!(task.prompt.contains("$(anything)"));
    let Step::Script(setup) = &task.setup[0].step else {
        panic!()
    };
    assert_eq!(
        (setup.timeout, setup.env["NAMESPACE"].as_str()),
        (Duration::from_secs(120), "crashloop")
    );
    let Step::Http(reset) = &task.setup[1].step else {
        panic!()
    };
    assert_eq!(reset.method, "POST");
    assert_eq!(
        reset.body,
        Some(HttpBody::Json(
            serde_json::json!({"namespace": "crashloop", "wipe": true})
        ))
    );
    assert_eq!(reset.expect_status, Some(204));
    let Step::Script(check) = &task.verify[0].step else {
        panic!()
    };
    assert!(check.continue_on_error);
    let Step::Http(pods) = &task.verify[1].step else {
        panic!()
    };
    assert_eq!(pods.method, "GET");
    assert!(
        pods.expect_body_match
            .as_ref()
            .unwrap()
            .is_match("status: Running")
    );
    assert_eq!(pods.expect_fields.len(), 4);
    assert_eq!(pods.expect_fields[1].kind, Some(JsonType::Array));
    assert_eq!(pods.expect_fields[3].exists, Some(false));
    assert!(matches!(
        &task.verify[2].step,
        Step::LlmJudge(JudgeStep::Exact(_))
    ));
    assert_eq!(task.cleanup.len(), 1);
}

#[test]
fn agent_files_load_with_builtin_and_shell() {
    let openai = load_agent_file(&fixture("mcpchecker/agents/openai-builtin.yaml")).unwrap();
    assert_eq!(
        openai,
        Agent::Builtin(BuiltinAgent {
            kind: KindId::LlmAgent,
            provider: mcpeval::llm::Provider::OpenAi,
            model: Some("gpt-4o".into()),
            options: Default::default(),
        })
    );
    let shell = load_agent_file(&fixture("mcpchecker/agents/shell-agent.yaml")).unwrap();
    let Agent::Command(command) = shell else {
        panic!("{shell:?}")
    };
    assert_eq!(command.timeout, Duration::from_secs(90));
    // Through a shell (the default) the pipe stays in the code.
    let RunPrompt::Shell(script) = &command.run_prompt else {
        panic!("{:?}", command.run_prompt)
    };
    assert!(
        script
            .pieces
            .contains(&ScriptPiece::Text(" 2>&1 | tee agent.log".into()))
    );
    let claude = load_agent_file(&fixture("mcpchecker/agents/claude-code.yaml")).unwrap();
    let Agent::Command(command) = claude else {
        panic!("{claude:?}")
    };
    assert!(matches!(command.run_prompt, RunPrompt::Shell(_)));
    assert_eq!(
        command.run_prompt.fields(),
        [
            Field::McpServerFileArgs,
            Field::AllowedToolArgs,
            Field::Prompt
        ]
    );
}

#[test]
fn shell_false_splits_the_command_line_into_words() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agent.yaml");
    std::fs::write(
        &file,
        "kind: Agent\nmetadata: {name: a}\ncommands:\n  shell: false\n  \
         runPrompt: agent --mcp {{ .McpServerFileArgs }} -p \"{{ .Prompt }}\"\n",
    )
    .unwrap();
    let Agent::Command(command) = load_agent_file(&file).unwrap() else {
        panic!()
    };
    let RunPrompt::Words(template) = &command.run_prompt else {
        panic!("{:?}", command.run_prompt)
    };
    assert_eq!(template.words.len(), 5, "{:?}", template.words);
}

#[test]
fn a_relative_server_command_resolves_against_the_mcp_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("configs/mcp.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "mcpServers:\n  own: {command: ../bin/server}\n  npx: {command: npx}\n",
    )
    .unwrap();
    let mcp = mcpeval::config::load_mcp_config(&config).unwrap();
    let Transport::Stdio { command, .. } = &mcp.servers["own"].transport else {
        panic!()
    };
    assert_eq!(Path::new(command), dir.path().join("configs/../bin/server"));
    let Transport::Stdio { command, .. } = &mcp.servers["npx"].transport else {
        panic!()
    };
    assert_eq!(command, "npx");
}

#[test]
fn mcpchecker_eval_with_an_extension_loads_its_package_requirement_and_steps() {
    assert_eq!(
        names("mcpchecker/extensions.yaml"),
        ["mcpchecker-extensions::deploy-web"]
    );
    let eval = load_eval(&fixture("mcpchecker/extensions.yaml")).unwrap();
    let kubernetes = &eval.extensions["kubernetes"];
    assert_eq!(
        kubernetes.package,
        Package::GitHub(GitHubPackage {
            owner: "mcpchecker".into(),
            repo: "kubernetes-extension".into(),
            version: Some("v0.0.2".into()),
        })
    );
    let plan = plan_eval(eval).unwrap();
    let task = plan.cases[0].load(&plan.eval).unwrap();
    let steps: Vec<String> = task
        .extension_steps()
        .map(|s| format!("{} {} {}", s.key_path, s.name(), s.extension))
        .collect();
    assert_eq!(
        steps,
        [
            "spec.setup[0] k8s.delete kubernetes",
            "spec.setup[1] k8s.create kubernetes",
            "spec.verify[0] k8s.wait kubernetes",
            "spec.cleanup[0] k8s.delete kubernetes",
        ]
    );
    let wait = task.extension_steps().nth(2).unwrap();
    assert_eq!(wait.args["metadata"]["namespace"], "web-test");
    assert_eq!(wait.args["timeout"], "90s");
}

#[test]
fn argument_patterns_load_from_yaml_and_match_recorded_calls() {
    use mcpeval::trace::{Outcome, RecordedCall};
    use serde_json::{Value, json};

    let lookup = |name: &str| (name == "MCPEVAL_BIN").then(|| "mcpeval".to_owned());
    let eval = mcpeval::config::load_eval_with(&fixture("arguments/eval.yaml"), &lookup).unwrap();
    let a = &eval.task_sets[0].assertions;
    let call = |name: &str, arguments: Value| RecordedCall {
        server: "demo".into(),
        kind: CallKind::Tool,
        name: name.into(),
        arguments: Some(arguments),
        outcome: Outcome::Ok { result: json!({}) },
        start_offset: Duration::ZERO,
        duration: Duration::ZERO,
        injected: None,
        rounds: Vec::new(),
        task: Vec::new(),
        turn: None,
    };
    // `{a: 20, b: {$type: integer}}`
    assert!(a.tools_used[0].matches_call(&call("add", json!({"a": 20, "b": 22, "c": 0}))));
    assert!(!a.tools_used[0].matches_call(&call("add", json!({"a": 20, "b": 2.5}))));
    // `{id: "3"}`: a YAML string, so the number 3 does not match.
    assert!(a.tools_not_used[0].matches_call(&call("lookup_user", json!({"id": "3"}))));
    assert!(!a.tools_not_used[0].matches_call(&call("lookup_user", json!({"id": 3}))));
    // `{a: 20.0}` equals the integer 20; shown as written.
    let add = &a.call_order[1];
    assert!(add.matches_call(&call("add", json!({"a": 20, "b": 1}))));
    assert_eq!(add.describe(), r#"tool demo/add with arguments {"a":20.0}"#);
    assert_eq!(a.max_tool_errors, Some(1));
}

#[test]
fn codex_and_gemini_cli_load_as_builtins_with_their_model_and_api() {
    use mcpeval::llm_proxy::LlmApi;
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("mcp.yaml", "mcpServers:\n  s: {command: server}\n");
    write(
        "task.yaml",
        "kind: Task\nmetadata: {name: t}\nsteps: {prompt: {inline: hi}}\n",
    );
    let eval = |agent: &str| {
        write(
            "eval.yaml",
            &format!(
                "kind: Eval\nmetadata: {{name: e}}\nconfig:\n  agent: {agent}\n  \
                 mcpConfigFile: mcp.yaml\n  taskSets:\n    - path: task.yaml\n"
            ),
        );
        load_eval(&dir.path().join("eval.yaml")).unwrap().agent
    };
    let codex = eval("{type: builtin.codex, model: gpt-test}");
    assert_eq!(
        codex,
        Agent::Builtin(BuiltinAgent {
            model: Some("gpt-test".into()),
            ..BuiltinAgent::of(KindId::Codex)
        })
    );
    let llm = codex.llm().unwrap();
    assert_eq!(
        (llm.api, llm.base_url_env.as_str()),
        (LlmApi::OpenAiResponses, "OPENAI_BASE_URL")
    );
    let gemini = eval("{type: builtin.gemini-cli}");
    assert_eq!(gemini.name(), "gemini-cli");
    let llm = gemini.llm().unwrap();
    assert_eq!(
        (llm.api, llm.base_url_env.as_str()),
        (LlmApi::Gemini, "GOOGLE_GEMINI_BASE_URL")
    );
    // An Agent file names them without `builtin.`.
    write(
        "agent.yaml",
        "kind: Agent\nmetadata: {name: g}\nbuiltin: {type: gemini-cli}\ncommands: {getVersion: echo 1}\n",
    );
    let agent = load_agent_file(&dir.path().join("agent.yaml")).unwrap();
    assert!(matches!(
        agent,
        Agent::Builtin(BuiltinAgent {
            kind: KindId::GeminiCli,
            model: None,
            ..
        })
    ));
    assert_eq!(agent.options().get_version.as_deref(), Some("echo 1"));
}
