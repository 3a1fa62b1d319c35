//! Latency of the recording proxy: `cargo bench --bench proxy` (release mode).
//!
//! Runs N sequential small `tools/call`s (after a warm-up) against our own test server
//! (`tests/support/test_server_main.rs`, stdio): directly over stdio, and through the
//! proxy (streamable HTTP to the agent, stdio to the server). The agent is rmcp's client
//! in both; through the proxy it runs twice, with a keep-alive HTTP client (as agents built
//! on Node's fetch, Python's httpx or a default reqwest client do) and with rmcp's default
//! HTTP client, which opens a new TCP connection for every request. The three are measured
//! in alternating blocks, so a change in the machine's load hits all of them alike. Prints
//! p50 and p99 of each, the ratios to direct stdio, one bare HTTP round trip for scale, and
//! the calls per second of 8 agent sessions calling concurrently through one proxy. A fourth
//! agent calls through a proxy that rewrites the server's tools as a variant does (a
//! description override of `echo` and a decoy), in the same blocks: the cost per call of a
//! variant, next to what a rewritten `tools/list` answer costs.
//! `MCPEVAL_BENCH_CALLS` sets N (default 3000). Figures are in `tests/bench/README.md`.

#[path = "../support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use mcpeval::proxy::{CallRecorder, Proxy, ProxyOptions, ToolPatch, ToolRewrite, Upstream};
use rmcp::model::ClientRequest;
use rmcp::service::serve_client;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;
use support::agent::{Agent, TestAgent, connect};
use support::peers::test_server_binary;
use support::server::from_json;

const WARM_UP: usize = 300;
const BLOCK: usize = 250;
const SESSIONS: usize = 8;

