//! Reading one YAML (or JSON) file into typed data, with errors that carry the key path, the
//! line and the column, and an index from key paths to locations for the validation pass.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::de::DeserializeOwned;
use serde_saphyr::granit_parser::{Event, Parser};

use super::error::{ConfigError, did_you_mean};

/// A parsed file: its typed content and where each key path sits in the source.
pub struct Parsed<T> {
    /// The typed content.
    pub value: T,
    /// Locations of key paths, for errors found after parsing.
    pub locations: LocationIndex,
}

/// Reads and parses `path` as `T`. Every serde error becomes a [`ConfigError`] with the key path.
pub fn read_file<T: DeserializeOwned>(path: &Path) -> Result<Parsed<T>, ConfigError> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::file(path, format!("cannot read file: {e}")))?;
    parse_str(path, &source)
}

/// Whether `source` holds more than one YAML document (`---` between them), as the parser's
/// events say up to its first syntax error.
pub(crate) fn several_documents(source: &str) -> bool {
    Parser::new_from_str(source)
        .map_while(Result::ok)
        .filter(|(event, _)| matches!(event, Event::DocumentStart(..)))
        .nth(1)
        .is_some()
}

/// Parses `source` (the text of `path`) as `T`.
pub fn parse_str<T: DeserializeOwned>(path: &Path, source: &str) -> Result<Parsed<T>, ConfigError> {
    let mut key_path = String::new();
    let result = serde_saphyr::with_deserializer_from_str(source, |de| {
        serde_path_to_error::deserialize(de).map_err(|e| {
            key_path = e.path().to_string();
            e.into_inner()
        })
    });
    match result {
        Ok(value) => Ok(Parsed {
            value,
            locations: LocationIndex::build(source),
        }),
        Err(error) => {
            let mut converted = convert_error(path, &key_path, &error);
            if Parser::new_from_str(source).any(|event| event.is_err()) {
                // A syntax error: the key path serde reached means little.
                converted.key_path.clear();
                converted.message = format!("invalid YAML: {}", converted.message);
            }
            Err(converted)
        }
    }
}

