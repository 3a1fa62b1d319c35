//! Starting the server `mcpeval init` writes evals for, and listing everything it offers:
//! its tools, resources, resource templates and prompts, every page, as the raw JSON the
//! server sent (a tool without `inputSchema`, which rmcp's typed lists refuse, is still
//! seen and named). A stdio server runs in its own process group, its stderr kept for the
//! error message, and is killed with its group when the listing ends or fails.

use std::collections::{HashMap, HashSet, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use super::InitError;
use super::headers::InitHeader;
use crate::plumbing::error_text::error_chain;
use crate::plumbing::lock::lock;
use crate::plumbing::process::spawn_in_group;

/// How to reach the server.
#[derive(Debug, Clone)]
pub enum Launch {
    /// A stdio server: the program and its arguments, as they will be started.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP server.
    Http {
        /// Its endpoint.
        url: String,
        /// Headers sent with every request (`--header`).
        headers: Vec<InitHeader>,
    },
}

impl Launch {
    /// The command line or URL, for messages.
    pub fn describe(&self) -> String {
        match self {
            Launch::Stdio { program, args, .. } => {
                let words =
                    std::iter::once(program.as_str()).chain(args.iter().map(String::as_str));
                shlex::try_join(words.clone())
                    .unwrap_or_else(|_| words.collect::<Vec<_>>().join(" "))
            }
            Launch::Http { url, .. } => url.clone(),
        }
    }
}

/// What the server said about itself and everything it listed.
#[derive(Debug, Clone, Default)]
pub struct DiscoveredSurface {
    /// `serverInfo.name` of its `initialize` answer.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// `tools/list` items, every page, in the order listed.
    pub tools: Vec<Value>,
    /// `resources/list` items.
    pub resources: Vec<Value>,
    /// `resources/templates/list` items.
    pub resource_templates: Vec<Value>,
    /// `prompts/list` items.
    pub prompts: Vec<Value>,
}

/// Pages followed per list before the server is taken to loop.
const MAX_PAGES: usize = 1000;

/// Bytes of the server's stderr kept for messages (the last ones).
const STDERR_KEPT: usize = 4096;

/// Starts the server, lists everything within `timeout`, and stops it.
pub async fn discover(launch: &Launch, timeout: Duration) -> Result<DiscoveredSurface, InitError> {
    match launch {
        Launch::Stdio { program, args, env } => {
            let mut command = tokio::process::Command::new(program);
            command
                .args(args)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let (mut child, mut group) =
                spawn_in_group(&mut command).map_err(|source| InitError::Spawn {
                    command: launch.describe(),
                    source,
                })?;
            let stderr = Arc::new(Mutex::new(VecDeque::new()));
            let reader = child
                .stderr
                .take()
                .map(|pipe| tokio::spawn(keep_tail(pipe, stderr.clone())));
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(InitError::Spawn {
                    command: launch.describe(),
                    source: std::io::Error::other("its stdin or stdout is not a pipe"),
                });
            };
            let listed = tokio::time::timeout(timeout, async {
                let client = ().serve((stdout, stdin)).await.map_err(|e| error_chain(&e));
                list_and_close(client).await
            })
            .await;
            // The server gets a moment to exit on its own once its stdin is closed; then its
            // whole group is killed.
            let exited = tokio::time::timeout(Duration::from_millis(500), child.wait()).await;
            group.kill();
            let _ = child.wait().await;
            if let Some(reader) = reader {
                let _ = tokio::time::timeout(Duration::from_millis(300), reader).await;
            }
            let status = match exited {
                Ok(Ok(status)) => Some(status),
                _ => None,
            };
            let failure = |message: String| InitError::Server {
                server: launch.describe(),
                message,
                exit: status.map(describe_status),
                stderr: tail_text(&stderr),
            };
            settled(listed, timeout, failure)
        }
        Launch::Http { url, headers } => {
            let listed = tokio::time::timeout(timeout, async {
                let config = StreamableHttpClientTransportConfig::with_uri(url.clone())
                    .custom_headers(header_map(headers)?);
                let transport = StreamableHttpClientTransport::from_config(config);
                reachable(url).await?;
                let client = ().serve(transport).await.map_err(|e| error_chain(&e));
                list_and_close(client).await
            })
            .await;
            let failure = |message: String| InitError::Server {
                server: url.clone(),
                message: http_failure_text(message, headers),
                exit: None,
                stderr: String::new(),
            };
            settled(listed, timeout, failure)
        }
    }
}

