//! `script` steps: a file or inline script, run with its shebang (or bash), in the task's
//! directory, bounded by its timeout, its output kept.

use crate::plumbing::ended::Ended;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{Phase, StepContext, StepResult, display_path};
use crate::config::{ScriptSource, ScriptStep};
use crate::plumbing::process::{ProcessGroupGuard, ProcessSpec, run_leaving_group};

/// The program and arguments that run a script file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptCommand {
    /// The interpreter.
    pub program: OsString,
    /// Its arguments, the script path last.
    pub args: Vec<OsString>,
}

/// How to run the script at `path` whose text is `text`: its shebang line
/// (`#!/usr/bin/env python3` → `/usr/bin/env python3 PATH`), else bash.
pub fn script_command(path: &Path, text: &str) -> ScriptCommand {
    let first = text.lines().next().unwrap_or("");
    if let Some(line) = first.strip_prefix("#!") {
        let line = line.trim();
        // As the kernel does: the interpreter, then everything after it as one argument.
        let (program, argument) = match line.split_once(char::is_whitespace) {
            Some((program, rest)) => (program, Some(rest.trim())),
            None => (line, None),
        };
        if !program.is_empty() {
            let mut args: Vec<OsString> = argument
                .filter(|a| !a.is_empty())
                .map(OsString::from)
                .into_iter()
                .collect();
            args.push(path.as_os_str().to_owned());
            return ScriptCommand {
                program: program.into(),
                args,
            };
        }
    }
    ScriptCommand {
        program: "bash".into(),
        args: vec![path.as_os_str().to_owned()],
    }
}

pub(super) async fn run_script(
    phase: Phase,
    index: usize,
    step: &ScriptStep,
    context: &StepContext,
    keep: &mut Vec<ProcessGroupGuard>,
) -> StepResult {
    let (path, label) = match &step.source {
        ScriptSource::File(path) => (
            path.clone(),
            format!(
                "{}[{index}] script {}",
                phase.name(),
                display_path(path, &context.task_dir)
            ),
        ),
        ScriptSource::Inline(_) => (
            context
                .run_dir
                .join(format!("{}-{index}.script", phase.name())),
            format!("{}[{index}] inline script", phase.name()),
        ),
    };
    let mut result = StepResult::new(label, step.continue_on_error);
    let text = match &step.source {
        ScriptSource::File(path) => std::fs::read_to_string(path),
        ScriptSource::Inline(text) => std::fs::write(&path, text).map(|()| text.clone()),
    };
    let text = match text {
        Ok(text) => text,
        Err(e) => {
            result.fail(format!(
                "cannot {} {}: {e}",
                if matches!(step.source, ScriptSource::File(_)) {
                    "read"
                } else {
                    "write"
                },
                path.display()
            ));
            return result;
        }
    };
    let command = script_command(&absolute(&path), &text);
    let spec = ProcessSpec {
        program: command.program.clone(),
        args: command.args,
        env: context
            .env
            .iter()
            .map(|(k, v)| (k, v))
            .chain(&step.env)
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect(),
        cwd: context.task_dir.clone(),
        live: context.live,
    };
    match run_leaving_group(&spec, step.timeout).await {
        Ok((finished, group)) => {
            if phase == Phase::Setup {
                keep.push(group);
            }
            result.ended = match finished.success() {
                true => Ended::Passed,
                false => Ended::Failed(finished.describe(step.timeout)),
            };
            result.output = combine(&finished.stdout, &finished.stderr);
        }
        Err(e) => result.fail(format!(
            "cannot start {}: {e}",
            command.program.to_string_lossy()
        )),
    }
    result
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn combine(stdout: &str, stderr: &str) -> String {
    match (stdout.trim_end().is_empty(), stderr.trim_end().is_empty()) {
        (_, true) => stdout.trim_end().to_owned(),
        (true, false) => stderr.trim_end().to_owned(),
        (false, false) => format!(
            "{}\n--- stderr ---\n{}",
            stdout.trim_end(),
            stderr.trim_end()
        ),
    }
}
