use serde_json::{Value, json};

use super::*;
use crate::report::results::{CallHistory, ServerTools, ToolSummary};
use crate::trace::{FaultKind, Injected};

/// `deploy` with an enum, a boolean, a nested object and an array of objects: 8 properties
/// (strategy, dryRun, spec, spec.replicas, spec.zone, ports, ports[].number,
/// ports[].protocol).
fn deploy_schema() -> Value {
    json!({"type": "object", "properties": {
        "strategy": {"type": "string", "enum": ["rolling", "recreate", "canary"]},
        "dryRun": {"type": "boolean"},
        "spec": {"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "zone": {"type": "string", "enum": ["a", "b"]}}},
        "ports": {"type": "array", "items": {"type": "object", "properties": {
            "number": {"type": "integer"},
            "protocol": {"enum": ["tcp", "udp"]}}}}
    }})
}

fn tools() -> Vec<ServerTools> {
    vec![ServerTools {
        name: "k8s".into(),
        variant: None,
        tools: vec![
            ToolSummary {
                name: "deploy".into(),
                description: Some("Deploys".into()),
                input_schema: Some(deploy_schema()),
            },
            ToolSummary {
                name: "status".into(),
                description: None,
                input_schema: Some(
                    json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                ),
            },
        ],
    }]
}

fn call(tool: &str, arguments: Value, outcome: &str) -> CallRecord {
    CallRecord {
        arguments: Some(arguments),
        outcome: outcome.into(),
        ..CallRecord::succeeded("k8s", tool)
    }
}

fn run(test: &str, calls: Vec<CallRecord>, asserted: &[(&str, &str)]) -> TaskResult {
    let mut asserted_arguments: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> =
        BTreeMap::new();
    for (tool, path) in asserted {
        (asserted_arguments.entry("k8s".into()).or_default())
            .entry((*tool).into())
            .or_default()
            .insert((*path).into());
    }
    TaskResult {
        test_name: test.into(),
        mcp_servers: tools(),
        asserted_arguments,
        call_history: CallHistory {
            tool_calls: calls,
            ..CallHistory::default()
        },
        ..TaskResult::default()
    }
}

#[test]
fn properties_count_succeeded_calls_and_assertions_per_test() {
    let mut faulted = call("status", json!({"name": "web"}), "ok");
    faulted.injected = Some(Injected {
        fault: FaultKind::ToolError,
        rule: "spec.faults[0]".into(),
    });
    let results = vec![
        // Test a, two runs: strategy rolling + spec.replicas, then strategy canary + dryRun
        // false; it asserts strategy. `a` counts once per property.
        run(
            "e::a",
            vec![call(
                "deploy",
                json!({"strategy": "rolling", "spec": {"replicas": 2}}),
                "ok",
            )],
            &[("deploy", "strategy")],
        ),
        run(
            "e::a",
            vec![call(
                "deploy",
                json!({"strategy": "canary", "dryRun": false}),
                "ok",
            )],
            &[("deploy", "strategy")],
        ),
        // Test b: a call that erred (passes ports and zone: not exercised), a faulted status
        // call (not counted at all), and an assertion on spec.zone and on a property the
        // schema lacks (ignored).
        run(
            "e::b",
            vec![
                call(
                    "deploy",
                    json!({"ports": [{"number": 80}], "spec": {"zone": "a"}}),
                    "is_error",
                ),
                faulted,
            ],
            &[("deploy", "spec.zone"), ("deploy", "nope")],
        ),
        // Test c: ports with a protocol, strategy rolling again.
        run(
            "e::c",
            vec![call(
                "deploy",
                json!({"strategy": "rolling", "ports": [{"number": 443, "protocol": "tcp"}, {"number": 53, "protocol": "udp"}]}),
                "ok",
            )],
            &[],
        ),
    ];
    let coverage = parameter_coverage(&results);
    let k8s = &coverage["k8s"];
    // 8 deploy properties + status.name = 9. Exercised: strategy, dryRun, spec,
    // spec.replicas, ports, ports[].number, ports[].protocol = 7 (spec.zone only in the
    // erred call; status never served). Asserted: strategy, spec.zone = 2.
    assert_eq!((k8s.properties, k8s.exercised, k8s.asserted), (9, 7, 2));
    assert!((k8s.coverage - 7.0 / 9.0).abs() < 1e-12);
    let deploy = &k8s.tools["deploy"];
    // 4 served calls of deploy, 1 erred.
    assert_eq!((deploy.calls, deploy.errors), (4, 1));
    assert!((deploy.error_share - 0.25).abs() < 1e-12);
    let strategy = &deploy.properties["strategy"];
    // Exercised by a and c (a's two runs count once); asserted by a.
    assert_eq!((strategy.exercised, strategy.asserted), (2, 1));
    assert_eq!(strategy.values, ["rolling", "recreate", "canary"]);
    assert_eq!(strategy.seen, ["rolling", "canary"]);
    assert_eq!(strategy.state(), "asserted");
    let dry_run = &deploy.properties["dryRun"];
    assert_eq!(
        (dry_run.values.as_slice(), dry_run.seen.as_slice()),
        (
            &["false".to_owned(), "true".to_owned()][..],
            &["false".to_owned()][..]
        )
    );
    let zone = &deploy.properties["spec.zone"];
    assert_eq!(
        (zone.exercised, zone.asserted, zone.state()),
        (0, 1, "asserted only")
    );
    assert!(zone.seen.is_empty(), "the erred call's zone is not seen");
    assert_eq!(deploy.properties["ports[].protocol"].seen, ["tcp", "udp"]);
    assert_eq!(deploy.properties["ports[].number"].exercised, 1);
    // The faulted status call is not a call the server answered.
    let status = &k8s.tools["status"];
    assert_eq!(
        (status.calls, status.properties["name"].state()),
        (0, "never")
    );
    let lines = k8s.render("k8s");
    assert_eq!(
        lines[0],
        "parameter coverage of k8s: 7 of 9 properties exercised (77.8%), 2 asserted"
    );
    assert!(
        lines[1].starts_with("  deploy: dryRun exercised (never true), ports exercised,")
            && lines[1].contains("spec.zone asserted only (never a, b)")
            && lines[1].ends_with("strategy asserted (never recreate), 1 of 4 calls erred"),
        "{}",
        lines[1]
    );
}

#[test]
fn a_server_without_properties_has_no_parameter_coverage() {
    let mut result = run("e::a", Vec::new(), &[]);
    result.mcp_servers[0].tools = vec![ToolSummary {
        name: "ping".into(),
        description: None,
        input_schema: Some(json!({"type": "object"})),
    }];
    assert!(parameter_coverage(&[result]).is_empty());
}

#[test]
fn a_run_whose_schema_checks_fail_the_task_asserts_what_its_calls_passed() {
    let mut checked = run(
        "e::a",
        vec![call("status", json!({"name": "web"}), "ok")],
        &[],
    );
    checked.schema_checks_fail = true;
    let unchecked = run(
        "e::b",
        vec![call("status", json!({"name": "db"}), "ok")],
        &[],
    );
    let coverage = parameter_coverage(&[checked, unchecked]);
    let name = &coverage["k8s"].tools["status"].properties["name"];
    // Both exercised it; only the run whose schema checks fail asserted it.
    assert_eq!((name.exercised, name.asserted), (2, 1));
    assert_eq!(coverage["k8s"].asserted, 1);
}