type ServerClient = RunningService<RoleClient, ()>;

/// Whether anything listens at the URL's host and port: rmcp's message for a refused
/// connection names its own types rather than the cause.
async fn reachable(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("not a URL: {e}"))?;
    let host = parsed.host_str().unwrap_or_default().to_owned();
    let port = parsed.port_or_known_default().unwrap_or(80);
    tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
        .await
        .map(drop)
        .map_err(|e| format!("cannot connect to {host}:{port}: {e}"))
}

/// The `--header`s as rmcp sends them (values marked sensitive); they were checked when
/// read, so an error here is a bug's, said without the value.
fn header_map(headers: &[InitHeader]) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    headers
        .iter()
        .map(|header| {
            let invalid = || format!("the header `{}` cannot be sent", header.name);
            let name = HeaderName::from_bytes(header.name.as_bytes()).map_err(|_| invalid())?;
            let mut value = HeaderValue::from_str(&header.sent).map_err(|_| invalid())?;
            value.set_sensitive(true);
            Ok((name, value))
        })
        .collect()
}

/// rmcp's text for an HTTP server's failure without the names of rmcp's own types, and a
/// hint when the server refused for want of credentials (401, 403).
fn http_failure_text(message: String, headers: &[InitHeader]) -> String {
    let noise = message
        .find("Send message error Transport [")
        .or_else(|| message.find("Transport ["));
    let message = match (noise, message.find("] error: ")) {
        (Some(start), Some(end)) if start < end => {
            format!(
                "{}{}",
                &message[..start],
                &message["] error: ".len() + end..]
            )
        }
        _ => message,
    };
    if !(message.contains("HTTP 401") || message.contains("HTTP 403")) {
        message
    } else if headers.is_empty() {
        format!(
            "{message} (the server asks for credentials: pass them with --header \
             \"Authorization: Bearer …\", or the header it needs)"
        )
    } else {
        format!("{message} (the server refused the --header values given)")
    }
}

/// Lists everything over an initialized session, then closes it.
async fn list_and_close(client: Result<ServerClient, String>) -> Result<DiscoveredSurface, String> {
    let client = client.map_err(|e| format!("initialize failed: {e}"))?;
    let listed = list_everything(&client).await;
    let _ = client.cancel().await;
    listed
}

async fn list_everything(client: &ServerClient) -> Result<DiscoveredSurface, String> {
    let Some(info) = client.peer_info() else {
        return Err("the handshake left no server info".to_owned());
    };
    let capabilities = &info.capabilities;
    let mut surface = DiscoveredSurface::default();
    if let Some(server_info) = &info.server_info {
        surface.name = server_info.name.clone();
        surface.version = server_info.version.clone();
    }
    if capabilities.tools.is_none() {
        return Err(
            "its initialize answer has no `tools` capability: it offers no tools, and \
             mcpeval init writes one task per tool"
                .to_owned(),
        );
    }
    surface.tools = list_all(client, "tools/list", "tools").await?;
    if capabilities.resources.is_some() {
        surface.resources = list_all(client, "resources/list", "resources").await?;
        surface.resource_templates =
            list_all(client, "resources/templates/list", "resourceTemplates").await?;
    }
    if capabilities.prompts.is_some() {
        surface.prompts = list_all(client, "prompts/list", "prompts").await?;
    }
    Ok(surface)
}

