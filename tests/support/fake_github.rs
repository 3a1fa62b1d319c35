//! A fake GitHub REST API on localhost, as the action's script (action/run.sh) talks to it
//! for the repository `acme/server` and its pull request 7: artifacts listed by name and
//! served as zips behind a redirect, the pull request's comments (listed, posted, edited),
//! and a log of what it was asked. Requests need the token `TOKEN`.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::fake_release;

pub const TOKEN: &str = "ghs_fake-token-0123456789";
pub const MARKER: &str = "<!-- mcpeval -->";

/// An artifact the fake lists: `<name>` of a run on `branch`, from a fork or not.
pub struct Artifact {
    pub id: u64,
    pub name: String,
    pub branch: String,
    pub fork: bool,
    pub expired: bool,
    pub created_at: String,
    pub zip: Vec<u8>,
}

#[derive(Default)]
pub struct Github {
    pub artifacts: Vec<Artifact>,
    /// The pull request's comments: id and body.
    pub comments: Vec<(u64, String)>,
    /// `METHOD /path?query`, in order.
    pub log: Vec<String>,
    /// Answer every comment write with 500.
    pub refuse_writes: bool,
}

/// A fake GitHub REST API; stops when dropped.
pub struct FakeGithub {
    pub url: String,
    state: Arc<Mutex<Github>>,
    stop: CancellationToken,
}

impl FakeGithub {
    pub fn start() -> Self {
        let state = Arc::new(Mutex::new(Github::default()));
        let router = axum::Router::new()
            .fallback(answer)
            .with_state(state.clone());
        let (url, stop) = fake_release::serve(router);
        FakeGithub { url, state, stop }
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut Github) -> T) -> T {
        f(&mut self.state.lock().unwrap())
    }

    pub fn log(&self) -> Vec<String> {
        self.with(|g| g.log.clone())
    }

    pub fn comments(&self) -> Vec<(u64, String)> {
        self.with(|g| g.comments.clone())
    }
}

impl Drop for FakeGithub {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn query(uri: &Uri, key: &str) -> Option<String> {
    uri.query()?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_owned())
}

/// `items[(page - 1) * per_page ..]`, at most `per_page` of them.
fn page<T: Clone>(items: &[T], uri: &Uri) -> Vec<T> {
    let per_page: usize = query(uri, "per_page").map_or(30, |n| n.parse().unwrap());
    let page: usize = query(uri, "page").map_or(1, |n| n.parse().unwrap());
    items
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .cloned()
        .collect()
}

async fn answer(
    State(state): State<Arc<Mutex<Github>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let mut github = state.lock().unwrap();
    github.log.push(format!("{method} {uri}"));
    let path = uri.path().to_owned();
    if let Some(id) = path.strip_prefix("/blob/") {
        let id: u64 = id.parse().unwrap();
        let artifact = github.artifacts.iter().find(|a| a.id == id).unwrap();
        return artifact.zip.clone().into_response();
    }
    let authorization = headers.get(header::AUTHORIZATION);
    if authorization.and_then(|v| v.to_str().ok()) != Some(&format!("Bearer {TOKEN}")) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method.as_str(), parts.as_slice()) {
        ("GET", ["repos", "acme", "server", "actions", "artifacts"]) => {
            let name = query(&uri, "name").unwrap();
            let listed: Vec<Value> = github
                .artifacts
                .iter()
                .filter(|a| a.name == name)
                .map(|a| {
                    json!({"id": a.id, "name": a.name, "expired": a.expired,
                        "created_at": a.created_at,
                        "archive_download_url": format!("http://{}/repos/acme/server/actions/artifacts/{}/zip",
                            headers[header::HOST].to_str().unwrap(), a.id),
                        "workflow_run": {"id": 1, "repository_id": 10,
                            "head_repository_id": if a.fork { 11 } else { 10 },
                            "head_branch": a.branch, "head_sha": "abc"}})
                })
                .collect();
            let shown = page(&listed, &uri);
            json_answer(json!({"total_count": listed.len(), "artifacts": shown}))
        }
        ("GET", ["repos", "acme", "server", "actions", "artifacts", id, "zip"]) => (
            StatusCode::FOUND,
            [(header::LOCATION, format!("/blob/{id}"))],
        )
            .into_response(),
        ("GET", ["repos", "acme", "server", "issues", "7", "comments"]) => {
            let all: Vec<Value> = (github.comments.iter())
                .map(|(id, body)| json!({"id": id, "body": body}))
                .collect();
            json_answer(Value::Array(page(&all, &uri)))
        }
        ("POST", ["repos", "acme", "server", "issues", "7", "comments"])
            if !github.refuse_writes =>
        {
            let body: Value = serde_json::from_slice(&body).unwrap();
            let id = 9000 + github.comments.len() as u64;
            github
                .comments
                .push((id, body["body"].as_str().unwrap().to_owned()));
            (StatusCode::CREATED, json_answer(json!({"id": id}))).into_response()
        }
        ("PATCH", ["repos", "acme", "server", "issues", "comments", id])
            if !github.refuse_writes =>
        {
            let body: Value = serde_json::from_slice(&body).unwrap();
            let id: u64 = id.parse().unwrap();
            let comment = github.comments.iter_mut().find(|(c, _)| *c == id).unwrap();
            comment.1 = body["body"].as_str().unwrap().to_owned();
            json_answer(json!({"id": id}))
        }
        ("POST" | "PATCH", _) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn json_answer(value: Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}
