//! The agent's version for results and reports: the output of an Agent file's
//! `commands.getVersion`, run once per command and process, else its `metadata.version`,
//! else for the llm-agent mcpeval's own version, for Codex and Gemini CLI their programs'
//! `--version`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use std::ffi::OsString;
use std::path::PathBuf;

use super::cli::CliProgram;
use crate::config::{Agent, AgentOptions, VersionSource};
use crate::plumbing::lock::lock;
use crate::plumbing::process::{self, ProcessSpec};

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
    let kind = agent.builtin()?;
    (kind.version == VersionSource::Mcpeval)
        .then(|| format!("mcpeval {}", env!("CARGO_PKG_VERSION")))
}

/// The program a builtin agent runs and mcpeval asks for its version (Codex, Gemini CLI).
fn program_of(agent: &Agent) -> Option<CliProgram> {
    let kind = agent.builtin()?;
    let program = kind
        .program
        .filter(|_| kind.version == VersionSource::ProgramFlag)?;
    Some(CliProgram { kind, program })
}

/// The version of the program a builtin agent runs (`codex-cli 0.169.0`,
/// `@google/gemini-cli 0.61.0`): its `--version` output, asked once per program and
/// process, with the run's private `HOME` and `CODEX_HOME` in `run_dir` (Gemini CLI writes
/// into `~/.gemini` even for `--version`); none when the program is not on `PATH` (as `env`
/// or the process sees it) or says nothing.
pub async fn program_version(
    agent: &Agent,
    run_dir: &Path,
    env: &[(String, String)],
) -> Option<String> {
    let program = program_of(agent)?;
    let path = program.path_in(env)?;
    let key = format!("{} --version", path.display());
    if let Some(known) = lock(&VERSIONS).get(&key) {
        return Some(known.clone());
    }
    let mut env: Vec<(OsString, OsString)> =
        env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    for (name, dir) in [("HOME", "home"), ("CODEX_HOME", "codex-home")] {
        let dir = run_dir.join(dir);
        std::fs::create_dir_all(&dir).ok()?;
        env.push((name.into(), dir.into()));
    }
    let spec = ProcessSpec {
        program: path.into(),
        args: vec!["--version".into()],
        env,
        cwd: run_dir.to_path_buf(),
        live: false,
    };
    let finished = process::run(&spec, VERSION_TIMEOUT).await.ok()?;
    let line = first_line(&finished.stdout).filter(|_| finished.success())?;
    let version = if line.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{} {line}", program.program.package)
    } else {
        line
    };
    lock(&VERSIONS).insert(key, version.clone());
    Some(version)
}

/// Where the npm package of a builtin agent's program is installed (its prompts may name
/// files there), when it is on `PATH` as `env` or the process sees it.
pub fn program_install_dir(agent: &Agent, env: &[(String, String)]) -> Option<PathBuf> {
    super::cli::package_dir(&program_of(agent)?.path_in(env)?)
}

fn first_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_owned)
}
