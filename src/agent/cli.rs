//! What the agent programs mcpeval drives through their JSON output (`builtin.codex`,
//! `builtin.gemini-cli`) share: finding the program, their private directories, running it
//! in its own process group, and why a run failed.

use crate::plumbing::ended::Ended;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::contract::{AgentOutcome, AgentRun};
use crate::config::{BuiltinKind, KindId, Program, key_variable};
use crate::llm::PLACEHOLDER_KEY;
use crate::llm::TokenUsage;
use crate::plumbing::process::{self, Finished, ProcessSpec};
use crate::trace::AgentToolCall;

/// What the JSON events of one run of such a program say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliEvents {
    /// The answer: the last message's text.
    pub answer: Option<String>,
    /// The token usage it reported, summed.
    pub usage: Option<TokenUsage>,
    /// Every tool use it reported: MCP tools under its own names for them, and its own
    /// tools.
    pub tool_uses: Vec<AgentToolCall>,
    /// The error of its failed turn or result, else of its last error event.
    pub error: Option<String>,
    /// Its last event (Codex `turn.completed`, Gemini CLI `result`) arrived.
    pub completed: bool,
}

/// An agent program, as its builtin kind describes it (`config::agent::kinds`): its command,
/// the npm package that installs it, its name in messages.
#[derive(Debug, Clone, Copy)]
pub(super) struct CliProgram {
    /// The kind that runs it (`builtin.codex`).
    pub kind: &'static BuiltinKind,
    /// Its command, package and tested version.
    pub program: Program,
}

impl CliProgram {
    /// The program of builtin kind `id` (one that runs a program: a compile-time error else).
    pub(super) const fn of(id: KindId) -> Self {
        let kind = id.kind();
        match kind.program {
            Some(program) => CliProgram { kind, program },
            None => panic!("a builtin kind that runs no program"),
        }
    }

    /// The program on the agent's `PATH`, else why the agent fails: a message that names
    /// the package.
    pub(super) fn find(&self, run: &AgentRun<'_>) -> Result<PathBuf, String> {
        let path = run.var("PATH").map(OsString::from);
        let Program {
            command,
            display,
            package,
            tested_version,
        } = self.program;
        find_on_path(command, path.as_ref()).ok_or_else(|| {
            format!(
                "`{command}` is not on PATH: builtin.{} runs {display}, install it with \
                 `npm install -g {package}@{tested_version}`",
                self.kind.name
            )
        })
    }

    /// The program on `PATH` as `env` (else the process) says it.
    pub(super) fn path_in(&self, env: &[(String, String)]) -> Option<PathBuf> {
        let path = env
            .iter()
            .rev()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| OsString::from(value))
            .or_else(|| std::env::var_os("PATH"));
        find_on_path(self.program.command, path.as_ref())
    }

    /// Runs `program` with `args` and `env` in the run's working directory, bounded by the
    /// run's timeout; its process group is killed when it ends, times out or is dropped.
    pub(super) async fn run(
        &self,
        program: PathBuf,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        run: &AgentRun<'_>,
    ) -> Result<Finished, String> {
        let spec = ProcessSpec {
            program: program.into(),
            args,
            env,
            cwd: run.work_dir.to_path_buf(),
            live: run.live,
        };
        process::run(&spec, run.timeout)
            .await
            .map_err(|e| format!("cannot start `{}`: {e}", self.program.command))
    }

    /// The outcome of a finished run whose output said `events`; `last_event` names the
    /// event that ends a complete output. Stderr opens with the usage line. Turns are left
    /// to the harness (the LLM proxy's count) and the version to `--version`.
    pub(super) fn outcome(
        &self,
        finished: Finished,
        events: CliEvents,
        last_event: &str,
        run: &AgentRun<'_>,
    ) -> AgentOutcome {
        let completed = (!events.completed).then_some(last_event);
        let error = events.error.as_deref();
        let ended = self.ended(&finished, run.timeout, error, completed, run);
        let stderr = match &events.usage {
            Some(usage) => format!(
                "usage: {} input, {} output tokens\n{}",
                usage.prompt_tokens, usage.completion_tokens, finished.stderr
            ),
            None => finished.stderr,
        };
        AgentOutcome {
            ended,
            answer: events.answer.unwrap_or_default(),
            stdout: finished.stdout,
            stderr,
            usage: events.usage,
            turns: None,
            tool_call_count: (events.completed || !events.tool_uses.is_empty())
                .then(|| u32::try_from(events.tool_uses.len()).unwrap_or(u32::MAX)),
            tool_calls: events.tool_uses,
            version: None,
            cannot_continue: None,
        }
    }

    /// Why a finished run failed, or empty when it passed. `error` is the error the program
    /// reported in its output; `completed` whether its output got as far as its last event
    /// (`what` names that event).
    pub(super) fn ended(
        &self,
        finished: &Finished,
        timeout: Duration,
        error: Option<&str>,
        completed: Option<&str>,
        run: &AgentRun<'_>,
    ) -> Ended {
        let display = self.program.display;
        let reason = if finished.timed_out() {
            format!(
                "{display} {} (the agent timeout)",
                finished.describe(timeout)
            )
        } else if !finished.success() {
            let error = error
                .map(str::to_owned)
                .or_else(|| last_error_line(&finished.stderr));
            match error {
                Some(error) => format!(
                    "{display} failed with {}: {error}",
                    finished.describe(timeout)
                ),
                None => format!("{display} failed with {}", finished.describe(timeout)),
            }
        } else if let Some(error) = error {
            format!("{display} reported an error: {error}")
        } else if let Some(what) = completed {
            format!("{display} printed no {what}")
        } else {
            return Ended::Passed;
        };
        let refused = ["401", "403"].iter().any(|status| reason.contains(status));
        // The variable of its API key, for the hint when a placeholder was refused.
        let key_var = key_variable(self.kind.name, None)
            .filter(|var| refused && run.var(var).as_deref() == Some(PLACEHOLDER_KEY));
        Ended::Failed(match key_var {
            Some(var) => format!(
                "{reason} (no API key is set: mcpeval handed over a placeholder that only \
                 replaying a cassette accepts; set {var})"
            ),
            None => reason,
        })
    }
}