fn echo() -> ClientRequest {
    from_json(json!({"method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "ping"}}}))
}

async fn timed_calls(agent: &Agent, n: usize, times: &mut Vec<Duration>) {
    for _ in 0..n {
        let start = Instant::now();
        if let Err(error) = agent.peer().send_request(echo()).await {
            panic!("call failed: {error}");
        }
        times.push(start.elapsed());
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// Prints p50 and p99 of `times` and returns the p50.
fn report(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
    println!(
        "{label:<54} p50 {:>6.0} µs   p99 {:>6.0} µs",
        micros(p50),
        micros(p99)
    );
    p50
}

/// An rmcp agent whose HTTP client keeps its connection open between requests.
async fn connect_keep_alive(url: &str) -> Agent {
    let transport = StreamableHttpClientTransport::with_client(
        mcpeval::tls::client_builder().build().unwrap(),
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()),
    );
    serve_client(TestAgent::new("bench"), transport)
        .await
        .expect("connect through the proxy")
}

/// One bare HTTP round trip (reqwest to an axum handler answering a fixed JSON-RPC
/// response), for scale: the least any call over HTTP can cost here.
async fn bare_http_round_trips(n: usize) -> Vec<Duration> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ping"}]}}"#;
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |_body: String| async move {
            ([("content-type", "application/json")], answer)
        }),
    );
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let client = mcpeval::tls::client_builder().build().unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ping"}}}"#;
    let mut times = Vec::with_capacity(n);
    for i in 0..WARM_UP + n {
        let start = Instant::now();
        let response = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let _: serde_json::Value = response.json().await.unwrap();
        if i >= WARM_UP {
            times.push(start.elapsed());
        }
    }
    server.abort();
    times
}

async fn run() {
    let n: usize = std::env::var("MCPEVAL_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let server = test_server_binary();
    println!("{n} sequential tools/call (echo) after {WARM_UP} warm-up calls, per agent");

    let transport = TokioChildProcess::new(tokio::process::Command::new(&server)).unwrap();
    let direct = serve_client(TestAgent::new("bench"), transport)
        .await
        .unwrap();
    let logs = tempfile::tempdir().unwrap();
    let upstream = Upstream::Stdio {
        command: server.display().to_string(),
        args: vec![],
        env: vec![],
        cwd: None,
    };
    let recorder = CallRecorder::new();
    let proxy = Proxy::start("bench", upstream.clone(), &recorder, logs.path())
        .await
        .unwrap();
    let keep_alive = connect_keep_alive(proxy.url()).await;
    let new_connections = connect(TestAgent::new("bench"), proxy.url()).await;
    let rewriting = Proxy::start_with_options(
        "bench",
        upstream.clone(),
        &CallRecorder::new(),
        logs.path(),
        ProxyOptions {
            tools: variant_rewrite(),
            ..ProxyOptions::default()
        },
    )
    .await
    .unwrap();
    let rewritten = connect_keep_alive(rewriting.url()).await;

    let agents = [&direct, &keep_alive, &new_connections, &rewritten];
    let mut times = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    let mut ignored = Vec::new();
    for agent in agents {
        timed_calls(agent, WARM_UP, &mut ignored).await;
    }
    let mut done = 0;
    while done < n {
        let block = BLOCK.min(n - done);
        for (agent, times) in agents.iter().zip(times.iter_mut()) {
            timed_calls(agent, block, times).await;
        }
        done += block;
    }
    let [
        direct_times,
        keep_alive_times,
        new_connection_times,
        rewritten_times,
    ] = times;
    report(
        "one bare HTTP round trip (no MCP), for scale",
        bare_http_round_trips(n).await,
    );
    let direct_p50 = report("direct (stdio)", direct_times);
    let proxied_p50 = report(
        "proxied (HTTP keep-alive → proxy → stdio)",
        keep_alive_times,
    );
    let new_connection_p50 = report(
        "proxied, a new TCP connection per call (rmcp default)",
        new_connection_times,
    );
    let rewritten_p50 = report(
        "proxied with a variant's tool rewrite (keep-alive)",
        rewritten_times,
    );
    let ratio = |p50: Duration| p50.as_secs_f64() / direct_p50.as_secs_f64();
    println!(
        "ratio proxied / direct p50: {:.2} (target ≤ 3); with a new connection per call: {:.2}",
        ratio(proxied_p50),
        ratio(new_connection_p50)
    );
    println!(
        "ratio with a tool rewrite / proxied p50: {:.3} (target: 1, no cost per call)",
        rewritten_p50.as_secs_f64() / proxied_p50.as_secs_f64()
    );
    for (label, agent) in [
        ("proxied", &keep_alive),
        ("with a tool rewrite", &rewritten),
    ] {
        let mut list_times = Vec::new();
        for _ in 0..200 {
            let start = Instant::now();
            agent.peer().list_all_tools().await.unwrap();
            list_times.push(start.elapsed());
        }
        report(&format!("tools/list, {label}"), list_times);
    }
    let _ = rewritten.cancel().await;
    rewriting.shutdown().await;
    let _ = direct.cancel().await;
    let _ = keep_alive.cancel().await;
    let _ = new_connections.cancel().await;

    let mut sessions = Vec::new();
    for _ in 0..SESSIONS {
        let agent = connect_keep_alive(proxy.url()).await;
        timed_calls(&agent, 50, &mut ignored).await;
        sessions.push(agent);
    }
    let per_session = n / SESSIONS;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for agent in sessions {
        tasks.push(tokio::spawn(async move {
            timed_calls(&agent, per_session, &mut Vec::new()).await;
            let _ = agent.cancel().await;
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = start.elapsed();
    println!(
        "{SESSIONS} concurrent sessions (keep-alive): {} calls in {:.2} s = {:.0} calls/s",
        per_session * SESSIONS,
        elapsed.as_secs_f64(),
        (per_session * SESSIONS) as f64 / elapsed.as_secs_f64()
    );
    println!("recorded calls: {}", recorder.trace().calls.len());
    proxy.shutdown().await;
}

/// What a variant with a description override and a decoy makes the proxy do.
fn variant_rewrite() -> ToolRewrite {
    let patch = ToolPatch {
        description: Some("Echoes the text it is given, unchanged".into()),
        ..ToolPatch::default()
    };
    let decoy = json!({"name": "repeat", "description": "Repeats text",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}});
    ToolRewrite {
        patches: [("echo".to_owned(), patch)].into(),
        decoys: vec![decoy.as_object().cloned().unwrap_or_default()],
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}
