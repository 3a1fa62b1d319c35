//! The test binary as `$MCPEVAL_BIN`: evals run `"$MCPEVAL_BIN" script-agent …` as their
//! agent, and a user's test binary has no `mcpeval` binary beside it. Unless `MCPEVAL_BIN` is
//! given, `Harness::run` sets it to the test binary itself, and sets [`SCRIPT_AGENT_EXE`] to
//! the same path for every process of the run; a test binary started with `script-agent` as
//! its first argument serves the script agent only when that variable names it. A test
//! filter `script-agent` (`cargo test -- script-agent`) has no such variable and stays a
//! filter, as does a run of another test binary from inside a task.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::ExitCode;

use super::target_dir::same_path;

/// The variable the harness sets for the processes of its runs: the path of the test binary
/// that serves `script-agent`.
pub const SCRIPT_AGENT_EXE: &str = "MCPEVAL_SCRIPT_AGENT_EXE";

/// The variables that make this test binary `$MCPEVAL_BIN`, or none when `MCPEVAL_BIN` is
/// already given (by `.env` or the environment) or this executable's path is not known.
pub(super) fn vars(given: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    if given("MCPEVAL_BIN") {
        return Vec::new();
    }
    let Some(exe) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.to_str().map(str::to_owned))
    else {
        return Vec::new();
    };
    vec![
        ("MCPEVAL_BIN".to_owned(), exe.clone()),
        (SCRIPT_AGENT_EXE.to_owned(), exe),
    ]
}

/// Serves the script agent when this process is `$MCPEVAL_BIN script-agent …` started by a
/// run of this same test binary; its exit code. Started by its own run with other arguments
/// (an eval written for the `mcpeval` binary: `${MCPEVAL_BIN} demo-server`), it refuses
/// rather than run the evals again inside a task. `None`: this is an ordinary test run.
pub(super) fn serve_if_asked() -> Option<ExitCode> {
    let marked = std::env::var_os(SCRIPT_AGENT_EXE)?;
    let exe = std::env::current_exe().ok()?;
    if !same_path(Path::new(&marked), &exe) {
        return None;
    }
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(OsStr::new("script-agent")) {
        eprintln!(
            "error: this test binary was started by one of its own eval runs (as $MCPEVAL_BIN) \
             without `script-agent`, the one command it serves; `demo-server` and the other \
             commands are the mcpeval binary's (give its path with .env(\"MCPEVAL_BIN\", …))"
        );
        return Some(ExitCode::from(crate::plumbing::exit::INVALID_CONFIG));
    }
    let args: Option<Vec<String>> = args.map(OsString::into_string).map(Result::ok).collect();
    Some(match args {
        Some(args) => crate::script_agent::main_with_args(args),
        None => {
            eprintln!("script-agent: an argument is not UTF-8");
            ExitCode::from(crate::plumbing::exit::INVALID_CONFIG)
        }
    })
}