/// A directory `name` in the run's private directory, created.
pub(super) fn private_dir(run: &AgentRun<'_>, name: &str) -> Result<PathBuf, String> {
    let dir = run.private_dir.join(name);
    std::fs::create_dir_all(&dir)
        .map(|()| dir.clone())
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// Writes `text` to `path`, creating its directory.
pub(super) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `run.env` as the process's environment, then `extra` (later ones win).
pub(super) fn env_with(
    run: &AgentRun<'_>,
    extra: Vec<(&str, OsString)>,
) -> Vec<(OsString, OsString)> {
    run.env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .chain(extra.into_iter().map(|(k, v)| (k.into(), v)))
        .collect()
}

/// Where `program` would be found on `path` (a `PATH` value).
pub(super) fn find_on_path(program: &str, path: Option<&OsString>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The directory of the npm package a program on `PATH` belongs to: the first directory
/// with a `package.json` above the file its `node_modules/.bin` link points to.
pub fn package_dir(program: &Path) -> Option<PathBuf> {
    let real = program.canonicalize().ok()?;
    real.ancestors()
        .skip(1)
        .find(|dir| dir.join("package.json").is_file())
        .map(Path::to_path_buf)
}

/// The last line of `stderr` that says `Error`, else its last non-empty line.
fn last_error_line(stderr: &str) -> Option<String> {
    let lines = || {
        stderr
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
    };
    lines()
        .rfind(|line| line.starts_with("Error") || line.contains("ERROR"))
        .or_else(|| lines().next_back())
        .map(|line| crate::plumbing::text::shorten(line, 600))
}

/// A TOML basic string holding `text`: JSON's escapes are TOML's, but for DEL, which TOML
/// wants escaped.
pub(super) fn toml_string(text: &str) -> String {
    serde_json::Value::from(text)
        .to_string()
        .replace('\u{7f}', "\\u007F")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings_escape_quotes_backslashes_controls_and_del() {
        assert_eq!(toml_string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(toml_string("x\ny\u{1}\u{7f}"), r#""x\ny\u0001\u007F""#);
    }

    #[test]
    fn the_error_line_of_stderr_is_preferred() {
        let stderr =
            "WARNING: x\nError: thread/start failed: required MCP servers failed\n  at y\n";
        assert_eq!(
            last_error_line(stderr).as_deref(),
            Some("Error: thread/start failed: required MCP servers failed")
        );
        assert_eq!(last_error_line("a\nb\n").as_deref(), Some("b"));
        assert_eq!(last_error_line("\n"), None);
    }

    #[test]
    fn a_refused_placeholder_key_names_the_kinds_key_variable() {
        use std::os::unix::process::ExitStatusExt;
        let dir = tempfile::tempdir().unwrap();
        let finished = Finished {
            status: Some(std::process::ExitStatus::from_raw(0)),
            stdout: String::new(),
            stderr: String::new(),
        };
        let config = dir.path().join("m.json");
        let reason = |key: &str| {
            let env = [("OPENAI_API_KEY".to_owned(), key.to_owned())];
            let run = crate::agent::test_runs::in_dir(dir.path(), &config, &env);
            let error = Some("401 Unauthorized");
            let ended =
                CliProgram::of(KindId::Codex).ended(&finished, run.timeout, error, None, &run);
            ended.reason().to_owned()
        };
        assert_eq!(
            reason(PLACEHOLDER_KEY),
            "Codex reported an error: 401 Unauthorized (no API key is set: mcpeval handed over a \
             placeholder that only replaying a cassette accepts; set OPENAI_API_KEY)"
        );
        assert_eq!(
            reason("sk-real"),
            "Codex reported an error: 401 Unauthorized"
        );
    }
}
