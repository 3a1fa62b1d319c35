//! The cassette file: what one task run said to its LLM and what it was answered.
//!
//! ```json
//! {"version": 1,
//!  "meta": {"agent": "claude-code", "agentVersion": "claude-cli/2.1.330", "api": "anthropic"},
//!  "blobs": {"sha256:3f2a…": [{"type": "text", "text": "You are…"}]},
//!  "interactions": [{"seq": 1,
//!    "request": {"method": "POST", "path": "/v1/messages?beta=true", "key": "sha256:8cb2…",
//!                "normalized": {"system": {"$blob": "sha256:3f2a…"}, "messages": […]}},
//!    "response": {"status": 200, "contentType": "text/event-stream",
//!                 "sse": [{"event": "message_start", "data": {…}}, …]}}]}
//! ```
//!
//! Values repeated in every request (system prompts, tool definitions) are stored once
//! under `blobs`, by content hash. The `key` is informative: matching recomputes it from
//! the stored method, path and normalised body, so a hand-edited request still matches.
//! Writing the same recording twice gives the same bytes (no timestamps, blobs sorted).
//!
//! A second client of the same task run (the LLM judge) records into a named section of
//! the same file, `"sections": {"judge": {"meta": …, "interactions": […]}}`, sharing its
//! blobs; each part is read and replayed on its own, and writing one keeps the others.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::error::LlmProxyError;
use super::normalize::{RequestNormalizer, content_hash, request_key};
use super::sse::SseEvent;

/// The cassette format this code reads and writes.
pub const CASSETTE_VERSION: u32 = 1;

/// Top-level fields stored as blobs.
const BLOB_FIELDS: [&str; 4] = ["system", "tools", "instructions", "systemInstruction"];
/// Conversation items stored as blobs when their role is `system` or `developer`.
const CONVERSATION_FIELDS: [&str; 2] = ["messages", "input"];
/// Values whose compact JSON is shorter than this stay inline.
const BLOB_MIN_LEN: usize = 64;

/// Who recorded a cassette.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct CassetteMeta {
    pub(crate) agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) agent_version: Option<String>,
    pub(crate) api: String,
}

/// A recorded answer: status, content type and exactly one of `json`, `sse`, `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RecordedResponse {
    pub(crate) status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) json: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sse: Option<Vec<SseEvent>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) text: Option<String>,
}

impl RecordedResponse {
    /// A captured answer, its body parsed as the content type says.
    pub(crate) fn capture(status: u16, content_type: Option<String>, body: &[u8]) -> Self {
        let text = String::from_utf8_lossy(body);
        let media = content_type.as_deref().unwrap_or("").to_ascii_lowercase();
        let mut response = Self {
            status,
            content_type,
            json: None,
            sse: None,
            text: None,
        };
        if media.starts_with("text/event-stream") {
            response.sse = Some(super::sse::parse(&text));
        } else if let Some(value) = media
            .contains("json")
            .then(|| serde_json::from_str::<Value>(&text).ok())
            .flatten()
            .filter(|value| !value.is_null())
        {
            response.json = Some(value);
        } else {
            response.text = Some(text.into_owned());
        }
        response
    }

    /// The body as sent back on replay.
    pub(crate) fn body(&self) -> String {
        match (&self.json, &self.sse, &self.text) {
            (Some(json), _, _) => json.to_string(),
            (None, Some(events), _) => super::sse::render(events),
            (None, None, text) => text.clone().unwrap_or_default(),
        }
    }
}

/// One request and its answer, the request normalised and with its blobs resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Interaction {
    pub(crate) seq: usize,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) key: String,
    pub(crate) normalized: Value,
    pub(crate) response: RecordedResponse,
}

impl Interaction {
    /// The interaction with its stored request normalised again by `normalizer`, and its
    /// key computed anew.
    pub(crate) fn normalized_by(self, normalizer: &RequestNormalizer) -> Self {
        let normalized = normalizer.normalize(&self.normalized);
        let key = request_key(&self.method, &self.path, &normalized);
        Self {
            key,
            normalized,
            ..self
        }
    }
}

