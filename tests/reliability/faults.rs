//! Faults on purpose under load: 50 parallel tasks, each of whose 20 calls meets every
//! fault kind at its place, lose no call, see each fault where its rule puts it, and leave
//! no server process behind (a disconnect starts a new session, with a new server).

use crate::common::{check_fifty_in_parallel, fixture, processes_with};

/// The faults of every task, by the call (of 20) each hits; a `probability` rule after
/// them may hit any other call.
const RULES: &str = r#"      faults:
        - {tool: echo, calls: [2], toolError: busy}
        - {tool: echo, calls: [4], error: {code: -32000, message: busy}}
        - {tool: echo, calls: [6], delay: 100ms}
        - {tool: echo, calls: [8], timeout: true}
        - {tool: echo, calls: [10], malformed: true}
        - {tool: echo, calls: [12], disconnect: true}
        - {tool: echo, calls: [14], replace: {content: [{type: text, text: replaced}]}}
        - tool: echo
          calls: [16]
          toolsChanged: {add: [{name: extra, inputSchema: {type: object}}]}
        - {tool: echo, probability: 0.1, toolError: random}
"#;

const AT: [(usize, &str); 8] = [
    (2, "toolError"),
    (4, "error"),
    (6, "delay"),
    (8, "timeout"),
    (10, "malformed"),
    (12, "disconnect"),
    (14, "replace"),
    (16, "toolsChanged"),
];

/// Expected: every task passes with its 20 calls recorded in order, each numbered rule's
/// fault at its call, the random one only elsewhere, the rules' counts in the results; no
/// process of the servers is left.
#[test]
fn fifty_parallel_tasks_with_every_fault_lose_nothing_and_leave_nothing() {
    let marker = format!("faults-{}", std::process::id());
    let mcp = format!(
        "mcpServers:\n  demo:\n    command: sh\n    args: [-c, '\"$MCPEVAL_BIN\" demo-server; exit', {marker}]\n    \
         env: {{MCPEVAL_BIN: {:?}}}\n",
        env!("CARGO_BIN_EXE_mcpeval")
    );
    let eval = format!(
        "kind: Eval\nmetadata: {{name: chaos}}\nconfig:\n  agent: {{type: file, path: {:?}}}\n  \
         mcpConfigFile: mcp.yaml\n  snapshot: off\n  parallel: true\n  taskSets:\n    - glob: \"*.task.yaml\"\n{RULES}",
        fixture("agent.yaml"),
    );
    let prompt = |task: usize| -> String {
        let calls =
            (1..=20).map(|call| format!("      call demo echo {{\"text\": \"{task}-{call}\"}}\n"));
        format!("      give-up 3\n{}", calls.collect::<String>())
    };
    let tasks: Vec<(String, String)> = (0..50)
        .map(|n| {
            let text = format!(
                "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {{name: t{n:02}}}\nspec:\n  \
                 limits: {{timeout: 120s}}\n  prompt:\n    inline: |\n{}",
                prompt(n)
            );
            (format!("{n:02}.task.yaml"), text)
        })
        .collect();
    let mut list = vec![("eval.yaml", eval.as_str()), ("mcp.yaml", mcp.as_str())];
    list.extend(
        tasks
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str())),
    );
    let results = check_fifty_in_parallel(&list);
    assert_eq!(processes_with(&marker), Vec::<String>::new(), "left behind");
    for result in results {
        let name = result["taskName"].as_str().unwrap();
        let n: usize = name[1..].parse().unwrap();
        let calls = result["callHistory"]["toolCalls"].as_array().unwrap();
        let texts: Vec<&str> = (calls.iter())
            .map(|call| call["arguments"]["text"].as_str().unwrap())
            .collect();
        let expected: Vec<String> = (1..=20).map(|call| format!("{n}-{call}")).collect();
        assert_eq!(texts, expected, "observed the calls of {name}");
        let mut random = 0;
        for (i, call) in calls.iter().enumerate() {
            let fault = call["injected"]["fault"].as_str();
            match AT.iter().find(|(at, _)| *at == i + 1) {
                Some((_, kind)) => assert_eq!(fault, Some(*kind), "{name} call {}", i + 1),
                None if fault.is_some() => {
                    assert_eq!(fault, Some("toolError"), "{name} call {}", i + 1);
                    assert_eq!(call["injected"]["rule"], "config.taskSets[0].faults[8]");
                    random += 1;
                }
                None => assert_eq!(call["outcome"], "ok", "{name} call {}", i + 1),
            }
        }
        let notes = result["faults"].as_array().unwrap();
        assert!(
            notes[..8]
                .iter()
                .all(|n| n["matched"] == 20 && n["injected"] == 1),
            "{notes:?}"
        );
        assert_eq!(notes[8]["injected"], random, "{notes:?}");
    }
}
