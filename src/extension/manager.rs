//! The extensions of one eval ([`ExtensionManager`]): each started once, when a step first
//! needs it, shared by the eval's tasks, and shut down when the run of the test binary ends.
//! The managers of a process live in an [`ExtensionRegistry`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use super::client::ExtensionClient;
use super::error::ExtensionError;
use super::release::{DOWNLOAD_URL_VAR, release_binary};
use super::rpc::ExtensionLaunch;
use crate::config::{Eval, ExtensionSpec, LocationIndex, Package, expand_vars};
use crate::plumbing::lock::lock;

/// What every extension of a run gets from the harness.
#[derive(Debug, Clone, Default)]
pub struct HostSettings {
    /// Variables of the run: for `${VAR}` and added to the extensions' environment.
    pub vars: Vec<(String, String)>,
    /// The output directory (release binaries are extracted under `extensions/` there).
    pub output_dir: PathBuf,
    /// Copy extensions' stderr to ours as it arrives.
    pub live: bool,
}

impl HostSettings {
    fn var(&self, name: &str) -> Option<String> {
        let own = self.vars.iter().rev().find(|(k, _)| k == name);
        own.map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    }
}

type Started = OnceCell<Result<Arc<ExtensionClient>, String>>;

/// The extensions of one eval.
#[derive(Debug)]
pub struct ExtensionManager {
    eval_file: PathBuf,
    locations: LocationIndex,
    specs: BTreeMap<String, ExtensionSpec>,
    settings: HostSettings,
    started: BTreeMap<String, Started>,
}

impl ExtensionManager {
    /// The manager of `eval`'s extensions; nothing starts yet.
    pub fn new(eval: &Eval, settings: HostSettings) -> Self {
        ExtensionManager {
            eval_file: eval.path.clone(),
            locations: eval.locations.clone(),
            specs: eval.extensions.clone(),
            settings,
            started: eval
                .extensions
                .keys()
                .map(|k| (k.clone(), Started::new()))
                .collect(),
        }
    }

    /// The running extension `name`, started on first use; a failed start is remembered,
    /// so every task that needs it fails alike without retrying.
    pub async fn client(&self, name: &str) -> Result<Arc<ExtensionClient>, String> {
        let (Some(spec), Some(cell)) = (self.specs.get(name), self.started.get(name)) else {
            return Err(format!("the eval has no extension `{name}`"));
        };
        let started = cell
            .get_or_init(|| async {
                self.start(spec).await.map(Arc::new).map_err(|e| {
                    format!(
                        "extension `{name}` (package {}) cannot start: {e}",
                        spec.package_text
                    )
                })
            })
            .await;
        started.clone()
    }

    async fn start(&self, spec: &ExtensionSpec) -> Result<ExtensionClient, ExtensionError> {
        let program = self.program(spec).await?;
        let key = format!("config.extensions.{}", spec.name);
        let mut env = self.settings.vars.clone();
        for (name, value) in &spec.env {
            let value = expand_vars(value, &|v| self.settings.var(v))
                .map_err(|e| self.located(&format!("{key}.env.{name}"), &e))?;
            env.push((name.clone(), value));
        }
        let config = match &spec.config {
            Some(config) => Some(
                expand_map(config, &|v| self.settings.var(v))
                    .map_err(|e| self.located(&format!("{key}.config"), &e))?,
            ),
            None => None,
        };
        let launch = ExtensionLaunch {
            program: &program,
            env,
            cwd: self.eval_dir(),
            live: self.settings.live,
        };
        ExtensionClient::start(&launch, config.as_ref(), spec.timeout).await
    }

    /// The executable of `spec`: a local file that must exist and be executable, or a
    /// release binary from the cache or downloaded.
    async fn program(&self, spec: &ExtensionSpec) -> Result<PathBuf, ExtensionError> {
        let key = format!("config.extensions.{}.package", spec.name);
        match &spec.package {
            Package::File(path) => local_program(path).map_err(|e| self.located(&key, &e)),
            Package::GitHub(package) => {
                let base = self
                    .settings
                    .var(DOWNLOAD_URL_VAR)
                    .filter(|b| !b.is_empty());
                let root = self.settings.output_dir.join("extensions");
                release_binary(package, base.as_deref(), &root)
                    .await
                    .map_err(ExtensionError::Fetch)
            }
        }
    }