/// A cassette in memory.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cassette {
    pub(crate) meta: CassetteMeta,
    pub(crate) interactions: Vec<Interaction>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CassetteFile {
    version: u32,
    /// Absent when only sections were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    meta: Option<CassetteMeta>,
    #[serde(default)]
    blobs: BTreeMap<String, Value>,
    #[serde(default)]
    interactions: Vec<FileInteraction>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    sections: BTreeMap<String, SectionFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SectionFile {
    meta: CassetteMeta,
    interactions: Vec<FileInteraction>,
}

/// Every part of a cassette file: the agent's calls (`main`) and named sections (the
/// judge's).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CassetteParts {
    pub(crate) main: Option<Cassette>,
    pub(crate) sections: BTreeMap<String, Cassette>,
}

impl CassetteParts {
    /// Reads a cassette file; `None` when it does not exist.
    pub(crate) fn load(path: &Path) -> Result<Option<Self>, LlmProxyError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(LlmProxyError::CassetteRead {
                    cassette: path.to_owned(),
                    source,
                });
            }
        };
        Self::parse(&text)
            .map(Some)
            .map_err(|problem| LlmProxyError::CassetteInvalid {
                cassette: path.to_owned(),
                problem,
            })
    }

    /// The part named `section` (`None`: the main one).
    pub(crate) fn take(mut self, section: Option<&str>) -> Option<Cassette> {
        match section {
            None => self.main,
            Some(name) => self.sections.remove(name),
        }
    }

    /// Puts `cassette` in the part named `section` (`None`: the main one).
    pub(crate) fn set(&mut self, section: Option<&str>, cassette: Cassette) {
        match section {
            None => self.main = Some(cassette),
            Some(name) => {
                self.sections.insert(name.to_owned(), cassette);
            }
        }
    }

    /// The parts of a cassette file from its text, or what is wrong with it (with the JSON
    /// path).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let file: CassetteFile =
            serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
                match error.path().to_string().as_str() {
                    "." => error.inner().to_string(),
                    path => format!("at {path}: {}", error.inner()),
                }
            })?;
        if file.version != CASSETTE_VERSION {
            return Err(format!(
                "version {} is not supported (this mcpeval reads version {CASSETTE_VERSION}); \
                 re-record it",
                file.version
            ));
        }
        if file.meta.is_none() && file.sections.is_empty() {
            return Err("missing field `meta` (and no `sections`)".to_owned());
        }
        let resolve = |at: &str, stored: Vec<FileInteraction>| {
            stored
                .into_iter()
                .enumerate()
                .map(|(index, stored)| resolve_interaction(at, index, stored, &file.blobs))
                .collect::<Result<Vec<_>, _>>()
        };
        let main = match file.meta {
            Some(meta) => Some(Cassette {
                meta,
                interactions: resolve("interactions", file.interactions)?,
            }),
            None => None,
        };
        let mut sections = BTreeMap::new();
        for (name, section) in file.sections {
            let at = format!("sections.{name}.interactions");
            let interactions = resolve(&at, section.interactions)?;
            let meta = section.meta;
            sections.insert(name, Cassette { meta, interactions });
        }
        Ok(Self { main, sections })
    }

    /// The file as pretty JSON (ending with a newline), repeated content in `blobs`.
    pub(crate) fn to_json(&self) -> String {
        let mut blobs = BTreeMap::new();
        let main = self.main.as_ref();
        let interactions = main
            .map(|cassette| file_interactions(cassette, &mut blobs))
            .unwrap_or_default();
        let sections = self
            .sections
            .iter()
            .map(|(name, cassette)| {
                let interactions = file_interactions(cassette, &mut blobs);
                let meta = cassette.meta.clone();
                (name.clone(), SectionFile { meta, interactions })
            })
            .collect();
        let file = CassetteFile {
            version: CASSETTE_VERSION,
            meta: main.map(|cassette| cassette.meta.clone()),
            blobs,
            interactions,
            sections,
        };
        let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
        text.push('\n');
        text
    }
}

