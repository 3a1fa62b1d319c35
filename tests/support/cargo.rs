//! `cargo` as a test runs it in this checkout: without the variables Cargo set for the test
//! (src/plumbing/cargo_metadata.rs says why: a nested build that sees `CARGO_MANIFEST_DIR`
//! and the outer one that does not rebuild ring, rustls, reqwest, rmcp and mcpeval in turn).

use std::process::Command;

/// `$CARGO` (the Cargo running the tests), clean of the test's own variables.
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO"));
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name == "CARGO_MANIFEST_DIR"
            || name == "OUT_DIR"
            || name == "CARGO_MANIFEST_PATH"
            || name == "CARGO_CRATE_NAME"
            || name == "CARGO_PRIMARY_PACKAGE"
            || name == "CARGO_TARGET_TMPDIR"
            || name == "CARGO_RUSTC_CURRENT_DIR"
            || name.starts_with("CARGO_PKG_")
            || name.starts_with("CARGO_BIN_EXE_")
        {
            command.env_remove(&*name);
        }
    }
    command
}
