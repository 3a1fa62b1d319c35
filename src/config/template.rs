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
    let mut parser = TemplateParser {
        source,
        allowed,
        split_words,
        chars: source.char_indices().peekable(),
        words: Vec::new(),
        word: Vec::new(),
        text: String::new(),
        started: false,
        quote: None,
        trim_next: false,
    };
    while let Some((at, c)) = parser.chars.next() {
        if source[at..].starts_with("{{") {
            parser.action(at)?;
        } else {
            parser.character(c);
        }
    }
    parser.finish()
}

/// The state of [`parse`] between two characters of the source.
struct TemplateParser<'s> {
    source: &'s str,
    allowed: &'s [Field],
    split_words: bool,
    chars: std::iter::Peekable<std::str::CharIndices<'s>>,
    words: Vec<Vec<Segment>>,
    word: Vec<Segment>,
    text: String,
    /// A word has started even when empty (`""` is one empty argument).
    started: bool,
    quote: Option<char>,
    /// The action before ended with `-}}`: skip the whitespace that follows.
    trim_next: bool,
}

impl TemplateParser<'_> {
    /// The action `{{ ... }}` that starts at byte `at`: becomes a field segment of the word.
    fn action(&mut self, at: usize) -> Result<(), String> {
        let source = self.source;
        let close = source[at..]
            .find("}}")
            .ok_or_else(|| format!("unclosed `{{{{` at byte {at}; expected `}}}}`"))?;
        let action = &source[at + 2..at + close];
        let (action, trim_before, trim_after) = trim_markers(action);
        if trim_before && self.quote.is_none() {
            self.trim_text_before_action();
        }
        let segment = parse_action(action, self.allowed)?;
        self.flush_text();
        self.word.push(segment);
        self.started = true;
        self.trim_next = trim_after;
        // Skip the rest of the action.
        let end = at + close + 2;
        while self.chars.peek().is_some_and(|(i, _)| *i < end) {
            self.chars.next();
        }
        Ok(())
    }

    /// `{{-`: drops the whitespace before the action.
    fn trim_text_before_action(&mut self) {
        let kept = self.text.trim_end().len();
        self.text.truncate(kept);
        // `a {{- .X }}` continues the word before the space.
        if !self.started
            && self.text.is_empty()
            && let Some(previous) = self.words.pop()
        {
            self.word = previous;
        }
    }

    /// One character outside an action.
    fn character(&mut self, c: char) {
        if self.trim_next && self.quote.is_none() && c.is_whitespace() {
            return;
        }
        self.trim_next = false;
        if !self.split_words {
            self.text.push(c);
            self.started = true;
            return;
        }
        self.split_character(c);
    }

    /// One character when splitting into words: quotes and backslashes group, as in a POSIX
    /// shell, and whitespace outside quotes ends a word.
    fn split_character(&mut self, c: char) {
        match (self.quote, c) {
            (None, c) if c.is_whitespace() => {
                if self.started {
                    self.end_word();
                }
            }
            (None, '\'' | '"') => {
                self.quote = Some(c);
                self.started = true;
            }
            (None, '\\') => {
                if let Some((_, next)) = self.chars.next()
                    && next != '\n'
                {
                    self.text.push(next);
                }
                self.started = true;
            }
            (None, c) => {
                self.text.push(c);
                self.started = true;
            }
            (Some('\''), '\'') | (Some('"'), '"') => self.quote = None,
            (Some('"'), '\\') => match self.chars.peek() {
                Some((_, next @ ('"' | '\\' | '$' | '`'))) => {
                    self.text.push(*next);
                    self.chars.next();
                }
                _ => self.text.push('\\'),
            },
            (Some(_), c) => self.text.push(c),
        }
    }

    fn flush_text(&mut self) {
        if !self.text.is_empty() {
            self.word
                .push(Segment::Text(std::mem::take(&mut self.text)));
        }
    }

    fn end_word(&mut self) {
        self.flush_text();
        self.words.push(std::mem::take(&mut self.word));
        self.started = false;
    }

    /// The template, or the error of a quote left open.
    fn finish(mut self) -> Result<Template, String> {
        if let Some(q) = self.quote {
            return Err(format!("unclosed {q} quote; expected a closing {q}"));
        }
        if self.started {
            self.end_word();
        }
        Ok(Template {
            source: self.source.to_owned(),
            words: self.words,
        })
    }
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
