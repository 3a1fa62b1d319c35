//! The agent's version for results and reports: the output of an Agent file's
//! `commands.getVersion`, run once per command and process, else its `metadata.version`,
//! else for the llm-agent mcpeval's own version.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use crate::config::{Agent, AgentOptions};
use crate::lock::lock;
use crate::process::{self, ProcessSpec};

/// Bound on one `getVersion` command.
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

/// Versions already asked for, by command: every task of a run reports the same one.
static VERSIONS: LazyLock<Mutex<BTreeMap<String, String>>> = LazyLock::new(Default::default);

/// The agent's version: `getVersion`'s first line of output (run through `sh -c` in `dir`
/// with `env`), `metadata.version`, or none. A command that fails says so in the version
/// text rather than failing the task.
pub async fn agent_version(
    options: &AgentOptions,
    dir: &Path,
    env: &[(String, String)],
) -> Option<String> {
    let Some(command) = &options.get_version else {
        return options.version.clone();
    };
    if let Some(known) = lock(&VERSIONS).get(command) {
        return Some(known.clone());
    }
    let spec = ProcessSpec {
        program: "sh".into(),
        args: vec!["-c".into(), command.into()],
        env: env.iter().map(|(k, v)| (k.into(), v.into())).collect(),
        cwd: dir.to_path_buf(),
        live: false,
    };
    let version = match process::run(&spec, VERSION_TIMEOUT).await {
        Ok(finished) if finished.success() => first_line(&finished.stdout)
            .or_else(|| first_line(&finished.stderr))
            .unwrap_or_else(|| "unknown (getVersion printed nothing)".into()),
        Ok(finished) => format!(
            "unknown (getVersion {})",
            finished.describe(VERSION_TIMEOUT)
        ),
        Err(e) => format!("unknown (cannot run getVersion: {e})"),
    };
    lock(&VERSIONS).insert(command.clone(), version.clone());
    Some(version)
}

/// The version of a builtin agent that is part of mcpeval (the llm-agent):
/// `mcpeval <version>`; none for the others.
pub fn builtin_version(agent: &Agent) -> Option<String> {
    matches!(agent, Agent::LlmAgent { .. })
        .then(|| format!("mcpeval {}", env!("CARGO_PKG_VERSION")))
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_owned)
}
