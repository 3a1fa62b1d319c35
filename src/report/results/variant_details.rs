//! What a variant changed in a run (`variantDetails` of its results file): the tool
//! definitions rewritten, the decoys offered and called, the baseline it is compared with.

use serde::{Deserialize, Serialize};

/// What a variant changed in a run, and the variant the comparison measures it against.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VariantDetails {
    /// The eval's baseline variant (this run's own name when it is the baseline).
    pub baseline: String,
    /// The tool definitions the proxy rewrote in the `tools/list` answers the agent saw,
    /// as `<server>/<tool>` with the fields changed (`description`, `title`,
    /// `inputSchema.properties.<p>.description`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_overrides: Vec<AppliedOverride>,
    /// The decoy tools offered, as `<server>/<tool>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decoys: Vec<String>,
    /// The agent got no MCP server (`servers: none`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_servers: bool,
    /// Assertions on calls not checked because the agent had no server (never counted as
    /// passed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_assertions: Vec<String>,
}

/// One tool definition a variant rewrote, and whether the agent was shown it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedOverride {
    /// The server's name.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The fields changed.
    pub fields: Vec<String>,
    /// A `tools/list` answer the agent received held the rewritten definition.
    pub applied: bool,
}

/// A call of a decoy tool: answered with an error result by the proxy, never the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DecoyCall {
    /// The server whose list offered it.
    pub server: String,
    /// The decoy's name.
    pub tool: String,
    /// Its position among all calls of the run, from 1.
    pub position: usize,
}
