//! Rendering of agent command lines: word by word without a shell, references to variables
//! through one (`tests/run/shell_agent.rs` runs real shells).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::agent::{AgentRun, ProxiedServer};
use crate::config::shell_script;
use crate::config::template::{self, Field};

const RUN_FIELDS: &[Field] = &[
    Field::McpServerFileArgs,
    Field::AllowedToolArgs,
    Field::Prompt,
];

fn command(mcp: &str, tool: &str, separator: &str, run: &str, shell: bool) -> AgentCommand {
    AgentCommand {
        file: "agent.yaml".into(),
        name: "test-agent".into(),
        llm: None,
        options: Default::default(),
        mcp_server_arg: template::parse(mcp, &[Field::File, Field::Url, Field::ServerName])
            .unwrap(),
        allowed_tool_arg: template::parse(tool, &[Field::ServerName, Field::ToolName]).unwrap(),
        allowed_tools_separator: separator.into(),
        run_prompt: match shell {
            true => RunPrompt::Shell(shell_script::parse(run, RUN_FIELDS).unwrap()),
            false => RunPrompt::Words(template::parse(run, RUN_FIELDS).unwrap()),
        },
        timeout: Duration::from_secs(10),
        env: BTreeMap::new(),
    }
}

fn servers() -> Vec<ProxiedServer> {
    vec![
        ProxiedServer {
            name: "k8s".into(),
            url: "http://127.0.0.1:1/mcp".into(),
            allowed_tools: vec!["pods_list".into(), "pods_get".into()],
        },
        ProxiedServer {
            name: "docs".into(),
            url: "http://127.0.0.1:2/mcp".into(),
            allowed_tools: vec!["search".into()],
        },
    ]
}

const NO_ENV: &[(String, String)] = &[];

/// The rendered command line, the agent's `SHELL` being `/bin/sh`.
fn render(c: &AgentCommand, prompt: &str) -> (Vec<String>, Vec<(String, String)>) {
    let servers = servers();
    let env = [("SHELL".to_owned(), "/bin/sh".to_owned())];
    let mut run = agent_run(
        c,
        prompt,
        &servers,
        Path::new("/run/mcp.json"),
        Path::new("/"),
    );
    run.env = &env;
    let line = render_command(c, &run).unwrap();
    let argv = line.argv.into_iter().map(|a| a.into_string().unwrap());
    (argv.collect(), line.env)
}

fn argv(c: &AgentCommand, prompt: &str) -> Vec<String> {
    render(c, prompt).0
}

fn vars(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn agent_run<'a>(
    c: &AgentCommand,
    prompt: &'a str,
    servers: &'a [ProxiedServer],
    mcp_config_file: &'a Path,
    dir: &'a Path,
) -> AgentRun<'a> {
    AgentRun {
        prompt,
        servers,
        mcp_config_file,
        work_dir: dir,
        private_dir: dir,
        env: NO_ENV,
        live: false,
        timeout: c.timeout,
    }
}

async fn run_with(c: &AgentCommand, prompt: &str, dir: &Path) -> AgentOutcome {
    let servers = servers();
    let run = agent_run(c, prompt, &servers, Path::new("/run/mcp.json"), dir);
    run_file_agent(c, &run).await
}

const NASTY: &str = "it's \"quoted\" $HOME $(rm -rf /) `id`\nsecond line; | > x";

#[test]
fn claude_style_template_renders_word_by_word() {
    let c = command(
        "--mcp-config {{ .File }}",
        "mcp__{{ .ServerName }}__{{ .ToolName }}",
        ",",
        "claude --print {{ .Prompt }} {{ .McpServerFileArgs }} --allowedTools {{ .AllowedToolArgs }}",
        false,
    );
    assert_eq!(
        argv(&c, NASTY),
        [
            "claude",
            "--print",
            NASTY,
            "--mcp-config",
            "/run/mcp.json",
            "--allowedTools",
            "mcp__k8s__pods_list,mcp__k8s__pods_get,mcp__docs__search"
        ]
    );
}

#[test]
fn default_separator_gives_one_argument_per_tool() {
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "agent --tools {{ .AllowedToolArgs }} -p {{ printf \"%q\" .Prompt }}",
        false,
    );
    assert_eq!(
        argv(&c, "hi"),
        [
            "agent",
            "--tools",
            "pods_list",
            "pods_get",
            "search",
            "-p",
            "hi"
        ]
    );
}

#[test]
fn per_server_template_renders_once_per_server() {
    let c = command(
        "--server {{ .ServerName }}={{ .URL }}",
        "{{ .ToolName }}",
        " ",
        "agent {{ .McpServerFileArgs }} {{ .Prompt }}",
        false,
    );
    assert_eq!(
        argv(&c, "go"),
        [
            "agent",
            "--server",
            "k8s=http://127.0.0.1:1/mcp",
            "--server",
            "docs=http://127.0.0.1:2/mcp",
            "go"
        ]
    );
}

