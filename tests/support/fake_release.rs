//! A fake GitHub release server: serves files under
//! `/<owner>/<repo>/releases/download/<tag>/<file>` and the latest release's tag under
//! `/api/v3/repos/<owner>/<repo>/releases/latest`, as `MCPEVAL_EXTENSION_DOWNLOAD_URL`
//! expects; every other path is 404. It logs the paths it was asked for.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use tokio_util::sync::CancellationToken;

#[derive(Default)]
struct Served {
    files: Mutex<BTreeMap<String, Vec<u8>>>,
    asked: Mutex<Vec<String>>,
}

/// Serves `router` on `127.0.0.1` (a free port) on a runtime thread of its own, as fake HTTP
/// servers of the tests do: its base URL, and the token that stops it.
pub fn serve(router: axum::Router) -> (String, CancellationToken) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let stop = CancellationToken::new();
    let shutdown = stop.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
    });
    (url, stop)
}

/// A running fake release server; stops when dropped.
pub struct FakeRelease {
    /// `http://127.0.0.1:PORT`: the download base URL.
    pub url: String,
    served: Arc<Served>,
    stop: CancellationToken,
}

impl FakeRelease {
    /// Starts an empty server on its own runtime thread.
    pub fn start() -> Self {
        let served = Arc::new(Served::default());
        let router = axum::Router::new()
            .fallback(answer)
            .with_state(served.clone());
        let (url, stop) = serve(router);
        FakeRelease { url, served, stop }
    }

    /// Serves `bytes` as `file` of release `tag` of `owner/repo`.
    pub fn publish(&self, owner: &str, repo: &str, tag: &str, file: &str, bytes: Vec<u8>) {
        let path = format!("/{owner}/{repo}/releases/download/{tag}/{file}");
        self.served.files.lock().unwrap().insert(path, bytes);
    }

    /// Makes `tag` the latest release of `owner/repo`.
    pub fn set_latest(&self, owner: &str, repo: &str, tag: &str) {
        let path = format!("/api/v3/repos/{owner}/{repo}/releases/latest");
        let body = serde_json::json!({"tag_name": tag}).to_string();
        self.served
            .files
            .lock()
            .unwrap()
            .insert(path, body.into_bytes());
    }

    /// The paths asked for so far.
    pub fn asked(&self) -> Vec<String> {
        self.served.asked.lock().unwrap().clone()
    }
}

impl Drop for FakeRelease {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn answer(State(served): State<Arc<Served>>, uri: Uri) -> Response {
    let path = uri.path().to_owned();
    served.asked.lock().unwrap().push(path.clone());
    match served.files.lock().unwrap().get(&path) {
        Some(bytes) => bytes.clone().into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// A zip archive holding `files` (name, content), each executable.
pub fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o755);
    for (name, content) in files {
        zip.start_file(*name, options).expect("zip entry");
        zip.write_all(content).expect("zip write");
    }
    zip.finish().expect("zip finish").into_inner()
}
