//! Heredocs: the operator and its delimiter word, the end of a body, and a field in a quoted
//! body (rewritten unquoted, with the body's `\`, `$` and `` ` `` escaped).

use super::{Context, METACHARACTERS, Out, Scanner, ScriptItem};
use crate::config::agent::shell_script::Quoting;
use crate::config::agent::template::Field;

pub(super) struct Heredoc {
    /// The delimiter word without its quotes.
    pub(super) delimiter: String,
    /// `<<-`: leading tabs are stripped from its lines.
    pub(super) strip_tabs: bool,
    /// The delimiter was quoted: the body is literal.
    pub(super) quoted: bool,
    /// A field stands in the body.
    pub(super) has_field: bool,
}

impl Scanner<'_> {
    /// After `<<`: the optional `-` and the delimiter word of a heredoc.
    pub(super) fn heredoc_operator(&mut self) -> Result<(), String> {
        let strip_tabs = self.take_if('-');
        while let Some(c) = self.peek(0).filter(|c| *c == ' ' || *c == '\t') {
            self.take(c);
        }
        let (written, delimiter, quoted) = self.delimiter_word()?;
        if written.is_empty() {
            return Ok(());
        }
        self.heredocs.push(Heredoc {
            delimiter,
            strip_tabs,
            quoted,
            has_field: false,
        });
        let heredoc = self.heredocs.len() - 1;
        self.pending.push_back(heredoc);
        self.out.push(Out::Delimiter { heredoc, written });
        self.word_start = false;
        Ok(())
    }

    /// The delimiter word as written, without its quotes, and whether it had any.
    fn delimiter_word(&mut self) -> Result<(String, String, bool), String> {
        let (mut written, mut delimiter, mut quoted) = (String::new(), String::new(), false);
        let mut quote = None;
        loop {
            let c = match self.items.get(self.at) {
                Some(ScriptItem::Field(_)) => {
                    return Err(format!(
                        "line {}: a heredoc delimiter cannot be a template field",
                        self.line
                    ));
                }
                Some(ScriptItem::Char(c)) => *c,
                None => break,
            };
            if quote.is_none() && (c.is_whitespace() || METACHARACTERS.contains(c)) {
                break;
            }
            self.at += 1;
            written.push(c);
            match (quote, c) {
                (None, '\'' | '"') => (quote, quoted) = (Some(c), true),
                (Some(q), c) if c == q => quote = None,
                (None, '\\') => {
                    quoted = true;
                    if let Some(next) = self.peek(0) {
                        self.at += 1;
                        written.push(next);
                        delimiter.push(next);
                    }
                }
                _ => delimiter.push(c),
            }
        }
        Ok((written, delimiter, quoted))
    }

    /// At the start of a heredoc body's line: whether it is the delimiter line, taken.
    pub(super) fn at_terminator(&mut self) -> bool {
        let Context::Body(h) = self.top() else {
            return false;
        };
        let mut line = String::new();
        let mut len = 0;
        while let Some(c) = self.peek(len).filter(|c| *c != '\n') {
            line.push(c);
            len += 1;
        }
        if matches!(self.items.get(self.at + len), Some(ScriptItem::Field(_))) {
            return false;
        }
        let heredoc = &self.heredocs[h];
        let candidate = match heredoc.strip_tabs {
            true => line.trim_start_matches('\t'),
            false => &line,
        };
        if candidate != heredoc.delimiter {
            return false;
        }
        self.stack.pop();
        line.chars().for_each(|c| self.take(c));
        if self.take_if('\n') {
            self.code_newline();
        }
        true
    }

    /// A field in a heredoc body: expands there, once a quoted heredoc is rewritten unquoted.
    pub(super) fn field_in_body(&mut self, h: usize, field: Field) -> Result<Quoting, String> {
        let heredoc = &mut self.heredocs[h];
        if heredoc.quoted && !is_plain_word(&heredoc.delimiter) {
            return Err(format!(
                "line {}: {{{{ .{} }}}} stands in a quoted heredoc whose delimiter `{}` is not a \
                 plain word; use letters, digits and `_` (e.g. <<'EOF')",
                self.line,
                field.name(),
                heredoc.delimiter
            ));
        }
        heredoc.has_field = true;
        Ok(Quoting::Double)
    }
}

/// A delimiter that means the same unquoted.
fn is_plain_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// Literal text for the body of an unquoted heredoc: `\`, `$` and `` ` `` escaped.
pub(super) fn escape_heredoc_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '$' | '`') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}
