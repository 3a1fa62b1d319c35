//! A `runPrompt` run through a shell (the default): its text is shell code, and each field is
//! placed by the quoting context it stands in (outside quotes, inside `"…"`, `'…'` or `$'…'`,
//! in a heredoc body), so that rendering can refer to the value there through an environment
//! variable. A value is never pasted into the code, so nothing in it is ever parsed as code.
//!
//! The scan follows POSIX shell quoting (and bash's `$'…'`): backslash escapes, `$(…)`,
//! `$((…))`, backticks, `#` comments and heredocs. A quoted heredoc (`<<'EOF'`) whose body names
//! a field is rewritten as the unquoted heredoc that means the same (`<<EOF`, with `\`, `$` and
//! `` ` `` of its body escaped), where the variable expands.

mod scanner;

use std::fmt;

use super::template::{Field, Segment, parse_segments};
use scanner::{Scanner, ScriptItem};

/// Where a field stands in the shell code, which decides how its value is referred to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quoting {
    /// Outside quotes.
    Bare {
        /// No other text is glued to the field: a list field may become several words.
        whole_word: bool,
    },
    /// Inside `"…"`, or in a heredoc body.
    Double,
    /// Inside `'…'`.
    Single,
    /// Inside `$'…'`.
    AnsiC,
}

/// A piece of the shell code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptPiece {
    /// Shell code, as written (a quoted heredoc with a field rewritten unquoted).
    Text(String),
    /// A field and where it stands.
    Field {
        /// Which value.
        field: Field,
        /// Its quoting context.
        quoting: Quoting,
    },
}

/// A `runPrompt` for the shell, with its fields placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellScript {
    /// The template as written.
    pub source: String,
    /// The code and the fields, in order.
    pub pieces: Vec<ScriptPiece>,
}

impl ShellScript {
    /// The fields the script uses.
    pub fn fields(&self) -> impl Iterator<Item = Field> + '_ {
        self.pieces.iter().filter_map(|piece| match piece {
            ScriptPiece::Field { field, .. } => Some(*field),
            ScriptPiece::Text(_) => None,
        })
    }
}

impl fmt::Display for ShellScript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Parses `source` as shell code with fields. `allowed` are the fields it may name.
pub fn parse(source: &str, allowed: &[Field]) -> Result<ShellScript, String> {
    let items: Vec<ScriptItem> = parse_segments(source, allowed)?
        .iter()
        .flat_map(|segment| match segment {
            Segment::Text(text) => text.chars().map(ScriptItem::Char).collect(),
            Segment::Field { field, .. } => vec![ScriptItem::Field(*field)],
        })
        .collect();
    let mut scanner = Scanner::new(&items);
    scanner.scan()?;
    Ok(ShellScript {
        source: source.to_owned(),
        pieces: scanner.finish()?,
    })
}

#[cfg(test)]
mod tests;
