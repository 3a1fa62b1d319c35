//! A script: the directives of a prompt, one per line; other lines are prose and ignored.

use std::fmt;
use std::time::Duration;

use regex::Regex;
use rmcp::model::Tool;
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
    /// `pick SERVER /REGEX/ [JSON]`: the first tool whose description (else title) matches.
    Pick {
        /// The server's name in the MCP config.
        server: String,
        /// What the tool's description matches.
        pattern: ToolPattern,
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
    /// `reconnect SERVER`: a new session (a fresh `initialize`) with the server.
    Reconnect {
        /// The server's name in the MCP config.
        server: String,
    },
    /// `give-up SECONDS`: later tool calls are cancelled after this long without an answer
    /// (`notifications/cancelled`); `give-up 0` waits for ever again.
    GiveUp(Option<Duration>),
    /// `say TEXT`
    Say(String),
    /// `sleep SECONDS`
    Sleep(Duration),
    /// `exit CODE`
    Exit(i32),
}

/// The regex of a `pick` directive (the `regex` crate's syntax, unanchored), shown as
/// `/REGEX/`.
#[derive(Debug, Clone)]
pub struct ToolPattern(Regex);

impl ToolPattern {
    /// Whether `text` holds a match.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// Whether the description of `tool` matches, or its title when it has none (its own,
    /// else its annotations'); a tool with neither is never picked.
    pub fn describes(&self, tool: &Tool) -> bool {
        let title =
            || (tool.title.as_deref()).or_else(|| tool.annotations.as_ref()?.title.as_deref());
        (tool.description.as_deref())
            .filter(|description| !description.is_empty())
            .or_else(title)
            .is_some_and(|text| self.is_match(text))
    }
}

impl PartialEq for ToolPattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}/", self.0.as_str())
    }
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
        let directive = directive(word, rest.trim()).map_err(|reason| ScriptError {
            number: number + 1,
            line: line.to_owned(),
            reason,
        })?;
        directives.extend(directive);
    }
    Ok(directives)
}

/// The directive of a line whose first word is `word`, or none for a line that is not one
/// (prose); why a directive's line is malformed.
fn directive(word: &str, rest: &str) -> Result<Option<Directive>, String> {
    let seconds = |text: &str| {
        (text.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| "expected seconds".to_owned())
    };
    let directive = match word {
        "call" => {
            let (server, tool, args) = server_and_name(rest)?;
            Directive::Call {
                server,
                tool,
                arguments: json_arguments(&args)?,
            }
        }
        "read" => {
            let (server, uri, extra) = server_and_name(rest)?;
            if !extra.is_empty() {
                return Err("expected a server and one URI".into());
            }
            Directive::Read { server, uri }
        }
        "prompt" => {
            let (server, name, args) = server_and_name(rest)?;
            Directive::Prompt {
                server,
                name,
                arguments: json_arguments(&args)?,
            }
        }
        "pick" => pick(rest)?,
        "list" if !rest.is_empty() => Directive::List {
            server: rest.to_owned(),
        },
        "list-all" if !rest.is_empty() => Directive::ListAll {
            server: rest.to_owned(),
        },
        "reconnect" if !rest.is_empty() => Directive::Reconnect {
            server: rest.to_owned(),
        },
        "say" => Directive::Say(rest.to_owned()),
        "sleep" => Directive::Sleep(Duration::from_secs_f64(seconds(rest)?)),
        "give-up" => {
            let seconds = seconds(rest)?;
            Directive::GiveUp((seconds > 0.0).then(|| Duration::from_secs_f64(seconds)))
        }
        "exit" => Directive::Exit(
            rest.parse()
                .map_err(|_| "expected an exit code".to_owned())?,
        ),
        _ => return Ok(None),
    };
    Ok(Some(directive))
}

/// `pick SERVER /REGEX/ [ARGS]`.
fn pick(rest: &str) -> Result<Directive, String> {
    let (server, rest) = (rest.split_once(char::is_whitespace))
        .ok_or_else(|| "expected a server and /REGEX/".to_owned())?;
    let (pattern, args) =
        slashed(rest.trim_start()).ok_or_else(|| "expected /REGEX/ after the server".to_owned())?;
    let pattern = Regex::new(pattern).map_err(|e| format!("bad regex /{pattern}/: {e}"))?;
    Ok(Directive::Pick {
        server: server.to_owned(),
        pattern: ToolPattern(pattern),
        arguments: json_arguments(args.trim())?,
    })
}

