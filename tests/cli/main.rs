//! The `mcpeval` binary's own commands: `validate`, `--help`, exit codes, and `mcpeval init`.

#[path = "../support/mod.rs"]
mod support;

mod build_script;
mod cli;
mod init;
