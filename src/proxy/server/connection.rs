//! The proxy as the real server's MCP client: one [`Connection`] per agent session (or one
//! for all the sessions of a conversation), made during that session's `initialize`; what
//! the server sends on its own goes through its `Relay` (`relay.rs`).

// Sampling and roots are deprecated by the 2026-07-28 protocol; agents still use them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientInfo, ElicitationCapability, FormElicitationCapability, InitializeResult,
    ProtocolVersion, RootsCapabilities, SamplingCapability, ServerPeerInfo,
    UrlElicitationCapability,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{Peer, RoleClient, RoleServer};

use super::asking::Asking;
use super::in_flight::TasksInFlight;
use super::relay::{AgentPeer, Relay};
use super::routes::Routes;
use super::versions::agent_version;
use crate::plumbing::lock::lock;
use crate::proxy::inputs::Upstream;
use crate::proxy::record::{ProxyError, ServerFailures, stderr_tail};
use crate::proxy::transport::{ServerProcess, StdioTransport, http_transport, spawn_stdio};

/// One live connection to the real server, serving one agent session.
pub(crate) struct Connection {
    /// Sends requests and notifications to the server.
    pub(crate) peer: Peer<RoleClient>,
    /// What the server answered to `initialize`.
    pub(crate) init: InitializeResult,
    /// The protocol version spoken with the agent (see [`super::versions`]).
    pub(crate) agent_version: ProtocolVersion,
    /// Translation tables shared with the relay.
    pub(crate) routes: Arc<Routes>,
    /// The server's failures seen on this connection.
    pub(crate) failures: Arc<ServerFailures>,
    /// What answers the server's questions (also in input rounds) and records them.
    pub(crate) asking: Asking,
    /// The agent session the server's own messages go to.
    agent: AgentPeer,
    /// The tasks followed for the agent, ended when the run ends.
    pub(crate) tasks: TasksInFlight,
    running: tokio::sync::Mutex<Option<RunningService<RoleClient, Relay>>>,
    process: Option<Arc<ServerProcess>>,
}

impl Connection {
    /// The server's answer to `initialize` as the agent gets it: in the version spoken with
    /// the agent.
    pub(crate) fn agent_init(&self) -> InitializeResult {
        let mut init = self.init.clone();
        init.protocol_version = self.agent_version.clone();
        init
    }

    /// Sends what the server sends on its own to `agent` from now on: a later agent session
    /// of a conversation taking over the server the earlier ones talked to.
    pub(crate) fn rebind(&self, agent: Peer<RoleServer>) {
        *lock(&self.agent.0) = agent;
    }

