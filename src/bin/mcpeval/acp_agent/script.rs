//! The script language of `mcpeval acp-agent`'s prompts (see the agent's module): one
//! directive a line, other lines skipped.

use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// One line of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PromptDirective {
    Call {
        server: String,
        tool: String,
        arguments: Value,
    },
    Say(String),
    SaySession,
    Skill(String),
    ReadFile(String),
    Sleep(Duration),
    Hang,
    Exit(i32),
}

pub(super) fn parse(prompt: &str) -> anyhow::Result<Vec<PromptDirective>> {
    let mut directives = Vec::new();
    for (number, line) in prompt.lines().enumerate() {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let at = || format!("line {}: `{line}`", number + 1);
        directives.push(match word {
            "call" => {
                let mut parts = rest.splitn(3, char::is_whitespace);
                let (Some(server), Some(tool)) = (parts.next(), parts.next()) else {
                    bail!("{}: expected a server and a tool", at());
                };
                let arguments = match parts.next().map(str::trim).filter(|a| !a.is_empty()) {
                    Some(text) => serde_json::from_str(text)
                        .with_context(|| format!("{}: arguments are not JSON", at()))?,
                    None => json!({}),
                };
                PromptDirective::Call {
                    server: server.to_owned(),
                    tool: tool.to_owned(),
                    arguments,
                }
            }
            "say" => PromptDirective::Say(rest.to_owned()),
            "say-session" => PromptDirective::SaySession,
            "skill" => PromptDirective::Skill(rest.to_owned()),
            "read-file" => PromptDirective::ReadFile(rest.to_owned()),
            "sleep" => PromptDirective::Sleep(Duration::from_secs_f64(
                rest.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .with_context(|| format!("{}: expected seconds", at()))?,
            )),
            "hang" => PromptDirective::Hang,
            "exit" => PromptDirective::Exit(
                rest.parse()
                    .with_context(|| format!("{}: expected an exit code", at()))?,
            ),
            _ => continue,
        });
    }
    Ok(directives)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_directives_and_skips_prose() {
        let script = "Do this:\ncall demo add {\"a\": 1}\nsay done\nskill greeting\nread-file /tmp/x\nsleep 0.5\nhang\nexit 3";
        let directives = parse(script).unwrap();
        assert_eq!(directives.len(), 7);
        assert_eq!(
            directives[0],
            PromptDirective::Call {
                server: "demo".into(),
                tool: "add".into(),
                arguments: json!({"a": 1})
            }
        );
        assert_eq!(directives[6], PromptDirective::Exit(3));
        assert!(parse("call demo add {bad").is_err());
    }
}
