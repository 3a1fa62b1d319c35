//! The file agent (`config.agent.type: file`): the Agent file's templates rendered into a
//! command line (through a shell, `shell.rs`, unless `shell: false`), run in a fresh working
//! directory.

use crate::plumbing::ended::Ended;
use std::ffi::OsString;

use super::command_line::{CommandLine, Values};
use super::contract::{AgentOutcome, AgentRun};
use super::shell::{script_command, shell_program};
use crate::config::template::{Field, Segment, Template};
use crate::config::{AgentCommand, RunPrompt};
use crate::plumbing::process::{self, ProcessSpec};

/// The command line for one agent run. Through a shell (the default) it is `SHELL -c
/// SCRIPT`, each field a reference to a variable of [`CommandLine::env`]; with `shell:
/// false` each template word becomes one argument. Either way a word that is only a list
/// field (`.McpServerFileArgs`, `.AllowedToolArgs` with a blank separator) becomes one
/// argument per item.
pub fn render_command(command: &AgentCommand, run: &AgentRun<'_>) -> Result<CommandLine, String> {
    let values = Values {
        prompt: run.prompt,
        mcp_server_args: mcp_server_args(command, run)?,
        allowed_tools: allowed_tools(command, run)?,
        separator: &command.allowed_tools_separator,
    };
    match &command.run_prompt {
        RunPrompt::Shell(script) => Ok(script_command(script, &values, shell_program(run))),
        RunPrompt::Words(template) => Ok(CommandLine {
            argv: words_argv(template, &values)?,
            env: Vec::new(),
        }),
    }
}

/// `.McpServerFileArgs`: `argTemplateMcpServer` once for the MCP config file, or once per
/// server when it names `.URL` or `.ServerName`.
fn mcp_server_args(command: &AgentCommand, run: &AgentRun<'_>) -> Result<Vec<String>, String> {
    let file = run.mcp_config_file.display().to_string();
    let template = &command.mcp_server_arg;
    if !template
        .fields()
        .any(|f| matches!(f, Field::Url | Field::ServerName))
    {
        return words(template, &|f| (f == Field::File).then(|| file.clone()));
    }
    let mut args = Vec::new();
    for server in run.servers {
        args.extend(words(template, &|f| match f {
            Field::File => Some(file.clone()),
            Field::Url => Some(server.url.clone()),
            Field::ServerName => Some(server.name.clone()),
            _ => None,
        })?);
    }
    Ok(args)
}

/// `.AllowedToolArgs`: `argTemplateAllowedTools` once per allowed tool.
fn allowed_tools(command: &AgentCommand, run: &AgentRun<'_>) -> Result<Vec<Vec<String>>, String> {
    let mut tools = Vec::new();
    for server in run.servers {
        for tool in &server.allowed_tools {
            tools.push(words(&command.allowed_tool_arg, &|f| match f {
                Field::ServerName => Some(server.name.clone()),
                Field::ToolName => Some(tool.clone()),
                _ => None,
            })?);
        }
    }
    Ok(tools)
}

/// Renders a template that has only scalar fields into its words.
fn words(
    template: &Template,
    value: &dyn Fn(Field) -> Option<String>,
) -> Result<Vec<String>, String> {
    template
        .words
        .iter()
        .map(|word| {
            word.iter()
                .map(|segment| match segment {
                    Segment::Text(text) => Ok(text.clone()),
                    Segment::Field { field, .. } => value(*field)
                        .ok_or_else(|| format!("`.{}` has no value in `{template}`", field.name())),
                })
                .collect::<Result<String, String>>()
        })
        .collect()
}

/// Without a shell: one argument per word, list fields spread when they are a whole word.
fn words_argv(template: &Template, values: &Values<'_>) -> Result<Vec<OsString>, String> {
    let mut argv: Vec<OsString> = Vec::new();
    for word in &template.words {
        if let [segment] = word.as_slice()
            && let Some(items) = segment.field().and_then(|f| values.spread(f))
        {
            argv.extend(items.into_iter().map(OsString::from));
            continue;
        }
        let text: String = word
            .iter()
            .map(|segment| match segment {
                Segment::Text(text) => text.clone(),
                Segment::Field { field, .. } => values.text(*field),
            })
            .collect();
        argv.push(text.into());
    }
    if argv.is_empty() {
        return Err("the command line is empty".into());
    }
    Ok(argv)
}

/// Runs the file agent once: command line rendered, in `run.work_dir`, environment plus
/// `run.env` plus the Agent file's `env`, bounded by its timeout.
pub async fn run_file_agent(command: &AgentCommand, run: &AgentRun<'_>) -> AgentOutcome {
    let failed = AgentOutcome::failed;
    let CommandLine { argv, env } = match render_command(command, run) {
        Ok(line) => line,
        Err(e) => return failed(format!("cannot build the agent's command line: {e}")),
    };
    let spec = ProcessSpec {
        program: argv[0].clone(),
        args: argv[1..].to_vec(),
        // The Agent file's own `env` wins over the harness's variables; the values the
        // script refers to win over both.
        env: run
            .env
            .iter()
            .map(|(k, v)| (k, v))
            .chain(&command.env)
            .chain(env.iter().map(|(k, v)| (k, v)))
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        cwd: run.work_dir.to_path_buf(),
        live: run.live,
    };
    match process::run(&spec, run.timeout).await {
        Ok(finished) => AgentOutcome {
            tool_calls: Vec::new(),
            ended: match finished.status {
                _ if finished.success() => Ended::Passed,
                None => Ended::Failed(format!(
                    "the agent {} (its commands.timeout)",
                    finished.describe(run.timeout)
                )),
                Some(_) => Ended::Failed(format!(
                    "the agent failed with {}",
                    finished.describe(run.timeout)
                )),
            },
            answer: finished.stdout.trim().to_owned(),
            stdout: finished.stdout,
            stderr: finished.stderr,
            usage: None,
            turns: None,
            tool_call_count: None,
            version: None,
            cannot_continue: None,
        },
        Err(e) => failed(format!(
            "cannot start the agent `{}`: {e}",
            argv[0].to_string_lossy()
        )),
    }
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
