//! Agent command templates: the subset of Go's text/template that mcpchecker's agent files
//! use (`{{ .Field }}`, `{{- .Field -}}`, `{{ printf "%q" .Field }}`), parsed and checked when
//! the agent file loads.
//!
//! [`parse_segments`] reads a template into text and fields. Without a shell, [`parse`] then
//! splits it into words (quotes and backslashes group, as a POSIX shell would), and each word
//! keeps its fields; rendering fills the fields word by word, so a value with quotes, `$`,
//! backticks or newlines stays one argument and never executes. Through a shell,
//! `shell_script/` places each field in its quoting context instead.

use std::fmt;

use crate::config::files::error::did_you_mean;

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
    /// A field; `quoted` when written as `printf "%q"`, which renders the same value (it is
    /// mcpchecker's way of making a value one shell word, which every field already is).
    Field {
        /// Which value.
        field: Field,
        /// Written as `printf "%q" .Field`.
        quoted: bool,
    },
}

/// A template split into words, for a command line run without a shell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The template as written.
    pub source: String,
    /// The words, each a list of segments.
    pub words: Vec<Vec<Segment>>,
}

impl Template {
    /// The fields the template uses.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.words.iter().flatten().filter_map(Segment::field)
    }
}

impl Segment {
    /// The field of a field segment.
    pub fn field(&self) -> Option<Field> {
        match self {
            Segment::Field { field, .. } => Some(*field),
            Segment::Text(_) => None,
        }
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Parses `source` into words. `allowed` are the fields this template may name.
pub fn parse(source: &str, allowed: &[Field]) -> Result<Template, String> {
    let words = split_words(&parse_segments(source, allowed)?)?;
    Ok(Template {
        source: source.to_owned(),
        words,
    })
}

/// Parses `source` into text and fields, as Go's text/template reads it: `{{- ` and ` -}}`
/// drop the whitespace before and after the action.
pub fn parse_segments(source: &str, allowed: &[Field]) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut text = String::new();
    let mut rest = source;
    let mut trim_next = false;
    while let Some(open) = rest.find("{{") {
        let at = source.len() - rest.len() + open;
        let close = rest[open..]
            .find("}}")
            .ok_or_else(|| format!("unclosed `{{{{` at byte {at}; expected `}}}}`"))?;
        let (action, trim_before, trim_after) = trim_markers(&rest[open + 2..open + close]);
        let before = &rest[..open];
        text.push_str(if trim_next {
            before.trim_start()
        } else {
            before
        });
        if trim_before {
            text.truncate(text.trim_end().len());
        }
        if !text.is_empty() {
            segments.push(Segment::Text(std::mem::take(&mut text)));
        }
        segments.push(parse_action(action, allowed)?);
        trim_next = trim_after;
        rest = &rest[open + close + 2..];
    }
    text.push_str(if trim_next { rest.trim_start() } else { rest });
    if !text.is_empty() {
        segments.push(Segment::Text(text));
    }
    Ok(segments)
}

/// Splits segments into words as a POSIX shell would (quotes and backslashes group,
/// whitespace outside quotes ends a word); a field stays whole inside its word.
fn split_words(segments: &[Segment]) -> Result<Vec<Vec<Segment>>, String> {
    let mut splitter = WordSplitter::default();
    for segment in segments {
        match segment {
            Segment::Text(text) => {
                let mut chars = text.chars().peekable();
                while let Some(c) = chars.next() {
                    splitter.character(c, &mut chars);
                }
            }
            Segment::Field { .. } => {
                splitter.flush_text();
                splitter.word.push(segment.clone());
                splitter.started = true;
            }
        }
    }
    splitter.finish()
}

/// The state of [`split_words`] between two characters.
#[derive(Default)]
struct WordSplitter {
    words: Vec<Vec<Segment>>,
    word: Vec<Segment>,
    text: String,
    /// A word has started even when empty (`""` is one empty argument).
    started: bool,
    quote: Option<char>,
}

impl WordSplitter {
    fn character(&mut self, c: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
        match (self.quote, c) {
            (None, c) if c.is_whitespace() => {
                if self.started {
                    self.end_word();
                }
                return;
            }
            (None, '\'' | '"') => self.quote = Some(c),
            (None, '\\') => {
                if let Some(next) = chars.next().filter(|next| *next != '\n') {
                    self.text.push(next);
                }
            }
            (None, c) => self.text.push(c),
            (Some('\''), '\'') | (Some('"'), '"') => self.quote = None,
            (Some('"'), '\\') => match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(next @ ('"' | '\\' | '$' | '`')) => {
                    self.text.push(*next);
                    chars.next();
                }
                _ => self.text.push('\\'),
            },
            (Some(_), c) => self.text.push(c),
        }
        self.started = true;
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

    /// The words, or the error of a quote left open.
    fn finish(mut self) -> Result<Vec<Vec<Segment>>, String> {
        if let Some(q) = self.quote {
            return Err(format!("unclosed {q} quote; expected a closing {q}"));
        }
        if self.started {
            self.end_word();
        }
        Ok(self.words)
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
        parse(source, RUN).unwrap().words
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
        let e = parse("x {{ .Promt }}", RUN).unwrap_err();
        assert!(
            e.contains("unknown template field `.Promt`; did you mean .Prompt?"),
            "{e}"
        );
    }

    #[test]
    fn field_of_another_template_is_an_error() {
        let e = parse("x {{ .ToolName }}", RUN).unwrap_err();
        assert!(e.contains("not available in this template"), "{e}");
    }

    #[test]
    fn other_actions_are_errors() {
        for bad in [
            "{{ if .Prompt }}x{{ end }}",
            "{{ .Prompt | html }}",
            "{{ .Prompt",
        ] {
            assert!(parse(bad, RUN).is_err(), "{bad}");
        }
    }

    #[test]
    fn segments_keep_text_verbatim_and_trim_around_markers() {
        let segments = parse_segments("a 'b' | c {{ .Prompt }} \n {{- .Prompt -}} \n x", RUN);
        assert_eq!(
            segments.unwrap(),
            vec![text("a 'b' | c "), PROMPT, PROMPT, text("x")]
        );
    }
}
