//! Agent files and builtin agents: through a shell or as words, Codex and Gemini CLI.

use std::time::Duration;

use mcpeval::config::shell_script::ScriptPiece;
use mcpeval::config::template::Field;
use mcpeval::config::{Agent, BuiltinAgent, KindId, RunPrompt, load_agent_file, load_eval};

use super::fixture;

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
