//! `mcpeval action STEP`: a step of mcpeval's GitHub Action, the one script the action
//! (`action.yml`) and the workflow `mcpeval init --ci github` writes share. The script is
//! `action/run.sh`, embedded in the binary; it runs with bash from a temporary file (its
//! `gate` step runs it again for `comment`). Its own failures exit with 2, as the script's do.

use std::process::ExitCode;

use mcpeval::exit;

/// action/run.sh.
const SCRIPT: &str = include_str!("../../../action/run.sh");

/// A step of the action (`install` is the action's own: the binary is already here).
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ActionStep {
    /// Run the evals (INPUT_COMMAND, or INPUT_PARTITION k/n of `cargo test --test NAME`
    /// under nextest) with their output in `target/mcpeval`.
    Run,
    /// Merge the runs under `$RUNNER_TEMP/mcpeval-action/shards` into one report.
    Merge,
    /// Download the base branch's newest report artifact.
    Baseline,
    /// Post FILE as the pull request's one comment, or edit that comment.
    Comment,
    /// Baseline, `mcpeval diff`, comment; exit with diff's code.
    Gate,
}

impl ActionStep {
    fn name(self) -> &'static str {
        match self {
            ActionStep::Run => "run",
            ActionStep::Merge => "merge",
            ActionStep::Baseline => "baseline",
            ActionStep::Comment => "comment",
            ActionStep::Gate => "gate",
        }
    }
}

/// Runs the step with `args`; its exit code.
pub fn run(step: ActionStep, args: &[String]) -> ExitCode {
    let dir = std::env::temp_dir().join(format!("mcpeval-action-{}", std::process::id()));
    let script = dir.join("run.sh");
    if let Err(error) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&script, SCRIPT))
    {
        eprintln!("mcpeval action: cannot write {}: {error}", script.display());
        return ExitCode::from(exit::INVALID_CONFIG);
    }
    let status = std::process::Command::new("bash")
        .arg(&script)
        .arg(step.name())
        .args(args)
        .status();
    let _ = std::fs::remove_dir_all(&dir);
    match status {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => {
                eprintln!("mcpeval action: bash ended by a signal ({status})");
                ExitCode::FAILURE
            }
        },
        Err(error) => {
            eprintln!("mcpeval action: cannot run bash: {error}");
            ExitCode::from(exit::INVALID_CONFIG)
        }
    }
}
