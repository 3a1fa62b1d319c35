//! The script agent's `pick` directive (what tests of variants use: a tool found by its
//! description, as an agent reading `tools/list` would) through `mcpeval check` against
//! real servers: mcpeval's demo server, and a server that lists its tools one page at a
//! time. The results file shows which tool each `pick` called; the agent's output holds
//! its notes.

use crate::support;

use serde_json::{Value, json};
use support::eval_run::{TaskRun, run_task, stdio_server};
use support::listing_server;

/// The tool calls the proxy recorded: (name, arguments), in order.
fn tool_calls(run: &TaskRun) -> Vec<(String, Value)> {
    let calls = run.result["callHistory"]["toolCalls"].as_array();
    (calls.into_iter().flatten())
        .map(|call| {
            let name = call["name"].as_str().unwrap_or_default().to_owned();
            (name, call["arguments"].clone())
        })
        .collect()
}

/// What the agent printed (stdout and stderr).
fn agent_output(run: &TaskRun) -> &str {
    run.result["agentOutput"]["steps"][0]["output"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn pick_calls_the_first_tool_whose_description_matches_and_goes_on_without_one() {
    // The demo server lists lookup_user ("Finds a user by id") before delete_user
    // ("Deletes a user").
    let demo = stdio_server("demo", env!("CARGO_BIN_EXE_mcpeval"), &["demo-server"]);
    let prompt = r#"pick demo /^Deletes/ {"id": "1"}
pick demo /a user/ {"id": "2"}
pick demo /no tool says this/ {}
pick nowhere /user/ {"id": "3"}
call nowhere lookup_user {"id": "3"}
say done"#;
    let run = run_task(tempfile::tempdir().unwrap(), &demo, prompt, "").await;
    let output = agent_output(&run);
    assert_eq!(
        tool_calls(&run),
        [
            ("delete_user".to_owned(), json!({"id": "1"})),
            ("lookup_user".to_owned(), json!({"id": "2"})),
        ],
        "{output}"
    );
    assert!(run.passed(), "{}\n{output}", run.message());
    assert_eq!(
        run.result["taskOutput"].as_str().map(str::trim),
        Some("done")
    );
    for note in [
        "script-agent: /^Deletes/ picks `delete_user` of `demo`",
        "script-agent: no tool of `demo` matches /no tool says this/",
        "script-agent: server `nowhere` is not available",
    ] {
        assert!(output.contains(note), "lacks {note:?}:\n{output}");
    }
    assert_eq!(output.matches("`nowhere` is not available").count(), 2);
}

#[tokio::test]
async fn pick_reads_every_page_of_the_tools_and_a_title_stands_for_a_missing_description() {
    let dir = tempfile::tempdir().unwrap();
    let schema = json!({"type": "object"});
    let spec = json!({
        "name": "paged",
        "page": 1,
        "tools": [
            {"name": "adds", "description": "Adds numbers", "inputSchema": schema},
            {"name": "bees", "title": "Counts bees", "inputSchema": schema},
            {"name": "more_bees", "description": "Counts more bees", "inputSchema": schema},
        ],
    });
    let command = listing_server::command(dir.path(), &spec);
    let words: Vec<&str> = command.split(' ').collect();
    let server = stdio_server("paged", words[0], &words[1..]);
    // The server answers no call (a JSON-RPC error), but the proxy records each.
    let prompt = "pick paged /^Counts more/ {\"n\": 1}\npick paged /bees/ {\"n\": 2}";
    let run = run_task(dir, &server, prompt, "").await;
    assert_eq!(
        tool_calls(&run),
        [
            ("more_bees".to_owned(), json!({"n": 1})),
            ("bees".to_owned(), json!({"n": 2})),
        ],
        "{}",
        agent_output(&run)
    );
}
