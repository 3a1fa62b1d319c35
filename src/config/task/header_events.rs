//! A task file's header read straight from the YAML parser's events, without serde: the fast
//! path of [`super::header`] (parsing the headers of every task file is most of
//! planning a large eval, and serde on top of the parser costs twice the parser).
//!
//! It answers only when its answer is certainly the one serde gives: the whole document is
//! parsed with serde's own parser options, and anything whose meaning serde decides (tags,
//! anchors, aliases, merge keys, directives, several documents, duplicate or non-string keys,
//! a plain scalar that could be a number, a boolean or null where the header reads a string,
//! one that could be a non-finite float, serde's budgets) makes it answer `None`: the caller
//! then parses the file with serde.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle};

/// Larger files are left to serde, whose budgets (events, nodes, bytes) they might reach.
const MAX_BYTES: usize = 256 * 1024;
/// Deeper documents too (serde allows 64 levels).
const MAX_DEPTH: usize = 48;
/// Mappings with more keys too (duplicates are looked for by a linear scan).
const MAX_KEYS: usize = 64;

/// What planning needs of a task file, read leniently: its kind, name and labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskHeader {
    /// `metadata.name`, when present and a string.
    pub name: Option<String>,
    /// `metadata.labels`.
    pub labels: BTreeMap<String, String>,
}

/// The header of `source` (`Some(None)`: a single YAML mapping that is not a task), or `None`
/// when only serde can tell.
pub(in crate::config) fn scan_task_header(source: &str) -> Option<Option<TaskHeader>> {
    if source.len() > MAX_BYTES {
        return None;
    }
    let mut scan = Scan::default();
    for item in Parser::new_from_str_with_options(source, serde_options()) {
        let (event, _) = item.ok()?;
        scan.event(event)?;
    }
    scan.finish()
}

/// The parser options serde_saphyr parses with by default (its budget's).
fn serde_options() -> Options {
    let mut options = Options::default();
    options.simple_key_max_lookahead = 1024;
    options.flow_nesting_limit = 255;
    options.block_nesting_limit = options.block_nesting_limit.max(65);
    // serde-saphyr's `comments` feature (a default one) buffers at most 32.
    options.max_buffered_comment_events = 32;
    options
}

/// Where a node sits, as far as the header is concerned.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Document,
    Kind,
    Metadata,
    Name,
    Labels,
    Label(String),
    Other,
}

#[derive(Debug)]
enum EventFrame<'a> {
    /// A mapping in `slot`, its keys so far, and the key whose value comes next.
    Mapping {
        slot: Slot,
        keys: Vec<Cow<'a, str>>,
        key: Option<Cow<'a, str>>,
    },
    Sequence,
}

#[derive(Debug, Default)]
struct Scan<'a> {
    stack: Vec<EventFrame<'a>>,
    documents: usize,
    /// The document is a mapping.
    mapping: bool,
    kind_is_task: bool,
    name: Option<String>,
    labels: BTreeMap<String, String>,
}

impl<'a> Scan<'a> {
    /// Takes one event in; `None` when serde must decide.
    fn event(&mut self, event: Event<'a>) -> Option<()> {
        let is_mapping = matches!(event, Event::MappingStart(..));
        match event {
            Event::DocumentStart(_, version) => {
                self.documents += 1;
                (self.documents == 1 && version.is_none()).then_some(())
            }
            Event::Scalar(text, style, anchor, tag) => {
                (anchor == 0 && tag.is_none()).then_some(())?;
                self.scalar(text, style)
            }
            Event::MappingStart(_, anchor, tag) | Event::SequenceStart(_, anchor, tag) => {
                (anchor == 0 && tag.is_none() && self.stack.len() < MAX_DEPTH).then_some(())?;
                let slot = self.value_slot()?;
                self.mapping |= slot == Slot::Document && is_mapping;
                if matches!(slot, Slot::Label(_)) {
                    return None; // a label that is no scalar: serde renders it as JSON
                }
                let frame = if is_mapping {
                    EventFrame::Mapping {
                        slot,
                        keys: Vec::new(),
                        key: None,
                    }
                } else {
                    EventFrame::Sequence
                };
                self.stack.push(frame);
                Some(())
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
                Some(())
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => Some(()),
            Event::Alias(..) | Event::Anchor(..) | Event::UnresolvedAlias(..) => None,
            // Comments.
            #[allow(unreachable_patterns)]
            _ => Some(()),
        }
    }

    /// Where the next node goes: a value's slot, or `None` when the node is a key that is
    /// not a scalar.
    fn value_slot(&mut self) -> Option<Slot> {
        let Some(EventFrame::Mapping { slot, key, .. }) = self.stack.last_mut() else {
            return Some(if self.stack.is_empty() {
                Slot::Document
            } else {
                Slot::Other
            });
        };
        let key = key.take()?;
        Some(match (&*slot, &*key) {
            (Slot::Document, "kind") => Slot::Kind,
            (Slot::Document, "metadata") => Slot::Metadata,
            (Slot::Metadata, "name") => Slot::Name,
            (Slot::Metadata, "labels") => Slot::Labels,
            (Slot::Labels, _) => Slot::Label(key.into_owned()),
            _ => Slot::Other,
        })
    }

    fn scalar(&mut self, text: Cow<'a, str>, style: ScalarStyle) -> Option<()> {
        let plain = style == ScalarStyle::Plain;
        if let Some(EventFrame::Mapping { keys, key, .. }) = self.stack.last_mut()
            && key.is_none()
        {
            // A key: a string, unique in its mapping, no merge key.
            let string = !plain || (is_string(&text) && text != "<<");
            let unique = keys.len() < MAX_KEYS && !keys.contains(&text);
            (string && unique).then_some(())?;
            keys.push(text.clone());
            *key = Some(text);
            return Some(());
        }
        match self.value_slot()? {
            Slot::Kind => self.kind_is_task = text == "Task",
            Slot::Name => self.name = Some(string_value(text, plain)?),
            Slot::Label(key) => {
                self.labels.insert(key, string_value(text, plain)?);
            }
            Slot::Document => return None,
            Slot::Metadata | Slot::Labels | Slot::Other => {
                (!plain || !maybe_non_finite(&text)).then_some(())?;
            }
        }
        Some(())
    }

    fn finish(self) -> Option<Option<TaskHeader>> {
        (self.documents == 1 && self.mapping).then_some(())?;
        Some(self.kind_is_task.then_some(TaskHeader {
            name: self.name,
            labels: self.labels,
        }))
    }
}

/// A scalar the header reads as a string: quoted or a block, or plain and certainly a string.
fn string_value(text: Cow<'_, str>, plain: bool) -> Option<String> {
    (!plain || is_string(&text)).then(|| text.into_owned())
}

/// A plain scalar that serde certainly reads as a string: it starts with a letter and is no
/// null, boolean (YAML 1.1's included), infinity or NaN.
fn is_string(text: &str) -> bool {
    const WORDS: [&str; 12] = [
        "null", "true", "false", "yes", "no", "y", "n", "on", "off", "inf", "infinity", "nan",
    ];
    text.chars().next().is_some_and(char::is_alphabetic)
        && !WORDS.iter().any(|word| text.eq_ignore_ascii_case(word))
}

/// A plain scalar serde might read as an infinite or NaN float, which it rejects.
fn maybe_non_finite(text: &str) -> bool {
    let number = text.trim_start_matches(['+', '-']);
    let word = number.trim_start_matches('.');
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w))
        || (number.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && (number.contains(['e', 'E']) || number.len() > 100))
}

#[cfg(test)]
#[path = "header_events_tests.rs"]
mod tests;
