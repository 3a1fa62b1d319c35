//! The header of a task file, read leniently: what planning needs (its kind, name and
//! labels) without validating the whole file.

use std::path::Path;

pub use super::header_events::TaskHeader;
use super::header_events::scan_task_header;
use crate::config::files::error::ConfigError;
use crate::config::files::yaml::{parse_str, several_documents};

/// Reads the header of `path`. `Ok(None)`: the file is not a task (another `kind`, or
/// several YAML documents as in Kubernetes manifests), and planning skips it.
pub fn read_task_header(path: &Path) -> Result<Option<TaskHeader>, ConfigError> {
    let source = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::file(path, format!("cannot read file: {e}")))?;
    task_header(path, &source)
}

/// The header of `source`, the text of `path` (see [`read_task_header`]). Planning reads
/// every task file's header: most are read from the parser's events alone.
pub fn task_header(path: &Path, source: &str) -> Result<Option<TaskHeader>, ConfigError> {
    match scan_task_header(source) {
        Some(header) => Ok(header),
        None => serde_task_header(path, source),
    }
}

/// The header of `source` as serde reads it.
pub(in crate::config) fn serde_task_header(
    path: &Path,
    source: &str,
) -> Result<Option<TaskHeader>, ConfigError> {
    // A document that parses skips the key paths and the location index, which only an
    // error needs (the same parser, the same options).
    let value = match serde_saphyr::from_str::<serde_json::Value>(source) {
        Ok(value) => value,
        Err(_) => match parse_str::<serde_json::Value>(path, source) {
            Ok(parsed) => parsed.value,
            Err(_) if several_documents(source) => return Ok(None),
            Err(e) => return Err(e),
        },
    };
    if value.get("kind").and_then(|k| k.as_str()) != Some("Task") {
        return Ok(None);
    }
    let metadata = value.get("metadata");
    let name = metadata
        .and_then(|m| m.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_owned);
    let labels = metadata
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.as_object())
        .map(|labels| {
            labels
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Some(TaskHeader { name, labels }))
}
