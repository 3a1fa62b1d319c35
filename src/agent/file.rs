//! The file agent (`config.agent.type: file`): the Agent file's templates rendered into a
//! command line, run without a shell (unless `shell: true`) in a fresh working directory.

use std::ffi::OsString;
use std::path::Path;

use super::{AgentOutcome, AgentRun, ProxiedServer};
use crate::config::AgentCommand;
use crate::config::template::{Field, Segment, Template};
use crate::process::{self, ProcessSpec};

/// The values a command line is rendered from.
struct Values<'a> {
    prompt: &'a str,
    mcp_server_args: Vec<String>,
    allowed_tool_args: Vec<String>,
    separator: &'a str,
}

/// The program and arguments for one agent run. Without a shell each template word becomes
/// one argument (a word that is only `.McpServerFileArgs` or, with the default separator,
/// `.AllowedToolArgs` becomes several); with `shell: true` the result is `sh -c TEXT` with
/// every value shell-quoted.
pub fn render_command(
    command: &AgentCommand,
    prompt: &str,
    servers: &[ProxiedServer],
    mcp_config_file: &Path,
) -> Result<Vec<OsString>, String> {
    let file = mcp_config_file.display().to_string();
    let per_server = command
        .mcp_server_arg
        .fields()
        .any(|f| matches!(f, Field::Url | Field::ServerName));
    let mut mcp_server_args = Vec::new();
    if per_server {
        for server in servers {
            mcp_server_args.extend(words(&command.mcp_server_arg, &|f| match f {
                Field::File => Some(file.clone()),
                Field::Url => Some(server.url.clone()),
                Field::ServerName => Some(server.name.clone()),
                _ => None,
            })?);
        }
    } else {
        mcp_server_args.extend(words(&command.mcp_server_arg, &|f| {
            (f == Field::File).then(|| file.clone())
        })?);
    }
    let mut allowed_tool_args = Vec::new();
    for server in servers {
        for tool in &server.allowed_tools {
            let rendered = words(&command.allowed_tool_arg, &|f| match f {
                Field::ServerName => Some(server.name.clone()),
                Field::ToolName => Some(tool.clone()),
                _ => None,
            })?;
            allowed_tool_args.push(rendered.join(" "));
        }
    }
    let values = Values {
        prompt,
        mcp_server_args,
        allowed_tool_args,
        separator: &command.allowed_tools_separator,
    };
    if command.shell {
        return Ok(vec![
            "sh".into(),
            "-c".into(),
            shell_text(&command.run_prompt, &values)?.into(),
        ]);
    }
    let mut argv: Vec<OsString> = Vec::new();
    for word in &command.run_prompt.words {
        match word.as_slice() {
            [
                Segment::Field {
                    field: Field::McpServerFileArgs,
                    ..
                },
            ] => {
                argv.extend(values.mcp_server_args.iter().map(OsString::from));
            }
            [
                Segment::Field {
                    field: Field::AllowedToolArgs,
                    ..
                },
            ] if values.separator.trim().is_empty() => {
                argv.extend(values.allowed_tool_args.iter().map(OsString::from));
            }
            segments => argv.push(join_word(segments, &values).into()),
        }
    }
    if argv.is_empty() {
        return Err("the command line is empty".into());
    }
    Ok(argv)
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

fn join_word(segments: &[Segment], values: &Values<'_>) -> String {
    segments
        .iter()
        .map(|segment| match segment {
            Segment::Text(text) => text.clone(),
            Segment::Field { field, .. } => match field {
                Field::Prompt => values.prompt.to_owned(),
                Field::McpServerFileArgs => values.mcp_server_args.join(" "),
                Field::AllowedToolArgs => values.allowed_tool_args.join(values.separator),
                // Load-time validation allows no other field in runPrompt.
                _ => String::new(),
            },
        })
        .collect()
}

fn shell_text(template: &Template, values: &Values<'_>) -> Result<String, String> {
    let quote = |value: &str| {
        shlex::try_quote(value)
            .map(|q| q.into_owned())
            .map_err(|e| format!("cannot quote {value:?} for the shell: {e}"))
    };
    let quote_all = |items: &[String], separator: &str| -> Result<String, String> {
        Ok(items
            .iter()
            .map(|item| quote(item))
            .collect::<Result<Vec<_>, _>>()?
            .join(separator))
    };
    let mut text = String::new();
    for segment in template.words.iter().flatten() {
        match segment {
            Segment::Text(literal) => text.push_str(literal),
            Segment::Field {
                field: Field::Prompt,
                ..
            } => text.push_str(&quote(values.prompt)?),
            Segment::Field {
                field: Field::McpServerFileArgs,
                ..
            } => text.push_str(&quote_all(&values.mcp_server_args, " ")?),
            Segment::Field {
                field: Field::AllowedToolArgs,
                ..
            } => {
                if values.separator.trim().is_empty() {
                    text.push_str(&quote_all(&values.allowed_tool_args, " ")?);
                } else {
                    text.push_str(&quote(&values.allowed_tool_args.join(values.separator))?);
                }
            }
            Segment::Field { .. } => {}
        }
    }
    Ok(text)
}

/// Runs the file agent once: command line rendered, in `run.work_dir`, environment plus
/// `run.env` plus the Agent file's `env`, bounded by its timeout.
pub async fn run_file_agent(command: &AgentCommand, run: &AgentRun<'_>) -> AgentOutcome {
    let failed = AgentOutcome::failed;
    let argv = match render_command(command, run.prompt, run.servers, run.mcp_config_file) {
        Ok(argv) => argv,
        Err(e) => return failed(format!("cannot build the agent's command line: {e}")),
    };
    let spec = ProcessSpec {
        program: argv[0].clone(),
        args: argv[1..].to_vec(),
        // The Agent file's own `env` wins over the harness's variables.
        env: run
            .env
            .iter()
            .map(|(k, v)| (k, v))
            .chain(&command.env)
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        cwd: run.work_dir.to_path_buf(),
        live: run.live,
    };
    match process::run(&spec, run.timeout).await {
        Ok(finished) => AgentOutcome {
            passed: finished.success(),
            reason: match finished.status {
                _ if finished.success() => String::new(),
                None => format!(
                    "the agent {} (its commands.timeout)",
                    finished.describe(run.timeout)
                ),
                Some(_) => format!("the agent failed with {}", finished.describe(run.timeout)),
            },
            answer: finished.stdout.trim().to_owned(),
            stdout: finished.stdout,
            stderr: finished.stderr,
            usage: None,
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
