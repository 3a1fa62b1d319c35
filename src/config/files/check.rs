//! The validation pass: collects every problem of one file, each placed at its key path.

use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;

use super::error::{ConfigError, ConfigErrors, did_you_mean};
use super::yaml::LocationIndex;

/// Collects the errors of one file; looks up the line and column of each key path.
pub struct Checker<'a> {
    file: &'a Path,
    locations: &'a LocationIndex,
    errors: Vec<ConfigError>,
}

impl<'a> Checker<'a> {
    /// A checker for `file`, whose key paths sit where `locations` says.
    pub fn new(file: &'a Path, locations: &'a LocationIndex) -> Self {
        Checker {
            file,
            locations,
            errors: Vec::new(),
        }
    }

    /// The file being checked.
    pub fn file(&self) -> &'a Path {
        self.file
    }

    /// Records a problem at `key_path`.
    pub fn error(&mut self, key_path: impl Into<String>, message: impl Into<String>) {
        let key_path = key_path.into();
        self.errors.push(ConfigError {
            file: self.file.to_path_buf(),
            location: self.locations.find(&key_path),
            key_path,
            message: message.into(),
        });
    }

    /// How many problems were recorded so far.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// Adds errors found elsewhere (another file) to this load.
    pub fn extend(&mut self, errors: ConfigErrors) {
        self.errors.extend(errors.0);
    }

    /// `Ok(value)` when no problem was recorded, else every problem.
    pub fn finish<T>(self, value: T) -> Result<T, ConfigErrors> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(ConfigErrors(self.errors))
        }
    }

    /// The errors so far, for a file that cannot be validated further. Call it after
    /// [`Checker::error`]: with no error recorded it is a file of no errors that still fails.
    pub fn fail<T>(self) -> Result<T, ConfigErrors> {
        Err(ConfigErrors(self.errors))
    }

    /// Compiles a regex written at `key_path`; an invalid one is an error with the regex error.
    pub fn regex(&mut self, key_path: &str, pattern: &str) -> Option<Regex> {
        match Regex::new(pattern) {
            Ok(regex) => Some(regex),
            Err(e) => {
                let detail = e.to_string();
                let detail = detail
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .trim_start_matches("error: ");
                self.error(
                    key_path,
                    format!("invalid regular expression {pattern:?}: {detail}"),
                );
                None
            }
        }
    }

    /// Whether `server`, written at `key_path`, is one of the MCP config's `servers` (when
    /// they are known); an error listing them, with the closest, when it is not.
    pub fn known_server(&mut self, key_path: &str, server: &str, servers: Option<&[&str]>) -> bool {
        match servers {
            Some(servers) if !servers.contains(&server) => {
                let message = format!(
                    "unknown server `{server}`; the MCP config has {}{}",
                    servers.join(", "),
                    did_you_mean(server, servers.iter().copied())
                );
                self.error(key_path, message);
                false
            }
            _ => true,
        }
    }

    /// Whether `value`, written at `key_path`, is one of `names`; an error listing them,
    /// with the closest, when it is not.
    pub fn one_of(&mut self, key_path: &str, value: &str, names: &[&str]) -> bool {
        if names.contains(&value) {
            return true;
        }
        let message = format!(
            "expected one of {}; got {value:?}{}",
            names.join(", "),
            did_you_mean(value, names.iter().copied())
        );
        self.error(key_path, message);
        false
    }

    /// Parses a duration such as `30s`, `2m`, `1h30m` or `500ms` written at `key_path`.
    pub fn duration(&mut self, key_path: &str, text: &str) -> Option<Duration> {
        match humantime::parse_duration(text.trim()) {
            Ok(duration) if !duration.is_zero() => Some(duration),
            Ok(_) => {
                self.error(key_path, "expected a duration above zero");
                None
            }
            Err(_) => {
                self.error(
                    key_path,
                    format!("invalid duration {text:?}; expected e.g. 30s, 2m, 1h30m or 500ms"),
                );
                None
            }
        }
    }

    /// Resolves a relative path written in this file against the file's directory.
    pub fn resolve(&self, relative: &str) -> PathBuf {
        resolve_against(self.file, relative)
    }

    /// Resolves `relative` and checks that it names an existing file.
    pub fn existing_file(&mut self, key_path: &str, relative: &str) -> Option<PathBuf> {
        let resolved = self.resolve(relative);
        if resolved.is_file() {
            Some(resolved)
        } else if resolved.exists() {
            self.error(key_path, format!("{} is not a file", resolved.display()));
            None
        } else {
            self.error(key_path, format!("file not found: {}", resolved.display()));
            None
        }
    }

    /// A count written at `key_path` that must not be negative.
    pub fn count(&mut self, key_path: &str, value: i64) -> Option<u32> {
        match u32::try_from(value) {
            Ok(count) => Some(count),
            Err(_) if value < 0 => {
                self.error(key_path, format!("must be 0 or more, found {value}"));
                None
            }
            Err(_) => {
                self.error(key_path, format!("{value} is too large"));
                None
            }
        }
    }

    /// `metadata.name` of an eval or a task: required, and a valid part of a test name
    /// (`<eval>::<task>`) and of file names (see [`crate::plumbing::file_stem`]). Any printable
    /// character of any script is allowed, spaces inside too (libtest and nextest names may
    /// have them, as mcpchecker's `create pod inline` does); not `::`, other whitespace or
    /// control characters, a space at either end, or a `.` at the start (`.`, `..` and
    /// hidden-file names).
    pub fn test_name_part(&mut self, value: Option<&str>) -> Option<String> {
        let name = self.non_empty("metadata.name", value)?;
        let bad_char = name
            .chars()
            .any(|c| c.is_control() || (c.is_whitespace() && c != ' '));
        if name.contains("::") || bad_char || name.trim() != name || name.starts_with('.') {
            self.error(
                "metadata.name",
                format!(
                    "{name:?} is part of a test name: no `::`, no tabs, line breaks or control characters, no space at either end, and no `.` at the start"
                ),
            );
        }
        Some(name.to_owned())
    }

    /// A pass rate written at `key_path`: a number from 0 to 1.
    pub fn rate(&mut self, key_path: &str, value: f64) -> Option<f64> {
        if (0.0..=1.0).contains(&value) {
            Some(value)
        } else {
            self.error(
                key_path,
                format!("must be between 0 and 1 (a fraction of the runs), found {value}"),
            );
            None
        }
    }

    /// A string written at `key_path` that must not be empty.
    pub fn non_empty<'s>(&mut self, key_path: &str, value: Option<&'s str>) -> Option<&'s str> {
        match value.map(str::trim) {
            Some(text) if !text.is_empty() => value,
            Some(_) => {
                self.error(key_path, "must not be empty");
                None
            }
            None => {
                self.error(key_path, "missing required field");
                None
            }
        }
    }
}

/// The directory of `file`: `.` for a bare file name (`eval.yaml`), whose parent is the
/// empty path (a working directory no process can start in).
pub fn dir_of(file: &Path) -> &Path {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// `relative` resolved against the directory of `file` (absolute paths stay as they are).
pub fn resolve_against(file: &Path, relative: &str) -> PathBuf {
    let joined = dir_of(file).join(relative);
    // Tidy `./` segments for messages; `..` stays as written.
    joined.components().collect()
}
