//! The reference server `@modelcontextprotocol/server-everything`, installed under the
//! peers dir, over stdio or streamable HTTP.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use mcpeval::proxy::Upstream;
use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};

use super::peers::require;

/// The server's launcher, or `None` (after a skip line) when it is not installed.
pub fn binary() -> Option<PathBuf> {
    require("node_modules/.bin/mcp-server-everything")
}

/// The server over stdio.
pub fn stdio(binary: &std::path::Path) -> Upstream {
    Upstream::Stdio {
        command: binary.display().to_string(),
        args: vec!["stdio".into()],
        env: vec![],
        cwd: None,
    }
}

/// The server listening on streamable HTTP; killed with its process group on drop.
pub struct HttpEverything {
    pub url: String,
    _child: Box<dyn process_wrap::tokio::ChildWrapper>,
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    listener.local_addr().unwrap().port()
}

impl HttpEverything {
    pub async fn start(binary: &std::path::Path) -> Self {
        let port = free_port();
        let mut command = tokio::process::Command::new(binary);
        command
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut wrap = CommandWrap::from(command);
        wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
        let child = wrap.spawn().expect("start server-everything");
        for _ in 0..600 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Self {
                    url: format!("http://127.0.0.1:{port}/mcp"),
                    _child: child,
                };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("server-everything did not listen on port {port} within 30s");
    }
}
