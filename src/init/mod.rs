//! `mcpeval init`: a starting eval from what a server offers. It starts the server (a stdio
//! command, a streamable HTTP URL, or the binary of the Rust crate it runs in), lists its
//! tools, resources, resource templates and prompts, and writes `evals/<server>/` (the eval,
//! its MCP config, one task per tool, a README), and for a Rust crate `tests/evals.rs` and
//! the `Cargo.toml` lines. It never overwrites a file, and says in every file it writes what
//! a human must still write: a generated prompt is a placeholder, not a test.
//!
//! `discover.rs` lists the server (`headers.rs`: the headers an HTTP server needs), `tools.rs` reads its tools, `render.rs` and `readme.rs`
//! write the texts (`yaml.rs`: YAML scalars and comments), `names.rs` derives names,
//! `cargo.rs` does the Rust crate parts (`dependency.rs`: the dev-dependency, from where
//! this binary was built), `inputs.rs` reads the arguments (the agent, what to
//! start), `workflow.rs` writes the CI workflow (`--ci github`), `plan.rs` decides what goes where and writes it.

mod cargo;
mod dependency;
mod discover;
mod headers;
mod inputs;
mod names;
mod paths;
mod plan;
mod readme;
mod render;
mod tools;
mod workflow;
mod yaml;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

pub use dependency::{BuildSource, Dependency, DependencyKind, GitRef, GitSource};
pub use discover::{DiscoveredSurface, Launch};
pub use headers::InitHeader;
pub use plan::{InitReport, run};
pub use workflow::CiKind;

/// The arguments of `mcpeval init`.
#[derive(Debug, Clone, clap::Args)]
pub struct InitArgs {
    /// Where to write: `evals/<server>/`, and in a Rust crate `tests/evals.rs` and its
    /// `Cargo.toml`.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// A stdio server: its command line, split into words as a shell would
    /// (`"npx -y @modelcontextprotocol/server-everything stdio"`).
    #[arg(long, value_name = "\"CMD ARGS…\"", conflicts_with_all = ["url", "bin"])]
    pub command: Option<String>,
    /// A streamable HTTP server that is already listening.
    #[arg(long, value_name = "URL", conflicts_with = "bin")]
    pub url: Option<String>,
    /// A header the HTTP server (--url) needs, such as "Authorization: Bearer …"
    /// (repeatable): sent when listing it and written into the MCP config; a credential's
    /// value (Authorization, *auth*, *token*, *key*, *secret*, *cookie*, *password*) as a
    /// `${VAR}` the README names, never itself.
    #[arg(long = "header", value_name = "\"NAME: VALUE\"")]
    pub header: Vec<String>,
    /// In a Rust crate (the default without --command or --url): the binary that is the MCP
    /// server, when the crate has several. It is built with `cargo build`, unless the
    /// variable `<NAME>_BIN` already holds its path.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// The eval's name and directory (default: the server's `serverInfo.name`, made a safe
    /// file name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The agent: `builtin.claude-code`, `builtin.codex`, `builtin.gemini-cli`,
    /// `builtin.llm-agent` (with --model), or the path of an Agent file (kind: Agent).
    #[arg(long, value_name = "AGENT", default_value = "builtin.claude-code")]
    pub agent: String,
    /// The agent's model (`provider:model`, such as `openai:gpt-4o`, for builtin.llm-agent).
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Print the Cargo.toml lines instead of adding them to the file.
    #[arg(long)]
    pub print_cargo: bool,
    /// Bound on starting the server and listing what it offers.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    /// The dev-dependency to write, without default features: `version` (this version,
    /// from crates.io), `git` (the remote and commit of the checkout this binary was built from)
    /// or `path` (its source's path: this machine only). Default: what fits how this
    /// binary was built (a published crate: version; a checkout with a remote: git; else
    /// path, with a warning).
    #[arg(long, value_enum, value_name = "KIND")]
    pub dependency: Option<DependencyKind>,
    /// Also write the CI workflow: `github` writes `.github/workflows/evals.yml` (replay on
    /// push and pull request, the gate's pull-request comment, record on demand), unless it
    /// exists.
    #[arg(long, value_enum, value_name = "CI")]
    pub ci: Option<CiKind>,
}

