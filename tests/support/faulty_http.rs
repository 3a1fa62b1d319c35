//! A streamable HTTP MCP server that fails on request, as plain HTTP/1.1 over a tokio
//! `TcpListener`: it answers `initialize` and `tools/list` (one tool, `echo`) as a working
//! server does, and fails either `initialize` or every `tools/call` the way it is told.
#![allow(dead_code)]

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// How the server fails.
#[derive(Debug, Clone, Copy)]
pub enum HttpFault {
    /// `500 Internal Server Error` with a plain-text body.
    Status500,
    /// `200 OK`, `application/json`, a body that is not JSON.
    NotJson,
}

/// Which request fails.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailAt {
    /// `initialize`.
    Initialize,
    /// Every `tools/call`.
    Call,
}

/// The body of the 500 answer, which failure messages should show.
pub const ERROR_BODY: &str = "database is down: connection pool exhausted";

/// A running faulty server; it stops when dropped.
pub struct FaultyHttp {
    /// Its MCP endpoint.
    pub url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultyHttp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a server on `127.0.0.1` that fails `at` with `fault`.
pub async fn serve(fault: HttpFault, at: FailAt) -> FaultyHttp {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(connection(stream, fault, at));
        }
    });
    FaultyHttp { url, task }
}

/// A URL where nothing listens (a port bound, then released).
pub fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    drop(listener);
    url
}

async fn connection(stream: TcpStream, fault: HttpFault, at: FailAt) {
    let mut stream = BufReader::new(stream);
    while let Some((method, body)) = read_request(&mut stream).await {
        let answer = answer(&method, &body, fault, at);
        if stream.get_mut().write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// The HTTP method and the body of the next request on the connection.
async fn read_request(stream: &mut BufReader<TcpStream>) -> Option<(String, Vec<u8>)> {
    let mut head = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await.ok()?;
    let method = head.split_whitespace().next()?.to_owned();
    Some((method, body))
}

fn answer(http_method: &str, body: &[u8], fault: HttpFault, at: FailAt) -> String {
    if http_method != "POST" {
        return response("405 Method Not Allowed", "text/plain", "");
    }
    let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let id = message["id"].clone();
    if id.is_null() {
        return response("202 Accepted", "text/plain", "");
    }
    let method = message["method"].as_str().unwrap_or("");
    let failing = match at {
        FailAt::Initialize => method == "initialize",
        FailAt::Call => method == "tools/call",
    };
    if failing {
        return match fault {
            HttpFault::Status500 => response("500 Internal Server Error", "text/plain", ERROR_BODY),
            HttpFault::NotJson => response("200 OK", "application/json", "this is not json"),
        };
    }
    let result = match method {
        "initialize" => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "faulty-http", "version": "1"}
        }),
        "tools/list" => json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        _ => json!({"content": [{"type": "text", "text": "ok"}]}),
    };
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    response("200 OK", "application/json", &answer)
}

fn response(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\nmcp-session-id: faulty-1\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
}
