//! Rendering of agent command lines: word by word, no shell, values byte for byte.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::agent::AgentRun;
use crate::config::template::{self, Field, Template};

fn command(mcp: &str, tool: &str, separator: &str, run: &str, shell: bool) -> AgentCommand {
    let run_fields = [
        Field::McpServerFileArgs,
        Field::AllowedToolArgs,
        Field::Prompt,
    ];
    AgentCommand {
        file: "agent.yaml".into(),
        name: "test-agent".into(),
        llm: None,
        mcp_server_arg: template::parse(mcp, &[Field::File, Field::Url, Field::ServerName])
            .unwrap(),
        allowed_tool_arg: template::parse(tool, &[Field::ServerName, Field::ToolName]).unwrap(),
        allowed_tools_separator: separator.into(),
        run_prompt: match shell {
            true => Template {
                source: run.into(),
                words: vec![template::parse_segments(run, &run_fields).unwrap()],
            },
            false => template::parse(run, &run_fields).unwrap(),
        },
        timeout: Duration::from_secs(10),
        env: BTreeMap::new(),
        shell,
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

fn argv(c: &AgentCommand, prompt: &str) -> Vec<String> {
    render_command(c, prompt, &servers(), Path::new("/run/mcp.json"))
        .unwrap()
        .into_iter()
        .map(|a| a.into_string().unwrap())
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
        env: &[],
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
fn shell_mode_quotes_every_value() {
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "printf '%s|' {{ .Prompt }} {{ .AllowedToolArgs }} | tr -d x",
        true,
    );
    assert_eq!(
        argv(&c, "a b"),
        [
            "sh",
            "-c",
            "printf '%s|' 'a b' pods_list pods_get search | tr -d x"
        ]
    );
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        ",",
        "agent --tools {{ .AllowedToolArgs }} {{ .Prompt }}",
        true,
    );
    assert_eq!(
        argv(&c, "$(x)"),
        [
            "sh",
            "-c",
            "agent --tools 'pods_list,pods_get,search' '$(x)'"
        ]
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
    assert!(outcome.passed, "{}", outcome.reason);
    assert_eq!(outcome.stdout, prompt);
    assert!(!marker.exists());
}

#[tokio::test]
async fn shell_mode_runs_pipes_but_still_not_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("executed");
    let prompt = format!(
        "x $(touch {m}) `touch {m}` ; touch {m}",
        m = marker.display()
    );
    let c = command(
        "{{ .File }}",
        "{{ .ToolName }}",
        " ",
        "printf %s {{ .Prompt }} | tr x y",
        true,
    );
    let outcome = run_with(&c, &prompt, dir.path()).await;
    assert!(outcome.passed, "{}", outcome.reason);
    assert_eq!(outcome.stdout, prompt.replace('x', "y"));
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
    assert!(!outcome.passed);
    assert!(
        outcome
            .reason
            .starts_with("cannot start the agent `no-such-agent-program`"),
        "{}",
        outcome.reason
    );
}
