//! The values a run must never write: into cassettes ([`named_secrets`]), and into failure
//! messages, snapshots and results files ([`run_secrets`], which adds the MCP servers'
//! header and environment values and what `${VAR}` put into their command lines and URLs),
//! nor into the servers' stderr logs left in the run directory ([`redact_files`]).

use crate::config::Eval;
use crate::run::report::RunOptions;
use std::path::PathBuf;

use crate::plumbing::secret::{Secret, redact};

/// The key handed to an agent whose API key is not set: replaying never checks it.
pub use crate::llm::PLACEHOLDER_KEY;

/// Every variable of the run or of the environment whose name says it holds a key, a
/// token, a secret or a password.
pub(crate) fn named_secrets(options: &RunOptions) -> Vec<Secret> {
    let named_secret = |name: &str| {
        let name = name.to_ascii_uppercase();
        ["KEY", "TOKEN", "SECRET", "PASSWORD"]
            .iter()
            .any(|word| name.contains(word))
    };
    std::env::vars()
        .chain(options.vars.iter().cloned())
        .filter(|(name, value)| named_secret(name) && value.len() >= 8 && value != PLACEHOLDER_KEY)
        .map(|(name, value)| Secret::new(format!("the value of {name}"), value))
        .collect()
}

/// What a run's messages, snapshots and results must not show.
pub(crate) fn run_secrets(eval: &Eval, options: &RunOptions) -> Vec<Secret> {
    let mut secrets = eval.mcp.secrets();
    secrets.extend(named_secrets(options));
    secrets
}

/// Rewrites each file of `paths` (the servers' stderr logs, once the servers have exited)
/// with every secret replaced. A server may print its own key; the log is kept in the run
/// directory, which CI keeps as an artifact. A file that cannot be read is left alone.
pub(crate) fn redact_files(paths: &[PathBuf], secrets: &[Secret]) {
    for path in paths {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let redacted = redact(&text, secrets);
        if redacted != text
            && let Err(error) = std::fs::write(path, redacted)
        {
            eprintln!("mcpeval: cannot redact {}: {error}", path.display());
        }
    }
}
