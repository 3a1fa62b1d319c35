//! The `mcpeval` command line: validate eval files (and, later, run them).

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
    /// Load and plan eval files with their MCP config, agent and task files; print the
    /// planned test names, one per line, or every error found (exit code 2).
    Validate {
        /// Eval files (kind: Eval).
        #[arg(required = true, value_name = "EVAL.yaml")]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Validate { files } => validate(&files),
    }
}

fn validate(files: &[PathBuf]) -> ExitCode {
    let mut names = Vec::new();
    let mut error_count = 0;
    let mut bad_files = 0;
    for file in files {
        match mcpeval::plan::validate_eval(file) {
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
