//! The MCP protocol versions mcpeval speaks: every one rmcp knows.

use rmcp::model::ProtocolVersion;

/// The versions, oldest first, as written (`2025-11-25`).
pub(crate) fn spoken_versions() -> Vec<&'static str> {
    (ProtocolVersion::KNOWN_VERSIONS.iter())
        .map(ProtocolVersion::as_str)
        .collect()
}

/// The version written `text`, when mcpeval speaks it.
pub(crate) fn spoken_version(text: &str) -> Option<ProtocolVersion> {
    (ProtocolVersion::KNOWN_VERSIONS.iter())
        .find(|version| version.as_str() == text)
        .cloned()
}
