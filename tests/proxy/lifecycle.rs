//! A stdio server per agent session in its own process group: started fresh, its stderr
//! kept in a log, failures reported with the server's name and command, and nothing left
//! running after the proxy stops.

use crate::support;

use std::path::Path;
use std::time::Duration;

use mcpeval::proxy::{CallRecorder, Proxy, ProxyHandle, ProxyOptions, Upstream};
use serde_json::json;
use support::agent::{TestAgent, connect, ok};
use support::peers::test_server_binary;

fn stdio(args: &[&str]) -> Upstream {
    Upstream::Stdio {
        command: test_server_binary().display().to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: vec![("TEST_SERVER_SECRET".into(), "hunter2".into())],
        cwd: None,
    }
}

async fn start(args: &[&str], logs: &Path, timeout: Duration) -> ProxyHandle {
    let options = ProxyOptions {
        startup_timeout: timeout,
        ..ProxyOptions::default()
    };
    Proxy::start_with_options("local", stdio(args), &CallRecorder::new(), logs, options)
        .await
        .unwrap()
}

/// True while any process of group `pgid` exists (zombies included).
fn group_alive(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid pgrp …: the fields after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        fields.get(2) == Some(&pgid.to_string().as_str())
    })
}

async fn wait_gone(pgid: u32) -> bool {
    for _ in 0..200 {
        if !group_alive(pgid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_runs_in_its_own_process_group_and_is_gone_after_shutdown() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&[], logs.path(), Duration::from_secs(60)).await;
    let agent = connect(TestAgent::new("agent"), proxy.url()).await;
    let echo = ok(
        &agent,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(echo["content"][0]["text"], "echo: hi");
    let groups = proxy.server_process_groups();
    assert_eq!(groups.len(), 1, "{groups:?}");
    let pgid = groups[0];
    assert!(group_alive(pgid));
    assert_ne!(
        nix::unistd::getpgrp().as_raw() as u32,
        pgid,
        "the server must not share our process group"
    );
    proxy.shutdown().await;
    assert!(wait_gone(pgid).await, "process group {pgid} still alive");
    let _ = agent.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_proxy_kills_the_server() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&[], logs.path(), Duration::from_secs(60)).await;
    let agent = connect(TestAgent::new("agent"), proxy.url()).await;
    let pgid = proxy.server_process_groups()[0];
    drop(proxy);
    assert!(wait_gone(pgid).await, "process group {pgid} still alive");
    let _ = agent.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_session_gets_a_fresh_server() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&[], logs.path(), Duration::from_secs(60)).await;
    let first = connect(TestAgent::new("one"), proxy.url()).await;
    let second = connect(TestAgent::new("two"), proxy.url()).await;
    let groups = proxy.server_process_groups();
    assert_eq!(groups.len(), 2);
    assert_ne!(groups[0], groups[1]);
    proxy.shutdown().await;
    for pgid in groups {
        assert!(wait_gone(pgid).await, "process group {pgid} still alive");
    }
    let _ = first.cancel().await;
    let _ = second.cancel().await;
}