fn file_interactions(
    cassette: &Cassette,
    blobs: &mut BTreeMap<String, Value>,
) -> Vec<FileInteraction> {
    cassette
        .interactions
        .iter()
        .map(|interaction| FileInteraction {
            seq: interaction.seq,
            request: FileRequest {
                method: interaction.method.clone(),
                path: interaction.path.clone(),
                key: interaction.key.clone(),
                normalized: extract_blobs(&interaction.normalized, blobs),
            },
            response: interaction.response.clone(),
        })
        .collect()
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileInteraction {
    seq: usize,
    request: FileRequest,
    response: RecordedResponse,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRequest {
    method: String,
    path: String,
    key: String,
    normalized: Value,
}

fn resolve_interaction(
    list: &str,
    index: usize,
    stored: FileInteraction,
    blobs: &BTreeMap<String, Value>,
) -> Result<Interaction, String> {
    let at = format!("{list}[{index}]");
    let response = &stored.response;
    let bodies = [
        response.json.is_some(),
        response.sse.is_some(),
        response.text.is_some(),
    ];
    if bodies.iter().filter(|present| **present).count() != 1 {
        return Err(format!(
            "at {at}.response: exactly one of `json`, `sse` and `text` is needed"
        ));
    }
    let normalized = resolve_blobs(&stored.request.normalized, blobs)
        .map_err(|hash| format!("at {at}.request.normalized: no blob `{hash}` in `blobs`"))?;
    let key = request_key(&stored.request.method, &stored.request.path, &normalized);
    Ok(Interaction {
        seq: stored.seq,
        method: stored.request.method,
        path: stored.request.path,
        key,
        normalized,
        response: stored.response,
    })
}

/// `{"$blob": hash}` when `value` is a blob reference.
fn blob_ref(value: &Value) -> Option<&str> {
    let object = value.as_object()?;
    (object.len() == 1).then(|| object.get("$blob")?.as_str())?
}

fn resolve_blobs(value: &Value, blobs: &BTreeMap<String, Value>) -> Result<Value, String> {
    if let Some(hash) = blob_ref(value) {
        return blobs.get(hash).cloned().ok_or_else(|| hash.to_owned());
    }
    Ok(match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, child)| Ok((key.clone(), resolve_blobs(child, blobs)?)))
                .collect::<Result<Map<_, _>, String>>()?,
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| resolve_blobs(item, blobs))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// The normalised body with its repeated parts replaced by blob references.
fn extract_blobs(normalized: &Value, blobs: &mut BTreeMap<String, Value>) -> Value {
    let mut body = normalized.clone();
    let Some(object) = body.as_object_mut() else {
        return body;
    };
    let mut to_blob = |value: &mut Value| {
        if value.to_string().len() >= BLOB_MIN_LEN {
            let hash = content_hash(value);
            let content = std::mem::replace(value, json!({ "$blob": hash }));
            blobs.entry(hash).or_insert(content);
        }
    };
    for field in BLOB_FIELDS {
        if let Some(value) = object.get_mut(field) {
            to_blob(value);
        }
    }
    for field in CONVERSATION_FIELDS {
        let Some(Value::Array(items)) = object.get_mut(field) else {
            continue;
        };
        for item in items {
            let role = item.get("role").and_then(Value::as_str);
            if matches!(role, Some("system" | "developer")) {
                to_blob(item);
            }
        }
    }
    body
}

/// Writes `text` to `path` through a temporary file in the same folder, then a rename.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<(), LlmProxyError> {
    let error = |source| LlmProxyError::CassetteWrite {
        cassette: path.to_owned(),
        source,
    };
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent).map_err(error)?;
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, text).map_err(error)?;
    std::fs::rename(&temporary, path).map_err(|source| {
        let _ = std::fs::remove_file(&temporary);
        error(source)
    })
}

#[cfg(test)]
#[path = "cassette_tests.rs"]
mod tests;
