//! Configuration errors: every one names the file, the line and column where known, the key
//! path and what was expected.

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem found while loading or validating a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file the problem is in.
    pub file: PathBuf,
    /// 1-based line and column, when the parser or the location index knows them.
    pub location: Option<(u64, u64)>,
    /// The key path inside the file, e.g. `config.taskSets[1].glob`; empty for the whole file.
    pub key_path: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl ConfigError {
    /// An error about a whole file (it cannot be read, it is not YAML, ...).
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        ConfigError {
            file: file.to_path_buf(),
            location: None,
            key_path: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        if !self.key_path.is_empty() {
            write!(f, ": {}", self.key_path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Every problem found in one load: validation goes on after the first error, so a user
/// fixes them all in one round.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl ConfigErrors {
    /// The errors, in the order they were found.
    pub fn iter(&self) -> std::slice::Iter<'_, ConfigError> {
        self.0.iter()
    }
}

impl From<ConfigError> for ConfigErrors {
    fn from(error: ConfigError) -> Self {
        ConfigErrors(vec![error])
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// The closest of `candidates` to a misspelled `word`, when one is close enough to be a
/// plausible typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            let score = strsim::jaro_winkler(&lower, &candidate.to_ascii_lowercase());
            (score, candidate)
        })
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// `"; did you mean X?"` or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    suggest(word, candidates)
        .map(|s| format!("; did you mean {s}?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_field_names_only() {
        let fields = ["server", "tool", "toolPattern"];
        assert_eq!(suggest("toolPatern", fields), Some("toolPattern"));
        assert_eq!(suggest("servr", fields), Some("server"));
        assert_eq!(suggest("completely", fields), None);
    }

    #[test]
    fn display_has_file_location_path_and_message() {
        let error = ConfigError {
            file: "evals/k8s/eval.yaml".into(),
            location: Some((14, 9)),
            key_path: "config.taskSets[1].glob".into(),
            message: "matches no task file".into(),
        };
        assert_eq!(
            error.to_string(),
            "evals/k8s/eval.yaml:14:9: config.taskSets[1].glob: matches no task file"
        );
    }
}
