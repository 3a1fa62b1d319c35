//! mcpchecker extensions in the files: `config.extensions.<name>` of an eval (which program,
//! its configuration and environment), `spec.requires` of a task (the extensions it uses and
//! under which alias) and its `<alias>.<operation>` steps.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::files::check::Checker;
use super::files::error::did_you_mean;

/// `config.extensions.<name>` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExtension {
    package: Option<String>,
    config: Option<Value>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    timeout: Option<String>,
}

/// One entry of a task's `spec.requires` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawRequirement {
    extension: Option<String>,
    mcp_server: Option<String>,
    #[serde(rename = "as")]
    alias: Option<String>,
}

/// An `<alias>.<operation>` step as written: its type and its arguments.
#[derive(Debug)]
pub struct RawExtensionStep {
    /// `<alias>.<operation>`.
    pub name: String,
    /// Everything under it: the operation's arguments.
    pub args: Value,
}

/// Bound on one extension step (and on starting the extension) unless the eval's
/// `config.extensions.<name>.timeout` says otherwise: the same 5 minutes as every other step
/// (`DEFAULT_STEP_TIMEOUT`; a test keeps them equal).
pub const DEFAULT_EXTENSION_TIMEOUT: Duration = Duration::from_secs(300);

/// An extension of an eval, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionSpec {
    /// Its key under `config.extensions`.
    pub name: String,
    /// Where its program comes from.
    pub package: Package,
    /// `package` as written.
    pub package_text: String,
    /// `config`: sent with `initialize`; `${VAR}` in its strings expands when it starts.
    pub config: Option<serde_json::Map<String, Value>>,
    /// `env`: added to its environment; `${VAR}` expands when it starts. Values are secrets.
    pub env: BTreeMap<String, String>,
    /// `timeout` (ours): bound on starting it and on each of its steps.
    pub timeout: Duration,
}

/// Where an extension's program comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Package {
    /// A local executable (`./`, `../`, `/`, `~/`, `file://`), relative paths resolved
    /// against the eval file's directory.
    File(PathBuf),
    /// A release binary: `github.com/owner/repo[@version]`.
    GitHub(GitHubPackage),
}

/// A GitHub release of an extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitHubPackage {
    /// The repository's owner.
    pub owner: String,
    /// The repository.
    pub repo: String,
    /// The release tag; `None` for the latest release.
    pub version: Option<String>,
}

/// A validated `<alias>.<operation>` step.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtensionStep {
    /// The alias the task gave the extension (`as`, else the extension's name).
    pub alias: String,
    /// The extension's name in `config.extensions`.
    pub extension: String,
    /// The operation.
    pub operation: String,
    /// Its arguments: a JSON object, checked against the operation's schema before setup.
    pub args: Value,
    /// Where the step is written, e.g. `spec.setup[0]`.
    pub key_path: String,
}

impl ExtensionStep {
    /// `<alias>.<operation>`, as written.
    pub fn name(&self) -> String {
        format!("{}.{}", self.alias, self.operation)
    }
}

/// `config.extensions`, each validated; relative local packages resolve against `dir`.
pub(super) fn validate_extensions(
    check: &mut Checker<'_>,
    raw: Option<BTreeMap<String, RawExtension>>,
    dir: &Path,
) -> BTreeMap<String, ExtensionSpec> {
    let mut specs = BTreeMap::new();
    for (name, extension) in raw.unwrap_or_default() {
        let key = format!("config.extensions.{name}");
        if name.trim().is_empty() {
            check.error(&key, "an extension needs a name");
            continue;
        }
        if let Some(spec) = extension.validate(check, &key, name.clone(), dir) {
            specs.insert(name, spec);
        }
    }
    specs
}

