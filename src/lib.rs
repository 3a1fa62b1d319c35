//! Test MCP servers the way agents use them: every eval task is a `cargo test`.
//!
//! An AI agent (Claude Code, Codex, Gemini CLI, an ACP agent, mcpeval's own llm-agent, or
//! any program) gets a task and works through your MCP server's tools behind a recording
//! proxy; mcpeval then checks what the agent did. Each task file of an eval is one test:
//! filter it by name, run it under nextest or an IDE test runner, gate CI on it. A failed
//! assertion is an ordinary failing test, shown with a diff of the recorded call trace.
//!
//! This crate is the test harness ([`Harness`]); the `mcpeval` binary
//! (`cargo install --locked mcpeval-harness`) runs the same evals for a server in any language
//! (`mcpeval check evals/acme/eval.yaml`). The file formats, agents, recording and
//! replaying the LLM side, and CI are in the README and the book.
//!
//! # Quick start
//!
//! In your server crate's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! # The package is `mcpeval-harness`; its library is `mcpeval`. Its default features are
//! # the `mcpeval` binary's command line, which the harness does not need.
//! mcpeval-harness = { version = "0.1", default-features = false }
//!
//! [[test]]
//! name = "evals"
//! harness = false
//! ```
//!
//! `tests/evals.rs`, one test per task file of every eval under `evals/`:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     mcpeval::Harness::discover("evals").run()
//! }
//! ```
//!
//! An eval (`evals/acme/eval.yaml`) names the agent, the MCP config that starts your
//! server and the task files; `mcpeval init` writes a working one from your server's tools.
//! Then:
//!
//! ```text
//! cargo test --test evals                      # every task
//! cargo test --test evals -- acme::sum --exact # one task, by its test name
//! cargo test --test evals -- --list            # the task names
//! ```
//!
//! To hand the path of your server binary to the MCP config (`command: ${ACME_BIN}`), add
//! `.env("ACME_BIN", env!("CARGO_BIN_EXE_acme-server"))` before `.run()` (see
//! [`Harness::env`]), or [`Harness::cargo_bin`] for a binary in another package of your
//! workspace.
#![forbid(unsafe_code)]
// No `unwrap` outside tests: a failure is an error that says what went wrong, never a panic.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
#![deny(missing_docs)]

// What the `mcpeval` binary, the integration tests and the benches reach: not public API
// (hidden from the docs, no semver promise).
#[doc(hidden)]
pub mod agent;
#[doc(hidden)]
pub mod assert;
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod extension;
#[doc(hidden)]
pub mod fault;
#[doc(hidden)]
pub mod harness;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod init;
#[doc(hidden)]
pub mod llm;
#[doc(hidden)]
pub mod llm_proxy;
#[doc(hidden)]
pub mod plan;
#[doc(hidden)]
pub mod proxy;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod run;
#[doc(hidden)]
pub mod script_agent;
#[doc(hidden)]
pub mod snapshot;
#[doc(hidden)]
pub mod steps;
#[doc(hidden)]
pub mod tokens;
#[doc(hidden)]
pub mod trace;
#[doc(hidden)]
pub mod user;
#[doc(hidden)]
pub mod verdict;

mod plumbing;
mod schema_checks;

/// The version string shown by `mcpeval --version`: crate version and git commit.
#[doc(hidden)]
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("MCPEVAL_GIT_COMMIT"),
    ")"
);

// The plumbing the binary reaches too, at the paths it has always had.
#[doc(hidden)]
pub use plumbing::{exit, file_stem, tls};
// What the integration tests' own nested `cargo` runs clean their environment with.
#[doc(hidden)]
pub use plumbing::cargo_metadata::without_test_variables;

pub use harness::Harness;
