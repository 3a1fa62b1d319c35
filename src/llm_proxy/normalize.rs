//! What makes two requests of the same conversation equal across runs: a request body with
//! what varies by itself masked or dropped, and the key computed from it.
//!
//! | rule                                   | where                                    |
//! |----------------------------------------|------------------------------------------|
//! | user's `ignore` regexes → `<IGNORED>`  | every string                             |
//! | given paths → `<NAME>`, slug → `<NAME_SLUG>`, lower-cased basename (and its slug) → `<NAME_BASENAME>`; whole occurrences only | every string |
//! | `Wall time: N seconds` (Codex)          | every string, Responses API              |
//! | `YYYY-MM-DD`, `Monday, November 23, 2026` → `<DATE>` | outside tool content       |
//! | `OS Version:` line, `cc_version=…` suffix (Claude) | outside tool content, Anthropic |
//! | `Platform:` (Claude), `My operating system is:` (Gemini CLI) → `<PLATFORM>` | outside tool content, Anthropic and Gemini |
//! | `id`, `tool_use_id`, `call_id`, `tool_call_id` → `<ID1>`… | outside tool content   |
//! | `metadata` dropped; Claude Code's "The date has changed" and "Continue from where you left off." notes dropped | Anthropic |
//! | `client_metadata`, `prompt_cache_key`, `input[].id` dropped | Responses API       |
//! | a `functionResponse` part repeating an earlier one of the same content dropped | Gemini |
//!
//! *Tool content* is what the test is about: the tools offered (`tools`) and the results
//! the MCP server returned (see [`tool_content_fields`]). Only the first three rules
//! touch it; nothing else is masked there, and there is no generic UUID rule.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::api::LlmApi;

/// A literal path of this machine (the run's work dir, HOME, …) that requests may contain,
/// masked as `<NAME>` wherever it appears, together with the forms agents derive from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMask {
    name: String,
    path: String,
    /// Whether the slug and basename forms are masked too.
    derived: bool,
}

/// Basenames shorter than this are not masked on their own (they would match words).
const MIN_BASENAME_LEN: usize = 6;

impl PathMask {
    /// Masks `path` as `<NAME>` (e.g. `PathMask::new("CWD", work_dir)`), its slug (every
    /// character other than a letter or digit turned into `-`, as Claude Code names its
    /// project folders; also the variant with only `/` and `.` turned) as `<NAME_SLUG>`,
    /// and its lower-cased basename (as Gemini CLI named its temp folder), also with every
    /// run of other characters than letters and digits as one `-` (as Gemini CLI 0.61 names
    /// it), as `<NAME_BASENAME>` when that is at least 6 characters long.
    pub fn new(name: &str, path: impl AsRef<Path>) -> Self {
        let path = path.as_ref().to_string_lossy();
        Self {
            name: name.to_owned(),
            path: path.trim_end_matches('/').to_owned(),
            derived: true,
        }
    }

    /// Masks `path` as `<NAME>` and nothing else (an agent program's install directory,
    /// whose basename is a word its prompts use).
    pub fn exact(name: &str, path: impl AsRef<Path>) -> Self {
        Self {
            derived: false,
            ..Self::new(name, path)
        }
    }

    /// `(text, placeholder)` for each form of the path.
    fn forms(&self) -> Vec<(String, String)> {
        if self.path.len() < 2 {
            return Vec::new();
        }
        if !self.derived {
            return vec![(self.path.clone(), format!("<{}>", self.name))];
        }
        let slug_all: String = self
            .path
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let slug_dots = self.path.replace(['/', '.'], "-");
        let mut forms = vec![
            (self.path.clone(), format!("<{}>", self.name)),
            (slug_all, format!("<{}_SLUG>", self.name)),
            (slug_dots, format!("<{}_SLUG>", self.name)),
        ];
        let basename = Path::new(&self.path)
            .file_name()
            .map(|name| name.to_string_lossy().to_lowercase());
        if let Some(basename) = basename.filter(|name| name.len() >= MIN_BASENAME_LEN) {
            // Gemini CLI 0.61's project slug: runs of other characters as one `-`.
            let slug = basename
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|part| !part.is_empty())
                .collect::<Vec<_>>()
                .join("-");
            if slug != basename && slug.len() >= MIN_BASENAME_LEN {
                forms.push((slug, format!("<{}_BASENAME>", self.name)));
            }
            forms.push((basename, format!("<{}_BASENAME>", self.name)));
        }
        forms
    }
}

static ISO_DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d{4}-[01]\d-[0-3]\d").expect("valid regex"));
static LONG_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}",
    )
    .expect("valid regex")
});
static OS_VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)(OS Version: ).*$").expect("valid regex"));
/// The platform an agent names (Claude Code's `Platform:` line, Gemini CLI's `My operating
/// system is:`): a cassette recorded on a laptop replays in a Linux CI container.
static PLATFORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^(\s*(?:- )?Platform: |My operating system is: )\S+$").expect("valid regex")
});
/// Claude Code's note that the date changed, in its system-reminder wrapper when it has one.
static DATE_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:<system-reminder>\s*)?The date has changed\. Today's date is now [^\n<]*(?:\s*</system-reminder>)?",
    )
    .expect("valid regex")
});
static CC_VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(cc_version=\d+\.\d+\.\d+)\.[0-9A-Za-z]+").expect("valid regex"));
static WALL_TIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Wall time: \d+(?:\.\d+)? seconds").expect("valid regex"));