impl RawExtension {
    fn validate(
        self,
        check: &mut Checker<'_>,
        key: &str,
        name: String,
        dir: &Path,
    ) -> Option<ExtensionSpec> {
        let package_key = format!("{key}.package");
        let package_text = check.non_empty(&package_key, self.package.as_deref())?;
        let package = match parse_package(package_text, dir) {
            Ok(package) => Some(package),
            Err(message) => {
                check.error(&package_key, message);
                None
            }
        };
        let config = match self.config {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(_) => {
                check.error(
                    format!("{key}.config"),
                    "expected a mapping: the extension's configuration, sent with `initialize`",
                );
                None
            }
        };
        let timeout = match self.timeout {
            Some(text) => check.duration(&format!("{key}.timeout"), &text)?,
            None => DEFAULT_EXTENSION_TIMEOUT,
        };
        Some(ExtensionSpec {
            name,
            package: package?,
            package_text: package_text.to_owned(),
            config,
            env: self.env,
            timeout,
        })
    }
}

/// A package reference as mcpchecker reads it: `file://…` and paths starting with `./`,
/// `../`, `/` or `~/` are local files; anything holding `github.com/` is a GitHub release,
/// `owner/repo[@version]` after it.
pub fn parse_package(text: &str, dir: &Path) -> Result<Package, String> {
    let local = text.strip_prefix("file://").or_else(|| {
        ["./", "../", "/", "~/"]
            .iter()
            .any(|prefix| text.starts_with(prefix))
            .then_some(text)
    });
    if let Some(path) = local {
        return local_path(path, dir).map(Package::File);
    }
    if let Some((_, reference)) = text.split_once("github.com/") {
        return parse_github(reference).map(Package::GitHub);
    }
    Err(format!(
        "unknown package reference `{text}`; expected a local executable (`./`, `../`, `/`, `~/` or `file://`) or a GitHub release, `github.com/owner/repo[@version]`"
    ))
}

fn local_path(path: &str, dir: &Path) -> Result<PathBuf, String> {
    let path = match path.strip_prefix("~/") {
        Some(rest) => std::env::home_dir()
            .ok_or("cannot expand `~`: the home directory is unknown")?
            .join(rest),
        None => PathBuf::from(path),
    };
    if path.as_os_str().is_empty() {
        return Err("the path is empty".into());
    }
    // Tidy `./` segments for messages; `..` stays as written.
    Ok(dir.join(path).components().collect())
}

fn parse_github(reference: &str) -> Result<GitHubPackage, String> {
    let expected = "expected github.com/owner/repo[@version]";
    let (repository, version) = match reference.rsplit_once('@') {
        Some((_, "")) => return Err(format!("empty version after `@`; {expected}")),
        Some((repository, version)) => (repository, Some(version)),
        None => (reference, None),
    };
    match repository.split('/').collect::<Vec<_>>()[..] {
        [owner, repo] if !owner.is_empty() && !repo.is_empty() => Ok(GitHubPackage {
            owner: owner.to_owned(),
            repo: repo.to_owned(),
            version: version.filter(|v| *v != "latest").map(str::to_owned),
        }),
        _ => Err(format!(
            "invalid GitHub reference `github.com/{reference}`; {expected}"
        )),
    }
}

/// `spec.requires`: the alias of each required extension and the extension it names.
pub(super) fn validate_requires(
    check: &mut Checker<'_>,
    raw: Vec<RawRequirement>,
    extensions: &[String],
) -> BTreeMap<String, String> {
    let mut aliases = BTreeMap::new();
    for (i, requirement) in raw.into_iter().enumerate() {
        let key = format!("spec.requires[{i}]");
        let extension = match (requirement.extension, requirement.mcp_server) {
            (Some(extension), None) => extension,
            (None, Some(_)) => {
                check.error(
                    format!("{key}.mcpServer"),
                    "`mcpServer` requirements (MCP tool calls as steps) are not supported by mcpeval yet",
                );
                continue;
            }
            (Some(_), Some(_)) => {
                check.error(
                    &key,
                    "both `extension` and `mcpServer` are set; expected exactly one",
                );
                continue;
            }
            (None, None) => {
                check.error(&key, "expected `extension: <name>` (and optionally `as`)");
                continue;
            }
        };
        if !extensions.contains(&extension) {
            let known = if extensions.is_empty() {
                "the eval has no `config.extensions`".to_owned()
            } else {
                format!("the eval's extensions are {}", extensions.join(", "))
            };
            check.error(
                format!("{key}.extension"),
                format!(
                    "unknown extension `{extension}`; {known}{}",
                    did_you_mean(&extension, extensions.iter().map(String::as_str))
                ),
            );
            continue;
        }
        let alias = requirement.alias.unwrap_or_else(|| extension.clone());
        if alias.is_empty() || alias.contains('.') {
            check.error(
                format!("{key}.as"),
                format!("the alias `{alias}` must be a non-empty name without dots"),
            );
        } else if aliases.insert(alias.clone(), extension).is_some() {
            check.error(&key, format!("the alias `{alias}` is required twice"));
        }
    }
    aliases
}

