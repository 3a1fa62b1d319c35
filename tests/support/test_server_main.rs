//! The test MCP server as a stdio binary (`cargo build --example proxy_test_server`).
//!
//! With the argument `--hang` it reads stdin but never answers, to test start-up
//! timeouts; with `--crash` it writes to stderr and exits at once. Given
//! `TEST_SERVER_SECRET`, it logs it on stderr, as careless servers print their keys.

#[path = "server/mod.rs"]
mod server;

use rmcp::ServiceExt;

#[tokio::main]
async fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    if arg == "--crash" {
        eprintln!("test server: crashing on purpose");
        std::process::exit(3);
    }
    if arg == "--hang" {
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        return;
    }
    if let Ok(secret) = std::env::var("TEST_SERVER_SECRET") {
        eprintln!("test server: connecting with key {secret}");
    }
    let server = server::TestServer::default();
    match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(error) => eprintln!("test server: {error}"),
    }
}
