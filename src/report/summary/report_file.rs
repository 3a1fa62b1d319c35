//! Results read from disk (directories of results files, results files, merged reports)
//! and merged into one report with its summary.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::totals::Summary;
use crate::report::results::{SchemaVersion, TaskResult};

/// Problems reading results.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A directory or file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file is not a results file or a report.
    #[error("{path} is not a mcpeval results file or report: {message}")]
    Parse {
        /// The path.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
}

/// A merged report: the summary and every run's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The version of this shape, as a results file's (absent from reports written before
    /// it existed: 1).
    #[serde(default)]
    pub schema_version: SchemaVersion,
    /// Figures over all results.
    pub summary: Summary,
    /// Every run's results, sorted by test name and run.
    pub results: Vec<TaskResult>,
}

/// Reads results from `paths`: directories of results files (an output directory with a
/// `results/` folder, or that folder itself), results files, or merged reports.
pub fn load_results(paths: &[PathBuf]) -> Result<Vec<TaskResult>, ReportError> {
    let mut results = Vec::new();
    for path in paths {
        if path.is_dir() {
            let dir = if path.join("results").is_dir() {
                path.join("results")
            } else {
                path.clone()
            };
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|source| ReportError::Read {
                    path: dir.clone(),
                    source,
                })?
                .flatten()
                .map(|entry| entry.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json") && !is_hidden(p))
                .collect();
            files.sort();
            for file in files {
                results.extend(read_file(&file)?);
            }
        } else {
            results.extend(read_file(path)?);
        }
    }
    results.sort_by(|a, b| (&a.test_name, a.run_index).cmp(&(&b.test_name, b.run_index)));
    Ok(results)
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
}

fn read_file(path: &Path) -> Result<Vec<TaskResult>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReportError::Read {
        path: path.to_owned(),
        source,
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| ReportError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    let parsed = if value.get("results").is_some() {
        serde_json::from_value::<Report>(value).map(|report| report.results)
    } else {
        serde_json::from_value::<TaskResult>(value).map(|result| vec![result])
    };
    let mut results = parsed.map_err(|e| ReportError::Parse {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    for result in &mut results {
        result.results_file = Some(path.to_owned());
    }
    Ok(results)
}

/// Merges `results` into a report.
pub fn merge(results: Vec<TaskResult>) -> Report {
    Report {
        schema_version: SchemaVersion::default(),
        summary: Summary::of(&results),
        results,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_files_and_reports_carry_their_schema_version() {
        let report = merge(vec![TaskResult::default()]);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["schemaVersion"], 1);
        assert_eq!(json["results"][0]["schemaVersion"], 1);
    }

    #[test]
    fn files_without_a_schema_version_read_as_version_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut json = serde_json::to_value(TaskResult::default()).unwrap();
        json.as_object_mut().unwrap().remove("schemaVersion");
        let file = dir.path().join("old.json");
        std::fs::write(&file, json.to_string()).unwrap();
        let report = serde_json::json!({"summary": Summary::default(), "results": [json]});
        let old_report = dir.path().join("report.json");
        std::fs::write(&old_report, report.to_string()).unwrap();
        for path in [file, old_report] {
            let results = load_results(&[path]).unwrap();
            assert_eq!(results[0].schema_version, SchemaVersion(1));
        }
    }
}