    /// The process group of a stdio server, while it runs.
    pub(crate) fn pgid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|process| process.pgid())
    }

    /// Closes the connection (a stdio server gets EOF on stdin and a few seconds to exit),
    /// then kills whatever is left of its process group.
    pub(crate) async fn shutdown(&self) {
        self.tasks.end().await;
        if let Some(mut running) = self.running.lock().await.take() {
            let _ = running.close_with_timeout(Duration::from_secs(5)).await;
        }
        self.kill();
    }

    /// Kills the server's process group now.
    pub(crate) fn kill(&self) {
        if let Some(process) = &self.process {
            process.kill();
        }
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How a connection starts: within `timeout`, speaking `version` when a variant fixes it
/// (else the agent's).
pub(crate) struct Startup {
    /// How long the server may take to start and answer the handshake.
    pub(crate) timeout: Duration,
    /// The protocol version to speak to the server.
    pub(crate) version: Option<ProtocolVersion>,
}

/// Starts or reaches the server and runs the MCP handshake with the agent's own client
/// info and capabilities (and elicitation, when the run's scripted user or a fault answers
/// it). A server answering a protocol version mcpeval does not speak
/// fails.
pub(crate) async fn connect(
    server: &str,
    upstream: &Upstream,
    log: &Path,
    agent_info: ClientInfo,
    agent: Peer<RoleServer>,
    asking: Asking,
    startup: Startup,
) -> Result<Connection, ProxyError> {
    let Startup { timeout, version } = startup;
    let routes = Arc::new(Routes::default());
    let requested = agent_info.protocol_version.clone();
    let agent_info = to_the_server(server, agent_info, version.as_ref(), &asking);
    let agent = AgentPeer(Arc::new(std::sync::Mutex::new(agent)));
    let relay = Relay {
        agent_info,
        agent: agent.clone(),
        routes: routes.clone(),
        asking: asking.clone(),
    };
    let stdio = matches!(upstream, Upstream::Stdio { .. });
    let stderr_log = stdio.then(|| log.to_owned());
    let failures = Arc::new(ServerFailures::new(
        server,
        upstream.describe(),
        stderr_log.clone(),
    ));
    let start = (relay, lifecycle(version.as_ref()), timeout);
    let (handshake, process) = handshake(server, upstream, log, &failures, start).await?;
    let failed = |message: String| match failures.take().into_iter().next() {
        Some(failure) => ProxyError::Failed(failure),
        None => ProxyError::Initialize {
            server: server.to_owned(),
            command: upstream.describe(),
            message,
            detail: stderr_tail(stderr_log.as_deref()),
            log: stderr_log.clone(),
        },
    };
    let running = match handshake {
        Ok(Ok(running)) => running,
        Ok(Err(error)) => return Err(failed(handshake_failed(&error, version.as_ref()))),
        Err(_elapsed) => {
            return Err(ProxyError::InitializeTimeout {
                server: server.to_owned(),
                command: upstream.describe(),
                timeout,
                log: stderr_log,
            });
        }
    };
    let Some(init) = running
        .peer()
        .peer_info()
        .map(|info| initialize_result(&info))
    else {
        return Err(failed("the handshake left no server info".into()));
    };
    let agent_version = version_for_agent(&requested, &init.protocol_version, version.as_ref())
        .map_err(|message| {
            if let Some(process) = &process {
                process.kill();
            }
            ProxyError::Failed(failures.note(&message, String::new()))
        })?;
    Ok(Connection {
        peer: running.peer().clone(),
        init,
        agent_version,
        routes,
        failures,
        asking,
        agent,
        tasks: TasksInFlight::default(),
        running: tokio::sync::Mutex::new(Some(running)),
        process,
    })
}

/// The client info the server meets: the agent's, speaking the variant's protocol version
/// (one with `initialize`), and declaring what the run answers itself (elicitation for the
/// scripted user or a fault, sampling for the scripted model, roots when either is scripted).
fn to_the_server(
    server: &str,
    mut agent_info: ClientInfo,
    version: Option<&ProtocolVersion>,
    asking: &Asking,
) -> ClientInfo {
    if let Some(version) = version.filter(|v| v.has_initialize()) {
        agent_info.protocol_version = version.clone();
    }
    let faulted = (asking.faults.as_ref()).is_some_and(|plan| plan.answers_user(server));
    if asking.user.is_some() || faulted {
        // The scripted user answers both kinds, whatever the agent declares.
        let both = ElicitationCapability::new()
            .with_form(FormElicitationCapability::new())
            .with_url(UrlElicitationCapability::new());
        agent_info.capabilities.elicitation = Some(both);
    }
    if asking.model.is_some() {
        agent_info.capabilities.sampling = Some(SamplingCapability::default());
    }
    if asking.answers_roots() {
        agent_info.capabilities.roots = Some(RootsCapabilities::default());
    }
    agent_info
}

/// The protocol version the agent is told: the server's answer as the agent asked for it,
/// or why the answer does not do (a version mcpeval does not speak, or not the variant's).
fn version_for_agent(
    requested: &ProtocolVersion,
    answered: &ProtocolVersion,
    variant: Option<&ProtocolVersion>,
) -> Result<ProtocolVersion, String> {
    agent_version(requested, answered)
        .map_err(|unknown| unknown.to_string())
        .and_then(|spoken| match variant {
            Some(version) if version != answered => Err(format!(
                "answered protocol version `{answered}`; the variant asks for `{version}`"
            )),
            _ => Ok(spoken),
        })
}

/// Why the handshake failed: its error, and the protocol version when a variant chose it.
fn handshake_failed(error: &impl std::fmt::Display, variant: Option<&ProtocolVersion>) -> String {
    let Some(version) = variant else {
        return error.to_string();
    };
    let how = if version.has_initialize() {
        ""
    } else {
        ", through server/discover"
    };
    format!("{error} (the variant speaks protocol version {version} to the server{how})")
}

/// The handshake a variant's protocol version asks for: `initialize`, or `server/discover`
/// for a version without it.
fn lifecycle(variant: Option<&ProtocolVersion>) -> ClientLifecycleMode {
    match variant {
        Some(version) if !version.has_initialize() => ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        },
        _ => ClientLifecycleMode::Initialize,
    }
}

type Handshake = Result<
    Result<RunningService<RoleClient, Relay>, rmcp::service::ClientInitializeError>,
    tokio::time::error::Elapsed,
>;

/// Starts a stdio server (its stderr into `log`) or reaches an HTTP one, and runs the
/// handshake (`initialize`, or `server/discover` for a version without it) within `timeout`;
/// the stdio server's process.
async fn handshake(
    server: &str,
    upstream: &Upstream,
    log: &Path,
    failures: &Arc<ServerFailures>,
    (relay, lifecycle, timeout): (Relay, ClientLifecycleMode, Duration),
) -> Result<(Handshake, Option<Arc<ServerProcess>>), ProxyError> {
    match upstream {
        Upstream::Stdio { .. } => {
            let spawned = spawn_stdio(server, upstream, log)?;
            let (transport, process) = StdioTransport::new(spawned, failures.clone());
            let start = relay.serve_with_lifecycle(transport, lifecycle);
            Ok((tokio::time::timeout(timeout, start).await, Some(process)))
        }
        Upstream::Http { url, headers } => {
            let transport = http_transport(url, header_map(server, headers)?, failures.clone());
            let start = relay.serve_with_lifecycle(transport, lifecycle);
            Ok((tokio::time::timeout(timeout, start).await, None))
        }
    }
}

/// The server's handshake answer, as the proxy repeats it to the agent.
fn initialize_result(info: &ServerPeerInfo) -> InitializeResult {
    let mut init = InitializeResult::new(info.capabilities.clone())
        .with_protocol_version(info.protocol_version.clone());
    if let Some(server_info) = &info.server_info {
        init = init.with_server_info(server_info.clone());
    }
    init.instructions = info.instructions.clone();
    init.meta = info.meta.clone();
    init
}

fn header_map(
    server: &str,
    headers: &[(String, String)],
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, ProxyError> {
    let mut map = HashMap::new();
    for (name, value) in headers {
        let invalid = |what: &str| ProxyError::InvalidHttpConfig {
            server: server.to_owned(),
            message: format!("header `{name}` has an invalid {what}"),
        };
        let header_name =
            http::HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid("name"))?;
        let mut header_value = http::HeaderValue::from_str(value).map_err(|_| invalid("value"))?;
        header_value.set_sensitive(true);
        map.insert(header_name, header_value);
    }
    Ok(map)
}

/// The path of a server's stderr log inside `log_dir`.
pub(crate) fn log_path(log_dir: &Path, server: &str) -> PathBuf {
    let safe: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    log_dir.join(format!("{safe}.stderr.log"))
}
