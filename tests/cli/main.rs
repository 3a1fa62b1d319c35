//! The `mcpeval` binary's own commands: `validate`, `--help`, exit codes, and `mcpeval init`.

#[path = "../support/mod.rs"]
mod support;

mod cli;
mod init;
