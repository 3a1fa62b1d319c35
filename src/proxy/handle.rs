//! Starting a proxy ([`Proxy`]) on a thread of its own, and the handle to a running one
//! ([`ProxyHandle`]): its URL, its server's failures, and its shutdown.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::agent::{AgentHttp, ProxyState};
use super::inputs::{ProxyOptions, RewriteNotes, Upstream};
use super::record::{CallRecorder, ProxyError, ServerFailure};
use super::server::log_path;
use crate::plumbing::lock::lock;

/// The `tracing` directive that keeps rmcp's per-message logging quiet.
pub const LOG_FILTER: &str = "rmcp=error";

/// Starts recording proxies.
#[derive(Debug)]
pub struct Proxy;

impl Proxy {
    /// Starts a proxy for the server `server_name` with default [`ProxyOptions`]. The
    /// server itself is started (or reached) when the agent initializes; its stderr goes
    /// to `<log_dir>/<server_name>.stderr.log`.
    pub async fn start(
        server_name: &str,
        upstream: Upstream,
        recorder: &CallRecorder,
        log_dir: &Path,
    ) -> Result<ProxyHandle, ProxyError> {
        Self::start_with_options(
            server_name,
            upstream,
            recorder,
            log_dir,
            ProxyOptions::default(),
        )
        .await
    }

    /// Starts a proxy with explicit options.
    pub async fn start_with_options(
        server_name: &str,
        upstream: Upstream,
        recorder: &CallRecorder,
        log_dir: &Path,
        options: ProxyOptions,
    ) -> Result<ProxyHandle, ProxyError> {
        let log = log_path(log_dir, server_name);
        if matches!(upstream, Upstream::Stdio { .. }) {
            let log_error = |source| ProxyError::Log {
                server: server_name.to_owned(),
                log: log.clone(),
                source,
            };
            std::fs::create_dir_all(log_dir).map_err(log_error)?;
            std::fs::File::create(&log).map_err(log_error)?;
        }
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .and_then(|listener| {
                listener.set_nonblocking(true)?;
                Ok((listener.local_addr()?, listener))
            })
            .map_err(|source| ProxyError::Listen {
                server: server_name.to_owned(),
                source,
            });
        let (address, listener) = listener?;
        let stdio = matches!(upstream, Upstream::Stdio { .. });
        let shared = Arc::new(ProxyState {
            server: server_name.to_owned(),
            upstream,
            log: log.clone(),
            recorder: recorder.clone(),
            options,
            connections: Mutex::new(Vec::new()),
            shared_connection: tokio::sync::Mutex::new(None),
            failures: Mutex::new(Vec::new()),
            rewrite_notes: Mutex::default(),
        });
        let runtime = ProxyRuntime::start(server_name).map_err(|source| ProxyError::Thread {
            server: server_name.to_owned(),
            source,
        })?;
        let cancel = CancellationToken::new();
        let router = AgentHttp::new(shared.clone(), cancel.clone()).router();
        let shutdown = cancel.clone();
        let serve = runtime.handle.spawn(async move {
            let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                return;
            };
            // Small JSON-RPC messages: send each SSE event at once instead of waiting for
            // the previous segment's ACK (Nagle).
            let listener = axum::serve::ListenerExt::tap_io(listener, |stream| {
                let _ = stream.set_nodelay(true);
            });
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
        Ok(ProxyHandle {
            url: format!("http://{address}/mcp"),
            shared,
            stderr_log: stdio.then_some(log),
            cancel,
            serve: Some(serve),
            runtime,
        })
    }
}

/// The thread a proxy runs on: a single-threaded tokio runtime of its own, so that
/// the hand-offs between the proxy's tasks (HTTP connection, session, handler, server
/// connection) stay on one thread instead of waking another core for each message.
#[derive(Debug)]
struct ProxyRuntime {
    handle: tokio::runtime::Handle,
    stop: CancellationToken,
}

impl ProxyRuntime {
    fn start(server: &str) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        std::thread::Builder::new()
            .name(format!("mcpeval-proxy-{server}"))
            .spawn(move || runtime.block_on(stopped.cancelled_owned()))?;
        Ok(Self { handle, stop })
    }
}

impl Drop for ProxyRuntime {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A running proxy. Stop it with [`ProxyHandle::shutdown`]; dropping it also kills the
/// server processes it started (without waiting for them).
#[derive(Debug)]
pub struct ProxyHandle {
    url: String,
    shared: Arc<ProxyState>,
    stderr_log: Option<PathBuf>,
    cancel: CancellationToken,
    serve: Option<tokio::task::JoinHandle<()>>,
    runtime: ProxyRuntime,
}

impl ProxyHandle {
    /// The URL the agent connects to: `http://127.0.0.1:<port>/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's name in the MCP config.
    pub fn server_name(&self) -> &str {
        &self.shared.server
    }

    /// The file holding the stderr of a stdio server (of all its sessions).
    pub fn stderr_log(&self) -> Option<&Path> {
        self.stderr_log.as_deref()
    }

    /// How the server failed so far: a failed agent `initialize` (it could not be started
    /// or reached, or failed the handshake), or, during a session, an exit, an HTTP error,
    /// an answer that is not JSON-RPC, or a `tools/list` answered with an error or with no
    /// tool list. Each names the server and its command or URL, and points to the stderr
    /// log. Other JSON-RPC errors and `isError` results are not failures.
    pub fn server_failures(&self) -> Vec<ServerFailure> {
        self.shared.failures()
    }

    /// [`ProxyHandle::server_failures`] as messages (with their detail lines).
    pub fn upstream_failures(&self) -> Vec<String> {
        self.server_failures()
            .iter()
            .map(ServerFailure::to_string)
            .collect()
    }

    /// What the rewrite of the server's tools ([`ProxyOptions::tools`]) did so far.
    pub fn rewrite_notes(&self) -> RewriteNotes {
        lock(&self.shared.rewrite_notes).clone()
    }

    /// The process group ids of the stdio servers this proxy has running (one per agent
    /// session).
    pub fn server_process_groups(&self) -> Vec<u32> {
        lock(&self.shared.connections)
            .iter()
            .filter_map(|connection| connection.pgid())
            .collect()
    }

    /// Stops accepting agent requests, closes every server connection (a stdio server gets
    /// EOF and a few seconds to exit) and kills what is left of each server's process group.
    pub async fn shutdown(mut self) {
        let connections = std::mem::take(&mut *lock(&self.shared.connections));
        let serve = self.serve.take();
        let cancel = self.cancel.clone();
        let stopping = self.runtime.handle.spawn(async move {
            // A task still followed for its agent is cancelled at the server, and its call
            // notes so, before the agents' sessions end.
            for connection in &connections {
                connection.tasks.end().await;
            }
            cancel.cancel();
            for connection in &connections {
                connection.shutdown().await;
            }
            if let Some(mut serve) = serve
                && tokio::time::timeout(Duration::from_secs(5), &mut serve)
                    .await
                    .is_err()
            {
                serve.abort();
            }
        });
        let _ = stopping.await;
    }
}

impl Drop for ProxyHandle {
    fn drop(&mut self) {
        self.cancel.cancel();
        for connection in lock(&self.shared.connections).iter() {
            connection.kill();
        }
        if let Some(serve) = self.serve.take() {
            serve.abort();
        }
    }
}