async fn failed_initialize(proxy: &ProxyHandle) -> String {
    mcpeval::tls::install_provider();
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(proxy.url().to_owned());
    let attempt = rmcp::service::serve_client(TestAgent::new("agent"), transport);
    let result = tokio::time::timeout(Duration::from_secs(120), attempt)
        .await
        .expect("the proxy must answer, not hang");
    let error = match result {
        Ok(_) => panic!("initialize should fail"),
        Err(error) => error.to_string(),
    };
    let failures = proxy.upstream_failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        error.contains(&failures[0]) || error.contains("mcp server `local`"),
        "the agent sees the reason: {error}"
    );
    failures[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_start_gives_an_error_with_name_command_and_stderr() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&["--crash"], logs.path(), Duration::from_secs(60)).await;
    let message = failed_initialize(&proxy).await;
    assert!(message.contains("mcp server `local`"), "{message}");
    assert!(message.contains("proxy_test_server --crash"), "{message}");
    assert!(message.contains("crashing on purpose"), "{message}");
    let log = proxy.stderr_log().unwrap().display().to_string();
    assert!(message.contains(&log), "{message}");
    assert!(!message.contains("hunter2"), "{message}");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_times_out_with_a_clear_error() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&["--hang"], logs.path(), Duration::from_secs(2)).await;
    let message = failed_initialize(&proxy).await;
    assert!(message.contains("mcp server `local`"), "{message}");
    assert!(message.contains("proxy_test_server --hang"), "{message}");
    assert!(
        message.contains("no answer to initialize within 2s"),
        "{message}"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_gives_a_spawn_error() {
    let logs = tempfile::tempdir().unwrap();
    let upstream = Upstream::Stdio {
        command: "/nonexistent/mcp-server".into(),
        args: vec!["--flag".into()],
        env: vec![],
        cwd: None,
    };
    let proxy = Proxy::start("ghost", upstream, &CallRecorder::new(), logs.path())
        .await
        .unwrap();
    mcpeval::tls::install_provider();
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(proxy.url().to_owned());
    let attempt = rmcp::service::serve_client(TestAgent::new("agent"), transport);
    let result = tokio::time::timeout(Duration::from_secs(60), attempt)
        .await
        .unwrap();
    assert!(result.is_err());
    let failures = proxy.upstream_failures();
    assert!(
        failures[0]
            .contains("mcp server `ghost`: could not start `/nonexistent/mcp-server --flag`"),
        "{failures:?}"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_run_gives_an_error_not_a_hang() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&[], logs.path(), Duration::from_secs(60)).await;
    let agent = connect(TestAgent::new("agent"), proxy.url()).await;
    let pgid = proxy.server_process_groups()[0];
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(wait_gone(pgid).await);
    let error = support::agent::request(&agent, "tools/call", json!({"name": "echo"}))
        .await
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("closed the connection"),
        "{error}"
    );
    let _ = agent.cancel().await;
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_roots_and_elicitation_from_a_stdio_server_reach_the_agent() {
    let logs = tempfile::tempdir().unwrap();
    let proxy = start(&[], logs.path(), Duration::from_secs(60)).await;
    let agent = TestAgent::new("agent");
    let received = agent.received.clone();
    let agent = connect(agent, proxy.url()).await;
    let asked = ok(&agent, "tools/call", json!({"name": "ask"})).await;
    assert_eq!(
        asked["structuredContent"]["sampled"]["content"]["text"],
        "4"
    );
    assert_eq!(
        asked["structuredContent"]["roots"]["roots"][0]["name"],
        "work"
    );
    assert_eq!(received.requests.lock().unwrap().len(), 2);
    let confirmed = ok(&agent, "tools/call", json!({"name": "confirm"})).await;
    assert_eq!(
        confirmed["structuredContent"]["answer"]["content"]["confirm"],
        true
    );
    assert_eq!(received.requests.lock().unwrap().len(), 3);
    let _ = agent.cancel().await;
    proxy.shutdown().await;
}

/// With `one_server` (a task's conversation) an HTTP upstream keeps one session for every
/// agent session: the second agent, connecting after the first is gone, reaches the
/// server's session of the first (one `initialize` upstream), and its calls are recorded
/// after the first's. Without it, each agent session gets its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_server_keeps_one_http_session_upstream_across_agent_sessions() {
    for one_server in [true, false] {
        let observed = std::sync::Arc::new(support::server::Observed::default());
        let (url, server) = support::server::serve_http(observed.clone()).await;
        let logs = tempfile::tempdir().unwrap();
        let recorder = CallRecorder::new();
        let upstream = Upstream::Http {
            url,
            headers: Vec::new(),
        };
        let options = ProxyOptions {
            one_server,
            ..ProxyOptions::default()
        };
        let proxy = Proxy::start_with_options("remote", upstream, &recorder, logs.path(), options)
            .await
            .unwrap();
        for (turn, text) in [(1, "first"), (2, "second")] {
            recorder.set_turn(turn);
            let agent = connect(TestAgent::new(text), proxy.url()).await;
            let echo = ok(
                &agent,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": text}}),
            )
            .await;
            assert_eq!(echo["content"][0]["text"], format!("echo: {text}"));
            let _ = agent.cancel().await;
        }
        let sessions = observed.clients.lock().unwrap().len();
        assert_eq!(
            sessions,
            if one_server { 1 } else { 2 },
            "one_server {one_server}"
        );
        let turns: Vec<Option<u32>> = recorder.trace().calls.iter().map(|c| c.turn).collect();
        assert_eq!(turns, [Some(1), Some(2)]);
        proxy.shutdown().await;
        server.cancel();
    }
}