/// Why `mcpeval init` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The arguments do not say what to start, name no usable agent or binary, or contradict
    /// each other (exit code 2, as clap's own argument errors).
    #[error("{0}")]
    Usage(String),
    /// The stdio server could not be started.
    #[error("cannot start the server `{command}`: {source}{}", spawn_hint(source))]
    Spawn {
        /// The command line.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server started but did not answer as an MCP server.
    #[error(
        "server `{server}`: {message}{}{}",
        exit_text(exit),
        stderr_text(stderr)
    )]
    Server {
        /// The command line or URL.
        server: String,
        /// What went wrong.
        message: String,
        /// How its process ended, when it did.
        exit: Option<String>,
        /// The last lines of its stderr.
        stderr: String,
    },
    /// `cargo` or the crate's `Cargo.toml` stopped it.
    #[error("{}: {message}", manifest.display())]
    Cargo {
        /// The crate's `Cargo.toml`.
        manifest: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Files it would write exist already.
    #[error(
        "refusing to overwrite {}: nothing was written; move {} away, or pass --name for an eval of another name",
        shown_files(files),
        if files.len() == 1 { "it" } else { "them" }
    )]
    Exists {
        /// The files that exist (relative to DIR).
        files: Vec<PathBuf>,
    },
    /// Writing a file failed.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// What it wrote does not load (a bug of `mcpeval init`).
    #[error(
        "{} does not load, which is a bug of mcpeval init (please report it):\n{errors}",
        file.display()
    )]
    Invalid {
        /// The eval file.
        file: PathBuf,
        /// The loader's errors.
        errors: String,
    },
}

fn spawn_hint(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::NotFound => " (is the program on PATH, or a path to an executable?)",
        std::io::ErrorKind::PermissionDenied => " (is the file executable?)",
        _ => "",
    }
}

fn exit_text(exit: &Option<String>) -> String {
    exit.as_ref()
        .map(|exit| format!(" (the server ended: {exit})"))
        .unwrap_or_default()
}

fn stderr_text(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("\n--- last lines of the server's stderr ---\n{stderr}")
    }
}

fn shown_files(files: &[PathBuf]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = files
        .iter()
        .take(SHOWN)
        .map(|f| f.display().to_string())
        .collect();
    match files.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more files", shown.join(", ")),
    }
}

/// How the eval's agent is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentChoice {
    /// `type: builtin.<kind>`, with `model`.
    Builtin {
        /// `claude-code`, `codex`, …
        kind: String,
        /// `config.agent.model`.
        model: Option<String>,
    },
    /// `type: file` with `path` (relative to the eval's directory).
    File {
        /// The Agent file, as the eval names it.
        path: String,
    },
}

/// How the MCP config starts the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEntry {
    /// `command` and `args`.
    Stdio {
        /// The program (a relative path is relative to the eval's directory).
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// `url` and `headers`.
    Http {
        /// The endpoint.
        url: String,
        /// The `--header`s (a credential written as a variable: `headers.rs`).
        headers: Vec<InitHeader>,
    },
    /// `command: ${<VAR>}`, the crate's binary `bin`.
    Binary {
        /// The binary target's name.
        bin: String,
        /// The variable holding its path.
        var: String,
    },
}

/// Everything the generated texts are made from.
#[derive(Debug)]
pub struct Scaffold<'a> {
    /// The eval's name, directory and server key.
    pub eval: &'a str,
    /// `<serverInfo.name> <version>`, for comments.
    pub server_label: String,
    /// What the server listed.
    pub surface: &'a DiscoveredSurface,
    /// Its tools, sorted by name.
    pub tools: &'a [tools::ToolSpec],
    /// The agent.
    pub agent: &'a AgentChoice,
    /// How the server is started.
    pub server: &'a ServerEntry,
    /// Whether `tests/evals.rs` makes the evals `cargo test`s.
    pub crate_harness: bool,
}

/// `mcpeval init` as the binary runs it: the report on stdout, warnings and errors on
/// stderr.
pub fn main(args: InitArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcpeval init: cannot start a runtime: {e}");
            return ExitCode::from(crate::plumbing::exit::INIT_FAILED);
        }
    };
    match runtime.block_on(run(&args)) {
        Ok(report) => {
            for warning in &report.warnings {
                eprintln!("warning: {warning}");
            }
            // With --print-cargo, stdout holds the Cargo.toml lines alone.
            match &report.cargo_lines {
                Some(lines) => {
                    eprint!("{}", report.render());
                    print!("{lines}");
                }
                None if args.print_cargo => {
                    print!("{}", report.render());
                    eprintln!(
                        "warning: --print-cargo: {} has no Cargo.toml with a [package]: nothing to print",
                        args.dir.display()
                    );
                }
                None => print!("{}", report.render()),
            }
            ExitCode::from(crate::plumbing::exit::OK)
        }
        Err(error) => {
            eprintln!("mcpeval init: {error}");
            ExitCode::from(match error {
                InitError::Usage(_) => crate::plumbing::exit::INVALID_CONFIG,
                _ => crate::plumbing::exit::INIT_FAILED,
            })
        }
    }
}
