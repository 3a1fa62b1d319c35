//! What can go wrong when starting the LLM proxy or writing its cassette. Each error names
//! the cassette file; none carries a credential.

use std::path::PathBuf;

/// An error of the LLM proxy.
#[derive(Debug, thiserror::Error)]
pub enum LlmProxyError {
    /// Mode `none` and no cassette: nothing to replay.
    #[error(
        "no LLM cassette at {} (mode none replays only; it is the default when CI is set); \
         record it with: {record_command}",
        cassette.display()
    )]
    CassetteMissing {
        /// The cassette file.
        cassette: PathBuf,
        /// The command that records it.
        record_command: String,
    },
    /// The cassette file could not be read.
    #[error("cannot read the LLM cassette {}: {source}", cassette.display())]
    CassetteRead {
        /// The cassette file.
        cassette: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The cassette file is not a valid cassette.
    #[error("the LLM cassette {} is not valid: {problem}", cassette.display())]
    CassetteInvalid {
        /// The cassette file.
        cassette: PathBuf,
        /// What is wrong, with its JSON path.
        problem: String,
    },
    /// The cassette could not be written.
    #[error("cannot write the LLM cassette {}: {source}", cassette.display())]
    CassetteWrite {
        /// The cassette file.
        cassette: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The recording contains a secret; nothing was written.
    #[error(
        "the recorded LLM cassette {} would contain {kind}; it was not written \
         (an answer or a request body of the LLM API holds that value)",
        cassette.display()
    )]
    SecretInCassette {
        /// The cassette file.
        cassette: PathBuf,
        /// What the secret is, e.g. "the API key" (never its value).
        kind: String,
    },
    /// The upstream base URL is not an http(s) URL.
    #[error("the LLM API base URL `{url}` is not valid: {problem}")]
    InvalidUpstream {
        /// The URL.
        url: String,
        /// What is wrong.
        problem: String,
    },
    /// The proxy could not listen, start its thread or build its HTTP client.
    #[error("cannot start the LLM proxy: {message}")]
    Start {
        /// What failed.
        message: String,
    },
}
