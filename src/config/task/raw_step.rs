//! Reading one step: a mapping with one key, the step type, and mcpchecker's optional `id`.
//! `script`, `http` and `llmJudge` read their own fields strictly; a type with a dot is an
//! extension step, `<alias>.<operation>`, whose value is the operation's arguments. Two types
//! in one step, or none, are reported (located) when the entry is validated.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use super::steps::{RawStep, RawStepEntry};
use crate::config::extensions::RawExtensionStep;

/// The step types, for "unknown value" errors and their suggestions.
const STEP_TYPES: &[&str] = &["script", "http", "llmJudge", "<alias>.<operation>"];

impl<'de> Deserialize<'de> for RawStepEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(StepVisitor)
    }
}

struct StepVisitor;

impl<'de> Visitor<'de> for StepVisitor {
    type Value = RawStepEntry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a step: a mapping with one key, its type (e.g. `script: {inline: ...}`), and an optional `id`",
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawStepEntry, A::Error> {
        let mut entry = RawStepEntry {
            id: None,
            step: None,
            types: Vec::new(),
        };
        while let Some(kind) = map.next_key::<String>()? {
            let step = match kind.as_str() {
                "id" => {
                    entry.id = Some(map.next_value()?);
                    continue;
                }
                "script" => RawStep::Script(map.next_value()?),
                "http" => RawStep::Http(map.next_value()?),
                "llmJudge" => RawStep::LlmJudge(map.next_value()?),
                name if name.contains('.') => RawStep::Extension(RawExtensionStep {
                    name: name.to_owned(),
                    args: map.next_value()?,
                }),
                other => return Err(de::Error::unknown_variant(other, STEP_TYPES)),
            };
            entry.types.push(kind);
            entry.step = Some(step);
        }
        Ok(entry)
    }
}