    fn eval_dir(&self) -> &Path {
        self.eval_file.parent().unwrap_or_else(|| Path::new("."))
    }

    /// A configuration error at `key_path` of the eval file.
    fn located(&self, key_path: &str, message: &str) -> ExtensionError {
        let location = match self.locations.find(key_path) {
            Some((line, column)) => format!(":{line}:{column}"),
            None => String::new(),
        };
        ExtensionError::Config(format!(
            "{}{location}: {key_path}: {message}",
            self.eval_file.display()
        ))
    }

    /// Values that must not appear in step output: the extension's `env` values (four
    /// characters or more).
    pub fn secrets(&self, name: &str) -> Vec<String> {
        let Some(spec) = self.specs.get(name) else {
            return Vec::new();
        };
        spec.env
            .values()
            .filter_map(|v| expand_vars(v, &|n| self.settings.var(n)).ok())
            .filter(|v| v.chars().count() >= 4)
            .collect()
    }

    /// Shuts every started extension down; a note for each that did not go cleanly.
    pub async fn shutdown(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for (name, cell) in &self.started {
            if let Some(Ok(client)) = cell.get()
                && let Some(note) = client.shutdown().await
            {
                notes.push(format!(
                    "extension `{name}` of {}: {note}",
                    self.eval_file.display()
                ));
            }
        }
        notes
    }

    fn any_started(&self) -> bool {
        self.started.values().any(|cell| cell.initialized())
    }
}

/// `path` (absolute) when it is an executable file, else what is wrong (as mcpchecker
/// checks it).
fn local_program(path: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let path = &std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let meta = std::fs::metadata(path)
        .map_err(|e| format!("extension not found at {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, expected an executable",
            path.display()
        ));
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(format!("{} is not executable (chmod +x)", path.display()));
    }
    Ok(path.to_path_buf())
}

/// `config` with `${VAR}` expanded in every string, at any depth.
fn expand_map(
    config: &Map<String, Value>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Map<String, Value>, String> {
    config
        .iter()
        .map(|(k, v)| Ok((k.clone(), expand_value(v, lookup)?)))
        .collect()
}

fn expand_value(value: &Value, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Value, String> {
    Ok(match value {
        Value::String(text) => Value::String(expand_vars(text, lookup)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand_value(v, lookup))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(expand_map(map, lookup)?),
        other => other.clone(),
    })
}

/// The extension managers of this process, one per eval with extensions.
#[derive(Debug, Clone, Default)]
pub struct ExtensionRegistry {
    managers: Arc<Mutex<Vec<Arc<ExtensionManager>>>>,
}

impl ExtensionRegistry {
    /// The manager of `eval`'s extensions (made on first request); `None` when it has none.
    pub fn for_eval(&self, eval: &Eval, settings: HostSettings) -> Option<Arc<ExtensionManager>> {
        if eval.extensions.is_empty() {
            return None;
        }
        let mut managers = lock(&self.managers);
        if let Some(found) = managers.iter().find(|m| m.eval_file == eval.path) {
            return Some(found.clone());
        }
        let manager = Arc::new(ExtensionManager::new(eval, settings));
        managers.push(manager.clone());
        Some(manager)
    }

    /// Whether any extension was started (and so needs shutting down).
    pub fn any_started(&self) -> bool {
        lock(&self.managers).iter().any(|m| m.any_started())
    }

    /// Shuts down every started extension of every eval; a note for each that did not go
    /// cleanly.
    pub async fn shutdown_all(&self) -> Vec<String> {
        let managers = lock(&self.managers).clone();
        let mut notes = Vec::new();
        for manager in managers {
            notes.extend(manager.shutdown().await);
        }
        notes
    }
}