impl RawExtensionStep {
    /// Validates the step written at `path`; the extension of its alias comes from the
    /// task's `spec.requires` (`aliases`).
    pub fn validate(
        self,
        check: &mut Checker<'_>,
        path: &str,
        aliases: &BTreeMap<String, String>,
    ) -> Option<ExtensionStep> {
        let key = format!("{path}.{}", self.name);
        let (alias, operation) = self.name.split_once('.')?;
        let Some(extension) = aliases.get(alias) else {
            let hint = match did_you_mean(alias, aliases.keys().map(String::as_str)) {
                hint if !hint.is_empty() => hint,
                _ => format!(
                    "; a task names the extensions it uses in `spec.requires`, e.g. `- {{extension: <name>, as: {alias}}}`"
                ),
            };
            check.error(
                &key,
                format!("`{alias}` is not an extension this task requires{hint}"),
            );
            return None;
        };
        if operation.is_empty() {
            check.error(
                &key,
                "expected `<alias>.<operation>`; the operation is empty",
            );
            return None;
        }
        let args = match self.args {
            Value::Null => Value::Object(serde_json::Map::new()),
            Value::Object(map) => Value::Object(map),
            _ => {
                check.error(&key, "expected a mapping: the operation's arguments");
                return None;
            }
        };
        Some(ExtensionStep {
            alias: alias.to_owned(),
            extension: extension.clone(),
            operation: operation.to_owned(),
            args,
            key_path: path.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn github(owner: &str, repo: &str, version: Option<&str>) -> Package {
        Package::GitHub(GitHubPackage {
            owner: owner.into(),
            repo: repo.into(),
            version: version.map(Into::into),
        })
    }

    #[test]
    fn package_references_read_as_mcpchecker_reads_them() {
        let dir = Path::new("/evals/k8s");
        let home = std::env::home_dir().unwrap();
        let cases: &[(&str, Package)] = &[
            ("./bin/ext", Package::File("/evals/k8s/./bin/ext".into())),
            ("../ext", Package::File("/evals/k8s/../ext".into())),
            ("/usr/bin/ext", Package::File("/usr/bin/ext".into())),
            ("~/bin/ext", Package::File(home.join("bin/ext"))),
            ("file:///opt/ext", Package::File("/opt/ext".into())),
            ("github.com/o/r", github("o", "r", None)),
            ("github.com/o/r@latest", github("o", "r", None)),
            ("github.com/o/r@v1.2.0", github("o", "r", Some("v1.2.0"))),
            (
                "https://github.com/mcpchecker/kubernetes-extension@v0.0.2",
                github("mcpchecker", "kubernetes-extension", Some("v0.0.2")),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_package(text, dir).as_ref(), Ok(expected), "{text}");
        }
    }

    #[test]
    fn bad_package_references_say_what_was_expected() {
        let dir = Path::new("/e");
        let cases = [
            ("ext", "unknown package reference"),
            ("github.com/o/r@", "empty version"),
            ("github.com/o", "owner/repo"),
            ("github.com/o/r/x", "owner/repo"),
            ("github.com//r", "owner/repo"),
        ];
        for (text, words) in cases {
            let error = parse_package(text, dir).unwrap_err();
            assert!(error.contains(words), "{text}: {error}");
        }
    }
}
