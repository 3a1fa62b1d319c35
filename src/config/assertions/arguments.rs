//! The `arguments:` pattern of an assertion entry: read as a JSON value, validated here into
//! an [`ArgumentPattern`] (operators known, regexes compiled), matched against a call's
//! arguments in `arguments_match.rs`.
//!
//! A mapping matches an object holding at least its keys (others are ignored), each value
//! matching; a sequence matches an array of the same length, element by element; a scalar
//! equals as JSON (`1` equals `1.0`). A mapping whose keys start with `$` is an operator:
//! `{$match: REGEX}` (unanchored, over the value's text) or `{$type: NAME}`.

use std::fmt;
use std::path::Path;

use regex::Regex;
use serde_json::{Map, Value};

use crate::config::files::check::Checker;
use crate::config::files::error::{ConfigErrors, did_you_mean};
use crate::config::files::yaml::LocationIndex;

/// A validated `arguments:` pattern and the value as written (for messages).
#[derive(Debug, Clone)]
pub struct ArgumentPattern {
    pub(in crate::config) root: Pattern,
    written: Value,
}

/// One node of a pattern.
#[derive(Debug, Clone)]
pub(in crate::config) enum Pattern {
    /// A string, number, boolean or null: equal as JSON values (`1` equals `1.0`).
    Literal(Value),
    /// A mapping: each key is present in the actual object and its value matches.
    Object(Vec<(String, Pattern)>),
    /// A sequence: an array of the same length whose elements match one by one.
    Array(Vec<Pattern>),
    /// `{$match: REGEX}`: the regex matches somewhere in the value's text.
    Match(Regex),
    /// `{$type: NAME}`: the value is of this JSON type.
    Type(ValueType),
}

/// The names `$type` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    /// `string`
    String,
    /// `number`: any number, integers included.
    Number,
    /// `integer`: a number without a fractional part (`1` and `1.0`).
    Integer,
    /// `boolean`
    Boolean,
    /// `array`
    Array,
    /// `object`
    Object,
    /// `null`
    Null,
}

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "array", "object", "null",
];

impl ValueType {
    fn parse(name: &str) -> Option<ValueType> {
        Some(match name {
            "string" => ValueType::String,
            "number" => ValueType::Number,
            "integer" => ValueType::Integer,
            "boolean" => ValueType::Boolean,
            "array" => ValueType::Array,
            "object" => ValueType::Object,
            "null" => ValueType::Null,
            _ => return None,
        })
    }

    /// The name as `$type` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::String => "string",
            ValueType::Number => "number",
            ValueType::Integer => "integer",
            ValueType::Boolean => "boolean",
            ValueType::Array => "array",
            ValueType::Object => "object",
            ValueType::Null => "null",
        }
    }
}

impl PartialEq for ArgumentPattern {
    fn eq(&self, other: &Self) -> bool {
        self.written == other.written
    }
}

impl Eq for ArgumentPattern {}

impl fmt::Display for ArgumentPattern {
    /// The pattern as written, as compact JSON: `{"path":{"$match":"^/tmp"}}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.written)
    }
}

impl ArgumentPattern {
    /// Validates the pattern written at `path` (e.g. `….toolsUsed[0].arguments`): a mapping,
    /// with known operators, each alone in its mapping, and valid regexes. Every problem is
    /// recorded with its key path.
    pub(in crate::config) fn validate(
        check: &mut Checker<'_>,
        path: &str,
        written: Value,
    ) -> Option<ArgumentPattern> {
        if !written.is_object() {
            check.error(
                path,
                format!(
                    "expected a mapping of argument names to patterns, found {}",
                    compact(&written)
                ),
            );
            return None;
        }
        let root = pattern(check, path, &written)?;
        Some(ArgumentPattern { root, written })
    }
}

impl ArgumentPattern {
    /// A pattern from a JSON value outside any eval file (tests, programs); errors name the
    /// key path from `arguments`.
    pub fn from_json(written: Value) -> Result<ArgumentPattern, ConfigErrors> {
        let locations = LocationIndex::default();
        let mut check = Checker::new(Path::new("arguments"), &locations);
        let pattern = ArgumentPattern::validate(&mut check, "arguments", written);
        match check.finish(pattern)? {
            Some(pattern) => Ok(pattern),
            None => Err(ConfigErrors::default()),
        }
    }

    /// The argument properties the pattern names, to one level of nesting: `name`,
    /// `spec.replicas` (a key of an object's pattern), `items[].id` (a key of the pattern of
    /// an array's elements).
    pub fn property_paths(&self) -> Vec<String> {
        let Pattern::Object(keys) = &self.root else {
            return Vec::new();
        };
        let mut paths = Vec::new();
        for (key, value) in keys {
            paths.push(key.clone());
            match value {
                Pattern::Object(inner) => {
                    paths.extend(inner.iter().map(|(name, _)| format!("{key}.{name}")));
                }
                Pattern::Array(items) => {
                    for item in items {
                        if let Pattern::Object(inner) = item {
                            paths.extend(inner.iter().map(|(name, _)| format!("{key}[].{name}")));
                        }
                    }
                }
                _ => {}
            }
        }
        paths.sort();
        paths.dedup();
        paths
    }
}

/// The key path of `key` under `path`: `path.key`, or `path["a key"]` for a key that is not
/// a plain word (so the path stays readable and unambiguous).
pub(crate) fn child_path(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$'));
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::from(key))
    }
}

