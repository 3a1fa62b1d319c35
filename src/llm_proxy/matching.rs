//! Replaying a cassette: a first-in-first-out queue of recordings per key, and for a request
//! that matches none, the closest recording and the first difference from it.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use super::cassette::Interaction;
use super::divergence::{ClosestRecording, DifferenceAbout, FirstDifference};
use super::normalize::tool_content_fields;

/// The fields that hold a conversation, in the APIs' bodies.
const CONVERSATION_FIELDS: [&str; 3] = ["messages", "input", "contents"];
/// Values longer than this (in characters) are shortened around the difference.
const SHOWN_CHARS: usize = 240;

/// The recordings of a cassette, played in order per key.
#[derive(Debug)]
pub(crate) struct Replay {
    interactions: Vec<Interaction>,
    queues: HashMap<String, VecDeque<usize>>,
    /// Indexes into `interactions` of the played recordings.
    played: Vec<usize>,
}

impl Replay {
    pub(crate) fn new(interactions: Vec<Interaction>) -> Self {
        let mut queues: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (index, interaction) in interactions.iter().enumerate() {
            queues
                .entry(interaction.key.clone())
                .or_default()
                .push_back(index);
        }
        Self {
            interactions,
            queues,
            played: Vec::new(),
        }
    }

    /// The oldest unplayed recording with this key, now played.
    pub(crate) fn take(&mut self, key: &str) -> Option<&Interaction> {
        let index = self.queues.get_mut(key)?.pop_front()?;
        self.played.push(index);
        self.interactions.get(index)
    }

    pub(crate) fn total(&self) -> usize {
        self.interactions.len()
    }

    pub(crate) fn played_count(&self) -> usize {
        self.played.len()
    }

    /// The unplayed recordings, in cassette order.
    pub(crate) fn unplayed(&self) -> impl Iterator<Item = &Interaction> {
        self.interactions
            .iter()
            .enumerate()
            .filter(|(index, _)| !self.played.contains(index))
            .map(|(_, interaction)| interaction)
    }

    /// The unplayed recording on the same path (query aside) whose conversation shares the
    /// longest prefix with `normalized` (the earliest on a tie), compared with it.
    pub(crate) fn closest(&self, path: &str, normalized: &Value) -> Option<ClosestRecording> {
        let now = conversation(normalized);
        let (same_prefix, recording) = self
            .unplayed()
            .filter(|recorded| path_only(&recorded.path) == path_only(path))
            .map(|recorded| {
                (
                    common_prefix(conversation(&recorded.normalized), now),
                    recorded,
                )
            })
            .max_by(|(same_a, a), (same_b, b)| same_a.cmp(same_b).then(b.seq.cmp(&a.seq)))?;
        Some(ClosestRecording {
            seq: recording.seq,
            conversation_len: conversation(&recording.normalized).len(),
            same_prefix,
            difference: first_difference(&recording.normalized, normalized),
        })
    }
}

fn path_only(path: &str) -> &str {
    path.split_once('?').map_or(path, |(path, _)| path)
}

fn conversation(body: &Value) -> &[Value] {
    CONVERSATION_FIELDS
        .iter()
        .find_map(|field| body.get(field)?.as_array())
        .map_or(&[], Vec::as_slice)
}

fn common_prefix(a: &[Value], b: &[Value]) -> usize {
    a.iter().zip(b).take_while(|(a, b)| a == b).count()
}

/// Where `now` first differs from `recorded`: the conversation first, then the other
/// fields in the recorded order, then fields only `now` has.
pub(crate) fn first_difference(recorded: &Value, now: &Value) -> Option<FirstDifference> {
    let mut path = String::from("$");
    let found = differ(Some(recorded), Some(now), &mut path, None)?;
    Some(FirstDifference {
        path,
        recorded: show(found.0, found.1),
        now: show(found.1, found.0),
        about: found.2,
    })
}

type Found<'a> = (
    Option<&'a Value>,
    Option<&'a Value>,
    Option<DifferenceAbout>,
);

fn differ<'a>(
    recorded: Option<&'a Value>,
    now: Option<&'a Value>,
    path: &mut String,
    about: Option<DifferenceAbout>,
) -> Option<Found<'a>> {
    match (recorded, now) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let tool_fields = tool_content_fields(a);
            let mut keys: Vec<&String> = a.keys().collect();
            keys.sort_by_key(|key| !CONVERSATION_FIELDS.contains(&key.as_str()));
            keys.extend(b.keys().filter(|key| !a.contains_key(*key)));
            for key in keys {
                let length = path.len();
                push_key(path, key);
                let child_about = about.or_else(|| {
                    tool_fields
                        .contains(&key.as_str())
                        .then_some(if key == "tools" {
                            DifferenceAbout::ToolsOffered
                        } else {
                            DifferenceAbout::ToolResult
                        })
                });
                if let Some(found) = differ(a.get(key), b.get(key), path, child_about) {
                    return Some(found);
                }
                path.truncate(length);
            }
            None
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            for index in 0..a.len().max(b.len()) {
                let length = path.len();
                path.push_str(&format!("[{index}]"));
                if let Some(found) = differ(a.get(index), b.get(index), path, about) {
                    return Some(found);
                }
                path.truncate(length);
            }
            None
        }
        (a, b) if a == b => None,
        (a, b) => Some((a, b, about)),
    }
}

fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if plain {
        path.push('.');
        path.push_str(key);
    } else {
        path.push_str(&format!("[{}]", Value::String(key.to_owned())));
    }
}

/// A value for the message: JSON, shortened around where it departs from `other`.
fn show(value: Option<&Value>, other: Option<&Value>) -> String {
    let Some(value) = value else {
        return "(absent)".to_owned();
    };
    let (text, other_text) = match (value, other) {
        (Value::String(text), Some(Value::String(other))) => (text.clone(), other.clone()),
        (Value::String(text), _) => (text.clone(), String::new()),
        (value, _) => (value.to_string(), String::new()),
    };
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= SHOWN_CHARS {
        return quote_if_string(value, &text);
    }
    let same = chars
        .iter()
        .zip(other_text.chars())
        .take_while(|(a, b)| **a == *b)
        .count();
    let start = same.saturating_sub(SHOWN_CHARS / 4);
    let end = (start + SHOWN_CHARS).min(chars.len());
    let excerpt: String = chars[start..end].iter().collect();
    let before = if start > 0 { "…" } else { "" };
    let after = if end < chars.len() { "…" } else { "" };
    format!(
        "{before}{}{after} ({} characters)",
        quote_if_string(value, &excerpt),
        chars.len()
    )
}

fn quote_if_string(value: &Value, text: &str) -> String {
    if value.is_string() {
        Value::String(text.to_owned()).to_string()
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;
