//! The `mcpeval` command line: run and validate eval files, plus a demo MCP server and a
//! scripted agent for deterministic evals.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod acp_agent;
mod action;
mod demo_server;
mod reports;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcpeval::exit;

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
    /// `--test-threads`, `--format json`, ...). SIGINT or SIGTERM stops the running tasks
    /// after their cleanup (exit code 130 or 143); a second one stops at once.
    Check {
        /// Eval files (kind: Eval).
        #[arg(required = true, value_name = "EVAL.yaml")]
        files: Vec<PathBuf>,
        /// Where runs and results files go (default: `MCPEVAL_OUTPUT_DIR`, else `mcpeval/`
        /// in `CARGO_TARGET_DIR`, else `target/mcpeval`).
        #[arg(long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// How the LLM side uses cassettes: once (replay, record when missing), none
        /// (replay only), new_episodes, all (re-record) or passthrough (live). Default:
        /// `MCPEVAL_RECORD_MODE`, else none under CI, else once.
        #[arg(long, value_name = "MODE", value_parser = parse_record_mode)]
        record_mode: Option<mcpeval::llm_proxy::RecordMode>,
        /// Test runner arguments, after `--`.
        #[arg(last = true, value_name = "LIBTEST ARGS")]
        libtest: Vec<String>,
    },
    /// Load and plan eval files with their MCP config, agent and task files; print the
    /// planned test names, one per line, or every error found (exit code 2). It starts no
    /// extension and downloads nothing; notes on stderr list the extension steps whose
    /// arguments it could not check.
    Validate {
        /// Eval files (kind: Eval).
        #[arg(required = true, value_name = "EVAL.yaml")]
        files: Vec<PathBuf>,
    },
    /// Merge results files into one `{summary, results}` report and print its summary.
    /// Several directories merge (e.g. the shards of `cargo nextest run --partition`).
    Report(reports::ReportArgs),
    /// Compare two reports (or results directories), test by test: regressions (with
    /// several runs, only drops the one-sided Fisher test finds unlikely to be chance), fixes,
    /// new, removed, flaky, lower or higher but not clearly, unchanged; what changed about
    /// each and about the servers; and the budgets asked for.
    Diff(reports::DiffArgs),
    /// Write a starting eval from what a server offers: start it (--command, --url, or the
    /// Rust crate's binary), list its tools, resources and prompts, and write
    /// `evals/<server>/` with one task per tool (plus, in a Rust crate, `tests/evals.rs` and
    /// the Cargo.toml lines). It never overwrites a file.
    Init(mcpeval::init::InitArgs),
    /// A step of mcpeval's GitHub Action (its script, action/run.sh, built in), for a workflow
    /// that installs the binary instead of using the action, as `mcpeval init --ci github`
    /// writes it. It reads what the runner sets and the action's inputs as `INPUT_*`
    /// variables (the book's CI chapter lists them).
    Action {
        /// The step.
        #[arg(value_enum)]
        step: action::ActionStep,
        /// The step's arguments (`comment FILE`).
        #[arg(value_name = "ARGS")]
        args: Vec<String>,
    },
    /// A deterministic agent: makes the calls its prompt lists, one per line, through the
    /// servers of an MCP config: `call SERVER TOOL [JSON]`, `pick SERVER /REGEX/ [JSON]` (the
    /// first listed tool whose description matches), `read SERVER URI`, `prompt SERVER NAME
    /// [JSON]`, `list SERVER` (tools), `list-all SERVER` (tools, resources, resource
    /// templates, prompts), `reconnect SERVER` (a new session), `give-up SECONDS` (cancel
    /// later tool calls unanswered after that long; 0: wait for ever), `say TEXT`, `sleep
    /// SECONDS`, `exit CODE`. Other lines are ignored.
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
    /// A deterministic ACP agent over stdio: each prompt is a script (`call SERVER TOOL
    /// {json}` after asking permission, `say TEXT`, `say-session`, `skill NAME`, `read-file PATH`,
    /// `sleep SECONDS`, `hang`, `exit CODE`), run against the MCP servers of its session.
    AcpAgent {
        /// Do not offer `session/load` (an agent that cannot continue a conversation).
        #[arg(long)]
        no_load_session: bool,
    },
}