/// A directive's JSON arguments, none when `text` is empty.
fn json_arguments(text: &str) -> Result<Option<Value>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| format!("arguments are not JSON: {e}"))
}

/// `SERVER NAME [REST]`: the server, the name and the rest (trimmed, maybe empty).
fn server_and_name(text: &str) -> Result<(String, String, String), String> {
    let mut parts = text.splitn(3, char::is_whitespace);
    match (parts.next(), parts.next()) {
        (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => Ok((
            a.to_owned(),
            b.to_owned(),
            parts.next().unwrap_or("").trim().to_owned(),
        )),
        _ => Err("expected a server and a name".into()),
    }
}

/// `/REGEX/REST` split into the regex between the slashes (`\/` inside is a slash of the
/// regex, which the `regex` crate reads as `/`) and the rest.
fn slashed(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('/')?;
    let mut escaped = false;
    for (index, c) in inner.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '/' => return Some((&inner[..index], &inner[index + 1..])),
            _ => {}
        }
    }
    None
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

    fn pick(line: &str) -> (String, String, Option<Value>) {
        match parse_script(line).unwrap().as_slice() {
            [
                Directive::Pick {
                    server,
                    pattern,
                    arguments,
                },
            ] => (server.clone(), pattern.to_string(), arguments.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pick_takes_a_server_a_regex_between_slashes_and_json() {
        assert_eq!(
            pick(r#"pick demo /^Deletes a user$/ {"id": "1"}"#),
            (
                "demo".into(),
                "/^Deletes a user$/".into(),
                Some(json!({"id": "1"}))
            )
        );
        assert_eq!(
            pick("pick demo /user/"),
            ("demo".into(), "/user/".into(), None)
        );
        // A slash of the regex is escaped; the JSON may hold slashes of its own.
        let (_, pattern, arguments) = pick(r#"pick fs /reads? a\/b/{"path": "/tmp"}"#);
        assert_eq!(pattern, r"/reads? a\/b/");
        assert_eq!(arguments, Some(json!({"path": "/tmp"})));
    }

    #[test]
    fn a_pick_regex_matches_anywhere_unless_anchored() {
        let Directive::Pick { pattern, .. } = &parse_script(r"pick demo /a\/b/").unwrap()[0] else {
            panic!("not a pick")
        };
        assert!(pattern.is_match("reads a/b files"));
        assert!(!pattern.is_match("reads a-b files"));
    }

    #[test]
    fn a_tool_is_described_by_its_description_else_its_title() {
        let pattern = |regex: &str| ToolPattern(Regex::new(regex).unwrap());
        let tool = |mut fields: Value| {
            fields["inputSchema"] = json!({"type": "object"});
            serde_json::from_value::<Tool>(fields).unwrap()
        };
        let both = tool(json!({"name": "a", "description": "Finds", "title": "Deletes"}));
        assert!(pattern("Finds").describes(&both));
        assert!(!pattern("Deletes").describes(&both));
        let titled = tool(json!({"name": "b", "description": "", "title": "Deletes"}));
        assert!(pattern("Deletes").describes(&titled));
        let annotated = tool(json!({"name": "c", "annotations": {"title": "Deletes"}}));
        assert!(pattern("Deletes").describes(&annotated));
        let bare = tool(json!({"name": "d"}));
        assert!(!pattern("").describes(&bare), "not even by its name");
    }

    #[test]
    fn a_bad_pick_names_its_line() {
        for (line, reason) in [
            ("pick demo /(unclosed/", "bad regex /(unclosed/"),
            ("pick demo user", "expected /REGEX/ after the server"),
            ("pick demo /user", "expected /REGEX/ after the server"),
            ("pick /user/ {}", "expected /REGEX/ after the server"),
            ("pick /user/", "expected a server and /REGEX/"),
            ("pick demo", "expected a server and /REGEX/"),
            ("pick demo /user/ {no json}", "arguments are not JSON"),
        ] {
            let error = parse_script(&format!("say hi\n{line}")).unwrap_err();
            let text = error.to_string();
            assert!(text.starts_with(&format!("line 2: `{line}`: ")), "{text}");
            assert!(text.contains(reason), "{line}: {text}");
        }
    }
}
