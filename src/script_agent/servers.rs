//! The servers of the script agent's MCP config, each connected on first use over
//! streamable HTTP.

use std::collections::BTreeMap;
use std::path::Path;

use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;

use super::error::ScriptAgentError;

/// The servers of the MCP config by name, connected on first use.
pub(super) struct ScriptServers {
    urls: BTreeMap<String, String>,
    clients: BTreeMap<String, RunningService<RoleClient, ()>>,
}

impl ScriptServers {
    /// Reads the `mcpServers` of `mcp_config` and their URLs; connects to none yet.
    pub(super) fn from_config(mcp_config: &Path) -> Result<Self, ScriptAgentError> {
        let text =
            std::fs::read_to_string(mcp_config).map_err(|source| ScriptAgentError::ReadConfig {
                path: mcp_config.to_path_buf(),
                source,
            })?;
        let config: Value =
            serde_json::from_str(&text).map_err(|source| ScriptAgentError::ConfigNotJson {
                path: mcp_config.to_path_buf(),
                source,
            })?;
        let urls = config["mcpServers"]
            .as_object()
            .map(|servers| {
                servers
                    .iter()
                    .filter_map(|(name, s)| Some((name.clone(), s["url"].as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        Ok(ScriptServers {
            urls,
            clients: BTreeMap::new(),
        })
    }

    /// The client of `server`, connecting to it the first time; none when the MCP config
    /// has no such server (with a URL).
    pub(super) async fn client(
        &mut self,
        server: &str,
    ) -> Result<Option<&RunningService<RoleClient, ()>>, ScriptAgentError> {
        let Some(url) = self.urls.get(server) else {
            return Ok(None);
        };
        if !self.clients.contains_key(server) {
            let client =
                ().serve(crate::proxy::client_transport(server, url))
                    .await
                    .map_err(|source| ScriptAgentError::Connect {
                        server: server.to_owned(),
                        url: url.clone(),
                        source: Box::new(source),
                    })?;
            self.clients.insert(server.to_owned(), client);
        }
        Ok(self.clients.get(server))
    }

    /// Closes the session with `server`, if one is open: the next directive naming it
    /// connects again.
    pub(super) async fn disconnect(&mut self, server: &str) {
        if let Some(client) = self.clients.remove(server) {
            let _ = client.cancel().await;
        }
    }

    /// Closes every connection made.
    pub(super) async fn close(self) {
        for (_, client) in self.clients {
            let _ = client.cancel().await;
        }
    }
}