#[test]
fn a_field_inside_a_larger_word_stays_in_that_word() {
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "agent --prompt={{ .Prompt }} --config={{ .McpServerFileArgs }}",
        false,
    );
    assert_eq!(
        argv(&c, "a b"),
        ["agent", "--prompt=a b", "--config=/run/mcp.json"]
    );
}

#[test]
fn a_multi_word_tool_template_spreads_into_separate_arguments() {
    let c = command(
        "{{ .File }}",
        "--allow {{ .ToolName }}",
        " ",
        "agent {{ .AllowedToolArgs }} -p {{ .Prompt }}",
        false,
    );
    let expected = [
        "agent",
        "--allow",
        "pods_list",
        "--allow",
        "pods_get",
        "--allow",
        "search",
        "-p",
        "hi",
    ];
    assert_eq!(argv(&c, "hi"), expected);
}

#[test]
fn through_a_shell_each_field_refers_to_a_variable_in_its_quoting_context() {
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        r#"agent {{ .Prompt }} "p={{ .Prompt }}" 'p={{ .Prompt }}' $'p={{ .Prompt }}' | tee log"#,
        true,
    );
    let (argv, env) = render(&c, NASTY);
    let script = concat!(
        r#"agent "$MCPEVAL_PROMPT" "p=${MCPEVAL_PROMPT}" 'p='"$MCPEVAL_PROMPT"'' "#,
        r#"$'p='"$MCPEVAL_PROMPT"$'' | tee log"#
    );
    assert_eq!(argv, ["/bin/sh", "-c", script]);
    assert_eq!(env, vars(&[("MCPEVAL_PROMPT", NASTY)]));
}

#[test]
fn through_a_shell_a_bare_list_field_is_one_variable_per_item_and_quoted_it_is_joined() {
    let c = command(
        "--mcp {{ .File }}",
        "{{ .ToolName }}",
        ",",
        r#"agent {{ .McpServerFileArgs }} --tools {{ .AllowedToolArgs }} "{{ .McpServerFileArgs }}" {{ .Prompt }}"#,
        true,
    );
    let (argv, env) = render(&c, "go");
    assert_eq!(
        argv[2],
        concat!(
            r#"agent "$MCPEVAL_MCP_SERVER_FILE_ARGS_1" "$MCPEVAL_MCP_SERVER_FILE_ARGS_2" "#,
            r#"--tools "$MCPEVAL_ALLOWED_TOOL_ARGS" "${MCPEVAL_MCP_SERVER_FILE_ARGS}" "$MCPEVAL_PROMPT""#
        )
    );
    assert_eq!(
        env,
        vars(&[
            ("MCPEVAL_ALLOWED_TOOL_ARGS", "pods_list,pods_get,search"),
            ("MCPEVAL_MCP_SERVER_FILE_ARGS", "--mcp /run/mcp.json"),
            ("MCPEVAL_MCP_SERVER_FILE_ARGS_1", "--mcp"),
            ("MCPEVAL_MCP_SERVER_FILE_ARGS_2", "/run/mcp.json"),
            ("MCPEVAL_PROMPT", "go"),
        ])
    );
}

#[test]
fn through_a_shell_tools_spread_with_a_blank_separator() {
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "agent --tools {{ .AllowedToolArgs }} {{ .Prompt }}",
        true,
    );
    let (argv, env) = render(&c, "go");
    assert_eq!(
        argv[2],
        concat!(
            r#"agent --tools "$MCPEVAL_ALLOWED_TOOL_ARGS_1" "$MCPEVAL_ALLOWED_TOOL_ARGS_2" "#,
            r#""$MCPEVAL_ALLOWED_TOOL_ARGS_3" "$MCPEVAL_PROMPT""#
        )
    );
    assert_eq!(
        env[2],
        ("MCPEVAL_ALLOWED_TOOL_ARGS_3".into(), "search".into())
    );
}

#[tokio::test]
async fn the_prompt_reaches_the_agent_byte_for_byte_and_nothing_executes() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("executed");
    let prompt = format!("{NASTY} $(touch {m}) `touch {m}`", m = marker.display());
    let outcome = run_with(
        &command(
            "{{ .File }}",
            "{{ .ToolName }}",
            " ",
            "printf %s {{ .Prompt }}",
            false,
        ),
        &prompt,
        dir.path(),
    )
    .await;
    assert!(outcome.passed(), "{}", outcome.reason());
    assert_eq!(outcome.stdout, prompt);
    assert!(!marker.exists());
}

#[tokio::test]
async fn a_missing_agent_program_is_a_clear_failure() {
    let dir = tempfile::tempdir().unwrap();
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "no-such-agent-program {{ .Prompt }}",
        false,
    );
    let servers = servers();
    let run = agent_run(&c, "hi", &servers, Path::new("/x"), dir.path());
    let outcome = run_file_agent(&c, &run).await;
    assert!(!outcome.passed());
    assert!(
        outcome
            .reason()
            .starts_with("cannot start the agent `no-such-agent-program`"),
        "{}",
        outcome.reason()
    );
}
