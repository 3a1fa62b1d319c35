//! YAML text written by hand, so that the files `mcpeval init` writes keep their comments and
//! are the same bytes for the same server: scalars plain when that is unambiguous, else
//! double-quoted with every character a YAML parser could read otherwise escaped.

use crate::plumbing::text::cut_at_word;
use std::fmt::Write as _;

/// Words a YAML 1.1 or 1.2 parser may read as something other than a string.
const KEYWORDS: [&str; 12] = [
    "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", "inf", "nan",
];

/// `text` as a YAML scalar that reads back as exactly this string.
pub fn scalar(text: &str) -> String {
    if is_plain(text) {
        text.to_owned()
    } else {
        quoted(text)
    }
}

/// Plain: a letter, `_` or `/` first, then letters, digits and `_ . / -`, and no keyword.
fn is_plain(text: &str) -> bool {
    let mut chars = text.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '/'));
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
        && !KEYWORDS.contains(&text.to_ascii_lowercase().as_str())
}

/// A double-quoted scalar: `"` and `\` escaped, and every control, line-separator or
/// non-character code point as `\uXXXX`.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

/// A comment line's text: on one line, at most `max` characters (cut with `…`).
pub fn comment_text(text: &str, max: usize) -> String {
    cut_at_word(&super::tools::one_line(text), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Holder {
        value: String,
    }

    #[test]
    fn scalars_read_back_as_the_same_string() {
        let cases = [
            "add",
            "get/weather",
            "-y",
            "@modelcontextprotocol/server-everything",
            "true",
            "Yes",
            "123",
            "1e3",
            "a b",
            "a: b",
            "# not a comment",
            "{x}",
            "${ACME_BIN}",
            "quote \" and \\ backslash",
            "line\nbreak\ttab\r",
            "nel\u{85} ls\u{2028} bom\u{feff} del\u{7f}",
            "über ✓ 日本",
            "",
            " lead and trail ",
            "~",
            "*alias",
            "&anchor",
            "!tag",
            "|",
            ">",
            "'single'",
            "%directive",
            "`backtick`",
        ];
        for text in cases {
            let yaml = format!("value: {}\n", scalar(text));
            let read: Holder = serde_saphyr::from_str(&yaml)
                .unwrap_or_else(|e| panic!("{yaml:?} does not load: {e}"));
            assert_eq!(read.value, text, "{yaml:?}");
        }
    }
}
