//! `cargo` as a test runs it in this checkout: without the variables Cargo set for the test
//! (`mcpeval::without_test_variables` says why: a nested build that sees `CARGO_MANIFEST_DIR`
//! and the outer one that does not rebuild ring, rustls, reqwest, rmcp and mcpeval in turn).

use std::process::Command;

/// `$CARGO` (the Cargo running the tests), see [`clean`].
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO"));
    clean(&mut command);
    command
}

/// `command` (a cargo, or a script that runs one) clean of the test's own variables, and of
/// nextest's when nextest runs the test (a nested `cargo nextest` would take the outer run's
/// profile, `NEXTEST_PROFILE`).
pub fn clean(command: &mut Command) -> &mut Command {
    mcpeval::without_test_variables(command);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("NEXTEST") {
            command.env_remove(name);
        }
    }
    command
}
