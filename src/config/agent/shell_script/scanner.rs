//! The scan of shell code: a stack of quoting contexts, the current one deciding what each
//! character means and where a field stands.

#[path = "heredoc.rs"]
mod heredoc;

use std::collections::VecDeque;

use super::{Quoting, ScriptPiece};
use crate::config::agent::template::Field;
use heredoc::{Heredoc, escape_heredoc_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScriptItem {
    /// A character of the code.
    Char(char),
    /// A field.
    Field(Field),
}

/// What the scan is inside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Shell code: the top level, inside `$(…)` or inside backticks.
    Code(Nesting),
    Double,
    Single,
    AnsiC,
    Comment,
    /// `$((…))` or `((…))`, with `parens` open inside.
    Arithmetic {
        parens: u32,
    },
    /// The body of `heredocs[i]`.
    Body(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nesting {
    TopLevel,
    Substitution { parens: u32 },
    Backticks,
}

/// The scan's output, before quoted heredocs with fields are rewritten.
enum Out {
    Text(String),
    Field { field: Field, quoting: Quoting },
    Delimiter { heredoc: usize, written: String },
    Body { heredoc: usize, text: String },
}

/// Characters that end a word outside quotes (besides whitespace).
const METACHARACTERS: &str = "|&;()<>";

pub(super) struct Scanner<'i> {
    items: &'i [ScriptItem],
    at: usize,
    /// The contexts open, innermost last, each with the line it opened on.
    stack: Vec<(Context, usize)>,
    heredocs: Vec<Heredoc>,
    /// Heredocs whose bodies start at the next newline of the code.
    pending: VecDeque<usize>,
    out: Vec<Out>,
    word_start: bool,
    line_start: bool,
    line: usize,
}

impl<'i> Scanner<'i> {
    pub(super) fn new(items: &'i [ScriptItem]) -> Self {
        Scanner {
            items,
            at: 0,
            stack: vec![(Context::Code(Nesting::TopLevel), 1)],
            heredocs: Vec::new(),
            pending: VecDeque::new(),
            out: Vec::new(),
            word_start: true,
            line_start: true,
            line: 1,
        }
    }

    pub(super) fn scan(&mut self) -> Result<(), String> {
        while let Some(item) = self.items.get(self.at).copied() {
            if self.line_start && self.at_terminator() {
                continue;
            }
            match item {
                ScriptItem::Field(field) => self.field(field)?,
                ScriptItem::Char(c) => {
                    self.take(c);
                    self.character(c)?;
                }
            }
        }
        Ok(())
    }

    fn top(&self) -> Context {
        self.stack
            .last()
            .map_or(Context::Code(Nesting::TopLevel), |(c, _)| *c)
    }

    fn set_top(&mut self, context: Context) {
        if let Some(top) = self.stack.last_mut() {
            top.0 = context;
        }
    }

    fn push(&mut self, context: Context) {
        self.stack.push((context, self.line));
        self.word_start = matches!(context, Context::Code(_));
    }

    fn pop(&mut self) {
        self.stack.pop();
        self.word_start = false;
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        match self.items.get(self.at + ahead) {
            Some(ScriptItem::Char(c)) => Some(*c),
            _ => None,
        }
    }

    /// Consumes the current item, the character `c`, into the output.
    fn take(&mut self, c: char) {
        self.at += 1;
        self.line_start = c == '\n';
        if c == '\n' {
            self.line += 1;
        }
        let quoted_body = match self.top() {
            Context::Body(h) if self.heredocs[h].quoted => Some(h),
            _ => None,
        };
        match (quoted_body, self.out.last_mut()) {
            (Some(h), Some(Out::Body { heredoc, text })) if *heredoc == h => text.push(c),
            (Some(h), _) => self.out.push(Out::Body {
                heredoc: h,
                text: c.into(),
            }),
            (None, Some(Out::Text(text))) => text.push(c),
            (None, _) => self.out.push(Out::Text(c.into())),
        }
    }

    fn take_if(&mut self, wanted: char) -> bool {
        let found = self.peek(0) == Some(wanted);
        if found {
            self.take(wanted);
        }
        found
    }

    /// The character after a backslash, whatever it is (a field stays a field).
    fn take_escaped(&mut self) {
        if let Some(c) = self.peek(0) {
            self.take(c);
        }
    }

    /// One character, already taken, in the innermost context.
    fn character(&mut self, c: char) -> Result<(), String> {
        match self.top() {
            Context::Code(nesting) => return self.code(c, nesting),
            Context::Double => match c {
                '"' => self.pop(),
                '\\' => self.take_escaped(),
                '$' => _ = self.open_substitution(),
                '`' => self.push(Context::Code(Nesting::Backticks)),
                _ => {}
            },
            Context::Single if c == '\'' => self.pop(),
            Context::AnsiC if c == '\\' => self.take_escaped(),
            Context::AnsiC if c == '\'' => self.pop(),
            Context::Comment if c == '\n' => {
                self.pop();
                self.code_newline();
            }
            Context::Arithmetic { parens } => self.arithmetic(c, parens),
            Context::Body(h) if !self.heredocs[h].quoted => match c {
                '\\' => self.take_escaped(),
                '$' => _ = self.open_substitution(),
                '`' => self.push(Context::Code(Nesting::Backticks)),
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// One character of shell code outside quotes.
    fn code(&mut self, c: char, nesting: Nesting) -> Result<(), String> {
        let word_start = self.word_start;
        self.word_start = c.is_whitespace() || METACHARACTERS.contains(c);
        match c {
            '\\' => self.take_escaped(),
            '\'' => self.push(Context::Single),
            '"' => self.push(Context::Double),
            '$' => self.dollar(),
            '`' if nesting == Nesting::Backticks => self.pop(),
            '`' => self.push(Context::Code(Nesting::Backticks)),
            '(' => self.open_paren(nesting, word_start),
            ')' => match nesting {
                Nesting::Substitution { parens: 0 } => self.pop(),
                Nesting::Substitution { parens } => {
                    self.set_top(Context::Code(Nesting::Substitution { parens: parens - 1 }));
                }
                _ => {}
            },
            '#' if word_start => self.push(Context::Comment),
            '<' => self.redirection()?,
            '\n' => self.code_newline(),
            _ => {}
        }
        Ok(())
    }

    /// After a `$` in code: a substitution, `$'…'` or `$"…"`.
    fn dollar(&mut self) {
        if !self.open_substitution() {
            if self.take_if('\'') {
                self.push(Context::AnsiC);
            } else if self.take_if('"') {
                self.push(Context::Double);
            }
        }
    }

    /// A `(` in code: `((` at the start of a word opens arithmetic.
    fn open_paren(&mut self, nesting: Nesting, word_start: bool) {
        if word_start && self.take_if('(') {
            self.push(Context::Arithmetic { parens: 0 });
        } else if let Nesting::Substitution { parens } = nesting {
            self.set_top(Context::Code(Nesting::Substitution { parens: parens + 1 }));
        }
    }

    /// After a `<` in code: `<<` and `<<-` open a heredoc, `<<<` does not.
    fn redirection(&mut self) -> Result<(), String> {
        if self.take_if('<') && !self.take_if('<') {
            self.heredoc_operator()?;
        }
        Ok(())
    }

    /// After a `$`: `$(` or `$((` opens a substitution.
    fn open_substitution(&mut self) -> bool {
        if !self.take_if('(') {
            return false;
        }
        if self.take_if('(') {
            self.push(Context::Arithmetic { parens: 0 });
        } else {
            self.push(Context::Code(Nesting::Substitution { parens: 0 }));
        }
        true
    }

    fn arithmetic(&mut self, c: char, parens: u32) {
        match (c, parens) {
            ('(', _) => self.set_top(Context::Arithmetic { parens: parens + 1 }),
            (')', 0) => {
                self.take_if(')');
                self.pop();
            }
            (')', _) => self.set_top(Context::Arithmetic { parens: parens - 1 }),
            ('$', _) => _ = self.open_substitution(),
            _ => {}
        }
    }

    /// A newline of the code: the bodies of heredocs opened on its line start.
    fn code_newline(&mut self) {
        self.word_start = true;
        if let Some(heredoc) = self.pending.pop_front() {
            self.push(Context::Body(heredoc));
        }
    }

    fn field(&mut self, field: Field) -> Result<(), String> {
        self.at += 1;
        let quoting = match self.top() {
            Context::Code(_) => Quoting::Bare {
                whole_word: self.word_start && self.word_ends_here(),
            },
            Context::Comment | Context::Arithmetic { .. } => Quoting::Bare { whole_word: false },
            Context::Double => Quoting::Double,
            Context::Single => Quoting::Single,
            Context::AnsiC => Quoting::AnsiC,
            Context::Body(h) => self.field_in_body(h, field)?,
        };
        self.word_start = false;
        self.line_start = false;
        self.out.push(Out::Field { field, quoting });
        Ok(())
    }

    fn word_ends_here(&self) -> bool {
        match self.items.get(self.at) {
            None => true,
            Some(ScriptItem::Char(c)) => {
                c.is_whitespace() || METACHARACTERS.contains(*c) || *c == '`'
            }
            Some(ScriptItem::Field(_)) => false,
        }
    }

    /// The pieces, or the error of a quote left open.
    pub(super) fn finish(self) -> Result<Vec<ScriptPiece>, String> {
        for (context, line) in &self.stack {
            let quote = match context {
                Context::Double => "\"",
                Context::Single => "'",
                Context::AnsiC => "$'",
                _ => continue,
            };
            return Err(format!(
                "unclosed {quote} quote opened on line {line}; expected a closing {}",
                &quote[quote.len() - 1..]
            ));
        }
        let mut pieces = Vec::new();
        for out in self.out {
            let text = match out {
                Out::Field { field, quoting } => {
                    pieces.push(ScriptPiece::Field { field, quoting });
                    continue;
                }
                Out::Text(text) => text,
                Out::Delimiter { heredoc, written } => match &self.heredocs[heredoc] {
                    h if h.has_field => h.delimiter.clone(),
                    _ => written,
                },
                Out::Body { heredoc, text } => match self.heredocs[heredoc].has_field {
                    true => escape_heredoc_text(&text),
                    false => text,
                },
            };
            match pieces.last_mut() {
                Some(ScriptPiece::Text(code)) => code.push_str(&text),
                _ => pieces.push(ScriptPiece::Text(text)),
            }
        }
        Ok(pieces)
    }
}
