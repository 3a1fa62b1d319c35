//! A proxy in front of the in-process test server, and a direct line to the same server.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use mcpeval::proxy::{CallRecorder, Proxy, ProxyHandle, Upstream};
use tokio_util::sync::CancellationToken;

use super::server::{Observed, serve_http};

/// The test server served over HTTP, with a recording proxy in front of it.
pub struct Proxied {
    pub observed: Arc<Observed>,
    pub server_url: String,
    pub recorder: CallRecorder,
    pub proxy: ProxyHandle,
    server: CancellationToken,
    pub logs: tempfile::TempDir,
}

impl Proxied {
    pub async fn start() -> Self {
        let observed = Arc::new(Observed::default());
        let (server_url, server) = serve_http(observed.clone()).await;
        let recorder = CallRecorder::new();
        let logs = tempfile::tempdir().unwrap();
        let upstream = Upstream::Http {
            url: server_url.clone(),
            headers: vec![("x-test-token".into(), "secret-value".into())],
        };
        let proxy = Proxy::start("test", upstream, &recorder, logs.path())
            .await
            .unwrap();
        Self {
            observed,
            server_url,
            recorder,
            proxy,
            server,
            logs,
        }
    }

    /// Waits until the server saw a call cancelled; panics after `within`.
    pub async fn wait_for_cancellation(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.observed.cancelled.lock().unwrap().is_empty() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the server never saw the cancellation"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn stop(self) {
        self.proxy.shutdown().await;
        self.server.cancel();
    }
}
