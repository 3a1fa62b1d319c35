//! Matching a call's arguments against an [`ArgumentPattern`]: whether they match, how close
//! they came (for naming the closest call in a failure) and the first point where they differ.

use std::fmt;

use serde_json::{Number, Value};

use super::arguments::{ArgumentPattern, Pattern, ValueType, child_path, compact};

/// How a call's arguments compare with a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentsComparison {
    /// How many leaves of the pattern (literals, `$match`, `$type`) matched: the larger, the
    /// closer the call came.
    pub matched: usize,
    /// The first point, in the pattern's order, where the arguments differ; `None` when they
    /// match.
    pub difference: Option<Difference>,
}

impl ArgumentsComparison {
    /// The arguments match the pattern.
    pub fn is_match(&self) -> bool {
        self.difference.is_none()
    }
}

/// Where a call's arguments first differ from a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The JSON path, e.g. `arguments.path` or `arguments.items[1]`.
    pub path: String,
    /// What the pattern asks for there, e.g. `/^\/tmp/ to match`.
    pub expected: String,
    /// What the call has there, e.g. `"/etc/passwd"` or `no such key`.
    pub found: String,
}

impl fmt::Display for Difference {
    /// `arguments.path: expected /^\/tmp/ to match, found "/etc/passwd"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, found {}",
            self.path, self.expected, self.found
        )
    }
}

impl ArgumentPattern {
    /// Compares a call's arguments with the pattern; no arguments compare as `{}`.
    pub fn compare(&self, arguments: Option<&Value>) -> ArgumentsComparison {
        let empty = Value::Object(Default::default());
        let mut comparison = ArgumentsComparison {
            matched: 0,
            difference: None,
        };
        walk(
            &self.root,
            arguments.unwrap_or(&empty),
            "arguments",
            &mut comparison,
        );
        comparison
    }

    /// Whether a call's arguments match the pattern.
    pub fn matches(&self, arguments: Option<&Value>) -> bool {
        self.compare(arguments).is_match()
    }
}

/// Compares `actual` at `path` with `pattern`, counting matched leaves and keeping the first
/// difference. Goes on after a difference, so the count says how close the whole call came.
fn walk(pattern: &Pattern, actual: &Value, path: &str, out: &mut ArgumentsComparison) {
    match (pattern, actual) {
        (Pattern::Object(entries), Value::Object(map)) => {
            for (key, pattern) in entries {
                let at = child_path(path, key);
                match map.get(key) {
                    Some(value) => walk(pattern, value, &at, out),
                    None => missing(pattern, at, out),
                }
            }
        }
        (Pattern::Object(_), _) => differ(out, path, "an object".into(), actual),
        (Pattern::Array(items), Value::Array(values)) => {
            if items.len() != values.len() && out.difference.is_none() {
                out.difference = Some(Difference {
                    path: path.to_owned(),
                    expected: format!("an array of {}", items_count(items.len())),
                    found: format!("{} ({})", compact(actual), items_count(values.len())),
                });
            }
            for (i, (pattern, value)) in items.iter().zip(values).enumerate() {
                walk(pattern, value, &format!("{path}[{i}]"), out);
            }
        }
        (Pattern::Array(_), _) => differ(out, path, "an array".into(), actual),
        (leaf, actual) if leaf_matches(leaf, actual) => out.matched += 1,
        (leaf, actual) => differ(out, path, expected(leaf), actual),
    }
}

/// Keeps the first difference.
fn differ(out: &mut ArgumentsComparison, path: &str, expected: String, actual: &Value) {
    out.difference.get_or_insert_with(|| Difference {
        path: path.to_owned(),
        expected,
        found: compact(actual),
    });
}

/// A key of the pattern that the actual object lacks.
fn missing(pattern: &Pattern, path: String, out: &mut ArgumentsComparison) {
    out.difference.get_or_insert_with(|| Difference {
        path,
        expected: expected(pattern),
        found: "no such key".into(),
    });
}

fn items_count(n: usize) -> String {
    match n {
        1 => "1 item".into(),
        n => format!("{n} items"),
    }
}

/// What a pattern node asks for, as a failure message says it.
fn expected(pattern: &Pattern) -> String {
    match pattern {
        Pattern::Literal(value) => compact(value),
        Pattern::Match(regex) => format!("/{}/ to match", slashes_escaped(regex.as_str())),
        Pattern::Type(kind) => format!("type {}", kind.name()),
        Pattern::Object(_) => "an object".into(),
        Pattern::Array(items) => format!("an array of {}", items_count(items.len())),
    }
}

/// A regex between slashes, as people write it: unescaped `/` escaped.
fn slashes_escaped(regex: &str) -> String {
    let mut out = String::with_capacity(regex.len());
    let mut escaped = false;
    for c in regex.chars() {
        if c == '/' && !escaped {
            out.push('\\');
        }
        escaped = c == '\\' && !escaped;
        out.push(c);
    }
    out
}

fn leaf_matches(leaf: &Pattern, actual: &Value) -> bool {
    match leaf {
        Pattern::Literal(expected) => same_json(expected, actual),
        Pattern::Match(regex) => regex.is_match(&text_of(actual)),
        Pattern::Type(kind) => has_type(*kind, actual),
        Pattern::Object(_) | Pattern::Array(_) => false,
    }
}

/// The text `$match` reads: a string itself, anything else as compact JSON (`42`, `true`,
/// `null`, `[1,2]`, `{"a":1}`).
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Scalars equal as JSON values: numbers by value (`1` equals `1.0`), the rest exactly.
fn same_json(expected: &Value, actual: &Value) -> bool {
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => same_number(a, b),
        _ => expected == actual,
    }
}

fn same_number(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    a.as_f64() == b.as_f64()
}

fn has_type(kind: ValueType, value: &Value) -> bool {
    match (kind, value) {
        (ValueType::String, Value::String(_))
        | (ValueType::Number, Value::Number(_))
        | (ValueType::Boolean, Value::Bool(_))
        | (ValueType::Array, Value::Array(_))
        | (ValueType::Object, Value::Object(_))
        | (ValueType::Null, Value::Null) => true,
        (ValueType::Integer, Value::Number(n)) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

#[cfg(test)]
#[path = "arguments_match_tests.rs"]
mod tests;
