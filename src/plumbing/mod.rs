//! The plumbing every stage shares, none of it about evals: processes (one process-group
//! spawn, interrupts), text (one cutting rule, an error's causes on one line, file stems),
//! how a step or an agent ended, locks, secrets, loopback checks, TLS, JSON Schema, exit codes, and what Cargo and CI say.
//! Nothing here imports a stage.

pub(crate) mod cargo_metadata;
pub(crate) mod ci;
pub(crate) mod ended;
pub(crate) mod error_text;
pub mod exit;
pub mod file_stem;
pub(crate) mod interrupt;
pub(crate) mod json_schema;
pub(crate) mod lock;
pub(crate) mod loopback;
pub(crate) mod process;
pub(crate) mod protocol;
pub(crate) mod rerun;
pub(crate) mod secret;
pub(crate) mod text;
pub mod tls;
