//! Agent command templates: the subset of Go's text/template that mcpchecker's agent files
//! use (`{{ .Field }}`, `{{- .Field -}}`, `{{ printf "%q" .Field }}`), parsed and checked when
//! the agent file loads.
//!
//! Without a shell the template is split into words first (quotes and backslashes group, as a
//! POSIX shell would), and each word keeps its fields; rendering fills the fields word by word,
//! so a value with quotes, `$`, backticks or newlines stays one argument and never executes.

use std::fmt;

use super::error::did_you_mean;

/// A value a template can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `.File`: the MCP config file written for the agent.
    File,
    /// `.URL`: one proxied server's URL.
    Url,
    /// `.ServerName`: one server's name.
    ServerName,
    /// `.ToolName`: one allowed tool's name.
    ToolName,
    /// `.McpServerFileArgs`: the rendered `argTemplateMcpServer` words.
    McpServerFileArgs,
    /// `.AllowedToolArgs`: the rendered `argTemplateAllowedTools` values.
    AllowedToolArgs,
    /// `.Prompt`: the task's prompt.
    Prompt,
}

impl Field {
    const ALL: [Field; 7] = [
        Field::File,
        Field::Url,
        Field::ServerName,
        Field::ToolName,
        Field::McpServerFileArgs,
        Field::AllowedToolArgs,
        Field::Prompt,
    ];

    /// The template spelling without the dot, e.g. `Prompt`.
    pub fn name(self) -> &'static str {
        match self {
            Field::File => "File",
            Field::Url => "URL",
            Field::ServerName => "ServerName",
            Field::ToolName => "ToolName",
            Field::McpServerFileArgs => "McpServerFileArgs",
            Field::AllowedToolArgs => "AllowedToolArgs",
            Field::Prompt => "Prompt",
        }
    }

    /// Fields that hold several values and fill several words.
    pub fn is_list(self) -> bool {
        matches!(self, Field::McpServerFileArgs | Field::AllowedToolArgs)
    }
}

/// A piece of one word: literal text or a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text.
    Text(String),
    /// A field; `quoted` when written as `printf "%q"` (shell-quoted in shell mode).
    Field {
        /// Which value.
        field: Field,
        /// Written as `printf "%q" .Field`.
        quoted: bool,
    },
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The template as written.
    pub source: String,
    /// Without a shell: the words, each a list of segments. With a shell: one "word" holding
    /// the whole text.
    pub words: Vec<Vec<Segment>>,
}

