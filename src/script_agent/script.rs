//! A script: the directives of a prompt, one per line; other lines are prose and ignored.

use std::time::Duration;

use serde_json::Value;

/// One line of the script.
#[derive(Debug, Clone, PartialEq)]
pub enum Directive {
    /// `call SERVER TOOL [JSON]`
    Call {
        /// The server's name in the MCP config.
        server: String,
        /// The tool.
        tool: String,
        /// Its arguments, when given.
        arguments: Option<Value>,
    },
    /// `read SERVER URI`
    Read {
        /// The server's name in the MCP config.
        server: String,
        /// The resource.
        uri: String,
    },
    /// `prompt SERVER NAME [JSON]`
    Prompt {
        /// The server's name in the MCP config.
        server: String,
        /// The prompt.
        name: String,
        /// Its arguments, when given.
        arguments: Option<Value>,
    },
    /// `list SERVER`
    List {
        /// The server's name in the MCP config.
        server: String,
    },
    /// `list-all SERVER`
    ListAll {
        /// The server's name in the MCP config.
        server: String,
    },
    /// `say TEXT`
    Say(String),
    /// `sleep SECONDS`
    Sleep(Duration),
    /// `exit CODE`
    Exit(i32),
}

/// A directive that cannot be read: its line and why.
#[derive(Debug, thiserror::Error)]
#[error("line {number}: `{line}`: {reason}")]
pub struct ScriptError {
    /// The line's number, from 1.
    pub number: usize,
    /// The line, trimmed.
    pub line: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads the directives of `prompt`; a directive with bad arguments is an error naming its line.
pub fn parse_script(prompt: &str) -> Result<Vec<Directive>, ScriptError> {
    let mut directives = Vec::new();
    for (number, line) in prompt.lines().enumerate() {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let error = |reason: String| ScriptError {
            number: number + 1,
            line: line.to_owned(),
            reason,
        };
        let json = |text: &str| -> Result<Option<Value>, ScriptError> {
            if text.is_empty() {
                Ok(None)
            } else {
                serde_json::from_str(text)
                    .map(Some)
                    .map_err(|e| error(format!("arguments are not JSON: {e}")))
            }
        };
        let two = |text: &str| -> Result<(String, String, String), ScriptError> {
            let mut parts = text.splitn(3, char::is_whitespace);
            match (parts.next(), parts.next()) {
                (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => Ok((
                    a.to_owned(),
                    b.to_owned(),
                    parts.next().unwrap_or("").trim().to_owned(),
                )),
                _ => Err(error("expected a server and a name".into())),
            }
        };
        let directive = match word {
            "call" => {
                let (server, tool, args) = two(rest)?;
                Directive::Call {
                    server,
                    tool,
                    arguments: json(&args)?,
                }
            }
            "read" => {
                let (server, uri, extra) = two(rest)?;
                if !extra.is_empty() {
                    return Err(error("expected a server and one URI".into()));
                }
                Directive::Read { server, uri }
            }
            "prompt" => {
                let (server, name, args) = two(rest)?;
                Directive::Prompt {
                    server,
                    name,
                    arguments: json(&args)?,
                }
            }
            "list" if !rest.is_empty() => Directive::List {
                server: rest.to_owned(),
            },
            "list-all" if !rest.is_empty() => Directive::ListAll {
                server: rest.to_owned(),
            },
            "say" => Directive::Say(rest.to_owned()),
            "sleep" => Directive::Sleep(Duration::from_secs_f64(
                rest.parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| error("expected seconds".into()))?,
            )),
            "exit" => Directive::Exit(
                rest.parse()
                    .map_err(|_| error("expected an exit code".into()))?,
            ),
            _ => continue,
        };
        directives.push(directive);
    }
    Ok(directives)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_directives_and_skips_prose() {
        let script = "Please do this:\ncall demo add {\"a\": 1, \"b\": 2}\nread demo demo://readme\nprompt demo summarize {\"topic\": \"x\"}\nlist demo\nlist-all demo\nsay done\nsleep 0.5\nexit 3\nthank you";
        let directives = parse_script(script).unwrap();
        assert_eq!(directives.len(), 8);
        assert_eq!(
            directives[0],
            Directive::Call {
                server: "demo".into(),
                tool: "add".into(),
                arguments: Some(json!({"a": 1, "b": 2}))
            }
        );
        assert_eq!(
            directives[1],
            Directive::Read {
                server: "demo".into(),
                uri: "demo://readme".into()
            }
        );
        assert_eq!(
            directives[4],
            Directive::ListAll {
                server: "demo".into()
            }
        );
        assert_eq!(directives[6], Directive::Sleep(Duration::from_millis(500)));
        assert_eq!(directives[7], Directive::Exit(3));
    }

    #[test]
    fn bad_arguments_name_the_line() {
        let error = parse_script("call demo add {not json}").unwrap_err();
        assert!(error.to_string().contains("line 1"), "{error}");
        assert!(error.to_string().contains("not JSON"), "{error}");
        assert!(parse_script("call demo").is_err());
    }
}
