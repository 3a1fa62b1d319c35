//! The complete examples of eval-config.md and mcpchecker-style files load as typed data and
//! plan to the expected test names.

use std::path::{Path, PathBuf};

use mcpeval::plan::validate_eval;

mod agents;
mod arguments;
mod examples;
mod mcp_config;
mod mcpchecker;

pub(super) fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
}

pub(super) fn names(eval: &str) -> Vec<String> {
    validate_eval(&fixture(eval)).unwrap_or_else(|e| panic!("{eval} did not validate:\n{e}"))
}
