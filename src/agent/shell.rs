//! A `runPrompt` run through a shell: the script with each field replaced by a reference to
//! an environment variable that holds its value, so that the value reaches the program as the
//! text it is and nothing in it executes (a parameter expansion is never parsed as code).
//!
//! | field stands                 | becomes                                        |
//! |------------------------------|------------------------------------------------|
//! | outside quotes               | `"$MCPEVAL_PROMPT"`                            |
//! | outside quotes, a list field | `"$MCPEVAL_MCP_SERVER_FILE_ARGS_1" "$…_2"` …   |
//! | inside `"…"`, heredoc body   | `${MCPEVAL_PROMPT}`                            |
//! | inside `'…'`                 | `'"$MCPEVAL_PROMPT"'` (closed, then reopened)  |
//! | inside `$'…'`                | `'"$MCPEVAL_PROMPT"$'`                         |

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::command_line::{CommandLine, Values};
use super::contract::AgentRun;
use crate::config::shell_script::{Quoting, ScriptPiece, ShellScript};
use crate::config::template::Field;

/// Shells whose quoting the references rely on; another `$SHELL` (fish, nu, …) is not used.
const POSIX_SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// The variable that holds a field's (joined) value; list items add `_1`, `_2`, ….
fn variable(field: Field) -> &'static str {
    match field {
        Field::Prompt => "MCPEVAL_PROMPT",
        Field::McpServerFileArgs => "MCPEVAL_MCP_SERVER_FILE_ARGS",
        Field::AllowedToolArgs => "MCPEVAL_ALLOWED_TOOL_ARGS",
        // Load-time validation allows no other field in runPrompt.
        Field::File | Field::Url | Field::ServerName | Field::ToolName => "MCPEVAL_UNUSED",
    }
}

/// `SHELL -c SCRIPT`, with the variables the script refers to.
pub(super) fn script_command(
    script: &ShellScript,
    values: &Values<'_>,
    shell: PathBuf,
) -> CommandLine {
    let mut env = BTreeMap::new();
    let mut text = String::new();
    for piece in &script.pieces {
        match piece {
            ScriptPiece::Text(code) => text.push_str(code),
            ScriptPiece::Field { field, quoting } => {
                text.push_str(&reference(*field, *quoting, values, &mut env));
            }
        }
    }
    CommandLine {
        argv: vec![shell.into(), "-c".into(), text.into()],
        env: env.into_iter().collect(),
    }
}

/// The code that stands for `field` where it is quoted so, its values put into `env`.
fn reference(
    field: Field,
    quoting: Quoting,
    values: &Values<'_>,
    env: &mut BTreeMap<String, String>,
) -> String {
    let name = variable(field);
    if quoting == (Quoting::Bare { whole_word: true })
        && let Some(items) = values.spread(field)
    {
        let words: Vec<String> = (1..)
            .zip(items)
            .map(|(n, item)| {
                let item_name = format!("{name}_{n}");
                env.insert(item_name.clone(), item.to_owned());
                format!("\"${item_name}\"")
            })
            .collect();
        return words.join(" ");
    }
    env.insert(name.to_owned(), values.text(field));
    match quoting {
        Quoting::Bare { .. } => format!("\"${name}\""),
        Quoting::Double => format!("${{{name}}}"),
        Quoting::Single => format!("'\"${name}\"'"),
        Quoting::AnsiC => format!("'\"${name}\"$'"),
    }
}

/// The shell that runs a script: the agent's `$SHELL` when it is a POSIX-family shell (as
/// mcpchecker runs `$SHELL -c`), else `bash` from its `PATH` (the shell agent files are
/// written for), else `/bin/sh`.
pub(super) fn shell_program(run: &AgentRun<'_>) -> PathBuf {
    choose_shell(run.var("SHELL").as_deref(), bash_on_path(run.var("PATH")))
}

/// The `SHELL` an agent gets while its LLM calls are recorded or replayed: `bash` from
/// `path`, else `/bin/sh`. Agents name their shell to the model (Claude Code's `Shell:`,
/// Codex's `<shell>`), so it is pinned alike on every machine instead of taken from the
/// user's login shell (or its absence: CI containers often have no `SHELL`).
pub(crate) fn pinned_shell(path: Option<String>) -> PathBuf {
    bash_on_path(path).unwrap_or_else(|| PathBuf::from("/bin/sh"))
}

fn bash_on_path(path: Option<String>) -> Option<PathBuf> {
    let path = path?;
    std::env::split_paths(&OsString::from(path))
        .map(|dir| dir.join("bash"))
        .find(|candidate| candidate.is_file())
}

fn choose_shell(login_shell: Option<&str>, bash: Option<PathBuf>) -> PathBuf {
    login_shell
        .map(Path::new)
        .filter(|shell| {
            shell
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| POSIX_SHELLS.contains(&name))
        })
        .map(Path::to_path_buf)
        .or(bash)
        .unwrap_or_else(|| PathBuf::from("/bin/sh"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posix_login_shell_is_used_as_it_is() {
        for shell in ["/bin/bash", "/usr/bin/zsh", "/bin/sh", "dash"] {
            assert_eq!(choose_shell(Some(shell), None), Path::new(shell));
        }
    }

    #[test]
    fn another_login_shell_falls_back_to_bash_then_sh() {
        let bash = Some(PathBuf::from("/opt/bin/bash"));
        assert_eq!(
            choose_shell(Some("/usr/bin/fish"), bash.clone()),
            Path::new("/opt/bin/bash")
        );
        assert_eq!(choose_shell(None, bash), Path::new("/opt/bin/bash"));
        assert_eq!(choose_shell(Some(""), None), Path::new("/bin/sh"));
        assert_eq!(
            choose_shell(Some("/usr/bin/nu"), None),
            Path::new("/bin/sh")
        );
    }
}