/// Set (by mcpeval's documentation tests), the command line is parsed and nothing is run:
/// exit code 0 when it parses (the test runner's arguments after `--` too), else clap's 2.
const PARSE_ONLY: &str = "MCPEVAL_PARSE_ONLY";

fn parse_only(cli: &Cli) -> ExitCode {
    if let Command::Check { libtest, .. } = &cli.command
        && let Err(e) =
            <libtest_mimic::Arguments as clap::Parser>::try_parse_from(libtest_argv(libtest))
    {
        eprintln!("{e}");
        return ExitCode::from(exit::INVALID_CONFIG);
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    // Before any HTTPS client (init's discovery, the script and ACP agents, the runs).
    mcpeval::tls::install_provider();
    let cli = Cli::parse();
    if std::env::var_os(PARSE_ONLY).is_some() {
        return parse_only(&cli);
    }
    match cli.command {
        Command::Validate { files } => validate(&files),
        Command::Check {
            files,
            output,
            record_mode,
            libtest,
        } => check(files, output, record_mode, libtest),
        Command::Report(args) => reports::report(args),
        Command::Diff(args) => reports::diff(args),
        Command::Init(args) => mcpeval::init::main(args),
        Command::Action { step, args } => action::run(step, &args),
        Command::ScriptAgent { mcp_config, prompt } => {
            mcpeval::script_agent::run_blocking(&mcp_config, &prompt)
        }
        Command::DemoServer => {
            block_on(demo_server::serve()).map_or(ExitCode::FAILURE, |()| ExitCode::SUCCESS)
        }
        Command::AcpAgent { no_load_session } => block_on(acp_agent::serve(!no_load_session))
            .map_or(ExitCode::FAILURE, |()| ExitCode::SUCCESS),
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

fn parse_record_mode(text: &str) -> Result<mcpeval::llm_proxy::RecordMode, String> {
    text.parse()
        .map_err(|e: mcpeval::llm_proxy::UnknownName| e.to_string())
}

fn check(
    files: Vec<PathBuf>,
    output: Option<PathBuf>,
    record_mode: Option<mcpeval::llm_proxy::RecordMode>,
    libtest: Vec<String>,
) -> ExitCode {
    let args = libtest_mimic::Arguments::from_iter(libtest_argv(&libtest));
    let mut harness = mcpeval::Harness::eval_files(files).with_args(args);
    if let Some(output) = output {
        harness = harness.output_dir(output);
    }
    if let Some(exe) = own_path() {
        harness = harness.env("MCPEVAL_BIN", exe);
    }
    if let Some(mode) = record_mode {
        harness = harness.env(mcpeval::llm_proxy::RECORD_MODE_VAR, mode.name());
    }
    harness.run()
}

/// The test runner's command line of `mcpeval check … -- ARGS`.
fn libtest_argv(libtest: &[String]) -> impl Iterator<Item = &str> {
    std::iter::once("mcpeval check").chain(libtest.iter().map(String::as_str))
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
    let mut evals: Vec<(String, &PathBuf)> = Vec::new();
    for file in files {
        match mcpeval::plan::validate_eval_notes(file, &lookup) {
            Ok(found) => {
                for note in found.notes {
                    eprintln!("note: {note}");
                }
                if let Some((eval, _)) = found.test_names.first().and_then(|n| n.split_once("::")) {
                    evals.push((eval.to_owned(), file));
                }
                names.extend(found.test_names);
            }
            Err(errors) => {
                bad_files += 1;
                for error in errors.iter() {
                    error_count += 1;
                    eprintln!("error: {error}");
                }
            }
        }
    }
    let duplicates = mcpeval::config::duplicate_eval_names(
        evals
            .iter()
            .map(|(name, file)| (name.as_str(), file.as_path())),
    );
    for error in &duplicates {
        error_count += 1;
        bad_files += 1;
        eprintln!("error: {error}");
    }
    if error_count > 0 {
        let s = if error_count == 1 { "" } else { "s" };
        let of = if bad_files == 1 { "file" } else { "files" };
        eprintln!("{error_count} error{s} in {bad_files} eval {of}");
        return ExitCode::from(exit::INVALID_CONFIG);
    }
    for name in names {
        println!("{name}");
    }
    ExitCode::from(exit::OK)
}
