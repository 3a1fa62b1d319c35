//! Agent files run through a real shell: a hostile prompt reaches the program byte for byte in
//! every quoting context and nothing in it executes; pipes work; list fields become the same
//! arguments with and without a shell. Every POSIX shell found on `PATH` is tried.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpeval::agent::{AgentOutcome, AgentRun, ProxiedServer, run_file_agent};
use mcpeval::config::{Agent, AgentCommand, load_agent_file};

/// Everything that would run a command if it were pasted into the script, in any quoting
/// context: substitutions, separators, both quotes, heredoc delimiters, a trailing backslash.
const HOSTILE: &str = concat!(
    "it's a \"test\": $(touch sub) `touch tick` ; touch semi && touch and | touch pipe\n",
    "'; touch q1; ' \"; touch q2; \" $HOME ${PATH:-x} * ~ #x  two  spaces\t\n",
    "EOF\ntouch heredoc\nEOF\n",
    "%s \\n \\\" \\' $'\\'' )\" ends in a backslash \\",
);

/// The POSIX shells on this machine (`sh` at least).
fn shells() -> Vec<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found: Vec<PathBuf> = ["sh", "bash", "dash", "zsh", "ksh", "mksh"]
        .iter()
        .filter_map(|name| {
            std::env::split_paths(&path)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
        .collect();
    assert!(!found.is_empty(), "no sh on PATH");
    found
}

/// An Agent file with these `commands` lines (YAML, indented by two), loaded.
fn agent(dir: &Path, commands: &str) -> AgentCommand {
    let file = dir.join("agent.yaml");
    let text = format!("kind: Agent\nmetadata: {{name: probe}}\ncommands:\n{commands}");
    std::fs::write(&file, text).unwrap();
    match load_agent_file(&file) {
        Ok(Agent::Command(command)) => *command,
        other => panic!("{other:?}"),
    }
}

/// `runPrompt: |-` with `script` as its block.
fn run_prompt(script: &str) -> String {
    let body: Vec<String> = script.lines().map(|line| format!("    {line}")).collect();
    format!("  runPrompt: |-\n{}\n", body.join("\n"))
}

fn servers() -> Vec<ProxiedServer> {
    vec![
        ProxiedServer {
            name: "k8s".into(),
            url: "http://127.0.0.1:1/mcp".into(),
            allowed_tools: vec!["pods_list".into(), "pods get".into()],
        },
        ProxiedServer {
            name: "docs".into(),
            url: "http://127.0.0.1:2/mcp".into(),
            allowed_tools: vec!["search".into()],
        },
    ]
}

/// Runs the agent once in `work`, with `SHELL` set to `shell`.
async fn run(command: &AgentCommand, prompt: &str, work: &Path, shell: &Path) -> AgentOutcome {
    let servers = servers();
    let env = [("SHELL".to_owned(), shell.display().to_string())];
    let run = AgentRun {
        prompt,
        servers: &servers,
        mcp_config_file: Path::new("/run/my dir/mcp.json"),
        work_dir: work,
        private_dir: work,
        env: &env,
        live: false,
        timeout: Duration::from_secs(20),
    };
    run_file_agent(command, &run).await
}

/// The names of the files in `dir`, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `script` with the hostile prompt in each shell; `out` must then hold `expected`,
/// and be the only file the script made.
async fn check_hostile(script: &str, expected: &str, shells: &[PathBuf]) {
    for shell in shells {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let command = agent(dir.path(), &run_prompt(script));
        let outcome = run(&command, HOSTILE, &work, shell).await;
        let context = format!("{} running {script:?}", shell.display());
        assert!(outcome.passed(), "{context}: {}", outcome.reason());
        assert_eq!(files(&work), ["out"], "{context}: something executed");
        let written = std::fs::read(work.join("out")).unwrap();
        assert_eq!(String::from_utf8_lossy(&written), expected, "{context}");
    }
}

#[tokio::test]
async fn a_hostile_prompt_is_one_argument_byte_for_byte_outside_quotes() {
    let one_arg = format!("{HOSTILE}\0");
    check_hostile("printf '%s\\0' {{ .Prompt }} > out", &one_arg, &shells()).await;
}

#[tokio::test]
async fn a_hostile_prompt_is_one_argument_byte_for_byte_inside_double_quotes() {
    let one_arg = format!("{HOSTILE}\0");
    check_hostile(
        "printf '%s\\0' \"{{ .Prompt }}\" > out",
        &one_arg,
        &shells(),
    )
    .await;
}

#[tokio::test]
async fn a_hostile_prompt_is_one_argument_byte_for_byte_inside_single_quotes() {
    let one_arg = format!("{HOSTILE}\0");
    check_hostile("printf '%s\\0' '{{ .Prompt }}' > out", &one_arg, &shells()).await;
}

#[tokio::test]
async fn a_hostile_prompt_glued_to_text_in_each_quoting_stays_in_its_word() {
    let script =
        r#"printf '%s\0' --b={{ .Prompt }} "d=$HOME/{{ .Prompt }}!" 's=$HOME {{ .Prompt }}' > out"#;
    let home = std::env::var("HOME").unwrap_or_default();
    let expected = format!("--b={HOSTILE}\0d={home}/{HOSTILE}!\0s=$HOME {HOSTILE}\0");
    check_hostile(script, &expected, &shells()).await;
}

#[tokio::test]
async fn a_hostile_prompt_inside_ansi_c_quotes_of_bash() {
    let bash: Vec<PathBuf> = shells()
        .into_iter()
        .filter(|shell| shell.ends_with("bash"))
        .collect();
    let expected = format!("a\t{HOSTILE}\tz\0");
    check_hostile(
        r"printf '%s\0' $'a\t{{ .Prompt }}\tz' > out",
        &expected,
        &bash,
    )
    .await;
}

#[tokio::test]
async fn a_hostile_prompt_in_heredoc_bodies_unquoted_and_quoted() {
    let script = "cat > out <<EOF\n{{ .Prompt }}\nEOF";
    check_hostile(script, &format!("{HOSTILE}\n"), &shells()).await;
    let script = "cat > out <<-'EOF'\n\t$HOME `x` \\ {{ .Prompt }}\n\tEOF";
    let expected = format!("$HOME `x` \\ {HOSTILE}\n");
    check_hostile(script, &expected, &shells()).await;
}

#[tokio::test]
async fn a_pipe_upper_cases_the_prompt_and_the_agent_files_env_cannot_replace_it() {
    let dir = tempfile::tempdir().unwrap();
    let commands = format!(
        "  env: {{MCPEVAL_PROMPT: \"$(touch env)\"}}\n{}",
        run_prompt("echo {{ .Prompt }} | tr a-z A-Z")
    );
    let command = agent(dir.path(), &commands);
    let prompt = "list pods in 'ns' $(touch sub); `touch tick` && exit 3";
    for shell in shells() {
        let outcome = run(&command, prompt, dir.path(), &shell).await;
        assert!(
            outcome.passed(),
            "{}: {}",
            shell.display(),
            outcome.reason()
        );
        assert_eq!(outcome.answer, prompt.to_uppercase(), "{}", shell.display());
        assert_eq!(files(dir.path()), ["agent.yaml"]);
    }
}

#[tokio::test]
async fn a_multi_line_script_with_mcpcheckers_printf_q_gets_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let script = "set -eu\n\
                  # the agent reads the prompt from a file (it's mcpchecker's idiom)\n\
                  P=\"$(printf '%b' {{ printf \"%q\" .Prompt }})\"\n\
                  [ -n \"$P\" ] && printf '%s' \"$P\"";
    let command = agent(dir.path(), &run_prompt(script));
    let prompt = "two\nlines with \"quotes\" and $(touch sub)";
    for shell in shells() {
        let outcome = run(&command, prompt, dir.path(), &shell).await;
        assert!(
            outcome.passed(),
            "{}: {}",
            shell.display(),
            outcome.reason()
        );
        assert_eq!(outcome.stdout, prompt, "{}", shell.display());
        assert_eq!(files(dir.path()), ["agent.yaml"]);
    }
}

