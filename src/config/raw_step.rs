//! Reading one step: a mapping with one key, the step type. `script`, `http` and `llmJudge`
//! read their own fields strictly; a type with a dot is an extension step,
//! `<alias>.<operation>`, whose value is the operation's arguments.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use super::extensions::RawExtensionStep;
use super::steps::RawStep;

/// The step types, for "unknown value" errors and their suggestions.
const STEP_TYPES: &[&str] = &["script", "http", "llmJudge", "<alias>.<operation>"];

impl<'de> Deserialize<'de> for RawStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(StepVisitor)
    }
}

struct StepVisitor;

impl<'de> Visitor<'de> for StepVisitor {
    type Value = RawStep;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a step: a mapping with one key, its type (e.g. `script: {inline: ...}`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawStep, A::Error> {
        let Some(kind) = map.next_key::<String>()? else {
            return Err(de::Error::custom(
                "an empty step; expected one key, its type: script, http, llmJudge or <alias>.<operation>",
            ));
        };
        let step = match kind.as_str() {
            "script" => RawStep::Script(map.next_value()?),
            "http" => RawStep::Http(map.next_value()?),
            "llmJudge" => RawStep::LlmJudge(map.next_value()?),
            name if name.contains('.') => RawStep::Extension(RawExtensionStep {
                name: name.to_owned(),
                args: map.next_value()?,
            }),
            other => return Err(de::Error::unknown_variant(other, STEP_TYPES)),
        };
        if let Some(other) = map.next_key::<String>()? {
            return Err(de::Error::custom(format!(
                "a step has one type; found `{kind}` and `{other}`"
            )));
        }
        Ok(step)
    }
}
