//! Which MCP protocol version the proxy speaks with the agent, given the version the server
//! answered `initialize` with.
//!
//! The proxy speaks every version rmcp knows ([`ProtocolVersion::KNOWN_VERSIONS`]). It
//! repeats the server's version to the agent when that version has an `initialize`
//! handshake, so the agent sees what the server said. A version without one (2026-07-28,
//! whose lifecycle lives in each request's `_meta`) cannot answer an `initialize`: the
//! proxy then speaks it with the server and a handshake version with the agent (the one
//! the agent asked for, when it has a handshake and is known, else the newest that has
//! one). A version rmcp does not know is the server's failure.

use std::fmt;

use rmcp::model::ProtocolVersion;

/// The version the proxy answers the agent's `initialize` with, when the agent asked for
/// `requested` and the server answered `server`.
pub(crate) fn agent_version(
    requested: &ProtocolVersion,
    server: &ProtocolVersion,
) -> Result<ProtocolVersion, UnknownVersion> {
    if !is_known(server) {
        return Err(UnknownVersion(server.clone()));
    }
    if server.has_initialize() {
        return Ok(server.clone());
    }
    if requested.has_initialize() && is_known(requested) {
        return Ok(requested.clone());
    }
    Ok(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

fn is_known(version: &ProtocolVersion) -> bool {
    ProtocolVersion::KNOWN_VERSIONS.contains(version)
}

/// The server answered `initialize` with a version mcpeval does not speak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownVersion(ProtocolVersion);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "answered initialize with protocol version `{}`, which mcpeval does not speak \
             (it speaks {})",
            self.0,
            spoken()
        )
    }
}

/// `2024-11-05, …, 2025-11-25 and 2026-07-28`.
fn spoken() -> String {
    let known = crate::plumbing::protocol::spoken_versions();
    match known.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => known.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> ProtocolVersion {
        serde_json::from_value(serde_json::Value::from(text)).unwrap()
    }

    /// (agent asked, server answered, agent is answered; `None`: the server failed).
    const CASES: &[(&str, &str, Option<&str>)] = &[
        // A server's handshake version is repeated, whatever the agent asked.
        ("2025-06-18", "2025-06-18", Some("2025-06-18")),
        ("2026-07-28", "2025-11-25", Some("2025-11-25")),
        ("2025-11-25", "2024-11-05", Some("2024-11-05")),
        ("2024-11-05", "2025-11-25", Some("2025-11-25")),
        // 2026-07-28 has no handshake: the agent's own handshake version, if it is one …
        ("2025-06-18", "2026-07-28", Some("2025-06-18")),
        ("2024-11-05", "2026-07-28", Some("2024-11-05")),
        // … else the newest with a handshake.
        ("2026-07-28", "2026-07-28", Some("2025-11-25")),
        ("2025-01-01", "2026-07-28", Some("2025-11-25")),
        ("2099-01-01", "2026-07-28", Some("2025-11-25")),
        // Versions rmcp does not know fail, before or after 2026-07-28.
        ("2025-11-25", "2099-01-01", None),
        ("2025-11-25", "1.0", None),
        ("2025-11-25", "2025-01-01", None),
        ("2025-11-25", "", None),
    ];

    #[test]
    fn the_agent_gets_the_servers_handshake_version_or_one_of_its_own() {
        for (asked, answered, expected) in CASES {
            let chosen = agent_version(&version(asked), &version(answered));
            let chosen = chosen.as_ref().ok().map(ProtocolVersion::as_str);
            assert_eq!(
                chosen, *expected,
                "agent asked {asked}, server answered {answered}"
            );
        }
    }

    #[test]
    fn an_unknown_version_is_named_with_the_versions_spoken() {
        let error = agent_version(&ProtocolVersion::LATEST, &version("1.0")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "answered initialize with protocol version `1.0`, which mcpeval does not speak \
             (it speaks 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and 2026-07-28)"
        );
    }
}