impl Template {
    /// The fields the template uses.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.words
            .iter()
            .flatten()
            .filter_map(|segment| match segment {
                Segment::Field { field, .. } => Some(*field),
                Segment::Text(_) => None,
            })
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Parses `source`. `allowed` are the fields this template may name; `split_words` is false
/// when the command runs through a shell (`shell: true`).
pub fn parse(source: &str, allowed: &[Field], split_words: bool) -> Result<Template, String> {
    let mut words: Vec<Vec<Segment>> = Vec::new();
    let mut word: Vec<Segment> = Vec::new();
    let mut text = String::new();
    // A word has started even when empty (`""` is one empty argument).
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut trim_next = false;
    let mut chars = source.char_indices().peekable();

    fn flush_text(text: &mut String, word: &mut Vec<Segment>) {
        if !text.is_empty() {
            word.push(Segment::Text(std::mem::take(text)));
        }
    }

    while let Some((at, c)) = chars.next() {
        if source[at..].starts_with("{{") {
            let close = source[at..]
                .find("}}")
                .ok_or_else(|| format!("unclosed `{{{{` at byte {at}; expected `}}}}`"))?;
            let action = &source[at + 2..at + close];
            let (action, trim_before, trim_after) = trim_markers(action);
            if trim_before && quote.is_none() {
                let kept = text.trim_end().len();
                text.truncate(kept);
                // `a {{- .X }}` continues the word before the space.
                if !started
                    && text.is_empty()
                    && let Some(previous) = words.pop()
                {
                    word = previous;
                }
            }
            let segment = parse_action(action, allowed)?;
            flush_text(&mut text, &mut word);
            word.push(segment);
            started = true;
            trim_next = trim_after;
            // Skip the rest of the action.
            let end = at + close + 2;
            while chars.peek().is_some_and(|(i, _)| *i < end) {
                chars.next();
            }
            continue;
        }
        if trim_next && quote.is_none() && c.is_whitespace() {
            continue;
        }
        trim_next = false;
        if !split_words {
            text.push(c);
            started = true;
            continue;
        }
        match (quote, c) {
            (None, c) if c.is_whitespace() => {
                if started {
                    flush_text(&mut text, &mut word);
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '\\') => {
                if let Some((_, next)) = chars.next()
                    && next != '\n'
                {
                    text.push(next);
                }
                started = true;
            }
            (None, c) => {
                text.push(c);
                started = true;
            }
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"'), '\\') => match chars.peek() {
                Some((_, next @ ('"' | '\\' | '$' | '`'))) => {
                    text.push(*next);
                    chars.next();
                }
                _ => text.push('\\'),
            },
            (Some(_), c) => text.push(c),
        }
    }
    if let Some(q) = quote {
        return Err(format!("unclosed {q} quote; expected a closing {q}"));
    }
    if started {
        flush_text(&mut text, &mut word);
        words.push(word);
    }
    Ok(Template {
        source: source.to_owned(),
        words,
    })
}

fn trim_markers(action: &str) -> (&str, bool, bool) {
    let mut inner = action;
    let trim_before = inner.starts_with("- ") || inner == "-";
    if trim_before {
        inner = &inner[1..];
    }
    let trim_after = inner.ends_with(" -");
    if trim_after {
        inner = &inner[..inner.len() - 1];
    }
    (inner.trim(), trim_before, trim_after)
}

fn parse_action(action: &str, allowed: &[Field]) -> Result<Segment, String> {
    let tokens: Vec<&str> = action.split_whitespace().collect();
    let (name, quoted) = match tokens.as_slice() {
        [field] if field.starts_with('.') => (&field[1..], false),
        ["printf", "\"%q\"", field] if field.starts_with('.') => (&field[1..], true),
        _ => {
            return Err(format!(
                "unsupported template action `{{{{ {action} }}}}`; expected {{{{ .Field }}}} or {{{{ printf \"%q\" .Field }}}}"
            ));
        }
    };
    let allowed_names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
    match Field::ALL.iter().find(|f| f.name() == name) {
        Some(field) if allowed.contains(field) => Ok(Segment::Field {
            field: *field,
            quoted,
        }),
        Some(_) => Err(format!(
            "field `.{name}` is not available in this template; available: .{}",
            allowed_names.join(", .")
        )),
        None => Err(format!(
            "unknown template field `.{name}`{}; available: .{}",
            did_you_mean(name, allowed_names.iter().copied()).replace("mean ", "mean ."),
            allowed_names.join(", .")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &[Field] = &[
        Field::McpServerFileArgs,
        Field::AllowedToolArgs,
        Field::Prompt,
    ];

    fn words(source: &str) -> Vec<Vec<Segment>> {
        parse(source, RUN, true).unwrap().words
    }

    fn text(s: &str) -> Segment {
        Segment::Text(s.into())
    }

    const PROMPT: Segment = Segment::Field {
        field: Field::Prompt,
        quoted: false,
    };

    #[test]
    fn splits_words_and_keeps_fields_whole() {
        assert_eq!(
            words("agent --mcp {{ .McpServerFileArgs }} -p {{ .Prompt }}"),
            vec![
                vec![text("agent")],
                vec![text("--mcp")],
                vec![Segment::Field {
                    field: Field::McpServerFileArgs,
                    quoted: false
                }],
                vec![text("-p")],
                vec![PROMPT],
            ]
        );
    }

    #[test]
    fn quotes_group_and_printf_q_marks_the_field() {
        assert_eq!(
            words(r#"a "b c" 'd e' --p={{ printf "%q" .Prompt }} """#),
            vec![
                vec![text("a")],
                vec![text("b c")],
                vec![text("d e")],
                vec![
                    text("--p="),
                    Segment::Field {
                        field: Field::Prompt,
                        quoted: true
                    }
                ],
                vec![],
            ]
        );
    }

    #[test]
    fn trim_markers_join_words() {
        assert_eq!(
            words("--p= {{- .Prompt -}} !"),
            vec![vec![text("--p="), PROMPT, text("!")]]
        );
    }

    #[test]
    fn unknown_field_is_an_error_with_suggestion() {
        let e = parse("x {{ .Promt }}", RUN, true).unwrap_err();
        assert!(
            e.contains("unknown template field `.Promt`; did you mean .Prompt?"),
            "{e}"
        );
    }

    #[test]
    fn field_of_another_template_is_an_error() {
        let e = parse("x {{ .ToolName }}", RUN, true).unwrap_err();
        assert!(e.contains("not available in this template"), "{e}");
    }

    #[test]
    fn other_actions_are_errors() {
        for bad in [
            "{{ if .Prompt }}x{{ end }}",
            "{{ .Prompt | html }}",
            "{{ .Prompt",
        ] {
            assert!(parse(bad, RUN, true).is_err(), "{bad}");
        }
    }

    #[test]
    fn shell_mode_keeps_text_verbatim() {
        let t = parse("a 'b' | c {{ .Prompt }}", RUN, false).unwrap();
        assert_eq!(t.words, vec![vec![text("a 'b' | c "), PROMPT]]);
    }
}