static AT_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" at line \d+, column \d+$").expect("static regex"));
static UNKNOWN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^unknown (field|variant) `([^`]*)`, (?:expected (.*)|there are no (?:fields|variants))$",
    )
    .expect("static regex")
});
static DUPLICATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^duplicate mapping key: (.*?)(?:, set DuplicateKeyPolicy.*)?$")
        .expect("static regex")
});
static MISSING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^missing field `([^`]*)`$").expect("static regex"));

fn convert_error(file: &Path, raw_path: &str, error: &serde_saphyr::Error) -> ConfigError {
    let location = error.location().map(|l| (l.line(), l.column()));
    let raw_message = error.without_snippet().to_string();
    let raw_message = AT_LINE.replace(raw_message.trim(), "").into_owned();
    let mut key_path = if raw_path == "." {
        String::new()
    } else {
        raw_path.to_owned()
    };
    let message = if let Some(caps) = UNKNOWN.captures(&raw_message) {
        let what = &caps[1];
        let word = &caps[2];
        let expected: Vec<&str> = caps
            .get(3)
            .map(|m| {
                m.as_str()
                    .trim_start_matches("one of ")
                    .split([','])
                    .flat_map(|part| part.split(" or "))
                    .map(|s| s.trim().trim_matches('`'))
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if what == "field" {
            // The path already ends with the unknown key.
            let list = if expected.is_empty() {
                "no keys are allowed here".to_owned()
            } else {
                format!("expected one of {}", expected.join(", "))
            };
            match did_you_mean(word, expected.iter().copied()) {
                hint if !hint.is_empty() => format!("unknown field{hint}"),
                _ => format!("unknown field; {list}"),
            }
        } else {
            format!(
                "unknown value `{word}`; expected one of {}{}",
                expected.join(", "),
                did_you_mean(word, expected.iter().copied())
            )
        }
    } else if let Some(caps) = DUPLICATE.captures(&raw_message) {
        let key = caps[1].to_owned();
        if key_path.ends_with('?') {
            key_path.pop();
            key_path.push_str(&key);
        }
        format!("duplicate key `{key}`: each key may appear once")
    } else if let Some(caps) = MISSING.captures(&raw_message) {
        append_key(&mut key_path, &caps[1]);
        "missing required field".to_owned()
    } else if raw_message.starts_with("multiple") && raw_message.contains("documents") {
        "expected one YAML document, found several".to_owned()
    } else {
        raw_message.replace("string scalar", "string")
    };
    ConfigError {
        file: file.to_path_buf(),
        location,
        key_path,
        message,
    }
}

/// Appends `key` to a dotted key path.
pub fn append_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
}

/// Where every key path of a YAML document starts: the key for a mapping entry, the item
/// for a sequence element. Paths look like `config.taskSets[1].assertions.toolsUsed[0]`.
#[derive(Debug, Default, Clone)]
pub struct LocationIndex {
    locations: HashMap<String, (u64, u64)>,
}

enum Frame {
    Mapping {
        path: String,
        key: Option<(String, (u64, u64))>,
    },
    Sequence {
        path: String,
        next: usize,
    },
}

impl LocationIndex {
    /// Indexes `source`. A document that does not parse yields an empty index (parsing
    /// already reported the error).
    pub fn build(source: &str) -> Self {
        let mut index = LocationIndex::default();
        let mut stack: Vec<Frame> = Vec::new();
        for item in Parser::new_from_str(source) {
            let Ok((event, span)) = item else { break };
            let here = (span.start.line() as u64, span.start.col() as u64 + 1);
            let is_node = matches!(
                event,
                Event::Scalar(..)
                    | Event::SequenceStart(..)
                    | Event::MappingStart(..)
                    | Event::Alias(..)
            );
            let mut node_path = None;
            if is_node {
                match stack.last_mut() {
                    Some(Frame::Mapping { path, key }) => match key.take() {
                        None => {
                            // This node is a key; only scalar keys get a path.
                            if let Event::Scalar(text, ..) = &event {
                                *key = Some((text.to_string(), here));
                            } else {
                                *key = Some((String::from("?"), here));
                            }
                            continue;
                        }
                        Some((name, at)) => {
                            let mut child = path.clone();
                            append_key(&mut child, &name);
                            index.locations.entry(child.clone()).or_insert(at);
                            node_path = Some(child);
                        }
                    },
                    Some(Frame::Sequence { path, next }) => {
                        let child = format!("{path}[{next}]");
                        *next += 1;
                        index.locations.entry(child.clone()).or_insert(here);
                        node_path = Some(child);
                    }
                    None => node_path = Some(String::new()),
                }
            }
            match event {
                Event::MappingStart(..) => stack.push(Frame::Mapping {
                    path: node_path.unwrap_or_default(),
                    key: None,
                }),
                Event::SequenceStart(..) => stack.push(Frame::Sequence {
                    path: node_path.unwrap_or_default(),
                    next: 0,
                }),
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                }
                _ => {}
            }
        }
        index
    }

    /// The location of `key_path`, or of its nearest indexed ancestor.
    pub fn find(&self, key_path: &str) -> Option<(u64, u64)> {
        let mut path = key_path;
        loop {
            if let Some(found) = self.locations.get(path) {
                return Some(*found);
            }
            let cut = path.rfind(['.', '['])?;
            path = &path[..cut];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Doc {
        task_sets: Vec<Set>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Set {
        path: Option<String>,
        tool_pattern: Option<String>,
    }

    fn error_of(source: &str) -> ConfigError {
        match parse_str::<Doc>(Path::new("e.yaml"), source) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        }
    }

    #[test]
    fn unknown_field_has_path_location_and_suggestion() {
        let e = error_of("taskSets:\n  - path: a\n  - toolPatern: x\n");
        assert_eq!(
            e.to_string(),
            "e.yaml:3:5: taskSets[1].toolPatern: unknown field; did you mean toolPattern?"
        );
    }

    #[test]
    fn duplicate_key_names_the_key() {
        let e = error_of("taskSets:\n  - path: a\n    path: b\n");
        assert_eq!(e.key_path, "taskSets[0].path");
        assert!(e.message.contains("duplicate key `path`"), "{e}");
        assert_eq!(e.location, Some((3, 5)));
    }

    #[test]
    fn missing_field_points_at_the_field() {
        let e = error_of("{}\n");
        assert_eq!(e.key_path, "taskSets");
        assert_eq!(e.message, "missing required field");
    }

    #[test]
    fn location_index_finds_keys_and_items() {
        let index = LocationIndex::build("a:\n  b:\n    - x\n    - c: 1\n      d: [1, 2]\n");
        assert_eq!(index.find("a"), Some((1, 1)));
        assert_eq!(index.find("a.b"), Some((2, 3)));
        assert_eq!(index.find("a.b[0]"), Some((3, 7)));
        assert_eq!(index.find("a.b[1].d"), Some((5, 7)));
        assert_eq!(index.find("a.b[1].d[1]"), Some((5, 14)));
        assert_eq!(index.find("a.b[1].zzz"), Some((4, 7)));
    }

    #[test]
    fn several_documents_are_told_from_one() {
        assert!(several_documents("kind: Service\n---\nkind: Deployment\n"));
        assert!(several_documents("---\na: 1\n---\nb: 2\n"));
        assert!(!several_documents("---\nkind: Task\nspec: {}\n"));
        assert!(!several_documents("kind: Task\n"));
        assert!(!several_documents("a: [1,\n---\nb: 2\n"));
    }
}