/// Every item of one list, following `nextCursor` until it is absent.
async fn list_all(client: &ServerClient, method: &str, field: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map(|cursor| json!({"cursor": cursor}));
        let request = ClientRequest::CustomRequest(CustomRequest::new(method, params));
        let answer = client
            .send_request(request)
            .await
            .map_err(|e| format!("{method} failed: {e}"))?;
        let page = page_value(answer).map_err(|e| format!("{method}: {e}"))?;
        match page.get(field) {
            Some(Value::Array(page_items)) => items.extend(page_items.iter().cloned()),
            _ => {
                return Err(format!(
                    "its {method} answer has no `{field}` array: {}",
                    crate::plumbing::text::shorten(&page.to_string(), 300)
                ));
            }
        }
        match page.get("nextCursor") {
            Some(Value::String(next)) if !next.is_empty() => {
                if !seen.insert(next.clone()) {
                    return Err(format!(
                        "its {method} answers repeat the cursor {next:?}: the pages never end"
                    ));
                }
                cursor = Some(next.clone());
            }
            _ => return Ok(items),
        }
    }
    Err(format!(
        "its {method} answers went on for more than {MAX_PAGES} pages"
    ))
}

/// The JSON of an answer, whichever typed result rmcp read it as.
fn page_value(answer: ServerResult) -> Result<Value, String> {
    match answer {
        ServerResult::CustomResult(result) => Ok(result.0),
        other => serde_json::to_value(other).map_err(|e| e.to_string()),
    }
}

/// Keeps the last [`STDERR_KEPT`] bytes the server writes to stderr.
async fn keep_tail(mut pipe: tokio::process::ChildStderr, kept: Arc<Mutex<VecDeque<u8>>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(read) = pipe.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        let mut kept = lock(&kept);
        kept.extend(&buffer[..read]);
        let extra = kept.len().saturating_sub(STDERR_KEPT);
        kept.drain(..extra);
    }
}

/// The last lines of the server's stderr (whole lines only when it was cut).
fn tail_text(kept: &Mutex<VecDeque<u8>>) -> String {
    let kept = lock(kept);
    let bytes: Vec<u8> = kept.iter().copied().collect();
    let text = String::from_utf8_lossy(&bytes);
    let text = text.trim_end();
    match (bytes.len() >= STDERR_KEPT, text.split_once('\n')) {
        (true, Some((_, rest))) => rest.to_owned(),
        _ => text.to_owned(),
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => "ended abnormally".to_owned(),
    }
}

/// What a listing within `timeout` came to: the surface, or the server's failure.
fn settled<T>(
    listed: Result<Result<T, String>, tokio::time::error::Elapsed>,
    timeout: Duration,
    failure: impl Fn(String) -> InitError,
) -> Result<T, InitError> {
    match listed {
        Ok(Ok(surface)) => Ok(surface),
        Ok(Err(message)) => Err(failure(message)),
        Err(_) => Err(failure(format!(
            "no complete answer within {} (--timeout)",
            humantime::format_duration(timeout)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_refusal_is_said_without_rmcp_types_and_with_a_hint() {
        let rmcp = "Send message error Transport [rmcp::transport::worker::WorkerTransport<X<Y>>] \
                    error: unexpected server response: HTTP 403 Forbidden: no, when send \
                    initialize request";
        let header = InitHeader {
            name: "X-Key".into(),
            typed: "k".into(),
            sent: "k".into(),
        };
        assert_eq!(
            http_failure_text(rmcp.into(), &[header]),
            "unexpected server response: HTTP 403 Forbidden: no, when send initialize request \
             (the server refused the --header values given)"
        );
        assert_eq!(
            http_failure_text("cannot connect to 127.0.0.1:9: refused".into(), &[]),
            "cannot connect to 127.0.0.1:9: refused"
        );
    }
}
