//! The configured MCP servers as the proxies see them ([`upstream_of`]), and the tools of a
//! server whose allowed tools are "all of them": listed through a proxy of its own, so that
//! the listing never enters the run's trace; how the server failed to list them goes to the
//! run's server failures, as a failure during the agent's session does.

use std::path::Path;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::config::{McpServer, Transport};
use crate::proxy::{CallRecorder, Proxy, ServerFailure, Upstream};

/// The proxy's view of a configured server; a stdio server also gets the run's `vars`
/// (its own `env` wins).
pub(crate) fn upstream_of(server: &McpServer, vars: &[(String, String)]) -> Upstream {
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => Upstream::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: vars
                .iter()
                .cloned()
                .chain(env.iter().map(|(k, v)| (k.clone(), v.clone())))
                .collect(),
            cwd: cwd.clone(),
        },
        Transport::Http { url, headers } => Upstream::Http {
            url: url.clone(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        },
    }
}

/// Bound on starting the server and listing its tools.
const LIST_TIMEOUT: Duration = Duration::from_secs(120);

/// Every tool name of `server` (all pages), or how the server failed to list them: what its
/// proxy noted (an exit, an HTTP error, an error or no list answering `tools/list`), else
/// one failure saying what went wrong.
pub(crate) async fn list_allowed_tools(
    server: &McpServer,
    vars: &[(String, String)],
    log_dir: &Path,
) -> Result<Vec<String>, Vec<ServerFailure>> {
    let failed = |what: String| {
        vec![ServerFailure {
            server: server.name.clone(),
            message: format!(
                "mcp server `{}`: cannot list its tools: {what}",
                server.name
            ),
            detail: String::new(),
            log: None,
        }]
    };
    let log_dir = log_dir.join("tool-listing");
    std::fs::create_dir_all(&log_dir)
        .map_err(|e| failed(format!("cannot create {}: {e}", log_dir.display())))?;
    let proxy = Proxy::start(
        &server.name,
        upstream_of(server, vars),
        &CallRecorder::new(),
        &log_dir,
    )
    .await
    .map_err(|e| failed(e.to_string()))?;
    let url = proxy.url().to_owned();
    let listing = tokio::time::timeout(LIST_TIMEOUT, async move {
        let client =
            ().serve(crate::proxy::client_transport(&server.name, &url))
                .await
                .map_err(|e| e.to_string())?;
        let tools = client.list_all_tools().await.map_err(|e| e.to_string());
        let _ = client.cancel().await;
        tools
    })
    .await;
    let failures = proxy.server_failures();
    proxy.shutdown().await;
    match listing {
        Ok(Ok(tools)) => Ok(tools
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()),
        Ok(Err(e)) if failures.is_empty() => Err(failed(e)),
        Ok(Err(_)) => Err(failures),
        Err(_) => Err(failed(format!(
            "no answer within {}",
            humantime::format_duration(LIST_TIMEOUT)
        ))),
    }
}
