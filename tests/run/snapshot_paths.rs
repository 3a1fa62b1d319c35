//! Snapshots keep what tells calls apart, tried with the real filesystem server
//! (`@modelcontextprotocol/server-filesystem`): a file and its directory under a temporary
//! directory render as `[tmp]/data/a.txt` and `[tmp]/data`, not both as `[tmp]` (as they did).

use crate::support;

use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
use mcpeval::snapshot::{RunDirs, render_snapshot};
use serde_json::json;
use support::agent::{TestAgent, connect, ok};
use support::peers::require;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_and_its_directory_render_apart_with_the_filesystem_server() {
    let Some(binary) = require("node_modules/.bin/mcp-server-filesystem") else {
        return;
    };
    // Under /tmp whatever TMPDIR says: that is where the masks look.
    let root = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let data = root.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("a.txt"), "hello").unwrap();
    let logs = tempfile::tempdir().unwrap();
    let recorder = CallRecorder::new();
    let upstream = Upstream::Stdio {
        command: binary.display().to_string(),
        args: vec![root.path().display().to_string()],
        env: vec![],
        cwd: None,
    };
    let proxy = Proxy::start("fs", upstream, &recorder, logs.path())
        .await
        .unwrap();
    // The server takes the agent's roots over its arguments.
    let agent = TestAgent::new("snapshots").with_root(&format!("file://{}", root.path().display()));
    let agent = connect(agent, proxy.url()).await;
    let file = data.join("a.txt").display().to_string();
    let dir = data.display().to_string();
    for (tool, path) in [("read_text_file", &file), ("list_directory", &dir)] {
        let answer = ok(
            &agent,
            "tools/call",
            json!({"name": tool, "arguments": {"path": path}}),
        )
        .await;
        assert_ne!(answer["isError"], true, "{tool}: {answer}");
    }
    let _ = agent.cancel().await;
    proxy.shutdown().await;

    let run = logs.path().join("run");
    let snapshot = render_snapshot(&recorder.trace(), &RunDirs::new(&run, &run));
    assert!(
        snapshot.contains(r#"{"path":"[tmp]/data/a.txt"}"#)
            && snapshot.contains(r#"{"path":"[tmp]/data"}"#),
        "{snapshot}"
    );
    assert!(
        !snapshot.contains(&root.path().display().to_string()),
        "{snapshot}"
    );
}
