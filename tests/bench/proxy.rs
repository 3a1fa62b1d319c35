//! Latency of the recording proxy: `cargo bench --bench proxy` (release mode).
//!
//! Runs N sequential small `tools/call`s (after a warm-up) against our own test server
//! (`tests/support/test_server_main.rs`, stdio), once directly over stdio and once through
//! the proxy (streamable HTTP to the agent, stdio to the server), and prints p50 and p99 of
//! each and their ratio; then the calls per second of 8 agent sessions calling
//! concurrently through one proxy. `MCPEVAL_BENCH_CALLS` sets N (default 3000).
//! Measured figures are in `tests/bench/README.md`.

#[path = "../support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
use rmcp::model::ClientRequest;
use rmcp::service::serve_client;
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use support::agent::{Agent, TestAgent, connect};
use support::peers::test_server_binary;
use support::server::from_json;

const WARM_UP: usize = 300;
const SESSIONS: usize = 8;

fn echo() -> ClientRequest {
    from_json(json!({"method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "ping"}}}))
}

async fn timed_calls(agent: &Agent, n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        if let Err(error) = agent.peer().send_request(echo()).await {
            panic!("call failed: {error}");
        }
        times.push(start.elapsed());
    }
    times
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index]
}

fn report(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let (p50, p99) = (percentile(&times, 0.5), percentile(&times, 0.99));
    println!(
        "{label:<38} p50 {:>7.0} µs   p99 {:>7.0} µs",
        p50.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6
    );
    p50
}

async fn run() {
    let n: usize = std::env::var("MCPEVAL_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let server = test_server_binary();
    println!("{n} sequential tools/call (echo) after {WARM_UP} warm-up calls");

    let transport = TokioChildProcess::new(tokio::process::Command::new(&server)).unwrap();
    let direct = serve_client(TestAgent::new("bench"), transport)
        .await
        .unwrap();
    timed_calls(&direct, WARM_UP).await;
    let direct_p50 = report("direct (stdio)", timed_calls(&direct, n).await);
    let _ = direct.cancel().await;

    // The HTTP baseline: the same server in-process, reached over streamable HTTP by rmcp.
    let (url, stop_http) = support::server::serve_http(Default::default()).await;
    let over_http = connect(TestAgent::new("bench"), &url).await;
    timed_calls(&over_http, WARM_UP).await;
    report(
        "direct (streamable HTTP, in-process)",
        timed_calls(&over_http, n).await,
    );
    let _ = over_http.cancel().await;
    stop_http.cancel();

    let logs = tempfile::tempdir().unwrap();
    let upstream = Upstream::Stdio {
        command: server.display().to_string(),
        args: vec![],
        env: vec![],
        cwd: None,
    };
    let recorder = CallRecorder::new();
    let proxy = Proxy::start("bench", upstream, &recorder, logs.path())
        .await
        .unwrap();
    let proxied = connect(TestAgent::new("bench"), proxy.url()).await;
    timed_calls(&proxied, WARM_UP).await;
    let proxied_p50 = report(
        "proxied (HTTP → proxy → stdio)",
        timed_calls(&proxied, n).await,
    );
    println!(
        "ratio proxied / direct p50: {:.2}",
        proxied_p50.as_secs_f64() / direct_p50.as_secs_f64()
    );
    let _ = proxied.cancel().await;

    let mut agents = Vec::new();
    for i in 0..SESSIONS {
        let agent = connect(TestAgent::new(&format!("bench-{i}")), proxy.url()).await;
        timed_calls(&agent, 50).await;
        agents.push(agent);
    }
    let per_session = n / SESSIONS;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for agent in agents {
        tasks.push(tokio::spawn(async move {
            timed_calls(&agent, per_session).await;
            let _ = agent.cancel().await;
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = start.elapsed();
    println!(
        "{SESSIONS} concurrent sessions: {} calls in {:.2} s = {:.0} calls/s",
        per_session * SESSIONS,
        elapsed.as_secs_f64(),
        (per_session * SESSIONS) as f64 / elapsed.as_secs_f64()
    );
    println!("recorded calls: {}", recorder.trace().calls.len());
    proxy.shutdown().await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}
