//! Every fault kind reaches the file agent as what it is and is recorded as injected.

use crate::support::cli::text;

use super::{ADD, calls, check, eval_dir, injected, result, task};

#[test]
fn every_fault_kind_reaches_the_file_agent_and_is_recorded_as_injected() {
    let tool_error = "    - {tool: add, call: 1, toolError: \"rate limited, try again\"}\n";
    let error =
        "    - {server: demo, tool: add, call: 1, error: {code: -32000, message: upstream busy}}\n";
    let delay = "    - {tool: add, every: true, delay: 1s}\n";
    let timeout = "    - {tool: add, call: 1, timeout: true}\n";
    let disconnect = "    - {tool: add, call: 1, disconnect: true}\n";
    let malformed = "    - {tool: add, call: 1, malformed: true}\n";
    let replace = "    - tool: add\n      call: 1\n      replace: {content: [{type: text, text: forty-two}]}\n";
    let changed = "    - tool: add\n      call: 1\n      toolsChanged:\n        \
                   add: [{name: multiply, description: Multiplies, inputSchema: {type: object}}]\n        \
                   remove: [echo]\n";
    let resource =
        "    - {method: resources/read, call: 1, error: {code: -32002, message: resource gone}}\n";
    let tasks = [
        ("tool-error", task("tool-error", &[ADD, ADD], tool_error)),
        ("error", task("error", &[ADD, ADD], error)),
        ("delay", task("delay", &[ADD], delay)),
        (
            "timeout",
            task("timeout", &["give-up 1", ADD, ADD], timeout),
        ),
        (
            "disconnect",
            task("disconnect", &[ADD, ADD, "reconnect demo", ADD], disconnect),
        ),
        ("malformed", task("malformed", &[ADD, ADD], malformed)),
        ("replace", task("replace", &[ADD], replace)),
        (
            "tools-changed",
            task(
                "tools-changed",
                &[
                    "list demo",
                    ADD,
                    "pick demo /^Multiplies$/ {}",
                    "call demo echo {\"text\": \"hi\"}",
                ],
                changed,
            ),
        ),
        (
            "resource",
            task(
                "resource",
                &["read demo demo://readme", "read demo demo://readme"],
                resource,
            ),
        ),
    ];
    let dir = eval_dir("", "", &tasks);
    let out = check(dir.path(), None, &["--test-threads", "4"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));

    // toolError: the agent got an isError result with the rule's text; the retry is real.
    let r = result(dir.path(), "tool-error");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("toolError"), "{c:?}");
    assert_eq!(c[0]["injected"]["rule"], "spec.faults[0]");
    assert_eq!(c[0]["outcome"], "is_error");
    assert_eq!(
        c[0]["result"]["content"][0]["text"],
        "rate limited, try again"
    );
    assert_eq!(
        (
            injected(&c[1]),
            c[1]["result"]["content"][0]["text"].as_str()
        ),
        (None, Some("5"))
    );
    assert_eq!(r["toolErrors"], 0, "an injected error is not the server's");
    assert_eq!(r["faultSeed"], 0);
    let note = &r["faults"][0];
    assert_eq!(
        (note["matched"].as_u64(), note["injected"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(note["fault"], "toolError");
    assert_eq!(note["target"], "tool `add`");

    // error: a JSON-RPC error with the rule's code and message.
    let c = calls(&result(dir.path(), "error"));
    assert_eq!(injected(&c[0]), Some("error"));
    assert_eq!(
        c[0]["result"],
        serde_json::json!({"code": -32000, "message": "upstream busy"})
    );
    assert_eq!(c[1]["outcome"], "ok");

    // delay: the server's answer, a second late.
    let c = calls(&result(dir.path(), "delay"));
    assert_eq!(
        (injected(&c[0]), c[0]["outcome"].as_str()),
        (Some("delay"), Some("ok"))
    );
    assert!(c[0]["durationMs"].as_f64().unwrap() >= 1000.0, "{c:?}");

    // timeout: no answer until the agent gave up (after 1 s) and cancelled.
    let c = calls(&result(dir.path(), "timeout"));
    assert_eq!(injected(&c[0]), Some("timeout"), "{c:?}");
    assert_eq!(c[0]["result"]["code"], -32800, "{c:?}");
    // The agent's second starts when it sends; the proxy's clock starts when the call
    // arrives and stops when the cancel does, so the two differ by the pipe's latency
    // each way: the proxy held the call about that second, not exactly.
    let held = c[0]["durationMs"].as_f64().unwrap();
    assert!(held >= 900.0, "held {held} ms: {c:?}");
    assert_eq!(c[1]["outcome"], "ok");

    // disconnect: the session ends with the connection; rmcp's client, refused (404) on
    // its old session, opens a new one by itself, and later calls are the server's.
    let r = result(dir.path(), "disconnect");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("disconnect"), "{c:?}");
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(
        c[1..]
            .iter()
            .all(|c| injected(c).is_none() && c["outcome"] == "ok"),
        "{c:?}"
    );
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(
        agent.contains("failed"),
        "the agent saw its call fail: {agent}"
    );

    // malformed: the agent's request failed on a body that is not JSON-RPC.
    let r = result(dir.path(), "malformed");
    let c = calls(&r);
    assert_eq!(injected(&c[0]), Some("malformed"));
    assert_eq!(c[1]["outcome"], "ok");
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(agent.contains("failed"), "{agent}");

    // replace: the task's own result, which the agent answers with.
    let r = result(dir.path(), "replace");
    assert_eq!(injected(&calls(&r)[0]), Some("replace"));
    let agent = r["agentOutput"]["steps"][0]["output"].as_str().unwrap();
    assert!(agent.starts_with("forty-two"), "{agent}");

    // toolsChanged: the add call is the server's; the list after it has multiply and lacks
    // echo; calling echo then is an "unknown tool" error.
    let r = result(dir.path(), "tools-changed");
    let c = calls(&r);
    assert_eq!(
        (injected(&c[0]), c[0]["outcome"].as_str()),
        (Some("toolsChanged"), Some("ok"))
    );
    // The agent listed again (pick lists every page) and found the added tool: its call
    // goes to the server, which has no such tool.
    assert_eq!(
        (c[1]["name"].as_str(), injected(&c[1])),
        (Some("multiply"), None),
        "{c:?}"
    );
    assert_eq!(injected(&c[2]), Some("removedTool"), "{c:?}");
    assert_eq!(c[2]["result"]["message"], "Unknown tool: echo");
    assert_eq!(
        r["toolErrors"], 1,
        "the server's error for multiply; not the removed echo"
    );
    let surface = &r["surface"]["demo"]["tools"];
    assert!(
        !surface.to_string().contains("multiply"),
        "what the server advertised: {surface}"
    );

    // A method rule: resources/read.
    let r = result(dir.path(), "resource");
    let reads = r["callHistory"]["resourceReads"].as_array().unwrap();
    assert_eq!(injected(&reads[0]), Some("error"));
    assert_eq!(reads[1]["outcome"], "ok");
}