/// The arguments an agent program gets from `runPrompt`, through a shell or not.
async fn argv_of(shell: bool, separator: &str, prompt: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let commands = format!(
        "  shell: {shell}\n  \
         argTemplateMcpServer: '--server {{{{ .ServerName }}}}={{{{ .URL }}}} --config \"{{{{ .File }}}}\"'\n  \
         argTemplateAllowedTools: 'mcp__{{{{ .ServerName }}}}__{{{{ .ToolName }}}}'\n  \
         allowedToolsJoinSeparator: '{separator}'\n{}",
        run_prompt(
            "sh -c 'printf \"%s\\0\" \"$@\" > argv' sh {{ .McpServerFileArgs }} \
             --tools {{ .AllowedToolArgs }} -p {{ .Prompt }}"
        )
    );
    let command = agent(dir.path(), &commands);
    let outcome = run(&command, prompt, dir.path(), Path::new("/bin/sh")).await;
    assert!(outcome.passed(), "{}", outcome.reason());
    let argv = std::fs::read_to_string(dir.path().join("argv")).unwrap();
    argv.split_terminator('\0').map(str::to_owned).collect()
}

#[tokio::test]
async fn list_fields_are_the_same_arguments_with_and_without_a_shell() {
    let servers = [
        "--server",
        "k8s=http://127.0.0.1:1/mcp",
        "--config",
        "/run/my dir/mcp.json",
        "--server",
        "docs=http://127.0.0.1:2/mcp",
        "--config",
        "/run/my dir/mcp.json",
    ];
    let mut expected: Vec<&str> = servers.to_vec();
    expected.extend([
        "--tools",
        "mcp__k8s__pods_list,mcp__k8s__pods get,mcp__docs__search",
    ]);
    expected.extend(["-p", HOSTILE]);
    assert_eq!(argv_of(true, ",", HOSTILE).await, expected);
    assert_eq!(argv_of(false, ",", HOSTILE).await, expected);
    let mut expected: Vec<&str> = servers.to_vec();
    expected.extend(["--tools", "mcp__k8s__pods_list", "mcp__k8s__pods get"]);
    expected.extend(["mcp__docs__search", "-p", "go"]);
    assert_eq!(argv_of(true, " ", "go").await, expected);
    assert_eq!(argv_of(false, " ", "go").await, expected);
}
