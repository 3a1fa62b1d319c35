//! What can go wrong with an extension, each with what a user needs to fix it.

/// Why an extension could not start, or could not run an operation.
#[derive(Debug, thiserror::Error)]
pub enum ExtensionError {
    /// Its configuration or package is wrong; the message names the eval file and the key.
    #[error("{0}")]
    Config(String),
    /// Its release binary could not be had.
    #[error("{0}")]
    Fetch(String),
    /// The program could not be started.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The executable.
        program: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// It took longer than its timeout.
    #[error("{what} timed out after {after}")]
    Timeout {
        /// What took too long (`initialize`, the operation).
        what: String,
        /// The bound, e.g. `30s`.
        after: String,
    },
    /// The connection ended: it exited or broke the protocol (with the end of its stderr).
    #[error("the extension {0}")]
    Gone(String),
    /// It answered a request with a JSON-RPC error.
    #[error("it answered `{method}` with error {code}: {message}")]
    Rpc {
        /// The request's method.
        method: String,
        /// The JSON-RPC error code (-32602: invalid params).
        code: i64,
        /// Its message.
        message: String,
    },
    /// Its answer is not what the protocol says.
    #[error("it answered `{method}` with an invalid result: {detail}")]
    BadAnswer {
        /// The request's method.
        method: String,
        /// What is wrong with it.
        detail: String,
    },
}
