//! The state that the sessions of one proxy share.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::plumbing::lock::lock;
use crate::proxy::inputs::{ProxyOptions, RewriteNotes, Upstream};
use crate::proxy::record::{CallRecorder, ServerFailure};
use crate::proxy::server::Connection;

/// State shared by the sessions of one proxy.
pub(crate) struct ProxyState {
    pub(crate) server: String,
    pub(crate) upstream: Upstream,
    pub(crate) log: PathBuf,
    pub(crate) recorder: CallRecorder,
    pub(crate) options: ProxyOptions,
    pub(crate) connections: Mutex<Vec<Arc<Connection>>>,
    /// With `options.one_server`: the connection every agent session uses, once made.
    pub(crate) shared_connection: tokio::sync::Mutex<Option<Arc<Connection>>>,
    /// Failed handshakes (the failures of live connections are the connections').
    pub(crate) failures: Mutex<Vec<ServerFailure>>,
    /// What the rewrite of the server's tools did (`options.tools`).
    pub(crate) rewrite_notes: Mutex<RewriteNotes>,
}

impl ProxyState {
    pub(crate) fn register(&self, connection: Arc<Connection>) {
        let mut connections = lock(&self.connections);
        if !connections
            .iter()
            .any(|known| Arc::ptr_eq(known, &connection))
        {
            connections.push(connection);
        }
    }

    pub(crate) fn note_failure(&self, failure: ServerFailure) {
        lock(&self.failures).push(failure);
    }

    /// Every failure of the server so far: failed handshakes, then each connection's.
    pub(crate) fn failures(&self) -> Vec<ServerFailure> {
        let mut failures = lock(&self.failures).clone();
        for connection in lock(&self.connections).iter() {
            failures.extend(connection.failures.all());
        }
        failures
    }
}

impl std::fmt::Debug for ProxyState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyState")
            .field("server", &self.server)
            .field("upstream", &self.upstream.describe())
            .finish_non_exhaustive()
    }
}