/// The keys whose string values are generated ids, renamed `<ID1>`, `<ID2>`… in order of
/// first appearance (so a call and its result stay linked).
const ID_KEYS: [&str; 4] = ["id", "tool_use_id", "call_id", "tool_call_id"];

/// Normalises the request bodies of one API with the masks of one run.
#[derive(Debug, Clone)]
pub(crate) struct RequestNormalizer {
    api: LlmApi,
    /// Literal forms of the paths, longest first.
    literals: Vec<(String, String)>,
    ignore: Vec<Regex>,
}

impl RequestNormalizer {
    pub(crate) fn new(api: LlmApi, paths: &[PathMask], ignore: &[Regex]) -> Self {
        let mut literals: Vec<(String, String)> = paths.iter().flat_map(PathMask::forms).collect();
        literals.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        literals.dedup_by(|a, b| a.0 == b.0);
        Self {
            api,
            literals,
            ignore: ignore.to_vec(),
        }
    }

    /// The body with volatile fields dropped and volatile text masked.
    pub(crate) fn normalize(&self, body: &Value) -> Value {
        let mut body = body.clone();
        self.drop_fields(&mut body);
        let mut ids = HashMap::new();
        self.walk(&mut body, false, &mut ids);
        body
    }

    fn drop_fields(&self, body: &mut Value) {
        let Some(object) = body.as_object_mut() else {
            return;
        };
        match self.api {
            LlmApi::Anthropic => {
                object.shift_remove("metadata");
                if let Some(Value::Array(messages)) = object.get_mut("messages") {
                    drop_date_changes(messages);
                }
            }
            LlmApi::OpenAiResponses => {
                object.shift_remove("client_metadata");
                object.shift_remove("prompt_cache_key");
                if let Some(Value::Array(items)) = object.get_mut("input") {
                    for item in items.iter_mut().filter_map(Value::as_object_mut) {
                        item.shift_remove("id");
                    }
                }
            }
            LlmApi::Gemini => {
                if let Some(Value::Array(contents)) = object.get_mut("contents") {
                    drop_repeated_responses(contents);
                }
            }
            LlmApi::OpenAiChat => {}
        }
    }