/// A JSON value on one line, for messages.
pub(crate) fn compact(value: &Value) -> String {
    crate::plumbing::text::shorten(&value.to_string(), 200)
}

fn pattern(check: &mut Checker<'_>, path: &str, value: &Value) -> Option<Pattern> {
    match value {
        Value::Object(map) if map.keys().any(|k| k.starts_with('$')) => operator(check, path, map),
        Value::Object(map) => {
            let entries: Vec<Option<(String, Pattern)>> = map
                .iter()
                .map(|(key, value)| {
                    pattern(check, &child_path(path, key), value).map(|p| (key.clone(), p))
                })
                .collect();
            entries
                .into_iter()
                .collect::<Option<_>>()
                .map(Pattern::Object)
        }
        Value::Array(items) => {
            let items: Vec<Option<Pattern>> = items
                .iter()
                .enumerate()
                .map(|(i, item)| pattern(check, &format!("{path}[{i}]"), item))
                .collect();
            items.into_iter().collect::<Option<_>>().map(Pattern::Array)
        }
        scalar => Some(Pattern::Literal(scalar.clone())),
    }
}

/// A mapping with a `$` key: exactly one key, `$match` or `$type`.
fn operator(check: &mut Checker<'_>, path: &str, map: &Map<String, Value>) -> Option<Pattern> {
    let unknown: Vec<&String> = map
        .keys()
        .filter(|k| k.starts_with('$') && *k != "$match" && *k != "$type")
        .collect();
    for key in &unknown {
        check.error(
            child_path(path, key),
            format!(
                "unknown operator; expected $match or $type{}",
                did_you_mean(key, ["$match", "$type"])
            ),
        );
    }
    if !unknown.is_empty() {
        return None;
    }
    if map.len() > 1 {
        let keys: Vec<String> = map.keys().map(|k| format!("`{k}`")).collect();
        check.error(
            path,
            format!(
                "an operator must be the only key of its mapping; found {}",
                keys.join(", ")
            ),
        );
        return None;
    }
    let (key, value) = map.iter().next()?;
    let at = child_path(path, key);
    match (key.as_str(), value) {
        ("$match", Value::String(regex)) => check.regex(&at, regex).map(Pattern::Match),
        ("$match", other) => {
            check.error(
                at,
                format!(
                    "expected a regular expression (a string), found {}",
                    compact(other)
                ),
            );
            None
        }
        (_, value) => value_type(check, &at, value).map(Pattern::Type),
    }
}

fn value_type(check: &mut Checker<'_>, at: &str, value: &Value) -> Option<ValueType> {
    let found = value.as_str().and_then(ValueType::parse);
    if found.is_none() {
        let hint = value
            .as_str()
            .map(|name| did_you_mean(name, TYPE_NAMES))
            .unwrap_or_default();
        check.error(
            at,
            format!(
                "unknown type {}; expected one of {}{hint}",
                compact(value),
                TYPE_NAMES.join(", ")
            ),
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The errors of validating `written` at `arguments`, as `key path: message`.
    fn errors_of(written: Value) -> Vec<String> {
        match ArgumentPattern::from_json(written) {
            Ok(_) => vec![],
            Err(errors) => errors
                .0
                .into_iter()
                .map(|e| format!("{}: {}", e.key_path, e.message))
                .collect(),
        }
    }

    #[test]
    fn a_valid_pattern_has_no_errors() {
        let written = json!({
            "path": {"$match": "^/tmp"},
            "count": {"$type": "integer"},
            "tags": ["a", {"$type": "string"}],
            "options": {"force": false, "depth": 1.0},
        });
        assert_eq!(errors_of(written), Vec::<String>::new());
    }

    #[test]
    fn an_unknown_operator_is_named_with_its_key_path() {
        assert_eq!(
            errors_of(json!({"path": {"$matc": "x"}})),
            [
                "arguments.path.$matc: unknown operator; expected $match or $type; did you mean $match?"
            ]
        );
    }

    #[test]
    fn an_operator_beside_other_keys_is_an_error() {
        assert_eq!(
            errors_of(json!({"path": {"$match": "x", "flags": "i"}})),
            [
                "arguments.path: an operator must be the only key of its mapping; found `$match`, `flags`"
            ]
        );
    }

    #[test]
    fn invalid_regexes_and_types_are_errors_everywhere_in_the_pattern() {
        let errors = errors_of(json!({
            "a": [{"$match": "("}],
            "b": {"c": {"$type": "strin"}},
            "d": {"$match": 5},
            "a key": {"$type": 1},
        }));
        assert_eq!(errors.len(), 4, "{errors:#?}");
        assert!(errors[0].starts_with("arguments.a[0].$match: invalid regular expression \"(\""));
        assert_eq!(
            errors[1],
            "arguments.b.c.$type: unknown type \"strin\"; expected one of string, number, integer, boolean, array, object, null; did you mean string?"
        );
        assert_eq!(
            errors[2],
            "arguments.d.$match: expected a regular expression (a string), found 5"
        );
        assert!(errors[3].starts_with("arguments[\"a key\"].$type: unknown type 1"));
    }

    #[test]
    fn the_pattern_must_be_a_mapping() {
        assert_eq!(
            errors_of(json!(["x"])),
            ["arguments: expected a mapping of argument names to patterns, found [\"x\"]"]
        );
    }
}
