//! The `mcpeval` command line: run and validate eval files, plus a demo MCP server and a
//! scripted agent for deterministic evals.

mod demo_server;
mod script_agent;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Every file loaded and every task planned.
const EXIT_OK: u8 = 0;
/// A configuration file is invalid (the same code clap uses for bad arguments).
const EXIT_INVALID_CONFIG: u8 = 2;

/// Test MCP servers the way agents use them: every eval task is a test.
#[derive(Debug, Parser)]
#[command(name = "mcpeval", version = mcpeval::VERSION, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run eval files as tests: the same trials, output and exit code as `cargo test` with the
    /// harness. Arguments after `--` go to the test runner (filters, `--exact`, `--list`,
    /// `--test-threads`, `--format json`, ...).
    Check {
        /// Eval files (kind: Eval).
        #[arg(required = true, value_name = "EVAL.yaml")]
        files: Vec<PathBuf>,
        /// Test runner arguments, after `--`.
        #[arg(last = true, value_name = "LIBTEST ARGS")]
        libtest: Vec<String>,
    },
    /// Load and plan eval files with their MCP config, agent and task files; print the
    /// planned test names, one per line, or every error found (exit code 2).
    Validate {
        /// Eval files (kind: Eval).
        #[arg(required = true, value_name = "EVAL.yaml")]
        files: Vec<PathBuf>,
    },
    /// A deterministic agent: makes the calls its prompt lists (`call SERVER TOOL {json}`,
    /// `read SERVER URI`, `prompt SERVER NAME {json}`, `list SERVER`, `say TEXT`,
    /// `sleep SECONDS`, `exit CODE`), one per line, through the servers of an MCP config.
    ScriptAgent {
        /// The MCP config file the harness wrote for the agent.
        #[arg(long, value_name = "FILE")]
        mcp_config: PathBuf,
        /// The task's prompt: the script.
        prompt: String,
    },
    /// A small MCP server over stdio (tools add, echo, lookup_user, delete_user, flaky;
    /// resources demo://readme, demo://users/{id}; prompt summarize).
    DemoServer,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Validate { files } => validate(&files),
        Command::Check { files, libtest } => check(files, libtest),
        Command::ScriptAgent { mcp_config, prompt } => {
            block_on(async { script_agent::run(&mcp_config, &prompt).await })
                .map_or(ExitCode::FAILURE, |code| {
                    ExitCode::from(code.clamp(0, 255) as u8)
                })
        }
        Command::DemoServer => {
            block_on(demo_server::serve()).map_or(ExitCode::FAILURE, |()| ExitCode::SUCCESS)
        }
    }
}

/// Runs `future` on a runtime of its own; an error is printed with its causes.
fn block_on<T>(future: impl std::future::Future<Output = anyhow::Result<T>>) -> Option<T> {
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|runtime| runtime.block_on(future));
    match result {
        Ok(value) => Some(value),
        Err(error) => {
            eprintln!("mcpeval: {error:#}");
            None
        }
    }
}

fn check(files: Vec<PathBuf>, libtest: Vec<String>) -> ExitCode {
    let args = libtest_mimic::Arguments::from_iter(
        std::iter::once("mcpeval check".to_owned()).chain(libtest),
    );
    let mut harness = mcpeval::Harness::eval_files(files).with_args(args);
    if let Some(exe) = own_path() {
        harness = harness.env("MCPEVAL_BIN", exe);
    }
    harness.run()
}

/// This binary's path: evals can run it as their agent or server through `$MCPEVAL_BIN`.
fn own_path() -> Option<String> {
    std::env::current_exe()
        .ok()
        .map(|exe| exe.display().to_string())
}

fn validate(files: &[PathBuf]) -> ExitCode {
    let mut names = Vec::new();
    let mut error_count = 0;
    let mut bad_files = 0;
    let exe = own_path();
    let lookup = |name: &str| match (name, &exe) {
        ("MCPEVAL_BIN", Some(exe)) => Some(exe.clone()),
        _ => std::env::var(name).ok(),
    };
    for file in files {
        match mcpeval::plan::validate_eval_with(file, &lookup) {
            Ok(found) => names.extend(found),
            Err(errors) => {
                bad_files += 1;
                for error in errors.iter() {
                    error_count += 1;
                    eprintln!("error: {error}");
                }
            }
        }
    }
    if error_count > 0 {
        let s = if error_count == 1 { "" } else { "s" };
        let of = if bad_files == 1 { "file" } else { "files" };
        eprintln!("{error_count} error{s} in {bad_files} eval {of}");
        return ExitCode::from(EXIT_INVALID_CONFIG);
    }
    for name in names {
        println!("{name}");
    }
    ExitCode::from(EXIT_OK)
}