    fn walk(&self, value: &mut Value, protected: bool, ids: &mut HashMap<String, String>) {
        match value {
            Value::String(text) => {
                if let Cow::Owned(masked) = self.mask_text(text, protected) {
                    *text = masked;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(item, protected, ids);
                }
            }
            Value::Object(object) => {
                if !protected {
                    rename_ids(object, ids);
                }
                let tool_fields: Vec<String> = tool_content_fields(object)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                for (key, child) in object.iter_mut() {
                    let child_protected = protected || tool_fields.contains(key);
                    self.walk(child, child_protected, ids);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Masks one string; in tool content only the user's regexes, paths and wall times.
    pub(crate) fn mask_text<'a>(&self, text: &'a str, protected: bool) -> Cow<'a, str> {
        let mut text = Cow::Borrowed(text);
        for pattern in &self.ignore {
            replace_regex(&mut text, pattern, "<IGNORED>");
        }
        for (literal, placeholder) in &self.literals {
            if let Some(replaced) = replace_path(&text, literal, placeholder) {
                text = Cow::Owned(replaced);
            }
        }
        if self.api == LlmApi::OpenAiResponses {
            replace_regex(&mut text, &WALL_TIME, "Wall time: <N> seconds");
        }
        if !protected {
            replace_regex(&mut text, &ISO_DATE, "<DATE>");
            replace_regex(&mut text, &LONG_DATE, "<DATE>");
            if matches!(self.api, LlmApi::Anthropic | LlmApi::Gemini) {
                replace_regex(&mut text, &PLATFORM, "${1}<PLATFORM>");
            }
            if self.api == LlmApi::Anthropic {
                replace_regex(&mut text, &OS_VERSION, "${1}<OS_VERSION>");
                replace_regex(&mut text, &CC_VERSION, "${1}.<SUFFIX>");
            }
        }
        text
    }
}

/// Claude Code tells the model when the date changed during a session (a run that crosses
/// midnight): a note of its own in the next user message. A replay that crosses midnight
/// while its recording did not (or the reverse) asks the same thing, so the note is dropped:
/// from the text that holds it, the text block when nothing else is left, the message when
/// it had nothing else.
/// The text Claude Code adds when it resumes a session whose last turn it did not see end.
const RESUMED_NOTE: &str = "Continue from where you left off.";

fn drop_date_changes(messages: &mut Vec<Value>) {
    messages.retain_mut(|message| match message.get_mut("content") {
        Some(Value::String(text)) => keeps_more_than_a_date_change(text),
        Some(Value::Array(blocks)) => {
            let before = blocks.len();
            blocks.retain_mut(|block| match block.get_mut("text") {
                Some(Value::String(text)) => keeps_more_than_a_date_change(text),
                _ => true,
            });
            !blocks.is_empty() || before == 0
        }
        _ => true,
    });
}

/// Drops each `functionResponse` part that repeats an earlier one of the same content, id
/// and all: Gemini CLI 0.61's resumed session (`--resume`) holds a tool's answer once per
/// time its session file was saved while the call ran, a number that varies from run to run.
fn drop_repeated_responses(contents: &mut [Value]) {
    for content in contents {
        let Some(Value::Array(parts)) = content.get_mut("parts") else {
            continue;
        };
        let mut seen: Vec<Value> = Vec::new();
        parts.retain(|part| {
            let Some(response) = part.get("functionResponse") else {
                return true;
            };
            if seen.contains(response) {
                return false;
            }
            seen.push(response.clone());
            true
        });
    }
}

/// Drops Claude Code's date-change note from `text`; false when nothing else is left of a
/// text that held it, or when the text is the note Claude Code adds to a resumed session
/// whose last turn it did not see end (`Continue from where you left off.`: whether it does
/// depends on when the turn before's process saved its session).
fn keeps_more_than_a_date_change(text: &mut String) -> bool {
    if text.trim() == RESUMED_NOTE {
        return false;
    }
    if !DATE_CHANGE.is_match(text) {
        return true;
    }
    *text = DATE_CHANGE.replace_all(text, "").into_owned();
    !text.trim().is_empty()
}

/// `text` with every whole occurrence of the path `literal` replaced, or `None` when there
/// is none. Whole: not inside a longer name (no letter, digit, `_` or `-` right after it, no
/// letter, digit or `_` right before it) and not an XML closing tag (`</root>` is not
/// `HOME=/root`).
fn replace_path(text: &str, literal: &str, placeholder: &str) -> Option<String> {
    let name_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut copied = 0;
    for (start, _) in text.match_indices(literal) {
        let end = start + literal.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        let whole = start >= copied
            && !before.is_some_and(|c| name_char(c) || c == '<')
            && !after.is_some_and(|c| name_char(c) || c == '-');
        if whole {
            out.push_str(&text[copied..start]);
            out.push_str(placeholder);
            copied = end;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn replace_regex(text: &mut Cow<'_, str>, pattern: &Regex, replacement: &str) {
    if let Cow::Owned(replaced) = pattern.replace_all(text, replacement) {
        *text = Cow::Owned(replaced);
    }
}

fn rename_ids(object: &mut Map<String, Value>, ids: &mut HashMap<String, String>) {
    for key in ID_KEYS {
        if let Some(Value::String(id)) = object.get_mut(key) {
            let next = ids.len() + 1;
            let renamed = ids
                .entry(std::mem::take(id))
                .or_insert_with(|| format!("<ID{next}>"));
            *id = renamed.clone();
        }
    }
}

/// The fields of `object` that hold tool content (tools offered, tool results), by shape,
/// whatever the API: `tools`; the `content` of an Anthropic `tool_result` block or of a
/// Chat `role: "tool"` message; every field but `type`, `id`, `call_id` and `status` of a
/// Responses `…_output` item; the `response` of a Gemini `functionResponse`.
pub(crate) fn tool_content_fields(object: &Map<String, Value>) -> Vec<&str> {
    let mut fields = Vec::new();
    if object.contains_key("tools") {
        fields.push("tools");
    }
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    if kind == "tool_result" || object.get("role").and_then(Value::as_str) == Some("tool") {
        fields.push("content");
    }
    if kind.ends_with("_output") {
        fields.extend(
            object
                .keys()
                .map(String::as_str)
                .filter(|key| !matches!(*key, "type" | "id" | "call_id" | "status" | "tools")),
        );
    }
    if object.contains_key("name") && object.contains_key("response") {
        // Inside a Gemini `functionResponse` object.
        fields.push("response");
    }
    fields
}

/// `path?query` with every `key=` parameter (Gemini's API key) removed.
pub(crate) fn without_key_param(path: &str, query: Option<&str>) -> String {
    let kept: Vec<&str> = query
        .unwrap_or("")
        .split('&')
        .filter(|part| !part.is_empty() && !part.starts_with("key="))
        .collect();
    if kept.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

/// The key a request is matched by: the hash of the canonical JSON of its method, API path
/// (without `key=`) and normalised body. Headers never count.
pub(crate) fn request_key(method: &str, path: &str, normalized: &Value) -> String {
    content_hash(&json!({"method": method, "path": path, "body": normalized}))
}

/// `sha256:<hex>` of the canonical JSON of `value`.
pub(crate) fn content_hash(value: &Value) -> String {
    let digest = Sha256::digest(canonical_json(value).as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Compact JSON with the keys of every object sorted.
pub(crate) fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(object) => {
                let mut entries: Vec<_> = object.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.clone(), sorted(value)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
