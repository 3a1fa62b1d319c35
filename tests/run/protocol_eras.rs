//! Every protocol era, and the 2026-07-28 input rounds: `mcpeval check` runs each task under
//! two variants that fix the protocol version the proxy speaks to a server of ours that
//! speaks both (tests/fixtures/eras/server.py): the server that breaks only under
//! 2026-07-28 fails there and passes under 2025-11-25, and a tool that asks through input
//! rounds (an elicitation, then the roots) is fulfilled by the proxy for an agent that
//! speaks an older version. A version mcpeval does not speak is a load error naming the
//! ones it does; a server that does not speak the variant's version fails saying so.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::cli::{failure_of, mcpeval, result_file, text};
use support::results_schema::violations;

fn result(output: &Path, test: &str) -> Value {
    let result = result_file(output, &format!("eras__{test}"));
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    result
}

fn first_call(result: &Value) -> &Value {
    &result["callHistory"]["toolCalls"][0]
}

#[test]
fn each_task_runs_under_each_era_and_input_rounds_are_fulfilled_by_the_proxy() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/eras/eval.yaml"],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    assert!(
        stdout.contains("test result: FAILED. 4 passed; 4 failed;"),
        "{stdout}"
    );

    // The server breaks only under 2026-07-28.
    assert_eq!(result(output.path(), "count@classic")["taskPassed"], true);
    let modern = failure_of(&stdout, "eras::count@modern");
    assert!(
        modern.contains("1 tool errors: #1 eras/count_words (error -32603 \"no session state under 2026-07-28\")"),
        "{modern}"
    );
    let summary = text(&out.stderr);
    assert!(
        summary.contains("modern vs classic (baseline): 1 better, 1 worse, 2 same"),
        "{summary}"
    );

    // Two input rounds (an elicitation answered by the task's rule, then the agent's working
    // directory as the roots with a title from the task's scripted model), each retried with the server's request state; the agent
    // (older than 2026-07-28) sees only the final answer, and the trace keeps one call.
    let confirm = result(output.path(), "confirm@modern");
    assert_eq!(confirm["taskPassed"], true, "{confirm:#}");
    let call = first_call(&confirm);
    assert_eq!(
        confirm["callHistory"]["toolCalls"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let answer = call["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        answer.starts_with("deleted notes.txt under file:///")
            && answer.contains("confirm@modern")
            && answer.ends_with(": Notes retired."),
        "{answer}"
    );
    assert_eq!(
        call["rounds"],
        json!([
            {"asked": {"confirm": "elicitation/create"}, "requestState": "asked-confirm"},
            {"asked": {"roots": "roots/list", "title": "sampling/createMessage"}, "requestState": "asked-roots"}
        ])
    );
    let asked = &confirm["callHistory"]["elicitations"][0];
    assert_eq!(asked["rule"], "spec.elicitation.rules[0]");
    assert_eq!(asked["during"]["position"], 1);
    let sampled = &confirm["callHistory"]["sampling"][0];
    assert_eq!(
        (
            &sampled["rule"],
            &sampled["reply"],
            &sampled["during"]["position"]
        ),
        (
            &json!("spec.sampling.rules[0]"),
            &json!("Notes retired."),
            &json!(1)
        )
    );
    // Under 2025-11-25 the same tool does not ask.
    assert!(
        failure_of(&stdout, "eras::confirm@classic").contains("no server asked the user anything")
    );

    // A call answered with a task handle: the proxy polls it (working, then a question
    // answered by the task's rule through tasks/update, then working again) to its result,
    // which is the call's recorded result, with the statuses it went through.
    let report = result(output.path(), "report@modern");
    assert_eq!(report["taskPassed"], true, "{report:#}");
    let call = first_call(&report);
    assert_eq!(
        call["result"]["content"][0]["text"],
        "report: 3 pages, published"
    );
    let statuses: Vec<&str> = (call["task"].as_array().unwrap().iter())
        .map(|step| step["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "working",
            "working",
            "input_required",
            "working",
            "completed"
        ]
    );
    assert!(
        call["task"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["taskId"] == "report-1")
    );
    let asked = &report["callHistory"]["elicitations"][0];
    assert_eq!(asked["message"], "Publish the report?");
    assert_eq!(asked["during"]["name"], "build_report");
    assert_eq!(
        first_call(&result(output.path(), "report@classic"))["result"]["content"][0]["text"],
        "report: 3 pages"
    );

    // No rule answers a round's elicitation: the server gets cancel and the run fails,
    // naming what it asked; the call line counts its rounds.
    let unanswered = failure_of(&stdout, "eras::unanswered@modern");
    assert!(
        unanswered.contains("elicitation: no `elicitation` rule answers server `eras` (form) \"Delete notes.txt?\" during tool `confirm_delete`, properties confirm"),
        "{unanswered}"
    );
    assert!(
        unanswered.contains("1 input round: confirm elicitation/create)"),
        "{unanswered}"
    );
}

#[test]
fn a_task_still_running_when_the_run_ends_is_cancelled_at_the_server_and_reported() {
    let output = tempfile::tempdir().unwrap();
    let out = mcpeval(
        &["check", "tests/fixtures/eras/unfinished.yaml"],
        Some(output.path()),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(101), "{stdout}");
    let result = result_file(output.path(), "unfinished__forever@modern");
    let problems = violations(&result);
    assert!(problems.is_empty(), "{problems:#?}\n{result:#}");
    // The run's timeout ended it while the proxy followed the task: the proxy cancelled the
    // task at the server before closing, and the call records why (the agent, killed, went
    // away first, or the proxies were shut down first: which comes first is the machine's).
    let call = first_call(&result);
    let last = call["task"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["status"], "cancelled", "{call:#}");
    let why = last["message"].as_str().unwrap();
    assert!(
        [
            "the agent cancelled the call, or went away, while task `report-1` was still running: tasks/cancel sent",
            "the run ended while task `report-1` was still running: tasks/cancel sent"
        ]
        .contains(&why),
        "{why}"
    );
    assert_eq!(call["outcome"], "error", "{call:#}");
    let log = output
        .path()
        .join("runs/unfinished__forever@modern/eras.stderr.log");
    let log = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    assert!(log.contains("tasks/cancel report-1"), "{log}");
    let failure = failure_of(&stdout, "unfinished::forever@modern");
    assert!(failure.contains("task working → cancelled"), "{failure}");
}

#[test]
fn an_era_mcpeval_does_not_speak_or_the_server_does_not_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/elicitation");
    for file in ["agent.yaml", "mcp.yaml", "server.py"] {
        std::fs::copy(fixture.join(file), dir.path().join(file)).unwrap();
    }
    let eval = |variants: &str| {
        format!(
            "kind: Eval\nmetadata: {{name: legacy}}\nconfig:\n  agent: {{type: file, path: agent.yaml}}\n  \
             mcpConfigFile: mcp.yaml\n  snapshot: off\n  variants:\n{variants}  taskSets:\n    - path: task.yaml\n"
        )
    };
    let task = "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: read}\nspec:\n  \
                prompt:\n    inline: |\n      call files read_file {\"path\": \"a\"}\n";
    std::fs::write(dir.path().join("task.yaml"), task).unwrap();
    let eval_file = dir.path().join("eval.yaml");
    std::fs::write(
        &eval_file,
        eval("    - {name: bad, protocolVersion: \"2025-13-01\"}\n"),
    )
    .unwrap();
    let out = mcpeval(&["validate", eval_file.to_str().unwrap()], None);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("config.variants[0].protocolVersion: `2025-13-01` is not a protocol version mcpeval speaks; expected one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"),
        "{all}"
    );

    // The elicitation fixture's server speaks only the `initialize` eras.
    std::fs::write(
        &eval_file,
        eval("    - {name: old, protocolVersion: \"2025-06-18\"}\n    - {name: modern, protocolVersion: \"2026-07-28\"}\n"),
    )
    .unwrap();
    let output = dir.path().join("out");
    let out = mcpeval(&["check", eval_file.to_str().unwrap()], Some(&output));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("test result: FAILED. 1 passed; 1 failed;"),
        "{stdout}"
    );
    let modern = failure_of(&stdout, "legacy::read@modern");
    assert!(
        modern.contains("no method server/discover (the variant speaks protocol version 2026-07-28 to the server, through server/discover)"),
        "{modern}"
    );
}
